// The one place that lists every algorithm's bench.
#include "bench/Bench.h"

#include <mutex>

namespace glint {

void registerTraceBench(); // bench/TraceBench.cpp
void registerCommonBench();
void registerBrightestBench(); // bench/BrightestBench.cpp
void registerKMaxBenches();    // bench/KMaxBench.cpp: kmax1d and kmax
void registerRobustnessBenches(); // bench/RobustnessBench.cpp: ties and cancel
void registerSourceBench();       // bench/SourceBench.cpp: sources (star-field evaluation, SExtractor)
void registerCatalogueBench();    // bench/CatalogueBench.cpp: catalogue (issue 30's truth fields, SExtractor side by side)
void registerMammogramBench();    // bench/MammogramBench.cpp: mammogram (issue 33's generated films, before/after)

void registerAllBenches() {
    static std::once_flag once;
    std::call_once(once, [] {
        // Each algorithm adds its line here: registerXxxBench();
        registerTraceBench();
        registerCommonBench();
        registerBrightestBench();
        registerKMaxBenches();
        registerRobustnessBenches();
        registerSourceBench();
        registerCatalogueBench();
        registerMammogramBench();
    });
}

} // namespace glint
