// Device kernels of the CUDA K-MSP engine. The input is a prefix array p[0..L] with, for each end j, the
// first start lo[j] it may pair with and m[j] = min p[lo[j]..j-1]; a pair (i, j), lo[j] <= i < j, is a
// segment of sum p[j] - p[i]. Sums are ranked by their distance d below the largest one (in order-
// preserving key units), and a min-tree of fan-out 32 over p lets one warp per end walk exactly the
// starts whose d is within a bound: counting them into a histogram of d, or collecting them.
#pragma once

#include "core/algo/kmax/KMaxKeys.h"

#include <cuda_runtime.h>

#include <climits>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace glint::cuda::kmax {
// Unnamed: the kernels are defined in this header, once in every .cu file that includes it.
namespace {

using u64 = unsigned long long;
using glint::kmax::keyDistance;
using glint::kmax::logBucket;
using glint::kmax::orderedKey;

// Programmatic dependent launch (sm_90): a kernel launched with it may start while the one before it
// finishes; it waits here, before touching memory, until that one has completed and its writes are
// visible, then lets the next kernel start launching. Elsewhere, or launched plainly, a no-op.
__device__ __forceinline__ void pdlEnter() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

constexpr int kMaxLevels = 8;      // 32^7 > 2^31 starts
constexpr int kBins = 2048;        // histogram bins (log mode uses glint::kmax::kLogBuckets of them)
constexpr int kPassThreads = 512;  // threads of a walking block (16 warps)

template <class V>
__device__ __forceinline__ V pairSum(V hi, V lo) {
    if constexpr (std::is_floating_point_v<V>) return (hi - lo) + 0.0; // -0 becomes +0
    else return hi - lo;
}
template <class V>
__host__ __device__ constexpr V largestValue() {
    if constexpr (std::is_floating_point_v<V>) return std::numeric_limits<V>::infinity();
    else return std::numeric_limits<V>::max();
}

// The min-tree: level[0] = p (the starts 0..size[0]-1), level[l][c] = min of level[l-1][32c .. 32c+31];
// size[top] <= 32.
template <class V>
struct Tree {
    const V* level[kMaxLevels];
    int size[kMaxLevels];
    int top;
};

struct Seq {
    const void* p;  // V[L + 1]
    const void* m;  // V[L + 1], m[j] for the ends
    const int* lo;  // int[L + 1], or null: every end j >= 1 pairs with the starts 0..j-1
    int L;
};

// Device-side state of one search. The choose kernel turns a pass's histogram into the next bracket.
struct State {
    u64 maxKey;     // key of the largest best-end sum (= the largest sum)
    u64 dlo, dhi;   // the bracket of this pass: count d <= dhi, histogram d in [dlo, dhi]
    u64 below;      // pairs with d < dlo (exact)
    u64 k;
    u64 passBelow;  // this pass: pairs seen with d < dlo
    u64 passCount;  // this pass: pairs counted (d <= dhi)
    u64 cap;        // a pass stops (abort) beyond this many pairs
    u64 lessCount, eqCount; // collect pass
    int mode;       // 0: log bins of d; 1: linear bins (d - dlo) >> shift
    int shift;
    int resolved;   // 1: the k-th smallest d is dlo (= dhi), `below` pairs lie under it; 2: all pairs (fewer than k)
    int failed;     // a pass stopped at the cap: the host takes over
    int abort;
    int eqFull;
    int nEnds;      // ends in the list
    int nextEnd;    // work counter of the walking kernels
    u64 validEnds;  // ends with at least one start
    // The collecting pass (prepareCollectKernel): every pair with d < dstar, and up to eqLimit at dstar.
    u64 dstar, nLess, eqLimit, capacity;
    int collectAll;  // every pair (fewer than k)
    int collectSkip; // unresolved: the collecting pass does nothing (the host takes over)
    u64 hist[kBins];
};

template <class V>
__device__ __forceinline__ bool endOf(const Seq& s, int j, V& best) {
    const int lo = s.lo ? s.lo[j] : 0;
    if (j < 1 || lo > j - 1) return false;
    best = pairSum(static_cast<const V*>(s.p)[j], static_cast<const V*>(s.m)[j]);
    return true;
}

// One warp per output (grid-stride): out[w] = min of in[32w .. 32w+31].
template <class V>
__global__ void treeLevelKernel(const V* in, int nIn, V* out, int nOut) {
    pdlEnter();
    const int lane = threadIdx.x & 31;
    const long long warps = (static_cast<long long>(gridDim.x) * blockDim.x) >> 5;
    for (long long w = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5; w < nOut; w += warps) {
        const long long i = w * 32 + lane;
        V v = i < nIn ? in[i] : largestValue<V>();
        for (int o = 16; o > 0; o >>= 1) {
            const V u = __shfl_xor_sync(0xffffffffu, v, o);
            v = u < v ? u : v;
        }
        if (lane == 0) out[w] = v;
    }
}

// ---- threshold over items with keys: their largest key, a log histogram of their distance below it, ---
// ---- and the list of those within a distance. Ends of the sequence are such items; so are strips. ------

// The ends of a sequence: item j has key(b_j), b_j its best sum, when it has a start (code 2).
template <class V>
struct EndItems {
    Seq s;
    __host__ __device__ long long count() const { return static_cast<long long>(s.L) + 1; }
    __device__ int operator()(long long j, u64& low, u64& high) const {
        V b;
        if (!endOf<V>(s, static_cast<int>(j), b)) return 0;
        low = high = orderedKey(b);
        return 2;
    }
};

// Item codes: 0 = not an item; 1 = an item whose low key is no real sum (left out of the maximum and the
// histogram, still listed when its high key is within the distance); 2 = low key counts.
template <class Src>
__global__ void keyMaxKernel(Src src, State* st) {
    pdlEnter();
    u64 best = 0, valid = 0;
    for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < src.count();
         i += static_cast<long long>(gridDim.x) * blockDim.x) {
        u64 low, high;
        if (src(i, low, high) == 2) {
            best = max(best, low);
            ++valid;
        }
    }
    for (int o = 16; o > 0; o >>= 1) {
        best = max(best, __shfl_xor_sync(0xffffffffu, best, o));
        valid += __shfl_xor_sync(0xffffffffu, valid, o);
    }
    // One atomic per block: thousands on one address would queue up.
    __shared__ u64 blockBest[32], blockValid[32];
    const int warp = threadIdx.x >> 5, warps = (blockDim.x + 31) >> 5;
    if ((threadIdx.x & 31) == 0) {
        blockBest[warp] = best;
        blockValid[warp] = valid;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < warps; ++w) {
            best = max(best, blockBest[w]);
            valid += blockValid[w];
        }
        if (valid) {
            atomicMax(&st->maxKey, best);
            atomicAdd(&st->validEnds, valid);
        }
    }
}

