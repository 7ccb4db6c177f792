// Generated image pairs for the common-component bench and tests: two overlapping crops of a natural-
// looking fractal-noise picture (a known answer), and pairs of random images with few values.
#pragma once

#include "core/io/Image.h"

#include <cstdint>
#include <utility>

namespace glint::common_component {

// A deterministic 8-bit fractal-noise picture (octaves of smoothed lattice noise down to single pixels,
// like an aerial photo's mix of large shapes and fine texture).
Image fractalNoiseImage(int width, int height, std::uint32_t seed);

// Two side x side crops of a fractalNoiseImage of 1.5 * side, half a side apart in x and y: the common
// component is their (side/2)^2 overlap at dx = dy = -(side/2).
std::pair<Image, Image> overlappingCrops(int side, std::uint32_t seed = 1);

// Two side x side images of independent uniform values 0..values-1.
std::pair<Image, Image> randomValuePair(int side, int values, std::uint32_t seed = 1);

} // namespace glint::common_component
