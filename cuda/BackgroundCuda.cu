// The local pivot on the device (see BackgroundCuda.cuh). Exactness: every double operation is the host's,
// in the host's order, through BackgroundMath.h's bgAdd/bgSub/bgMul/bgDiv/bgSqrt (round-to-nearest
// intrinsics: nothing is contracted into an FMA). The cell kernel runs clippedStatsHistogram (Background.cpp)
// on a warp a cell: the long sums are the host's 32 lane sums (lane l adds values l, l + 32, ... in order)
// and its fixed tree (a shuffle reduction), the histogram's counts are exact integers (shared-memory atomics,
// a warp scan for the median's bin), and the scalars between them are computed by every lane alike.
#include "cuda/BackgroundCuda.cuh"

#include "cuda/CudaToolkit.cuh"

#include "core/algo/sources/Background.h"
#include "core/algo/sources/BackgroundMath.h"
#include "core/io/Image.h"

#include <cuda_runtime.h>

#include "core/util/Parallel.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <stdexcept>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

namespace glint::cuda::background {

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

// One warp a cell: clippedStatsHistogram (Background.cpp) on the cell's good values, in their order. Value k
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

// The samples' upload through page-locked staging slots (kept from run to run), decoupled from the cell
// kernels: `stagers` host threads copy chunks of ~kChunkBytes of whole pixel rows into the slots (a slot is
// reused once its copy has left), this thread queues each chunk's copy on one copy stream in order, and once
// the copies hold every pixel row of a group of cell rows it queues that group's cell kernel behind them
// (an event on the copy stream) on one of kComputeStreams streams. The chunks are small, so the copies start
// early and the host's memcpy into the slots overlaps the DMA; the groups are few and large, since a cell
// kernel's time is mostly one warp's latency: with every cell row its own launch, the launches queue behind
// each other. run() returns the kernels' milliseconds (events around each group's kernel, summed).
// GLINT_BACKGROUND_GROUPS=N sets the number of groups (1: one kernel after the whole upload),
// GLINT_BACKGROUND_STAGERS=N the host threads, GLINT_BACKGROUND_CHUNK_KB the chunk size (the bench's tuning).
struct CellPipeline {
    static constexpr std::size_t kChunkBytes = std::size_t{2} << 20;
    static constexpr int kGroups = 4;
    static constexpr int kMaxStagers = 8;
    static constexpr int kComputeStreams = 4;
    Stream copy, compute[kComputeStreams];
    PinnedBuffer<unsigned char> staging;
    std::vector<cudaEvent_t> slotFree, kernelStart, kernelEnd;

    CellPipeline() = default;
    CellPipeline(const CellPipeline&) = delete;
    CellPipeline& operator=(const CellPipeline&) = delete;
    ~CellPipeline() {
        for (auto* v : {&slotFree, &kernelStart, &kernelEnd})
            for (cudaEvent_t e : *v) cudaEventDestroy(e);
    }

    static void events(std::vector<cudaEvent_t>& v, std::size_t n, unsigned flags) {
        while (v.size() < n) {
            cudaEvent_t e = nullptr;
            GLINT_CUDA_CHECK(cudaEventCreateWithFlags(&e, flags));
            v.push_back(e);
        }
    }

    static int tuning(const char* name, int fallback) {
        const char* e = std::getenv(name);
        return e && std::atoi(e) > 0 ? std::atoi(e) : fallback;
    }