template <class Src>
__global__ void keyHistogramKernel(Src src, State* st) {
    pdlEnter();
    __shared__ unsigned bins[glint::kmax::kLogBuckets];
    for (int i = threadIdx.x; i < glint::kmax::kLogBuckets; i += blockDim.x) bins[i] = 0;
    __syncthreads();
    const u64 top = st->maxKey;
    for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < src.count();
         i += static_cast<long long>(gridDim.x) * blockDim.x) {
        u64 low, high;
        if (src(i, low, high) == 2) atomicAdd(&bins[logBucket(keyDistance(top, low))], 1u);
    }
    __syncthreads();
    for (int i = threadIdx.x; i < glint::kmax::kLogBuckets; i += blockDim.x)
        if (bins[i]) atomicAdd(&st->hist[i], static_cast<u64>(bins[i]));
}

// Lists the items whose high key lies within st->dhi of the largest low key (every item when dhi is ~0).
template <class Src>
__global__ void compactKernel(Src src, State* st, int* list) {
    pdlEnter();
    const u64 top = st->maxKey, dmax = st->dhi;
    const int lane = threadIdx.x & 31;
    for (long long base = static_cast<long long>(blockIdx.x) * blockDim.x; base < src.count();
         base += static_cast<long long>(gridDim.x) * blockDim.x) {
        const long long i = base + threadIdx.x;
        u64 low = 0, high = 0;
        const bool take = i < src.count() && src(i, low, high) > 0 && (dmax == ~0ull || keyDistance(top, high) <= dmax);
        const unsigned mask = __ballot_sync(0xffffffffu, take);
        if (!mask) continue;
        int slot = 0;
        if (lane == 0) slot = atomicAdd(&st->nEnds, __popc(mask));
        slot = __shfl_sync(0xffffffffu, slot, 0) + __popc(mask & ((1u << lane) - 1));
        if (take) list[slot] = static_cast<int>(i);
    }
}

__device__ __forceinline__ int bitLength(u64 v) { return v ? 64 - __clzll(static_cast<long long>(v)) : 0; }

