// The CUDA maximum-subarray backend (host side). Every strip (pair of rows) is searched in parallel by
// the strip kernel, which keeps only each strip's maximum; the winner's columns are recovered after.
//
// Two paths, both exact:
//  - exact path (integer data whose sums provably fit int32, WorkArray::fitsInt32): the strip kernel
//    runs in int32 with Hopper's DPX max(a + b, c); its maxima are the answer.
//  - screen path (everything else): the strip kernel runs in float, each strip's float maximum comes
//    with a rigorous error bound, and only the strips whose bound reaches the best are computed again
//    in int64 or double from exact prefix sums, in the reference's order of operations.
// Ties resolve as in the reference (smallest top, then bottom; then Kadane's first segment), so all
// backends report the same rectangle. For K regions (fast K), the strip kernel also records each strip's
// span (the chunks of columns that hold its best segment), and after a round only the tiles holding a strip
// whose positive maximum's span meets the removed region are computed again (dirtyTilesKernel): the others
// keep their maxima bit for bit (see stripMaxKernel). Without the memory for the spans, the tiles whose
// strips cross the region's rows are computed again.
#include "cuda/MaxSubarrayCuda.cuh"

#include "cuda/BackgroundCuda.cuh"
#include "cuda/BoundedSearchCuda.cuh"
#include "cuda/CudaToolkit.cuh"
#include "cuda/MaxSubarrayKernels.cuh"
#include "cuda/MaxSubarrayStrips.cuh"

#include "core/algo/maxsub/MaxSubarray.h"
#include "core/io/Image.h"
#include "core/jobs/Backend.h"
#include "core/util/Errors.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace glint::cuda {
namespace maxsub {

namespace {

// Device buffers kept between runs (cudaMalloc and cudaFree cost more than a small image's search); each run
// leases its own workspace, so runs on several threads (batch workers) go on at once.
WorkspacePool& workspace() { return Workspace::shared("brightest"); }

// ---- the solver ------------------------------------------------------------------------------------

class CudaSolver final : public MaxSubarraySolver {
public:
    // The local pivot's preprocessing on the device for the bounded search (cuda/BackgroundCuda.cu).
    DeviceLocalPivot* deviceLocalPivot(const BrightestParams& params) override {
        // (--max-box auto is bounded too: by 5 FWHM, or the mesh.)
        if (params.pivot.kind != PivotSpec::Kind::Local || params.boundOrNone() == 0 || !cudaDevice().usable) return nullptr;
        if (!localPivot_) localPivot_ = background::makeCudaLocalPivot();
        return localPivot_.get();
    }

    DisjointOutcome solveDisjoint(const WorkArray& work, const DisjointRule& rule, JobControl& job,
                                  ProgressSpan span) override {
        job.setDevice(cudaDevice().name);
        if (work.includedCount == 0 || !(work.positiveSum > 0.0)) return {}; // nothing can be positive
        if (rule.maxBox > 0) {
            // The bounded search (--max-box): on the device (BoundedSearchCuda.cu). When the device lacks the
            // memory for it, the backend declines and the registry's fallback (cpu, RegisterCudaBackends) runs the
            // whole search (NOTES.md, "Bounded search").
            if (std::optional<DisjointOutcome> out = solveBoundedDisjointCuda(work, rule, job, span)) return std::move(*out);
            throw BackendDeclined("the device lacks the memory for the bounded search");
        }
        if (work.deviceSamples) throw std::logic_error("CudaSolver: the local pivot was prepared on the device for no bound");
        Workspace::Lease ws(workspace());
        if (work.fitsInt32()) return Run<int, std::int64_t>(*ws, work, rule, job, span).solve();
        if (work.integer) return Run<float, std::int64_t>(*ws, work, rule, job, span).solve();
        return Run<float, double>(*ws, work, rule, job, span).solve();
    }

private:
    std::unique_ptr<DeviceLocalPivot> localPivot_;

    // One run. V is the strip kernel's type (int: exact path; float: screen path); Exact the type of
    // exact sums (int64 or double).
    template <class V, class Exact>
    class Run {
    public:
        static constexpr bool kScreen = std::is_same_v<V, float>;

