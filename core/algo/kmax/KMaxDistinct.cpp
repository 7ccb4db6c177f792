// brightest --mode overlap --distinct F: the exact top K under the rule of Distinct.h. The reference scans
// every rectangle each round; the CPU search keeps each strip's best allowed interval between rounds and
// takes families of strips, then strips, best bound first, a family bounded by one virtual strip against the
// listed rectangles (NOTES.md, "Distinct": the method and why it is exact).
#include "core/algo/kmax/Distinct.h"
#include "core/algo/kmax/DistinctSearch.h"
#include "core/algo/kmax/KMax.h"
#include "core/algo/kmax/SegmentHeap.h"
#include "core/algo/kmax/StripSearch.h"

#include "core/algo/regions/WorkArray.h"
#include "core/util/Errors.h"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <tuple>
#include <utility>

namespace glint {

namespace {

using kmax::buildStrip;
using kmax::DistinctCap;
using kmax::pairSum;

// ---- the reference ----------------------------------------------------------------------------------

// f unset: plain overlap (a rectangle is allowed unless it is a listed one); maxBox > 0: only rectangles with
// both sides <= maxBox.
template <class V>
std::vector<WorkRect> referenceDistinct(const WorkArray& work, std::size_t k, std::optional<double> f, int maxBox, JobControl& job,
                                        ProgressSpan span) {
    const std::vector<V> P = timedColumnPrefixSums<V>(work, job);
    auto step = job.timing().scope("search");
    const int rows = work.rows, cols = work.cols;
    const ExclusionIndex exclusions(rows, cols, work.excluded);
    const DistinctCap cap(f.value_or(0.0));
    const int box = maxBox > 0 ? maxBox : std::max(rows, cols);
    auto allowedBy = [&](const WorkRect& rect, const WorkRect& L) {
        if (f) return kmax::distinctAllowed(rect, L, cap);
        return std::make_tuple(rect.row0, rect.rows, rect.col0, rect.cols) != std::make_tuple(L.row0, L.rows, L.col0, L.cols);
    };
    std::vector<WorkRect> listed;
    std::vector<V> q(static_cast<std::size_t>(cols) + 1);
    std::vector<std::uint8_t> blocked(static_cast<std::size_t>(cols));
    while (listed.size() < k) {
        bool have = false;
        V bestSum = V(0);
        WorkRect best;
        // Tops, bottoms, first and last columns ascending, a new best only when strictly larger: the first
        // of equal sums in rankedBefore's order wins.
        for (int top = 0; top < rows; ++top) {
            job.throwIfCancelled();
            for (int bottom = top; bottom < rows && bottom - top < box; ++bottom) {
                buildStrip(P.data() + static_cast<std::size_t>(top) * cols, P.data() + static_cast<std::size_t>(bottom + 1) * cols,
                           cols, exclusions.any() ? exclusions.row(top) : nullptr, bottom, q.data(), blocked.data());
                // The strip's largest sum, rule and bound aside: a strip that cannot beat the best so far is passed
                // over.
                bool any = false;
                V stripMax = V(0);
                int arg = -1;
                for (int r = 0; r < cols; ++r) {
                    if (blocked[r]) {
                        arg = -1;
                        continue;
                    }
                    if (arg < 0 || q[r] < q[arg]) arg = r;
                    const V s = pairSum(q[r + 1], q[arg]);
                    if (!any || s > stripMax) stripMax = s;
                    any = true;
                }
                if (!any || (have && !(stripMax > bestSum))) continue;
                for (int l = 0; l < cols; ++l)
                    for (int r = l; r < cols && !blocked[r] && r - l < box; ++r) {
                        const V s = pairSum(q[r + 1], q[l]);
                        if (have && !(s > bestSum)) continue;
                        const WorkRect rect = makeWorkRect(top, bottom, l, r, s);
                        bool allowed = true;
                        for (const WorkRect& L : listed)
                            if (!allowedBy(rect, L)) {
                                allowed = false;
                                break;
                            }
                        if (!allowed) continue;
                        have = true;
                        bestSum = s;
                        best = rect;
                    }
            }
        }
        if (!have) break;
        listed.push_back(best);
        span.set(job, static_cast<double>(listed.size()) / static_cast<double>(k));
    }
    return listed;
}

// ---- the CPU search ----------------------------------------------------------------------------------

// FamilySearch (DistinctSearch.h) over every rectangle, its families first bounded by their strips' Kadane
// maxima (computeStripMaximaCpu: SIMD tiles, all cores; clamped at 0, so at least each strip's best).
template <class V>
std::vector<WorkRect> cpuDistinct(const WorkArray& work, std::size_t k, double f, JobControl& job, ProgressSpan span) {
    const int rows = work.rows;
    if (static_cast<double>(rows) * (rows + 1) / 2 > 1.5e8)
        throw UsageError("--distinct takes images of at most 17 320 pixels on the shorter side (its table of strips)");
    StripMaxima maxima = computeStripMaximaCpu(work, job);
    job.throwIfCancelled();
    span.set(job, 0.3);
    const std::vector<V> P = timedColumnPrefixSums<V>(work, job);
    auto step = job.timing().scope("search");
    std::vector<V> upper;
    if constexpr (std::is_integral_v<V>) upper = std::move(maxima.ints);
    else upper = std::move(maxima.reals);
    kmax::FamilySearch<V> search(work, P, std::move(upper), f, 0);
    job.throwIfCancelled();
    return search.run(k, job, [&](std::size_t listed) {
        span.set(job, 0.3 + 0.7 * static_cast<double>(listed) / static_cast<double>(k));
    });
}

} // namespace

std::vector<WorkRect> distinctTopKReference(const WorkArray& work, std::size_t k, double f, JobControl& job,
                                            ProgressSpan span) {
    if (work.includedCount == 0) return {};
    return work.integer ? referenceDistinct<std::int64_t>(work, k, f, 0, job, span) : referenceDistinct<double>(work, k, f, 0, job, span);
}

std::vector<WorkRect> distinctTopKCpu(const WorkArray& work, std::size_t k, double f, JobControl& job, ProgressSpan span,
                                      const std::string& steps) {
    if (work.includedCount == 0) return {};
    return kmax::withStepPrefix(job, steps, [&] {
        return work.integer ? cpuDistinct<std::int64_t>(work, k, f, job, span) : cpuDistinct<double>(work, k, f, job, span);
    });
}

std::vector<WorkRect> boundedTopKReference(const WorkArray& work, std::size_t k, std::optional<double> f, int maxBox, JobControl& job,
                                           ProgressSpan span) {
    if (maxBox <= 0) throw std::logic_error("boundedTopKReference: no search bound");
    if (work.includedCount == 0) return {};
    return work.integer ? referenceDistinct<std::int64_t>(work, k, f, maxBox, job, span)
                        : referenceDistinct<double>(work, k, f, maxBox, job, span);
}

} // namespace glint
