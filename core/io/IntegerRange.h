// Picks the narrowest native sample type that holds a range of integers exactly, so that loaders keep
// scaled integer data (FITS BZERO, DICOM Rescale Intercept) as integers instead of widening to double.
#pragma once

#include "core/io/Image.h"

#include <optional>

namespace glint {

// The narrowest of uint8, int8, uint16, int16, uint32, int32, int64 that holds every integer in
// [lo, hi]; nothing when the range does not fit int64. long double holds every 64-bit integer
// bound exactly on the platforms Glint builds for (x86-64 extended, aarch64 quad).
std::optional<SampleType> narrowestIntegerType(long double lo, long double hi);

} // namespace glint
