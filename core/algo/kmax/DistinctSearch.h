// The CPU search of --distinct (KMaxDistinct.cpp) and of the bounded overlap search (KMaxBounded.cpp): one
// engine over families of strips (row blocks with their prefix extremes, an optional Kadane bound per family),
// the heap entries and their order; the two differ only in the bound and in where the families' first bounds
// come from.
#pragma once

#include "core/jobs/JobControl.h"
#include "core/algo/kmax/Distinct.h"
#include "core/algo/kmax/DistinctStrip.h"
#include "core/algo/kmax/StripSearch.h"
#include "core/algo/maxsub/MaxSubarrayBase.h"
#include "core/util/Parallel.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace glint::kmax {

// Strips grouped in families: family (k, ti, bi) holds the strips whose top lies in rows [ti 2^k, (ti + 1) 2^k)
// and bottom in [bi 2^k, (bi + 1) 2^k) (ti <= bi; clipped to the work array; top <= bottom). Level 0 is one
// strip. Per block of rows of each level: the smallest prefix row a top can start at and the largest a bottom
// can end at, column by column, so that one virtual strip over those differences bounds every member's column
// sums (NOTES.md, "Distinct").
template <class V>
class BlockExtremes {
public:
    BlockExtremes(int rows, int cols, const std::vector<V>& P) : rows_(rows), cols_(cols), P_(P) {
        levels_ = 0;
        while (((rows - 1) >> levels_) > 0) ++levels_;
        lowest_.resize(static_cast<std::size_t>(levels_) + 1);
        highest_.resize(lowest_.size());
        const std::size_t c = static_cast<std::size_t>(cols);
        for (int k = kStored; k <= levels_; ++k) {
            const int n = blocks(k), below = blocks(k - 1);
            lowest_[k].resize(static_cast<std::size_t>(n) * c);
            highest_[k].resize(static_cast<std::size_t>(n) * c);
            for (int j = 0; j < n; ++j) {
                if (k == kStored) {
                    extremesFromRows(k, j, j, lowest_[k].data() + j * c, highest_[k].data() + j * c);
                    continue;
                }
                const bool pair = 2 * j + 1 < below;
                const V* lo0 = lowest_[k - 1].data() + 2 * j * c;
                const V* lo1 = pair ? lo0 + c : lo0;
                const V* hi0 = highest_[k - 1].data() + 2 * j * c;
                const V* hi1 = pair ? hi0 + c : hi0;
                V* lo = lowest_[k].data() + j * c;
                V* hi = highest_[k].data() + j * c;
                for (std::size_t x = 0; x < c; ++x) {
                    lo[x] = std::min(lo0[x], lo1[x]);
                    hi[x] = std::max(hi0[x], hi1[x]);
                }
            }
        }
    }

    int levels() const { return levels_; }
    int blocks(int k) const { return ((rows_ - 1) >> k) + 1; }
    int firstRow(int k, int i) const { return i << k; }
    int lastRow(int k, int i) const { return std::min(rows_, (i + 1) << k) - 1; }
    // Column by column, the smallest prefix row P[top] over the tops of block ti and the largest P[bottom + 1]
    // over the bottoms of block bi (level k >= 1): stored from level kStored up, else gathered into lo and hi.
    std::pair<const V*, const V*> extremes(int k, int ti, int bi, V* lo, V* hi) const {
        if (k >= kStored) {
            const std::size_t c = static_cast<std::size_t>(cols_);
            return {lowest_[k].data() + ti * c, highest_[k].data() + bi * c};
        }
        extremesFromRows(k, ti, bi, lo, hi);
        return {lo, hi};
    }
    const V* prefixRow(int r) const { return P_.data() + static_cast<std::size_t>(r) * cols_; }

protected:
    int rows_, cols_, levels_ = 0;

private:
    // Levels below are gathered from at most 2^(kStored - 1) rows a side when asked (half the memory of P kept).
    static constexpr int kStored = 3;