// One block of 1024 threads: the first of the n (<= 2048) bins at which base plus the running count
// reaches k (-1 when none does), and in *before the count under it. A scan, not a serial walk: a
// thread reading 2048 bins one after the other would wait on memory 2048 times.
constexpr int kChooseThreads = 1024;
__device__ int firstReaching(const u64* hist, int n, u64 base, u64 k, u64* before) {
    __shared__ u64 warpTotal[32];
    __shared__ int found;
    __shared__ u64 foundBefore;
    const int t = threadIdx.x, lane = t & 31, w = t >> 5;
    const u64 h0 = 2 * t < n ? hist[2 * t] : 0, h1 = 2 * t + 1 < n ? hist[2 * t + 1] : 0;
    u64 x = h0 + h1;
    for (int o = 1; o < 32; o <<= 1) {
        const u64 y = __shfl_up_sync(0xffffffffu, x, o);
        if (lane >= o) x += y;
    }
    if (lane == 31) warpTotal[w] = x;
    if (t == 0) found = -1;
    __syncthreads();
    if (w == 0) {
        u64 v = warpTotal[lane];
        for (int o = 1; o < 32; o <<= 1) {
            const u64 y = __shfl_up_sync(0xffffffffu, v, o);
            if (lane >= o) v += y;
        }
        warpTotal[lane] = v; // inclusive over warps
    }
    __syncthreads();
    const u64 under = base + (w > 0 ? warpTotal[w - 1] : 0) + x - (h0 + h1);
    if (under < k && under + h0 >= k) {
        found = 2 * t;
        foundBefore = under;
    } else if (under + h0 < k && under + h0 + h1 >= k) {
        found = 2 * t + 1;
        foundBefore = under + h0;
    }
    __syncthreads();
    *before = foundBefore;
    return found;
}

// Sets up a counting pass over [dlo, dhi] (log bins when the bracket starts at 0 and is wide).
__device__ void setPass(State* st, u64 dlo, u64 dhi) {
    st->dlo = dlo;
    st->dhi = dhi;
    const u64 width = dhi - dlo;
    st->mode = dlo == 0 && width >= kBins ? 0 : 1;
    st->shift = width < kBins ? 0 : bitLength(width) - 11;
    st->passBelow = 0;
    st->passCount = 0;
    st->abort = 0;
    st->nextEnd = 0;
}

__device__ void initState(State* st, u64 k, u64 cap) {
    for (int i = threadIdx.x; i < kBins; i += blockDim.x) st->hist[i] = 0;
    if (threadIdx.x == 0) {
        st->maxKey = 0;
        st->validEnds = 0;
        st->k = k;
        st->cap = cap;
        st->resolved = st->failed = st->abort = st->eqFull = 0;
        st->nEnds = st->nextEnd = 0;
        st->lessCount = st->eqCount = 0;
    }
}

__global__ void initStateKernel(State* st, u64 k, u64 cap) {
    pdlEnter();
    initState(st, k, cap);
}

// One block: the small top levels of the tree, from level `from` up (each waits for the one under it),
// then the state of a new search: one launch instead of two.
template <class V>
__global__ void treeTopInitKernel(Tree<V> t, int from, State* st, u64 k, u64 cap) {
    pdlEnter();
    const int lane = threadIdx.x & 31, warps = blockDim.x >> 5;
    for (int l = from; l <= t.top; ++l) {
        const V* in = t.level[l - 1];
        V* out = const_cast<V*>(t.level[l]);
        for (int w = threadIdx.x >> 5; w < t.size[l]; w += warps) {
            const int i = w * 32 + lane;
            V v = i < t.size[l - 1] ? in[i] : largestValue<V>();
            for (int o = 16; o > 0; o >>= 1) {
                const V u = __shfl_xor_sync(0xffffffffu, v, o);
                v = u < v ? u : v;
            }
            if (lane == 0) out[w] = v;
        }
        __syncthreads(); // the block's global writes are visible to the block from here
    }
    initState(st, k, cap);
}

// A counting pass over [dlo, dhi], set by the host (below: the exact count of pairs under dlo).
__global__ void setPassKernel(State* st, u64 dlo, u64 dhi, u64 below) {
    pdlEnter();
    for (int i = threadIdx.x; i < kBins; i += blockDim.x) st->hist[i] = 0;
    if (threadIdx.x == 0) {
        setPass(st, dlo, dhi);
        st->below = below;
        st->resolved = 0;
        st->failed = 0;
    }
}

// One block: D0 = the top of the log bucket that holds the k-th best end (every end when fewer than k),
// so that at least k distinct pairs have d <= D0. Clears the histogram for the first pass.
__global__ void chooseFirstKernel(State* st) {
    pdlEnter();
    u64 before = 0;
    const int b = firstReaching(st->hist, glint::kmax::kLogBuckets, 0, st->k, &before);
    __syncthreads();
    if (threadIdx.x == 0) {
        st->below = 0;
        st->nEnds = 0;
        st->resolved = 0;
        st->failed = 0;
        setPass(st, 0, b >= 0 ? glint::kmax::logBucketHigh(b) : ~0ull);
    }
    for (int i = threadIdx.x; i < kBins; i += blockDim.x) st->hist[i] = 0;
}

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

