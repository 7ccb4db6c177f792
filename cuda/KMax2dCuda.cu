// The CUDA 2-D K-MSP backend (brightest --mode overlap). The brightest-region kernels give the column
// prefix sums and every strip's maximum (exact int32 path, or a float screen with its error bound); the
// k-th largest strip maximum (from below) is a valid lower bound on the k-th largest rectangle sum, so only
// strips whose maximum (from above) reaches it can hold an answer. Those strips become one long sequence
// (each strip's left-to-right column prefix Q, cut at the strip ends and at blocked columns), and the
// engine of KMaxEngine.cuh finds its k largest pair sums exactly. Strips that do not fit the device in one
// go are taken in batches whose top-k lists merge exactly.
#include "cuda/KMaxCuda.h"

#include "cuda/CudaToolkit.cuh"
#include "cuda/KMaxEngine.cuh"
#include "cuda/MaxSubarrayKernels.cuh"
#include "cuda/MaxSubarrayStrips.cuh"

#include "core/algo/regions/WorkArray.h"
#include "core/algo/kmax/KMax.h"
#include "core/io/Image.h"

#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace glint::cuda {
namespace kmax {

namespace {

namespace msp = maxsub;

// Device buffers kept between runs (the engine's and the strips'); one run at a time.
WorkspacePool& workspace() { return Workspace::shared("kmax 2d", 256); }

// Strips as threshold items: item t * rows + b (t <= b). Low key: a lower bound of the strip's largest
// rectangle sum, a real sum only when positive (the strip kernel's maxima are at least 0); high key: an
// upper bound. Exact path: both the maximum itself. Screen path: the float maximum widened by its error
// bound (MaxSubarrayKernels.cuh, CandidateArgs) and by the slack between summation orders.
struct StripItems {
    const int* stripBest;
    int rows;
    bool screen;
    double alpha, beta, gamma, slack;
    __host__ __device__ long long count() const { return static_cast<long long>(rows) * rows; }
    __device__ int operator()(long long i, u64& low, u64& high) const {
        const int t = static_cast<int>(i / rows), b = static_cast<int>(i % rows);
        if (t > b) return 0;
        const int v = stripBest[i];
        if (!screen) {
            low = high = orderedKey(static_cast<double>(v));
            return v > 0 ? 2 : 1;
        }
        const double f = __int_as_float(v);
        const double err = alpha + beta * fmax(f, gamma) + slack;
        low = orderedKey((f - err) + 0.0);
        high = orderedKey(f + err);
        return f - err > 0.0 ? 2 : 1;
    }
};

// The upper-bound key of each listed strip (for the best-first order of the tie-heavy path).
__global__ void stripHighKeysKernel(StripItems items, const int* list, int n, u64* out) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        u64 low = 0, high = 0;
        items(list[i], low, high);
        out[i] = high;
    }
}

// The height (bottom - top) of each listed strip.
__global__ void stripHeightsKernel(const int* list, int n, int rows, int* out) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        out[i] = list[i] % rows - list[i] / rows;
}

// One warp per listed strip: its prefix Q (left to right, the canonical order: the warp walks its 32
// staged columns one after the other), and for each end the first start it may use (after the last
// blocked column) and the smallest Q among its starts. Strip s occupies positions s*W .. s*W + W - 1;
// the ends at its first position and past its last column have no start.
template <class PT, class E>
__global__ void buildStripsKernel(const PT* P, int pitch, int cols, const int* next, const int* list, int rows, int count,
                                  int W, E* p, E* m, int* lo) {
    const int s = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
    if (s >= count) return;
    const int id = list[s], t = id / rows, b = id % rows;
    const PT* pt = P + static_cast<std::size_t>(t) * pitch;
    const PT* pb = P + static_cast<std::size_t>(b + 1) * pitch;
    const int* nt = next ? next + static_cast<std::size_t>(t) * pitch : nullptr;
    const long long base = static_cast<long long>(s) * W;
    E q = E(0), low = E(0); // the same in every lane
    int runStart = 0, arg = -1;
    if (lane == 0) {
        p[base] = E(0);
        m[base] = E(0);
        lo[base] = static_cast<int>(base);
    }
    for (int c0 = 0; c0 < cols; c0 += 32) {
        const int c = c0 + lane;
        E sc = E(0);
        int blocked = 0;
        if (c < cols) {
            sc = static_cast<E>(pb[c]) - static_cast<E>(pt[c]);
            blocked = nt && nt[c] <= b;
        }
        E myQ = E(0), myM = E(0);
        int myLo = -1;
        const int steps = min(32, cols - c0);
        for (int i = 0; i < steps; ++i) {
            const E si = __shfl_sync(0xffffffffu, sc, i);
            const int bi = __shfl_sync(0xffffffffu, blocked, i);
            int loI = -1;
            E mI = q;
            if (bi) {
                runStart = c0 + i + 1;
                arg = -1;
            } else {
                if (arg < 0 || q < low) {
                    arg = c0 + i;
                    low = q;
                }
                loI = runStart;
                mI = low;
            }
            q = q + si;
            if (lane == i) {
                myQ = q;
                myM = mI;
                myLo = loI;
            }
        }
        if (c < cols) {
            const long long j = base + c + 1;
            p[j] = myQ;
            m[j] = myM;
            lo[j] = static_cast<int>(myLo < 0 ? j : base + myLo);
        }
    }
    for (int c = cols + 1 + lane; c < W; c += 32) {
        p[base + c] = q;
        m[base + c] = q;
        lo[base + c] = static_cast<int>(base + c);
    }
    if (s == count - 1 && lane == 0) {
        const long long L = static_cast<long long>(count) * W;
        p[L] = E(0);
        m[L] = E(0);
        lo[L] = static_cast<int>(L);
    }
}