    void extremesFromRows(int k, int ti, int bi, V* lo, V* hi) const {
        std::copy_n(prefixRow(firstRow(k, ti)), cols_, lo);
        for (int t = firstRow(k, ti) + 1; t <= lastRow(k, ti); ++t) {
            const V* p = prefixRow(t);
            for (int x = 0; x < cols_; ++x) lo[x] = std::min(lo[x], p[x]);
        }
        std::copy_n(prefixRow(firstRow(k, bi) + 1), cols_, hi);
        for (int b = firstRow(k, bi) + 1; b <= lastRow(k, bi); ++b) {
            const V* p = prefixRow(b + 1);
            for (int x = 0; x < cols_; ++x) hi[x] = std::max(hi[x], p[x]);
        }
    }

    const std::vector<V>& P_;
    std::vector<std::vector<V>> lowest_, highest_;
};

// A heap entry: a family of strips (level >= 1) with an upper bound of its members' best allowed sums, or one
// strip (level 0) with a bound or its best allowed interval (exact), checked against the first `version`
// listed rectangles. A family's bound is `refined` when a virtual strip against those rectangles gave it.
template <class V>
struct Entry {
    V value;
    std::uint64_t key; // the smallest strip index among the members: index(top, bottom), by top then bottom
    std::int32_t ti, bi;
    std::int32_t first, last;
    std::uint32_t version;
    std::uint8_t level;
    bool exact;   // level 0
    bool refined; // level >= 1
};

// Heap order: the larger value first, then the smaller key (equal values: the family or strip that may hold
// the first strip in the ranking's order is looked at first).
template <class V>
struct EntryAfter {
    bool operator()(const Entry<V>& a, const Entry<V>& b) const {
        if (a.value != b.value) return a.value < b.value;
        return a.key > b.key;
    }
};

// BlockExtremes with each family's largest Kadane bound of its strips (a max pyramid over the levels), or with
// none (every family's bound unknown).
template <class V>
class StripFamilies : public BlockExtremes<V> {
public:
    // Larger than every sum: the bound of a family nothing has bounded yet.
    static constexpr V kUnknown = std::is_integral_v<V> ? std::numeric_limits<V>::max() : std::numeric_limits<V>::infinity();

    // upper: every strip's Kadane bound (StripMaxima's order), taken over; empty: none.
    StripFamilies(int rows, int cols, const std::vector<V>& P, std::vector<V> upper)
        : BlockExtremes<V>(rows, cols, P), upper_(std::move(upper)) {
        if (upper_.empty()) return;
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

    bool kadane() const { return !upper_.empty(); }
    // The largest Kadane bound of the family's strips (kUnknown without them).
    V familyBound(int k, int ti, int bi) const {
        if (upper_.empty()) return kUnknown;
        if (k == 0) return upper_[StripMaxima::index(this->rows_, ti, bi)];
        return bound_[k][StripMaxima::index(this->blocks(k), ti, bi)];
    }

private:
    std::vector<V> upper_;
    std::vector<std::vector<V>> bound_;
};

// The exact top k of brightest --mode overlap under --distinct F and/or --max-box P, on the CPU (NOTES.md,
// "Distinct" and "Bounded"). One heap holds families of strips (a bound of their members' best allowed sums)
// and strips (a bound, or their best allowed interval); the top is split, bounded again or solved until an
// exact strip that the listed rectangles allow is on top: the round's rectangle.
// - Unbounded (maxBox = 0, f set): the families start with their strips' Kadane bounds (`upper`) and are split
//   on them until a rectangle is listed; from then on a family is split once its virtual strip (one strip
//   relaxed over its members) has bounded it against every listed rectangle.
// - Bounded (maxBox > 0; f unset: plain, the k best distinct rectangles): only strips of at most P rows and
//   intervals of at most P columns; no Kadane bounds (`upper` empty: they span whole rows, which the bound
//   cuts), so every family is bounded by its virtual strip before it is split, and families whose members would
//   all be taller than P are never made. Plain, no listed rectangle constrains a family or another strip: a
//   family is bounded once, and a strip is solved against the listed rectangles of that very strip.
// Bound or not, sums are bit for bit the same: Q left to right, fl(Q[r+1] - Q[l]) + 0.0.
template <class V>
class FamilySearch {
public:
    // P: the column prefix sums; upper: every strip's Kadane maximum (StripMaxima's order), or empty.
    FamilySearch(const WorkArray& work, const std::vector<V>& P, std::vector<V> upper, std::optional<double> f, int maxBox)
        : rows_(work.rows), cols_(work.cols), H_(maxBox > 0 ? std::min(maxBox, work.rows) : work.rows),
          maxLen_(maxBox > 0 ? std::min(maxBox, work.cols) : 0), f_(f), slack_(orderSlack(work)),
          exclusions_(work.rows, work.cols, work.excluded), cap_(f.value_or(0.0)),
          families_(work.rows, work.cols, P, raised(std::move(upper))) {}