        Run(Workspace& ws, const WorkArray& w, const DisjointRule& rule, JobControl& job, ProgressSpan span)
            : ws_(ws), w_(w), rule_(rule), k_(rule.rounds()), job_(job), span_(span), rows_(w.rows), cols_(w.cols), pitch_(pitchFor(w.cols)) {}

        DisjointOutcome solve() {
            checkMemory();
            kernel_ = track_ ? chooseStripKernel<V, true>(rows_, forcedShape()) : chooseStripKernel<V>(rows_, forcedShape());
            upload();
            prefixSums();
            buildTiles();
            std::vector<int> dirty;
            bool all = true; // the first round: every tile
            const double firstShare = k_ > 1 ? 0.5 : 1.0;
            auto search = [&](const DisjointOutcome& soFar) -> std::optional<WorkRect> {
                auto fraction = [&](std::size_t found, int rounds) {
                    return std::max(static_cast<double>(found) / rule_.k, static_cast<double>(rounds) / k_);
                };
                const ProgressSpan roundSpan =
                    soFar.rounds == 0 ? span_.part(0.0, firstShare)
                                      : span_.part(firstShare + (1.0 - firstShare) * fraction(soFar.found.size(), soFar.rounds),
                                                   firstShare + (1.0 - firstShare) * fraction(soFar.found.size() + 1, soFar.rounds + 1));
                if (all) searchTiles(allTiles_, tiles_.size(), roundSpan);
                else if (track_) searchTiles(dirtyTiles_, dirtyCount_, roundSpan);
                else searchTiles(dirty, roundSpan);
                all = false;
                int top = -1, bottom = -1;
                Exact value{};
                if (!select(top, bottom, value)) return std::nullopt;
                setProgress(roundSpan.end);
                return recover(top, bottom, value);
            };
            DisjointOutcome out = runDisjointRounds(rule_, search, [&](const WorkRect& r) { dirty = exclude(r); });
            setProgress(span_.end);
            return out;
        }

    private:
        std::size_t cells(std::size_t rowsCount) const { return rowsCount * static_cast<std::size_t>(pitch_); }
        bool blocking() const { return hasMask_; }

        // GLINT_MSP_TILE=TxB forces a shape of the strip kernel (for measurements).
        static std::string forcedShape() {
            const char* env = std::getenv("GLINT_MSP_TILE");
            return env ? env : "";
        }

        void checkMemory() {
            const std::size_t s = sampleBytes(w_);
            std::size_t need = s + cells(rows_ + 1) * sizeof(V) + static_cast<std::size_t>(rows_) * rows_ * 4;
            if (kScreen) need += cells(rows_ + 1) * sizeof(Exact) + kCapacity * (sizeof(int2) + sizeof(Exact));
            if (w_.hasExclusions() || k_ > 1)
                need += static_cast<std::size_t>(rows_) * cols_ + cells(rows_ + 1) * 4 + cells(rows_ + 1) / kChunk * 4;
            ws_.require(need, "the image");
            // Fast K: the spans (rows x rows int) and the tile lists, when they fit (16-bit chunk indices);
            // GLINT_MSP_CACHE_MB=0 turns them off (as on the CPU backend), for measurements and comparisons.
            const char* env = std::getenv("GLINT_MSP_CACHE_MB");
            const bool off = env && std::string(env) == "0";
            const std::size_t tileBound = static_cast<std::size_t>(rows_ / 32 + 2) * (rows_ / 32 + 2); // tiles of 32 x 32 or larger
            const std::size_t spans = static_cast<std::size_t>(rows_) * rows_ * 4 + tileBound * sizeof(int2);
            // The screen path also keeps each strip's exact maximum and its columns (16-bit: cols < 65535).
            const std::size_t exacts = kScreen ? static_cast<std::size_t>(rows_) * rows_ * (sizeof(Exact) + 4) : 0;
            track_ = k_ > 1 && !off && pitch_ / kChunk < 32768 && ws_.available() >= need + spans + (std::size_t{256} << 20);
            keepExact_ = track_ && kScreen && cols_ < 65535 && ws_.available() >= need + spans + exacts + (std::size_t{256} << 20);
        }

