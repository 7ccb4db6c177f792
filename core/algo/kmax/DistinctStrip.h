// --distinct F: the best allowed interval of one strip (a band of rows) against the listed rectangles, and the
// same search on a family of strips relaxed into one virtual strip, whose best bounds every member's
// (KMaxDistinct.cpp's search; NOTES.md, "Distinct").
#pragma once

#include "core/algo/kmax/Distinct.h"
#include "core/algo/kmax/SegmentHeap.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace glint::kmax {

// The smallest x in [lo, hi] where pred holds (pred false, then true, as x grows), hi + 1 when none;
// galloping from a guess, so that a good guess costs one or two calls.
template <class Pred>
std::int64_t firstTrue(std::int64_t lo, std::int64_t hi, Pred pred, double guess) {
    if (lo > hi) return lo;
    std::int64_t g = lo;
    if (guess >= static_cast<double>(hi)) g = hi;
    else if (guess > static_cast<double>(lo)) g = static_cast<std::int64_t>(guess);
    std::int64_t a, b; // the answer lies in [a, b]; pred(b) holds unless b == hi + 1
    if (pred(g)) {
        b = g;
        a = lo;
        for (std::int64_t step = 1;; step *= 2) {
            const std::int64_t x = b - step;
            if (x < lo) break;
            if (!pred(x)) {
                a = x + 1;
                break;
            }
            b = x;
        }
    } else {
        a = g + 1;
        b = hi + 1;
        for (std::int64_t step = 1;; step *= 2) {
            const std::int64_t x = g + step;
            if (x > hi) break;
            if (pred(x)) {
                b = x;
                break;
            }
            a = x + 1;
        }
    }
    while (a < b) {
        const std::int64_t mid = a + (b - a) / 2;
        if (pred(mid)) b = mid;
        else a = mid + 1;
    }
    return a;
}

// The first index r in [a, z] with the largest Q[r + 1], by a sparse table over a strip's Q, built on the first
// query after reset() (a strip's solve needs it only where a listed rectangle is in the way).
template <class V>
class FirstMaxTable {
public:
    explicit FirstMaxTable(int cols) : cols_(cols) {
        int levels = 1;
        while ((1 << levels) <= cols) ++levels;
        table_.resize(static_cast<std::size_t>(levels) * cols);
    }
    void reset() { built_ = false; }
    int operator()(const V* q, int a, int z) {
        const int cols = cols_;
        if (!built_) {
            for (int i = 0; i < cols; ++i) table_[i] = i;
            for (int j = 1; (1 << j) <= cols; ++j) {
                const int* prev = table_.data() + static_cast<std::size_t>(j - 1) * cols;
                int* cur = table_.data() + static_cast<std::size_t>(j) * cols;
                const int half = 1 << (j - 1);
                for (int i = 0; i + (1 << j) <= cols; ++i) cur[i] = better(q, prev[i], prev[i + half]);
            }
            built_ = true;
        }
        int j = 0;
        while ((2 << j) <= z - a + 1) ++j;
        const int* row = table_.data() + static_cast<std::size_t>(j) * cols;
        return better(q, row[a], row[z - (1 << j) + 1]);
    }

private:
    static int better(const V* q, int x, int y) { return q[y + 1] > q[x + 1] ? y : x; } // x < y: the first of equals

    int cols_;
    std::vector<int> table_;
    bool built_ = false;
};

// A listed rectangle L as a strip sees it. A rectangle of the strip with w columns, c of them in L's, is
// allowed when both halves of the rule hold: rho c <= floor(F |L|), i.e. c <= cB, and rho c <= floor(F h w).
// For one strip rho = the rows it shares with L and h = its height. For a family of strips (relaxed: a
// rectangle allowed in some member is allowed here) cB = floor(F |L|) / (the fewest rows a member shares),
// and (rho, h) = (1, 1) when L holds every row of every member (rho = h for each: h c <= floor(F h w) is
// c <= floor(F w)), else (the fewest shared rows, the tallest member).
struct Constraint {
    int first = 0;
    int last = 0;
    std::int64_t rho = 0;
    std::int64_t h = 0;
    std::int64_t cB = 0;
    bool narrow = false; // every member shares more than F of its own rows with L (rho > floor(F h))
    // Plain overlap (no --distinct, the bounded search): L lies in this very strip, and only the interval
    // first..last itself (L) is forbidden: the K largest sums of distinct rectangles.
    bool same = false;
};

