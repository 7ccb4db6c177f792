// The crowded star field of the bounded-search suites (test_bounded, test_overlap_bound), as on 47 Tuc.
#pragma once

#include "scenes/StarField.h"

#include <cstdint>

namespace glint::test {

// Bright Moffat stars (power-law fluxes 3e4..1e6 e-, 3 px apart at least; no saturation, no seam, no galaxy, no
// blank border, a flat sky) at a density (400 on 256^2) where their summed light beats the cost of 3 local RMS
// over the whole frame, as on 47 Tuc.
inline StarField crowdedField(int side, int stars, std::uint64_t seed) {
    return makeStarField({.width = side, .height = side, .stars = stars, .fluxMin = 3.0e4, .fluxMax = 1.0e6,
                          .saturatedStars = 0, .gradientX = 0.0, .gradientY = 0.0, .seamStep = 0.0, .saturation = 1e9,
                          .blankBorder = 0, .galaxy = false, .minSeparation = 3.0, .seed = seed});
}

} // namespace glint::test