// After a sampling pass (bins from 0): the bucket where its pairs reach k caps the next, complete
// pass; when they do not reach k (or the sample stopped), the bound stays.
__global__ void chooseSampleKernel(State* st) {
    pdlEnter();
    if (st->resolved || st->failed) return;
    u64 before = 0;
    const int b = firstReaching(st->hist, st->mode == 0 ? glint::kmax::kLogBuckets : kBins, 0, st->k, &before);
    __syncthreads();
    if (threadIdx.x == 0) {
        u64 dhi = st->dhi;
        if (b >= 0) dhi = min(dhi, st->mode == 0 ? glint::kmax::logBucketHigh(b) : st->dlo + ((static_cast<u64>(b) + 1) << st->shift) - 1);
        setPass(st, 0, dhi);
        st->below = 0;
    }
    for (int i = threadIdx.x; i < kBins; i += blockDim.x) st->hist[i] = 0;
}

// One block, after a counting pass: the bucket that holds the k-th smallest d becomes the next bracket
// (resolved when it is one value); every pair when fewer than k exist; failed when the pass stopped.
__device__ void choose(State* st) {
    if (st->resolved || st->failed) return;
    if (st->abort) {
        if (threadIdx.x == 0) st->failed = 1;
        return;
    }
    u64 before = 0;
    // Every pair under dlo was counted again by this pass (passBelow).
    const int found = firstReaching(st->hist, st->mode == 0 ? glint::kmax::kLogBuckets : kBins, st->passBelow, st->k, &before);
    __syncthreads();
    __shared__ int again;
    if (threadIdx.x == 0) {
        again = 0;
        if (found < 0) {
            if (st->dhi == ~0ull) st->resolved = 2; // fewer pairs than k: take them all
            else st->failed = 1;                     // cannot happen while dhi is a valid bound
        } else {
            u64 lo, hi;
            if (st->mode == 0) {
                lo = glint::kmax::logBucketLow(found);
                hi = glint::kmax::logBucketHigh(found);
            } else {
                lo = st->dlo + (static_cast<u64>(found) << st->shift);
                hi = lo + ((1ull << st->shift) - 1);
            }
            lo = max(lo, st->dlo);
            hi = min(hi, st->dhi);
            st->below = before;
            if (lo == hi) {
                st->dlo = st->dhi = lo;
                st->resolved = 1;
            } else {
                setPass(st, lo, hi);
                again = 1;
            }
        }
    }
    __syncthreads();
    if (again)
        for (int i = threadIdx.x; i < kBins; i += blockDim.x) st->hist[i] = 0;
}
__global__ void chooseKernel(State* st) {
    pdlEnter();
    choose(st);
}

// The host found the k-th on its own (after a stopped pass): record it for the collecting pass.
__global__ void setResolvedKernel(State* st, u64 dstar, u64 nLess, int kind) {
    pdlEnter();
    st->resolved = kind;
    st->failed = 0;
    st->abort = 0;
    st->dlo = st->dhi = dstar;
    st->below = nLess;
}

// ---- collecting: every pair with d < dstar, and up to eqLimit pairs with d == dstar -------------------

struct Found {
    u64 pair; // start << 32 | end
    u64 d;
};

// Reads the resolved bracket into the collecting pass's arguments. Unresolved: the collecting pass is
// skipped and the state left as the last counting pass wrote it (its `abort` tells the host whether
// that pass's counts are complete).
__device__ void prepareCollect(State* st, u64 capacity) {
    st->collectSkip = !st->resolved || st->failed;
    if (st->collectSkip) return;
    st->lessCount = 0;
    st->eqCount = 0;
    st->eqFull = 0;
    st->nextEnd = 0;
    st->abort = 0;
    st->capacity = capacity;
    st->collectAll = st->resolved == 2;
    st->dstar = st->collectAll ? ~0ull : st->dlo;
    st->nLess = st->collectAll ? 0 : st->below;
    st->eqLimit = st->collectAll ? 0 : st->k - st->below;
}

__global__ void prepareCollectKernel(State* st, u64 capacity) {
    pdlEnter();
    prepareCollect(st, capacity);
}

// The last choice of the queued search, then the collecting pass's arguments from it: one launch.
__global__ void chooseThenPrepareKernel(State* st, u64 capacity) {
    pdlEnter();
    choose(st);
    __syncthreads();
    if (threadIdx.x == 0) prepareCollect(st, capacity);
}

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
