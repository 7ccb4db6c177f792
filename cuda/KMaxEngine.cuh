// The host side of the CUDA K-MSP engine, shared by the 1-D and 2-D backends: given a prefix array, its
// start bounds and the best start of every end on the device, it finds the k largest pair sums exactly.
//  1. The k-th largest best-end sum bounds the k-th largest sum from below: a log histogram of the ends'
//     distance below the best gives D0 with at least k pairs within it, and the list of ends within D0.
//  2. Counting passes (one warp per end walks a min-tree of fan-out 32, visiting only starts within the
//     bound) histogram the pairs' distances; the bucket holding the k-th narrows the bracket until it
//     is one value d*. Each pass stops at a cap, so ties and degenerate inputs cost bounded time: the
//     host then narrows the bracket from the partial counts, by halving when they do not help.
//  3. A collecting pass writes every pair below d* and as many at d* as are needed: exactly k.
#pragma once

#include "CudaDevice.h"
#include "KMaxKernels.cuh"

#include "jobs/Backend.h"
#include "jobs/JobControl.h"
#include "util/Errors.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace glint::cuda::kmaxdetail {

// Device buffers kept between runs (cudaMalloc costs more than a small search), grown on demand.
class Arena {
public:
    void* get(const std::string& name, std::size_t bytes) {
        Buffer& b = buffers_[name];
        if (b.bytes < bytes) {
            if (b.ptr) GLINT_CUDA_CHECK(cudaFree(b.ptr));
            b = {};
            GLINT_CUDA_CHECK(cudaMalloc(&b.ptr, std::max<std::size_t>(bytes, 256)));
            b.bytes = std::max<std::size_t>(bytes, 256);
        }
        return b.ptr;
    }
    template <class T>
    T* get(const std::string& name, std::size_t count) {
        return static_cast<T*>(get(name, count * sizeof(T)));
    }
    std::size_t held() const {
        std::size_t n = 0;
        for (const auto& [name, b] : buffers_) n += b.bytes;
        return n;
    }

private:
    struct Buffer {
        void* ptr = nullptr;
        std::size_t bytes = 0;
    };
    std::map<std::string, Buffer> buffers_;
};

// Named steps timed by CUDA events on the default stream; read once, after the last synchronisation.
class StepEvents {
public:
    StepEvents() { mark(""); }
    ~StepEvents() {
        for (auto& [name, e] : marks_) cudaEventDestroy(e);
    }
    // Ends the step `name` here (it began at the previous mark).
    void mark(const std::string& name) {
        cudaEvent_t e;
        GLINT_CUDA_CHECK(cudaEventCreate(&e));
        GLINT_CUDA_CHECK(cudaEventRecord(e));
        marks_.emplace_back(name, e);
    }
    void report(JobControl& job) {
        GLINT_CUDA_CHECK(cudaEventSynchronize(marks_.back().second));
        for (std::size_t i = 1; i < marks_.size(); ++i) {
            float ms = 0.0f;
            GLINT_CUDA_CHECK(cudaEventElapsedTime(&ms, marks_[i - 1].second, marks_[i].second));
            job.timing().add(marks_[i].first, ms);
        }
    }

private:
    std::vector<std::pair<std::string, cudaEvent_t>> marks_;
};

template <class V>
struct PairFound {
    int start;
    int end;
    V value;
};

inline int gridFor(long long items, int threads) {
    const long long blocks = (items + threads - 1) / threads;
    return static_cast<int>(std::clamp<long long>(blocks, 1, 16LL * std::max(1, cudaDevice().multiprocessors)));
}

template <class V>
V valueOfKey(u64 key) {
    if constexpr (std::is_floating_point_v<V>) {
        const u64 bits = (key & 0x8000000000000000ull) ? (key & ~0x8000000000000000ull) : ~key;
        double v;
        std::memcpy(&v, &bits, sizeof(v));
        return v;
    } else {
        return static_cast<V>(static_cast<long long>(key ^ 0x8000000000000000ull));
    }
}

template <class V>
class Engine {
public:
    Engine(Arena& arena, JobControl& job, StepEvents& steps) : arena_(arena), job_(job), steps_(steps) {}

