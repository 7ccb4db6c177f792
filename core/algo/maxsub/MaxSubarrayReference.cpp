// The reference backend: the papers' plain O(rows^2 * cols) algorithm on one thread (column prefix
// sums, then Kadane's scan of every strip). It is the oracle of the tests and the speed-up baseline.
// With a search bound (rule.maxBox > 0) it is brute force over the bounded strips and segments.
#include "core/algo/maxsub/MaxSubarray.h"

#include "core/util/Errors.h"

#include <algorithm>

namespace glint {

namespace {

class ReferenceSolver final : public MaxSubarraySolver {
public:
    DisjointOutcome solveDisjoint(const WorkArray& work, const DisjointRule& rule, JobControl& job,
                                  ProgressSpan span) override {
        if (work.includedCount == 0) return {};
        return work.integer ? run(timedColumnPrefixSums<std::int64_t>(work, job), work, rule, job, span)
                            : run(timedColumnPrefixSums<double>(work, job), work, rule, job, span);
    }

private:
    template <class V>
    static DisjointOutcome run(const std::vector<V>& P, const WorkArray& work, const DisjointRule& rule, JobControl& job,
                               ProgressSpan span) {
        const int rows = work.rows;
        const int cols = work.cols;
        const int k = rule.k;
        ExclusionIndex exclusions(rows, cols, work.excluded);
        auto search = [&](const DisjointOutcome& so_far) -> std::optional<WorkRect> {
            auto step = job.timing().scope("search");
            const double round = static_cast<double>(so_far.found.size());
            StripBest<V> best;
            int bestTop = 0, bestBottom = 0;
            for (int top = 0; top < rows; ++top) {
                const std::int32_t* blocked = exclusions.any() ? exclusions.row(top) : nullptr;
                for (int bottom = top; bottom < rows; ++bottom) {
                    job.throwIfCancelled();
                    const StripBest<V> s =
                        scanStrip(P.data() + static_cast<std::size_t>(top) * cols,
                                  P.data() + static_cast<std::size_t>(bottom + 1) * cols, 1, cols, bottom, blocked);
                    if (s.sum > best.sum) {
                        best = s;
                        bestTop = top;
                        bestBottom = bottom;
                    }
                }
                // Work done for tops 0..top is proportional to 1 - ((rows-top-1)/rows)^2.
                const double left = static_cast<double>(rows - top - 1) / rows;
                span.set(job, std::min(1.0, (round + 1.0 - left * left) / k));
            }
            if (!(best.sum > V(0))) return std::nullopt;
            return stripRect(bestTop, bestBottom, best);
        };
        auto bounded = [&](const DisjointOutcome& so_far) -> std::optional<WorkRect> {
            auto step = job.timing().scope("search");
            return boundedSearch(P, rows, cols, rule.maxBox, exclusions, job, span, so_far.found.size(), k);
        };
        DisjointOutcome out = rule.maxBox > 0
                                  ? runDisjointRounds(rule, bounded, [&](const WorkRect& r) { exclusions.exclude(r); })
                                  : runDisjointRounds(rule, search, [&](const WorkRect& r) { exclusions.exclude(r); });
        span.set(job, 1.0);
        return out;
    }

    // The bounded search by brute force: every strip of at most maxBox rows, every segment of at most
    // maxBox columns free of blocked cells, summed as S[last + 1] - S[first] over the strip's row prefix
    // (boundedRowPrefix). Visited in the tie-break's order (top, bottom, last ascending; first descending)
    // with strict improvement, so the first best met is the rule's.
    template <class V>
    static std::optional<WorkRect> boundedSearch(const std::vector<V>& P, int rows, int cols, int maxBox,
                                                 const ExclusionIndex& exclusions, JobControl& job, ProgressSpan span,
                                                 std::size_t round, int k) {
        std::vector<V> S(static_cast<std::size_t>(cols) + 1);
        V bestSum = V(0);
        int bestTop = -1, bestBottom = -1, bestFirst = 0, bestLast = -1;
        for (int top = 0; top < rows; ++top) {
            job.throwIfCancelled();
            for (int bottom = top; bottom < rows && bottom - top < maxBox; ++bottom) {
                boundedRowPrefix(P.data() + static_cast<std::size_t>(top) * cols,
                                 P.data() + static_cast<std::size_t>(bottom + 1) * cols, 1, cols, S.data());
                for (int last = 0; last < cols; ++last)
                    for (int first = last; first >= 0 && last - first < maxBox; --first) {
                        if (exclusions.blocked(top, bottom, first)) break;
                        const V sum = S[last + 1] - S[first];
                        if (sum > bestSum) {
                            bestSum = sum;
                            bestTop = top;
                            bestBottom = bottom;
                            bestFirst = first;
                            bestLast = last;
                        }
                    }
            }
            span.set(job, std::min(1.0, (static_cast<double>(round) + static_cast<double>(top + 1) / rows) / k));
        }
        if (bestTop < 0) return std::nullopt;
        return makeWorkRect(bestTop, bestBottom, bestFirst, bestLast, bestSum);
    }
};

} // namespace

std::unique_ptr<MaxSubarraySolver> makeReferenceMaxSubarraySolver() { return std::make_unique<ReferenceSolver>(); }

} // namespace glint