        // The job's progress (absolute, inside span_), never moving back.
        void setProgress(double f) {
            if (f > progress_) {
                progress_ = f;
                job_.setProgress(f);
            }
        }

        void upload() {
            auto step = job_.timing().scope("upload");
            samples_ = ws_.get("samples", sampleBytes(w_));
            uploadSamples(w_, samples_);
            if (w_.hasExclusions() || k_ > 1) {
                mask_ = ws_.get<std::uint8_t>("mask", static_cast<std::size_t>(rows_) * cols_);
                uploadMask(w_, mask_);
                hasMask_ = w_.hasExclusions();
            }
        }

        void prefixSums() {
            timer_.begin();
            PrefixArgs a = prefixArgsOf(w_, samples_, mask_, pitch_);
            P_ = ws_.get<V>("P", cells(rows_ + 1));
            if constexpr (kScreen) {
                exact_ = ws_.get<Exact>("exact", cells(rows_ + 1));
                a.exact = exact_;
                a.pf = reinterpret_cast<float*>(P_);
                scalars_ = ws_.get<unsigned long long>("scalars", 4);
                GLINT_CUDA_CHECK(cudaMemset(scalars_, 0, 4 * sizeof(unsigned long long)));
                a.pmaxBits = reinterpret_cast<unsigned*>(scalars_ + 3);
            } else {
                a.p32 = reinterpret_cast<int*>(P_);
                scalars_ = ws_.get<unsigned long long>("scalars", 4);
            }
            launchPrefix<Exact>(w_, a);
            if (w_.hasExclusions() || k_ > 1) buildBlocking();
            timer_.mark("prefix sums");
            if constexpr (kScreen) pmax_ = readPmax(reinterpret_cast<const unsigned*>(scalars_ + 3));
            timer_.report(job_);
        }

        // The blocking index, for all columns and rows, or for the columns and rows a region changed.
        void buildBlocking(int colBegin = 0, int colEnd = -1, int rowLast = -1) {
            if (colEnd < 0) colEnd = pitch_;
            if (rowLast < 0) rowLast = rows_ - 1;
            if (!next_) {
                next_ = ws_.get<int>("next", cells(rows_ + 1));
                nextMin_ = ws_.get<int>("nextMin", cells(rows_ + 1) / kChunk);
            }
            launchBlocking(mask_, rows_, cols_, pitch_, next_, nextMin_, colBegin, colEnd, rowLast);
        }

        void buildTiles() {
            tiles_ = stripTiles(kernel_, rows_);
            stripBest_ = ws_.get<int>("stripBest", static_cast<std::size_t>(rows_) * rows_);
            allTiles_ = ws_.get<int2>("tiles", std::max<std::size_t>(tiles_.size(), 1));
            GLINT_CUDA_CHECK(cudaMemcpy(allTiles_, tiles_.data(), tiles_.size() * sizeof(int2), cudaMemcpyHostToDevice));
            if (track_) {
                stripSpan_ = ws_.get<int>("stripSpan", static_cast<std::size_t>(rows_) * rows_);
                dirtyTiles_ = ws_.get<int2>("dirtyTiles", std::max<std::size_t>(tiles_.size(), 1));
            }
            if (keepExact_) {
                exactCache_ = ws_.get<Exact>("exactCache", static_cast<std::size_t>(rows_) * rows_);
                exactSpan_ = ws_.get<int>("exactSpan", static_cast<std::size_t>(rows_) * rows_);
                GLINT_CUDA_CHECK(cudaMemset(exactSpan_, 0xff, static_cast<std::size_t>(rows_) * rows_ * sizeof(int))); // kNoExact
            }
        }

