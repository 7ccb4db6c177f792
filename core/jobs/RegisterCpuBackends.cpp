// The one place that lists every algorithm's reference and CPU backends.
#include "algo/brightest/Brightest.h"
#include "jobs/Backend.h"

#include "algo/trace/LineTrace.h"
#include "algo/common/CommonComponent.h"
#include "algo/kmax/KMax.h"

#include <mutex>

namespace glint {

void registerCpuBackends() {
    static std::once_flag once;
    std::call_once(once, [] {
        // Each algorithm adds its line here: registerXxxCpuBackends();
        registerLineTraceCpuBackends();
        registerCommonComponentCpuBackends();
        registerBrightestCpuBackends();
        registerKMaxCpuBackends();
    });
}

} // namespace glint
