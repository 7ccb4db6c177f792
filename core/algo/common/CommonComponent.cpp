#include "core/algo/common/CommonComponent.h"

#include "core/jobs/JobRunner.h"
#include "core/util/Errors.h"

#include <algorithm>
#include <string>
#include <cmath>

namespace glint {

void validateCommonComponentParams(const CommonComponentParams& params) {
    if (!std::isfinite(params.tolerance) || params.tolerance < 0.0)
        throw UsageError("the tolerance must be a finite number >= 0");
}

void beginCommonComponentRun(const CommonComponentParams& params, Backend backend, JobControl& job) {
    validateCommonComponentParams(params);
    job.setDevice(deviceNameFor(backend));
}

long long maxUsefulShift(int wA, int hA, int wB, int hB) {
    // Offsets with any overlap: -(wA-1) <= dx <= wB-1, -(hA-1) <= dy <= hB-1.
    return static_cast<long long>(std::max(std::max(wA, wB), std::max(hA, hB))) - 1;
}

void validateMaxShift(long long maxShift, int wA, int hA, int wB, int hB) {
    if (maxShift < 0) return; // every offset
    const long long limit = maxUsefulShift(wA, hA, wB, hB);
    if (maxShift > limit)
        throw UsageError("the maximum shift must be between 0 and " + std::to_string(limit) + " for images of " +
                         std::to_string(wA) + "x" + std::to_string(hA) + " and " + std::to_string(wB) + "x" +
                         std::to_string(hB) + " (no offset beyond it overlaps); got " + std::to_string(maxShift));
}

CommonComponentResult findCommonComponent(const Image& a, const Image& b, const CommonComponentParams& params,
                                          Backend backend, JobControl& job) {
    validateCommonComponentParams(params);
    if (a.empty() || b.empty()) throw InputError("common component: both images must hold pixels");
    // The CPU backend's cost grows with pixel pairs (|A| x |B| over all offsets); its rate ranges from
    // ~1e8 pairs/s a thread (random data, every offset labelled) to ~2e10 (pruned crops); 1e9 assumed.
    const double pairs = static_cast<double>(a.width()) * a.height() * b.width() * b.height();
    return runJob<CommonComponentAlgorithm>(backend, job, pairs / (1e9 * cpuThreadCount()) * 1e3,
                                            [&](CommonComponentAlgorithm& algorithm, Backend resolved) {
                                                CommonComponentResult result = algorithm.run(a, b, params, job);
                                                result.backend = resolved;
                                                result.device = job.device();
                                                return result;
                                            });
}

} // namespace glint
