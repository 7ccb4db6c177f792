// The shared base of the maximum-subarray searches over a work array (brightest: disjoint regions;
// K-MSP: overlapping ones): rectangles in work coordinates, the blocking index of excluded cells, the exact
// Kadane scan of one strip and its tie-break rule, every strip's maximum on the CPU, and the ranked
// regions in image pixels.
#pragma once

#include "core/algo/regions/WorkArray.h"
#include "core/jobs/JobControl.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace glint {

// A rectangle in work coordinates with its exact sum (sumInt in integer mode, sum always).
struct WorkRect {
    int row0 = 0;
    int col0 = 0;
    int rows = 0;
    int cols = 0;
    std::int64_t sumInt = 0;
    double sum = 0.0;
};

// The strip rule every backend follows: a strip is the band of rows top..bottom (inclusive); the best
// rectangle is the largest sum; among equal sums the strip with the smallest (top, bottom), and in it the
// first segment Kadane's scan reaches (columns left to right, a run restarts when its sum is not
// positive, the best is replaced only by a strictly larger sum).

// next[r][c] = the first excluded row >= r in column c (rows when none): cell (c) of strip
// top..bottom is blocked exactly when next[top][c] <= bottom. Kept up to date as regions are removed.
class ExclusionIndex {
public:
    ExclusionIndex(int rows, int cols, const std::vector<std::uint8_t>& excluded);
    bool any() const { return any_; }
    const std::int32_t* row(int r) const { return next_.data() + static_cast<std::size_t>(r) * cols_; }
    bool blocked(int top, int bottom, int c) const { return row(top)[c] <= bottom; }
    void exclude(const WorkRect& rect);
    const std::vector<std::int32_t>& data() const { return next_; }

private:
    int rows_;
    int cols_;
    bool any_ = false;
    std::vector<std::uint8_t> mask_;
    std::vector<std::int32_t> next_; // (rows + 1) x cols, the last row all = rows
};

// The best segment of one strip, scanned exactly as described above. pt and pb point at column 0 of
// prefix rows top and bottom + 1; stride is the distance between columns (1 in row-major P).
// blockedRow is ExclusionIndex::row(top), or null when nothing is excluded.
template <class V>
struct StripBest {
    V sum = V(0);
    int first = 0;
    int last = -1; // inclusive; last < first when nothing is positive
};

template <class V>
StripBest<V> scanStrip(const V* pt, const V* pb, std::ptrdiff_t stride, int cols, int bottom,
                       const std::int32_t* blockedRow) {
    StripBest<V> best;
    V run = V(0);
    int start = 0;
    for (int c = 0; c < cols; ++c) {
        if (blockedRow && blockedRow[c] <= bottom) {
            run = V(0);
            continue;
        }
        const V s = pb[c * stride] - pt[c * stride];
        if (run > V(0)) {
            run = run + s;
        } else {
            run = s;
            start = c;
        }
        if (run > best.sum) {
            best.sum = run;
            best.first = start;
            best.last = c;
        }
    }
    return best;
}

// ---- The bounded search (--max-box P > 0): rectangles with both sides <= P ----------------------------
// A strip top..bottom (bottom - top < P) has column sums s[c] = pb[c] - pt[c] (the prefix rows, as above)
// and the row prefix S[0] = 0, S[c + 1] = S[c] + s[c], over EVERY column, blocked ones included (their
// cells keep the values the prefix rows hold). A segment first..last (last - first < P, no blocked column)
// sums to S[last + 1] - S[first]. Since excluding cells never changes S, it only removes segments: the
// sums of the others stay the same, bit for bit, in integers and in doubles (the fast-K argument).
// Tie-break, the same in every backend: the largest sum; then the smallest top, then bottom; then the
// smallest last column; then the largest first column (the shortest segment).
template <class V>
void boundedRowPrefix(const V* pt, const V* pb, std::ptrdiff_t stride, int cols, V* S) {
    S[0] = V(0);
    for (int c = 0; c < cols; ++c) S[c + 1] = S[c] + (pb[c * stride] - pt[c * stride]);
}

// The rule's first column of the best segment that ends at `last` with sum `sum`: the largest first in
// lo..last (lo: the first column the window and the blocked columns allow) with S[last + 1] - S[first] ==
// sum. (Two starts can round to the same double sum; the rule names the largest.)
template <class V>
int boundedFirst(const V* S, int lo, int last, V sum) {
    for (int f = last; f >= lo; --f)
        if (S[last + 1] - S[f] == sum) return f;
    return lo; // not reached: the caller's best is one of these sums
}

// The rectangle of rows top..bottom and columns first..last with its sum (exact int64 in integer mode).
template <class V>
WorkRect makeWorkRect(int top, int bottom, int first, int last, V sum) {
    WorkRect r;
    r.row0 = top;
    r.rows = bottom - top + 1;
    r.col0 = first;
    r.cols = last - first + 1;
    if constexpr (std::is_integral_v<V>) {
        r.sumInt = sum;
        r.sum = static_cast<double>(sum);
    } else {
        r.sum = sum;
    }
    return r;
}

// The WorkRect of a strip's best segment.
template <class V>
WorkRect stripRect(int top, int bottom, const StripBest<V>& b) {
    return makeWorkRect(top, bottom, b.first, b.last, b.sum);
}

// Every strip's maximum (the scan above: 0 when no segment is positive), computed by the CPU backend's
// tiles on every core, for the K-MSP search (overlap mode), which starts from the best strips.
// Integer mode: exact int64 in `ints`; otherwise doubles in `reals`. Packed by top: index(rows, t, b).
struct StripMaxima {
    int rows = 0;
    bool integer = false;
    std::vector<std::int64_t> ints;
    std::vector<double> reals;
    static std::size_t index(int rows, int top, int bottom) {
        const std::size_t t = static_cast<std::size_t>(top), r = static_cast<std::size_t>(rows);
        return t * r - t * (t - 1) / 2 + static_cast<std::size_t>(bottom - top); // index(rows, rows, rows) = count
    }
    std::size_t size() const { return integer ? ints.size() : reals.size(); }
};
StripMaxima computeStripMaximaCpu(const WorkArray& work, JobControl& job);

// The rectangles as ranked regions in image pixels (rank 1 first, in the order given).
std::vector<BrightestRegion> regionsOf(const WorkArray& work, const std::vector<WorkRect>& rects);

} // namespace glint
