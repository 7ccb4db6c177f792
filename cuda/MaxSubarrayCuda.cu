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
// backends report the same rectangle. For K regions, strips whose rows miss the removed region keep
// their maxima; the rest are computed again with the region's cells blocked.
#include "cuda/MaxSubarrayCuda.cuh"

#include "cuda/CudaDevice.h"
#include "cuda/MaxSubarrayKernels.cuh"

#include "core/algo/brightest/MaxSubarray.h"
#include "core/io/Image.h"
#include "core/jobs/Backend.h"
#include "core/util/Errors.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace glint::cuda {

namespace {

using namespace detail;

// Device buffers kept between runs: cudaMalloc and cudaFree cost more than a small image's search.
class DeviceArena {
public:
    void* get(const char* name, std::size_t bytes) {
        Buffer& b = buffers_[name];
        if (b.bytes < bytes) {
            if (b.ptr) GLINT_CUDA_CHECK(cudaFree(b.ptr));
            b.ptr = nullptr;
            b.bytes = 0;
            GLINT_CUDA_CHECK(cudaMalloc(&b.ptr, bytes));
            b.bytes = bytes;
        }
        return b.ptr;
    }
    std::size_t held() const {
        std::size_t n = 0;
        for (const auto& [name, b] : buffers_) n += b.bytes;
        return n;
    }
    template <class T>
    T* get(const char* name, std::size_t count) {
        return static_cast<T*>(get(name, count * sizeof(T)));
    }

private:
    struct Buffer {
        void* ptr = nullptr;
        std::size_t bytes = 0;
    };
    std::map<std::string, Buffer> buffers_;
};

std::mutex& arenaMutex() {
    static std::mutex m;
    return m;
}
DeviceArena& arena() {
    static DeviceArena* a = new DeviceArena; // never destroyed: freeing after the runtime shut down fails
    return *a;
}

class EventTimer {
public:
    EventTimer() {
        GLINT_CUDA_CHECK(cudaEventCreate(&start_));
        GLINT_CUDA_CHECK(cudaEventCreate(&stop_));
    }
    ~EventTimer() {
        cudaEventDestroy(start_);
        cudaEventDestroy(stop_);
    }
    void start() { GLINT_CUDA_CHECK(cudaEventRecord(start_)); }
    // Waits for the work since start() and returns its milliseconds.
    float stop() {
        GLINT_CUDA_CHECK(cudaEventRecord(stop_));
        GLINT_CUDA_CHECK(cudaEventSynchronize(stop_));
        float ms = 0.0f;
        GLINT_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
        return ms;
    }

private:
    cudaEvent_t start_{};
    cudaEvent_t stop_{};
};

// ---- strip kernel shapes ---------------------------------------------------------------------------

struct StripKernel {
    void (*plain)(StripArgs);
    void (*blocked)(StripArgs);
    int tops;
    int bottoms;
    int smemPlain;
    int smemBlocked;
};

template <class V, int T, int B>
StripKernel stripKernel() {
    StripKernel k{&stripMaxKernel<V, T, B, false>, &stripMaxKernel<V, T, B, true>, 16 * T, 16 * B,
                  stripSharedBytes<V, T, B>(false), stripSharedBytes<V, T, B>(true)};
    GLINT_CUDA_CHECK(cudaFuncSetAttribute(k.plain, cudaFuncAttributeMaxDynamicSharedMemorySize, k.smemPlain));
    GLINT_CUDA_CHECK(cudaFuncSetAttribute(k.blocked, cudaFuncAttributeMaxDynamicSharedMemorySize, k.smemBlocked));
    return k;
}

// 4x4 (64 x 64 strips a block) unless the image has too few strips to fill the GPU with such tiles:
// then 2x4 or 2x2, whose smaller tiles make more blocks. GLINT_MSP_TILE=TxB forces a shape.
template <class V>
StripKernel chooseStripKernel(int rows) {
    const char* env = std::getenv("GLINT_MSP_TILE");
    std::string shape = env ? env : "";
    if (shape.empty()) {
        auto tiles = [&](int tops, int bottoms) {
            const long long t = (rows + tops - 1) / tops, b = (rows + bottoms - 1) / bottoms;
            return t * b / 2 + t;
        };
        const long long enough = 3LL * std::max(1, cudaDevice().multiprocessors);
        shape = tiles(64, 64) >= enough ? "4x4" : tiles(32, 64) >= enough ? "2x4" : "2x2";
    }
    if (shape == "2x2") return stripKernel<V, 2, 2>();
    if (shape == "2x4") return stripKernel<V, 2, 4>();
    return stripKernel<V, 4, 4>();
}

// ---- the solver ------------------------------------------------------------------------------------

class CudaSolver final : public MaxSubarraySolver {
public:
    std::vector<WorkRect> solveDisjoint(const WorkArray& work, int k, JobControl& job, ProgressSpan span) override {
        job.setDevice(cudaDevice().name);
        if (work.includedCount == 0 || !(work.positiveSum > 0.0)) return {}; // nothing can be positive
        std::lock_guard lock(arenaMutex());
        if (work.fitsInt32()) return Run<int, std::int64_t>(work, k, job, span).solve();
        if (work.integer) return Run<float, std::int64_t>(work, k, job, span).solve();
        return Run<float, double>(work, k, job, span).solve();
    }

private:
    // One run. V is the strip kernel's type (int: exact path; float: screen path); Exact the type of
    // exact sums (int64 or double).
    template <class V, class Exact>
    class Run {
    public:
        static constexpr bool kScreen = std::is_same_v<V, float>;

