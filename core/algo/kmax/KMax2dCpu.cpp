// The 2-D CPU backend: the strip maxima of the brightest-region search (every core, SIMD tiles) order
// the strips; strips are then taken best first, each a 1-D problem whose rectangles go best-first into
// one top-k list, until no strip left can beat the list's k-th sum. Typically only a few hundred strips
// are opened, so the cost is that of the strip maxima.
#include "core/algo/kmax/KMax.h"
#include "core/algo/kmax/StripSearch.h"

#include "core/algo/regions/WorkArray.h"

#include <algorithm>
#include <cmath>

namespace glint {

// Double sums: a strip's maximum by Kadane's scan and by differences of Q add the same column sums in
// different orders. Each is within (cols + 2) u sum|s| of the exact sum, and sum|s| <= sum of |a| over
// the work array; twice that, with room, bounds their difference.
double kmax::orderSlack(const WorkArray& work) {
    if (work.integer) return 0.0;
    long double abs = 0.0L;
    std::vector<double> row(static_cast<std::size_t>(work.cols));
    for (int r = 0; r < work.rows; ++r) {
        work.rowReal(r, row.data());
        for (double v : row) abs += std::fabs(v);
    }
    return 8.0 * (work.cols + work.rows + 4.0) * 0x1.0p-53 * static_cast<double>(abs) + 1e-300;
}

namespace {

template <class V>
std::vector<WorkRect> cpuTopK(const WorkArray& work, std::size_t k, JobControl& job, ProgressSpan span) {
    const int rows = work.rows, cols = work.cols;
    const StripMaxima maxima = computeStripMaximaCpu(work, job);
    job.throwIfCancelled();
    span.set(job, 0.7);
    const std::vector<V> P = timedColumnPrefixSums<V>(work, job);
    auto step = job.timing().scope("search");
    const double slack = kmax::orderSlack(work);
    const ExclusionIndex exclusions(rows, cols, work.excluded);
    auto maximum = [&](std::size_t i) {
        return maxima.integer ? static_cast<double>(maxima.ints[i]) : maxima.reals[i];
    };
    // Strips by decreasing maximum: the most promising first, sorted in growing batches.
    const std::size_t count = maxima.size();
    std::vector<std::uint32_t> order(count);
    for (std::size_t i = 0; i < count; ++i) order[i] = static_cast<std::uint32_t>(i);
    std::vector<std::size_t> topStart(static_cast<std::size_t>(rows) + 1);
    for (int t = 0; t <= rows; ++t) topStart[t] = StripMaxima::index(rows, t, t);
    auto stripOf = [&](std::size_t i) {
        const int top = static_cast<int>(std::upper_bound(topStart.begin(), topStart.end(), i) - topStart.begin()) - 1;
        return std::pair<int, int>{top, top + static_cast<int>(i - topStart[top])};
    };
    auto byMaximum = [&](std::uint32_t a, std::uint32_t b) {
        if (maxima.integer) return maxima.ints[a] > maxima.ints[b];
        return maxima.reals[a] > maxima.reals[b];
    };
    kmax::TopKeeper<V, WorkRect> keep(k);
    kmax::StripProblem<V> strip;
    std::size_t sorted = 0, batch = std::min(count, 4 * k + 256);
    for (std::size_t pos = 0; pos < count; ++pos) {
        if (pos == sorted) {
            // Cancel is checked around each selection and sort (neither can be interrupted); batches stop
            // growing at 2^20 strips, so that one sort stays well under the 100 ms cancel target.
            job.throwIfCancelled();
            const auto first = order.begin() + static_cast<std::ptrdiff_t>(sorted);
            const auto last = order.begin() + static_cast<std::ptrdiff_t>(std::min(count, sorted + batch));
            std::nth_element(first, last - 1, order.end(), byMaximum);
            job.throwIfCancelled();
            std::sort(first, last, byMaximum);
            sorted = static_cast<std::size_t>(last - order.begin());
            batch = std::min<std::size_t>(batch * 4, std::size_t{1} << 20);
        }
        const std::size_t i = order[pos];
        // Kadane's maximum is at least 0; a strip with no positive rectangle reads 0, above its true best.
        if (keep.full()) {
            if constexpr (std::is_integral_v<V>) {
                if (!(maxima.ints[i] > keep.worst())) break;
            } else {
                if (!(maximum(i) + slack > keep.worst())) break;
            }
        }
        if ((pos & 0xff) == 0) job.throwIfCancelled();
        const auto [top, bottom] = stripOf(i);
        strip.build(P.data() + static_cast<std::size_t>(top) * cols, P.data() + static_cast<std::size_t>(bottom + 1) * cols,
                    cols, exclusions.any() ? exclusions.row(top) : nullptr, bottom);
        strip.offer(keep, top, bottom);
    }
    span.set(job, 1.0);
    return kmax::takeRects(keep);
}

class CpuSolver final : public KMaxRectSolver {
public:
    std::vector<WorkRect> topK(const WorkArray& work, std::size_t k, JobControl& job, ProgressSpan span) override {
        if (work.includedCount == 0) return {};
        // The strip table holds rows^2/2 values: beyond 1 GiB, every strip in turn as the reference does.
        if (static_cast<double>(work.rows) * (work.rows + 1) / 2 * 8 > 1073741824.0)
            return makeReferenceKMaxRectSolver()->topK(work, k, job, span);
        return work.integer ? cpuTopK<std::int64_t>(work, k, job, span) : cpuTopK<double>(work, k, job, span);
    }
    std::vector<WorkRect> topKDistinct(const WorkArray& work, std::size_t k, double f, JobControl& job,
                                       ProgressSpan span) override {
        return distinctTopKCpu(work, k, f, job, span);
    }
    std::vector<WorkRect> topKBounded(const WorkArray& work, std::size_t k, std::optional<double> f, int maxBox, JobControl& job,
                                      ProgressSpan span) override {
        return boundedTopKCpu(work, k, f, maxBox, job, span);
    }
};

} // namespace

std::unique_ptr<KMaxRectSolver> makeCpuKMaxRectSolver() { return std::make_unique<CpuSolver>(); }

} // namespace glint
