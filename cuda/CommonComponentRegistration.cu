// The common component's registration on the GPU: phase correlation with cuFFT, as the host's
// registerByPhaseCorrelation() computes it (mean removed, Hann window, the same transform size, the
// phase of conj(FA) FB, its inverse, the local maxima of the cyclic surface); the host only turns the
// few local maxima into candidates. Candidates are hints: the search's answer does not depend on them.
#include "cuda/CommonComponentRegistration.cuh"

#include "cuda/CudaToolkit.cuh"
#include "core/algo/commoncomponent/CommonRegistration.h"
#include "core/util/Parallel.h"

#include <cuda_runtime.h>
#include <cufft.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace glint::cuda::common {

namespace {

using namespace glint::common_component;

constexpr std::uint32_t kMaxPeaks = 1u << 18; // local maxima copied back; more: the surface is

struct Runtime {
    Stream stream;
    EventTimer timer{stream};
    CufftPlanPair plans; // R2C / C2R
    PinnedBuffer<float> hostA, hostB; // the samples as floats, blanks NaN
    PinnedBuffer<std::uint32_t> hostCount;
    PinnedBuffer<float4> hostPeaks;
};

WorkspacePool& workspace() { return Workspace::shared("common registration"); }

__device__ inline float hannAt(int i, int count) {
    return count < 2 ? 1.0f : static_cast<float>(0.5 - 0.5 * cospi(2.0 * i / (count - 1)));
}

// plane[y][x] (sizeY x sizeX, zero beyond the image and at blanks) = (sample - mean) * window(x) * window(y).
__global__ void windowKernel(const float* samples, float mean, int w, int h, int sizeX, int sizeY, float* plane) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= sizeX || y >= sizeY) return;
    float v = 0.0f;
    if (x < w && y < h) {
        const float c = samples[static_cast<std::size_t>(y) * w + x]; // NaN: blank (0 in the plane)
        if (!isnan(c)) v = (c - mean) * hannAt(x, w) * hannAt(y, h);
    }
    plane[static_cast<std::size_t>(y) * sizeX + x] = v;
}

// cross = conj(FA) FB / |conj(FA) FB| (0 where it vanishes), on the half spectrum.
__global__ void crossPowerKernel(const cufftComplex* fa, const cufftComplex* fb, std::size_t n, cufftComplex* cross) {
    const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const double ar = fa[i].x, ai = fa[i].y, br = fb[i].x, bi = fb[i].y;
    const double re = ar * br + ai * bi, im = ar * bi - ai * br;
    const double mag = hypot(re, im);
    cross[i] = mag > 1e-30 ? make_float2(static_cast<float>(re / mag), static_cast<float>(im / mag)) : make_float2(0.f, 0.f);
}

// The unscaled inverse times 1/(sizeX sizeY) in place, then every positive local maximum (3x3, cyclic;
// ties: the first in scan order) appended as (value, x, y).
__global__ void scaleKernel(float* surface, std::size_t n, float scale) {
    const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) surface[i] *= scale;
}

__global__ void peaksKernel(const float* surface, int sizeX, int sizeY, float4* peaks, std::uint32_t* count,
                            std::uint32_t cap) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= sizeX || y >= sizeY) return;
    const float v = surface[static_cast<std::size_t>(y) * sizeX + x];
    if (!(v > 0.0f)) return;
    for (int ny = -1; ny <= 1; ++ny)
        for (int nx = -1; nx <= 1; ++nx) {
            if (!nx && !ny) continue;
            const int qx = (x + nx + sizeX) % sizeX, qy = (y + ny + sizeY) % sizeY;
            const float w = surface[static_cast<std::size_t>(qy) * sizeX + qx];
            if (!(w < v || (w == v && (qy > y || (qy == y && qx > x))))) return;
        }
    const std::uint32_t k = atomicAdd(count, 1u);
    if (k < cap) peaks[k] = make_float4(v, static_cast<float>(x), static_cast<float>(y), 0.f);
}

