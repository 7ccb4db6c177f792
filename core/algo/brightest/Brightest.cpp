#include "core/algo/brightest/Brightest.h"

#include "core/algo/brightest/MaxSubarray.h"
#include "core/algo/kmax/KMax.h" // the overlap mode's job function: brightest -> kmax, one way
#include "core/algo/maxsub/WorkArray.h"
#include "core/io/Image.h"
#include "core/jobs/JobRunner.h"

#include <chrono>
#include <utility>

namespace glint {

namespace {

BrightestResult runOne(const Image& image, const BrightestParams& params, Backend resolved, MaxSubarraySolver& solver,
                       JobControl& job, ProgressSpan span) {
    PreparedRegionSearch search = prepareRegionSearch(image, params, params.mode, resolved, job);
    search.result.regions = regionsOf(search.work, solver.solveDisjoint(search.work, params.k, job, span));
    return std::move(search.result);
}

} // namespace

BrightestResult runBrightest(const Image& image, const BrightestParams& params, Backend backend, JobControl& job) {
    validateBrightestParams(params);
    if (params.mode == BrightestMode::Overlap) return runBrightestOverlap(image, params, backend, job); // algo/kmax
    return runJob<MaxSubarraySolver>(backend, job, estimatedBrightestCpuMs(image, params),
                                     [&](MaxSubarraySolver& solver, Backend resolved) {
                                         return runOne(image, params, resolved, solver, job, {});
                                     });
}

std::vector<BrightestResult> runPivotSweep(const Image& image, const BrightestParams& params,
                                           const std::vector<PivotSpec>& pivots, Backend backend, JobControl& job) {
    validateBrightestParams(params);
    for (const PivotSpec& p : pivots) {
        BrightestParams one = params;
        one.pivot = p;
        validateBrightestParams(one);
    }
    if (params.mode == BrightestMode::Overlap) {
        const auto start = std::chrono::steady_clock::now();
        std::vector<BrightestResult> results;
        for (const PivotSpec& p : pivots) {
            BrightestParams one = params;
            one.pivot = p;
            results.push_back(runBrightestOverlap(image, one, backend, job));
        }
        job.timing().setTotal(msSince(start));
        return results;
    }
    return runJob<MaxSubarraySolver>(
        backend, job, estimatedBrightestCpuMs(image, params) * static_cast<double>(pivots.size()),
        [&](MaxSubarraySolver& solver, Backend resolved) {
            std::vector<BrightestResult> results;
            const ProgressSpan all;
            for (std::size_t i = 0; i < pivots.size(); ++i) {
                BrightestParams one = params;
                one.pivot = pivots[i];
                const double n = static_cast<double>(pivots.size());
                results.push_back(runOne(image, one, resolved, solver, job, all.part(i / n, (i + 1) / n)));
            }
            return results;
        });
}

void registerBrightestCpuBackends() {
    BackendRegistry<MaxSubarraySolver>::add(Backend::Reference, &makeReferenceMaxSubarraySolver);
    BackendRegistry<MaxSubarraySolver>::add(Backend::Cpu, &makeCpuMaxSubarraySolver);
}

} // namespace glint