class CudaRectSolver final : public KMaxRectSolver {
public:
    std::vector<WorkRect> topK(const WorkArray& work, std::size_t k, JobControl& job, ProgressSpan span) override {
        job.setDevice(cudaDevice().name);
        if (work.includedCount == 0) return {};
        Workspace::Lease ws(workspace());
        if (work.fitsInt32()) return Run<int, long long>(*ws, work, job).solve(k, span);
        if (work.integer) return Run<float, long long>(*ws, work, job).solve(k, span);
        return Run<float, double>(*ws, work, job).solve(k, span);
    }
    // --distinct F and the bounded search have no kernel: the backend declines them before any work, and the
    // registry's fallback (cpu) runs them (core/algo/kmax/NOTES.md, "Distinct").
    void checkQuery(bool distinct, bool bounded) const override {
        if (distinct) throw BackendDeclined("no --distinct search on the device");
        if (bounded) throw BackendDeclined("no bounded search on the device");
    }
    std::vector<WorkRect> topKDistinct(const WorkArray&, std::size_t, double, JobControl&, ProgressSpan) override {
        throw BackendDeclined("no --distinct search on the device");
    }
    std::vector<WorkRect> topKBounded(const WorkArray&, std::size_t, std::optional<double>, int, JobControl&, ProgressSpan) override {
        throw BackendDeclined("no bounded search on the device");
    }

private:
    // SV: the strip kernel's type (int: exact path; float: screen path); E: exact sums (int64 or double).
    template <class SV, class E>
    class Run {
    public:
        static constexpr bool kScreen = std::is_same_v<SV, float>;
        using PT = std::conditional_t<kScreen, E, int>; // the exact prefix the strips are built from

        // The first step ("upload") starts here.
        Run(Workspace& ws, const WorkArray& w, JobControl& job)
            : ws_(ws), w_(w), job_(job), rows_(w.rows), cols_(w.cols), pitch_(msp::pitchFor(w.cols)) {
            steps_.begin();
        }

