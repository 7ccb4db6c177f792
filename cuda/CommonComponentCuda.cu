// The cuda backend of the common component. The host codes the images (as the cpu backend does), then
// the GPU finds a strong first component from patch seeds, bounds every offset that could beat it by
// the count of pixels whose quantised codes agree (bit planes and popcounts), sorts the offsets whose
// bound beats the best, and, in batches in bound order, counts their exact matches and labels those whose
// count still beats the best (one block per offset, strips in shared memory), until no bound can.
#include "cuda/CommonComponentCuda.h"

#include "cuda/CommonComponentKernels.cuh"
#include "cuda/CudaDevice.h"
#include "core/algo/common/CommonComponent.h"
#include "core/algo/common/CommonComponentCoding.h"
#include "core/util/Errors.h"
#include "core/util/Parallel.h"

#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <limits>
#include <mutex>
#include <thread>
#include <vector>

namespace glint::cuda {

namespace {

using namespace glint::common_component;
namespace cd = common_detail;

template <class T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(std::size_t n) { resize(n); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    ~DeviceBuffer() {
        if (p_) cudaFree(p_);
    }
    void resize(std::size_t n) {
        if (n <= n_) return;
        if (p_) cudaFree(p_);
        p_ = nullptr;
        n_ = 0;
        GLINT_CUDA_CHECK(cudaMalloc(&p_, std::max<std::size_t>(1, n) * sizeof(T)));
        n_ = n;
    }
    T* get() const { return p_; }
    std::size_t size() const { return n_; }

private:
    T* p_ = nullptr;
    std::size_t n_ = 0;
};

class Stream {
public:
    Stream() { GLINT_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
    ~Stream() { cudaStreamDestroy(s_); }
    operator cudaStream_t() const { return s_; }

private:
    cudaStream_t s_ = nullptr;
};

class Event {
public:
    Event() { GLINT_CUDA_CHECK(cudaEventCreate(&e_)); }
    ~Event() { cudaEventDestroy(e_); }
    operator cudaEvent_t() const { return e_; }

private:
    cudaEvent_t e_ = nullptr;
};

// Cancel reaches running kernels through a device flag that a second stream sets while they run.
class CancelFlag {
public:
    CancelFlag() : flag_(1) {
        GLINT_CUDA_CHECK(cudaMallocHost(&host_, sizeof(int)));
        *host_ = 0;
        // Cleared and finished before any kernel of the (non-blocking) work stream can read it.
        GLINT_CUDA_CHECK(cudaMemsetAsync(flag_.get(), 0, sizeof(int), control_));
        GLINT_CUDA_CHECK(cudaStreamSynchronize(control_));
    }
    ~CancelFlag() { cudaFreeHost(host_); }
    const volatile int* device() const { return flag_.get(); }
    void reset() {
        raised_ = false;
        *host_ = 0;
        GLINT_CUDA_CHECK(cudaMemsetAsync(flag_.get(), 0, sizeof(int), control_));
        GLINT_CUDA_CHECK(cudaStreamSynchronize(control_));
    }
    void raise() {
        if (raised_) return;
        raised_ = true;
        *host_ = 1;
        GLINT_CUDA_CHECK(cudaMemcpyAsync(flag_.get(), host_, sizeof(int), cudaMemcpyHostToDevice, control_));
    }
    bool raised() const { return raised_; }

private:
    DeviceBuffer<int> flag_;
    int* host_ = nullptr;
    Stream control_;
    bool raised_ = false;
};

// What one run needs on the device, kept from run to run (buffers only grow): repeated runs, as in the
// window or the bench, then pay for no allocation. One run at a time uses it (workspaceMutex).
struct Workspace {
    Stream stream;
    Event start, stop;
    CancelFlag cancel;
    DeviceBuffer<unsigned char> lo, span, code; // typed codes, reinterpreted as T
    DeviceBuffer<std::uint8_t> binA, binB;
    DeviceBuffer<std::uint32_t> counters{8};
    DeviceBuffer<unsigned long long> bestKey{1};
    DeviceBuffer<std::uint32_t> scratch;
    DeviceBuffer<int2> batchOffsets, batchSeeds, patches, hits;
    DeviceBuffer<std::uint32_t> batchCounts, batchSizes;
    DeviceBuffer<std::uint32_t> planesA, planesB, bound, keys, values, keys2, values2;
    DeviceBuffer<unsigned char> sortTemp;
};
std::mutex& workspaceMutex() {
    static std::mutex m;
    return m;
}
Workspace& workspace() {
    static Workspace* w = new Workspace; // never destroyed: the CUDA runtime may be gone at exit
    return *w;
}

template <class T, bool Span>
class Search {
public:
    Search(const CommonCoding& coding, const CommonComponentParams& params, JobControl& job)
        : c_(coding), job_(job),
          range_(offsetRange(coding.widthA, coding.heightA, coding.widthB, coding.heightB, params.maxShift)) {}

