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

// A width x height window of an 8-bit image (any image is first rounded to 0..255) at (x0, y0).
Image cropImage(const Image& source, int x0, int y0, int width, int height);

// A camera-like change of an 8-bit image: v' = gain * 255 * (v / 255)^gamma + bias + uniform noise in
// [-noise, noise], rounded and clipped to 0..255; then, with jpegQuality > 0 and the codecs built in,
// a JPEG round trip at that quality (false is returned when the codecs are missing and one was asked).
bool changeImage(Image& image, double gain, double bias, double gamma, int noise, int jpegQuality, std::uint32_t seed);

// source scaled by an integer factor (bicubic), for crops bigger than a small sample.
Image upscaledImage(const Image& source, int factor);

} // namespace glint::common_component