        std::vector<WorkRect> solve(std::size_t k, ProgressSpan span) {
            checkMemory();
            upload();
            steps_.mark("upload");
            prefixSums();
            steps_.mark("prefix sums");
            stripMaxima();
            steps_.mark("strip maxima");
            span.set(job_, 0.4);
            const int candidates = chooseStrips(k);
            steps_.mark("strip threshold");
            // Tie-heavy inputs (saturated frames, flat data at the pivot, all sums <= 0) leave most strips
            // with an upper bound at the k-th largest maximum, so the threshold keeps nearly all of them.
            // Then the strips are opened best first, in batches that grow, and the search stops as soon as
            // the k-th sum found is at least every unopened strip's upper bound: those strips cannot hold a
            // larger sum (the CPU backend's rule). Exact: the union of each batch's exact top k holds the
            // top k of the opened strips.
            const bool ordered = static_cast<std::size_t>(candidates) > 8 * k + 4096;
            int* dList = ws_.get<int>("2d strip candidates", static_cast<std::size_t>(rows_) * rows_);
            u64* dHigh = nullptr;
            if (ordered) {
                dHigh = orderBestFirst(dList, candidates);
                steps_.mark("strip order");
            }
            std::vector<int> strips(static_cast<std::size_t>(candidates));
            if (!ordered && candidates)
                GLINT_CUDA_CHECK(cudaMemcpy(strips.data(), dList, strips.size() * sizeof(int), cudaMemcpyDeviceToHost));
            const int W = (cols_ + 1 + 31) / 32 * 32;
            const std::size_t perPosition = 2 * sizeof(E) + 4 + 4 + sizeof(E) / 16 + 1;
            const std::size_t positions = std::clamp<std::size_t>(ws_.available() / 2 / perPosition,
                                                                  static_cast<std::size_t>(W), std::size_t{1} << 26);
            const int perBatch = static_cast<int>(std::max<std::size_t>(1, positions / W));
            std::vector<std::pair<E, WorkRect>> found;
            auto larger = [](const std::pair<E, WorkRect>& a, const std::pair<E, WorkRect>& b) { return a.first > b.first; };
            auto keepTopK = [&] {
                if (found.size() <= k) return;
                std::nth_element(found.begin(), found.begin() + static_cast<std::ptrdiff_t>(k - 1), found.end(), larger);
                found.resize(k);
            };
            std::size_t nextBatch = std::max<std::size_t>(2 * k, 256);
            for (std::size_t first = 0; first < strips.size();) {
                job_.throwIfCancelled();
                std::size_t want = ordered ? nextBatch : strips.size();
                const int count = static_cast<int>(std::min({static_cast<std::size_t>(perBatch), want, strips.size() - first}));
                if (ordered) {
                    if (found.size() >= k) {
                        u64 highest = 0;
                        GLINT_CUDA_CHECK(cudaMemcpy(&highest, dHigh + first, sizeof(u64), cudaMemcpyDeviceToHost));
                        const E kth = std::min_element(found.begin(), found.end(), larger)->first;
                        if (keyAtOrBelow(kth) >= highest) break; // nothing unopened can beat the k-th
                    }
                    GLINT_CUDA_CHECK(cudaMemcpy(strips.data() + first, dList + first, count * sizeof(int),
                                                cudaMemcpyDeviceToHost));
                    nextBatch = std::min<std::size_t>(nextBatch * 4, static_cast<std::size_t>(perBatch));
                }
                const long long L = static_cast<long long>(count) * W;
                E* p = ws_.get<E>("2d p", static_cast<std::size_t>(L) + 1);
                E* m = ws_.get<E>("2d m", static_cast<std::size_t>(L) + 1);
                int* lo = ws_.get<int>("2d lo", static_cast<std::size_t>(L) + 1);
                buildStripsKernel<PT, E><<<(count + 3) / 4, 128>>>(prefix(), pitch_, cols_, hasMask_ ? next_ : nullptr,
                                                                 dList + first, rows_, count, W, p, m, lo);
                GLINT_CUDA_CHECK_LAUNCH();
                steps_.mark("strip build");
                Engine<E> engine(ws_, job_);
                for (const PairFound<E>& f : engine.topK(Seq{p, m, lo, static_cast<int>(L)}, k, &steps_)) {
                    const int s = f.start / W, id = strips[first + s];
                    if (f.end / W != s) throw std::runtime_error("K-MSP (CUDA): a pair crosses two strips");
                    WorkRect r;
                    r.row0 = id / rows_;
                    r.rows = id % rows_ - r.row0 + 1;
                    r.col0 = f.start % W;
                    r.cols = f.end % W - r.col0;
                    if constexpr (std::is_floating_point_v<E>) {
                        r.sum = f.value;
                    } else {
                        r.sumInt = f.value;
                        r.sum = static_cast<double>(f.value);
                    }
                    found.emplace_back(f.value, r);
                }
                keepTopK();
                first += count;
                span.set(job_, 0.4 + 0.6 * static_cast<double>(first) / strips.size());
            }
            steps_.report(job_);
            // Each batch's list is its exact top k: their union holds the overall top k.
            std::sort(found.begin(), found.end(), larger);
            std::vector<WorkRect> out;
            out.reserve(found.size());
            for (const auto& [value, rect] : found) out.push_back(rect);
            return out;
        }

    private:
        std::size_t cells(std::size_t rowsCount) const { return rowsCount * static_cast<std::size_t>(pitch_); }
        const PT* prefix() const {
            if constexpr (kScreen) return exact_;
            else return P32_;
        }

