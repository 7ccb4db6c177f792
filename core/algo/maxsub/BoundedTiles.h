// The CPU kernel of the bounded search (--max-box P, BoundedSearchCpu.cpp, solveBounded): one top and W
// consecutive strip heights (bottoms) in the lanes of SIMD registers, the sliding-window minimum of the row
// prefix S by van Herk / Gil-Werman blocks instead of a monotone deque. Internal to the CPU backend.
//
// Exactness (the same answers as the monotone-deque scan, test_bounded_kernels' scanStripBounded, bit for
// bit): per lane S[c + 1] = S[c] + (pb[c] - pt[c]),
// the same operations in the same order (a rescan starts from a stored S[cs], the same bits the chain from
// column 0 reaches). For each last column c the candidate is S[c + 1] - min{S[f] : f in the window}, where
// the window is max(c - L + 1, last blocked column + 1)..c; the minimum of a set of numbers is the same
// number however it is formed, so the candidate is the deque's, bit for bit (a -0 / +0 pair can change the
// sign of a zero candidate, which never beats the best, whose floor is 0). The best is replaced only by a
// strictly larger candidate, so each lane reports the smallest last reaching its maximum, as the deque does.
//
// van Herk / Gil-Werman: the start columns cs.. are cut into blocks of L. For a last c in block g..g+L-1 the
// window is c-L+1..c: it ends in block g (pre[c] = min S over g..c) and starts in block g-L (suf[c-L+1] = min S
// over c-L+1..g-1), so its minimum is min(suf[c-L+1], pre[c]). Blocked columns (a cell excluded in the lane's
// rows) are no start and no last, and no segment crosses them: pre restarts after one (and the window then
// lies within block g: only pre counts), and suf, formed right to left, stops at the first blocked column it
// meets (a start left of it cannot reach a last in the next block).
//
// Output per cache block of CB columns (columns k*CB..k*CB+CB-1 as lasts): each lane's best sum there (0 when
// nothing is positive) and its last column (-1 then), and, when asked, the checkpoints S[k*CB].
#pragma once

#include "core/util/CpuFeatures.h"

#include "core/algo/maxsub/MaxSubarrayBase.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string_view>
#include <type_traits>
#include <vector>

