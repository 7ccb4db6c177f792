// The vectorised row sums of a region's plain measurement (PlainMeasure.h): a float row's centroid sums,
// an 8-bit row's sum and maximum and its centroid sums. Internal to core/algo/sources.
#pragma once

#include <cstdint>

namespace glint::region_measure {

// The centroid sums of a float row over its finite samples above the pivot (v, x * v, their number and the sum
// of their x; the last two exact in double), in partial sums, and the exponent range of all its finite
// non-zero samples (lo 255: none), for exactFloatSums.
struct FloatMoments {
    double sv = 0.0, sxv = 0.0, count = 0.0, sx = 0.0;
    std::uint32_t hi = 0, lo = 255;
};

struct IntMoments {
    std::int64_t sv = 0, sxv = 0, count = 0, sx = 0;
};

// The centroid sums of row[x0..x1-1] over its finite samples above the pivot (AVX2 where the CPU has it).
void floatMoments(const float* row, int x0, int x1, double pivot, FloatMoments& f);

// 8-bit rows with AVX2 (the sums are integers: any order gives the same): the sum and maximum of
// row[0..n-1]; and the centroid sums of row[x0..x1-1] over the samples v > limit (limit in [-1, 254]).
__attribute__((target("avx2"))) void u8RowAvx2(const std::uint8_t* row, int n, std::int64_t& sum, std::uint8_t& max);
__attribute__((target("avx2"))) void u8MomentsAvx2(const std::uint8_t* row, int x0, int x1, std::int64_t limit, IntMoments& r);

} // namespace glint::region_measure