        Run(const WorkArray& w, int k, JobControl& job, ProgressSpan span)
            : w_(w), k_(k), job_(job), span_(span), rows_(w.rows), cols_(w.cols),
              pitch_((w.cols + kChunk - 1) / kChunk * kChunk), kernel_(chooseStripKernel<V>(w.rows)) {}

        std::vector<WorkRect> solve() {
            checkMemory();
            upload();
            prefixSums();
            buildTiles();
            std::vector<WorkRect> found;
            std::vector<int> dirty(tiles_.size());
            for (std::size_t i = 0; i < dirty.size(); ++i) dirty[i] = static_cast<int>(i);
            for (int round = 0; round < k_; ++round) {
                const ProgressSpan roundSpan = span_.part(static_cast<double>(round) / k_, (round + 1.0) / k_);
                searchTiles(dirty, roundSpan);
                int top = -1, bottom = -1;
                Exact value{};
                if (!select(top, bottom, value)) break;
                found.push_back(recover(top, bottom, value));
                if (round + 1 < k_) dirty = exclude(found.back());
            }
            span_.set(job_, 1.0);
            return found;
        }

    private:
        std::size_t cells(std::size_t rowsCount) const { return rowsCount * static_cast<std::size_t>(pitch_); }
        bool blocking() const { return hasMask_; }

        void checkMemory() {
            const std::size_t s = sampleBytes();
            std::size_t need = s + cells(rows_ + 1) * sizeof(V) + static_cast<std::size_t>(rows_) * rows_ * 4;
            if (kScreen) need += cells(rows_ + 1) * sizeof(Exact) + kCapacity * (sizeof(int2) + sizeof(Exact));
            if (w_.hasExclusions() || k_ > 1)
                need += static_cast<std::size_t>(rows_) * cols_ + cells(rows_ + 1) * 4 + cells(rows_ + 1) / kChunk * 4;
            std::size_t freeBytes = 0, total = 0;
            GLINT_CUDA_CHECK(cudaMemGetInfo(&freeBytes, &total));
            if (need > freeBytes + arena().held())
                throw BackendUnavailable("the image needs " + std::to_string(need >> 20) + " MiB of GPU memory, " +
                                         std::to_string((freeBytes + arena().held()) >> 20) +
                                         " MiB are free; use --backend cpu");
        }

        std::size_t sampleBytes() const {
            return static_cast<std::size_t>(w_.roi.width) * w_.roi.height *
                   w_.image->visit([](const auto* p) { return sizeof(*p); });
        }

        void upload() {
            auto step = job_.timing().scope("upload");
            const Image& img = *w_.image;
            const std::size_t elem = img.visit([](const auto* p) { return sizeof(*p); });
            samples_ = arena().get("samples", sampleBytes());
            const auto* base = static_cast<const unsigned char*>(img.visit([](const auto* p) {
                return static_cast<const void*>(p);
            }));
            const unsigned char* src = base + (static_cast<std::size_t>(w_.roi.y) * img.width() + w_.roi.x) * elem;
            if (w_.roi.width == img.width()) {
                GLINT_CUDA_CHECK(cudaMemcpy(samples_, src, sampleBytes(), cudaMemcpyHostToDevice));
            } else {
                GLINT_CUDA_CHECK(cudaMemcpy2D(samples_, w_.roi.width * elem, src, img.width() * elem,
                                              w_.roi.width * elem, w_.roi.height, cudaMemcpyHostToDevice));
            }
            if (w_.hasExclusions() || k_ > 1) {
                mask_ = arena().get<std::uint8_t>("mask", static_cast<std::size_t>(rows_) * cols_);
                if (w_.hasExclusions())
                    GLINT_CUDA_CHECK(cudaMemcpy(mask_, w_.excluded.data(), w_.excluded.size(), cudaMemcpyHostToDevice));
                else
                    GLINT_CUDA_CHECK(cudaMemset(mask_, 0, static_cast<std::size_t>(rows_) * cols_));
                hasMask_ = w_.hasExclusions();
            }
        }

