// The kernels of the local pivot on the device (BackgroundCuda.cu): a warp a background cell (the host's sigma
// clipping), a block a ROI row (the model's row and a = I - bkg - N rms), and the rows' positive sum.
// Exactness: every double operation is the host's, in the host's order, through BackgroundMath.h's
// bgAdd/bgSub/bgMul/bgDiv/bgSqrt (round-to-nearest intrinsics: nothing is contracted into an FMA). The cell
// kernel runs clippedStatsHistogram (core/algo/sources/BackgroundClipping.cpp) on a warp a cell: the long sums
// are the host's 32 lane sums (lane l adds values l, l + 32, ... in order) and its fixed tree (a shuffle
// reduction), the histogram's counts are exact integers (shared-memory atomics, a warp scan for the median's
// bin), and the scalars between them are computed by every lane alike.
#pragma once

#include "core/algo/sources/Background.h"
#include "core/algo/sources/BackgroundMath.h"

#include <cuda_runtime.h>

#include <climits>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace glint::cuda::background {
// Unnamed: the kernels are defined in this header, once in the .cu file that includes it.
namespace {

using namespace glint::bgmath;

constexpr int kSlots = kBins + 2; // the bins' counts: below the histogram, the kBins bins, above
constexpr int kMaxCell = 4096;    // pixels a cell at most (mesh <= 64)
constexpr int kMaxCellsX = 256;   // the row kernel's knots in shared memory
constexpr int kRowThreads = 256;
constexpr int kGather = 4;        // loads in flight per lane while a cell's values are gathered
constexpr unsigned kFull = 0xffffffffu;

// The shared memory of one cell of at most `capacity` values in sample type T: the counts (int), the values
// in their own type (exact as doubles) and each value's bin (int16).
template <class T>
constexpr std::size_t cellSmem(int capacity) {
    return kSlots * sizeof(int) + static_cast<std::size_t>(capacity) * (sizeof(T) + sizeof(std::int16_t));
}

struct CellArgs {
    const void* image;
    const std::uint8_t* blank; // width * height, or null
    const std::uint8_t* mask;  // width * height, or null
    int width, height, mesh, nx;
    double clipSigma;
    int maxIterations;
    int capacity;              // mesh * mesh: the values' room in shared memory
    BackgroundCell* out;
};

// laneTreeSum over the warp's 32 lane sums (lane l holds p[l]): p[l] += p[l + h] for h = 16 .. 1, as the
// host's tree; every lane gets the total.
__device__ __forceinline__ double warpTreeSum(double v) {
#pragma unroll
    for (int h = kLanes / 2; h >= 1; h /= 2) v = bgAdd(v, __shfl_down_sync(kFull, v, h));
    return __shfl_sync(kFull, v, 0);
}

// Integer warp reductions: the sm_80 instructions where there are, shuffles on older devices (sm_75 builds).
__device__ __forceinline__ int warpSum(int v) {
#if __CUDA_ARCH__ >= 800
    return __reduce_add_sync(kFull, v);
#else
#pragma unroll
    for (int h = kLanes / 2; h >= 1; h /= 2) v += __shfl_xor_sync(kFull, v, h);
    return v;
#endif
}
__device__ __forceinline__ unsigned warpMin(unsigned v) {
#if __CUDA_ARCH__ >= 800
    return __reduce_min_sync(kFull, v);
#else
#pragma unroll
    for (int h = kLanes / 2; h >= 1; h /= 2) v = min(v, __shfl_xor_sync(kFull, v, h));
    return v;
#endif
}

// One warp a cell: clippedStatsHistogram (BackgroundClipping.cpp) on the cell's good values, in their order. Value k
// is lane k % 32's; every long sum is a lane's sum in increasing k and then the tree (warpTreeSum), the
// host's LaneSums; the counts are exact integers (any order); the scalars are computed by every lane alike.
template <class T>
__global__ void __launch_bounds__(32) cellKernel(CellArgs a, int firstCell) {
    extern __shared__ __align__(16) unsigned char smem[];
    int* count = reinterpret_cast<int*>(smem) + 1; // count[-1 .. kBins]
    T* values = reinterpret_cast<T*>(smem + kSlots * sizeof(int));
    auto* slot = reinterpret_cast<std::int16_t*>(smem + kSlots * sizeof(int) + static_cast<std::size_t>(a.capacity) * sizeof(T));
    const int lane = threadIdx.x;
    const unsigned below = (1u << lane) - 1u;
    const int c = firstCell + blockIdx.x;
    const int ci = c % a.nx, cj = c / a.nx;
    const int x0 = ci * a.mesh, x1 = min(a.width, x0 + a.mesh), y0 = cj * a.mesh, y1 = min(a.height, y0 + a.mesh);
    const int cw = x1 - x0, area = cw * (y1 - y0);
    const T* p = static_cast<const T*>(a.image);
    // The good values in row-major order (kGather loads in flight, then compacted by ballots).
    int n = 0;
    for (int k0 = 0; k0 < area; k0 += 32 * kGather) {
        T raw[kGather];
        bool good[kGather];
#pragma unroll
        for (int u = 0; u < kGather; ++u) {
            const int k = k0 + 32 * u + lane;
            good[u] = k < area;
            raw[u] = T{};
            if (good[u]) {
                const std::size_t idx = static_cast<std::size_t>(y0 + k / cw) * a.width + x0 + k % cw;
                good[u] = !(a.blank && a.blank[idx]) && !(a.mask && a.mask[idx]);
                raw[u] = p[idx];
            }
        }
#pragma unroll
        for (int u = 0; u < kGather; ++u) {
            bool g = good[u];
            if constexpr (std::is_floating_point_v<T>) g = g && isfinite(static_cast<double>(raw[u]));
            const unsigned ballot = __ballot_sync(kFull, g);
            if (g) values[n + __popc(ballot & below)] = raw[u];
            n += __popc(ballot);
        }
    }
    __syncwarp();
    auto V = [&](int k) { return static_cast<double>(values[k]); };
    BackgroundCell cell;
    cell.area = static_cast<std::uint32_t>(area);
    cell.good = static_cast<std::uint32_t>(n);
    if (n == 0) {
        if (lane == 0) a.out[c] = cell;
        return;
    }
    // The plain mean and sigma (shifted by the first value).
    const double shift = V(0);
    double mean = 0.0, sigma = 0.0;
    {
        double s = 0.0, ss = 0.0;
        for (int k = lane; k < n; k += 32) {
            const double d = bgSub(V(k), shift);
            s = bgAdd(s, d);
            ss = bgAdd(ss, bgMul(d, d));
        }
        meanSigma(shift, warpTreeSum(s), warpTreeSum(ss), static_cast<double>(n), mean, sigma);
    }
    double median = mean;
    if (!(sigma > 0.0)) {
        sigma = 0.0;
    } else {
        double centre = mean, width = sigma;
        int b0 = 0, b1 = kBins - 1;
        bool all = true;
        int iterations = 0;
        double lo = 0.0, binWidth = 1.0;
        int medianBin = -1, medianNext = -1;
        for (int rebuild = 0; rebuild <= kRebuilds; ++rebuild) {
            histogramGeometry(centre, width, lo, binWidth);
            for (int q = lane; q < kSlots; q += 32) count[q - 1] = 0;
            __syncwarp();
            for (int k = lane; k < n; k += 32) {
                const int b = binOf(V(k), lo, binWidth);
                slot[k] = static_cast<std::int16_t>(b);
                atomicAdd(&count[b], 1);
            }
            __syncwarp();
            if (rebuild > 0) {
                clipBins(median, sigma, a.clipSigma, lo, binWidth, b0, b1);
                all = false;
            }
            for (; iterations < a.maxIterations; ++iterations) {
                // The kept count and the median's bin from the counts alone (exact integers).
                int cnt = 0;
                for (int b = b0 + lane; b <= b1; b += 32) cnt += count[b];
                cnt = warpSum(cnt) + (all ? count[-1] + count[kBins] : 0);
                if (cnt == 0) break;
                const double rank = bgMul(0.5, static_cast<double>(cnt));
                const int below0 = all ? count[-1] : 0;
                int bel = below0, mb = -2, q = -2;
                if (static_cast<double>(below0) < rank) {
                    for (int base = b0; base <= b1; base += 32) {
                        const int b = base + lane;
                        const int h = b <= b1 ? count[b] : 0;
                        int incl = h;
#pragma unroll
                        for (int o = 1; o < 32; o *= 2) {
                            const int t = __shfl_up_sync(kFull, incl, o);
                            if (lane >= o) incl += t;
                        }
                        const unsigned hit = __ballot_sync(kFull, b <= b1 && static_cast<double>(bel + incl) >= rank);
                        if (hit) {
                            const int f = __ffs(hit) - 1;
                            mb = base + f;
                            bel += __shfl_sync(kFull, incl - h, f);
                            break;
                        }
                        bel += __shfl_sync(kFull, incl, 31);
                    }
                    if (mb >= 0 && !(bgSub(rank, static_cast<double>(bel)) < static_cast<double>(count[mb])))
                        for (int base = mb + 1; base <= b1; base += 32) {
                            const int b = base + lane;
                            const unsigned hit = __ballot_sync(kFull, b <= b1 && count[b] > 0);
                            if (hit) {
                                q = base + __ffs(hit) - 1;
                                break;
                            }
                        }
                }
                // The kept values' sums and those of bins mb and q (d = value - centre), lane by lane.
                double k1 = 0.0, k2 = 0.0, m1 = 0.0, m2 = 0.0, q1 = 0.0, q2 = 0.0;
                if (q >= 0) {
                    for (int k = lane; k < n; k += 32) {
                        const double d = bgSub(V(k), centre), dd = bgMul(d, d);
                        const int b = slot[k];
                        const bool in = all || (b >= b0 && b <= b1);
                        k1 = bgAdd(k1, in ? d : 0.0);
                        k2 = bgAdd(k2, in ? dd : 0.0);
                        m1 = bgAdd(m1, b == mb ? d : 0.0);
                        m2 = bgAdd(m2, b == mb ? dd : 0.0);
                        q1 = bgAdd(q1, b == q ? d : 0.0);
                        q2 = bgAdd(q2, b == q ? dd : 0.0);
                    }
                } else {
#pragma unroll 4
                    for (int k = lane; k < n; k += 32) {
                        const double d = bgSub(V(k), centre), dd = bgMul(d, d);
                        const int b = slot[k];
                        const bool in = all || (b >= b0 && b <= b1);
                        k1 = bgAdd(k1, in ? d : 0.0);
                        k2 = bgAdd(k2, in ? dd : 0.0);
                        m1 = bgAdd(m1, b == mb ? d : 0.0);
                        m2 = bgAdd(m2, b == mb ? dd : 0.0);
                    }
                }
                const double dc = static_cast<double>(cnt);
                const double sum = warpTreeSum(k1), sq = warpTreeSum(k2);
                mean = bgAdd(centre, bgDiv(sum, dc));
                sigma = bgSqrt(bgPositive(bgSub(bgDiv(sq, dc), bgMul(bgDiv(sum, dc), bgDiv(sum, dc)))));
                medianBin = medianNext = -1;
                if (!(static_cast<double>(below0) < rank)) {
                    median = lo;
                } else if (mb < 0) {
                    median = bgAdd(lo, bgMul(2.0 * kSpan, width));
                } else {
                    const double mt1 = warpTreeSum(m1), mt2 = warpTreeSum(m2);
                    const double qt1 = q >= 0 ? warpTreeSum(q1) : 0.0, qt2 = q >= 0 ? warpTreeSum(q2) : 0.0;
                    median = medianOfBin(centre, lo, binWidth, mb, static_cast<double>(count[mb]), mt1, mt2,
                                         bgSub(rank, static_cast<double>(bel)), q, q >= 0 ? static_cast<double>(count[q]) : 0.0,
                                         qt1, qt2, medianBin, medianNext);
                }
                int n0 = 0, n1 = 0;
                clipBins(median, sigma, a.clipSigma, lo, binWidth, n0, n1);
                if (!all && n0 == b0 && n1 == b1) break; // converged
                b0 = n0;
                b1 = n1;
                all = false;
            }
            if (!(sigma > 0.0) || bgMul(sigma, 16.0) > width || iterations >= a.maxIterations) break;
            centre = median;
            width = sigma;
            __syncwarp(); // every lane has read the counts before they are cleared
        }
        // The kept values once more, exactly (shifted by the first one kept).
        int firstKept = n;
        for (int base = 0; base < n; base += 32) {
            const int k = base + lane;
            const unsigned hit = __ballot_sync(kFull, k < n && (all || (slot[k] >= b0 && slot[k] <= b1)));
            if (hit) {
                firstKept = base + __ffs(hit) - 1;
                break;
            }
        }
        if (firstKept < n) {
            const double keptShift = V(firstKept);
            double k1 = 0.0, k2 = 0.0;
            int kept = 0, firstK = INT_MAX, nextK = INT_MAX;
            for (int k = lane; k < n; k += 32) {
                const int b = slot[k];
                const bool in = all || (b >= b0 && b <= b1);
                const double d = bgSub(V(k), keptShift);
                k1 = bgAdd(k1, in ? d : 0.0);
                k2 = bgAdd(k2, in ? bgMul(d, d) : 0.0);
                kept += in;
                if (in && b == medianBin && firstK == INT_MAX) firstK = k;
                if (in && b == medianNext && nextK == INT_MAX) nextK = k;
            }
            kept = warpSum(kept);
            firstK = static_cast<int>(warpMin(static_cast<unsigned>(firstK)));
            nextK = static_cast<int>(warpMin(static_cast<unsigned>(nextK)));
            meanSigma(keptShift, warpTreeSum(k1), warpTreeSum(k2), static_cast<double>(kept), mean, sigma);
            if (medianBin >= 0 && firstK < n)
                median = medianNext >= 0 && nextK < n ? halfSum(V(firstK), V(nextK)) : V(firstK);
        }
    }
    cell.back = modeOf(mean, median, sigma);
    cell.rms = sigma;
    if (lane == 0) a.out[c] = cell;
}

struct RowArgs {
    const void* image;
    int width;
    int roiX, roiY, roiW;
    const std::uint8_t* roiMask; // roiW x roiH, or null
    int nx, ny;
    const double *xc, *yc, *back, *rms, *backD2, *rmsD2;
    double threshold;
    double* out;         // roiW x roiH
    double* rowSums;     // per ROI row: the positive a in the host's 4 chains
    unsigned long long* counts; // included, not finite
    unsigned long long* maxKey; // bgKey of the largest |a|
};

// One block a ROI row: the model's row (BackgroundMap::row's arithmetic), a, and the row's statistics.
template <class T>
__global__ void __launch_bounds__(kRowThreads) rowKernel(RowArgs a) {
    __shared__ double nodes[2][kMaxCellsX], d2[2][kMaxCellsX], u[2][kMaxCellsX], coef[2][3 * kMaxCellsX];
    __shared__ double endSlope[2];
    __shared__ unsigned long long blockCounts[2], blockMax;
    __shared__ double chains[4];
    const int tid = threadIdx.x;
    const int r = blockIdx.x, y = a.roiY + r;
    const int nx = a.nx, ny = a.ny;
    const int passes = a.threshold != 0.0 ? 2 : 1;
    if (tid == 0) {
        blockCounts[0] = blockCounts[1] = 0;
        blockMax = 0;
    }
    const int j = intervalOf(a.yc, ny, static_cast<double>(y));
    for (int i = tid; i < nx; i += blockDim.x) {
        nodes[0][i] = splineAt(a.yc, a.back + i, a.backD2 + i, ny, nx, static_cast<double>(y), j);
        if (passes > 1) nodes[1][i] = splineAt(a.yc, a.rms + i, a.rmsD2 + i, ny, nx, static_cast<double>(y), j);
    }
    __syncthreads();
    if (nx > 1 && tid % 32 == 0 && tid / 32 < passes) {
        const int q = tid / 32;
        naturalSpline(a.xc, nodes[q], nx, 1, d2[q], u[q]);
        endSlope[q] = splineEndSlope(a.xc, nodes[q], d2[q], nx);
    }
    __syncthreads();
    for (int i = tid; i + 1 < nx; i += blockDim.x)
        for (int q = 0; q < passes; ++q) splineCoefficients(a.xc, nodes[q], d2[q], i, &coef[q][3 * i]);
    __syncthreads();
    const T* src = static_cast<const T*>(a.image) + static_cast<std::size_t>(y) * a.width + a.roiX;
    double* out = a.out + static_cast<std::size_t>(r) * a.roiW;
    const std::uint8_t* m = a.roiMask ? a.roiMask + static_cast<std::size_t>(r) * a.roiW : nullptr;
    unsigned long long included = 0, nonFinite = 0, maxKey = 0;
    for (int xr = tid; xr < a.roiW; xr += blockDim.x) {
        const int x = a.roiX + xr;
        double v[2];
        for (int q = 0; q < passes; ++q) {
            if (nx == 1) {
                v[q] = nodes[q][0];
            } else {
                const int piece = splinePiece(a.xc, nx, x);
                const double* cf = piece >= 0 && piece < nx - 1 ? &coef[q][3 * piece] : nullptr;
                v[q] = splineValue(a.xc, nodes[q], nx, piece, cf, coef[q][0], endSlope[q], x);
            }
        }
        const double sample = static_cast<double>(src[xr]);
        double value;
        if (passes > 1) value = bgSub(bgSub(sample, v[0]), bgMul(a.threshold, bgPositive(v[1])));
        else value = bgSub(sample, v[0]);
        out[xr] = value;
        if (m && m[xr]) continue;
        ++included;
        if (!isfinite(value)) {
            ++nonFinite;
            continue;
        }
        const unsigned long long k = bgKey(bgAbs(value) == 0.0 ? 0.0 : bgAbs(value));
        maxKey = k > maxKey ? k : maxKey;
    }
    for (int o = 16; o > 0; o /= 2) {
        included += __shfl_down_sync(0xffffffffu, included, o);
        nonFinite += __shfl_down_sync(0xffffffffu, nonFinite, o);
        const unsigned long long t = __shfl_down_sync(0xffffffffu, maxKey, o);
        maxKey = t > maxKey ? t : maxKey;
    }
    __syncthreads();
    if (tid % 32 == 0) {
        atomicAdd(&blockCounts[0], included);
        atomicAdd(&blockCounts[1], nonFinite);
        atomicMax(&blockMax, maxKey);
    }
    // The positive a in positiveSums()'s 4 chains (x = 4q + k in chain k, the tail in chain 0).
    if (tid < 4) {
        double s = 0.0;
        const int full4 = a.roiW / 4 * 4;
        for (int x = tid; x < full4; x += 4) {
            const double v = out[x];
            s = bgAdd(s, (m && m[x]) || !(v > 0.0) ? 0.0 : v);
        }
        if (tid == 0)
            for (int x = full4; x < a.roiW; ++x) {
                const double v = out[x];
                s = bgAdd(s, (m && m[x]) || !(v > 0.0) ? 0.0 : v);
            }
        chains[tid] = s;
    }
    __syncthreads();
    if (tid == 0) {
        a.rowSums[r] = bgAdd(bgAdd(chains[0], chains[1]), bgAdd(chains[2], chains[3]));
        atomicAdd(&a.counts[0], blockCounts[0]);
        atomicAdd(&a.counts[1], blockCounts[1]);
        atomicMax(a.maxKey, blockMax);
    }
}

// The rows' positive sums added in order, rounded up as positiveSums() does.
__global__ void positiveSumKernel(const double* rowSums, int rows, double* out) {
    double s = 0.0;
    for (int r = 0; r < rows; ++r) s = bgAdd(s, rowSums[r]);
    *out = bgAdd(bgMul(s, 1.0 + 1e-9), 1e-300);
}

} // namespace
} // namespace glint::cuda::background
