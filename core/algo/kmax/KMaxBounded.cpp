// brightest --mode overlap --max-box P: the exact top K among the rectangles with both sides <= P, plain or
// under --distinct F, on the CPU (the cuda backend runs it on the host): the --distinct search's engine
// (FamilySearch, DistinctSearch.h) with the bound, every family bounded by a virtual strip of intervals of at
// most P columns (NOTES.md, "Bounded").
#include "core/algo/kmax/DistinctSearch.h"
#include "core/algo/kmax/KMax.h"

#include "core/algo/regions/WorkArray.h"

#include <optional>
#include <stdexcept>

namespace glint {

namespace {

// No Kadane bounds: a strip's Kadane maximum spans the whole row, which the bound cuts.
template <class V>
std::vector<WorkRect> cpuBounded(const WorkArray& work, std::size_t k, std::optional<double> f, int maxBox, JobControl& job,
                                 ProgressSpan span) {
    const std::vector<V> P = timedColumnPrefixSums<V>(work, job);
    job.throwIfCancelled();
    span.set(job, 0.1);
    auto step = job.timing().scope("search");
    kmax::FamilySearch<V> search(work, P, {}, f, maxBox);
    job.throwIfCancelled();
    return search.run(k, job, [&](std::size_t listed) {
        span.set(job, 0.1 + 0.9 * static_cast<double>(listed) / static_cast<double>(k));
    });
}

} // namespace

std::vector<WorkRect> boundedTopKCpu(const WorkArray& work, std::size_t k, std::optional<double> f, int maxBox, JobControl& job,
                                     ProgressSpan span, const std::string& steps) {
    if (maxBox <= 0) throw std::logic_error("boundedTopKCpu: no search bound");
    if (work.includedCount == 0) return {};
    return kmax::withStepPrefix(job, steps, [&] {
        return work.integer ? cpuBounded<std::int64_t>(work, k, f, maxBox, job, span)
                            : cpuBounded<double>(work, k, f, maxBox, job, span);
    });
}

// Backends with no bounded search of their own (cuda) run the CPU search on the host.
std::vector<WorkRect> KMaxRectSolver::topKBounded(const WorkArray& work, std::size_t k, std::optional<double> f, int maxBox,
                                                  JobControl& job, ProgressSpan span) {
    return boundedTopKCpu(work, k, f, maxBox, job, span, "host: ");
}

} // namespace glint
