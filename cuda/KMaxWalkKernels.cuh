// The K-MSP engine's walking kernels (KMaxKernels.cuh): one warp an end walks the min-tree to exactly the
// starts within a distance, counting their pairs into the histogram of a pass or collecting them.
#pragma once

#include "cuda/KMaxDeviceTypes.cuh"

#include "core/algo/kmax/KMaxKeys.h"

#include <cuda_runtime.h>

#include <climits>

namespace glint::cuda::kmax {
// Unnamed: the kernels are defined in this header, once in every .cu file that includes it.
namespace {

// ---- the walk: one warp enumerates the starts of end j whose d <= dmax ----------------------------

// Calls leaf(i, d, ok) once per 32 starts considered (all lanes; ok marks the lanes whose start i has
// d <= dmax); leaf returns true (warp-uniform) to stop. dmax may shrink during the walk. Greedy: the
// children are opened smallest distance first, so that the first pairs met are among the end's best.
template <bool Greedy, class V, class Leaf>
__device__ void walkEnd(const Tree<V>& t, V pj, int lo, int hi, u64 maxKey, u64& dmax, Leaf& leaf) {
    const int lane = threadIdx.x & 31;
    unsigned mask[kMaxLevels + 1];
    int node[kMaxLevels + 1];
    u64 dist[Greedy ? kMaxLevels + 1 : 1]; // this lane's child distance, per level
    bool stop = false;
    // Children of node n at level lvl (they are at lvl - 1): the ballot of those worth opening.
    auto children = [&](int lvl, int n, u64& dOut) -> unsigned {
        const int cl = lvl - 1, s = 5 * cl;
        const long long c = static_cast<long long>(n) * 32 + lane;
        bool in = c < t.size[cl] && (c << s) <= hi && ((c + 1) << s) - 1 >= lo;
        u64 d = ~0ull;
        if (in) {
            d = keyDistance(maxKey, orderedKey(pairSum(pj, t.level[cl][c])));
            in = d <= dmax;
        }
        dOut = d;
        if (cl == 0) {
            stop = leaf(static_cast<int>(c), d, in);
            return 0u;
        }
        return __ballot_sync(0xffffffffu, in);
    };
    int lvl = t.top + 1;
    node[lvl] = 0;
    mask[lvl] = children(lvl, 0, dist[Greedy ? lvl : 0]);
    while (!stop) {
        if (mask[lvl] == 0) {
            if (lvl == t.top + 1) break;
            ++lvl;
            continue;
        }
        int c;
        if constexpr (Greedy) {
            u64 best = (mask[lvl] >> lane) & 1u ? dist[lvl] : ~0ull;
            for (int o = 16; o > 0; o >>= 1) best = min(best, __shfl_xor_sync(0xffffffffu, best, o));
            c = __ffs(__ballot_sync(0xffffffffu, ((mask[lvl] >> lane) & 1u) && dist[lvl] == best)) - 1;
            mask[lvl] &= ~(1u << c);
        } else {
            c = __ffs(mask[lvl]) - 1;
            mask[lvl] &= mask[lvl] - 1;
        }
        const int child = node[lvl] * 32 + c; // a node at level lvl - 1
        u64 d;
        const unsigned m = children(lvl - 1, child, d);
        if (lvl - 1 > 1) {
            --lvl;
            node[lvl] = child;
            mask[lvl] = m;
            if constexpr (Greedy) dist[lvl] = d;
        }
    }
}

// The next end of the list for this warp (-1 when none is left or the pass stopped). A warp's first end
// is its own index, so that the many warps of a pass over a short list leave without an atomic.
__device__ __forceinline__ int claimEnd(State* st, const int* ends, bool first) {
    int e = 0;
    if ((threadIdx.x & 31) == 0) {
        const int warps = static_cast<int>(gridDim.x * (blockDim.x >> 5));
        if (*static_cast<volatile int*>(&st->abort)) e = INT_MAX;
        else if (first) e = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) >> 5);
        else e = warps + atomicAdd(&st->nextEnd, 1);
    }
    e = __shfl_sync(0xffffffffu, e, 0);
    return e < st->nEnds ? ends[e] : -1;
}

struct CountLeaf {
    State* st;
    unsigned* bins;
    u64 dlo, cap;
    int mode, shift;
    u64 endCap;         // a sampling walk stops after this many pairs of its end
    u64 below = 0;      // this lane
    u64 counted = 0;    // this warp (every lane holds it)
    u64 flushed = 0;
    u64 endStart = 0;   // counted when the end began
    __device__ bool flush() {
        u64 total = 0;
        if (counted == flushed) return false;
        if ((threadIdx.x & 31) == 0) {
            total = atomicAdd(&st->passCount, counted - flushed) + (counted - flushed);
            if (total > cap) st->abort = 1;
            else if (*static_cast<volatile int*>(&st->abort)) total = ~0ull;
        }
        flushed = counted;
        return __shfl_sync(0xffffffffu, total, 0) > cap;
    }
    __device__ bool operator()(int, u64 d, bool ok) {
        // Lanes that fall in the same bin add once: the pairs of one end crowd a few bins.
        const int bin = !ok || d < dlo ? -1 : mode == 0 ? logBucket(d) : static_cast<int>((d - dlo) >> shift);
        below += ok && d < dlo;
        const unsigned peers = __match_any_sync(0xffffffffu, bin);
        if (bin >= 0 && (threadIdx.x & 31) == __ffs(peers) - 1) atomicAdd(&bins[bin], static_cast<unsigned>(__popc(peers)));
        counted += __popc(__ballot_sync(0xffffffffu, ok));
        if (counted - endStart >= endCap) return true;
        return counted - flushed >= 4096 && flush();
    }
};