    CommonComponentResult run() {
        stats_.offsets = range_.count();
        cancel_.reset();
        upload();
        configureLabeller();
        seed();
        job_.setProgress(0.05);
        if (c_.twoPartitions) searchWith<8>();
        else searchWith<4>();
        job_.timing().add("kernel", kernelMs_);
        auto step = job_.timing().scope("mask");
        CommonComponentResult result = componentFromSeed(c_, bestDx_, bestDy_, seedX_, seedY_, best_);
        result.stats = stats_;
        return result;
    }

private:
    // Waits for the stream, polling so that a Cancel stops the kernels at their next offset or strip.
    double wait(cudaEvent_t start, cudaEvent_t stop, const char* step) {
        GLINT_CUDA_CHECK(cudaEventRecord(stop, stream_));
        for (;;) {
            const cudaError_t e = cudaEventQuery(stop);
            if (e == cudaSuccess) break;
            if (e != cudaErrorNotReady) GLINT_CUDA_CHECK(e);
            if (job_.cancelRequested()) cancel_.raise();
            std::this_thread::sleep_for(std::chrono::microseconds(50));
        }
        GLINT_CUDA_CHECK(cudaGetLastError());
        if (cancel_.raised()) throw Cancelled();
        job_.throwIfCancelled();
        float ms = 0;
        GLINT_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        job_.timing().add(step, ms);
        kernelMs_ += ms;
        return ms;
    }

    template <class U>
    void copyTo(DeviceBuffer<U>& dst, const U* src, std::size_t n) {
        dst.resize(n);
        if (n) GLINT_CUDA_CHECK(cudaMemcpyAsync(dst.get(), src, n * sizeof(U), cudaMemcpyHostToDevice, stream_));
    }
    template <class U>
    void copyBytes(DeviceBuffer<unsigned char>& dst, const U* src, std::size_t n) {
        dst.resize(n * sizeof(U));
        if (n) GLINT_CUDA_CHECK(cudaMemcpyAsync(dst.get(), src, n * sizeof(U), cudaMemcpyHostToDevice, stream_));
    }
    template <class U>
    U fetch(const U* src) {
        U v{};
        GLINT_CUDA_CHECK(cudaMemcpyAsync(&v, src, sizeof(U), cudaMemcpyDeviceToHost, stream_));
        GLINT_CUDA_CHECK(cudaStreamSynchronize(stream_));
        return v;
    }

    void upload() {
        auto step = job_.timing().scope("upload");
        auto narrow = [](const PixelVector<std::uint32_t>& in, bool isA) {
            PixelVector<T> out(in.size());
            constexpr T top = std::numeric_limits<T>::max();
            parallelFor(0, in.size(), 1 << 16, [&](std::size_t b, std::size_t e) {
                for (std::size_t i = b; i < e; ++i) {
                    const std::uint32_t v = in[i];
                    out[i] = isA && v == kBlankLo ? top : !isA && v == kBlankCode ? T(top - 1) : static_cast<T>(v);
                }
            });
            return out;
        };
        const auto lo = narrow(c_.loA, true);
        const auto code = narrow(c_.codeB, false);
        copyBytes(ws_.lo, lo.data(), lo.size());
        copyBytes(ws_.code, code.data(), code.size());
        PixelVector<T> span;
        if (Span) {
            span = narrow(c_.spanA, false);
            copyBytes(ws_.span, span.data(), span.size());
        }
        copyTo(ws_.binA, c_.binA.data(), c_.binA.size());
        copyTo(ws_.binB, c_.binB.data(), c_.binB.size());
        GLINT_CUDA_CHECK(cudaStreamSynchronize(stream_));
        m_.lo = reinterpret_cast<const T*>(ws_.lo.get());
        m_.span = Span ? reinterpret_cast<const T*>(ws_.span.get()) : nullptr;
        m_.code = reinterpret_cast<const T*>(ws_.code.get());
        m_.wA = c_.widthA;
        m_.hA = c_.heightA;
        m_.wB = c_.widthB;
        m_.hB = c_.heightB;
    }

