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

#include "cuda/CudaToolkit.cuh"
#include "cuda/KMaxKernels.cuh"

#include "core/jobs/Backend.h"
#include "core/jobs/JobControl.h"
#include "core/util/Errors.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace glint::cuda::kmax {

// A kernel on the stream as a programmatic dependent launch where the device has it (sm_90): its launch
// overlaps the end of the kernel before it (see pdlEnter, which every kernel launched so calls first).
template <class... Params, class... Args>
void launchOn(cudaStream_t stream, void (*kernel)(Params...), int grid, int block, Args&&... args) {
    cudaLaunchAttribute attr[1] = {};
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(static_cast<unsigned>(grid));
    config.blockDim = dim3(static_cast<unsigned>(block));
    config.stream = stream;
    config.attrs = attr;
    config.numAttrs = cudaDevice().computeMajor >= 9 ? 1 : 0;
    GLINT_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...));
}

template <class V>
struct PairFound {
    int start;
    int end;
    V value;
};

// Blocks for a grid-stride kernel over `items`: up to perSM a multiprocessor (fewer for kernels that end
// in one atomic per block).
inline int gridFor(long long items, int threads, int perSM = 16) {
    const long long blocks = (items + threads - 1) / threads;
    return static_cast<int>(std::clamp<long long>(blocks, 1, static_cast<long long>(perSM) * std::max(1, cudaDevice().multiprocessors)));
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
    // ws: the device buffers of the search (kept between searches, grown on demand).
    Engine(Workspace& ws, JobControl& job, cudaStream_t stream = 0) : ws_(ws), job_(job), stream_(stream) {}

    // Queues the whole usual search on the stream, with no synchronisation (so that it can be captured
    // in a CUDA graph): the min-tree, the end threshold D0, a sampling pass and two counting passes, the
    // collecting pass when they resolved the k-th, and the copies of the state header and of the first
    // `preview` pairs into host memory. steps, when given, marks the stages.
    void enqueue(const Seq& s, std::size_t k, State* hostHeader, Found* hostFound, std::size_t preview, EventTimer* steps) {
        layout(s, k);
        // The levels a grid each, the top one (<= 32 values) and the state's reset in one block.
        int l = 1;
        for (; l < tree_.top; ++l)
            launch(treeLevelKernel<V>, gridFor(static_cast<long long>(tree_.size[l]) * 32, 256), 256, tree_.level[l - 1],
                   tree_.size[l - 1], const_cast<V*>(tree_.level[l]), tree_.size[l]);
        launch(treeTopInitKernel<V>, 1, 1024, tree_, l, st_, k, kCap);
        if (steps) steps->mark("tree");
        // The maximum and the histogram end in atomics per block: one large block a multiprocessor.
        const int grid = gridFor(static_cast<long long>(s.L) + 1, 256), few = gridFor(static_cast<long long>(s.L) + 1, 1024, 1);
        const EndItems<V> items{s};
        launch(keyMaxKernel<EndItems<V>>, few, 1024, items, st_);
        launch(keyHistogramKernel<EndItems<V>>, few, 1024, items, st_);
        launch(chooseFirstKernel, 1, kChooseThreads, st_);
        launch(compactKernel<EndItems<V>>, grid, 256, items, st_, ends_);
        if (steps) steps->mark("threshold");
        launch(countPassKernel<true, V>, passGrid(), kPassThreads, s, tree_, ends_, st_, kSampleCap);
        launch(chooseSampleKernel, 1, kChooseThreads, st_);
        launch(countPassKernel<false, V>, passGrid(), kPassThreads, s, tree_, ends_, st_, 0);
        launch(chooseKernel, 1, kChooseThreads, st_);
        launch(countPassKernel<false, V>, passGrid(), kPassThreads, s, tree_, ends_, st_, 0);
        launch(chooseThenPrepareKernel, 1, kChooseThreads, st_, k);
        if (steps) steps->mark("count");
        launch(collectKernel<V>, passGrid(), kPassThreads, s, tree_, ends_, st_, out_);
        if (steps) steps->mark("collect");
        GLINT_CUDA_CHECK_LAUNCH();
        GLINT_CUDA_CHECK(cudaMemcpyAsync(hostHeader, st_, offsetof(State, hist), cudaMemcpyDeviceToHost, stream_));
        if (preview)
            GLINT_CUDA_CHECK(cudaMemcpyAsync(hostFound, out_, std::min(k, preview) * sizeof(Found), cudaMemcpyDeviceToHost, stream_));
        if (steps) steps->mark("download");
    }

    // After the queued work has completed: the k largest pair sums, largest first (ties in any order).
    // When the queued passes did not resolve the k-th sum, the search goes on here, step by step.
    std::vector<PairFound<V>> finish(const Seq& s, std::size_t k, const State* hostHeader, const Found* hostFound,
                                     std::size_t preview) {
        layout(s, k);
        std::memcpy(&h_, hostHeader, offsetof(State, hist));
        if (!h_.resolved || h_.failed) {
            for (int round = 0; !h_.resolved; ++round) {
                job_.throwIfCancelled();
                if (round > 400) throw std::runtime_error("K-MSP (CUDA): the threshold search does not converge");
                if (!h_.failed) {
                    launch(countPassKernel<false, V>, passGrid(), kPassThreads, s, tree_, ends_, st_, 0);
                    launch(chooseKernel, 1, kChooseThreads, st_);
                    GLINT_CUDA_CHECK_LAUNCH();
                    readHeader();
                } else {
                    narrowOnHost(s);
                    launch(setResolvedKernel, 1, 1, st_, h_.dlo, h_.below, h_.resolved);
                }
            }
            launch(prepareCollectKernel, 1, 1, st_, k);
            launch(collectKernel<V>, passGrid(), kPassThreads, s, tree_, ends_, st_, out_);
            GLINT_CUDA_CHECK_LAUNCH();
            readHeader();
            preview = 0;
        }
        const u64 n = h_.collectAll ? h_.lessCount : h_.nLess + std::min(h_.eqCount, h_.eqLimit);
        if (h_.collectSkip || n > k || (!h_.collectAll && (h_.lessCount != h_.nLess || n != k)))
            throw std::runtime_error("K-MSP (CUDA): collected " + std::to_string(h_.lessCount) + " + " +
                                     std::to_string(h_.eqCount) + " pairs, expected " + std::to_string(h_.nLess) +
                                     " below the k-th and " + std::to_string(k) + " in all");
        std::vector<Found> found(n);
        const std::size_t have = std::min<std::size_t>(n, preview);
        std::copy(hostFound, hostFound + have, found.begin());
        if (n > have) {
            GLINT_CUDA_CHECK(cudaMemcpyAsync(found.data() + have, out_ + have, (n - have) * sizeof(Found),
                                             cudaMemcpyDeviceToHost, stream_));
            GLINT_CUDA_CHECK(cudaStreamSynchronize(stream_));
        }
        sortByDistance(found);
        std::vector<PairFound<V>> pairs(n);
        for (std::size_t i = 0; i < n; ++i)
            pairs[i] = {static_cast<int>(found[i].pair >> 32), static_cast<int>(found[i].pair & 0xffffffffu),
                        valueOfKey<V>(h_.maxKey - found[i].d)};
        return pairs;
    }

    // enqueue, wait, finish.
    std::vector<PairFound<V>> topK(const Seq& s, std::size_t k, EventTimer* steps) {
        State header;
        const std::size_t preview = std::min<std::size_t>(k, 4096);
        std::vector<Found> found(preview);
        enqueue(s, k, &header, found.data(), preview, steps);
        GLINT_CUDA_CHECK(cudaStreamSynchronize(stream_));
        return finish(s, k, &header, found.data(), preview);
    }

private:
    static constexpr u64 kCap = 1ull << 28;  // pairs a counting pass may visit before it stops
    static constexpr u64 kSampleCap = 64;    // pairs a sampling walk takes from one end

    int passGrid() const { return 2 * std::max(1, cudaDevice().multiprocessors); }

    template <class... Params, class... Args>
    void launch(void (*kernel)(Params...), int grid, int block, Args&&... args) {
        launchOn(stream_, kernel, grid, block, std::forward<Args>(args)...);
    }

    // Smallest distance (largest sum) first: a radix sort over the bits the distances use.
    static void sortByDistance(std::vector<Found>& f) {
        if (f.size() < 256) {
            std::sort(f.begin(), f.end(), [](const Found& a, const Found& b) { return a.d < b.d; });
            return;
        }
        u64 top = 0;
        for (const Found& x : f) top = std::max(top, x.d);
        std::vector<Found> tmp(f.size());
        for (int shift = 0; shift < 64 && (top >> shift) != 0; shift += 11) {
            std::vector<std::size_t> count(2049, 0);
            for (const Found& x : f) ++count[((x.d >> shift) & 2047) + 1];
            for (int i = 0; i < 2048; ++i) count[i + 1] += count[i];
            for (const Found& x : f) tmp[count[(x.d >> shift) & 2047]++] = x;
            f.swap(tmp);
        }
    }

    // The device buffers of a search of s for k (the same ones every time: the workspace keeps them).
    void layout(const Seq& s, std::size_t k) {
        tree_ = {};
        tree_.level[0] = static_cast<const V*>(s.p);
        tree_.size[0] = s.L;
        int l = 0;
        while (tree_.size[l] > 32) {
            const int n = (tree_.size[l] + 31) / 32;
            tree_.level[l + 1] = ws_.get<V>("kmax tree " + std::to_string(l + 1), static_cast<std::size_t>(n));
            tree_.size[++l] = n;
        }
        tree_.top = l;
        st_ = ws_.get<State>("kmax state", 1);
        ends_ = ws_.get<int>("kmax ends", static_cast<std::size_t>(s.L) + 1);
        out_ = ws_.get<Found>("kmax found", std::max<std::size_t>(k, 1));
    }

    void readHeader() {
        GLINT_CUDA_CHECK(cudaMemcpyAsync(&h_, st_, offsetof(State, hist), cudaMemcpyDeviceToHost, stream_));
        GLINT_CUDA_CHECK(cudaStreamSynchronize(stream_));
    }
    void readAll() {
        GLINT_CUDA_CHECK(cudaMemcpyAsync(&h_, st_, sizeof(State), cudaMemcpyDeviceToHost, stream_));
        GLINT_CUDA_CHECK(cudaStreamSynchronize(stream_));
    }

    void runPass(u64 lo, u64 hi, u64 below, const Seq& s) {
        launch(setPassKernel, 1, 256, st_, lo, hi, below);
        launch(countPassKernel<false, V>, passGrid(), kPassThreads, s, tree_, ends_, st_, 0);
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
            const int bins = h_.mode == 0 ? glint::kmax::kLogBuckets : kBins;
            u64 cum = h_.passBelow, before = cum;
            int found = -1;
            for (int b = 0; b < bins && found < 0; ++b) {
                before = cum;
                cum += h_.hist[b];
                if (cum >= h_.k) found = b;
            }
            u64 blo = 0, bhi = 0;
            if (found >= 0) {
                blo = h_.mode == 0 ? glint::kmax::logBucketLow(found) : h_.dlo + (static_cast<u64>(found) << h_.shift);
                bhi = h_.mode == 0 ? glint::kmax::logBucketHigh(found) : blo + ((1ull << h_.shift) - 1);
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

    Workspace& ws_;
    JobControl& job_;
    cudaStream_t stream_;
    Tree<V> tree_{};
    State* st_ = nullptr;
    int* ends_ = nullptr;
    Found* out_ = nullptr;
    State h_{}; // host copy
};

} // namespace glint::cuda::kmax