namespace glint::maxsub {

template <class V>
struct BoundedGroup {
    const V* q = nullptr;              // prefix sums column-major: P[r][c] at q[c * qs + r], padded rows
    std::size_t qs = 0;                // stride between columns of q
    int top = 0;                       // the strips' top row
    int bottom0 = 0;                   // lane l: bottom = bottom0 + l
    int cols = 0;
    int window = 0;                    // L: segment lengths 1..L
    int cb = 0;                        // cache block length (columns)
    const std::int32_t* blockedRow = nullptr; // ExclusionIndex::row(top), or null (then no blocked column)
    int cs = 0;                        // first start column (a multiple of cb); S[cs] = s0
    int la = 0;                        // first last column reported (a multiple of cb, >= cs + L - 1 when cs > 0)
    int lb = 0;                        // last column scanned (the end of a cache block, or cols - 1)
    const V* s0 = nullptr;             // W lanes: S[cs]
    V* blockSum = nullptr;             // [k][lane] for every cache block k; written for k = la / cb .. lb / cb
    std::int32_t* blockLast = nullptr; // [k][lane], the same
    V* checkpoints = nullptr;          // [k][lane] = S[k * cb]; written for the blocks after cs / cb; null: not
    V* scratch = nullptr;              // 2 * L * W values, aligned to 64 bytes
};

template <class V>
using BoundedLaneInt = std::conditional_t<sizeof(V) == 4, std::int32_t, std::int64_t>;

// The sentinels: +-infinity for doubles, the int64 extremes otherwise (a minimum's identity; hi as a start
// only reaches a candidate at a blocked last, whose difference is formed modulo 2^64 and then discarded).
template <class V>
constexpr V boundedHigh() {
    if constexpr (std::is_floating_point_v<V>) return std::numeric_limits<V>::infinity();
    else return std::numeric_limits<V>::max();
}
template <class V>
constexpr V boundedLow() {
    if constexpr (std::is_floating_point_v<V>) return -std::numeric_limits<V>::infinity();
    else return std::numeric_limits<V>::min();
}

template <class V, int Bytes, int NV, bool Blocked>
[[gnu::always_inline]] inline void boundedGroupKernel(const BoundedGroup<V>& a) {
    constexpr int NL = Bytes / static_cast<int>(sizeof(V));
    constexpr int W = NL * NV;
    using I = BoundedLaneInt<V>;
    typedef V vec __attribute__((vector_size(Bytes)));
    typedef I ivec __attribute__((vector_size(Bytes)));
    const vec zero = {};
    const vec inf = zero + boundedHigh<V>();
    const ivec izero = {};
    const int L = a.window;
    vec S[NV], best[NV];
    ivec bottom[NV], bestLast[NV];
    for (int v = 0; v < NV; ++v) {
        std::memcpy(&S[v], a.s0 + v * NL, sizeof(vec));
        best[v] = zero;
        bestLast[v] = izero - I(1);
        for (int l = 0; l < NL; ++l) bottom[v][l] = static_cast<I>(a.bottom0 + v * NL + l);
    }
    // cur: this block's S[f] (starts); suf: the previous block's suffix minima (inf: none).
    vec* cur = reinterpret_cast<vec*>(a.scratch);
    vec* suf = cur + static_cast<std::size_t>(L) * NV;
    for (int i = 0; i < L * NV; ++i) suf[i] = inf;
    const V* pt = a.q + static_cast<std::size_t>(a.top);
    const V* pb = a.q + static_cast<std::size_t>(a.bottom0 + 1);
    // Blocked lanes by value, not by mask (GCC scalarises selects on combined masks): hi where the lane's
    // column is blocked, lo elsewhere; min / max with them give the selects below.
    const vec hi = inf, lo = zero + boundedLow<V>();
    for (int g = a.cs; g <= a.lb; g += L) {
        const int ge = std::min(g + L, a.lb + 1);
        vec pre[NV];
        vec seen[NV]; // hi: a blocked column in g..c (then the window lies in this block: pre alone)
        for (int v = 0; v < NV; ++v) {
            pre[v] = inf;
            seen[v] = lo;
        }
        for (int c = g; c < ge; ++c) {
            const std::size_t qc = static_cast<std::size_t>(c) * a.qs;
            const vec top = zero + pt[qc];
            vec blocked[NV], open[NV]; // blocked: hi / lo; open: lo / hi
            if constexpr (Blocked) {
                const ivec next = izero + static_cast<I>(a.blockedRow[c]);
                for (int v = 0; v < NV; ++v) {
                    blocked[v] = next <= bottom[v] ? hi : lo;
                    open[v] = next <= bottom[v] ? lo : hi;
                }
            }
            const bool report = c >= a.la;
            const int j = c - g; // suf index of the window's first start c - L + 1 (in block g - L), when j + 1 < L
            for (int v = 0; v < NV; ++v) {
                vec s;
                std::memcpy(&s, pb + qc + v * NL, sizeof(vec));
                const vec next = S[v] + (s - top); // S[c + 1]
                const vec start = S[v];            // S[c], start f = c
                cur[j * NV + v] = start;
                vec p = start < pre[v] ? start : pre[v];
                if constexpr (Blocked) {
                    p = p > blocked[v] ? p : blocked[v]; // blocked: no start in g..c
                    seen[v] = seen[v] > blocked[v] ? seen[v] : blocked[v];
                }
                pre[v] = p;
                if (report) {
                    vec m = p;
                    if (j + 1 < L) {
                        vec sf = suf[(j + 1) * NV + v];
                        if constexpr (Blocked) sf = sf > seen[v] ? sf : seen[v]; // seen: hi, so m stays pre
                        m = sf < m ? sf : m;
                    }
                    vec cand;
                    if constexpr (std::is_integral_v<V>) {
                        typedef std::make_unsigned_t<V> uvec __attribute__((vector_size(Bytes)));
                        cand = reinterpret_cast<vec>(reinterpret_cast<uvec>(next) - reinterpret_cast<uvec>(m));
                    } else {
                        cand = next - m;
                    }
                    if constexpr (Blocked) cand = cand < open[v] ? cand : open[v]; // blocked last: lo, never better
                    const ivec better = cand > best[v];
                    best[v] = better ? cand : best[v];
                    bestLast[v] = better ? izero + static_cast<I>(c) : bestLast[v];
                }
                S[v] = next;
            }
            if ((c + 1) % a.cb == 0 || c == a.lb) {
                const int k = c / a.cb;
                if (report) {
                    const std::size_t o = static_cast<std::size_t>(k) * W;
                    for (int v = 0; v < NV; ++v) {
                        std::memcpy(a.blockSum + o + v * NL, &best[v], sizeof(vec));
                        for (int l = 0; l < NL; ++l) a.blockLast[o + v * NL + l] = static_cast<std::int32_t>(bestLast[v][l]);
                        best[v] = zero;
                        bestLast[v] = izero - I(1);
                    }
                }
                if (a.checkpoints && (c + 1) % a.cb == 0 && c + 1 < a.cols) {
                    const std::size_t o = static_cast<std::size_t>(k + 1) * W;
                    for (int v = 0; v < NV; ++v) std::memcpy(a.checkpoints + o + v * NL, &S[v], sizeof(vec));
                }
            }
        }
        if (ge > a.lb) break;
        // This block's suffix minima, right to left, stopping at a blocked column (frozen: hi from there on).
        vec r[NV], frozen[NV];
        for (int v = 0; v < NV; ++v) {
            r[v] = inf;
            frozen[v] = lo;
        }
        for (int c = ge - 1; c >= g; --c) {
            const int j = c - g;
            if constexpr (Blocked) {
                const ivec next = izero + static_cast<I>(a.blockedRow[c]);
                for (int v = 0; v < NV; ++v) {
                    const vec b = next <= bottom[v] ? hi : lo;
                    frozen[v] = frozen[v] > b ? frozen[v] : b;
                    vec s = cur[j * NV + v];
                    s = s > frozen[v] ? s : frozen[v];
                    r[v] = s < r[v] ? s : r[v];
                    suf[j * NV + v] = r[v];
                }
            } else {
                for (int v = 0; v < NV; ++v) {
                    const vec s = cur[j * NV + v];
                    r[v] = s < r[v] ? s : r[v];
                    suf[j * NV + v] = r[v];
                }
            }
        }
    }
}

// The row prefix S alone of W lanes (bottoms bottom0..), from S[c0] (in S, W values) to S[c1] (left in S),
// storing S[k cb] into checkpoints[k W ..] at each k cb in c0 + 1..c1: the kernel's chain, the same operation
// in the same order (S[c + 1] = S[c] + (pb[c] - pt[c])), so the same bits. What a scan starting at a block past
// the last known checkpoint needs first; a fifth of the kernel's work a column.
template <class V, int Bytes, int NV>
[[gnu::always_inline]] inline void boundedChainKernel(const V* q, std::size_t qs, int top, int bottom0, int c0, int c1,
                                                      int cb, V* S, V* checkpoints) {
    constexpr int NL = Bytes / static_cast<int>(sizeof(V));
    constexpr int W = NL * NV;
    typedef V vec __attribute__((vector_size(Bytes)));
    const vec zero = {};
    vec s[NV];
    for (int v = 0; v < NV; ++v) std::memcpy(&s[v], S + v * NL, sizeof(vec));
    const V* pt = q + static_cast<std::size_t>(top);
    const V* pb = q + static_cast<std::size_t>(bottom0 + 1);
    for (int c = c0; c < c1; ++c) {
        const std::size_t qc = static_cast<std::size_t>(c) * qs;
        const vec t = zero + pt[qc];
        for (int v = 0; v < NV; ++v) {
            vec x;
            std::memcpy(&x, pb + qc + v * NL, sizeof(vec));
            s[v] = s[v] + (x - t);
        }
        if ((c + 1) % cb == 0)
            for (int v = 0; v < NV; ++v)
                std::memcpy(checkpoints + static_cast<std::size_t>((c + 1) / cb) * W + v * NL, &s[v], sizeof(vec));
    }
    for (int v = 0; v < NV; ++v) std::memcpy(S + v * NL, &s[v], sizeof(vec));
}

template <class V>
using BoundedGroupFunction = void (*)(const BoundedGroup<V>&);
template <class V>
using BoundedChainFunction = void (*)(const V*, std::size_t, int, int, int, int, int, V*, V*);

#define GLINT_BOUNDED_VARIANTS(ATTR, NAME, BYTES, NV)                                                          \
    template <class V, bool Blocked>                                                                          \
    ATTR void NAME(const BoundedGroup<V>& a) {                                                                \
        boundedGroupKernel<V, BYTES, NV, Blocked>(a);                                                         \
    }                                                                                                         \
    template <class V>                                                                                        \
    ATTR void NAME##Chain(const V* q, std::size_t qs, int top, int bottom0, int c0, int c1, int cb, V* S,     \
                          V* checkpoints) {                                                                   \
        boundedChainKernel<V, BYTES, NV>(q, qs, top, bottom0, c0, c1, cb, S, checkpoints);                    \
    }