        // Runs the strip kernel over the given tiles in launches of bounded length (Cancel acts between).
        void searchTiles(const std::vector<int>& which, const ProgressSpan& roundSpan) {
            std::vector<int2> list(which.size());
            for (std::size_t i = 0; i < which.size(); ++i) list[i] = tiles_[which[i]];
            int2* dTiles = ws_.get<int2>("someTiles", std::max<std::size_t>(list.size(), 1));
            GLINT_CUDA_CHECK(cudaMemcpy(dTiles, list.data(), list.size() * sizeof(int2), cudaMemcpyHostToDevice));
            searchTiles(dTiles, list.size(), roundSpan);
        }
        // The same over a list already on the device.
        void searchTiles(const int2* dTiles, std::size_t count, const ProgressSpan& roundSpan) {
            StripArgs a{.P = P_, .rows = rows_, .cols = cols_, .pitch = pitch_, .tiles = dTiles, .tileBegin = 0,
                        .stripBest = stripBest_, .next = blocking() ? next_ : nullptr,
                        .nextMin = blocking() ? nextMin_ : nullptr, .stripSpan = track_ ? stripSpan_ : nullptr};
            const int perLaunch = tilesPerLaunch(kernel_, pitch_);
            // The host waits between launches (Cancel acts there) but not after the last: select() goes on from
            // it in the stream and reports the kernel's time with its own.
            timer_.begin();
            for (std::size_t begin = 0; begin < count; begin += perLaunch) {
                job_.throwIfCancelled();
                const int n = static_cast<int>(std::min<std::size_t>(perLaunch, count - begin));
                a.tileBegin = static_cast<int>(begin);
                launchStrips(kernel_, blocking(), n, a);
                timer_.mark("kernel");
                if (begin + n < count) timer_.report(job_);
                const double f = 0.95 * static_cast<double>(begin + n) / static_cast<double>(count);
                setProgress(roundSpan.begin + (roundSpan.end - roundSpan.begin) * f);
            }
        }

        // The best strip of this round; false when no strip has a positive maximum.
        bool select(int& top, int& bottom, Exact& value) {
            GLINT_CUDA_CHECK(cudaMemset(scalars_, 0, sizeof(unsigned long long)));
            reduceStripsKernel<<<rows_, 256>>>(stripBest_, rows_, 0, scalars_, !kScreen);
            GLINT_CUDA_CHECK_LAUNCH();
            const unsigned long long key = readBack(scalars_);
            if constexpr (!kScreen) {
                timer_.stop(job_, "select");
                if (key == 0) return false;
                const std::size_t idx = 0xffffffffull - (key & 0xffffffffull);
                top = static_cast<int>(idx / rows_);
                bottom = static_cast<int>(idx % rows_);
                value = static_cast<Exact>(key >> 32);
                return true;
            } else {
                const bool found = key != 0 && screen(static_cast<unsigned>(key), top, bottom, value);
                timer_.stop(job_, "recheck");
                return found;
            }
        }