    // The listed rectangles, best first; progress(how many are listed) after each.
    template <class Progress>
    std::vector<WorkRect> run(std::size_t k, JobControl& job, Progress&& progress) {
        push({families_.familyBound(families_.levels(), 0, 0), 0, 0, 0, 0, -1, 0, static_cast<std::uint8_t>(families_.levels()),
              false, false});
        const int threads = cpuThreadCount();
        std::vector<std::unique_ptr<StripSolver<V>>> solvers(static_cast<std::size_t>(threads));
        std::vector<std::vector<Constraint>> constraints(static_cast<std::size_t>(threads));
        std::vector<std::vector<V>> scratches(static_cast<std::size_t>(threads), std::vector<V>(2 * static_cast<std::size_t>(cols_)));
        std::vector<Entry<V>> batch;
        std::vector<std::uint8_t> keep;
        while (listed_.size() < k) {
            job.throwIfCancelled();
            std::size_t batchSize = 1;
            bool exhausted = false;
            for (;;) {
                batch.clear();
                while (batch.size() < batchSize) {
                    if (heap_.empty()) break;
                    Entry<V>& top = heap_.front();
                    if (stillAllowed(top)) break;
                    std::pop_heap(heap_.begin(), heap_.end(), after_);
                    const Entry<V> e = heap_.back();
                    heap_.pop_back();
                    if (e.level > 0 && splitNow(e)) split(e);
                    else batch.push_back(e);
                }
                if (batch.empty()) {
                    if (heap_.empty()) exhausted = true;
                    break; // the top holds: this round's rectangle
                }
                job.throwIfCancelled();
                keep.assign(batch.size(), 0);
                // Items handed out one at a time (a solve takes 10-500 us): a worker that starts late, or shares
                // its core, takes fewer.
                const int use = batch.size() >= 8 ? std::min<int>(threads, static_cast<int>(batch.size() / 4)) : 1;
                std::atomic<std::size_t> nextItem{0};
                parallelFor(0, static_cast<std::size_t>(use), 1, [&](std::size_t slot, std::size_t) {
                    if (!solvers[slot]) solvers[slot] = std::make_unique<StripSolver<V>>(cols_, f_.value_or(0.0));
                    for (std::size_t b; (b = nextItem.fetch_add(1, std::memory_order_relaxed)) < batch.size();)
                        keep[b] = solve(batch[b], *solvers[slot], constraints[slot], scratches[slot]) ? 1 : 0;
                }, use);
                for (std::size_t b = 0; b < batch.size(); ++b)
                    if (keep[b]) push(batch[b]); // else nothing is allowed there, now or later
                batchSize = std::min<std::size_t>(batchSize * 2, 64);
            }
            if (exhausted) break;
            std::pop_heap(heap_.begin(), heap_.end(), after_);
            Entry<V> won = heap_.back();
            heap_.pop_back();
            listed_.push_back(rectOf(won));
            // Its interval is listed now: under the rule (F < 1) no longer allowed, plain a forbidden one of its
            // strip; its sum stays a bound of the strip's next.
            won.exact = false;
            push(won);
            progress(listed_.size());
        }
        return std::move(listed_);
    }

private:
    // Bounds from double sums in another order than the canonical one: plus the slack between the orders.
    V raised(V x) const {
        if constexpr (std::is_integral_v<V>) return x;
        else return std::nextafter(x + slack_, std::numeric_limits<double>::infinity());
    }
    std::vector<V> raised(std::vector<V> upper) const {
        for (V& u : upper) u = raised(u);
        return upper;
    }

