// The sigma clipping's vector kernels as clippedStatsHistogram (BackgroundClipping.cpp) runs them: the kept
// values' lane sums and every value's histogram bin, the widest variant the CPU runs. Internal to core/algo/sources.
#pragma once

#include "core/algo/sources/Background.h"

#include <cstddef>
#include <cstdint>

namespace glint::clipping {

// keptLaneSumsVariant's sums (Background.h) in scalar code, for any n (the tail of fewer than 32 values).
void keptLaneSumsScalar(const double* values, std::size_t n, double origin, double vmin, double vmax, double* a1,
                        double* a2);
// The widest keptLaneSumsVariant the CPU runs, chosen once.
KeptLaneSumsFunction keptLaneSums();
// Every value's bin (bgmath::binOf) into slot: the widest variant the CPU runs (chosen once) when binWidth > 0,
// else the scalar one.
void binSlots(const double* values, std::size_t n, double lo, double binWidth, std::int16_t* slot);

} // namespace glint::clipping