        // Screen path: every strip whose float maximum may be within its error bound of the best is
        // computed exactly; the largest exact maximum wins (smallest top, bottom among equals).
        bool screen(unsigned bestBits, int& top, int& bottom, Exact& value) {
            float fmaxBest;
            std::memcpy(&fmaxBest, &bestBits, sizeof(fmaxBest));
            // |float maximum - exact maximum| <= alpha + beta * max(f, gamma): see CandidateArgs.
            const ScreenBound bound = screenBound(pitch_, pmax_);
            CandidateArgs c{};
            c.alpha = bound.alpha;
            c.beta = bound.beta;
            c.gamma = bound.gamma;
            c.threshold = fmaxBest - (c.alpha + c.beta * std::max<double>(fmaxBest, c.gamma)) - 1e-30;
            c.stripBest = reinterpret_cast<const float*>(stripBest_);
            c.rows = rows_;
            c.capacity = kCapacity;
            c.out = ws_.get<int2>("candidates", kCapacity);
            c.count = reinterpret_cast<unsigned*>(scalars_ + 1);
            Exact* results = ws_.get<Exact>("candidateValues", kCapacity);
            bool any = false;
            int tBegin = 0;
            while (tBegin < rows_) {
                job_.throwIfCancelled();
                int tEnd = tBegin;
                std::size_t strips = 0;
                while (tEnd < rows_ && strips + (rows_ - tEnd) <= kCapacity) strips += rows_ - tEnd++;
                if (tEnd == tBegin) tEnd = tBegin + 1; // rows_ <= kCapacity always holds
                c.tBegin = tBegin;
                GLINT_CUDA_CHECK(cudaMemset(c.count, 0, sizeof(unsigned)));
                candidatesKernel<<<tEnd - tBegin, 256>>>(c);
                GLINT_CUDA_CHECK_LAUNCH();
                const unsigned n = readBack(c.count);
                if (n > kCapacity) throw std::runtime_error("brightest: candidate list overflow");
                if (n > 0) {
                    if (keepExact_)
                        recheckCachedKernel<Exact><<<(n + 127) / 128, 128>>>(exact_, rows_, cols_, pitch_, blocking() ? next_ : nullptr,
                                                                             c.out, n, results, exactCache_, exactSpan_);
                    else
                        recheckKernel<Exact><<<(n + 127) / 128, 128>>>(exact_, cols_, pitch_, blocking() ? next_ : nullptr,
                                                                       c.out, n, results);
                    GLINT_CUDA_CHECK_LAUNCH();
                    // The best candidate on the device (blocks, then one block over their results).
                    const unsigned blocks = std::min<unsigned>(128, (n + kBestThreads - 1) / kBestThreads);
                    int2* partStrips = ws_.get<int2>("bestStrips", 129);
                    Exact* partValues = ws_.get<Exact>("bestValues", 129);
                    bestCandidateKernel<Exact><<<blocks, kBestThreads>>>(c.out, results, n, partStrips, partValues);
                    GLINT_CUDA_CHECK_LAUNCH();
                    bestCandidateKernel<Exact><<<1, kBestThreads>>>(partStrips, partValues, blocks, partStrips + 128, partValues + 128);
                    GLINT_CUDA_CHECK_LAUNCH();
                    Readback best(Readback::rounded(sizeof(int2)) + Readback::rounded(sizeof(Exact)));
                    const int2* strip = best.fetch(partStrips + 128);
                    const Exact* bestValue = best.fetch(partValues + 128);
                    best.wait();
                    const int t = strip->x, b = strip->y;
                    const Exact v = *bestValue;
                    if (t >= 0 && v > Exact(0) && (!any || v > value || (v == value && (t < top || (t == top && b < bottom))))) {
                        any = true;
                        value = v;
                        top = t;
                        bottom = b;
                    }
                }
                tBegin = tEnd;
            }
            return any;
        }

        // The winning strip's columns, by the reference's scan over its two prefix rows.
        WorkRect recover(int top, int bottom, Exact value) {
            auto step = job_.timing().scope("download");
            // The two prefix rows (and the blocking row) in one wait.
            using Row = std::conditional_t<kScreen, Exact, int>;
            const std::size_t rowBytes = Readback::rounded(static_cast<std::size_t>(pitch_) * sizeof(Row));
            Readback rows(2 * rowBytes + (blocking() ? Readback::rounded(static_cast<std::size_t>(pitch_) * sizeof(int)) : 0));
            const Row* base = kScreen ? reinterpret_cast<const Row*>(exact_) : reinterpret_cast<const Row*>(P_);
            const Row* t = rows.fetch(base + cells(top), pitch_);
            const Row* b = rows.fetch(base + cells(bottom + 1), pitch_);
            const int* nextRow = blocking() ? rows.fetch(next_ + cells(top), pitch_) : nullptr;
            rows.wait();
            std::vector<Exact> pt(t, t + pitch_), pb(b, b + pitch_);
            const StripBest<Exact> s = scanStrip(pt.data(), pb.data(), 1, cols_, bottom, nextRow);
            if (!(s.sum == value))
                throw std::runtime_error("brightest (CUDA): the winning strip's scan disagrees with its maximum");
            return stripRect(top, bottom, s);
        }

