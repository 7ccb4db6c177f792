// The CPU backend's bounded search (--max-box P, solveBoundedDisjointCpu): the strips of at most P rows, W
// bottoms of one top in SIMD lanes (BoundedTiles.h), each strip's best kept per cache block between rounds.
#include "core/algo/maxsub/MaxSubarray.h"
#include "core/algo/maxsub/BoundedTiles.h"
#include "core/algo/maxsub/CpuSearchRounds.h"

#include "core/util/Parallel.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace glint {

namespace {

using namespace maxsub;

// Upper bounds for the bounded search's lazy scans, per lane group (top t, bottoms t + gi W .. t + gi W + W - 1)
// and cache block k (columns k cb .. k cb + cb - 1 as lasts). A strip top..bottom adds d(c) = P[bottom + 1][c] -
// P[top][c] over a segment's columns; for every bottom of the group, d(c) <= m(c) = max(0, max over the group's
// bottoms of d(c)), the sliding maximum of P[t + gi W + 1 .. t + gi W + W][c] (van Herk / Gil-Werman over the
// rows) minus P[t][c]: the subtraction the kernel makes, so the same bits. A segment whose last lies in block k
// has at most L columns ending there, so its sum is at most the largest sum of m over L columns ending at a last
// of the block: bounds[(t G + gi) nb + k]. On sky data this is small where no source is (a column's prefix
// below a noise pixel soon turns negative), and a group's bound counts only the sources its strips reach.
// Integer data: exact. Double data: the kernel's sum S[last + 1] - S[first] of its chain S and the windows of
// m here, formed by sliding, are both within 3 (cols + 2) u sum|d| of their exact values (sum|d| <= sum|a| <=
// maxAbs includedCount), so a margin of 16 (rows + cols + 8) u maxAbs includedCount keeps the bound above the
// kernel's own sums; it is added even where nothing is positive (a difference of S can round above 0 there).
template <class V>
std::vector<V> boundedTopBounds(const WorkArray& work, const V* q, std::size_t qs, int W, int G, int L, int cb, int nb) {
    const int rows = work.rows, cols = work.cols;
    V margin = V(0);
    if constexpr (std::is_floating_point_v<V>)
        margin = 8.0 * (rows + cols + 8) * std::numeric_limits<double>::epsilon() *
                 (work.maxAbs * static_cast<double>(work.includedCount));
    const std::size_t perTop = static_cast<std::size_t>(G) * nb;
    std::vector<V> bounds(static_cast<std::size_t>(rows) * perTop, V(0));
    const int threads = threadsForPixels((2.0 + G) * rows * cols);
    const std::size_t grain = static_cast<std::size_t>(std::max(32, (rows + threads - 1) / std::max(1, threads)));
    parallelFor(0, static_cast<std::size_t>(rows), grain, [&](std::size_t t0s, std::size_t t1s) {
        const int t0 = static_cast<int>(t0s), n = static_cast<int>(t1s - t0s);
        // Rows t0 + 1 .. t0 + n + G W - 1 of a column in blocks of W: prefix and suffix maxima.
        const int span = n + G * W - 1;
        std::vector<V> pre(static_cast<std::size_t>(span)), suf(static_cast<std::size_t>(span));
        // Per group gi and top t0 + i (at gi * n + i, so that the loops over i vectorise): the last L values of
        // m (a ring), their sum, and its largest value over the current block.
        const std::size_t lanes = static_cast<std::size_t>(n) * G;
        std::vector<V> ring(static_cast<std::size_t>(L) * lanes), window(lanes, V(0)), blockMax(lanes, V(0));
        for (int c = 0; c < cols; ++c) {
            const V* col = q + static_cast<std::size_t>(c) * qs + t0 + 1; // col[j] = P[t0 + 1 + j][c]
            for (int g = 0; g < span; g += W) {
                const int e = std::min(span, g + W);
                V m = col[g];
                for (int j = g; j < e; ++j) pre[j] = m = col[j] > m ? col[j] : m;
                m = col[e - 1];
                for (int j = e - 1; j >= g; --j) suf[j] = m = col[j] > m ? col[j] : m;
            }
            V* slot = ring.data() + static_cast<std::size_t>(c % L) * lanes;
            const V* above = col - 1; // P[t0 + i][c]
            const bool full = c >= L;
            for (int gi = 0; gi < G; ++gi) {
                const V* sj = suf.data() + gi * W;
                const V* pj = pre.data() + gi * W + W - 1;
                V* sl = slot + static_cast<std::size_t>(gi) * n;
                V* wi = window.data() + static_cast<std::size_t>(gi) * n;
                V* bm = blockMax.data() + static_cast<std::size_t>(gi) * n;
                for (int i = 0; i < n; ++i) {
                    const V top = sj[i] > pj[i] ? sj[i] : pj[i]; // max P[t + gi W + 1 .. t + gi W + W]
                    const V d = top - above[i];
                    const V m = d > V(0) ? d : V(0);
                    const V w = full ? wi[i] + m - sl[i] : wi[i] + m;
                    sl[i] = m;
                    wi[i] = w;
                    bm[i] = w > bm[i] ? w : bm[i];
                }
            }
            if ((c + 1) % cb == 0 || c == cols - 1) {
                const int k = c / cb;
                for (int gi = 0; gi < G; ++gi)
                    for (int i = 0; i < n; ++i) {
                        V& b = blockMax[static_cast<std::size_t>(gi) * n + i];
                        bounds[static_cast<std::size_t>(t0 + i) * perTop + static_cast<std::size_t>(gi) * nb + k] = b;
                        b = V(0);
                    }
            }
        }
        for (std::size_t x = static_cast<std::size_t>(t0) * perTop; x < static_cast<std::size_t>(t0 + n) * perTop; ++x)
            bounds[x] += margin;
    }, threads);
    return bounds;
}

// The bounded search (rule.maxBox = P > 0): the strips top..bottom with bottom - top < P (rows x P strips
// instead of rows^2 / 2), W bottoms of one top at a time in SIMD lanes (boundedGroupKernel, BoundedTiles.h:
// the sliding-window minimum of the row prefix S by van Herk / Gil-Werman blocks, the same sums and the same
// candidates as the deque scan (the oracle scanStripBounded), bit for bit), in parallel over the tops.
//
// Each strip's best is kept per cache block of cb columns (the best segment whose last column lies in the
// block, its sum and last; the smallest last among equal sums) with the checkpoints S[k cb] of its row
// prefix. Excluding a rectangle R (rows r0..r1, columns c0..c1) changes no S, it only removes the segments
// that meet R. A segment that meets R ends in c0..c1 + L - 1 and lies within its last's window last-L+1..last,
// so a cache block whose kept last has a window missing c0..c1 (or a strip whose rows miss R) keeps its best
// exactly: the same sum is still there at the same last, nothing larger appears (the candidates only go), and
// no smaller last of the block reaches it. Only the other blocks are scanned again, from the checkpoint at or
// before their first window (the same S bits the chain from column 0 gives). A block with nothing positive
// stays so. A strip's best is the first largest over its blocks (smallest last), a top's the first largest
// over its bottoms (smallest bottom), the round's the first largest over the tops (smallest top); the first
// column of the winner is boundedFirst's (largest first), from its S recomputed in the same order.
// Lazy scans: no block is scanned before it must be. Every block starts unscanned, holding an upper bound of
// its lanes' bests (boundedTopBounds); a round scans, the largest bounds first, the blocks whose bound or kept
// sum could still beat the best exact block, until none can. On a sky frame most blocks hold no source and
// are never scanned (the 1024^2 bench field, P = 64: K = 1 scans 32 of 65 536 blocks, K = 100 about 11 000).
// A group's first scan at block k starts from the checkpoint S[k' cb] at or before its first window, formed
// by the chain kernel (boundedChainKernel) from the last known one: the same bits.
// Sums: int64 for integer data (exact), double otherwise, as the reference forms them.
template <class V>
DisjointOutcome solveBounded(const WorkArray& work, const DisjointRule& rule, JobControl& job, ProgressSpan span,
                             const std::string& steps) {
    const int rows = work.rows, cols = work.cols;
    const int H = std::min(rule.maxBox, rows); // strip heights 1..H
    const int L = std::min(rule.maxBox, cols); // segment lengths 1..L
    const BoundedChoice<V> kernels = chooseBounded<V>();
    const int W = kernels.lanes;
    const int G = (H + W - 1) / W; // lane groups a top
    if (W > kMaxBoundedLanes) throw std::logic_error("brightest (cpu): too many bounded lanes");
    // The column prefix sums P[r][c] (rows added top to bottom, as columnPrefixSums and every backend form
    // them), column-major (q[c * qs + r]) so that a vector holds consecutive bottoms; the rows past the last are
    // padding for the lanes beyond the frame (finite, never reported).
    const std::size_t qs = (static_cast<std::size_t>(rows) + H + W + 7) / 8 * 8;
    std::unique_ptr<V[]> qStore(new V[qs * cols]);
    V* const q = qStore.get();
    {
        auto step = job.timing().scope(steps + "prefix sums");
        parallelFor(0, static_cast<std::size_t>(cols), 64, [&](std::size_t c0, std::size_t c1) {
            const std::size_t n = c1 - c0;
            std::vector<V> a(n), run(n, V(0));
            for (std::size_t c = c0; c < c1; ++c) q[c * qs] = V(0);
            for (int r = 0; r < rows; ++r) {
                if constexpr (std::is_integral_v<V>) work.rowInteger(r, a.data(), static_cast<int>(c0), static_cast<int>(c1));
                else work.rowReal(r, a.data(), static_cast<int>(c0), static_cast<int>(c1));
                for (std::size_t i = 0; i < n; ++i) q[(c0 + i) * qs + r + 1] = run[i] = run[i] + a[i];
            }
            for (std::size_t c = c0; c < c1; ++c)
                for (std::size_t r = static_cast<std::size_t>(rows) + 1; r < qs; ++r) q[c * qs + r] = q[c * qs + rows];
        }, threadsForPixels(static_cast<double>(rows) * cols));
    }
    ExclusionIndex exclusions(rows, cols, work.excluded);
    const std::size_t groups = static_cast<std::size_t>(rows) * G;
    // Cache blocks of cb columns (64; wider while the kept bests exceed the budget); one block of the whole
    // row, scanned every round, without keeping (K = 1, or GLINT_MSP_CACHE_MB=0).
    auto bytesFor = [&](int cb) {
        const std::size_t nb = static_cast<std::size_t>((cols + cb - 1) / cb);
        return groups * W * nb * (2 * sizeof(V) + sizeof(std::int32_t));
    };
    bool keep = rule.rounds() > 1;
    int cb = std::min(cols, 64);
    while (keep && cb < cols && bytesFor(cb) > cachedBudget()) cb = std::min(cols, 2 * cb);
    if (keep && bytesFor(cb) > cachedBudget()) keep = false;
    if (!keep) cb = cols;
    const int nb = (cols + cb - 1) / cb;
    const std::size_t perGroup = static_cast<std::size_t>(nb) * W;
    // Per group, cache block and lane: the best sum and its last (written by the block's first scan; read only
    // after it), and the checkpoints S[k cb] for k >= 1 (S[0] = 0).
    std::unique_ptr<V[]> blockSumStore(new V[groups * perGroup]), checkpointStore(new V[keep ? groups * perGroup : 1]);
    std::unique_ptr<std::int32_t[]> blockLastStore(new std::int32_t[groups * perGroup]);
    V* const blockSum = blockSumStore.get();
    V* const checkpoints = checkpointStore.get();
    std::int32_t* const blockLast = blockLastStore.get();
    // Per group and cache block: kUnscanned, its sums are its bound (boundedTopBounds, the same for every lane);
    // kStale, its kept sums are only upper bounds of its bests (a rectangle removed some of its segments since
    // its scan: the candidates only go); kExact. Blocks that are not exact are scanned only when their bound
    // could win a round.
    constexpr std::uint8_t kExact = 0, kStale = 1, kUnscanned = 2;
    std::vector<std::uint8_t> stale(groups * nb, kUnscanned);
    // Per group: the checkpoints S[k cb] are known for k <= known; a scan from block k needs k's.
    std::vector<std::int32_t> known(groups, 0);
    const std::vector<V> bounds = [&] {
        auto step = job.timing().scope(steps + "bounds");
        return boundedTopBounds<V>(work, q, qs, W, G, L, cb, nb);
    }();
    // Per top: its best over the exact blocks, and over all blocks (stale ones counting their bound). Order:
    // the largest sum, then the smallest bottom, then the smallest last.
    struct Best {
        V sum = V(0);
        int bottom = -1; // -1: nothing positive
        int last = -1;
    };
    struct TopBest {
        Best exact;
        Best any;
        bool anyStale = false;
    };
    std::vector<TopBest> topBest(rows);
    // Per top and cache block: the largest value over its groups and lanes (exact sums, stale ones, bounds of
    // unscanned blocks): the parallel rounds' first, coarse look at a candidate's neighbours.
    std::vector<V> topBlockMax(static_cast<std::size_t>(rows) * nb, V(0));
    // Per lane first the largest sum over its blocks (all, and the exact ones), vectorisable; then, in the
    // order of the bottoms, the first block reaching it (smallest last).
    auto bestOfTop = [&](int top) {
        TopBest tb;
        std::array<V, 2 * kMaxBoundedLanes> lanes;
        V* const maxAll = lanes.data();
        V* const maxExact = lanes.data() + W;
        for (int gi = 0; gi < G; ++gi) {
            const std::size_t gid = static_cast<std::size_t>(top) * G + gi;
            const V* sums = blockSum + gid * perGroup;
            const std::uint8_t* st = stale.data() + gid * nb;
            const V* bound = bounds.data() + gid * nb;
            auto value = [&](int k, int l) { return st[k] == kUnscanned ? bound[k] : sums[static_cast<std::size_t>(k) * W + l]; };
            auto lastOf = [&](int k, int l) {
                return st[k] == kUnscanned ? -1 : blockLast[gid * perGroup + static_cast<std::size_t>(k) * W + l];
            };
            std::fill(lanes.begin(), lanes.end(), V(0));
            V* const tbm = topBlockMax.data() + static_cast<std::size_t>(top) * nb;
            for (int k = 0; k < nb; ++k) {
                if (st[k] == kUnscanned) {
                    for (int l = 0; l < W; ++l) maxAll[l] = bound[k] > maxAll[l] ? bound[k] : maxAll[l];
                    if (gi == 0 || bound[k] > tbm[k]) tbm[k] = bound[k];
                    continue;
                }
                const V* row = sums + static_cast<std::size_t>(k) * W;
                V rm = row[0];
                for (int l = 1; l < W; ++l) rm = row[l] > rm ? row[l] : rm;
                if (gi == 0 || rm > tbm[k]) tbm[k] = rm;
                V* m = st[k] == kStale ? maxAll : maxExact; // stale blocks count only in maxAll
                for (int l = 0; l < W; ++l) m[l] = row[l] > m[l] ? row[l] : m[l];
            }
            for (int l = 0; l < W; ++l) {
                const int d = gi * W + l;
                if (d >= H || top + d >= rows) break;
                const V all = maxExact[l] > maxAll[l] ? maxExact[l] : maxAll[l];
                if (all > tb.any.sum) {
                    int k = 0;
                    while (!(value(k, l) == all)) ++k;
                    tb.any = {all, top + d, lastOf(k, l)};
                    tb.anyStale = st[k] != kExact;
                }
                if (maxExact[l] > tb.exact.sum) {
                    int k = 0;
                    while (st[k] != kExact || !(sums[static_cast<std::size_t>(k) * W + l] == maxExact[l])) ++k;
                    tb.exact = {maxExact[l], top + d, blockLast[gid * perGroup + static_cast<std::size_t>(k) * W + l]};
                }
            }
        }
        topBest[top] = tb;
    };
    // Every block unscanned, holding its bound (the first round; every round when nothing is kept).
    auto loadBounds = [&] {
        std::fill(stale.begin(), stale.end(), kUnscanned);
        for (int t = 0; t < rows; ++t) bestOfTop(t);
    };
    MonotoneProgress progress(job, span);
    const double firstShare = rule.rounds() > 1 ? 0.5 : 1.0;
    const std::vector<V> zeros(static_cast<std::size_t>(W), V(0));
    // The scans of one round's look: per top, the stale blocks whose bound reaches `limit` (every stale one
    // when there is none), as one range ka..kb a group (exact blocks inside it are scanned again, to the same
    // bits).
    struct Scan {
        std::int32_t gid, ka, kb;
    };
    std::vector<Scan> scans;
    std::vector<std::size_t> scansOfTop; // tops[i]'s scans: scansOfTop[i]..scansOfTop[i + 1] - 1
    auto rescan = [&](const std::vector<std::int32_t>& tops, std::optional<V> limit, double from, double to) {
        const bool anyBlocked = exclusions.any();
        const BoundedGroupFunction<V> kernel = anyBlocked ? kernels.blocked : kernels.plain;
        scans.clear();
        scansOfTop.assign(1, 0);
        // Work: the lanes' columns scanned (~0.3 ns each); a thread costs ~30 us to start (threadsForPixels).
        double laneColumns = 0.0;
        for (const std::int32_t t : tops) {
            // Without a best yet, a top's own largest bound is its limit: the blocks that hold it.
            const V lim = limit ? *limit : topBest[t].any.sum;
            for (int gi = 0; gi < G; ++gi) {
                const std::size_t gid = static_cast<std::size_t>(t) * G + gi;
                const std::uint8_t* st = stale.data() + gid * nb;
                int ka = -1, kb = -1;
                for (int k = 0; k < nb; ++k) {
                    if (st[k] == kExact) continue;
                    V m = bounds[gid * nb + k];
                    if (st[k] == kStale) {
                        const V* row = blockSum + gid * perGroup + static_cast<std::size_t>(k) * W;
                        m = row[0];
                        for (int l = 1; l < W; ++l) m = row[l] > m ? row[l] : m;
                    }
                    if (m > V(0) && m >= lim) {
                        if (ka < 0) ka = k;
                        kb = k;
                    }
                }
                if (ka < 0) continue;
                scans.push_back({static_cast<std::int32_t>(gid), ka, kb});
                laneColumns += static_cast<double>(W) * (std::min(cols, (kb + 1) * cb) - ka * cb + L);
            }
            scansOfTop.push_back(scans.size());
        }
        const int threads = threadsForPixels(0.6 * laneColumns);
        std::atomic<std::size_t> done{0};
        parallelFor(0, tops.size(), tops.size() >= 256 ? 4 : 1, [&](std::size_t i0, std::size_t i1) {
            std::vector<V> scratchStore(2 * static_cast<std::size_t>(L) * W + 64 / sizeof(V));
            V* scratch = scratchStore.data();
            while (reinterpret_cast<std::uintptr_t>(scratch) % 64 != 0) ++scratch;
            for (std::size_t i = i0; i < i1; ++i) {
                job.throwIfCancelled();
                const int top = tops[i];
                for (std::size_t s = scansOfTop[i]; s < scansOfTop[i + 1]; ++s) {
                    const Scan sc = scans[s];
                    const std::size_t gid = static_cast<std::size_t>(sc.gid);
                    BoundedGroup<V> a;
                    a.q = q;
                    a.qs = qs;
                    a.top = top;
                    a.bottom0 = top + static_cast<int>(gid - static_cast<std::size_t>(top) * G) * W;
                    a.cols = cols;
                    a.window = L;
                    a.cb = cb;
                    a.blockedRow = anyBlocked ? exclusions.row(top) : nullptr;
                    a.la = sc.ka * cb;
                    a.lb = std::min(cols, (sc.kb + 1) * cb) - 1;
                    a.cs = a.la == 0 ? 0 : std::max(0, a.la - L + 1) / cb * cb;
                    a.blockSum = blockSum + gid * perGroup;
                    a.blockLast = blockLast + gid * perGroup;
                    if (keep) {
                        V* chk = checkpoints + gid * perGroup;
                        auto checkpoint = [&](int k) { return k == 0 ? zeros.data() : chk + static_cast<std::size_t>(k) * W; };
                        // S up to the scan's start from the last known checkpoint, as the kernel forms it
                        // (S[c + 1] = S[c] + (pb[c] - pt[c]), lane by lane): the same bits.
                        const int ks = a.cs / cb;
                        if (known[gid] < ks) {
                            std::array<V, kMaxBoundedLanes> S;
                            std::copy_n(checkpoint(known[gid]), W, S.begin());
                            kernels.chain(q, qs, top, a.bottom0, known[gid] * cb, ks * cb, cb, S.data(), chk);
                            known[gid] = ks;
                        }
                        a.s0 = checkpoint(ks);
                        a.checkpoints = chk;
                        known[gid] = std::max(known[gid], std::min(nb - 1, (a.lb + 1) / cb));
                    } else {
                        a.s0 = zeros.data();
                    }
                    a.scratch = scratch;
                    kernel(a);
                    std::fill(stale.begin() + static_cast<std::ptrdiff_t>(gid * nb + sc.ka),
                              stale.begin() + static_cast<std::ptrdiff_t>(gid * nb + sc.kb + 1), kExact);
                }
                bestOfTop(top);
            }
            progress.set(from + (to - from) * static_cast<double>(done += i1 - i0) / static_cast<double>(tops.size()));
        }, threads);
    };
    // At most this many tops are scanned between two looks at the round's best (the largest bounds first).
    const std::size_t batch = static_cast<std::size_t>(16 * std::max(1, cpuThreadCount()));
    std::vector<std::int32_t> need;
    // The winner's first column: boundedFirst over its S, formed as the kernel forms it.
    std::vector<V> S(static_cast<std::size_t>(cols) + 1);
    auto rectOf = [&](int top, const Best& b) {
        S[0] = V(0);
        for (int c = 0; c <= b.last; ++c) {
            const V* col = q + static_cast<std::size_t>(c) * qs;
            S[c + 1] = S[c] + (col[b.bottom + 1] - col[top]);
        }
        int lo = std::max(0, b.last - L + 1);
        if (exclusions.any())
            for (int c = b.last; c >= lo; --c)
                if (exclusions.blocked(top, b.bottom, c)) {
                    lo = c + 1;
                    break;
                }
        const int first = boundedFirst(S.data(), lo, b.last, b.sum);
        if (lo > b.last || !(S[b.last + 1] - S[first] == b.sum))
            throw std::logic_error("brightest (cpu): the bounded search's kept maximum disagrees with its strip");
        return makeWorkRect(top, b.bottom, first, b.last, b.sum);
    };
    // A rectangle's place in the search's order (the largest sum, then the smallest top, bottom, last; two
    // rectangles of one strip and last that both hold a sum are never both left, so the first column never
    // decides between a kept and a pending one).
    struct Key {
        V sum;
        int top, bottom, last;
    };
    auto before = [](const Key& a, const Key& b) {
        if (a.sum != b.sum) return a.sum > b.sum;
        if (a.top != b.top) return a.top < b.top;
        if (a.bottom != b.bottom) return a.bottom < b.bottom;
        return a.last < b.last;
    };
    // Parallel rounds (core/algo/maxsub/NOTES.md): rectangles certified to be taken by the greedy search
    // whatever happens elsewhere, already excluded from the kept blocks (so every rescan of one look serves
    // them all), reported when their turn comes; `pending` in increasing order, the next one at the back.
    // Used with 8 threads or more: on the 16-core H100 host 47 Tuc's K = 1000 took 108-128 ms against 148-158 ms
    // sequentially (update + exclude 71-79 -> 55-63 ms: a look's rescans spread over more tops), on 2 cores they
    // were no faster (NOTES.md, Figures). GLINT_BOUNDED_ROUNDS=parallel|sequential chooses; the tests compare both.
    const bool parallelRounds = keep && [] {
        const char* env = std::getenv("GLINT_BOUNDED_ROUNDS");
        if (env && std::string(env) == "parallel") return true;
        if (env && std::string(env) == "sequential") return false;
        return cpuThreadCount() >= 8;
    }();
    struct Pending {
        Key key;
        WorkRect rect;
    };
    std::vector<Pending> pending;
    bool fromPending = false; // the rectangle search returned last is already excluded
    // The rectangle b of `top` (its exact best) is certified when it comes before, in the search's order, every
    // rectangle still left that meets it: those have a top in top - H + 1..b.bottom, a bottom >= top and a last
    // in b.last - L + 1..b.last + L - 1, so they lie in these tops' blocks kLo..kHi, whose kept values (exact
    // sums, or upper bounds: stale sums, bounds of unscanned blocks) are compared with b's: a larger value, or
    // an equal one that might come first, refuses b (conservative: the value may belong to a rectangle that
    // does not meet b).
    auto certified = [&](int top, const Best& b) {
        const int eBlock = b.last / cb;
        const int kLo = std::max(0, b.last - L + 1) / cb, kHi = std::min(nb - 1, (b.last + L - 1) / cb);
        for (int u = std::max(0, top - H + 1); u <= b.bottom; ++u)
            for (int k = kLo; k <= kHi; ++k) {
                const V mx = topBlockMax[static_cast<std::size_t>(u) * nb + k];
                if (mx < b.sum || (u > top && !(b.sum < mx))) continue; // all smaller, or equal ones after b
                for (int gi = 0; gi < G; ++gi) {
                    const std::size_t gid = static_cast<std::size_t>(u) * G + gi;
                    const std::uint8_t st = stale[gid * nb + k];
                    for (int l = 0; l < W; ++l) {
                        const int d = gi * W + l, bottom = u + d;
                        if (d >= H || bottom >= rows) break;
                        if (bottom < top) continue; // misses b's rows
                        const V v = st == kUnscanned ? bounds[gid * nb + k]
                                                     : blockSum[gid * perGroup + static_cast<std::size_t>(k) * W + l];
                        if (v < b.sum) continue;
                        if (b.sum < v) return false;
                        // An equal value: after b only in a later top, a later bottom of b's top, or a later
                        // block of b's strip; in b's own block the exact kept best must be b.
                        if (u != top) {
                            if (u < top) return false;
                            continue;
                        }
                        if (bottom != b.bottom) {
                            if (bottom < b.bottom) return false;
                            continue;
                        }
                        if (k != eBlock) {
                            if (k < eBlock) return false;
                            continue;
                        }
                        if (st != kExact || blockLast[gid * perGroup + static_cast<std::size_t>(k) * W + l] != b.last) return false;
                    }
                }
            }
        return true;
    };
    // Marks the kept blocks a removed rectangle can change (defined below).
    std::function<void(const WorkRect&)> excludeKept;
    int passes = 0; // looks that scanned or certified: the sequential search's rounds, the parallel search's passes
    auto search = [&](const DisjointOutcome& soFar) -> std::optional<WorkRect> {
        const bool firstRound = soFar.rounds == 0;
        auto step = job.timing().scope(steps + (firstRound ? "search" : "update"));
        const double from = firstRound ? 0.0 : firstShare + (1.0 - firstShare) * roundsFraction(rule, soFar.found.size(), soFar.rounds);
        const double to = firstRound ? firstShare
                                     : firstShare + (1.0 - firstShare) * roundsFraction(rule, soFar.found.size() + 1, soFar.rounds + 1);
        if (firstRound || !keep) loadBounds();
        fromPending = false;
        // The best exact block over the tops (strict: the smallest top) or the next pending rectangle, whichever
        // comes first; then the tops whose bound could beat it (a larger sum, or an equal one earlier in the
        // order) have their stale blocks that could scanned, the largest bounds first, until none is left.
        int bestTop = -1;
        bool scanned = false;
        for (;;) {
            bestTop = -1;
            for (int t = 0; t < rows; ++t)
                if (topBest[t].exact.bottom >= 0 && (bestTop < 0 || topBest[t].exact.sum > topBest[bestTop].exact.sum)) bestTop = t;
            std::optional<Key> lead;
            if (bestTop >= 0) lead = Key{topBest[bestTop].exact.sum, bestTop, topBest[bestTop].exact.bottom, topBest[bestTop].exact.last};
            if (!pending.empty() && (!lead || before(pending.back().key, *lead))) lead = pending.back().key;
            need.clear();
            for (int t = 0; t < rows; ++t) {
                const TopBest& tb = topBest[t];
                if (!tb.anyStale) continue;
                if (!lead || before(Key{tb.any.sum, t, tb.any.bottom, tb.any.last}, *lead)) need.push_back(t);
            }
            if (need.empty()) break;
            if (parallelRounds && !pending.empty()) {
                // Every stale block that could hide a rectangle before one of the pending ones, in one call.
                const V floor = pending.front().key.sum;
                need.clear();
                for (int t = 0; t < rows; ++t)
                    if (topBest[t].anyStale && topBest[t].any.sum >= floor) need.push_back(t);
                rescan(need, std::optional<V>(floor), from, to);
                scanned = true;
                continue;
            }
            if (need.size() > batch) {
                auto larger = [&](std::int32_t a, std::int32_t b) {
                    return topBest[a].any.sum > topBest[b].any.sum || (topBest[a].any.sum == topBest[b].any.sum && a < b);
                };
                std::nth_element(need.begin(), need.begin() + static_cast<std::ptrdiff_t>(batch), need.end(), larger);
                need.resize(batch);
            }
            rescan(need, lead ? std::optional<V>(lead->sum) : std::nullopt, from, to);
            scanned = true;
        }
        if (bestTop < 0 && pending.empty()) return std::nullopt;
        const Key exactKey = bestTop >= 0 ? Key{topBest[bestTop].exact.sum, bestTop, topBest[bestTop].exact.bottom, topBest[bestTop].exact.last}
                                          : Key{};
        if (!pending.empty() && (bestTop < 0 || before(pending.back().key, exactKey))) {
            if (scanned) ++passes;
            const WorkRect rect = pending.back().rect;
            pending.pop_back();
            fromPending = true;
            return rect;
        }
        ++passes;
        const int left = std::min(rule.k - static_cast<int>(soFar.found.size()), rule.rounds() - soFar.rounds);
        if (!parallelRounds || left <= 1) return rectOf(bestTop, topBest[bestTop].exact);
        // A new pass: every block whose bound reaches half the best is scanned (one parallel call), then each
        // top's exact best that passes `certified` is excluded and kept for its turn (the best among them).
        const V theta = exactKey.sum / V(2);
        need.clear();
        for (int t = 0; t < rows; ++t)
            if (topBest[t].anyStale && topBest[t].any.sum >= theta && topBest[t].any.sum > V(0)) need.push_back(t);
        if (!need.empty()) rescan(need, std::optional<V>(theta), from, to);
        std::vector<Pending> batchFound;
        for (int t = 0; t < rows; ++t) {
            const Best& b = topBest[t].exact;
            if (b.bottom >= 0 && certified(t, b)) batchFound.push_back({Key{b.sum, t, b.bottom, b.last}, WorkRect{}});
        }
        std::sort(batchFound.begin(), batchFound.end(), [&](const Pending& a, const Pending& b) { return before(a.key, b.key); });
        for (Pending& p : batchFound) {
            p.rect = rectOf(p.key.top, Best{p.key.sum, p.key.bottom, p.key.last});
            const int r1 = p.rect.row0 + p.rect.rows - 1;
            for (int c = p.rect.col0; c < p.rect.col0 + p.rect.cols; ++c)
                if (exclusions.blocked(p.rect.row0, r1, c))
                    throw std::logic_error("brightest (cpu): two certified rectangles of a parallel round meet");
            excludeKept(p.rect);
        }
        if (batchFound.empty() || before(exactKey, batchFound.front().key) || before(batchFound.front().key, exactKey))
            throw std::logic_error("brightest (cpu): the parallel round did not certify the round's best");
        pending.insert(pending.end(), batchFound.begin(), batchFound.end());
        std::sort(pending.begin(), pending.end(), [&](const Pending& a, const Pending& b) { return before(b.key, a.key); });
        if (before(pending.back().key, exactKey) || before(exactKey, pending.back().key))
            throw std::logic_error("brightest (cpu): a pending rectangle comes before the round's best");
        const WorkRect rect = pending.back().rect;
        pending.pop_back();
        fromPending = true;
        return rect;
    };
    excludeKept = [&](const WorkRect& rect) {
        exclusions.exclude(rect);
        if (!keep) return;
        const int r0 = rect.row0, r1 = rect.row0 + rect.rows - 1, c0 = rect.col0, c1 = rect.col0 + rect.cols - 1;
        // The exact cache blocks of the strips whose rows meet r0..r1 (top <= r1, bottom >= r0) whose kept
        // last's window meets c0..c1 (only blocks c0 / cb .. (c1 + L - 1) / cb can hold one) turn stale.
        const int k0 = c0 / cb, k1 = std::min(nb - 1, (c1 + L - 1) / cb);
        // A top's bests change only where the block holding one turned stale: the sums stay, so its best over
        // all blocks is the same lane and block (now stale), and its exact best, if its block is still exact,
        // is still the first largest (the other lanes' exact maxima only went down).
        for (int t = std::max(0, r0 - H + 1); t <= r1; ++t) {
            TopBest& tb = topBest[t];
            const std::size_t exactBlock = tb.exact.bottom >= 0
                ? (static_cast<std::size_t>(t) * G + (tb.exact.bottom - t) / W) * nb + tb.exact.last / cb : ~std::size_t{0};
            const std::size_t anyBlock = tb.any.bottom >= 0 && tb.any.last >= 0
                ? (static_cast<std::size_t>(t) * G + (tb.any.bottom - t) / W) * nb + tb.any.last / cb : ~std::size_t{0};
            bool exactLost = false;
            const int dFirst = std::max(0, r0 - t), dEnd = std::min(H, rows - t); // the bottoms reaching r0
            for (int gi = dFirst / W; gi * W < dEnd; ++gi) {
                const std::size_t gid = static_cast<std::size_t>(t) * G + gi;
                const int l0 = std::max(0, dFirst - gi * W), l1 = std::min(W, dEnd - gi * W);
                for (int k = k0; k <= k1; ++k) {
                    const std::size_t block = gid * nb + k;
                    if (stale[block] != kExact) continue;
                    const std::int32_t* lasts = blockLast + gid * perGroup + static_cast<std::size_t>(k) * W;
                    bool hit = false;
                    for (int l = l0; l < l1; ++l) hit = hit || (lasts[l] >= 0 && lasts[l] >= c0 && lasts[l] - L + 1 <= c1);
                    if (hit) {
                        stale[block] = kStale;
                        exactLost = exactLost || block == exactBlock;
                        if (block == anyBlock) tb.anyStale = true;
                    }
                }
            }
            if (exactLost) bestOfTop(t);
        }
    };
    auto exclude = [&](const WorkRect& rect) {
        auto step = job.timing().scope(steps + "exclude");
        if (!fromPending) excludeKept(rect); // a pending rectangle was excluded when it was certified
    };
    DisjointOutcome out = runCpuRounds(rule, search, exclude, job, span);
    out.passes = passes;
    return out;

}

} // namespace

DisjointOutcome solveBoundedDisjointCpu(const WorkArray& work, const DisjointRule& rule, JobControl& job, ProgressSpan span,
                                        const std::string& stepPrefix) {
    if (rule.maxBox <= 0) throw std::logic_error("solveBoundedDisjointCpu: no search bound");
    if (work.includedCount == 0) return {};
    return work.integer ? solveBounded<std::int64_t>(work, rule, job, span, stepPrefix)
                        : solveBounded<double>(work, rule, job, span, stepPrefix);
}

} // namespace glint
