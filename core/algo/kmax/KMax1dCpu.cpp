// The 1-D CPU backend, O(n + k log n): one pass finds the best sum ending at each index (a running
// minimum of the prefix sums); the k-th largest of those bounds the k-th largest sum from below, so only
// the k ends with the largest best sums (found through a log-spaced histogram of their distance below
// the best, then an exact selection in the boundary bucket) enter the heap, which then yields the k
// largest sums in order. Range minima by a block sparse table.
#include "core/algo/kmax/KMax.h"
#include "core/algo/kmax/KMaxKeys.h"
#include "core/algo/kmax/SegmentHeap.h"

#include <algorithm>
#include <array>

namespace glint {

namespace {

template <class V>
std::vector<KMaxSegment> cpuTopK(const KMaxSequence& seq, std::size_t k, JobControl& job) {
    const std::vector<V> p = kmax::timedCanonicalPrefix1d<V>(seq, job);
    job.throwIfCancelled();
    const std::int64_t n = static_cast<std::int64_t>(seq.size());
    // The best sum ending at each end j (values lo..j-1 with no blank) and the start that gives it;
    // args[j] = -1 when value j-1 is blank (no segment ends there).
    std::vector<std::int64_t> args(static_cast<std::size_t>(n) + 1, -1);
    std::vector<V> best(static_cast<std::size_t>(n) + 1, V(0));
    std::size_t validEnds = 0;
    V top = V(0);
    {
        auto step = job.timing().scope("best ends");
        std::int64_t arg = -1; // argmin of p over the current blank-free run of starts
        V low = V(0);
        for (std::int64_t j = 1; j <= n; ++j) {
            if (seq.isBlank(static_cast<std::size_t>(j - 1))) {
                arg = -1;
                continue;
            }
            if (arg < 0 || p[j - 1] < low) {
                arg = j - 1;
                low = p[j - 1];
            }
            args[j] = arg;
            const V b = kmax::pairSum(p[j], low);
            best[j] = b;
            top = validEnds == 0 || b > top ? b : top;
            ++validEnds;
        }
    }
    job.throwIfCancelled();
    // The k ends with the largest best sums: the k-th largest sum is at least the smallest of them.
    std::vector<std::int64_t> chosen;
    {
        auto step = job.timing().scope("threshold");
        if (validEnds <= k) {
            for (std::int64_t j = 1; j <= n; ++j)
                if (args[j] >= 0) chosen.push_back(j);
        } else {
            const std::uint64_t topKey = kmax::orderedKey(top);
            std::vector<std::uint32_t> hist(kmax::kLogBuckets, 0);
            for (std::int64_t j = 1; j <= n; ++j)
                if (args[j] >= 0) ++hist[kmax::logBucket(kmax::keyDistance(topKey, kmax::orderedKey(best[j])))];
            int bucket = 0;
            std::size_t cum = 0;
            while (cum + hist[bucket] < k) cum += hist[bucket++];
            std::vector<std::int64_t> boundary;
            for (std::int64_t j = 1; j <= n; ++j) {
                if (args[j] < 0) continue;
                const int b = kmax::logBucket(kmax::keyDistance(topKey, kmax::orderedKey(best[j])));
                if (b < bucket) chosen.push_back(j);
                else if (b == bucket) boundary.push_back(j);
            }
            // In the boundary bucket, the (k - cum) largest. An end left out has a best sum no larger than
            // every chosen one: its sums can at most tie with the k-th largest, which the chosen ends
            // already reach k times.
            const std::size_t need = k - cum;
            std::nth_element(boundary.begin(), boundary.begin() + static_cast<std::ptrdiff_t>(need - 1), boundary.end(),
                             [&](std::int64_t a, std::int64_t b) { return best[a] > best[b]; });
            chosen.insert(chosen.end(), boundary.begin(), boundary.begin() + static_cast<std::ptrdiff_t>(need));
        }
    }
    auto step = job.timing().scope("search");
    const kmax::BlockRangeMin<V> rmq(p.data(), n);
    kmax::SegmentHeap<V, kmax::BlockRangeMin<V>> heap(p.data(), rmq);
    std::vector<std::int64_t> blanks; // starts go back to just after the last blank before the end
    for (std::int64_t i = 0; i < n && !seq.blank.empty(); ++i)
        if (seq.isBlank(static_cast<std::size_t>(i))) blanks.push_back(i);
    for (std::int64_t j : chosen) {
        const auto after = std::upper_bound(blanks.begin(), blanks.end(), j - 1);
        heap.addEnd(j, after == blanks.begin() ? 0 : *(after - 1) + 1, args[j]);
    }
    return kmax::drainTopK(heap, k, job);
}

} // namespace

std::unique_ptr<KMax1dSolver> makeCpuKMax1dSolver() {
    return std::make_unique<kmax::HostKMax1dSolver<&cpuTopK<std::int64_t>, &cpuTopK<double>>>();
}

} // namespace glint