    // Shared memory of the labeller: a node array of at least two rows of the widest overlap.
    void configureLabeller() {
        int device = 0, sms = 0, optin = 0;
        GLINT_CUDA_CHECK(cudaGetDevice(&device));
        GLINT_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
        GLINT_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
        sms_ = sms;
        const int widest = std::min(c_.widthA, c_.widthB);
        rowsCap_ = 257;
        nodeCap_ = std::max(16384, 2 * (widest + 1));
        maskCap_ = nodeCap_ / 32 + rowsCap_ + 32;
        smemBytes_ = static_cast<std::size_t>(nodeCap_ + 2 * maskCap_) * sizeof(std::uint32_t);
        if (smemBytes_ + 256 > static_cast<std::size_t>(optin))
            throw BackendUnavailable("common component: overlaps " + std::to_string(widest) +
                                     " pixels wide exceed the GPU labeller's shared memory; use --backend cpu");
        auto kernel = cd::labelKernel<T, Span>;
        GLINT_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                              static_cast<int>(smemBytes_)));
        // Threads per labelling block: 512 (random4 on an H200: 519 ms against 714 ms with 256), unless the
        // tuning knob GLINT_COMMON_LABEL_THREADS=256 asks for fewer.
        const char* knob = std::getenv("GLINT_COMMON_LABEL_THREADS");
        labelThreads_ = knob && std::string(knob) == "256" ? 256 : 512;
        int perSm = 0;
        GLINT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, kernel, labelThreads_, smemBytes_));
        labelGrid_ = sms * std::max(1, perSm);
        scratch_.resize(static_cast<std::size_t>(labelGrid_) * widest);
        scratchStride_ = widest;
    }

    void ensureBatch(std::size_t items) {
        batchOffsets_.resize(items);
        batchCounts_.resize(items);
        batchSizes_.resize(items);
        batchSeeds_.resize(items);
    }

    struct Outcome {
        std::uint32_t size = 0;
        std::uint32_t item = 0;
        std::uint32_t labelled = 0;
    };

    // Labels offsets[0..n) already in batchOffsets_; with counts, only those whose count beats minCount.
    Outcome label(std::uint32_t n, bool withCounts, std::uint32_t minCount) {
        Outcome out;
        if (n == 0) return out;
        GLINT_CUDA_CHECK(cudaMemsetAsync(counters_.get(), 0, 8 * sizeof(std::uint32_t), stream_));
        GLINT_CUDA_CHECK(cudaMemsetAsync(bestKey_.get(), 0, sizeof(unsigned long long), stream_));
        cd::LabelArgs args{};
        args.offsets = batchOffsets_.get();
        args.count = n;
        args.counts = withCounts ? batchCounts_.get() : nullptr;
        args.minCount = minCount;
        args.work = counters_.get() + 3;
        args.labelled = counters_.get() + 4;
        args.outSize = batchSizes_.get();
        args.outSeed = batchSeeds_.get();
        args.bestKey = bestKey_.get();
        args.scratch = scratch_.get();
        args.scratchStride = scratchStride_;
        args.nodeCap = nodeCap_;
        args.maskCap = maskCap_;
        args.rowsCap = rowsCap_;
        args.cancel = cancel_.device();
        GLINT_CUDA_CHECK(cudaEventRecord(start_, stream_));
        cd::labelKernel<T, Span><<<labelGrid_, labelThreads_, smemBytes_, stream_>>>(m_, args);
        GLINT_CUDA_CHECK_LAUNCH();
        wait(start_, stop_, "label kernel");
        const unsigned long long key = fetch(bestKey_.get());
        out.labelled = fetch(counters_.get() + 4);
        out.size = static_cast<std::uint32_t>(key >> 32);
        out.item = static_cast<std::uint32_t>(key);
        return out;
    }

    void offer(const Outcome& out, int dx, int dy) {
        if (out.size <= best_) return;
        const int2 seed = fetch(batchSeeds_.get() + out.item);
        best_ = out.size;
        bestDx_ = dx;
        bestDy_ = dy;
        seedX_ = seed.x;
        seedY_ = seed.y;
    }

    void seed() {
        const std::vector<SeedPatch> patches = chooseSeedPatches(c_);
        if (patches.empty()) return;
        std::vector<int2> pos;
        for (const auto& p : patches) pos.push_back(make_int2(p.x, p.y));
        DeviceBuffer<int2>& dPatches = ws_.patches;
        copyTo(dPatches, pos.data(), pos.size());
        DeviceBuffer<int2>& hits = ws_.hits;
        hits.resize(kMaxSeedHits);
        GLINT_CUDA_CHECK(cudaMemsetAsync(counters_.get(), 0, sizeof(std::uint32_t), stream_));
        const dim3 block(32, 8);
        const dim3 grid((c_.widthB - cd::kSeedPatch + 1 + 31) / 32, (c_.heightB - cd::kSeedPatch + 1 + 7) / 8);
        GLINT_CUDA_CHECK(cudaEventRecord(start_, stream_));
        cd::seedKernel<T, Span><<<grid, block, 0, stream_>>>(m_, dPatches.get(), static_cast<int>(pos.size()),
                                                             hits.get(), counters_.get(), kMaxSeedHits);
        GLINT_CUDA_CHECK_LAUNCH();
        wait(start_, stop_, "seed kernel");
        const std::size_t n = std::min<std::size_t>(fetch(counters_.get()), kMaxSeedHits);
        std::vector<int2> raw(n);
        if (n) {
            GLINT_CUDA_CHECK(cudaMemcpyAsync(raw.data(), hits.get(), n * sizeof(int2), cudaMemcpyDeviceToHost, stream_));
            GLINT_CUDA_CHECK(cudaStreamSynchronize(stream_));
        }
        std::vector<std::pair<int, int>> found;
        for (const auto& h : raw) found.push_back({h.x, h.y});
        const auto offsets = rankSeedOffsets(found, range_);
        stats_.seedCandidates = offsets.size();
        if (offsets.empty()) return;
        std::vector<int2> items;
        for (const auto& [dx, dy] : offsets) items.push_back(make_int2(dx, dy));
        ensureBatch(items.size());
        copyTo(batchOffsets_, items.data(), items.size());
        const Outcome out = label(static_cast<std::uint32_t>(items.size()), false, 0);
        if (out.size) offer(out, items[out.item].x, items[out.item].y);
    }

    template <int NP>
    void searchWith() {
        const int wordsA = (c_.widthA + 31) / 32, wordsB = (c_.widthB + 31) / 32;
        DeviceBuffer<std::uint32_t>& planesA = ws_.planesA;
        DeviceBuffer<std::uint32_t>& planesB = ws_.planesB;
        planesA.resize(static_cast<std::size_t>(c_.heightA) * wordsA * NP);
        planesB.resize(static_cast<std::size_t>(c_.heightB) * wordsB * NP);
        GLINT_CUDA_CHECK(cudaEventRecord(start_, stream_));
        auto build = [&](const std::uint8_t* bins, int w, int h, int words, std::uint32_t* out) {
            const long long threads = static_cast<long long>(h) * words * 32;
            cd::buildPlanesKernel<NP><<<static_cast<unsigned>((threads + 255) / 256), 256, 0, stream_>>>(bins, w, h, words, out);
            GLINT_CUDA_CHECK_LAUNCH();
        };
        build(ws_.binA.get(), c_.widthA, c_.heightA, wordsA, planesA.get());
        build(ws_.binB.get(), c_.widthB, c_.heightB, wordsB, planesB.get());
        wait(start_, stop_, "bound kernel");

        const std::uint64_t dyCount = range_.dyCount();
        const int band = static_cast<int>(std::max<std::uint64_t>(1, (std::uint64_t{1} << 24) / dyCount));
        const std::size_t bandOffsets = static_cast<std::size_t>(std::min<std::uint64_t>(range_.dxCount(), band)) * dyCount;
        DeviceBuffer<std::uint32_t>&bound = ws_.bound, &keys = ws_.keys, &values = ws_.values, &keys2 = ws_.keys2,
                                     &values2 = ws_.values2;
        for (auto* b : {&bound, &keys, &values}) b->resize(bandOffsets);
        DeviceBuffer<unsigned char>& sortTemp = ws_.sortTemp;

        for (int dxLo = range_.dxMin; dxLo <= range_.dxMax; dxLo += band) {
            const int dxCount = std::min(band, range_.dxMax - dxLo + 1);
            const std::uint32_t n = static_cast<std::uint32_t>(static_cast<std::uint64_t>(dxCount) * dyCount);
            const std::uint32_t bestAtBound = static_cast<std::uint32_t>(best_);
            GLINT_CUDA_CHECK(cudaMemsetAsync(bound.get(), 0, n * sizeof(std::uint32_t), stream_));
            // Launches of bounded work, so that Cancel is seen between them too.
            const double perColumn = static_cast<double>(c_.heightA) * c_.heightB * std::min(c_.widthA, c_.widthB) / 32.0;
            const int columnsPerLaunch = static_cast<int>(std::clamp(1.5e10 / std::max(1.0, perColumn), 1.0, 65535.0));
            for (int first = 0; first < dxCount; first += columnsPerLaunch) {
                cd::BoundArgs args{planesA.get(), planesB.get(), c_.widthA, c_.heightA, c_.widthB, c_.heightB,
                                   wordsA, wordsB, dxLo, range_.dyMin, static_cast<int>(dyCount), first,
                                   bestAtBound, bound.get(), cancel_.device()};
                const dim3 grid(std::min(columnsPerLaunch, dxCount - first),
                                static_cast<unsigned>((dyCount + cd::kBoundDy - 1) / cd::kBoundDy));
                GLINT_CUDA_CHECK(cudaEventRecord(start_, stream_));
                cd::boundKernel<NP><<<grid, cd::kBoundThreads, 0, stream_>>>(args);
                GLINT_CUDA_CHECK_LAUNCH();
                wait(start_, stop_, "bound kernel");
            }
            // Candidates: offsets whose bound beats the best, sorted by bound, largest first.
            GLINT_CUDA_CHECK(cudaMemsetAsync(counters_.get(), 0, 3 * sizeof(std::uint32_t), stream_));
            cd::SelectArgs select{bound.get(), n, c_.widthA, c_.heightA, c_.widthB, c_.heightB, dxLo,
                                  range_.dyMin, static_cast<int>(dyCount), bestAtBound, keys.get(), values.get(),
                                  counters_.get()};
            GLINT_CUDA_CHECK(cudaEventRecord(start_, stream_));
            cd::selectKernel<<<(n + 255) / 256, 256, 0, stream_>>>(select);
            GLINT_CUDA_CHECK_LAUNCH();
            std::uint32_t counts[3];
            GLINT_CUDA_CHECK(cudaMemcpyAsync(counts, counters_.get(), sizeof(counts), cudaMemcpyDeviceToHost, stream_));
            GLINT_CUDA_CHECK(cudaStreamSynchronize(stream_));
            stats_.prunedByArea += counts[1];
            stats_.prunedByBound += counts[2];
            const std::uint32_t m = counts[0];
            std::vector<std::uint32_t> hostKeys(m), hostValues(m);
            if (m) {
                keys2.resize(m);
                values2.resize(m);
                std::size_t sortBytes = 0;
                GLINT_CUDA_CHECK(cub::DeviceRadixSort::SortPairsDescending(nullptr, sortBytes, keys.get(), keys2.get(),
                                                                           values.get(), values2.get(), static_cast<int>(m)));
                sortTemp.resize(std::max<std::size_t>(sortBytes, 16));
                GLINT_CUDA_CHECK(cub::DeviceRadixSort::SortPairsDescending(sortTemp.get(), sortBytes, keys.get(),
                                                                           keys2.get(), values.get(), values2.get(),
                                                                           static_cast<int>(m), 0, 32, stream_));
                GLINT_CUDA_CHECK(cudaMemcpyAsync(hostKeys.data(), keys2.get(), m * sizeof(std::uint32_t),
                                                 cudaMemcpyDeviceToHost, stream_));
                GLINT_CUDA_CHECK(cudaMemcpyAsync(hostValues.data(), values2.get(), m * sizeof(std::uint32_t),
                                                 cudaMemcpyDeviceToHost, stream_));
            }
            wait(start_, stop_, "select kernel");
            labelCandidates(hostKeys, hostValues, dxLo, static_cast<int>(dyCount));
            job_.setProgress(0.05 + 0.95 * static_cast<double>(dxLo + dxCount - range_.dxMin) / range_.dxCount());
        }
    }

    void labelCandidates(const std::vector<std::uint32_t>& keys, const std::vector<std::uint32_t>& values, int dxLo,
                         int dyCount) {
        std::size_t pos = 0;
        double budget = 1 << 26; // pixels per batch, tuned to ~30 ms a launch as batches run
        std::vector<int2> items;
        while (pos < keys.size() && keys[pos] > best_) {
            items.clear();
            double pixels = 0;
            std::size_t end = pos;
            while (end < keys.size() && keys[end] > best_ && pixels < budget && items.size() < (1u << 20)) {
                const int dx = dxLo + static_cast<int>(values[end] / dyCount);
                const int dy = range_.dyMin + static_cast<int>(values[end] % dyCount);
                pixels += static_cast<double>(overlapOf(c_.widthA, c_.heightA, c_.widthB, c_.heightB, dx, dy).area());
                items.push_back(make_int2(dx, dy));
                ++end;
            }
            const std::uint32_t n = static_cast<std::uint32_t>(items.size());
            ensureBatch(n);
            copyTo(batchOffsets_, items.data(), n);
            double ms = 0;
            if (!c_.boundExact) {
                GLINT_CUDA_CHECK(cudaEventRecord(start_, stream_));
                cd::countKernel<T, Span><<<std::min<std::uint32_t>(n, static_cast<std::uint32_t>(sms_) * 8), 256, 0,
                                           stream_>>>(m_, batchOffsets_.get(), n, batchCounts_.get(), cancel_.device());
                GLINT_CUDA_CHECK_LAUNCH();
                ms += wait(start_, stop_, "count kernel");
            }
            const auto before = job_.timing().step("label kernel");
            const Outcome out = label(n, !c_.boundExact, static_cast<std::uint32_t>(best_));
            ms += job_.timing().step("label kernel") - before;
            stats_.labelled += out.labelled;
            stats_.prunedByCount += n - out.labelled;
            if (out.size) offer(out, items[out.item].x, items[out.item].y);
            budget = std::clamp(budget * 30.0 / std::max(ms, 0.5), double(1 << 22), double(1ull << 33));
            pos = end;
        }
        stats_.prunedByBound += keys.size() - pos;
    }

    std::lock_guard<std::mutex> lock_{workspaceMutex()};
    Workspace& ws_ = workspace();
    const CommonCoding& c_;
    JobControl& job_;
    OffsetRange range_;
    CommonComponentStats stats_;
    std::uint64_t best_ = 0;
    int bestDx_ = 0, bestDy_ = 0, seedX_ = 0, seedY_ = 0;
    double kernelMs_ = 0;

    Stream& stream_ = ws_.stream;
    Event& start_ = ws_.start;
    Event& stop_ = ws_.stop;
    CancelFlag& cancel_ = ws_.cancel;
    DeviceBuffer<std::uint32_t>& counters_ = ws_.counters;
    DeviceBuffer<unsigned long long>& bestKey_ = ws_.bestKey;
    DeviceBuffer<std::uint32_t>& scratch_ = ws_.scratch;
    DeviceBuffer<int2>& batchOffsets_ = ws_.batchOffsets;
    DeviceBuffer<int2>& batchSeeds_ = ws_.batchSeeds;
    DeviceBuffer<std::uint32_t>& batchCounts_ = ws_.batchCounts;
    DeviceBuffer<std::uint32_t>& batchSizes_ = ws_.batchSizes;
    cd::MatchData<T, Span> m_;
    int sms_ = 1, labelGrid_ = 1, labelThreads_ = 512, nodeCap_ = 0, maskCap_ = 0, rowsCap_ = 0, scratchStride_ = 0;
    std::size_t smemBytes_ = 0;
};

