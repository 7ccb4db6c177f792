// The previous CPU search of brightest --mode overlap --distinct F (before the strip families), kept as an
// oracle for the tests on inputs too large for the reference: each strip keeps its best allowed interval
// between rounds, strips are taken by their Kadane bound, and floors bound a round's solves. Exact, slower.
#pragma once

#include "core/algo/kmax/Distinct.h"
#include "core/algo/kmax/DistinctStrip.h"
#include "core/algo/kmax/KMax.h"
#include "core/algo/kmax/SegmentHeap.h"
#include "core/algo/kmax/StripSearch.h"
#include "core/algo/regions/WorkArray.h"
#include "core/util/Errors.h"
#include "core/util/Parallel.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

namespace glint::test::distinct_oracle {

// The plain helpers of the search (the strip's canonical prefix, the galloping search for a threshold, the
// sparse table of range maxima) are the library's; the search itself is this file's own.
using kmax::buildStrip;
using kmax::DistinctCap;
using kmax::FirstMaxTable;
using kmax::firstTrue;
using kmax::pairSum;

// ---- the CPU search ----------------------------------------------------------------------------------

// A listed rectangle as a strip sees it: its columns, the rows it shares with the strip (rho > 0), and
// the most columns it may share (cB = floor(F |L|) / rho: the rule's half |r n L| <= F |L|).
struct Constraint {
    int first = 0;
    int last = 0;
    std::int64_t rho = 0;
    std::int64_t cB = 0;
    bool narrow = false; // rho > F h: a rectangle whose columns L covers shares more than F of its own area
};

template <class V>
struct StripOutcome {
    enum Kind : std::uint8_t { None, Exact, Bound };
    Kind kind = None;
    V value = V(0);
    int first = 0;
    int last = -1;
};

// One strip's best allowed interval (scratch kept between strips; one per thread).
template <class V>
class StripSolver {
public:
    StripSolver(int cols, double f)
        : cols_(cols), fValue_(f), q_(static_cast<std::size_t>(cols) + 1), blocked_(cols), segEnd_(cols), sm_(cols), smIdx_(cols),
          rangeMax_(cols) {}