        // Blocks the region's cells and returns the tiles whose strips cross its rows.
        std::vector<int> exclude(const WorkRect& r) {
            timer_.begin();
            const int n = r.rows * r.cols;
            markRectKernel<<<(n + 255) / 256, 256>>>(mask_, cols_, r.row0, r.rows, r.col0, r.cols);
            GLINT_CUDA_CHECK_LAUNCH();
            hasMask_ = true;
            buildBlocking(r.col0, r.col0 + r.cols, r.row0 + r.rows - 1);
            std::vector<int> dirty;
            if (keepExact_) {
                const long long strips = static_cast<long long>(r.row0 + r.rows) * (rows_ - r.row0);
                invalidateExactKernel<<<static_cast<unsigned>((strips + 255) / 256), 256>>>(
                    exactSpan_, rows_, r.row0, r.row0 + r.rows - 1, r.col0, r.col0 + r.cols - 1);
                GLINT_CUDA_CHECK_LAUNCH();
            }
            if (track_) {
                // On the device: the tiles with a strip whose positive maximum's span meets the region.
                DirtyArgs d{};
                d.tiles = allTiles_;
                d.tileCount = static_cast<int>(tiles_.size());
                d.tops = kernel_.tops;
                d.bottoms = kernel_.bottoms;
                d.rows = rows_;
                d.r0 = r.row0;
                d.r1 = r.row0 + r.rows - 1;
                d.ch0 = r.col0 / kChunk;
                d.ch1 = (r.col0 + r.cols - 1) / kChunk;
                d.stripBest = stripBest_;
                d.stripSpan = stripSpan_;
                d.out = dirtyTiles_;
                d.count = reinterpret_cast<unsigned*>(scalars_ + 2);
                GLINT_CUDA_CHECK(cudaMemset(d.count, 0, sizeof(unsigned)));
                dirtyTilesKernel<<<static_cast<unsigned>(tiles_.size()), 128>>>(d);
                GLINT_CUDA_CHECK_LAUNCH();
                dirtyCount_ = readBack(d.count);
                timer_.stop(job_, "exclude");
                return dirty;
            }
            timer_.stop(job_, "exclude");
            const int last = r.row0 + r.rows - 1;
            for (std::size_t i = 0; i < tiles_.size(); ++i) {
                const int t0 = tiles_[i].x * kernel_.tops, b1 = (tiles_[i].y + 1) * kernel_.bottoms - 1;
                if (t0 <= last && b1 >= r.row0) dirty.push_back(static_cast<int>(i));
            }
            return dirty;
        }

        static constexpr std::size_t kCapacity = std::size_t{1} << 22;

        Workspace& ws_;
        const WorkArray& w_;
        const DisjointRule& rule_;
        int k_; // rounds at most: more than one needs the mask
        JobControl& job_;
        ProgressSpan span_;
        int rows_, cols_, pitch_;
        StripKernel kernel_{};
        EventTimer timer_{nullptr, 4}; // every step's (one set of events for the run)
        bool track_ = false;      // fast K: spans kept, dirty tiles found on the device
        double progress_ = -1.0;
        int2* allTiles_ = nullptr;
        int2* dirtyTiles_ = nullptr;
        std::size_t dirtyCount_ = 0;
        int* stripSpan_ = nullptr;
        bool keepExact_ = false;  // screen path with track_: exact maxima kept too
        Exact* exactCache_ = nullptr;
        int* exactSpan_ = nullptr;
        void* samples_ = nullptr;
        std::uint8_t* mask_ = nullptr;
        bool hasMask_ = false;
        V* P_ = nullptr;
        Exact* exact_ = nullptr;
        int* next_ = nullptr;
        int* nextMin_ = nullptr;
        int* stripBest_ = nullptr;
        unsigned long long* scalars_ = nullptr; // [0] key, [1] candidate count, [2] dirty tiles, [3] max |P| bits
        double pmax_ = 0.0;
        std::vector<int2> tiles_;
    };
};

} // namespace
} // namespace maxsub

void registerBrightestCuda() {
    // What the device declines (a bounded search larger than its memory) runs on the CPU backend.
    BackendRegistry<MaxSubarraySolver>::add(Backend::Cuda, [] { return std::make_unique<maxsub::CudaSolver>(); }, Backend::Cpu);
}

} // namespace glint::cuda