template <class T>
CommonComponentResult searchTyped(const CommonCoding& coding, const CommonComponentParams& params, JobControl& job) {
    if (coding.spanA.empty()) return Search<T, false>(coding, params, job).run();
    return Search<T, true>(coding, params, job).run();
}

class CommonComponentCuda : public CommonComponentAlgorithm {
public:
    CommonComponentResult run(const Image& a, const Image& b, const CommonComponentParams& params,
                              JobControl& job) override {
        validateCommonComponentParams(params);
        job.setDevice(deviceNameFor(Backend::Cuda));
        CommonCoding coding;
        {
            auto step = job.timing().scope("prepare");
            coding = codeImages(a, b, params.tolerance, job);
        }
        if (coding.codeCount == 0) {
            CommonComponentResult empty;
            empty.maskWidth = a.width();
            empty.maskHeight = a.height();
            empty.stats.offsets = offsetRange(a.width(), a.height(), b.width(), b.height(), params.maxShift).count();
            empty.stats.prunedByArea = empty.stats.offsets;
            return empty;
        }
        // The narrowest code type that leaves room for the two blank sentinels.
        if (coding.codeCount <= 0xFD) return searchTyped<std::uint8_t>(coding, params, job);
        if (coding.codeCount <= 0xFFFD) return searchTyped<std::uint16_t>(coding, params, job);
        return searchTyped<std::uint32_t>(coding, params, job);
    }
};

} // namespace

void registerCommonComponentCuda() {
    CommonComponentRegistry::add(Backend::Cuda, [] { return std::make_unique<CommonComponentCuda>(); });
}

} // namespace glint::cuda