        void checkMemory() {
            std::size_t need = msp::sampleBytes(w_) + cells(rows_ + 1) * (4 + (kScreen ? sizeof(E) : 0)) +
                               static_cast<std::size_t>(rows_) * rows_ * 8 + (std::size_t{96} << 20); // maxima + list
            if (w_.hasExclusions())
                need += static_cast<std::size_t>(rows_) * cols_ + cells(rows_ + 1) * 4 + cells(rows_ + 1) / msp::kChunk * 4;
            ws_.require(need, "the image");
        }

        void upload() {
            samples_ = ws_.get("2d samples", msp::sampleBytes(w_));
            msp::uploadSamples(w_, samples_);
            hasMask_ = w_.hasExclusions();
            if (hasMask_) {
                mask_ = ws_.get<std::uint8_t>("2d mask", w_.excluded.size());
                GLINT_CUDA_CHECK(cudaMemcpy(mask_, w_.excluded.data(), w_.excluded.size(), cudaMemcpyHostToDevice));
            }
        }

        void prefixSums() {
            msp::PrefixArgs a = msp::prefixArgsOf(w_, samples_, mask_, pitch_);
            scalars_ = ws_.get<unsigned>("2d scalars", 4);
            GLINT_CUDA_CHECK(cudaMemset(scalars_, 0, 4 * sizeof(unsigned)));
            if constexpr (kScreen) {
                Pf_ = ws_.get<float>("2d P float", cells(rows_ + 1));
                exact_ = ws_.get<E>("2d P exact", cells(rows_ + 1));
                a.pf = Pf_;
                a.exact = exact_;
                a.pmaxBits = scalars_;
            } else {
                P32_ = ws_.get<int>("2d P int", cells(rows_ + 1));
                a.p32 = P32_;
            }
            msp::launchPrefix<E>(w_, a);
            if (hasMask_) {
                next_ = ws_.get<int>("2d next", cells(rows_ + 1));
                nextMin_ = ws_.get<int>("2d next min", cells(rows_ + 1) / msp::kChunk);
                msp::launchBlocking(mask_, rows_, cols_, pitch_, next_, nextMin_, 0, pitch_, rows_ - 1);
            }
        }

