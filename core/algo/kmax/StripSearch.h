// One strip (a band of rows) of the 2-D K-MSP as a 1-D problem, shared by the reference and CPU backends:
// its column sums, their left-to-right prefix Q (the canonical order of the double sums), the columns
// that excluded cells block, and the best-first hand-over of its rectangles to a top-k list.
#pragma once

#include "core/algo/maxsub/MaxSubarrayBase.h"
#include "core/algo/kmax/SegmentHeap.h"

#include <cstdint>
#include <vector>

namespace glint::kmax {

// Double sums: how far a strip's Kadane maximum (computeStripMaximaCpu) may lie from its largest sum in the
// canonical order of Q (KMax2dCpu.cpp); 0 in integer mode.
double orderSlack(const WorkArray& work);

// A strip's row prefix Q over every column (the canonical order; pt, pb: prefix rows top and bottom + 1, or a
// family's lowest and highest) and its blocked columns (next: ExclusionIndex::row(top), or null).
template <class V>
void buildStrip(const V* pt, const V* pb, int cols, const std::int32_t* next, int bottom, V* q, std::uint8_t* blocked) {
    q[0] = V(0);
    for (int c = 0; c < cols; ++c) {
        q[c + 1] = q[c] + (pb[c] - pt[c]);
        blocked[c] = next && next[c] <= bottom ? 1 : 0;
    }
}

template <class V>
class StripProblem {
public:
    // pTop, pBottom: prefix rows top and bottom + 1 (cols values each); nextRow: ExclusionIndex::row(top)
    // or null (column c is blocked when nextRow[c] <= bottom).
    void build(const V* pTop, const V* pBottom, int cols, const std::int32_t* nextRow, int bottom) {
        cols_ = cols;
        q_.resize(static_cast<std::size_t>(cols) + 1);
        lo_.resize(static_cast<std::size_t>(cols) + 1);
        arg_.resize(static_cast<std::size_t>(cols) + 1);
        q_[0] = V(0);
        for (int c = 0; c < cols; ++c) q_[c + 1] = q_[c] + (pBottom[c] - pTop[c]);
        any_ = false;
        std::int64_t lo = 0, arg = -1;
        for (int j = 1; j <= cols; ++j) {
            if (nextRow && nextRow[j - 1] <= bottom) { // column j-1 is blocked: no segment holds it
                lo = j;
                arg = -1;
                lo_[j] = j;
                continue;
            }
            if (arg < 0 || q_[j - 1] < q_[arg]) arg = j - 1;
            lo_[j] = lo;
            arg_[j] = arg;
            const V b = pairSum(q_[j], q_[arg]);
            if (!any_ || b > best_) best_ = b;
            any_ = true;
        }
    }

    bool any() const { return any_; }     // the strip has a rectangle with no excluded cell
    V best() const { return best_; }      // its largest rectangle sum (when any())
    const std::vector<V>& prefix() const { return q_; }

    // Hands the strip's rectangles to keep, largest first, while they can enter it.
    template <class Keep>
    void offer(Keep& keep, int top, int bottom) {
        if (!any_ || (keep.full() && !(best_ > keep.worst()))) return;
        const RangeMinTree<V> rmq(q_.data(), cols_);
        SegmentHeap<V, RangeMinTree<V>> heap(q_.data(), rmq);
        for (int j = 1; j <= cols_; ++j) {
            if (lo_[j] >= j) continue;
            if (keep.full() && !(pairSum(q_[j], q_[arg_[j]]) > keep.worst())) continue;
            heap.addEnd(j, lo_[j], arg_[j]);
        }
        while (!heap.empty() && (!keep.full() || heap.topSum() > keep.worst())) {
            const PairSum<V> s = heap.pop();
            keep.offer(s.sum, makeWorkRect(top, bottom, static_cast<int>(s.start), static_cast<int>(s.end) - 1, s.sum));
        }
    }

private:
    int cols_ = 0;
    bool any_ = false;
    V best_ = V(0);
    std::vector<V> q_;
    std::vector<std::int64_t> lo_, arg_;
};

// The kept rectangles, largest first.
template <class V>
std::vector<WorkRect> takeRects(TopKeeper<V, WorkRect>& keep) {
    std::vector<WorkRect> out;
    for (auto& [value, rect] : keep.takeSorted()) out.push_back(rect);
    return out;
}

} // namespace glint::kmax
