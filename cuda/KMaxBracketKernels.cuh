// The K-MSP engine's kernels that set a search's bracket (KMaxKernels.cuh): the min-tree's levels, the largest
// key and a log histogram of the items' distances below it, the list of ends within a distance, and after each
// counting pass the choice of the next bracket (a block scan of the histogram).
#pragma once

#include "cuda/KMaxDeviceTypes.cuh"

#include "core/algo/kmax/KMaxKeys.h"

#include <cuda_runtime.h>

namespace glint::cuda::kmax {
// Unnamed: the kernels are defined in this header, once in every .cu file that includes it.
namespace {

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

} // namespace
} // namespace glint::cuda::kmax
