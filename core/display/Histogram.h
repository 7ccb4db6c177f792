// Histograms of an image's finite non-blank samples for display (the histogram dock, where display limits
// are shown and dragged): equal bins over a chosen range, or bins equally wide along a log or asinh axis,
// computed on all CPU threads.
#pragma once

#include "core/io/Image.h"

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace glint {

// How values are laid out along a histogram's horizontal axis between its low and high ends. With
// t = (v − low) / (high − low): linear t; log log10(1000·t + 1) / 3 (DS9's log stretch); asinh
// asinh(10·t) / asinh(10). Log and asinh spread the low end, where the sky of an astronomical frame lies.
enum class HistogramAxis { Linear, Log, Asinh };
const char* histogramAxisName(HistogramAxis axis);
HistogramAxis parseHistogramAxis(const std::string& name); // throws UsageError
// Position 0..1 of a value along the axis (outside [low, high]: beyond 0..1, monotonic), and back.
double histogramAxisPosition(HistogramAxis axis, double low, double high, double value);
double histogramAxisValue(HistogramAxis axis, double low, double high, double position);

struct Histogram {
    double low = 0.0;                  // left edge of the first bin
    double high = 1.0;                 // right edge of the last bin
    std::vector<std::uint64_t> counts; // counts[i]: values in [edge i, edge i+1), the last bin closed
    std::uint64_t below = 0;           // finite values left of low
    std::uint64_t above = 0;           // finite values right of high
    // The bins' edges when they are not equal (counts.size() + 1 of them, from low to high); empty: equal
    // bins of binWidth().
    std::vector<double> edges;
    HistogramAxis axis = HistogramAxis::Linear; // the axis the bins were made equal along
    double levelStep = 0.0; // integer data: the spacing of the values the image can hold (edges fall halfway between)

    // Taken on the ends' shares where high − low overflows double (data near ±1.7e308).
    double binWidth() const {
        if (counts.empty()) return 0.0;
        const double n = static_cast<double>(counts.size()), w = (high - low) / n;
        return std::isfinite(w) ? w : high / n - low / n;
    }
    double binLow(std::size_t i) const { return edges.empty() ? equalEdge(i) : edges[i]; }
    double binHigh(std::size_t i) const { return edges.empty() ? equalEdge(i + 1) : edges[i + 1]; }
    // Edge k of equal bins: low + k·binWidth(), where that overflows (data near ±1.7e308) half of it added
    // twice, each sum within [low, high].
    double equalEdge(std::size_t k) const {
        const double step = static_cast<double>(k) * binWidth();
        if (std::isfinite(low + step)) return low + step;
        const double half = static_cast<double>(k) * (0.5 * binWidth());
        return (low + half) + half;
    }
    // The count of bin i scaled to an equal share of the axis (1 / bins of it): what a bin of the ideal
    // width would hold. Integer bins that hold one level more or less than their neighbours (so a comb of
    // counts) give a smooth curve this way.
    double axisDensity(std::size_t i) const;
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

// The values an integer-valued image can hold: origin + k·step (step the greatest common divisor of the
// differences between its values; 1 for most images, 16 for 12-bit data stored shifted into 16 bits).
// Empty for images that are not integer-valued or hold fewer than two distinct values.
struct LevelGrid {
    double origin = 0.0;
    double step = 1.0;
};
std::optional<LevelGrid> integerLevelGrid(const Image& image);

// The histogram the display dock shows: `bins` bins equally wide along `axis` over [low, high]. With a
// level grid (integer data) each edge lies halfway between two levels and every bin holds at least one
// level, so that no bin is empty only because no value can fall in it (no comb). Throws UsageError unless
// bins >= 1 and low < high.
Histogram computeAxisHistogram(const Image& image, double low, double high, int bins, HistogramAxis axis,
                               const std::optional<LevelGrid>& levels);

} // namespace glint