    // The strip top..bottom against the listed rectangles: Exact (its best allowed interval, in the
    // ranking's order), Bound (nothing allowed reaches `floor`; value bounds its best from above), or None
    // (no interval is allowed). Without hasFloor every strip is solved exactly.
    StripOutcome<V> solve(const V* pt, const V* pb, const std::int32_t* next, int top, int bottom,
                          const std::vector<WorkRect>& listed, const DistinctCap& cap, bool hasFloor, V floor) {
        const int cols = cols_;
        const std::int64_t h = bottom - top + 1;
        cons_.clear();
        const std::int64_t capH = cap(h);
        for (const WorkRect& L : listed) {
            const std::int64_t rho = kmax::spanOverlap(top, bottom, L.row0, L.row0 + L.rows - 1);
            if (rho == 0) continue;
            // rho > F h exactly when rho > floor(F h) (rho is an integer).
            const Constraint con{L.col0, L.col0 + L.cols - 1, rho, cap(kmax::rectArea(L)) / rho, rho > capH};
            // L over every column with rho > F h: every rectangle of the strip shares rho w > F h w cells with
            // it (w its width), so nothing is allowed, now or later.
            if (con.narrow && con.first == 0 && con.last == cols - 1) return {};
            cons_.push_back(con);
        }
        buildStrip(pt, pb, cols, next, bottom, q_.data(), blocked_.data());
        // Suffix maxima of Q[r + 1] over r in l..(end of l's run of free columns), the first index on ties.
        for (int c = cols - 1; c >= 0; --c) {
            if (blocked_[c]) continue;
            if (c + 1 < cols && !blocked_[c + 1]) {
                segEnd_[c] = segEnd_[c + 1];
                if (!(q_[c + 1] < sm_[c + 1])) {
                    sm_[c] = q_[c + 1];
                    smIdx_[c] = c;
                } else {
                    sm_[c] = sm_[c + 1];
                    smIdx_[c] = smIdx_[c + 1];
                }
            } else {
                segEnd_[c] = c + 1;
                sm_[c] = q_[c + 1];
                smIdx_[c] = c;
            }
        }
        rangeMax_.reset();
        bool have = false, pruned = false;
        V bestSum = V(0), prunedMax = V(0);
        int bestL = 0, bestR = -1;
        for (int l = 0; l < cols; ++l) {
            if (blocked_[l]) continue;
            // Rounding is monotone, so the largest Q[r + 1] gives l's largest sum: a bound on l's best.
            const V bound = pairSum(sm_[l], q_[l]);
            if (hasFloor && bound < floor) {
                if (!pruned || bound > prunedMax) prunedMax = bound;
                pruned = true;
                continue;
            }
            if (have && !(bound > bestSum)) continue; // an equal sum at a larger first column comes later
            const int e = segEnd_[l];
            iv_.clear();
            for (const Constraint& con : cons_) {
                std::int64_t fs = 0, fe = 0;
                if (forbidden(l, e, h, con, cap, fs, fe)) iv_.push_back({static_cast<int>(fs), static_cast<int>(fe)});
            }
            V cur = bound;
            int curR = smIdx_[l];
            if (!iv_.empty()) {
                std::sort(iv_.begin(), iv_.end());
                bool found = false;
                auto piece = [&](int a, int z) {
                    const int idx = z == e - 1 ? smIdx_[a] : rangeMax_(q_.data(), a, z);
                    const V s = pairSum(q_[idx + 1], q_[l]);
                    if (!found || s > cur) {
                        cur = s;
                        curR = idx;
                        found = true;
                    }
                };
                int pos = l;
                for (const auto& [fs, fe] : iv_) {
                    if (fs > pos) piece(pos, fs - 1);
                    pos = std::max(pos, fe + 1);
                }
                if (pos <= e - 1) piece(pos, e - 1);
                if (!found) continue; // every last column is forbidden
                if (have && !(cur > bestSum)) continue;
            }
            if constexpr (std::is_floating_point_v<V>) {
                // A smaller Q can round to the same sum: the ranking names the first such last column.
                std::size_t j = 0;
                for (int r = l; r < curR; ++r) {
                    while (j < iv_.size() && iv_[j].second < r) ++j;
                    if (j < iv_.size() && iv_[j].first <= r) continue; // forbidden
                    if (pairSum(q_[r + 1], q_[l]) == cur) {
                        curR = r;
                        break;
                    }
                }
            }
            have = true;
            bestSum = cur;
            bestL = l;
            bestR = curR;
        }
        StripOutcome<V> out;
        if (have && (!hasFloor || !(bestSum < floor))) {
            out.kind = StripOutcome<V>::Exact;
            out.value = bestSum;
            out.first = bestL;
            out.last = bestR;
        } else if (have || pruned) {
            out.kind = StripOutcome<V>::Bound;
            out.value = have && pruned ? std::max(bestSum, prunedMax) : have ? bestSum : prunedMax;
        }
        return out;
    }

private:
    // The last columns r (l <= r < e) that one listed rectangle forbids for first column l: an interval
    // [fs, fe] (NOTES.md). c = the shared columns, w = r - l + 1. Left of m = max(l, L.first) nothing is
    // shared; from m to L.last c grows with r and w = c + (m - l), so both halves of the rule, rho c <=
    // floor(F |L|) and rho c <= floor(F h w), hold for a prefix of those c (exactly: in real arithmetic the
    // second is c (rho - F h) <= F h (m - l)); right of L.last c stays and only w grows, so the second half
    // holds again from some width on, the first never (if it failed before).
    bool forbidden(int l, int e, std::int64_t h, const Constraint& con, const DistinctCap& cap, std::int64_t& fs,
                   std::int64_t& fe) const {
        if (con.last < l || con.first > e - 1) return false;
        const std::int64_t m = std::max(l, con.first), cL = con.last - m + 1, d = m - l, rho = con.rho;
        auto feasA = [&](std::int64_t c) { return rho * c <= cap(h * (c + d)); };
        const std::int64_t lim = std::min(cL, con.cB);
        std::int64_t allowed = lim; // c = 0..allowed pass both halves
        if (d == 0 && con.narrow) {
            allowed = 0; // rho c > F h c for every c >= 1
        } else if (lim > 0 && !feasA(lim)) {
            const double fh = cap.zero() ? 0.0 : fValue_ * static_cast<double>(h);
            const double guess = static_cast<double>(rho) > fh ? fh * static_cast<double>(d) / (static_cast<double>(rho) - fh) + 1.0 : 1.0;
            allowed = firstTrue(1, lim, [&](std::int64_t c) { return !feasA(c); }, guess) - 1;
        }
        if (allowed == cL) return false;
        fs = m + allowed;
        if (con.cB < cL) {
            fe = e - 1;
        } else {
            const std::int64_t wmin = con.last - l + 2, wmax = e - l, need = rho * cL;
            std::int64_t w = wmax + 1;
            if (!cap.zero() && wmin <= wmax) {
                const double guess = static_cast<double>(need) / (fValue_ * static_cast<double>(h));
                w = firstTrue(wmin, wmax, [&](std::int64_t x) { return need <= cap(h * x); }, guess);
            }
            fe = w > wmax ? e - 1 : l + w - 2;
        }
        if (fs > e - 1) return false;
        fe = std::min<std::int64_t>(fe, e - 1);
        return true;
    }


