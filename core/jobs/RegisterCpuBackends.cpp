// The one place that lists every algorithm's reference and CPU backends.
#include "core/algo/brightest/Brightest.h"
#include "core/jobs/Backend.h"

#include "core/algo/trace/LineTrace.h"
#include "core/algo/common/CommonComponent.h"
#include "core/algo/kmax/KMax.h"

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
