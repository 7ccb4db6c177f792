// brightest --mode overlap --distinct F: the exact top K under the rule of Distinct.h. The reference scans
// every rectangle each round; the CPU search keeps each strip's best allowed interval between rounds and
// takes families of strips, then strips, best bound first, a family bounded by one virtual strip against the
// listed rectangles (NOTES.md, "Distinct": the method and why it is exact).
#include "core/algo/kmax/Distinct.h"
#include "core/algo/kmax/DistinctSearch.h"
#include "core/algo/kmax/DistinctStrip.h"
#include "core/algo/kmax/KMax.h"
#include "core/algo/kmax/SegmentHeap.h"
#include "core/algo/kmax/StripSearch.h"

#include "core/algo/regions/WorkArray.h"
#include "core/util/Errors.h"
#include "core/util/Parallel.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <tuple>
#include <utility>

namespace glint {

namespace {

using kmax::DistinctCap;
using kmax::pairSum;

// A strip's row prefix Q over every column (the canonical K-MSP order of StripProblem) and its blocked
// columns (next: ExclusionIndex::row(top), or null).
template <class V>
void buildStrip(const V* pt, const V* pb, int cols, const std::int32_t* next, int bottom, V* q, std::uint8_t* blocked) {
    q[0] = V(0);
    for (int c = 0; c < cols; ++c) {
        q[c + 1] = q[c] + (pb[c] - pt[c]);
        blocked[c] = next && next[c] <= bottom ? 1 : 0;
    }
}

// ---- the reference ----------------------------------------------------------------------------------

// f unset: plain overlap (a rectangle is allowed unless it is a listed one); maxBox > 0: only rectangles with
// both sides <= maxBox.
template <class V>
std::vector<WorkRect> referenceDistinct(const WorkArray& work, std::size_t k, std::optional<double> f, int maxBox, JobControl& job,
                                        ProgressSpan span) {
    const std::vector<V> P = timedColumnPrefixSums<V>(work, job);
    auto step = job.timing().scope("search");
    const int rows = work.rows, cols = work.cols;
    const ExclusionIndex exclusions(rows, cols, work.excluded);
    const DistinctCap cap(f.value_or(0.0));
    const int box = maxBox > 0 ? maxBox : std::max(rows, cols);
    auto allowedBy = [&](const WorkRect& rect, const WorkRect& L) {
        if (f) return kmax::distinctAllowed(rect, L, cap);
        return std::make_tuple(rect.row0, rect.rows, rect.col0, rect.cols) != std::make_tuple(L.row0, L.rows, L.col0, L.cols);
    };
    std::vector<WorkRect> listed;
    std::vector<V> q(static_cast<std::size_t>(cols) + 1);
    std::vector<std::uint8_t> blocked(static_cast<std::size_t>(cols));
    while (listed.size() < k) {
        bool have = false;
        V bestSum = V(0);
        WorkRect best;
        // Tops, bottoms, first and last columns ascending, a new best only when strictly larger: the first
        // of equal sums in rankedBefore's order wins.
        for (int top = 0; top < rows; ++top) {
            job.throwIfCancelled();
            for (int bottom = top; bottom < rows && bottom - top < box; ++bottom) {
                buildStrip(P.data() + static_cast<std::size_t>(top) * cols, P.data() + static_cast<std::size_t>(bottom + 1) * cols,
                           cols, exclusions.any() ? exclusions.row(top) : nullptr, bottom, q.data(), blocked.data());
                // The strip's largest sum, rule and bound aside: a strip that cannot beat the best so far is passed
                // over.
                bool any = false;
                V stripMax = V(0);
                int arg = -1;
                for (int r = 0; r < cols; ++r) {
                    if (blocked[r]) {
                        arg = -1;
                        continue;
                    }
                    if (arg < 0 || q[r] < q[arg]) arg = r;
                    const V s = pairSum(q[r + 1], q[arg]);
                    if (!any || s > stripMax) stripMax = s;
                    any = true;
                }
                if (!any || (have && !(stripMax > bestSum))) continue;
                for (int l = 0; l < cols; ++l)
                    for (int r = l; r < cols && !blocked[r] && r - l < box; ++r) {
                        const V s = pairSum(q[r + 1], q[l]);
                        if (have && !(s > bestSum)) continue;
                        const WorkRect rect = makeWorkRect(top, bottom, l, r, s);
                        bool allowed = true;
                        for (const WorkRect& L : listed)
                            if (!allowedBy(rect, L)) {
                                allowed = false;
                                break;
                            }
                        if (!allowed) continue;
                        have = true;
                        bestSum = s;
                        best = rect;
                    }
            }
        }
        if (!have) break;
        listed.push_back(best);
        span.set(job, static_cast<double>(listed.size()) / static_cast<double>(k));
    }
    return listed;
}

// ---- the CPU search ----------------------------------------------------------------------------------

// The families with each one's largest Kadane bound of its strips (a max pyramid over the levels).
template <class V>
class StripFamilies : public kmax::BlockExtremes<V> {
public:
    // upper: every strip's Kadane bound (StripMaxima's order), taken over.
    StripFamilies(int rows, int cols, const std::vector<V>& P, std::vector<V> upper)
        : kmax::BlockExtremes<V>(rows, cols, P), upper_(std::move(upper)) {
        bound_.resize(static_cast<std::size_t>(this->levels_) + 1);
        for (int k = 1; k <= this->levels_; ++k) {
            const int n = this->blocks(k), below = this->blocks(k - 1);
            auto& bound = bound_[k];
            bound.assign(StripMaxima::index(n, n, n), V(0));
            for (int ti = 0; ti < below; ++ti)
                for (int bi = ti; bi < below; ++bi) {
                    V& b = bound[StripMaxima::index(n, ti >> 1, bi >> 1)];
                    b = std::max(b, familyBound(k - 1, ti, bi));
                }
        }
    }