        void prefixSums() {
            EventTimer timer;
            timer.start();
            PrefixArgs a{};
            a.samples = samples_;
            a.roiWidth = w_.roi.width;
            a.transposed = w_.transposed;
            a.mask = w_.hasExclusions() ? mask_ : nullptr;
            a.rows = rows_;
            a.cols = cols_;
            a.pitch = pitch_;
            P_ = arena().get<V>("P", cells(rows_ + 1));
            if constexpr (kScreen) {
                exact_ = arena().get<Exact>("exact", cells(rows_ + 1));
                a.exact = exact_;
                a.pf = reinterpret_cast<float*>(P_);
                scalars_ = arena().get<unsigned long long>("scalars", 4);
                GLINT_CUDA_CHECK(cudaMemset(scalars_, 0, 4 * sizeof(unsigned long long)));
                a.pmaxBits = reinterpret_cast<unsigned*>(scalars_ + 3);
            } else {
                a.p32 = reinterpret_cast<int*>(P_);
                scalars_ = arena().get<unsigned long long>("scalars", 4);
            }
            const int blocks = (pitch_ + 127) / 128;
            w_.image->visit([&](const auto* p) {
                using S = std::remove_cv_t<std::remove_pointer_t<decltype(p)>>;
                if constexpr (std::is_same_v<Exact, double>) prefixKernel<S, double><<<blocks, 128>>>(a, w_.pivot);
                else prefixKernel<S, long long><<<blocks, 128>>>(a, static_cast<long long>(w_.pivotInt));
            });
            GLINT_CUDA_CHECK_LAUNCH();
            if (w_.hasExclusions() || k_ > 1) buildBlocking();
            job_.timing().add("prefix sums", timer.stop());
            if constexpr (kScreen) {
                unsigned bits = 0;
                GLINT_CUDA_CHECK(cudaMemcpy(&bits, scalars_ + 3, sizeof(bits), cudaMemcpyDeviceToHost));
                float pmax;
                std::memcpy(&pmax, &bits, sizeof(pmax));
                pmax_ = pmax;
            }
        }

        // The blocking index, for all columns and rows, or for the columns and rows a region changed.
        void buildBlocking(int colBegin = 0, int colEnd = -1, int rowLast = -1) {
            if (colEnd < 0) colEnd = pitch_;
            if (rowLast < 0) rowLast = rows_ - 1;
            if (!next_) {
                next_ = arena().get<int>("next", cells(rows_ + 1));
                nextMin_ = arena().get<int>("nextMin", cells(rows_ + 1) / kChunk);
            }
            const int n = colEnd - colBegin;
            nextExcludedKernel<<<(n + 127) / 128, 128>>>(mask_, rows_, cols_, pitch_, next_, colBegin, colEnd, rowLast);
            GLINT_CUDA_CHECK_LAUNCH();
            const int chunkBegin = colBegin / kChunk, chunkEnd = (colEnd + kChunk - 1) / kChunk;
            const int rowCount = rowLast == rows_ - 1 ? rows_ + 1 : rowLast + 1;
            const long long items = static_cast<long long>(rowCount) * (chunkEnd - chunkBegin);
            nextMinKernel<<<static_cast<unsigned>((items + 255) / 256), 256>>>(next_, pitch_, rowCount, chunkBegin,
                                                                                chunkEnd, nextMin_);
            GLINT_CUDA_CHECK_LAUNCH();
        }

        void buildTiles() {
            const int topTiles = (rows_ + kernel_.tops - 1) / kernel_.tops;
            const int bottomTiles = (rows_ + kernel_.bottoms - 1) / kernel_.bottoms;
            for (int t = 0; t < topTiles; ++t)
                for (int b = t * kernel_.tops / kernel_.bottoms; b < bottomTiles; ++b) tiles_.push_back(make_int2(t, b));
            stripBest_ = arena().get<int>("stripBest", static_cast<std::size_t>(rows_) * rows_);
        }

