// brightest --mode overlap --max-box P: the exact top K among the rectangles with both sides <= P, plain or
// under --distinct F, on the CPU (the cuda backend runs it on the host). The --distinct search's families and
// strips (KMaxDistinct.cpp), every family bounded by a virtual strip of intervals of at most P columns
// (NOTES.md, "Bounded").
#include "core/algo/kmax/Distinct.h"
#include "core/algo/kmax/DistinctSearch.h"
#include "core/algo/kmax/DistinctStrip.h"
#include "core/algo/kmax/KMax.h"
#include "core/algo/kmax/SegmentHeap.h"
#include "core/algo/kmax/StripSearch.h"

#include "core/algo/regions/WorkArray.h"
#include "core/util/Parallel.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <utility>

namespace glint {

namespace {

using kmax::BlockExtremes;
using kmax::DistinctCap;
using kmax::Entry;
using kmax::EntryAfter;

// The exact top k among the rectangles with both sides <= P (strips of at most P rows, intervals of at most P
// columns): under the rule (f set) or plain (f unset: the k best distinct rectangles). The same heap of families
// and strips as cpuDistinct, with no Kadane bounds (they span whole rows, which the bound cuts): every family is
// bounded by its virtual strip (intervals of <= P columns, the tallest member at most P rows) before it is split,
// and a strip starts with its family's bound. Families whose members would all be taller than P are never made.
// Plain: no listed rectangle constrains a family or another strip, so a family's bound is computed once; a strip
// is solved against the listed rectangles of that very strip (only those intervals are forbidden). NOTES.md,
// "Bounded".
template <class V>
std::vector<WorkRect> cpuBounded(const WorkArray& work, std::size_t k, std::optional<double> f, int maxBox, JobControl& job,
                                 ProgressSpan span) {
    const int rows = work.rows, cols = work.cols;
    const int H = std::min(maxBox, rows), maxLen = std::min(maxBox, cols);
    const bool plain = !f;
    const std::vector<V> P = timedColumnPrefixSums<V>(work, job);
    job.throwIfCancelled();
    span.set(job, 0.1);
    auto step = job.timing().scope("search");
    const double slack = kmax::orderSlack(work);
    auto above = [&](double x) { return std::nextafter(x + slack, std::numeric_limits<double>::infinity()); };
    const ExclusionIndex exclusions(rows, cols, work.excluded);
    const DistinctCap cap(f.value_or(0.0));
    const BlockExtremes<V> families(rows, cols, P);
    job.throwIfCancelled();

    std::vector<Entry<V>> heap;
    const EntryAfter<V> after;
    auto push = [&](const Entry<V>& e) {
        heap.push_back(e);
        std::push_heap(heap.begin(), heap.end(), after);
    };
    auto stripKey = [&](int top, int bottom) { return static_cast<std::uint64_t>(StripMaxima::index(rows, top, bottom)); };
    // Family (lv, ti, bi)'s first member in the ranking's order (smallest top, then bottom), or false when every
    // strip it would hold is taller than H.
    auto firstMember = [&](int lv, int ti, int bi, int& top, int& bottom) {
        const int t0 = families.firstRow(lv, ti), t1 = families.lastRow(lv, ti), b0 = families.firstRow(lv, bi);
        if (ti == bi) {
            top = bottom = t0;
            return true;
        }
        if (b0 - t1 >= H) return false;
        top = std::max(t0, b0 - H + 1);
        bottom = b0;
        return true;
    };
    {
        const V unknown = std::is_integral_v<V> ? std::numeric_limits<V>::max() : std::numeric_limits<V>::infinity();
        push({unknown, 0, 0, 0, 0, -1, 0, static_cast<std::uint8_t>(families.levels()), false, false});
    }
    std::vector<WorkRect> listed;
    auto rectOf = [&](const Entry<V>& e) { return makeWorkRect(e.ti, e.bi, e.first, e.last, e.value); };
    auto stillAllowed = [&](Entry<V>& e) {
        if (e.level != 0 || !e.exact) return false;
        if (plain) return true; // its interval was found against every listed one of its strip, and only it lists there
        const WorkRect r = rectOf(e);
        for (std::size_t v = e.version; v < listed.size(); ++v)
            if (!kmax::distinctAllowed(r, listed[v], cap)) return false;
        e.version = static_cast<std::uint32_t>(listed.size());
        return true;
    };
    // A family's members one level down, each with the family's bound (a family of level 1 gives strips).
    auto split = [&](const Entry<V>& e) {
        const int lv = e.level - 1;
        if (lv == 0) {
            for (int t = families.firstRow(1, e.ti); t <= families.lastRow(1, e.ti); ++t)
                for (int b = std::max(t, families.firstRow(1, e.bi)); b <= std::min(families.lastRow(1, e.bi), t + H - 1); ++b)
                    push({e.value, stripKey(t, b), t, b, 0, -1, 0, 0, false, false});
            return;
        }
        const int n = families.blocks(lv);
        for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 2; ++j) {
                const int ti = 2 * e.ti + i, bi = 2 * e.bi + j;
                int top = 0, bottom = 0;
                if (ti > bi || bi >= n || !firstMember(lv, ti, bi, top, bottom)) continue;
                push({e.value, stripKey(top, bottom), ti, bi, 0, -1, 0, static_cast<std::uint8_t>(lv), false, false});
            }
    };