        void stripMaxima() {
            const msp::StripKernel shape = msp::chooseStripKernel<SV>(rows_);
            const std::vector<int2> tiles = msp::stripTiles(shape, rows_);
            stripBest_ = ws_.get<int>("2d strip best", static_cast<std::size_t>(rows_) * rows_);
            int2* dTiles = ws_.get<int2>("2d tiles", tiles.size());
            GLINT_CUDA_CHECK(cudaMemcpy(dTiles, tiles.data(), tiles.size() * sizeof(int2), cudaMemcpyHostToDevice));
            msp::StripArgs a{.P = kScreen ? static_cast<const void*>(Pf_) : static_cast<const void*>(P32_),
                             .rows = rows_, .cols = cols_, .pitch = pitch_, .tiles = dTiles, .tileBegin = 0,
                             .stripBest = stripBest_, .next = hasMask_ ? next_ : nullptr,
                             .nextMin = hasMask_ ? nextMin_ : nullptr};
            const int perLaunch = msp::tilesPerLaunch(shape, pitch_);
            for (std::size_t begin = 0; begin < tiles.size(); begin += perLaunch) {
                job_.throwIfCancelled();
                const int n = static_cast<int>(std::min<std::size_t>(perLaunch, tiles.size() - begin));
                a.tileBegin = static_cast<int>(begin);
                msp::launchStrips(shape, hasMask_, n, a);
                if (begin + n < tiles.size()) GLINT_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread)); // Cancel between launches
            }
        }

        // The strips whose largest rectangle may reach the k-th largest sum, in no particular order, in the
        // device list "2d strip candidates"; returns how many.
        int chooseStrips(std::size_t k) {
            StripItems items{stripBest_, rows_, kScreen, 0.0, 0.0, 0.0, 0.0};
            if constexpr (kScreen) {
                const msp::ScreenBound bound = msp::screenBound(pitch_, msp::readPmax(scalars_));
                items.alpha = bound.alpha;
                items.beta = bound.beta;
                items.gamma = bound.gamma;
                // Double sums: Kadane's order (the bound's reference) and the Q differences of the
                // canonical sums differ by at most this (see KMax2dCpu.cpp, orderSlack).
                if constexpr (std::is_floating_point_v<E>)
                    items.slack = 8.0 * (cols_ + rows_ + 4.0) * 0x1.0p-53 * w_.maxAbs * static_cast<double>(w_.includedCount) + 1e-300;
            }
            State* st = ws_.get<State>("2d strip state", 1);
            int* list = ws_.get<int>("2d strip candidates", static_cast<std::size_t>(rows_) * rows_);
            const int grid = gridFor(items.count(), 256), few = gridFor(items.count(), 1024, 1);
            initStateKernel<<<1, 256>>>(st, k, 0);
            keyMaxKernel<<<few, 1024>>>(items, st);
            keyHistogramKernel<<<few, 1024>>>(items, st);
            chooseFirstKernel<<<1, kChooseThreads>>>(st);
            compactKernel<<<grid, 256>>>(items, st, list);
            GLINT_CUDA_CHECK_LAUNCH();
            int n = 0;
            GLINT_CUDA_CHECK(cudaMemcpy(&n, &st->nEnds, sizeof(n), cudaMemcpyDeviceToHost));
            items_ = items;
            return n;
        }

        // Sorts the n candidate strips in place: upper bound descending, then height ascending (among strips
        // whose bound ties, a short strip is the likelier to hold a sum at the bound: a single row holds
        // every pixel as a 1 x 1 rectangle), then strip id ascending, so that ties resolve the same way on
        // every run. Three stable radix sorts, least significant key first. Returns the sorted bound keys.
        u64* orderBestFirst(int* list, int n) {
            int* ids2 = ws_.get<int>("2d order ids", n);
            int* heights = ws_.get<int>("2d order heights", n);
            int* heights2 = ws_.get<int>("2d order heights 2", n);
            u64* keys = ws_.get<u64>("2d order keys", n);
            u64* keys2 = ws_.get<u64>("2d order keys 2", n);
            std::size_t bytesA = 0, bytesB = 0, bytesC = 0;
            GLINT_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, bytesA, list, ids2, n));
            GLINT_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytesB, heights, heights2, ids2, list, n));
            GLINT_CUDA_CHECK(cub::DeviceRadixSort::SortPairsDescending(nullptr, bytesC, keys, keys2, list, ids2, n));
            void* temp = ws_.get("2d order temp", std::max({bytesA, bytesB, bytesC}));
            GLINT_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp, bytesA, list, ids2, n)); // ids ascending
            stripHeightsKernel<<<gridFor(n, 256), 256>>>(ids2, n, rows_, heights);
            GLINT_CUDA_CHECK_LAUNCH();
            GLINT_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp, bytesB, heights, heights2, ids2, list, n));
            stripHighKeysKernel<<<gridFor(n, 256), 256>>>(items_, list, n, keys);
            GLINT_CUDA_CHECK_LAUNCH();
            GLINT_CUDA_CHECK(cub::DeviceRadixSort::SortPairsDescending(temp, bytesC, keys, keys2, list, ids2, n));
            GLINT_CUDA_CHECK(cudaMemcpy(list, ids2, static_cast<std::size_t>(n) * sizeof(int), cudaMemcpyDeviceToDevice));
            return keys2;
        }

        // The key of the largest double at or below v (the strip bounds are keys of doubles).
        static u64 keyAtOrBelow(E v) {
            if constexpr (std::is_floating_point_v<E>) {
                return orderedKey(static_cast<double>(v) + 0.0);
            } else {
                double d = static_cast<double>(v);
                if (static_cast<long double>(d) > static_cast<long double>(v)) d = std::nextafter(d, -INFINITY);
                return orderedKey(d + 0.0);
            }
        }

        Workspace& ws_;
        const WorkArray& w_;
        JobControl& job_;
        EventTimer steps_;
        int rows_, cols_, pitch_;
        void* samples_ = nullptr;
        std::uint8_t* mask_ = nullptr;
        bool hasMask_ = false;
        int* P32_ = nullptr;
        float* Pf_ = nullptr;
        E* exact_ = nullptr;
        int* next_ = nullptr;
        int* nextMin_ = nullptr;
        int* stripBest_ = nullptr;
        unsigned* scalars_ = nullptr;
        StripItems items_{};
    };
};

} // namespace
} // namespace kmax

void registerKMaxRectCuda() {
    BackendRegistry<KMaxRectSolver>::add(Backend::Cuda, [] { return std::make_unique<kmax::CudaRectSolver>(); }, Backend::Cpu);
}

} // namespace glint::cuda