        // Runs the strip kernel over the given tiles in launches of bounded length (Cancel acts between).
        void searchTiles(const std::vector<int>& which, const ProgressSpan& roundSpan) {
            std::vector<int2> list(which.size());
            for (std::size_t i = 0; i < which.size(); ++i) list[i] = tiles_[which[i]];
            int2* dTiles = arena().get<int2>("tiles", std::max<std::size_t>(list.size(), 1));
            GLINT_CUDA_CHECK(cudaMemcpy(dTiles, list.data(), list.size() * sizeof(int2), cudaMemcpyHostToDevice));
            StripArgs a{};
            a.P = P_;
            a.rows = rows_;
            a.cols = cols_;
            a.pitch = pitch_;
            a.tiles = dTiles;
            a.stripBest = stripBest_;
            a.next = blocking() ? next_ : nullptr;
            a.nextMin = blocking() ? nextMin_ : nullptr;
            const double cellsPerTile = static_cast<double>(kernel_.tops) * kernel_.bottoms * pitch_;
            const int perLaunch = static_cast<int>(std::clamp(1.5e11 / cellsPerTile, 1.0, 1.0e6));
            EventTimer timer;
            for (std::size_t begin = 0; begin < list.size(); begin += perLaunch) {
                job_.throwIfCancelled();
                const int n = static_cast<int>(std::min<std::size_t>(perLaunch, list.size() - begin));
                a.tileBegin = static_cast<int>(begin);
                timer.start();
                if (blocking())
                    kernel_.blocked<<<n, kThreads, kernel_.smemBlocked>>>(a);
                else
                    kernel_.plain<<<n, kThreads, kernel_.smemPlain>>>(a);
                GLINT_CUDA_CHECK_LAUNCH();
                job_.timing().add("kernel", timer.stop());
                roundSpan.set(job_, 0.95 * static_cast<double>(begin + n) / list.size());
            }
        }

        // The best strip of this round; false when no strip has a positive maximum.
        bool select(int& top, int& bottom, Exact& value) {
            EventTimer timer;
            timer.start();
            GLINT_CUDA_CHECK(cudaMemset(scalars_, 0, sizeof(unsigned long long)));
            reduceStripsKernel<<<rows_, 256>>>(stripBest_, rows_, 0, scalars_, !kScreen);
            GLINT_CUDA_CHECK_LAUNCH();
            unsigned long long key = 0;
            GLINT_CUDA_CHECK(cudaMemcpy(&key, scalars_, sizeof(key), cudaMemcpyDeviceToHost));
            if constexpr (!kScreen) {
                job_.timing().add("select", timer.stop());
                if (key == 0) return false;
                const std::size_t idx = 0xffffffffull - (key & 0xffffffffull);
                top = static_cast<int>(idx / rows_);
                bottom = static_cast<int>(idx % rows_);
                value = static_cast<Exact>(key >> 32);
                return true;
            } else {
                const bool found = key != 0 && screen(static_cast<unsigned>(key), top, bottom, value);
                job_.timing().add("recheck", timer.stop());
                return found;
            }
        }

        // Screen path: every strip whose float maximum may be within its error bound of the best is
        // computed exactly; the largest exact maximum wins (smallest top, bottom among equals).
        bool screen(unsigned bestBits, int& top, int& bottom, Exact& value) {
            float fmaxBest;
            std::memcpy(&fmaxBest, &bestBits, sizeof(fmaxBest));
            // |float maximum - exact maximum| <= alpha + beta * max(f, gamma): see CandidateArgs.
            const double u = 1.0 / (1 << 24), W = pitch_;
            CandidateArgs c{};
            c.alpha = 4.02 * W * u * pmax_ * 1.001;
            c.beta = 1.01 * W * u * 1.001;
            c.gamma = 4.1 * pmax_;
            c.threshold = fmaxBest - (c.alpha + c.beta * std::max<double>(fmaxBest, c.gamma)) - 1e-30;
            c.stripBest = reinterpret_cast<const float*>(stripBest_);
            c.rows = rows_;
            c.capacity = kCapacity;
            c.out = arena().get<int2>("candidates", kCapacity);
            c.count = reinterpret_cast<unsigned*>(scalars_ + 1);
            Exact* results = arena().get<Exact>("candidateValues", kCapacity);
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
                unsigned n = 0;
                GLINT_CUDA_CHECK(cudaMemcpy(&n, c.count, sizeof(n), cudaMemcpyDeviceToHost));
                if (n > kCapacity) throw std::runtime_error("brightest: candidate list overflow");
                if (n > 0) {
                    recheckKernel<Exact><<<(n + 127) / 128, 128>>>(exact_, cols_, pitch_, blocking() ? next_ : nullptr,
                                                                   c.out, n, results);
                    GLINT_CUDA_CHECK_LAUNCH();
                    std::vector<int2> strips(n);
                    std::vector<Exact> values(n);
                    GLINT_CUDA_CHECK(cudaMemcpy(strips.data(), c.out, n * sizeof(int2), cudaMemcpyDeviceToHost));
                    GLINT_CUDA_CHECK(cudaMemcpy(values.data(), results, n * sizeof(Exact), cudaMemcpyDeviceToHost));
                    for (unsigned i = 0; i < n; ++i) {
                        const Exact v = values[i];
                        const int t = strips[i].x, b = strips[i].y;
                        if (!(v > Exact(0))) continue;
                        if (!any || v > value || (v == value && (t < top || (t == top && b < bottom)))) {
                            any = true;
                            value = v;
                            top = t;
                            bottom = b;
                        }
                    }
                }
                tBegin = tEnd;
            }
            return any;
        }

