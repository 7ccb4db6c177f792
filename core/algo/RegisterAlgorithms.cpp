// One line per algorithm: each algorithm's folder exposes its registerXxxCpuBackends().
#include "core/algo/RegisterAlgorithms.h"

#include "core/algo/brightest/Brightest.h"
#include "core/algo/commoncomponent/CommonComponent.h"
#include "core/algo/kmax/KMax.h"
#include "core/algo/trace/LineTrace.h"

#include <mutex>

namespace glint {

void registerCpuBackends() {
    static std::once_flag once;
    std::call_once(once, [] {
        registerLineTraceCpuBackends();
        registerCommonComponentCpuBackends();
        registerBrightestCpuBackends();
        registerKMaxCpuBackends();
    });
}

} // namespace glint
