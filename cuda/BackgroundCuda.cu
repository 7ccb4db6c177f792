// The local pivot on the device (see BackgroundCuda.cuh). Exactness: every double operation is the host's,
// in the host's order, through BackgroundMath.h's bgAdd/bgSub/bgMul/bgDiv/bgSqrt (round-to-nearest
// intrinsics: nothing is contracted into an FMA). The cell kernel runs clippedStatsHistogram (Background.cpp)
// with all 32 lanes of a warp computing the same scalars (broadcast reads of shared memory); only the
// histogram's build is shared out: each value's bin in parallel, a stable counting sort by bin (so that each
// bin's sums are added in the values' order, as the host adds them), and the bins' sums a lane per bin.
#include "cuda/BackgroundCuda.cuh"

#include "cuda/CudaToolkit.cuh"

#include "core/algo/maxsub/Background.h"
#include "core/algo/maxsub/BackgroundMath.h"
#include "core/io/Image.h"

#include <cuda_runtime.h>

#include <climits>
#include <memory>
#include <stdexcept>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

namespace glint::cuda::background {

namespace {

using namespace glint::bgmath;

constexpr int kSlots = kBins + 2; // 0: below the histogram, 1..kBins: the bins, kBins + 1: above
constexpr int kMaxCell = 4096;    // pixels a cell at most (mesh <= 64)
constexpr std::size_t kCellSmem =
    kMaxCell * sizeof(double) + 3 * kSlots * sizeof(double) + 2 * kMaxCell * sizeof(std::uint16_t) + kSlots * sizeof(int);
constexpr int kMaxCellsX = 256;   // the row kernel's knots in shared memory
constexpr int kRowThreads = 256;

// static_cast<int>(double) as x86-64 does it (cvttsd2si: out of range or NaN gives INT_MIN), where the
// device would saturate: the host's bin indices of extreme values.
__device__ __forceinline__ int hostInt(double t) {
    return t > -2147483649.0 && t < 2147483648.0 ? static_cast<int>(t) : INT_MIN;
}

struct CellArgs {
    const void* image;
    const std::uint8_t* blank; // width * height, or null
    const std::uint8_t* mask;  // width * height, or null
    int width, height, mesh, nx;
    double clipSigma;
    int maxIterations;
    BackgroundCell* out;
};

// One warp a cell: clippedStatsHistogram (Background.cpp) on the cell's good values, in their order.
template <class T>
__global__ void __launch_bounds__(32) cellKernel(CellArgs a) {
    extern __shared__ double smem[];
    double* values = smem;
    double* hist = values + kMaxCell; // count, sum, sum of squares per slot
    auto* sorted = reinterpret_cast<std::uint16_t*>(hist + 3 * kSlots);
    std::uint16_t* slotOf = sorted + kMaxCell;
    int* cursor = reinterpret_cast<int*>(slotOf + kMaxCell);
    const unsigned full = 0xffffffffu;
    const int lane = threadIdx.x;
    const unsigned below = (1u << lane) - 1u;
    const int c = blockIdx.x;
    const int ci = c % a.nx, cj = c / a.nx;
    const int x0 = ci * a.mesh, x1 = min(a.width, x0 + a.mesh), y0 = cj * a.mesh, y1 = min(a.height, y0 + a.mesh);
    const int cw = x1 - x0, area = cw * (y1 - y0);
    const T* p = static_cast<const T*>(a.image);
    int n = 0;
    for (int k0 = 0; k0 < area; k0 += 32) {
        const int k = k0 + lane;
        bool good = false;
        double v = 0.0;
        if (k < area) {
            const std::size_t idx = static_cast<std::size_t>(y0 + k / cw) * a.width + x0 + k % cw;
            good = !(a.blank && a.blank[idx]) && !(a.mask && a.mask[idx]);
            if (good) {
                v = static_cast<double>(p[idx]);
                if constexpr (std::is_floating_point_v<T>) good = isfinite(v);
            }
        }
        const unsigned ballot = __ballot_sync(full, good);
        if (good) values[n + __popc(ballot & below)] = v;
        n += __popc(ballot);
    }
    __syncwarp();
    BackgroundCell cell;
    cell.area = static_cast<std::uint32_t>(area);
    cell.good = static_cast<std::uint32_t>(n);
    if (n == 0) {
        if (lane == 0) a.out[c] = cell;
        return;
    }
    // The plain mean and sigma (shifted by the first value).
    const double shift = values[0];
    double s = 0.0, ss = 0.0;
    for (int i = 0; i < n; ++i) {
        const double d = bgSub(values[i], shift);
        s = bgAdd(s, d);
        ss = bgAdd(ss, bgMul(d, d));
    }
    const double dn = static_cast<double>(n);
    double mean = bgAdd(shift, bgDiv(s, dn));
    double sigma = bgSqrt(bgPositive(bgSub(bgDiv(ss, dn), bgMul(bgDiv(s, dn), bgDiv(s, dn)))));
    double median = mean;
    if (sigma > 0.0) {
        auto H = [&](int b, int k) { return hist[3 * (b + 1) + k]; }; // bin b (-1: under, kBins: over)
        double centre = mean, width = sigma;
        int b0 = 0, b1 = kBins - 1;
        bool all = true;
        int iterations = 0;
        double lo = 0.0, binWidth = 1.0;
        int medianBin = -1, medianNext = -1;
        for (int rebuild = 0; rebuild <= kRebuilds; ++rebuild) {
            histogramGeometry(centre, width, lo, binWidth);
            // Each value's slot, the slots' counts, a stable counting sort, then each slot's sums in order.
            for (int q = lane; q < kSlots; q += 32) cursor[q] = 0;
            __syncwarp();
            for (int k = lane; k < n; k += 32) {
                const int slot = binOf(values[k], lo, binWidth) + 1;
                slotOf[k] = static_cast<std::uint16_t>(slot);
                atomicAdd(&cursor[slot], 1);
            }
            __syncwarp();
            {
                constexpr int kPer = (kSlots + 31) / 32;
                const int q0 = lane * kPer, q1 = min(kSlots, q0 + kPer);
                int sum = 0;
                for (int q = q0; q < q1; ++q) sum += cursor[q];
                int incl = sum;
                for (int o = 1; o < 32; o *= 2) {
                    const int t = __shfl_up_sync(full, incl, o);
                    if (lane >= o) incl += t;
                }
                int start = incl - sum;
                __syncwarp();
                for (int q = q0; q < q1; ++q) {
                    const int cnt = cursor[q];
                    cursor[q] = start;
                    start += cnt;
                }
            }
            __syncwarp();
            for (int k0 = 0; k0 < n; k0 += 32) {
                const int k = k0 + lane;
                const int slot = k < n ? slotOf[k] : -1;
                const unsigned peers = __match_any_sync(full, slot);
                int pos = 0;
                if (k < n) pos = cursor[slot] + __popc(peers & below);
                __syncwarp();
                if (k < n) {
                    sorted[pos] = static_cast<std::uint16_t>(k);
                    if (lane == __ffs(peers) - 1) cursor[slot] += __popc(peers);
                }
                __syncwarp();
            }
            for (int q = lane; q < kSlots; q += 32) {
                const int st = q > 0 ? cursor[q - 1] : 0, en = cursor[q];
                double h0 = 0.0, h1 = 0.0, h2 = 0.0;
                for (int r = st; r < en; ++r) {
                    const double d = bgSub(values[sorted[r]], centre);
                    h0 = bgAdd(h0, 1.0);
                    h1 = bgAdd(h1, d);
                    h2 = bgAdd(h2, bgMul(d, d));
                }
                hist[3 * q] = h0;
                hist[3 * q + 1] = h1;
                hist[3 * q + 2] = h2;
            }
            __syncwarp();
            if (rebuild > 0) {
                const double cl = bgSub(median, bgMul(a.clipSigma, sigma)), ch = bgAdd(median, bgMul(a.clipSigma, sigma));
                b0 = max(0, hostInt(bgCeil(bgSub(bgDiv(bgSub(cl, lo), binWidth), 0.5))));
                b1 = min(kBins - 1, hostInt(bgFloor(bgSub(bgDiv(bgSub(ch, lo), binWidth), 0.5))));
                if (b0 > b1) b0 = b1 = min(max(hostInt(bgDiv(bgSub(median, lo), binWidth)), 0), kBins - 1);
                all = false;
            }
            for (; iterations < a.maxIterations; ++iterations) {
                double cnt = 0.0, sum = 0.0, sq = 0.0;
                if (all) {
                    cnt = bgAdd(H(-1, 0), H(kBins, 0));
                    sum = bgAdd(H(-1, 1), H(kBins, 1));
                    sq = bgAdd(H(-1, 2), H(kBins, 2));
                }
                for (int b = b0; b <= b1; ++b) {
                    cnt = bgAdd(cnt, H(b, 0));
                    sum = bgAdd(sum, H(b, 1));
                    sq = bgAdd(sq, H(b, 2));
                }
                if (!(cnt > 0.0)) break;
                mean = bgAdd(centre, bgDiv(sum, cnt));
                sigma = bgSqrt(bgPositive(bgSub(bgDiv(sq, cnt), bgMul(bgDiv(sum, cnt), bgDiv(sum, cnt)))));
                auto binMean = [&](int b) { return bgAdd(centre, bgDiv(H(b, 1), H(b, 0))); };
                auto spike = [&](int b) {
                    const double m = bgDiv(H(b, 1), H(b, 0));
                    return bgSub(bgDiv(H(b, 2), H(b, 0)), bgMul(m, m)) <= bgMul(bgMul(1e-4, binWidth), binWidth);
                };
                auto binMedian = [&](int b, double inBin) {
                    const double h = H(b, 0);
                    medianBin = medianNext = -1;
                    if (!spike(b)) return bgAdd(lo, bgMul(bgAdd(static_cast<double>(b), bgDiv(inBin, h)), binWidth));
                    medianBin = b;
                    if (inBin < h) return binMean(b);
                    for (int q = b + 1; q <= b1; ++q)
                        if (H(q, 0) > 0.0) {
                            if (!spike(q)) {
                                medianBin = -1;
                                return bgMul(0.5, bgAdd(bgAdd(binMean(b), lo), bgMul(static_cast<double>(q), binWidth)));
                            }
                            medianNext = q;
                            return bgMul(0.5, bgAdd(binMean(b), binMean(q)));
                        }
                    return binMean(b);
                };
                const double rank = bgMul(0.5, cnt);
                double bel = all ? H(-1, 0) : 0.0;
                medianBin = medianNext = -1;
                if (bel >= rank) {
                    median = lo;
                } else {
                    median = bgAdd(lo, bgMul(2.0 * kSpan, width));
                    for (int b = b0; b <= b1; ++b) {
                        const double h = H(b, 0);
                        if (bgAdd(bel, h) >= rank) {
                            median = binMedian(b, bgSub(rank, bel));
                            break;
                        }
                        bel = bgAdd(bel, h);
                    }
                }
                const double cl = bgSub(median, bgMul(a.clipSigma, sigma)), ch = bgAdd(median, bgMul(a.clipSigma, sigma));
                int n0 = max(0, hostInt(bgCeil(bgSub(bgDiv(bgSub(cl, lo), binWidth), 0.5))));
                int n1 = min(kBins - 1, hostInt(bgFloor(bgSub(bgDiv(bgSub(ch, lo), binWidth), 0.5))));
                if (n0 > n1) n0 = n1 = min(max(hostInt(bgDiv(bgSub(median, lo), binWidth)), 0), kBins - 1);
                if (!all && n0 == b0 && n1 == b1) break;
                b0 = n0;
                b1 = n1;
                all = false;
            }
            if (!(sigma > 0.0) || bgMul(sigma, 16.0) > width || iterations >= a.maxIterations) break;
            centre = median;
            width = sigma;
        }
        // The kept values once more, exactly (slots of the last histogram).
        double keptShift = 0.0, s1 = 0.0, s2 = 0.0, first = 0.0, next = 0.0;
        int kept = 0;
        bool haveFirst = false, haveNext = false;
        for (int i = 0; i < n; ++i) {
            const int bin = static_cast<int>(slotOf[i]) - 1;
            if (!all && (bin < b0 || bin > b1)) continue;
            if (kept == 0) keptShift = values[i];
            const double d = bgSub(values[i], keptShift);
            s1 = bgAdd(s1, d);
            s2 = bgAdd(s2, bgMul(d, d));
            ++kept;
            if (bin == medianBin && !haveFirst) {
                first = values[i];
                haveFirst = true;
            }
            if (bin == medianNext && !haveNext) {
                next = values[i];
                haveNext = true;
            }
        }
        if (kept > 0) {
            const double k = static_cast<double>(kept);
            mean = bgAdd(keptShift, bgDiv(s1, k));
            sigma = bgSqrt(bgPositive(bgSub(bgDiv(s2, k), bgMul(bgDiv(s1, k), bgDiv(s1, k)))));
            if (medianBin >= 0 && haveFirst) median = medianNext >= 0 && haveNext ? bgMul(0.5, bgAdd(first, next)) : first;
        }
    } else {
        sigma = 0.0;
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
        image_ = &image;
        W_ = image.width();
        H_ = image.height();
        const std::size_t pixels = static_cast<std::size_t>(W_) * H_;
        const int mesh = params.mesh, nx = (W_ + mesh - 1) / mesh, ny = (H_ + mesh - 1) / mesh;
        const std::size_t cells = static_cast<std::size_t>(nx) * ny;
        ws.require(pixels * (sampleSize(image) + 2) + cells * sizeof(BackgroundCell), "the background model");
        EventTimer timer(nullptr, 3);
        timer.begin();
        samples_ = ws.get("image", pixels * sampleSize(image));
        GLINT_CUDA_CHECK(cudaMemcpy(samples_, image.visit([](const auto* p) { return static_cast<const void*>(p); }),
                                    pixels * sampleSize(image), cudaMemcpyHostToDevice));
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
        timer.mark("upload image");
        auto* out = ws.get<BackgroundCell>("cells", cells);
        CellArgs a{samples_, blank_, mask, W_, H_, mesh, nx, params.clipSigma, params.maxIterations, out};
        image.visit([&](const auto* p) {
            using T = std::remove_cv_t<std::remove_pointer_t<decltype(p)>>;
            GLINT_CUDA_CHECK(cudaFuncSetAttribute(cellKernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kCellSmem)));
            cellKernel<T><<<static_cast<unsigned>(cells), 32, kCellSmem>>>(a);
        });
        GLINT_CUDA_CHECK_LAUNCH();
        timer.mark("background cells");
        std::vector<BackgroundCell> host(cells);
        GLINT_CUDA_CHECK(cudaMemcpy(host.data(), out, cells * sizeof(BackgroundCell), cudaMemcpyDeviceToHost));
        timer.report(job);
        return host;
    }

    DeviceDerivedStats derive(const BackgroundMap& model, const PixelRect& roi, double threshold,
                              const std::vector<std::uint8_t>& roiMask, JobControl& job) override {
        if (!lease_ || !image_) throw std::logic_error("CudaLocalPivot::derive before cells()");
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