    // The largest Kadane bound of the family's strips.
    V familyBound(int k, int ti, int bi) const {
        if (k == 0) return upper_[StripMaxima::index(this->rows_, ti, bi)];
        return bound_[k][StripMaxima::index(this->blocks(k), ti, bi)];
    }

private:
    std::vector<V> upper_;
    std::vector<std::vector<V>> bound_;
};

template <class V>
std::vector<WorkRect> cpuDistinct(const WorkArray& work, std::size_t k, double f, JobControl& job, ProgressSpan span) {
    const int rows = work.rows, cols = work.cols;
    if (static_cast<double>(rows) * (rows + 1) / 2 > 1.5e8)
        throw UsageError("--distinct takes images of at most 17 320 pixels on the shorter side (its table of strips)");
    StripMaxima maxima = computeStripMaximaCpu(work, job);
    job.throwIfCancelled();
    span.set(job, 0.3);
    const std::vector<V> P = timedColumnPrefixSums<V>(work, job);
    auto step = job.timing().scope("search");
    const double slack = kmax::orderSlack(work);
    // Bounds from double sums in another order than the canonical one: plus the slack between the orders.
    auto above = [&](double x) { return std::nextafter(x + slack, std::numeric_limits<double>::infinity()); };
    const ExclusionIndex exclusions(rows, cols, work.excluded);
    const DistinctCap cap(f);
    // Every strip's upper bound: Kadane's maximum (clamped at 0: at least the strip's best), for double sums
    // above the slack.
    std::vector<V> upper;
    if constexpr (std::is_integral_v<V>) {
        upper = std::move(maxima.ints);
    } else {
        upper = std::move(maxima.reals);
        for (double& u : upper) u = above(u);
    }
    const StripFamilies<V> families(rows, cols, P, std::move(upper));
    job.throwIfCancelled();

    std::vector<kmax::Entry<V>> heap;
    const kmax::EntryAfter<V> after;
    auto push = [&](const kmax::Entry<V>& e) {
        heap.push_back(e);
        std::push_heap(heap.begin(), heap.end(), after);
    };
    auto stripKey = [&](int top, int bottom) { return static_cast<std::uint64_t>(StripMaxima::index(rows, top, bottom)); };
    {
        const int top = families.levels();
        push({families.familyBound(top, 0, 0), 0, 0, 0, 0, -1, 0, static_cast<std::uint8_t>(top), false, false});
    }
    std::vector<WorkRect> listed;
    auto rectOf = [&](const kmax::Entry<V>& e) { return makeWorkRect(e.ti, e.bi, e.first, e.last, e.value); };
    // An exact strip still holds when the rectangles listed since it was found allow it.
    auto stillAllowed = [&](kmax::Entry<V>& e) {
        if (e.level != 0 || !e.exact) return false;
        const WorkRect r = rectOf(e);
        for (std::size_t v = e.version; v < listed.size(); ++v)
            if (!kmax::distinctAllowed(r, listed[v], cap)) return false;
        e.version = static_cast<std::uint32_t>(listed.size());
        return true;
    };
    // A family's members, one level down (children that hold no strip with top <= bottom are left out); a
    // family of level 1 gives strips. Each inherits the family's bound where it is lower than its own.
    auto split = [&](const kmax::Entry<V>& e) {
        const int lv = e.level - 1;
        if (lv == 0) {
            for (int t = families.firstRow(1, e.ti); t <= families.lastRow(1, e.ti); ++t)
                for (int b = std::max(t, families.firstRow(1, e.bi)); b <= families.lastRow(1, e.bi); ++b)
                    push({std::min(e.value, families.familyBound(0, t, b)), stripKey(t, b), t, b, 0, -1, 0, 0, false, false});
            return;
        }
        const int n = families.blocks(lv);
        for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 2; ++j) {
                const int ti = 2 * e.ti + i, bi = 2 * e.bi + j;
                if (ti > bi || bi >= n) continue;
                const int t0 = families.firstRow(lv, ti);
                push({std::min(e.value, families.familyBound(lv, ti, bi)), stripKey(t0, std::max(t0, families.firstRow(lv, bi))), ti, bi,
                      0, -1, 0, static_cast<std::uint8_t>(lv), false, false});
            }
    };

