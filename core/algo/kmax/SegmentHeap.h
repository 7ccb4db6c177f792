// Best-first enumeration of the segment sums of one prefix array, shared by the reference and CPU
// backends: the sums p[j] - p[i] (lo(j) <= i < j) come out in decreasing order, one heap pop each.
#pragma once

#include "core/algo/kmax/KMax.h"
#include "core/jobs/JobControl.h"

#include <algorithm>
#include <cstdint>
#include <queue>
#include <type_traits>
#include <vector>

namespace glint::kmax {

// A segment's sum from two prefix values. Doubles: + 0.0 turns -0 into +0, so that equal sums are one
// value; fl(hi - x) never increases as x grows, so the smallest start prefix gives the largest sum.
template <class V>
inline V pairSum(V hi, V lo) {
    if constexpr (std::is_floating_point_v<V>) return (hi - lo) + V(0);
    else return hi - lo;
}

// Range-minimum (argmin) over p[0..n-1] by a segment tree: O(n) to build, O(log n) a query.
template <class V>
class RangeMinTree {
public:
    RangeMinTree(const V* p, std::int64_t n) : p_(p), n_(n), tree_(2 * static_cast<std::size_t>(std::max<std::int64_t>(n, 1))) {
        for (std::int64_t i = 0; i < n; ++i) tree_[n + i] = i;
        for (std::int64_t i = n - 1; i >= 1; --i) tree_[i] = better(tree_[2 * i], tree_[2 * i + 1]);
    }
    // Index of a smallest p in [l, r] (l <= r).
    std::int64_t argmin(std::int64_t l, std::int64_t r) const {
        std::int64_t best = l;
        for (l += n_, r += n_ + 1; l < r; l >>= 1, r >>= 1) {
            if (l & 1) best = better(best, tree_[l++]);
            if (r & 1) best = better(best, tree_[--r]);
        }
        return best;
    }

private:
    std::int64_t better(std::int64_t a, std::int64_t b) const { return p_[b] < p_[a] ? b : a; }
    const V* p_;
    std::int64_t n_;
    std::vector<std::int64_t> tree_;
};

// Range-minimum over p[0..n-1] by blocks of 32: a sparse table over the block minima and a scan inside
// the two end blocks. O(n) to build (n/32 log n table), O(32) a query, little memory.
template <class V>
class BlockRangeMin {
public:
    static constexpr int kBlock = 32;
    BlockRangeMin(const V* p, std::int64_t n) : p_(p), blocks_((n + kBlock - 1) / kBlock) {
        if (blocks_ == 0) return;
        std::vector<std::int64_t> level(blocks_);
        for (std::int64_t b = 0; b < blocks_; ++b) level[b] = scan(b * kBlock, std::min(n, (b + 1) * kBlock) - 1);
        table_.push_back(std::move(level));
        for (std::int64_t w = 1; 2 * w <= blocks_; w *= 2) {
            const std::vector<std::int64_t>& prev = table_.back();
            std::vector<std::int64_t> next(blocks_ - 2 * w + 1);
            for (std::size_t i = 0; i < next.size(); ++i) next[i] = better(prev[i], prev[i + w]);
            table_.push_back(std::move(next));
        }
    }
    std::int64_t argmin(std::int64_t l, std::int64_t r) const {
        const std::int64_t bl = l / kBlock, br = r / kBlock;
        if (br - bl <= 1) return scan(l, r);
        std::int64_t best = better(scan(l, (bl + 1) * kBlock - 1), scan(br * kBlock, r));
        const std::int64_t first = bl + 1, count = br - bl - 1;
        const int k = 63 - __builtin_clzll(static_cast<unsigned long long>(count));
        best = better(best, table_[k][first]);
        return better(best, table_[k][first + count - (std::int64_t{1} << k)]);
    }

private:
    std::int64_t scan(std::int64_t l, std::int64_t r) const {
        std::int64_t best = l;
        for (std::int64_t i = l + 1; i <= r; ++i)
            if (p_[i] < p_[best]) best = i;
        return best;
    }
    std::int64_t better(std::int64_t a, std::int64_t b) const { return p_[b] < p_[a] ? b : a; }
    const V* p_;
    std::int64_t blocks_;
    std::vector<std::vector<std::int64_t>> table_;
};

template <class V>
struct PairSum {
    std::int64_t start = 0; // prefix index i: the segment is values i..end-1
    std::int64_t end = 0;   // prefix index j
    V sum = V(0);
};

// A max-heap of (end j, start range [lo, hi], the range's argmin). Popping the top yields the largest
// sum left and pushes the two halves of its range, so every pair comes out exactly once, in order.
template <class V, class Rmq>
class SegmentHeap {
public:
    SegmentHeap(const V* p, const Rmq& rmq) : p_(p), rmq_(rmq) {}