GLINT_BOUNDED_VARIANTS(__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl"))), boundedAvx512, 64, 2)
GLINT_BOUNDED_VARIANTS(__attribute__((target("avx2"))), boundedAvx2, 32, 2)
GLINT_BOUNDED_VARIANTS(, boundedBase, 16, 2)
#undef GLINT_BOUNDED_VARIANTS

constexpr int kMaxBoundedLanes = 32; // the widest W below (AVX-512, 2 x 16 four-byte lanes)

template <class V>
struct BoundedChoice {
    BoundedGroupFunction<V> plain;
    BoundedGroupFunction<V> blocked;
    BoundedChainFunction<V> chain;
    int lanes; // W: strips (bottoms) a call scans
};

// The widest kernel the CPU runs; GLINT_BOUNDED_KERNEL=avx2 or =base picks a narrower one (the tests run
// every variant the machine has against the reference).
template <class V>
BoundedChoice<V> chooseBounded() {
    constexpr int s = static_cast<int>(sizeof(V));
    const char* force = std::getenv("GLINT_BOUNDED_KERNEL");
    const std::string_view forced = force ? force : "";
    if (forced == "base") return {&boundedBase<V, false>, &boundedBase<V, true>, &boundedBaseChain<V>, 2 * 16 / s};
    if (forced == "avx2" && cpuHasAvx2())
        return {&boundedAvx2<V, false>, &boundedAvx2<V, true>, &boundedAvx2Chain<V>, 2 * 32 / s};
    if (cpuHasAvx512())
        return {&boundedAvx512<V, false>, &boundedAvx512<V, true>, &boundedAvx512Chain<V>, 2 * 64 / s};
    if (cpuHasAvx2()) return {&boundedAvx2<V, false>, &boundedAvx2<V, true>, &boundedAvx2Chain<V>, 2 * 32 / s};
    return {&boundedBase<V, false>, &boundedBase<V, true>, &boundedBaseChain<V>, 2 * 16 / s};
}

} // namespace glint::maxsub