    template <class T, class Launch>
    float run(const T* host, void* dst, int W, int H, int mesh, int ny, Launch&& launch) {
        const std::size_t rowBytes = static_cast<std::size_t>(W) * sizeof(T);
        const std::size_t chunkBytes = static_cast<std::size_t>(tuning("GLINT_BACKGROUND_CHUNK_KB", static_cast<int>(kChunkBytes >> 10))) << 10;
        const int chunkRows = static_cast<int>(std::clamp<std::size_t>(chunkBytes / rowBytes, 1, static_cast<std::size_t>(H)));
        const int chunks = (H + chunkRows - 1) / chunkRows;
        const int wantGroups = std::clamp(tuning("GLINT_BACKGROUND_GROUPS", kGroups), 1, ny);
        const int cellRowsPerGroup = (ny + wantGroups - 1) / wantGroups;
        const int groups = (ny + cellRowsPerGroup - 1) / cellRowsPerGroup;
        const std::size_t slotBytes = rowBytes * static_cast<std::size_t>(chunkRows);
        const int stagers = std::min(chunks - 1, std::clamp(tuning("GLINT_BACKGROUND_STAGERS", cpuThreadCount() - 1), 1, kMaxStagers));
        const int slots = std::min(chunks, std::max(stagers, 1) + 2);
        staging.ensure(slotBytes * static_cast<std::size_t>(slots));
        events(slotFree, static_cast<std::size_t>(slots), cudaEventDisableTiming);
        events(kernelStart, static_cast<std::size_t>(groups), cudaEventDefault);
        events(kernelEnd, static_cast<std::size_t>(groups), cudaEventDefault);
        auto rowsOf = [&](int chunk) { return std::min(H, (chunk + 1) * chunkRows) - chunk * chunkRows; };
        auto offsetOf = [&](int chunk) { return static_cast<std::size_t>(chunk) * chunkRows * rowBytes; };
        // The last chunk a group's cells read: the one holding its last pixel row.
        auto lastChunkOf = [&](int group) { return (std::min(H, (group + 1) * cellRowsPerGroup * mesh) - 1) / chunkRows; };
        const auto* src = reinterpret_cast<const unsigned char*>(host);
        // Chunk states: 0 waiting, 1 in its staging slot, 2 its copy queued (slotFree recorded).
        std::mutex m;
        std::condition_variable cv;
        std::vector<int> state(static_cast<std::size_t>(chunks), 0);
        bool failed = false;
        std::exception_ptr error;
        auto stage = [&](int i) {
            const int s = i % slots;
            if (i >= slots) {
                {
                    std::unique_lock lock(m);
                    cv.wait(lock, [&] { return failed || state[i - slots] == 2; });
                    if (failed) return false;
                }
                GLINT_CUDA_CHECK(cudaEventSynchronize(slotFree[s]));
            }
            std::memcpy(staging.get() + s * slotBytes, src + offsetOf(i), rowsOf(i) * rowBytes);
            std::lock_guard lock(m);
            state[i] = 1;
            cv.notify_all();
            return true;
        };
        auto fail = [&] {
            std::lock_guard lock(m);
            if (!error) error = std::current_exception();
            failed = true;
            cv.notify_all();
        };
        std::vector<std::thread> threads;
        for (int w = 0; w < stagers; ++w)
            threads.emplace_back([&, w] {
                try {
                    for (int i = w; i < chunks; i += stagers)
                        if (!stage(i)) return;
                } catch (...) {
                    fail();
                }
            });
        try {
            int group = 0;
            for (int i = 0; i < chunks; ++i) {
                const int s = i % slots;
                if (stagers == 0) {
                    stage(i);
                } else {
                    std::unique_lock lock(m);
                    cv.wait(lock, [&] { return failed || state[i] == 1; });
                    if (failed) break;
                }
                GLINT_CUDA_CHECK(cudaMemcpyAsync(static_cast<unsigned char*>(dst) + offsetOf(i), staging.get() + s * slotBytes,
                                                 rowsOf(i) * rowBytes, cudaMemcpyHostToDevice, copy));
                GLINT_CUDA_CHECK(cudaEventRecord(slotFree[s], copy));
                {
                    std::lock_guard lock(m);
                    state[i] = 2;
                    cv.notify_all();
                }
                // Every group whose rows have all been queued now: its kernel behind this copy (the wait takes
                // the event as recorded now, so the slot's next record does not move it).
                for (; group < groups && lastChunkOf(group) == i; ++group) {
                    const Stream& stream = compute[group % kComputeStreams];
                    GLINT_CUDA_CHECK(cudaStreamWaitEvent(stream, slotFree[s], 0));
                    GLINT_CUDA_CHECK(cudaEventRecord(kernelStart[group], stream));
                    launch(group * cellRowsPerGroup, std::min(ny, (group + 1) * cellRowsPerGroup) - group * cellRowsPerGroup, stream.get());
                    GLINT_CUDA_CHECK(cudaEventRecord(kernelEnd[group], stream));
                }
            }
        } catch (...) {
            fail();
        }
        for (std::thread& t : threads) t.join();
        if (error) {
            cudaStreamSynchronize(copy); // the staging slots stay in use until their copies have left
            for (const Stream& stream : compute) cudaStreamSynchronize(stream.get());
            std::rethrow_exception(error);
        }
        for (const Stream& stream : compute) stream.synchronize();
        float total = 0.0f;
        for (int g = 0; g < groups; ++g) {
            float ms = 0.0f;
            GLINT_CUDA_CHECK(cudaEventElapsedTime(&ms, kernelStart[g], kernelEnd[g]));
            total += ms;
        }
        return total;
    }
};

std::size_t sampleSize(const Image& image) { return image.visit([](const auto* p) { return sizeof(*p); }); }

class CudaLocalPivot final : public DeviceLocalPivot {
public:
    bool accepts(const Image& image, const BrightestParams& params) override {
        const int mesh = params.mesh;
        if (mesh < 2 || mesh * mesh > kMaxCell || mesh > image.width() || mesh > image.height()) return false;
        if ((image.width() + mesh - 1) / mesh > kMaxCellsX) return false;
        if (!cudaDevice().usable) return false;
        const std::size_t pixels = static_cast<std::size_t>(image.width()) * image.height();
        const std::size_t need = pixels * (sampleSize(image) + 2 + sizeof(double)) + (std::size_t{64} << 20);
        if (lease_) return (**lease_).available() >= 2 * need;
        Workspace::Lease probe(workspace());
        return probe->available() >= 2 * need;
    }