    void push(const Entry<V>& e) {
        heap_.push_back(e);
        std::push_heap(heap_.begin(), heap_.end(), after_);
    }
    std::uint64_t stripKey(int top, int bottom) const { return static_cast<std::uint64_t>(StripMaxima::index(rows_, top, bottom)); }
    WorkRect rectOf(const Entry<V>& e) const { return makeWorkRect(e.ti, e.bi, e.first, e.last, e.value); }

    // An exact strip still holds when the rectangles listed since it was found allow it (plain: always; its
    // interval was found against every listed one of its strip, and only it lists there).
    bool stillAllowed(Entry<V>& e) const {
        if (e.level != 0 || !e.exact) return false;
        if (!f_) return true;
        const WorkRect r = rectOf(e);
        for (std::size_t v = e.version; v < listed_.size(); ++v)
            if (!distinctAllowed(r, listed_[v], cap_)) return false;
        e.version = static_cast<std::uint32_t>(listed_.size());
        return true;
    }

    // A family is split once its bound holds against every listed rectangle: its Kadane bound before the first
    // is listed, else its virtual strip's (plain: once bounded at all).
    bool splitNow(const Entry<V>& e) const {
        return (families_.kadane() && listed_.empty()) || (e.refined && (!f_ || e.version == listed_.size()));
    }

    // Family (lv, ti, bi)'s first member in the ranking's order (smallest top, then bottom), or false when every
    // strip it would hold is taller than H.
    bool firstMember(int lv, int ti, int bi, int& top, int& bottom) const {
        const int t0 = families_.firstRow(lv, ti), t1 = families_.lastRow(lv, ti), b0 = families_.firstRow(lv, bi);
        if (ti == bi) {
            top = bottom = t0;
            return true;
        }
        if (b0 - t1 >= H_) return false;
        top = std::max(t0, b0 - H_ + 1);
        bottom = b0;
        return true;
    }

    // A family's members one level down (children that hold no strip with top <= bottom, or none of at most H
    // rows, are left out); a family of level 1 gives strips. Each inherits the family's bound where it is lower
    // than its own.
    void split(const Entry<V>& e) {
        const int lv = e.level - 1;
        if (lv == 0) {
            for (int t = families_.firstRow(1, e.ti); t <= families_.lastRow(1, e.ti); ++t)
                for (int b = std::max(t, families_.firstRow(1, e.bi)); b <= std::min(families_.lastRow(1, e.bi), t + H_ - 1); ++b)
                    push({std::min(e.value, families_.familyBound(0, t, b)), stripKey(t, b), t, b, 0, -1, 0, 0, false, false});
            return;
        }
        const int n = families_.blocks(lv);
        for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 2; ++j) {
                const int ti = 2 * e.ti + i, bi = 2 * e.bi + j;
                int top = 0, bottom = 0;
                if (ti > bi || bi >= n || !firstMember(lv, ti, bi, top, bottom)) continue;
                push({std::min(e.value, families_.familyBound(lv, ti, bi)), stripKey(top, bottom), ti, bi, 0, -1, 0,
                      static_cast<std::uint8_t>(lv), false, false});
            }
    }