    // The k largest pair sums of s (arrays on the device), largest first (ties in any order).
    std::vector<PairFound<V>> topK(const Seq& s, std::size_t k) {
        buildTree(s);
        steps_.mark("tree");
        st_ = arena_.get<State>("kmax state", 1);
        ends_ = arena_.get<int>("kmax ends", static_cast<std::size_t>(s.L) + 1);
        const int grid = gridFor(static_cast<long long>(s.L) + 1, 256);
        initStateKernel<<<1, 256>>>(st_, k, kCap);
        const EndItems<V> items{s};
        keyMaxKernel<<<grid, 256>>>(items, st_);
        keyHistogramKernel<<<grid, 256>>>(items, st_);
        chooseFirstKernel<<<1, 256>>>(st_);
        compactKernel<<<grid, 256>>>(items, st_, ends_);
        GLINT_CUDA_CHECK_LAUNCH();
        steps_.mark("threshold");
        // Two counting passes resolve the usual cases; the state is read once after them.
        for (int i = 0; i < 2; ++i) {
            countPassKernel<V><<<passGrid(), kPassThreads>>>(s, tree_, ends_, st_);
            chooseKernel<<<1, 256>>>(st_);
        }
        GLINT_CUDA_CHECK_LAUNCH();
        readHeader();
        for (int round = 0; !h_.resolved; ++round) {
            job_.throwIfCancelled();
            if (round > 400) throw std::runtime_error("K-MSP (CUDA): the threshold search does not converge");
            if (!h_.failed) {
                countPassKernel<V><<<passGrid(), kPassThreads>>>(s, tree_, ends_, st_);
                chooseKernel<<<1, 256>>>(st_);
                GLINT_CUDA_CHECK_LAUNCH();
                readHeader();
            } else {
                narrowOnHost(s);
            }
        }
        steps_.mark("count");
        return collect(s, k);
    }

private:
    static constexpr u64 kCap = 1ull << 28; // pairs a counting pass may visit before it stops

    int passGrid() const { return 2 * std::max(1, cudaDevice().multiprocessors); }

    void buildTree(const Seq& s) {
        tree_.level[0] = static_cast<const V*>(s.p);
        tree_.size[0] = s.L;
        int l = 0;
        while (tree_.size[l] > 32) {
            const int n = (tree_.size[l] + 31) / 32;
            V* out = arena_.get<V>("kmax tree " + std::to_string(l + 1), static_cast<std::size_t>(n));
            treeLevelKernel<V><<<gridFor(static_cast<long long>(n) * 32, 256), 256>>>(tree_.level[l], tree_.size[l], out, n);
            GLINT_CUDA_CHECK_LAUNCH();
            ++l;
            tree_.level[l] = out;
            tree_.size[l] = n;
        }
        tree_.top = l;
    }

    void readHeader() { GLINT_CUDA_CHECK(cudaMemcpy(&h_, st_, offsetof(State, hist), cudaMemcpyDeviceToHost)); }
    void readAll() { GLINT_CUDA_CHECK(cudaMemcpy(&h_, st_, sizeof(State), cudaMemcpyDeviceToHost)); }

    void runPass(u64 lo, u64 hi, u64 below, const Seq& s) {
        setPassKernel<<<1, 256>>>(st_, lo, hi, below);
        countPassKernel<V><<<passGrid(), kPassThreads>>>(s, tree_, ends_, st_);
        GLINT_CUDA_CHECK_LAUNCH();
        readAll();
    }

