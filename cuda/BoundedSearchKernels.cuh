// Device side of the CUDA bounded search (--max-box P; rule and sums in core/algo/maxsub/MaxSubarrayBase.h,
// design in core/algo/brightest/NOTES.md, "Bounded search"). Strip s = t * H + d is rows t..t + d (d < H).
// Its row prefix S[0] = 0, S[c + 1] = S[c] + (P[b + 1][c] - P[t][c]) is formed column by column in the
// reference's order (doubles by __dadd_rn / __dsub_rn), and the best segment of length <= L ending at each
// column comes from a monotone deque of starts (the oracle scanStripBounded's). Besides each strip's best (B, F, L) the
// search keeps, per strip and per segment of kSeg columns, S at the segment's first column (a checkpoint)
// and the best of the segments ending in it (sum, last, the deque's front): S never changes, so after a
// round only the segments whose kept best meets the removed rectangle are scanned again, each from the
// checkpoint L columns before it, in parallel.
//
// The strip functions are plain C++ as well (GLINT_BOUNDED_HD), so that a host program can run the same
// code thread by thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#define GLINT_BOUNDED_HD __host__ __device__ __forceinline__
#else
#define GLINT_BOUNDED_HD inline
#endif

namespace glint::cuda::maxsub {
namespace bounded {

constexpr int kSeg = 32; // columns a segment

// Exact additions: integers as they are, doubles rounded to nearest with no contraction.
template <class V>
GLINT_BOUNDED_HD V add(V a, V b) {
#if defined(__CUDA_ARCH__)
    if constexpr (std::is_same_v<V, double>) return __dadd_rn(a, b);
    else return a + b;
#else
    return a + b;
#endif
}
template <class V>
GLINT_BOUNDED_HD V sub(V a, V b) {
#if defined(__CUDA_ARCH__)
    if constexpr (std::is_same_v<V, double>) return __dsub_rn(a, b);
    else return a - b;
#else
    return a - b;
#endif
}

// A round's best rectangle (valid 0: none with a positive sum).
template <class V>
struct Result {
    V sum;
    int valid, top, bottom, first, last, pad;
};

template <class V>
struct Args {
    const V* PT = nullptr;   // column prefix sums, column-major: PT[c * ptPitch + r], r = 0..rows
    std::size_t ptPitch = 0;
    int* next = nullptr;     // blocking index, next[t * nextPitch + c] (ExclusionIndex's)
    int nextPitch = 0;
    int rows = 0, cols = 0, H = 0, L = 0, nseg = 0;
    std::size_t strips = 0;  // rows * H (strips with t + d >= rows unused)
    V* cp = nullptr;         // [j * strips + s]: S at column j * kSeg
    V* segV = nullptr;       // [j * strips + s]: best sum of the segments ending in segment j
    int* segLast = nullptr;  //   its last column (-1: nothing positive)
    int* segHead = nullptr;  //   the deque's front then (the smallest S of its window, latest)
    V* stripV = nullptr;     // [s]: the strip's best (B, F, L), L = -1 when nothing is positive
    int* stripF = nullptr;
    int* stripL = nullptr;
    unsigned char* touched = nullptr; // [s]: segments scanned since the strip's best was formed
    V* topV = nullptr;       // [t]: the best strip of top t (strict: smallest bottom)
    int* topBottom = nullptr; //  -1: none positive
    Result<V>* best = nullptr; // the last round's best (the next round removes it)
    unsigned* counter = nullptr; // [0]: blocks done (the last one reduces over the tops); [1]: rounds done
    Result<V>* slots = nullptr;  // pinned host memory, kRing rounds' results: round n's in slot n % kRing,
                                 // its pad set to n + 1 after the other fields (the host polls it)
    unsigned long long* prof = nullptr; // GLINT_BOUNDED_PROFILE only (the kernels' Prof instantiations):
                                        // kProfSlots timestamps and counts a round, see ProfSlot
    int profRounds = 0;
};

// The shape of a search (rows x cols, strips of at most H rows, intervals of at most L columns) and its state
// per segment, strip and top, every buffer taken from give(pointer, name, count): the device's workspace
// (BoundedSearchCuda.cu) or the host emulation of test_bounded_kernels, which so lay the state out alike.
template <class V, class Give>
void layOutState(Args<V>& a, int rows, int cols, int H, int L, Give&& give) {
    a.rows = rows;
    a.cols = cols;
    a.H = H;
    a.L = L;
    a.nseg = (cols + kSeg - 1) / kSeg;
    a.strips = static_cast<std::size_t>(rows) * H;
    const std::size_t segs = a.strips * a.nseg;
    give(a.cp, "checkpoints", segs);
    give(a.segV, "segment sums", segs);
    give(a.segLast, "segment lasts", segs);
    give(a.segHead, "segment heads", segs);
    give(a.stripV, "strip sums", a.strips);
    give(a.stripF, "strip firsts", a.strips);
    give(a.stripL, "strip lasts", a.strips);
    give(a.touched, "touched", a.strips);
    give(a.topV, "top sums", static_cast<std::size_t>(rows));
    give(a.topBottom, "top bottoms", static_cast<std::size_t>(rows));
}

// The profile's slots a round (globaltimer ns; "first" ones stored complemented, so that atomicMax keeps the
// earliest).
enum ProfSlot : int {
    kProfRescanStart = 0, // ~ the earliest rescan block's start (after the dependent-launch wait)
    kProfRescanEnd,       // the latest rescan block's end
    kProfReduceStart,     // ~ the earliest reduce block's start
    kProfStripsDone,      // the latest reduce block's end of its strips' bests and block reduction
    kProfBlocksDone,      // the latest reduce block's arrival at the counter (after its fence)
    kProfFinalStart,      // the last block's start of the reduction over the tops
    kProfSlotWritten,     // the last block's host slot written (after the system fence)
    kProfDirty,           // segments scanned again
    kProfColumns,         // columns those rescans walked
    kProfTouched,         // strips whose best was formed again
    kProfSlots
};

constexpr int kRing = 8; // rounds in flight at most (the host's result slots)

// The monotone deque of starts (strictly increasing S from front to back), a ring of cap = L + 1 slots at
// val[k * stride], idx[k * stride].
template <class V>
struct Ring {
    V* val;
    int* idx;
    int stride;
    int cap;
    int head = 0, tail = 0, n = 0;
    GLINT_BOUNDED_HD void clear() { head = tail = n = 0; }
    GLINT_BOUNDED_HD int backSlot() const { return tail == 0 ? cap - 1 : tail - 1; }
    // Pushes start c with S[c] after dropping the starts whose S is not smaller (equal: the later stays).
    GLINT_BOUNDED_HD void push(int c, V s) {
        while (n > 0 && !(val[backSlot() * stride] < s)) {
            tail = backSlot();
            --n;
        }
        val[tail * stride] = s;
        idx[tail * stride] = c;
        if (++tail == cap) tail = 0;
        ++n;
    }
    // Drops the starts left of lo (the deque never empties: its back is the column just pushed).
    GLINT_BOUNDED_HD void dropBefore(int lo) {
        while (idx[head * stride] < lo) {
            if (++head == cap) head = 0;
            --n;
        }
    }
    GLINT_BOUNDED_HD V frontValue() const { return val[head * stride]; }
    GLINT_BOUNDED_HD int frontIndex() const { return idx[head * stride]; }
};

template <class V>
GLINT_BOUNDED_HD V columnSum(const Args<V>& a, int c, int t, int b) {
    const V* p = a.PT + static_cast<std::size_t>(c) * a.ptPitch;
    return sub(p[b + 1], p[t]);
}

// f(c, s[c], blocked) for c = from..to-1 in order; the column sums (and the blocking test, when nr is given)
// of Ahead columns are loaded before any is used, so that the loads' latency overlaps. Round 1 (every strip
// at once, throughput-bound) loads 8 ahead; the later rounds' few rescans and strip bests, whose latency is
// the round's, load kAheadLate.
constexpr int kAhead = 8;
constexpr int kAheadLate = 16;
template <int Ahead = kAhead, class V, class F>
GLINT_BOUNDED_HD void forColumns(const Args<V>& a, int from, int to, int t, int b, const int* nr, F&& f) {
    for (int c0 = from; c0 < to; c0 += Ahead) {
        V cs[Ahead];
        bool blocked[Ahead];
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
        for (int k = 0; k < Ahead; ++k) {
            const int c = c0 + k < to ? c0 + k : to - 1;
            cs[k] = columnSum(a, c, t, b);
            blocked[k] = nr != nullptr && nr[c] <= b;
        }
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
        for (int k = 0; k < Ahead; ++k)
            if (c0 + k < to) f(c0 + k, cs[k], blocked[k]);
    }
}

// One strip's deque scan (scanStripBounded's steps): S at the current column (prefix), the first column a
// window may start at (lo), and the best segment ending in the current segment of kSeg columns (its sum, last
// column -1 when nothing is positive, and the deque's front then).
template <class V>
struct DequeScan {
    V prefix;
    int lo;
    V sv = V(0);
    int sl = -1, sh = 0;

