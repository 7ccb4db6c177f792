// The one place that lists every algorithm's bench.
#include "bench/Bench.h"

#include <mutex>

namespace glint {

void registerBrightestBench(); // core/bench/BrightestBench.cpp

void registerAllBenches() {
    static std::once_flag once;
    std::call_once(once, [] {
        // Each algorithm adds its line here: registerXxxBench();
        registerBrightestBench();
    });
}

} // namespace glint