    int cols_;
    double fValue_ = 0.0;
    std::vector<V> q_;
    std::vector<std::uint8_t> blocked_;
    std::vector<int> segEnd_;
    std::vector<V> sm_;
    std::vector<int> smIdx_;
    FirstMaxTable<V> rangeMax_;
    std::vector<Constraint> cons_;
    std::vector<std::pair<int, int>> iv_;
};

// A strip in the search's heap: its upper bound (Bound), or its best allowed interval (Exact, checked
// against the rectangles listed up to `version`).
template <class V>
struct Entry {
    V value;
    std::uint32_t strip;
    std::uint32_t version;
    std::int32_t first;
    std::int32_t last;
    bool exact;
};

// Heap order: the larger value first, then the smaller strip index (smaller top, then bottom).
template <class V>
struct EntryAfter {
    bool operator()(const Entry<V>& a, const Entry<V>& b) const {
        if (a.value != b.value) return a.value < b.value;
        return a.strip > b.strip;
    }
};

template <class V>
std::vector<WorkRect> cpuDistinct(const WorkArray& work, std::size_t k, double f, JobControl& job, ProgressSpan span) {
    const int rows = work.rows, cols = work.cols;
    if (static_cast<double>(rows) * (rows + 1) / 2 > 1.5e8)
        throw UsageError("--distinct takes images of at most 17 320 pixels on the shorter side (its table of strips)");
    const StripMaxima maxima = computeStripMaximaCpu(work, job);
    job.throwIfCancelled();
    span.set(job, 0.3);
    const std::vector<V> P = timedColumnPrefixSums<V>(work, job);
    auto step = job.timing().scope("search");
    const double slack = kmax::orderSlack(work);
    const ExclusionIndex exclusions(rows, cols, work.excluded);
    const DistinctCap cap(f);
    const std::size_t count = maxima.size();
    // Every strip's upper bound: Kadane's maximum (clamped at 0: at least the strip's best), plus, for
    // double sums, the slack between Kadane's order of additions and the canonical one.
    auto upper = [&](std::size_t i) -> V {
        if constexpr (std::is_integral_v<V>) return maxima.ints[i];
        else return std::nextafter(maxima.reals[i] + slack, std::numeric_limits<double>::infinity());
    };
    std::vector<std::size_t> topStart(static_cast<std::size_t>(rows) + 1);
    for (int t = 0; t <= rows; ++t) topStart[t] = StripMaxima::index(rows, t, t);
    auto stripOf = [&](std::size_t i) {
        const int top = static_cast<int>(std::upper_bound(topStart.begin(), topStart.end(), i) - topStart.begin()) - 1;
        return std::pair<int, int>{top, top + static_cast<int>(i - topStart[top])};
    };
    // Strips not yet in the heap, by decreasing bound (then index), sorted in growing batches.
    std::vector<std::uint32_t> order(count);
    for (std::size_t i = 0; i < count; ++i) order[i] = static_cast<std::uint32_t>(i);
    auto byBound = [&](std::uint32_t a, std::uint32_t b) {
        const V ua = upper(a), ub = upper(b);
        return ua != ub ? ua > ub : a < b;
    };
    std::size_t opened = 0, sorted = 0, sortBatch = std::min<std::size_t>(count, 4 * k + 1024);
    std::vector<Entry<V>> heap;
    const EntryAfter<V> after;
    std::vector<WorkRect> listed;
    auto rectOf = [&](const Entry<V>& e) {
        const auto [top, bottom] = stripOf(e.strip);
        return makeWorkRect(top, bottom, e.first, e.last, e.value);
    };
    // Moves into the heap every unopened strip whose bound ranks before the heap's top.
    auto open = [&] {
        while (opened < count) {
            if (opened == sorted) {
                job.throwIfCancelled();
                const auto first = order.begin() + static_cast<std::ptrdiff_t>(sorted);
                const auto last = order.begin() + static_cast<std::ptrdiff_t>(std::min(count, sorted + sortBatch));
                std::nth_element(first, last - 1, order.end(), byBound);
                std::sort(first, last, byBound);
                sorted = static_cast<std::size_t>(last - order.begin());
                sortBatch = std::min<std::size_t>(sortBatch * 4, std::size_t{1} << 20);
            }
            const std::uint32_t i = order[opened];
            const Entry<V> e{upper(i), i, 0, 0, -1, false};
            if (!heap.empty() && after(e, heap.front())) return;
            heap.push_back(e);
            std::push_heap(heap.begin(), heap.end(), after);
            ++opened;
        }
    };
    // An Exact entry still holds when the rectangles listed since it was found allow it.
    auto stillAllowed = [&](Entry<V>& e) {
        if (!e.exact) return false;
        const WorkRect r = rectOf(e);
        for (std::size_t v = e.version; v < listed.size(); ++v)
            if (!kmax::distinctAllowed(r, listed[v], cap)) return false;
        e.version = static_cast<std::uint32_t>(listed.size());
        return true;
    };
    const int threads = cpuThreadCount();
    std::vector<std::unique_ptr<StripSolver<V>>> solvers(static_cast<std::size_t>(threads));
    std::vector<Entry<V>> batch;
    std::vector<StripOutcome<V>> outcomes;
    while (listed.size() < k) {
        job.throwIfCancelled();
        bool hasFloor = false;
        V floor = V(0);
        std::size_t batchSize = 1;
        bool exhausted = false;
        for (;;) {
            batch.clear();
            while (batch.size() < batchSize) {
                open();
                if (heap.empty()) break;
                if (stillAllowed(heap.front())) break;
                std::pop_heap(heap.begin(), heap.end(), after);
                batch.push_back(heap.back());
                heap.pop_back();
            }
            if (batch.empty()) {
                if (heap.empty()) exhausted = true;
                break; // the top holds: this round's rectangle
            }
            job.throwIfCancelled();
            outcomes.assign(batch.size(), {});
            const int use = batch.size() >= 16 ? std::min<int>(threads, static_cast<int>(batch.size() / 8)) : 1;
            const std::size_t grain = (batch.size() + use - 1) / use;
            parallelFor(0, batch.size(), grain, [&](std::size_t b0, std::size_t b1) {
                auto& solver = solvers[b0 / grain];
                if (!solver) solver = std::make_unique<StripSolver<V>>(cols, f);
                for (std::size_t b = b0; b < b1; ++b) {
                    const auto [top, bottom] = stripOf(batch[b].strip);
                    outcomes[b] = solver->solve(P.data() + static_cast<std::size_t>(top) * cols,
                                                P.data() + static_cast<std::size_t>(bottom + 1) * cols,
                                                exclusions.any() ? exclusions.row(top) : nullptr, top, bottom, listed, cap,
                                                hasFloor, floor);
                }
            }, use);
            for (std::size_t b = 0; b < batch.size(); ++b) {
                const StripOutcome<V>& o = outcomes[b];
                if (o.kind == StripOutcome<V>::None) continue; // nothing allowed now, nor later
                const bool exact = o.kind == StripOutcome<V>::Exact;
                heap.push_back({o.value, batch[b].strip, static_cast<std::uint32_t>(listed.size()), o.first, o.last, exact});
                std::push_heap(heap.begin(), heap.end(), after);
                if (exact && (!hasFloor || o.value > floor)) {
                    floor = o.value;
                    hasFloor = true;
                }
            }
            batchSize = std::min<std::size_t>(batchSize * 2, 256);
        }
        if (exhausted) break;
        std::pop_heap(heap.begin(), heap.end(), after);
        Entry<V> won = heap.back();
        heap.pop_back();
        listed.push_back(rectOf(won));
        // The strip's best is listed now, so the rule forbids it (F < 1): its sum stays only a bound.
        won.exact = false;
        heap.push_back(won);
        std::push_heap(heap.begin(), heap.end(), after);
        span.set(job, 0.3 + 0.7 * static_cast<double>(listed.size()) / static_cast<double>(k));
    }
    return listed;
}


inline std::vector<WorkRect> distinctTopKOracle(const WorkArray& work, std::size_t k, double f) {
    if (work.includedCount == 0) return {};
    JobControl job;
    const ProgressSpan span{};
    return work.integer ? cpuDistinct<std::int64_t>(work, k, f, job, span) : cpuDistinct<double>(work, k, f, job, span);
}

} // namespace glint::test::distinct_oracle
