// What every kernel of the CUDA K-MSP engine shares (KMaxKernels.cuh): the sequence and its min-tree, the
// search's state on the device, a found pair, the pair sum and programmatic dependent launch.
#pragma once

#include "core/algo/kmax/KMaxKeys.h"

#include <cuda_runtime.h>

#include <cstdint>
#include <limits>
#include <type_traits>

namespace glint::cuda::kmax {
// Unnamed, as the kernels built on these (defined once in every .cu file that includes them).
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

struct Found {
    u64 pair; // start << 32 | end
    u64 d;
};

} // namespace
} // namespace glint::cuda::kmax