    const int threads = cpuThreadCount();
    std::vector<std::unique_ptr<kmax::StripSolver<V>>> solvers(static_cast<std::size_t>(threads));
    std::vector<std::vector<kmax::Constraint>> constraints(static_cast<std::size_t>(threads));
    std::vector<std::vector<V>> scratches(static_cast<std::size_t>(threads), std::vector<V>(2 * static_cast<std::size_t>(cols)));
    auto solve = [&](Entry<V>& e, kmax::StripSolver<V>& solver, std::vector<kmax::Constraint>& cons, std::vector<V>& scratch) {
        V* q = solver.prefix();
        std::uint8_t* blocked = solver.blocked();
        cons.clear();
        q[0] = V(0);
        if (e.level == 0) {
            const int top = e.ti, bottom = e.bi;
            const V *pt = families.prefixRow(top), *pb = families.prefixRow(bottom + 1);
            const std::int32_t* next = exclusions.any() ? exclusions.row(top) : nullptr;
            for (int c = 0; c < cols; ++c) {
                q[c + 1] = q[c] + (pb[c] - pt[c]);
                blocked[c] = next && next[c] <= bottom ? 1 : 0;
            }
            const std::int64_t h = bottom - top + 1, capH = cap(h);
            for (const WorkRect& L : listed) {
                if (plain) {
                    if (L.row0 == top && L.rows == h) cons.push_back({L.col0, L.col0 + L.cols - 1, 0, 0, 0, false, true});
                    continue;
                }
                const std::int64_t rho = kmax::spanOverlap(top, bottom, L.row0, L.row0 + L.rows - 1);
                if (rho > 0) cons.push_back({L.col0, L.col0 + L.cols - 1, rho, h, cap(kmax::rectArea(L)) / rho, rho > capH});
            }
            const kmax::StripBest<V> best = solver.solve(cons, cap, true, maxLen);
            e.version = static_cast<std::uint32_t>(listed.size());
            e.exact = best.any;
            if (best.any) {
                e.value = best.value;
                e.first = best.first;
                e.last = best.last;
            }
            return best.any;
        }
        // The virtual strip (as cpuDistinct's), its intervals of at most P columns and its members at most H rows.
        const int lv = e.level;
        const int t0 = families.firstRow(lv, e.ti), t1 = families.lastRow(lv, e.ti);
        const int b0 = families.firstRow(lv, e.bi), b1 = families.lastRow(lv, e.bi);
        const bool diagonal = e.ti == e.bi;
        const auto [lo, hi] = families.extremes(lv, e.ti, e.bi, scratch.data(), scratch.data() + cols);
        const std::int32_t* next = exclusions.any() && !diagonal ? exclusions.row(t1) : nullptr;
        for (int c = 0; c < cols; ++c) {
            q[c + 1] = q[c] + (hi[c] - lo[c]);
            blocked[c] = next && next[c] <= b0 ? 1 : 0;
        }
        const std::int64_t hMax = std::min<std::int64_t>(H, b1 - t0 + 1);
        if (!plain)
            for (const WorkRect& L : listed) {
                const int l0 = L.row0, l1 = L.row0 + L.rows - 1;
                const std::int64_t rhoMin = diagonal ? (l0 <= t0 && l1 >= t1 ? 1 : 0) : kmax::spanOverlap(t1, b0, l0, l1);
                if (rhoMin == 0) continue;
                const std::int64_t cB = cap(kmax::rectArea(L)) / rhoMin;
                if (l0 <= t0 && l1 >= b1) cons.push_back({L.col0, L.col0 + L.cols - 1, 1, 1, cB, true});
                else cons.push_back({L.col0, L.col0 + L.cols - 1, rhoMin, hMax, cB, rhoMin > cap(hMax)});
            }
        const kmax::StripBest<V> best = solver.solve(cons, cap, false, maxLen);
        e.version = static_cast<std::uint32_t>(listed.size());
        e.refined = true;
        if (best.any) {
            if constexpr (std::is_integral_v<V>) e.value = std::min(e.value, best.value);
            else e.value = std::min(e.value, above(best.value));
        }
        return best.any;
    };