    const int threads = cpuThreadCount();
    std::vector<std::unique_ptr<kmax::StripSolver<V>>> solvers(static_cast<std::size_t>(threads));
    std::vector<std::vector<kmax::Constraint>> constraints(static_cast<std::size_t>(threads));
    std::vector<std::vector<V>> scratches(static_cast<std::size_t>(threads), std::vector<V>(2 * static_cast<std::size_t>(cols)));
    // One strip's best allowed interval, or one family's virtual strip (a bound), against every listed rectangle.
    auto solve = [&](kmax::Entry<V>& e, kmax::StripSolver<V>& solver, std::vector<kmax::Constraint>& cons, std::vector<V>& scratch) {
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
                const std::int64_t rho = kmax::spanOverlap(top, bottom, L.row0, L.row0 + L.rows - 1);
                if (rho > 0) cons.push_back({L.col0, L.col0 + L.cols - 1, rho, h, cap(kmax::rectArea(L)) / rho, rho > capH});
            }
            const kmax::StripBest<V> best = solver.solve(cons, cap);
            e.version = static_cast<std::uint32_t>(listed.size());
            e.exact = best.any;
            if (best.any) {
                e.value = best.value;
                e.first = best.first;
                e.last = best.last;
            }
            return best.any;
        }
        // The virtual strip: column c's sum at most highest - lowest in every member (rounding is monotone);
        // blocked where the rows every member holds (off the diagonal: the last top to the first bottom) are.
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
        const std::int64_t hMax = b1 - t0 + 1;
        for (const WorkRect& L : listed) {
            const int l0 = L.row0, l1 = L.row0 + L.rows - 1;
            // The fewest rows a member shares with L: off the diagonal the rows every member holds; on it the
            // members include each single row.
            const std::int64_t rhoMin = diagonal ? (l0 <= t0 && l1 >= t1 ? 1 : 0) : kmax::spanOverlap(t1, b0, l0, l1);
            if (rhoMin == 0) continue;
            const std::int64_t cB = cap(kmax::rectArea(L)) / rhoMin;
            if (l0 <= t0 && l1 >= b1) cons.push_back({L.col0, L.col0 + L.cols - 1, 1, 1, cB, true});
            else cons.push_back({L.col0, L.col0 + L.cols - 1, rhoMin, hMax, cB, rhoMin > cap(hMax)});
        }
        const kmax::StripBest<V> best = solver.solve(cons, cap, false);
        e.version = static_cast<std::uint32_t>(listed.size());
        e.refined = true;
        if (best.any) {
            if constexpr (std::is_integral_v<V>) e.value = std::min(e.value, best.value);
            else e.value = std::min(e.value, above(best.value));
        }
        return best.any;
    };

    std::vector<kmax::Entry<V>> batch;
    std::vector<std::uint8_t> keep;
    while (listed.size() < k) {
        job.throwIfCancelled();
        std::size_t batchSize = 1;
        bool exhausted = false;
        for (;;) {
            batch.clear();
            while (batch.size() < batchSize) {
                if (heap.empty()) break;
                kmax::Entry<V>& top = heap.front();
                if (stillAllowed(top)) break;
                std::pop_heap(heap.begin(), heap.end(), after);
                const kmax::Entry<V> e = heap.back();
                heap.pop_back();
                // A family is split once its bound holds against every listed rectangle (before the first is
                // listed, its Kadane bound).
                if (e.level > 0 && (listed.empty() || (e.refined && e.version == listed.size()))) split(e);
                else batch.push_back(e);
            }
            if (batch.empty()) {
                if (heap.empty()) exhausted = true;
                break; // the top holds: this round's rectangle
            }
            job.throwIfCancelled();
            keep.assign(batch.size(), 0);
            // Items handed out one at a time (a solve takes 10-500 us): a worker that starts late, or shares
            // its core, takes fewer.
            const int use = batch.size() >= 8 ? std::min<int>(threads, static_cast<int>(batch.size() / 4)) : 1;
            std::atomic<std::size_t> nextItem{0};
            parallelFor(0, static_cast<std::size_t>(use), 1, [&](std::size_t slot, std::size_t) {
                if (!solvers[slot]) solvers[slot] = std::make_unique<kmax::StripSolver<V>>(cols, f);
                for (std::size_t b; (b = nextItem.fetch_add(1, std::memory_order_relaxed)) < batch.size();)
                    keep[b] = solve(batch[b], *solvers[slot], constraints[slot], scratches[slot]) ? 1 : 0;
            }, use);
            for (std::size_t b = 0; b < batch.size(); ++b)
                if (keep[b]) push(batch[b]); // else nothing is allowed there, now or later
            batchSize = std::min<std::size_t>(batchSize * 2, 64);
        }
        if (exhausted) break;
        std::pop_heap(heap.begin(), heap.end(), after);
        kmax::Entry<V> won = heap.back();
        heap.pop_back();
        listed.push_back(rectOf(won));
        // The strip's best is listed now, so the rule forbids it (F < 1): its sum stays only a bound.
        won.exact = false;
        push(won);
        span.set(job, 0.3 + 0.7 * static_cast<double>(listed.size()) / static_cast<double>(k));
    }
    return listed;
}

} // namespace