    // One strip's best allowed interval, or one family's virtual strip (a bound), against every listed rectangle;
    // false when nothing is allowed there, now or later.
    bool solve(Entry<V>& e, StripSolver<V>& solver, std::vector<Constraint>& cons, std::vector<V>& scratch) const {
        V* q = solver.prefix();
        std::uint8_t* blocked = solver.blocked();
        cons.clear();
        if (e.level == 0) {
            const int top = e.ti, bottom = e.bi;
            buildStrip(families_.prefixRow(top), families_.prefixRow(bottom + 1), cols_, exclusions_.any() ? exclusions_.row(top) : nullptr,
                       bottom, q, blocked);
            const std::int64_t h = bottom - top + 1, capH = cap_(h);
            for (const WorkRect& L : listed_) {
                if (!f_) {
                    if (L.row0 == top && L.rows == h) cons.push_back({L.col0, L.col0 + L.cols - 1, 0, 0, 0, false, true});
                    continue;
                }
                const std::int64_t rho = spanOverlap(top, bottom, L.row0, L.row0 + L.rows - 1);
                if (rho > 0) cons.push_back({L.col0, L.col0 + L.cols - 1, rho, h, cap_(rectArea(L)) / rho, rho > capH});
            }
            const StripBest<V> best = solver.solve(cons, cap_, true, maxLen_);
            e.version = static_cast<std::uint32_t>(listed_.size());
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
        const int t0 = families_.firstRow(lv, e.ti), t1 = families_.lastRow(lv, e.ti);
        const int b0 = families_.firstRow(lv, e.bi), b1 = families_.lastRow(lv, e.bi);
        const bool diagonal = e.ti == e.bi;
        const auto [lo, hi] = families_.extremes(lv, e.ti, e.bi, scratch.data(), scratch.data() + cols_);
        buildStrip(lo, hi, cols_, exclusions_.any() && !diagonal ? exclusions_.row(t1) : nullptr, b0, q, blocked);
        const std::int64_t hMax = std::min<std::int64_t>(H_, b1 - t0 + 1); // the tallest member
        if (f_)
            for (const WorkRect& L : listed_) {
                const int l0 = L.row0, l1 = L.row0 + L.rows - 1;
                // The fewest rows a member shares with L: off the diagonal the rows every member holds; on it the
                // members include each single row.
                const std::int64_t rhoMin = diagonal ? (l0 <= t0 && l1 >= t1 ? 1 : 0) : spanOverlap(t1, b0, l0, l1);
                if (rhoMin == 0) continue;
                const std::int64_t cB = cap_(rectArea(L)) / rhoMin;
                if (l0 <= t0 && l1 >= b1) cons.push_back({L.col0, L.col0 + L.cols - 1, 1, 1, cB, true});
                else cons.push_back({L.col0, L.col0 + L.cols - 1, rhoMin, hMax, cB, rhoMin > cap_(hMax)});
            }
        const StripBest<V> best = solver.solve(cons, cap_, false, maxLen_);
        e.version = static_cast<std::uint32_t>(listed_.size());
        e.refined = true;
        if (best.any) e.value = std::min(e.value, raised(best.value));
        return best.any;
    }

    const int rows_, cols_;
    const int H_;      // strips of at most H rows (rows: every strip)
    const int maxLen_; // intervals of at most maxLen columns (0: every interval)
    const std::optional<double> f_;
    const double slack_;
    const ExclusionIndex exclusions_;
    const DistinctCap cap_;
    const StripFamilies<V> families_;
    EntryAfter<V> after_;
    std::vector<Entry<V>> heap_;
    std::vector<WorkRect> listed_;
};

// Runs fn with the timing steps renamed (prefix + name): the run records into a cleared record, merged back after.
template <class Fn>
inline std::vector<WorkRect> withStepPrefix(JobControl& job, const std::string& prefix, Fn&& fn) {
    if (prefix.empty()) return fn();
    Timing saved = job.timing();
    job.timing().clear();
    struct Restore {
        JobControl& job;
        Timing& saved;
        const std::string& prefix;
        ~Restore() {
            const Timing inner = job.timing();
            job.timing() = saved;
            for (const TimingStep& s : inner.steps()) job.timing().add(prefix + s.name, s.ms);
        }
    } restore{job, saved, prefix};
    return fn();
}

} // namespace glint::kmax
