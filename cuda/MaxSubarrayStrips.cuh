// Host side of the strip search, shared by the brightest backend (MaxSubarrayCuda.cu) and the 2-D K-MSP
// backend (KMax2dCuda.cu): the strip kernel's shapes and tiles, the ROI's upload, the prefix-sum and
// blocking-index launches, and the screen path's error bound.
#pragma once

#include "cuda/CudaToolkit.cuh"
#include "cuda/MaxSubarrayKernels.cuh"

#include "core/algo/regions/WorkArray.h"
#include "core/io/Image.h"
#include "core/jobs/Backend.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace glint::cuda::maxsub {
// Unnamed, as the kernels these helpers launch.
namespace {

// Columns rounded up to whole chunks: the row pitch of the prefix arrays.
inline int pitchFor(int cols) { return (cols + kChunk - 1) / kChunk * kChunk; }

// One shape of the strip kernel: 16*T tops x 16*B bottoms a block, without and with the blocking test.
struct StripKernel {
    void (*plain)(StripArgs);
    void (*blocked)(StripArgs);
    int tops;
    int bottoms;
    int smemPlain;
    int smemBlocked;
};

template <class V, int T, int B, bool Track = false>
StripKernel stripKernel() {
    StripKernel k{&stripMaxKernel<V, T, B, false, Track>, &stripMaxKernel<V, T, B, true, Track>, 16 * T, 16 * B,
                  stripSharedBytes<V, T, B>(false), stripSharedBytes<V, T, B>(true)};
    GLINT_CUDA_CHECK(cudaFuncSetAttribute(k.plain, cudaFuncAttributeMaxDynamicSharedMemorySize, k.smemPlain));
    GLINT_CUDA_CHECK(cudaFuncSetAttribute(k.blocked, cudaFuncAttributeMaxDynamicSharedMemorySize, k.smemBlocked));
    return k;
}

// 4x4 (64 x 64 strips a block) unless the image has too few strips to fill the GPU with such tiles:
// then 2x4 or 2x2, whose smaller tiles make more blocks. A non-empty shape ("2x2", "2x4"; anything
// else is 4x4) forces one. Track: the kernels that also record each strip's span (fast K).
template <class V, bool Track = false>
StripKernel chooseStripKernel(int rows, std::string shape = {}) {
    if (shape.empty()) {
        auto tiles = [&](int tops, int bottoms) {
            const long long t = (rows + tops - 1) / tops, b = (rows + bottoms - 1) / bottoms;
            return t * b / 2 + t;
        };
        const long long enough = 3LL * std::max(1, cudaDevice().multiprocessors);
        shape = tiles(64, 64) >= enough ? "4x4" : tiles(32, 64) >= enough ? "2x4" : "2x2";
        if (Track && shape == "4x4") shape = "2x4"; // the tracking 4x4 kernel runs one block an SM
    }
    if (shape == "2x2") return stripKernel<V, 2, 2, Track>();
    if (shape == "2x4") return stripKernel<V, 2, 4, Track>();
    return stripKernel<V, 4, 4, Track>();
}

// The tiles (top tile, bottom tile) that hold every strip top <= bottom.
inline std::vector<int2> stripTiles(const StripKernel& k, int rows) {
    std::vector<int2> tiles;
    const int topTiles = (rows + k.tops - 1) / k.tops, bottomTiles = (rows + k.bottoms - 1) / k.bottoms;
    for (int t = 0; t < topTiles; ++t)
        for (int b = t * k.tops / k.bottoms; b < bottomTiles; ++b) tiles.push_back(make_int2(t, b));
    return tiles;
}

// Tiles a strip-kernel launch takes, so that launches stay short (Cancel acts between them).
inline int tilesPerLaunch(const StripKernel& k, int pitch) {
    const double cellsPerTile = static_cast<double>(k.tops) * k.bottoms * pitch;
    return static_cast<int>(std::clamp(1.5e11 / cellsPerTile, 1.0, 1.0e6));
}

// n tiles from a.tileBegin on the calling thread's default stream.
inline void launchStrips(const StripKernel& k, bool blocked, int n, const StripArgs& a) {
    if (blocked)
        k.blocked<<<n, kThreads, k.smemBlocked>>>(a);
    else
        k.plain<<<n, kThreads, k.smemPlain>>>(a);
    GLINT_CUDA_CHECK_LAUNCH();
}

// Bytes of the work array's ROI samples, in their native type.
inline std::size_t sampleBytes(const WorkArray& w) {
    return static_cast<std::size_t>(w.roi.width) * w.roi.height * w.image->visit([](const auto* p) { return sizeof(*p); });
}

// An image's samples on their way to the device, per thread: a copy from pageable memory is staged by the driver
// and holds the thread until it ends, serialised with the other threads' copies; from page-locked memory it is
// one DMA on the thread's stream, in order before the kernels that read it. The previous copy out of the buffer
// must have ended before the buffer is written again (its event). Destroyed at the thread's end (the main
// thread's before the CUDA runtime's exit handlers run).
struct UploadStaging {
    PinnedBuffer<unsigned char> buffer;
    cudaEvent_t done = nullptr;
    int device = -1;
    UploadStaging() = default;
    UploadStaging(const UploadStaging&) = delete;
    UploadStaging& operator=(const UploadStaging&) = delete;
    ~UploadStaging() {
        if (done) cudaEventDestroy(done); // unchecked, as in any destructor
    }
};
constexpr std::size_t kStagedUploadBytes = std::size_t{1} << 20; // smaller copies go as they are

// bytes from host src to device dst on the calling thread's stream, staged when large (see UploadStaging).
inline void uploadBytes(void* dst, const void* src, std::size_t bytes) {
    if (bytes < kStagedUploadBytes) {
        GLINT_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
        return;
    }
    thread_local UploadStaging staging;
    int device = 0;
    GLINT_CUDA_CHECK(cudaGetDevice(&device));
    if (staging.done) GLINT_CUDA_CHECK(cudaEventSynchronize(staging.done));
    if (staging.device != device) {
        if (staging.done) cudaEventDestroy(staging.done);
        staging.done = nullptr;
        GLINT_CUDA_CHECK(cudaEventCreateWithFlags(&staging.done, cudaEventDisableTiming));
        staging.device = device;
    }
    staging.buffer.ensure(bytes);
    std::memcpy(staging.buffer.get(), src, bytes);
    GLINT_CUDA_CHECK(cudaMemcpyAsync(dst, staging.buffer.get(), bytes, cudaMemcpyHostToDevice, cudaStreamPerThread));
    GLINT_CUDA_CHECK(cudaEventRecord(staging.done, cudaStreamPerThread));
}

// Copies the ROI's samples to dst (sampleBytes(w) bytes, roi.width a row).
inline void uploadSamples(const WorkArray& w, void* dst) {
    const Image& img = *w.image;
    const std::size_t elem = img.visit([](const auto* p) { return sizeof(*p); });
    const auto* base = static_cast<const unsigned char*>(img.visit([](const auto* p) { return static_cast<const void*>(p); }));
    const unsigned char* src = base + (static_cast<std::size_t>(w.roi.y) * img.width() + w.roi.x) * elem;
    if (w.roi.width == img.width()) {
        uploadBytes(dst, src, sampleBytes(w));
    } else {
        GLINT_CUDA_CHECK(cudaMemcpy2D(dst, w.roi.width * elem, src, img.width() * elem, w.roi.width * elem,
                                      w.roi.height, cudaMemcpyHostToDevice));
    }
}

// The work array's exclusion mask (rows x cols bytes in work coordinates) to dst, or zeros when it has none.
inline void uploadMask(const WorkArray& w, std::uint8_t* dst) {
    const std::size_t bytes = static_cast<std::size_t>(w.rows) * w.cols;
    if (w.hasExclusions()) GLINT_CUDA_CHECK(cudaMemcpy(dst, w.excluded.data(), w.excluded.size(), cudaMemcpyHostToDevice));
    else GLINT_CUDA_CHECK(cudaMemset(dst, 0, bytes));
}

// The prefix kernel's arguments for this work array: its shape, the uploaded samples, and the uploaded mask
// when it has exclusions (null otherwise); the outputs (exact, p32, pf, pmaxBits) are the caller's.
inline PrefixArgs prefixArgsOf(const WorkArray& w, const void* samples, const std::uint8_t* mask, int pitch) {
    PrefixArgs a{};
    a.samples = samples;
    a.roiWidth = w.roi.width;
    a.transposed = w.transposed;
    a.mask = w.hasExclusions() ? mask : nullptr;
    a.rows = w.rows;
    a.cols = w.cols;
    a.pitch = pitch;
    return a;
}

// The column prefix sums of a (samples, mask, outputs and shape filled in), in the sample type's kernel;
// Exact: double, or a 64-bit integer (the sums then run in long long).
template <class Exact>
void launchPrefix(const WorkArray& w, const PrefixArgs& a) {
    const int blocks = (a.pitch + 127) / 128;
    w.image->visit([&](const auto* p) {
        using S = std::remove_cv_t<std::remove_pointer_t<decltype(p)>>;
        if constexpr (std::is_same_v<Exact, double>) prefixKernel<S, double><<<blocks, 128>>>(a, w.pivot);
        else prefixKernel<S, long long><<<blocks, 128>>>(a, static_cast<long long>(w.pivotInt));
    });
    GLINT_CUDA_CHECK_LAUNCH();
}

// The blocking index (next, nextMin) for the columns colBegin..colEnd-1 and the rows 0..rowLast.
inline void launchBlocking(const std::uint8_t* mask, int rows, int cols, int pitch, int* next, int* nextMin,
                           int colBegin, int colEnd, int rowLast) {
    const int n = colEnd - colBegin;
    nextExcludedKernel<<<(n + 127) / 128, 128>>>(mask, rows, cols, pitch, next, colBegin, colEnd, rowLast);
    GLINT_CUDA_CHECK_LAUNCH();
    const int chunkBegin = colBegin / kChunk, chunkEnd = (colEnd + kChunk - 1) / kChunk;
    const int rowCount = rowLast == rows - 1 ? rows + 1 : rowLast + 1;
    const long long items = static_cast<long long>(rowCount) * (chunkEnd - chunkBegin);
    nextMinKernel<<<static_cast<unsigned>((items + 255) / 256), 256>>>(next, pitch, rowCount, chunkBegin, chunkEnd,
                                                                        nextMin);
    GLINT_CUDA_CHECK_LAUNCH();
}

// The screen path's max |P| (float bits, as prefixKernel leaves them at pmaxBits).
inline float readPmax(const unsigned* pmaxBits) {
    const unsigned bits = readBack(pmaxBits);
    float pmax;
    std::memcpy(&pmax, &bits, sizeof(pmax));
    return pmax;
}

// |float strip maximum f - exact maximum| <= alpha + beta * max(f, gamma): see CandidateArgs.
struct ScreenBound {
    double alpha, beta, gamma;
};
inline ScreenBound screenBound(int pitch, double pmax) {
    const double u = 1.0 / (1 << 24), W = pitch;
    return {4.02 * W * u * pmax * 1.001, 1.01 * W * u * 1.001, 4.1 * pmax};
}

} // namespace
} // namespace glint::cuda::maxsub