// Per candidate (blockIdx.y), sums over the valid pairs of its overlap (n, a, b, aa, bb, ab of the
// samples minus their means), in double precision, added into sums[6 * candidate + k].
constexpr int kSumThreads = 256;
__global__ void __launch_bounds__(kSumThreads) pairSumsKernel(const float* a, float meanA, int wA, int hA, const float* b,
                                                              float meanB, int wB, int hB, const int2* offsets, double* sums) {
    const int2 d = offsets[blockIdx.y];
    const int x0 = max(0, -d.x), y0 = max(0, -d.y);
    const int x1 = min(wA, wB - d.x), y1 = min(hA, hB - d.y);
    double s[6] = {0, 0, 0, 0, 0, 0};
    for (int y = y0 + static_cast<int>(blockIdx.x); y < y1; y += gridDim.x) {
        const float* ra = a + static_cast<std::size_t>(y) * wA;
        const float* rb = b + static_cast<std::size_t>(y + d.y) * wB + d.x;
        for (int x = x0 + static_cast<int>(threadIdx.x); x < x1; x += blockDim.x) {
            if (isnan(ra[x]) || isnan(rb[x])) continue;
            const float va = ra[x] - meanA, vb = rb[x] - meanB;
            s[0] += 1.0, s[1] += va, s[2] += vb, s[3] += static_cast<double>(va) * va, s[4] += static_cast<double>(vb) * vb,
                s[5] += static_cast<double>(va) * vb;
        }
    }
    __shared__ double part[6][kSumThreads / 32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
    for (int k = 0; k < 6; ++k) {
        double v = s[k];
        for (int step = 16; step > 0; step /= 2) v += __shfl_xor_sync(0xFFFFFFFFu, v, step);
        if (lane == 0) part[k][warp] = v;
    }
    __syncthreads();
    if (threadIdx.x < 6) {
        double v = 0;
        for (int w = 0; w < kSumThreads / 32; ++w) v += part[threadIdx.x][w];
        atomicAdd(&sums[6 * blockIdx.y + threadIdx.x], v);
    }
}

// Both images' samples as floats (blank and non-finite: NaN) into outA and outB, in one pass on all
// threads, with their means (of the valid samples; subtracted on the device).
void floatSamples(const Image& a, const Image& b, PinnedBuffer<float>& outA, PinnedBuffer<float>& outB, double& meanA,
                  double& meanB) {
    constexpr std::size_t kBlock = 1 << 17;
    const std::size_t blocksA = (a.pixelCount() + kBlock - 1) / kBlock, blocksB = (b.pixelCount() + kBlock - 1) / kBlock;
    outA.ensure(a.pixelCount());
    outB.ensure(b.pixelCount());
    std::vector<double> sums(blocksA + blocksB, 0.0), counts(blocksA + blocksB, 0.0);
    parallelFor(0, blocksA + blocksB, 1, [&](std::size_t first, std::size_t last) {
        for (std::size_t k = first; k < last; ++k) {
            const bool isA = k < blocksA;
            const Image& image = isA ? a : b;
            float* dst = isA ? outA.get() : outB.get();
            const std::size_t block = isA ? k : k - blocksA, n = image.pixelCount();
            image.visit([&](const auto* p) {
                double sum = 0.0, count = 0.0;
                for (std::size_t i = block * kBlock; i < std::min(n, (block + 1) * kBlock); ++i) {
                    const double v = static_cast<double>(p[i]);
                    if (image.isBlank(i) || !std::isfinite(v)) {
                        dst[i] = std::numeric_limits<float>::quiet_NaN();
                        continue;
                    }
                    dst[i] = static_cast<float>(v);
                    sum += v, count += 1.0;
                }
                sums[k] = sum, counts[k] = count;
            });
        }
    }, threadsForPixels(2.0 * static_cast<double>(a.pixelCount() + b.pixelCount()))); // ~1 ns a pixel; per-block sums: any thread count
    double sA = 0, nA = 0, sB = 0, nB = 0;
    for (std::size_t k = 0; k < blocksA; ++k) sA += sums[k], nA += counts[k];
    for (std::size_t k = blocksA; k < blocksA + blocksB; ++k) sB += sums[k], nB += counts[k];
    meanA = nA > 0 ? sA / nA : 0.0;
    meanB = nB > 0 ? sB / nB : 0.0;
}

} // namespace