    // Column c, of column sum col: S moves on to S[c + 1]; a column no segment may hold (skip) empties the deque
    // and moves lo past it; any other joins the deque as a start, the window is cut at max(lo, c - L + 1) and,
    // with `candidate`, the best segment ending at c is kept when it is larger.
    GLINT_BOUNDED_HD void step(Ring<V>& q, int L, int c, V col, bool skip, bool candidate) {
        const V next = add(prefix, col); // S[c + 1]
        if (skip) {
            q.clear();
            lo = c + 1;
            prefix = next;
            return;
        }
        q.push(c, prefix);
        q.dropBefore(lo > c - L + 1 ? lo : c - L + 1);
        if (candidate) {
            const V v = sub(next, q.frontValue());
            if (v > sv) {
                sv = v;
                sl = c;
                sh = q.frontIndex();
            }
        }
        prefix = next;
    }
    GLINT_BOUNDED_HD void startSegment() {
        sv = V(0);
        sl = -1;
        sh = 0;
    }
    // The best of segment j of strip s, kept in the search's state.
    GLINT_BOUNDED_HD void keep(const Args<V>& a, std::size_t s, std::size_t j) const {
        const std::size_t k = j * a.strips + s;
        a.segV[k] = sv;
        a.segLast[k] = sl;
        a.segHead[k] = sh;
    }
};

// The first round: strip s scanned over every column (the deque scan's steps), recording each segment's
// checkpoint and best.
template <class V>
GLINT_BOUNDED_HD void scanWholeStrip(const Args<V>& a, std::size_t s, int t, int b, Ring<V> q) {
    const int* nr = a.next + static_cast<std::size_t>(t) * a.nextPitch;
    DequeScan<V> scan{V(0), 0};
    forColumns(a, 0, a.cols, t, b, nr, [&](int c, V col, bool blocked) {
        if (c % kSeg == 0) {
            const std::size_t j = static_cast<std::size_t>(c / kSeg);
            if (j > 0) scan.keep(a, s, j - 1);
            a.cp[j * a.strips + s] = scan.prefix;
            scan.startSegment();
        }
        scan.step(q, a.L, c, col, blocked, true);
    });
    scan.keep(a, s, static_cast<std::size_t>(a.nseg - 1));
    a.touched[s] = 1;
}

// The column a rescan of segment j starts from: the checkpoint at or before its first window's start.
GLINT_BOUNDED_HD int rescanStart(int j, int L) {
    const int x = j * kSeg - L + 1;
    return x <= 0 ? 0 : x / kSeg * kSeg;
}

// A later round: segment j of strip s scanned again (columns rc0..rc1, the rectangle just found, blocked as
// well), from the checkpoint at or before its first window's start (S there: `prefix`, the kernel loads it
// together with the segment's kept best); the same candidates as the whole scan. Returns the columns walked.
template <class V>
GLINT_BOUNDED_HD int scanSegmentFrom(const Args<V>& a, std::size_t s, int t, int b, int j, int rc0, int rc1, V prefix, Ring<V> q) {
    const int* nr = a.next + static_cast<std::size_t>(t) * a.nextPitch;
    const int cBegin = j * kSeg, cEnd = cBegin + kSeg < a.cols ? cBegin + kSeg : a.cols;
    const int start = rescanStart(j, a.L);
    DequeScan<V> scan{prefix, start};
    forColumns<kAheadLate>(a, start, cEnd, t, b, nr, [&](int c, V col, bool blocked) {
        scan.step(q, a.L, c, col, blocked || (c >= rc0 && c <= rc1), c >= cBegin);
    });
    scan.keep(a, s, static_cast<std::size_t>(j));
    a.touched[s] = 1;
    return cEnd - start;
}

template <class V>
GLINT_BOUNDED_HD int scanSegment(const Args<V>& a, std::size_t s, int t, int b, int j, int rc0, int rc1, Ring<V> q) {
    const V prefix = a.cp[static_cast<std::size_t>(rescanStart(j, a.L) / kSeg) * a.strips + s];
    return scanSegmentFrom(a, s, t, b, j, rc0, rc1, prefix, q);
}

// Strip s's best from its segments (the first segment with the largest sum: the smallest last), and the
// rule's first column (boundedFirst: the largest f in front..last with S[last + 1] - S[f] == B; the front's
// S is the window's smallest, so no start left of it is larger), S re-formed from a checkpoint.
template <class V>
GLINT_BOUNDED_HD void finishStrip(const Args<V>& a, std::size_t s, int t, int b) {
    // The segments' (sum, last) are loaded kAheadLate at a time before any is compared (the loads' latency,
    // not the comparisons, is the cost), and the winner's front once.
    V best = V(0);
    int bl = -1;
    std::size_t bk = 0;
    for (int j0 = 0; j0 < a.nseg; j0 += kAheadLate) {
        V sv[kAheadLate];
        int sl[kAheadLate];
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
        for (int u = 0; u < kAheadLate; ++u) {
            const std::size_t k = static_cast<std::size_t>(j0 + u < a.nseg ? j0 + u : a.nseg - 1) * a.strips + s;
            sl[u] = a.segLast[k];
            sv[u] = a.segV[k];
        }
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
        for (int u = 0; u < kAheadLate; ++u)
            if (j0 + u < a.nseg && sl[u] >= 0 && sv[u] > best) {
                best = sv[u];
                bl = sl[u];
                bk = static_cast<std::size_t>(j0 + u) * a.strips + s;
            }
    }
    int first = 0;
    if (bl >= 0) {
        const int bh = a.segHead[bk];
        const int j0 = bh / kSeg;
        V S = a.cp[static_cast<std::size_t>(j0) * a.strips + s];
        forColumns<kAheadLate>(a, j0 * kSeg, bh, t, b, nullptr, [&](int, V col, bool) { S = add(S, col); });
        const V atHead = S;
        forColumns<kAheadLate>(a, bh, bl + 1, t, b, nullptr, [&](int, V col, bool) { S = add(S, col); });
        const V end = S; // S[last + 1]
        S = atHead;
        first = bh;
        forColumns<kAheadLate>(a, bh, bl + 1, t, b, nullptr, [&](int f, V col, bool) {
            if (sub(end, S) == best) first = f;
            S = add(S, col);
        });
    }
    a.stripV[s] = best;
    a.stripF[s] = first;
    a.stripL[s] = bl;
}

// The segments a later round scans again: the strips whose rows meet the rectangle (tops r0 - H + 1..r1,
// 2H - 1 of them at most), and of those the segments whose last columns' windows can reach its columns
// (c0..c1 + L - 1: `span` segments at most) and whose kept best meets them.
GLINT_BOUNDED_HD int rescanSpan(int L) { return (2 * L - 2) / kSeg + 2; }

} // namespace bounded

#if defined(__CUDACC__)
// Unnamed: the kernels are defined in this header, once in the .cu file that includes it.
namespace {

extern __shared__ __align__(16) unsigned char boundedShared[];

template <class V>
__device__ __forceinline__ bounded::Ring<V> boundedRing(int L) {
    V* val = reinterpret_cast<V*>(boundedShared);
    int* idx = reinterpret_cast<int*>(val + static_cast<std::size_t>(blockDim.x) * (L + 1));
    return bounded::Ring<V>{val + threadIdx.x, idx + threadIdx.x, static_cast<int>(blockDim.x), L + 1};
}

// Bytes of shared memory a block of `threads` needs for its deques.
template <class V>
constexpr std::size_t boundedSharedBytes(int threads, int L) {
    return static_cast<std::size_t>(threads) * (L + 1) * (sizeof(V) + sizeof(int));
}

// Programmatic dependent launch (sm_90): a round's kernels are launched with it, so that a kernel's launch
// overlaps the end of the one before it. Each waits here, before touching memory, until the kernel before it
// has completed and its writes are visible, then lets the next one start launching (its blocks then wait
// here in turn). Elsewhere, or launched plainly, a no-op.
__device__ __forceinline__ void boundedPdlEnter() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// GLINT_BOUNDED_PROFILE: the device's clock (ns) and the profile's slots of the current round (the rounds
// done so far, counter[1], read after the dependent-launch wait; nullptr past the buffer).
__device__ __forceinline__ unsigned long long boundedNow() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
template <class V>
__device__ __forceinline__ unsigned long long* boundedProfRound(const bounded::Args<V>& a) {
    const unsigned round = __ldcg(a.counter + 1);
    return round < static_cast<unsigned>(a.profRounds) ? a.prof + static_cast<std::size_t>(round) * bounded::kProfSlots : nullptr;
}

// Round 1: a thread a strip, every column.
template <class V>
__global__ void boundedScanKernel(bounded::Args<V> a) {
    const std::size_t s = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (s >= a.strips) return;
    const int t = static_cast<int>(s / a.H), b = t + static_cast<int>(s % a.H);
    if (b >= a.rows) return;
    bounded::scanWholeStrip(a, s, t, b, boundedRing<V>(a.L));
}

// Later rounds, item `item` (a (segment, top, height) near the last round's rectangle r): scanned again when
// dirty. Returns the columns walked (0: not scanned).
template <class V>
__device__ __forceinline__ int boundedRescanItem(const bounded::Args<V>& a, const bounded::Result<V>& r, long long item) {
    const int H = a.H, tops = 2 * H - 1;
    const int d = static_cast<int>(item % H);
    const long long rest = item / H;
    const int i = static_cast<int>(rest % tops);
    const int jj = static_cast<int>(rest / tops);
    if (jj >= bounded::rescanSpan(a.L)) return 0;
    const int t = r.top - H + 1 + i, b = t + d;
    if (t < 0 || t > r.bottom || b >= a.rows || b < r.top) return 0;
    const int j = r.first / bounded::kSeg + jj;
    if (j >= a.nseg || j * bounded::kSeg > r.last + a.L - 1) return 0;
    const std::size_t s = static_cast<std::size_t>(t) * H + d;
    const std::size_t k = static_cast<std::size_t>(j) * a.strips + s;
    // The kept best and the checkpoint the rescan starts from, loaded together (one latency, not two).
    const int l = a.segLast[k];
    const int head = a.segHead[k];
    const V prefix = a.cp[static_cast<std::size_t>(bounded::rescanStart(j, a.L) / bounded::kSeg) * a.strips + s];
    if (l < 0 || l < r.first || head > r.last) return 0; // nothing positive stays so; a best it misses stays
    return bounded::scanSegmentFrom(a, s, t, b, j, r.first, r.last, prefix, boundedRing<V>(a.L));
}

// Later rounds: a thread a (segment, top, height) item near the last round's rectangle; the dirty ones are
// scanned again. Heights vary fastest, so a warp reads consecutive prefix values.
template <class V, bool Prof = false>
__global__ void boundedRescanKernel(bounded::Args<V> a) {
    boundedPdlEnter();
    const bounded::Result<V> r = *a.best;
    if (!r.valid) return;
    const long long item = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if constexpr (!Prof) {
        boundedRescanItem(a, r, item);
    } else {
        __shared__ unsigned long long* p;
        __shared__ unsigned columns;
        if (threadIdx.x == 0) {
            p = boundedProfRound(a);
            columns = 0;
            if (p) atomicMax(p + bounded::kProfRescanStart, ~boundedNow());
        }
        __syncthreads();
        const int walked = boundedRescanItem(a, r, item);
        if (walked > 0) atomicAdd(&columns, static_cast<unsigned>(walked));
        const int dirty = __syncthreads_count(walked > 0);
        if (threadIdx.x == 0 && p) {
            atomicMax(p + bounded::kProfRescanEnd, boundedNow());
            atomicAdd(p + bounded::kProfDirty, static_cast<unsigned long long>(dirty));
            atomicAdd(p + bounded::kProfColumns, static_cast<unsigned long long>(columns));
        }
    }
}

constexpr int kBoundedReduceThreads = 128;

// (value, key) with the larger value, then the smaller key; key < 0: none.
template <class V>
__device__ __forceinline__ bool boundedBetter(V v, int key, V ov, int okey) {
    if (key < 0) return false;
    if (okey < 0) return true;
    return v > ov || (v == ov && key < okey);
}

template <class V>
__device__ __forceinline__ void boundedBlockBest(V& v, int& key, V* sv, int* sk) {
    const int tid = threadIdx.x;
    sv[tid] = v;
    sk[tid] = key;
    __syncthreads();
    for (int w = kBoundedReduceThreads / 2; w > 0; w /= 2) {
        if (tid < w && boundedBetter(sv[tid + w], sk[tid + w], sv[tid], sk[tid])) {
            sv[tid] = sv[tid + w];
            sk[tid] = sk[tid + w];
        }
        __syncthreads();
    }
    v = sv[0];
    key = sk[0];
    __syncthreads();
}

// A block a top: round 1 every top; later rounds the tops r0 - H + 1..r1 of the last round's rectangle,
// which first record it in their row of the blocking index (rows above r0 - H + 1 never see it: their strips
// end above r0). Each touched strip's best is formed again, then the top's best; the last block to finish
// reduces over every top into *a.best (largest sum, then smallest top) and the host's slot of the round.
template <class V, bool Prof = false>
__global__ void __launch_bounds__(kBoundedReduceThreads) boundedReduceKernel(bounded::Args<V> a, int firstRound) {
    __shared__ V sv[kBoundedReduceThreads];
    __shared__ int sk[kBoundedReduceThreads];
    __shared__ bool last;
    boundedPdlEnter();
    unsigned long long* p = nullptr;
    if constexpr (Prof) {
        p = boundedProfRound(a);
        if (threadIdx.x == 0 && p) atomicMax(p + bounded::kProfReduceStart, ~boundedNow());
    }
    const bounded::Result<V> r = *a.best;
    const int H = a.H, tid = threadIdx.x;
    int t = blockIdx.x;
    bool active = true;
    if (!firstRound) {
        t = r.top - H + 1 + static_cast<int>(blockIdx.x);
        active = r.valid && t >= 0 && t <= r.bottom && t < a.rows;
    }
    if (active) {
        if (!firstRound) {
            int* row = a.next + static_cast<std::size_t>(t) * a.nextPitch;
            for (int c = r.first + tid; c <= r.last; c += blockDim.x) row[c] = t >= r.top ? t : min(row[c], r.top);
        }
        V v = V(0);
        int key = -1;
        int touched = 0;
        for (int d = tid; d < H && t + d < a.rows; d += blockDim.x) {
            const std::size_t s = static_cast<std::size_t>(t) * H + d;
            if (a.touched[s]) {
                bounded::finishStrip(a, s, t, t + d);
                a.touched[s] = 0;
                ++touched;
            }
            if (a.stripL[s] >= 0 && boundedBetter(a.stripV[s], d, v, key)) {
                v = a.stripV[s];
                key = d;
            }
        }
        boundedBlockBest(v, key, sv, sk);
        if (tid == 0) {
            a.topV[t] = v;
            a.topBottom[t] = key < 0 ? -1 : t + key;
        }
        if constexpr (Prof) {
            const int n = __syncthreads_count(touched > 0); // threads that formed a best again: the strips while H <= the block
            if (tid == 0 && p) {
                atomicMax(p + bounded::kProfStripsDone, boundedNow());
                atomicAdd(p + bounded::kProfTouched, static_cast<unsigned long long>(n));
            }
        }
    }
    __threadfence();
    __syncthreads();
    if (tid == 0) {
        if constexpr (Prof)
            if (p) atomicMax(p + bounded::kProfBlocksDone, boundedNow());
        last = atomicAdd(a.counter, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    if constexpr (Prof)
        if (tid == 0 && p) p[bounded::kProfFinalStart] = boundedNow();
    // Every top's best, kTopsAhead tops a thread loaded before any is compared (the order of the comparisons
    // does not matter: boundedBetter is a strict order with distinct keys).
    constexpr int kTopsAhead = 8;
    V v = V(0);
    int key = -1;
    for (int u0 = tid; u0 < a.rows; u0 += kTopsAhead * kBoundedReduceThreads) {
        int ub[kTopsAhead];
        V uv[kTopsAhead];
#pragma unroll
        for (int k = 0; k < kTopsAhead; ++k) {
            const int u = u0 + k * kBoundedReduceThreads;
            ub[k] = u < a.rows ? __ldcg(a.topBottom + u) : -1;
            uv[k] = u < a.rows ? __ldcg(a.topV + u) : V(0);
        }
#pragma unroll
        for (int k = 0; k < kTopsAhead; ++k)
            if (ub[k] >= 0 && boundedBetter(uv[k], u0 + k * kBoundedReduceThreads, v, key)) {
                v = uv[k];
                key = u0 + k * kBoundedReduceThreads;
            }
    }
    boundedBlockBest(v, key, sv, sk);
    if (tid == 0) {
        bounded::Result<V> out{};
        if (key >= 0) {
            const int bottom = __ldcg(a.topBottom + key);
            const std::size_t s = static_cast<std::size_t>(key) * H + (bottom - key);
            out.sum = v;
            out.valid = 1;
            out.top = key;
            out.bottom = bottom;
            out.first = __ldcg(a.stripF + s);
            out.last = __ldcg(a.stripL + s);
        }
        *a.best = out;
        a.counter[0] = 0;
        // The host's copy: the fields, then (after a system-wide fence) the round's number in pad.
        const unsigned round = a.counter[1];
        a.counter[1] = round + 1;
        volatile bounded::Result<V>* slot = a.slots + round % bounded::kRing;
        slot->sum = out.sum;
        slot->valid = out.valid;
        slot->top = out.top;
        slot->bottom = out.bottom;
        slot->first = out.first;
        slot->last = out.last;
        __threadfence_system();
        slot->pad = static_cast<int>(round + 1);
        if constexpr (Prof)
            if (p) p[bounded::kProfSlotWritten] = boundedNow();
    }
}

// PT[c * ptPitch + r] = P[r * pitch + c] for r = 0..rows, c < cols.
template <class V>
__global__ void boundedTransposeKernel(const V* P, int pitch, int rows1, int cols, V* PT, std::size_t ptPitch) {
    __shared__ V tile[32][33];
    const int c0 = blockIdx.x * 32, r0 = blockIdx.y * 32;
    for (int k = threadIdx.y; k < 32; k += blockDim.y) {
        const int r = r0 + k, c = c0 + threadIdx.x;
        if (r < rows1 && c < cols) tile[k][threadIdx.x] = P[static_cast<std::size_t>(r) * pitch + c];
    }
    __syncthreads();
    for (int k = threadIdx.y; k < 32; k += blockDim.y) {
        const int c = c0 + k, r = r0 + threadIdx.x;
        if (r < rows1 && c < cols) PT[static_cast<std::size_t>(c) * ptPitch + r] = tile[threadIdx.x][k];
    }
}

} // namespace
#endif

} // namespace glint::cuda::maxsub