    // Adds end j with starts lo..j-1; argmin, when known (>= 0), is the index of their smallest prefix.
    void addEnd(std::int64_t j, std::int64_t lo, std::int64_t argmin = -1) { push(j, lo, j - 1, argmin); }
    bool empty() const { return heap_.empty(); }
    std::size_t size() const { return heap_.size(); }
    V topSum() const { return heap_.top().sum; }
    PairSum<V> pop() {
        const Node n = heap_.top();
        heap_.pop();
        if (n.arg > n.lo) push(n.end, n.lo, n.arg - 1, -1);
        if (n.arg < n.hi) push(n.end, n.arg + 1, n.hi, -1);
        return {n.arg, n.end, n.sum};
    }

private:
    struct Node {
        V sum;
        std::int64_t end, lo, hi, arg;
        bool operator<(const Node& o) const { return sum < o.sum; }
    };
    void push(std::int64_t j, std::int64_t lo, std::int64_t hi, std::int64_t arg) {
        if (lo > hi) return;
        if (arg < 0) arg = rmq_.argmin(lo, hi);
        heap_.push({pairSum(p_[j], p_[arg]), j, lo, hi, arg});
    }
    const V* p_;
    const Rmq& rmq_;
    std::priority_queue<Node> heap_;
};

// The k largest values offered, kept in a min-heap (k fixed). full() and worst() say what a new
// value must beat.
template <class V, class Item>
class TopKeeper {
public:
    explicit TopKeeper(std::size_t k) : k_(k) {}
    bool full() const { return heap_.size() >= k_; }
    V worst() const { return heap_.top().first; }
    // Keeps the item when the list is not full or it beats the worst kept (ties: the earlier stays).
    bool offer(V value, const Item& item) {
        if (!full()) {
            heap_.push({value, item});
            return true;
        }
        if (!(value > heap_.top().first)) return false;
        heap_.pop();
        heap_.push({value, item});
        return true;
    }
    // The kept items, largest first.
    std::vector<std::pair<V, Item>> takeSorted() {
        std::vector<std::pair<V, Item>> out;
        out.reserve(heap_.size());
        while (!heap_.empty()) {
            out.push_back(heap_.top());
            heap_.pop();
        }
        std::reverse(out.begin(), out.end());
        return out;
    }

private:
    struct Greater {
        bool operator()(const std::pair<V, Item>& a, const std::pair<V, Item>& b) const { return a.first > b.first; }
    };
    std::size_t k_;
    std::priority_queue<std::pair<V, Item>, std::vector<std::pair<V, Item>>, Greater> heap_;
};

// The first k segments a SegmentHeap yields (fewer when it runs out), largest first; the second half
// of the job's progress.
template <class Heap>
std::vector<KMaxSegment> drainTopK(Heap& heap, std::size_t k, JobControl& job) {
    std::vector<KMaxSegment> out;
    out.reserve(std::min<std::size_t>(k, 1 << 20));
    while (out.size() < k && !heap.empty()) {
        if ((out.size() & 0xfff) == 0) {
            job.throwIfCancelled();
            job.setProgress(0.5 + 0.5 * static_cast<double>(out.size()) / static_cast<double>(k));
        }
        const auto s = heap.pop();
        KMaxSegment seg;
        seg.first = s.start;
        seg.last = s.end - 1;
        if constexpr (std::is_integral_v<decltype(s.sum)>) {
            seg.sumInt = s.sum;
            seg.sum = static_cast<double>(s.sum);
        } else {
            seg.sum = s.sum;
        }
        out.push_back(seg);
    }
    return out;
}

// The canonical 1-D prefix sums as V (std::int64_t or double), timed as step "prefix sums".
template <class V>
std::vector<V> timedCanonicalPrefix1d(const KMaxSequence& sequence, JobControl& job) {
    auto step = job.timing().scope("prefix sums");
    if constexpr (std::is_integral_v<V>) return canonicalPrefix1dInteger(sequence);
    else return canonicalPrefix1dReal(sequence);
}

// A host 1-D backend: keeps a pointer to the loaded sequence and runs Search<std::int64_t> (integer
// mode) or Search<double> on it.
template <std::vector<KMaxSegment> (*SearchInt)(const KMaxSequence&, std::size_t, JobControl&),
          std::vector<KMaxSegment> (*SearchReal)(const KMaxSequence&, std::size_t, JobControl&)>
class HostKMax1dSolver final : public KMax1dSolver {
public:
    void load(const KMaxSequence& sequence, JobControl&) override { seq_ = &sequence; }
    std::vector<KMaxSegment> topK(std::size_t k, JobControl& job) override {
        return seq_->integer ? SearchInt(*seq_, k, job) : SearchReal(*seq_, k, job);
    }

private:
    const KMaxSequence* seq_ = nullptr;
};

} // namespace glint::kmax