// A counting pass: every pair of the listed ends with d <= dhi, histogrammed (d >= dlo) or counted as
// below (d < dlo). Sample: each end's walk is greedy and stops after endCap pairs; the pairs counted are
// still real and distinct, so the bucket where they reach k bounds the k-th from above.
template <bool Sample, class V>
__global__ void __launch_bounds__(kPassThreads) countPassKernel(Seq s, Tree<V> t, const int* ends, State* st, u64 endCap) {
    pdlEnter();
    __shared__ unsigned bins[kBins];
    if (st->resolved || st->failed) return;
    for (int i = threadIdx.x; i < kBins; i += blockDim.x) bins[i] = 0;
    __syncthreads();
    const V* p = static_cast<const V*>(s.p);
    CountLeaf leaf{st, bins, st->dlo, st->cap, st->mode, st->shift, Sample ? endCap : ~0ull};
    const u64 maxKey = st->maxKey, dhi = st->dhi;
    for (bool first = true;; first = false) {
        const int j = claimEnd(st, ends, first);
        if (j < 0) break;
        V b;
        endOf<V>(s, j, b);
        if (keyDistance(maxKey, orderedKey(b)) > dhi) continue;
        u64 dmax = dhi;
        leaf.endStart = leaf.counted;
        walkEnd<Sample>(t, p[j], s.lo ? s.lo[j] : 0, j - 1, maxKey, dmax, leaf);
        if (*static_cast<volatile int*>(&st->abort)) break;
    }
    leaf.flush();
    u64 below = leaf.below;
    for (int o = 16; o > 0; o >>= 1) below += __shfl_xor_sync(0xffffffffu, below, o);
    if ((threadIdx.x & 31) == 0 && below) atomicAdd(&st->passBelow, below);
    __syncthreads();
    for (int i = threadIdx.x; i < kBins; i += blockDim.x)
        if (bins[i]) atomicAdd(&st->hist[i], static_cast<u64>(bins[i]));
}

// ---- collecting: every pair with d < dstar, and up to eqLimit pairs with d == dstar -------------------

struct CollectLeaf {
    State* st;
    Found* out;
    u64 dstar, nLess, eqLimit, capacity;
    bool all;
    u64& dmax;
    int j;
    int steps = 0;
    __device__ bool operator()(int i, u64 d, bool ok) {
        const int lane = threadIdx.x & 31;
        const bool less = ok && (all || d < dstar), eq = ok && !less;
        const unsigned lm = __ballot_sync(0xffffffffu, less), em = __ballot_sync(0xffffffffu, eq);
        const u64 pair = static_cast<u64>(i) << 32 | static_cast<unsigned>(j);
        if (lm) {
            u64 base = 0;
            if (lane == 0) base = atomicAdd(&st->lessCount, static_cast<u64>(__popc(lm)));
            base = __shfl_sync(0xffffffffu, base, 0) + __popc(lm & ((1u << lane) - 1));
            if (less && base < capacity) out[base] = {pair, d};
        }
        bool full = false;
        if (em) {
            u64 base = 0;
            if (lane == 0) {
                base = atomicAdd(&st->eqCount, static_cast<u64>(__popc(em)));
                if (base + __popc(em) >= eqLimit) st->eqFull = 1;
            }
            base = __shfl_sync(0xffffffffu, base, 0);
            full = base + __popc(em) >= eqLimit;
            base += __popc(em & ((1u << lane) - 1));
            if (eq && base < eqLimit && nLess + base < capacity) out[nLess + base] = {pair, d};
        }
        if (!all && (++steps & 15) == 0) full = full || *static_cast<volatile int*>(&st->eqFull) != 0;
        if (full) {
            // Only the pairs below dstar are still wanted.
            if (dstar == 0) return true;
            dmax = dstar - 1;
        }
        return false;
    }
};

template <class V>
__global__ void __launch_bounds__(kPassThreads) collectKernel(Seq s, Tree<V> t, const int* ends, State* st, Found* out) {
    pdlEnter();
    if (st->collectSkip) return;
    const V* p = static_cast<const V*>(s.p);
    const u64 maxKey = st->maxKey, dstar = st->dstar, nLess = st->nLess, eqLimit = st->eqLimit, capacity = st->capacity;
    const bool all = st->collectAll;
    for (bool first = true;; first = false) {
        const int j = claimEnd(st, ends, first);
        if (j < 0) break;
        V b;
        endOf<V>(s, j, b);
        u64 dmax = dstar;
        if (!all && *static_cast<volatile int*>(&st->eqFull)) {
            if (dstar == 0) continue;
            dmax = dstar - 1;
        }
        if (keyDistance(maxKey, orderedKey(b)) > dmax) continue;
        CollectLeaf leaf{st, out, dstar, nLess, eqLimit, capacity, all, dmax, j};
        walkEnd<false>(t, p[j], s.lo ? s.lo[j] : 0, j - 1, maxKey, dmax, leaf);
    }
}

} // namespace
} // namespace glint::cuda::kmax