template <class V>
struct StripBest {
    bool any = false; // an allowed interval exists (when false: nor will one, whatever is listed later)
    V value = V(0);
    int first = 0;
    int last = -1;
};

// One strip's best allowed interval (scratch kept between strips; one per thread). The caller fills
// prefix() (Q[0..cols], Q[0] = 0) and blocked() (columns no interval may hold), then calls solve().
template <class V>
class StripSolver {
public:
    StripSolver(int cols, double f)
        : cols_(cols), fValue_(f), q_(static_cast<std::size_t>(cols) + 1), blocked_(cols), segEnd_(cols), sm_(cols), smIdx_(cols),
          deque_(cols), rangeMax_(cols) {}

    V* prefix() { return q_.data(); }
    std::uint8_t* blocked() { return blocked_.data(); }

    // The best allowed interval under the constraints, the first in the ranking's order among equal sums
    // (smaller first column, then last column; without wantLast the last column may be a later one of the
    // same sum). maxLen > 0 (--max-box): only intervals of at most maxLen columns.
    StripBest<V> solve(const std::vector<Constraint>& cons, const DistinctCap& cap, bool wantLast = true, int maxLen = 0) {
        const int cols = cols_;
        for (const Constraint& con : cons)
            // L over every column, narrow: every rectangle of the strip shares rho w > F h w cells with it (w its
            // width), so nothing is allowed, now or later.
            if (con.narrow && con.first == 0 && con.last == cols - 1) return {};
        const bool bounded = maxLen > 0 && maxLen < cols;
        // The last columns an interval from l may end at: l .. end(l) - 1.
        auto end = [&](int l) { return bounded ? std::min(segEnd_[l], l + maxLen) : segEnd_[l]; };
        if (bounded) {
            // Sliding-window maxima of Q[r + 1] over r in l..end(l) - 1 (a monotone deque, right to left within
            // each run of free columns; the front is the window's maximum, the first index on ties).
            int head = 0, tail = 0;
            for (int c = cols - 1; c >= 0; --c) {
                if (blocked_[c]) {
                    head = tail = 0;
                    continue;
                }
                segEnd_[c] = c + 1 < cols && !blocked_[c + 1] ? segEnd_[c + 1] : c + 1;
                while (tail > head && !(q_[deque_[tail - 1] + 1] > q_[c + 1])) --tail; // c comes first: it wins ties
                deque_[tail++] = c;
                while (deque_[head] > c + maxLen - 1) ++head;
                smIdx_[c] = deque_[head];
                sm_[c] = q_[smIdx_[c] + 1];
            }
        }
        // Suffix maxima of Q[r + 1] over r in l..(end of l's run of free columns), the first index on ties.
        for (int c = cols - 1; c >= 0 && !bounded; --c) {
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
        StripBest<V> best;
        for (int l = 0; l < cols; ++l) {
            if (blocked_[l]) continue;
            // Rounding is monotone, so the largest Q[r + 1] gives l's largest sum: a bound on l's best.
            const V bound = pairSum(sm_[l], q_[l]);
            if (best.any && !(bound > best.value)) continue; // an equal sum at a larger first column comes later
            // The best last column among those not yet known to be forbidden; a constraint that forbids it
            // adds its interval of forbidden last columns, until one is allowed (or l cannot beat the best).
            const int e = end(l);
            iv_.clear();
            V cur = bound;
            int curR = smIdx_[l];
            bool found = true;
            for (;;) {
                const Constraint* against = violated(l, curR, cons, cap);
                if (!against) break;
                std::int64_t fs = 0, fe = 0;
                // Its interval holds curR (the rule and the intervals agree exactly); curR alone otherwise.
                if (!forbidden(l, e, *against, cap, fs, fe) || fs > curR || fe < curR) fs = fe = curR;
                iv_.insert(std::upper_bound(iv_.begin(), iv_.end(), std::pair<int, int>(static_cast<int>(fs), static_cast<int>(fe))),
                           {static_cast<int>(fs), static_cast<int>(fe)});
                found = false;
                auto piece = [&](int a, int z) {
                    const int idx = z == e - 1 && (!bounded || a == l) ? smIdx_[a] : rangeMax_(q_.data(), a, z);
                    const V x = pairSum(q_[idx + 1], q_[l]);
                    if (!found || x > cur) {
                        cur = x;
                        curR = idx;
                        found = true;
                    }
                };
                int pos = l;
                for (const auto& [a, z] : iv_) {
                    if (a > pos) piece(pos, a - 1);
                    pos = std::max(pos, z + 1);
                }
                if (pos <= e - 1) piece(pos, e - 1);
                if (!found || (best.any && !(cur > best.value))) break;
            }
            if (!found || (best.any && !(cur > best.value))) continue;
            best = {true, cur, l, curR};
        }
        if constexpr (std::is_floating_point_v<V>) {
            // A smaller Q can round to the same sum: the ranking names the first such last column (looked up
            // for the winner only: the order between first columns compares sums alone).
            if (best.any && wantLast) {
                const int l = best.first;
                forbiddenFor(l, end(l), cons, cap);
                std::size_t j = 0;
                for (int r = l; r < best.last; ++r) {
                    while (j < iv_.size() && iv_[j].second < r) ++j;
                    if (j < iv_.size() && iv_[j].first <= r) continue; // forbidden
                    if (pairSum(q_[r + 1], q_[l]) == best.value) {
                        best.last = r;
                        break;
                    }
                }
            }
        }
        return best;
    }

private:
    // The last columns r (l <= r < e) that one listed rectangle forbids for first column l: an interval
    // [fs, fe] (NOTES.md). c = the shared columns, w = r - l + 1. Left of m = max(l, L.first) nothing is
    // shared; from m to L.last c grows with r and w = c + (m - l), so both halves of the rule, c <= cB and
    // rho c <= floor(F h w), hold for a prefix of those c (exactly: in real arithmetic the second is
    // c (rho - F h) <= F h (m - l)); right of L.last c stays and only w grows, so the second half holds again
    // from some width on, the first never (if it failed before).
    bool forbidden(int l, int e, const Constraint& con, const DistinctCap& cap, std::int64_t& fs, std::int64_t& fe) const {
        if (con.same) { // only L itself
            if (con.first != l || con.last > e - 1) return false;
            fs = fe = con.last;
            return true;
        }
        if (con.last < l || con.first > e - 1) return false;
        const std::int64_t m = std::max(l, con.first), cL = con.last - m + 1, d = m - l, rho = con.rho, h = con.h;
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

    // A constraint under which the interval l..r is not allowed (c > cB or rho c > floor(F h w)), or null.
    static const Constraint* violated(int l, int r, const std::vector<Constraint>& cons, const DistinctCap& cap) {
        for (const Constraint& con : cons) {
            if (con.same) {
                if (con.first == l && con.last == r) return &con;
                continue;
            }
            if (con.last < l || con.first > r) continue;
            const std::int64_t c = std::min(r, con.last) - std::max(l, con.first) + 1;
            if (c > con.cB || con.rho * c > cap(con.h * (r - l + 1))) return &con;
        }
        return nullptr;
    }

    // iv_: the intervals of last columns that the constraints forbid for first column l, sorted.
    void forbiddenFor(int l, int e, const std::vector<Constraint>& cons, const DistinctCap& cap) {
        iv_.clear();
        for (const Constraint& con : cons) {
            std::int64_t fs = 0, fe = 0;
            if (forbidden(l, e, con, cap, fs, fe)) iv_.push_back({static_cast<int>(fs), static_cast<int>(fe)});
        }
        std::sort(iv_.begin(), iv_.end());
    }


    int cols_;
    double fValue_ = 0.0;
    std::vector<V> q_;
    std::vector<std::uint8_t> blocked_;
    std::vector<int> segEnd_;
    std::vector<V> sm_;
    std::vector<int> smIdx_;
    std::vector<int> deque_;
    FirstMaxTable<V> rangeMax_;
    std::vector<std::pair<int, int>> iv_;
};

} // namespace glint::kmax
