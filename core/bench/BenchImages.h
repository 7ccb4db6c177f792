// The generated images of the maximum-subarray benches (brightest, kmax): the same pictures on every
// machine, so that timings and results compare across runs.
#pragma once

namespace glint {

class Image;
struct BrightestResult;

// An 8-bit mammogram-like n x n picture (breast, pectoral wedge, two masses, a saturated film label).
Image benchMammogram(int n);
// A float32 n x n sky field (gradient, noise, a few hundred stars, an extended galaxy).
Image benchSkyField(int n);

// The same region sums, bit for bit, in the same order (ties may list other rectangles): how the K-MSP
// benches (kmax, ties) verify a backend against its oracle. core/bench/KMaxBench.cpp.
bool sameRegionSums(const BrightestResult& a, const BrightestResult& b);

} // namespace glint