std::vector<WorkRect> distinctTopKReference(const WorkArray& work, std::size_t k, double f, JobControl& job,
                                            ProgressSpan span) {
    if (work.includedCount == 0) return {};
    return work.integer ? referenceDistinct<std::int64_t>(work, k, f, 0, job, span) : referenceDistinct<double>(work, k, f, 0, job, span);
}

std::vector<WorkRect> distinctTopKCpu(const WorkArray& work, std::size_t k, double f, JobControl& job, ProgressSpan span,
                                      const std::string& steps) {
    if (work.includedCount == 0) return {};
    return kmax::withStepPrefix(job, steps, [&] {
        return work.integer ? cpuDistinct<std::int64_t>(work, k, f, job, span) : cpuDistinct<double>(work, k, f, job, span);
    });
}

std::vector<WorkRect> boundedTopKReference(const WorkArray& work, std::size_t k, std::optional<double> f, int maxBox, JobControl& job,
                                           ProgressSpan span) {
    if (maxBox <= 0) throw std::logic_error("boundedTopKReference: no search bound");
    if (work.includedCount == 0) return {};
    return work.integer ? referenceDistinct<std::int64_t>(work, k, f, maxBox, job, span)
                        : referenceDistinct<double>(work, k, f, maxBox, job, span);
}

} // namespace glint
