// What the maximum-subarray benches (brightest, kmax) share: their generated images, the same pictures on
// every machine, so that timings and results compare across runs; their check; the strip kernel's floor.
#pragma once

namespace glint {

class Image;
struct BrightestResult;
struct WorkArray;

// An 8-bit mammogram-like n x n picture (breast, pectoral wedge, two masses, a saturated film label).
Image benchMammogram(int n);
// A float32 n x n sky field (gradient, noise, a few hundred stars, an extended galaxy).
Image benchSkyField(int n);

// The same region sums, bit for bit, in the same order (ties may list other rectangles): how the K-MSP
// benches (kmax, ties) verify a backend against its oracle. bench/KMaxBench.cpp.
bool sameRegionSums(const BrightestResult& a, const BrightestResult& b);

// The CUDA strip kernel's floor for this work array on this machine's device, in ms: issue-bound (exact
// path 2.5, screen path 3.5 instructions a cell) or ALU-bound (1.5 a cell on a pipe of 64 lanes),
// whichever is larger; -1 without a usable device. bench/BrightestBench.cpp.
double stripKernelFloorMs(const WorkArray& w);

} // namespace glint
