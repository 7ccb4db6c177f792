// The 2-D reference backend, the oracle of the tests: every strip (pair of rows) in turn as a 1-D
// problem over its column sums, its rectangles handed best-first to one top-k list; a strip whose best
// rectangle cannot enter the list is passed over. O(rows^2 cols) on one thread.
#include "core/algo/kmax/KMax.h"
#include "core/algo/kmax/StripSearch.h"

#include "core/algo/regions/WorkArray.h"

namespace glint {

namespace {

template <class V>
std::vector<WorkRect> referenceTopK(const WorkArray& work, std::size_t k, JobControl& job, ProgressSpan span) {
    const std::vector<V> P = timedColumnPrefixSums<V>(work, job);
    auto step = job.timing().scope("search");
    const int rows = work.rows, cols = work.cols;
    const ExclusionIndex exclusions(rows, cols, work.excluded);
    kmax::TopKeeper<V, WorkRect> keep(k);
    kmax::StripProblem<V> strip;
    for (int top = 0; top < rows; ++top) {
        job.throwIfCancelled();
        const std::int32_t* next = exclusions.any() ? exclusions.row(top) : nullptr;
        for (int bottom = top; bottom < rows; ++bottom) {
            strip.build(P.data() + static_cast<std::size_t>(top) * cols, P.data() + static_cast<std::size_t>(bottom + 1) * cols,
                        cols, next, bottom);
            strip.offer(keep, top, bottom);
        }
        const double left = static_cast<double>(rows - top - 1) / rows;
        span.set(job, 1.0 - left * left);
    }
    return kmax::takeRects(keep);
}

class ReferenceSolver final : public KMaxRectSolver {
public:
    std::vector<WorkRect> topK(const WorkArray& work, std::size_t k, JobControl& job, ProgressSpan span) override {
        if (work.includedCount == 0) return {};
        return work.integer ? referenceTopK<std::int64_t>(work, k, job, span) : referenceTopK<double>(work, k, job, span);
    }
    std::vector<WorkRect> topKDistinct(const WorkArray& work, std::size_t k, double f, JobControl& job,
                                       ProgressSpan span) override {
        return distinctTopKReference(work, k, f, job, span);
    }
    std::vector<WorkRect> topKBounded(const WorkArray& work, std::size_t k, std::optional<double> f, int maxBox, JobControl& job,
                                      ProgressSpan span) override {
        return boundedTopKReference(work, k, f, maxBox, job, span);
    }
};

} // namespace

std::unique_ptr<KMaxRectSolver> makeReferenceKMaxRectSolver() { return std::make_unique<ReferenceSolver>(); }

} // namespace glint