bool registerOnDevice(const Image& a, const Image& b, const OffsetRange& range, int peaks, Registration& out,
                      JobControl& job) {
    out = {};
    if (a.empty() || b.empty() || range.count() == 0) return true;
    const int sizeX = registrationSize(std::max(a.width(), b.width()));
    const int sizeY = registrationSize(std::max(a.height(), b.height()));
    const std::size_t real = static_cast<std::size_t>(sizeX) * sizeY;
    const std::size_t half = static_cast<std::size_t>(sizeX / 2 + 1) * sizeY;
    Workspace::Lease ws(workspace());
    Runtime& rt = ws->keep<Runtime>();
    ws->require(2 * real * sizeof(float) + 3 * half * sizeof(cufftComplex) + a.pixelCount() * 8 + b.pixelCount() * 8,
                "phase correlation");
    if (!rt.plans.ensure(sizeX, sizeY, 1, CUFFT_R2C, CUFFT_C2R, rt.stream)) return false;
    cudaStream_t stream = rt.stream;

    double meanA = 0, meanB = 0;
    floatSamples(a, b, rt.hostA, rt.hostB, meanA, meanB);
    job.throwIfCancelled();
    float* dA = ws->get<float>("samples A", a.pixelCount());
    float* dB = ws->get<float>("samples B", b.pixelCount());
    float* plane = ws->get<float>("plane", real);
    cufftComplex* fa = ws->get<cufftComplex>("spectrum A", half);
    cufftComplex* fb = ws->get<cufftComplex>("spectrum B", half);
    float4* dPeaks = ws->get<float4>("peaks", kMaxPeaks);
    std::uint32_t* dCount = ws->get<std::uint32_t>("peak count", 1);
    rt.hostCount.ensure(1);

    rt.timer.begin();
    GLINT_CUDA_CHECK(cudaMemcpyAsync(dA, rt.hostA.get(), a.pixelCount() * sizeof(float), cudaMemcpyHostToDevice, stream));
    GLINT_CUDA_CHECK(cudaMemcpyAsync(dB, rt.hostB.get(), b.pixelCount() * sizeof(float), cudaMemcpyHostToDevice, stream));
    const dim3 block(32, 8), grid((sizeX + 31) / 32, (sizeY + 7) / 8);
    const struct {
        const float* samples;
        float mean;
        int w, h;
        cufftComplex* spectrum;
    } sides[2] = {{dA, static_cast<float>(meanA), a.width(), a.height(), fa}, {dB, static_cast<float>(meanB), b.width(), b.height(), fb}};
    for (const auto& side : sides) {
        windowKernel<<<grid, block, 0, stream>>>(side.samples, side.mean, side.w, side.h, sizeX, sizeY, plane);
        GLINT_CUDA_CHECK_LAUNCH();
        if (!rt.plans.forward(plane, side.spectrum)) return false;
    }
    crossPowerKernel<<<static_cast<unsigned>((half + 255) / 256), 256, 0, stream>>>(fa, fb, half, fa);
    GLINT_CUDA_CHECK_LAUNCH();
    if (!rt.plans.inverse(fa, plane)) return false;
    scaleKernel<<<static_cast<unsigned>((real + 255) / 256), 256, 0, stream>>>(plane, real, 1.0f / static_cast<float>(real));
    GLINT_CUDA_CHECK_LAUNCH();
    GLINT_CUDA_CHECK(cudaMemsetAsync(dCount, 0, sizeof(std::uint32_t), stream));
    peaksKernel<<<grid, block, 0, stream>>>(plane, sizeX, sizeY, dPeaks, dCount, kMaxPeaks);
    GLINT_CUDA_CHECK_LAUNCH();
    GLINT_CUDA_CHECK(cudaMemcpyAsync(rt.hostCount.get(), dCount, sizeof(std::uint32_t), cudaMemcpyDeviceToHost, stream));
    rt.timer.stop(job, "phase correlation");
    const std::uint32_t maxima = *rt.hostCount.get();
    std::vector<SurfacePeak> found;
    if (maxima <= kMaxPeaks) {
        rt.hostPeaks.ensure(std::max<std::uint32_t>(maxima, 1));
        if (maxima)
            GLINT_CUDA_CHECK(cudaMemcpyAsync(rt.hostPeaks.get(), dPeaks, maxima * sizeof(float4), cudaMemcpyDeviceToHost, stream));
        GLINT_CUDA_CHECK(cudaStreamSynchronize(stream));
        found.reserve(maxima);
        for (std::uint32_t i = 0; i < maxima; ++i) {
            const float4 p = rt.hostPeaks.get()[i];
            found.push_back({p.x, static_cast<int>(p.y), static_cast<int>(p.z)});
        }
    } else {
        // Too many local maxima to copy as a list: the surface itself, scanned on the host.
        std::vector<float> surface(real);
        GLINT_CUDA_CHECK(cudaMemcpyAsync(surface.data(), plane, real * sizeof(float), cudaMemcpyDeviceToHost, stream));
        GLINT_CUDA_CHECK(cudaStreamSynchronize(stream));
        found = surfacePeaks(surface.data(), sizeX, sizeY);
    }
    job.throwIfCancelled();
    out = registrationFromPeaks(std::move(found), sizeX, sizeY, range, peaks);
    // The candidates' scores from the samples already on the device.
    const std::size_t n = out.candidates.size();
    if (n) {
        std::vector<int2> offsets;
        for (const CommonOffset& d : out.candidates) offsets.push_back(make_int2(d.dx, d.dy));
        int2* dOffsets = ws->get<int2>("candidates", n);
        double* dSums = ws->get<double>("pair sums", 6 * n);
        std::vector<double> sums(6 * n);
        rt.timer.begin();
        GLINT_CUDA_CHECK(cudaMemcpyAsync(dOffsets, offsets.data(), n * sizeof(int2), cudaMemcpyHostToDevice, stream));
        GLINT_CUDA_CHECK(cudaMemsetAsync(dSums, 0, 6 * n * sizeof(double), stream));
        pairSumsKernel<<<dim3(64, static_cast<unsigned>(n)), kSumThreads, 0, stream>>>(
            dA, static_cast<float>(meanA), a.width(), a.height(), dB, static_cast<float>(meanB), b.width(), b.height(), dOffsets, dSums);
        GLINT_CUDA_CHECK_LAUNCH();
        GLINT_CUDA_CHECK(cudaMemcpyAsync(sums.data(), dSums, 6 * n * sizeof(double), cudaMemcpyDeviceToHost, stream));
        rt.timer.stop(job, "candidate scores");
        const double smaller = static_cast<double>(std::min<std::uint64_t>(a.pixelCount(), b.pixelCount()));
        for (std::size_t i = 0; i < n; ++i) {
            const double* s6 = &sums[6 * i];
            out.scores.push_back(candidateScore(PairSums{s6[0], s6[1], s6[2], s6[3], s6[4], s6[5]}, smaller));
        }
    }
    return true;
}

} // namespace glint::cuda::common
