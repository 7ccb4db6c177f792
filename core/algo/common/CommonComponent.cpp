#include "algo/common/CommonComponent.h"

#include "util/Errors.h"

#include <chrono>
#include <cmath>

namespace glint {

void validateCommonComponentParams(const CommonComponentParams& params) {
    if (!std::isfinite(params.tolerance) || params.tolerance < 0.0)
        throw UsageError("the tolerance must be a finite number >= 0");
}

CommonComponentResult findCommonComponent(const Image& a, const Image& b, const CommonComponentParams& params,
                                          Backend backend, JobControl& job, Backend* resolvedBackend) {
    validateCommonComponentParams(params);
    if (a.empty() || b.empty()) throw InputError("common component: both images must hold pixels");
    const Backend resolved = CommonComponentRegistry::resolve(backend);
    if (resolvedBackend) *resolvedBackend = resolved;
    auto algorithm = CommonComponentRegistry::create(resolved);
    if (job.device().empty()) job.setDevice(deviceNameFor(resolved));
    const auto start = std::chrono::steady_clock::now();
    CommonComponentResult result = algorithm->run(a, b, params, job);
    job.timing().setTotal(msSince(start));
    job.setProgress(1.0);
    return result;
}

} // namespace glint