    std::vector<BackgroundCell> cells(const Image& image, const std::vector<std::uint8_t>& excluded,
                                      const BackgroundParams& params, JobControl& job) override {
        if (!lease_) lease_ = std::make_unique<Workspace::Lease>(workspace());
        Workspace& ws = **lease_;
        const auto start = std::chrono::steady_clock::now();
        image_ = &image;
        W_ = image.width();
        H_ = image.height();
        const std::size_t pixels = static_cast<std::size_t>(W_) * H_;
        const int mesh = params.mesh, nx = (W_ + mesh - 1) / mesh, ny = (H_ + mesh - 1) / mesh;
        const std::size_t cells = static_cast<std::size_t>(nx) * ny;
        ws.require(pixels * (sampleSize(image) + 2) + cells * sizeof(BackgroundCell), "the background model");
        samples_ = ws.get("image", pixels * sampleSize(image));
        // The masks (when there are any) first, then the samples in bands through the pinned staging, each
        // band's cells computed while the next bands travel.
        blank_ = nullptr;
        if (image.hasBlanks()) {
            blank_ = ws.get<std::uint8_t>("blank", pixels);
            GLINT_CUDA_CHECK(cudaMemcpy(blank_, image.blankMask().data(), pixels, cudaMemcpyHostToDevice));
        }
        std::uint8_t* mask = nullptr;
        if (!excluded.empty()) {
            mask = ws.get<std::uint8_t>("excluded", pixels);
            GLINT_CUDA_CHECK(cudaMemcpy(mask, excluded.data(), pixels, cudaMemcpyHostToDevice));
        }
        auto* out = ws.get<BackgroundCell>("cells", cells);
        CellArgs a{samples_, blank_, mask, W_, H_, mesh, nx, params.clipSigma, params.maxIterations, mesh * mesh, out};
        CellPipeline& pipe = ws.keep<CellPipeline>();
        float kernelMs = 0.0f;
        image.visit([&](const auto* p) {
            using T = std::remove_cv_t<std::remove_pointer_t<decltype(p)>>;
            const std::size_t smem = cellSmem<T>(mesh * mesh);
            GLINT_CUDA_CHECK(cudaFuncSetAttribute(cellKernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
            kernelMs = pipe.run(p, samples_, W_, H_, mesh, ny, [&](int firstRow, int rows, cudaStream_t stream) {
                cellKernel<T><<<static_cast<unsigned>(rows * nx), 32, smem, stream>>>(a, firstRow * nx);
                GLINT_CUDA_CHECK_LAUNCH();
            });
        });
        std::vector<BackgroundCell> host(cells);
        GLINT_CUDA_CHECK(cudaMemcpy(host.data(), out, cells * sizeof(BackgroundCell), cudaMemcpyDeviceToHost));
        job.timing().add("upload and cells", std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
        job.timing().add("background cells", kernelMs);
        return host;
    }

    void upload(const Image& image, JobControl& job) override {
        if (!lease_) lease_ = std::make_unique<Workspace::Lease>(workspace());
        Workspace& ws = **lease_;
        EventTimer timer;
        timer.begin();
        image_ = &image;
        W_ = image.width();
        H_ = image.height();
        const std::size_t pixels = static_cast<std::size_t>(W_) * H_;
        ws.require(pixels * (sampleSize(image) + 1), "the image");
        samples_ = ws.get("image", pixels * sampleSize(image));
        image.visit([&](const auto* p) {
            GLINT_CUDA_CHECK(cudaMemcpy(samples_, p, pixels * sizeof(*p), cudaMemcpyHostToDevice));
        });
        blank_ = nullptr;
        if (image.hasBlanks()) {
            blank_ = ws.get<std::uint8_t>("blank", pixels);
            GLINT_CUDA_CHECK(cudaMemcpy(blank_, image.blankMask().data(), pixels, cudaMemcpyHostToDevice));
        }
        timer.mark("upload");
        timer.report(job);
    }

    DeviceDerivedStats derive(const BackgroundMap& model, const PixelRect& roi, double threshold,
                              const std::vector<std::uint8_t>& roiMask, JobControl& job) override {
        if (!lease_ || !image_) throw std::logic_error("CudaLocalPivot::derive before cells() or upload()");
        Workspace& ws = **lease_;
        EventTimer timer;
        timer.begin();
        const std::size_t n = static_cast<std::size_t>(roi.width) * roi.height;
        roi_ = roi;
        derived_ = ws.get<double>("derived", n);
        DeviceDerivedStats stats;
        stats.samples = std::shared_ptr<const void>(derived_, [](const void*) {});
        if (model.empty()) throw std::logic_error("CudaLocalPivot::derive: empty model");
        const int nx = model.cellsX(), ny = model.cellsY();
        const std::size_t cells = static_cast<std::size_t>(nx) * ny;
        // The model: knots, grids and second derivatives, in one upload.
        std::vector<double> m;
        m.reserve(nx + ny + 4 * cells);
        for (const auto* v : {&model.knotsX(), &model.knotsY(), &model.cellBackground(), &model.cellRms(), &model.backgroundD2(), &model.rmsD2()})
            m.insert(m.end(), v->begin(), v->end());
        double* dm = ws.get<double>("model", m.size());
        GLINT_CUDA_CHECK(cudaMemcpy(dm, m.data(), m.size() * sizeof(double), cudaMemcpyHostToDevice));
        std::uint8_t* mask = nullptr;
        if (!roiMask.empty()) {
            mask = ws.get<std::uint8_t>("roi mask", n);
            GLINT_CUDA_CHECK(cudaMemcpy(mask, roiMask.data(), n, cudaMemcpyHostToDevice));
        }
        double* rowSums = ws.get<double>("row sums", static_cast<std::size_t>(roi.height) + 1);
        auto* counts = ws.get<unsigned long long>("counts", 3);
        GLINT_CUDA_CHECK(cudaMemset(counts, 0, 3 * sizeof(unsigned long long)));
        RowArgs a{samples_, W_, roi.x, roi.y, roi.width, mask, nx, ny, dm, dm + nx, dm + nx + ny, dm + nx + ny + cells,
                  dm + nx + ny + 2 * cells, dm + nx + ny + 3 * cells, threshold, derived_, rowSums, counts, counts + 2};
        image_->visit([&](const auto* p) {
            using T = std::remove_cv_t<std::remove_pointer_t<decltype(p)>>;
            rowKernel<T><<<static_cast<unsigned>(roi.height), kRowThreads>>>(a);
        });
        GLINT_CUDA_CHECK_LAUNCH();
        positiveSumKernel<<<1, 1>>>(rowSums, roi.height, rowSums + roi.height);
        GLINT_CUDA_CHECK_LAUNCH();
        timer.mark("local pivot");
        unsigned long long c[3];
        double positive = 0.0;
        GLINT_CUDA_CHECK(cudaMemcpy(c, counts, sizeof c, cudaMemcpyDeviceToHost));
        GLINT_CUDA_CHECK(cudaMemcpy(&positive, rowSums + roi.height, sizeof(double), cudaMemcpyDeviceToHost));
        timer.report(job);
        stats.included = c[0];
        stats.nonFinite = c[1];
        stats.maxAbs = c[0] > c[1] ? bgValueOfKey(c[2]) : 0.0;
        stats.positiveSum = positive;
        return stats;
    }

    std::vector<double> derivedSamples() override {
        std::vector<double> out(static_cast<std::size_t>(roi_.width) * roi_.height);
        if (derived_ && !out.empty())
            GLINT_CUDA_CHECK(cudaMemcpy(out.data(), derived_, out.size() * sizeof(double), cudaMemcpyDeviceToHost));
        return out;
    }

private:
    static Workspace& workspace() { return Workspace::shared("local pivot"); }

    std::unique_ptr<Workspace::Lease> lease_;
    const Image* image_ = nullptr;
    int W_ = 0, H_ = 0;
    void* samples_ = nullptr;
    std::uint8_t* blank_ = nullptr;
    double* derived_ = nullptr;
    PixelRect roi_{};
};

} // namespace

std::unique_ptr<DeviceLocalPivot> makeCudaLocalPivot() { return std::make_unique<CudaLocalPivot>(); }

} // namespace glint::cuda::background
