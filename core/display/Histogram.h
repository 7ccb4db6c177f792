// Histograms of an image's finite non-blank samples for display (the histogram dock, where display limits
// are shown and dragged): equal bins over a chosen range, computed on all CPU threads.
#pragma once

#include "core/io/Image.h"

#include <cstdint>
#include <vector>

namespace glint {

struct Histogram {
    double low = 0.0;                  // left edge of the first bin
    double high = 1.0;                 // right edge of the last bin
    std::vector<std::uint64_t> counts; // counts[i]: values in [low + i·w, low + (i+1)·w), the last bin closed
    std::uint64_t below = 0;           // finite values left of low
    std::uint64_t above = 0;           // finite values right of high
    double binWidth() const { return counts.empty() ? 0.0 : (high - low) / static_cast<double>(counts.size()); }
};

// Throws UsageError unless bins >= 1 and low < high.
Histogram computeHistogram(const Image& image, double low, double high, int bins);

// A range and bin count that show the image well: integer images with fewer distinct levels than maxBins
// get one bin per level (no comb pattern); otherwise maxBins bins over the data, trimmed to the central
// 99.9% when the extremes are outliers far from the bulk (hot pixels, saturated labels).
struct HistogramRange {
    double low = 0.0;
    double high = 1.0;
    int bins = 1;
};
HistogramRange chooseHistogramRange(const Image& image, double min, double max, int maxBins = 512);

} // namespace glint
