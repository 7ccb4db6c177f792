// The shared parts of the --distinct searches (KMaxDistinct.cpp) and the bounded overlap search
// (KMaxBounded.cpp): row blocks of strip families with their prefix extremes, the heap entries and their order.
#pragma once

#include "core/jobs/JobControl.h"
#include "core/algo/maxsub/MaxSubarrayBase.h"

#include <algorithm>
#include <cstdint>
#include <string>
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