        // The winning strip's columns, by the reference's scan over its two prefix rows.
        WorkRect recover(int top, int bottom, Exact value) {
            auto step = job_.timing().scope("download");
            std::vector<Exact> pt(pitch_), pb(pitch_);
            if constexpr (kScreen) {
                GLINT_CUDA_CHECK(cudaMemcpy(pt.data(), exact_ + cells(top), pitch_ * sizeof(Exact), cudaMemcpyDeviceToHost));
                GLINT_CUDA_CHECK(
                    cudaMemcpy(pb.data(), exact_ + cells(bottom + 1), pitch_ * sizeof(Exact), cudaMemcpyDeviceToHost));
            } else {
                std::vector<int> t32(pitch_), b32(pitch_);
                GLINT_CUDA_CHECK(cudaMemcpy(t32.data(), P_ + cells(top), pitch_ * sizeof(int), cudaMemcpyDeviceToHost));
                GLINT_CUDA_CHECK(cudaMemcpy(b32.data(), P_ + cells(bottom + 1), pitch_ * sizeof(int), cudaMemcpyDeviceToHost));
                std::copy(t32.begin(), t32.end(), pt.begin());
                std::copy(b32.begin(), b32.end(), pb.begin());
            }
            std::vector<std::int32_t> nextRow;
            if (blocking()) {
                nextRow.resize(pitch_);
                GLINT_CUDA_CHECK(cudaMemcpy(nextRow.data(), next_ + cells(top), pitch_ * sizeof(int), cudaMemcpyDeviceToHost));
            }
            const StripBest<Exact> s = scanStrip(pt.data(), pb.data(), 1, cols_, bottom, blocking() ? nextRow.data() : nullptr);
            if (!(s.sum == value))
                throw std::runtime_error("brightest (CUDA): the winning strip's scan disagrees with its maximum");
            return stripRect(top, bottom, s);
        }

        // Blocks the region's cells and returns the tiles whose strips cross its rows.
        std::vector<int> exclude(const WorkRect& r) {
            EventTimer timer;
            timer.start();
            const int n = r.rows * r.cols;
            markRectKernel<<<(n + 255) / 256, 256>>>(mask_, cols_, r.row0, r.rows, r.col0, r.cols);
            GLINT_CUDA_CHECK_LAUNCH();
            hasMask_ = true;
            buildBlocking(r.col0, r.col0 + r.cols, r.row0 + r.rows - 1);
            job_.timing().add("exclude", timer.stop());
            std::vector<int> dirty;
            const int last = r.row0 + r.rows - 1;
            for (std::size_t i = 0; i < tiles_.size(); ++i) {
                const int t0 = tiles_[i].x * kernel_.tops, b1 = (tiles_[i].y + 1) * kernel_.bottoms - 1;
                if (t0 <= last && b1 >= r.row0) dirty.push_back(static_cast<int>(i));
            }
            return dirty;
        }

        static constexpr std::size_t kCapacity = std::size_t{1} << 22;

        const WorkArray& w_;
        int k_;
        JobControl& job_;
        ProgressSpan span_;
        int rows_, cols_, pitch_;
        StripKernel kernel_;
        void* samples_ = nullptr;
        std::uint8_t* mask_ = nullptr;
        bool hasMask_ = false;
        V* P_ = nullptr;
        Exact* exact_ = nullptr;
        int* next_ = nullptr;
        int* nextMin_ = nullptr;
        int* stripBest_ = nullptr;
        unsigned long long* scalars_ = nullptr; // [0] key, [1] candidate count, [3] max |P| bits
        double pmax_ = 0.0;
        std::vector<int2> tiles_;
    };
};

} // namespace

void registerBrightestCuda() {
    BackendRegistry<MaxSubarraySolver>::add(Backend::Cuda, [] { return std::make_unique<CudaSolver>(); });
}

} // namespace glint::cuda
