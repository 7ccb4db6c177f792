// The parts of the work array's preparation its files share (ExclusionMask.cpp, IncludedStats.cpp,
// WorkArray.cpp, PrepareWorkArray.cpp): the checked ROI, the ROI's exclusion mask, the included pixels' statistics
// and the positive sums. Not for use outside core/algo/regions.
#pragma once

#include "core/algo/regions/WorkArray.h"

#include <cstdint>
#include <string>
#include <vector>

namespace glint::regions {

std::string rectText(const PixelRect& r);

// The ROI of the parameters (the whole image when none), checked to lie inside the image (UsageError).
PixelRect checkedRoi(const Image& image, const BrightestParams& params);

// The exclusion mask in the ROI's own frame (row-major, roi.width per row); empty when nothing is
// excluded. Blanks, non-finite samples, exclusion rectangles (clipped) and polygons.
std::vector<std::uint8_t> roiExclusionMask(const Image& image, const PixelRect& roi, const BrightestParams& params);

// Statistics of the included values that the pivot and the number formats need.
// Statistics of the included values that the pivot and the number formats need.
struct IncludedStats {
    std::size_t count = 0;
    double min = 0.0;
    double max = 0.0;
    double pivot = 0.0;
    std::vector<std::uint64_t> histogram; // small integer types: counts by value - histogramOffset
    long long histogramOffset = 0;
};

// The included values' count, extremes and the pivot of `spec` over them (exact: histograms for small integer
// types, radix selection for percentiles).
IncludedStats includedStats(const Image& image, const PixelRect& roi, const std::vector<std::uint8_t>& mask,
                            const PivotSpec& spec);

// The sum of the positive a over the included pixels: exact in integer mode, rounded up otherwise.
void positiveSums(WorkArray& w, const IncludedStats& stats, const std::vector<std::uint8_t>& roiMask);

} // namespace glint::regions