    // After a pass that stopped at the cap. Invariants: at least k pairs have d <= hi, and exactly `below`
    // (< k) pairs have d < lo. A stopped pass's partial counts are real pairs, so the bucket where they
    // reach k gives a smaller valid hi; when that does not help, the next probe halves [lo, hi]. A
    // complete pass over [lo, probe] either holds the k-th (its histogram narrows the bracket) or moves
    // lo above probe. One value left: collect at it, however many pairs tie there.
    void narrowOnHost(const Seq& s) {
        readAll();
        u64 lo = h_.dlo, hi = h_.dhi, below = h_.below;
        for (int guard = 0; guard < 400; ++guard) {
            job_.throwIfCancelled();
            const u64 probe = h_.dhi;
            const int bins = h_.mode == 0 ? kmax::kLogBuckets : kBins;
            u64 cum = h_.passBelow, before = cum;
            int found = -1;
            for (int b = 0; b < bins && found < 0; ++b) {
                before = cum;
                cum += h_.hist[b];
                if (cum >= h_.k) found = b;
            }
            u64 blo = 0, bhi = 0;
            if (found >= 0) {
                blo = h_.mode == 0 ? kmax::logBucketLow(found) : h_.dlo + (static_cast<u64>(found) << h_.shift);
                bhi = h_.mode == 0 ? kmax::logBucketHigh(found) : blo + ((1ull << h_.shift) - 1);
                blo = std::max(blo, h_.dlo);
                bhi = std::min(bhi, probe);
            }
            if (h_.abort) {
                hi = std::min(hi, found >= 0 ? bhi : probe);
                if (lo == hi) {
                    setResolved(lo, below, 1);
                    return;
                }
                runPass(lo, hi < probe ? hi : lo + (hi - lo) / 2, below, s);
            } else if (found >= 0) {
                if (blo == bhi) {
                    setResolved(blo, before, 1);
                    return;
                }
                lo = blo;
                hi = bhi;
                below = before;
                runPass(lo, hi, below, s);
            } else {
                // Fewer than k pairs up to probe: the k-th lies above it.
                if (probe == ~0ull) {
                    setResolved(0, 0, 2);
                    return;
                }
                if (probe >= hi) throw std::runtime_error("K-MSP (CUDA): lost the k-th sum");
                lo = probe + 1;
                below = cum;
                runPass(lo, hi, below, s);
            }
        }
        throw std::runtime_error("K-MSP (CUDA): the bracket search does not converge");
    }

    void setResolved(u64 dstar, u64 nLess, int kind) {
        h_.resolved = kind;
        h_.dlo = h_.dhi = dstar;
        h_.below = nLess;
    }

    std::vector<PairFound<V>> collect(const Seq& s, std::size_t k) {
        Found* out = arena_.get<Found>("kmax found", k);
        CollectArgs a{};
        a.all = h_.resolved == 2;
        a.dstar = a.all ? ~0ull : h_.dlo;
        a.nLess = a.all ? 0 : h_.below;
        a.eqLimit = a.all ? 0 : k - h_.below;
        a.capacity = k;
        prepareCollectKernel<<<1, 1>>>(st_);
        collectKernel<V><<<passGrid(), kPassThreads>>>(s, tree_, ends_, st_, out, a);
        GLINT_CUDA_CHECK_LAUNCH();
        u64 counts[2];
        GLINT_CUDA_CHECK(cudaMemcpy(counts, &st_->lessCount, sizeof(counts), cudaMemcpyDeviceToHost));
        steps_.mark("collect");
        const u64 n = a.all ? counts[0] : a.nLess + std::min(counts[1], a.eqLimit);
        if (n > k || (!a.all && (counts[0] != a.nLess || n != k)))
            throw std::runtime_error("K-MSP (CUDA): collected " + std::to_string(counts[0]) + " + " +
                                     std::to_string(counts[1]) + " pairs, expected " + std::to_string(a.nLess) +
                                     " below the k-th and " + std::to_string(k) + " in all");
        std::vector<Found> found(n);
        if (n) GLINT_CUDA_CHECK(cudaMemcpy(found.data(), out, n * sizeof(Found), cudaMemcpyDeviceToHost));
        steps_.mark("download");
        std::vector<PairFound<V>> pairs(n);
        for (std::size_t i = 0; i < n; ++i)
            pairs[i] = {static_cast<int>(found[i].pair >> 32), static_cast<int>(found[i].pair & 0xffffffffu),
                        valueOfKey<V>(h_.maxKey - found[i].d)};
        std::sort(pairs.begin(), pairs.end(), [](const PairFound<V>& x, const PairFound<V>& y) { return x.value > y.value; });
        (void)s;
        return pairs;
    }

    Arena& arena_;
    JobControl& job_;
    StepEvents& steps_;
    Tree<V> tree_{};
    State* st_ = nullptr;
    int* ends_ = nullptr;
    State h_{}; // host copy
};

} // namespace glint::cuda::kmaxdetail