    std::vector<Entry<V>> batch;
    std::vector<std::uint8_t> keep;
    while (listed.size() < k) {
        job.throwIfCancelled();
        std::size_t batchSize = 1;
        bool exhausted = false;
        for (;;) {
            batch.clear();
            while (batch.size() < batchSize) {
                if (heap.empty()) break;
                Entry<V>& top = heap.front();
                if (stillAllowed(top)) break;
                std::pop_heap(heap.begin(), heap.end(), after);
                const Entry<V> e = heap.back();
                heap.pop_back();
                // A family is split once its virtual strip has bounded it against every listed rectangle (plain:
                // once bounded at all).
                if (e.level > 0 && e.refined && (plain || e.version == listed.size())) split(e);
                else batch.push_back(e);
            }
            if (batch.empty()) {
                if (heap.empty()) exhausted = true;
                break;
            }
            job.throwIfCancelled();
            keep.assign(batch.size(), 0);
            const int use = batch.size() >= 8 ? std::min<int>(threads, static_cast<int>(batch.size() / 4)) : 1;
            std::atomic<std::size_t> nextItem{0};
            parallelFor(0, static_cast<std::size_t>(use), 1, [&](std::size_t slot, std::size_t) {
                if (!solvers[slot]) solvers[slot] = std::make_unique<kmax::StripSolver<V>>(cols, f.value_or(0.0));
                for (std::size_t b; (b = nextItem.fetch_add(1, std::memory_order_relaxed)) < batch.size();)
                    keep[b] = solve(batch[b], *solvers[slot], constraints[slot], scratches[slot]) ? 1 : 0;
            }, use);
            for (std::size_t b = 0; b < batch.size(); ++b)
                if (keep[b]) push(batch[b]);
            batchSize = std::min<std::size_t>(batchSize * 2, 64);
        }
        if (exhausted) break;
        std::pop_heap(heap.begin(), heap.end(), after);
        Entry<V> won = heap.back();
        heap.pop_back();
        listed.push_back(rectOf(won));
        // Its interval is listed now: under the rule (F < 1) no longer allowed, plain a forbidden one of its strip;
        // its sum stays a bound of the strip's next.
        won.exact = false;
        push(won);
        span.set(job, 0.1 + 0.9 * static_cast<double>(listed.size()) / static_cast<double>(k));
    }
    return listed;
}

} // namespace

std::vector<WorkRect> boundedTopKCpu(const WorkArray& work, std::size_t k, std::optional<double> f, int maxBox, JobControl& job,
                                     ProgressSpan span, const std::string& steps) {
    if (maxBox <= 0) throw std::logic_error("boundedTopKCpu: no search bound");
    if (work.includedCount == 0) return {};
    return kmax::withStepPrefix(job, steps, [&] {
        return work.integer ? cpuBounded<std::int64_t>(work, k, f, maxBox, job, span)
                            : cpuBounded<double>(work, k, f, maxBox, job, span);
    });
}

// Backends with no bounded search of their own (cuda) run the CPU search on the host.
std::vector<WorkRect> KMaxRectSolver::topKBounded(const WorkArray& work, std::size_t k, std::optional<double> f, int maxBox,
                                                  JobControl& job, ProgressSpan span) {
    return boundedTopKCpu(work, k, f, maxBox, job, span, "host: ");
}

} // namespace glint
