// The parameters and result of a region search over a = I - pivot, shared by the brightest region
// (disjoint, core/algo/brightest) and the K maximum subarrays (overlap, core/algo/kmax): the pivot, the
// ROI and exclusions, the mode, and the ranked regions in image pixels.
#pragma once

#include "core/jobs/Backend.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace glint {

class Image;

// How the pivot is chosen: mean (default), median, a percentile ("p90", "p99.5") or a number.
struct PivotSpec {
    enum class Kind { Mean, Median, Percentile, Number };
    Kind kind = Kind::Mean;
    double value = 0.0; // the percentile (0..100) or the number

    // "mean", "median", "pNN", or a number. Throws UsageError (NaN, unknown word, percentile outside 0..100).
    static PivotSpec parse(const std::string& text);
    std::string text() const;
};

// Whole pixels x..x+width-1, y..y+height-1.
struct PixelRect {
    int x = 0;
    int y = 0;
    int width = 0;
    int height = 0;
};

// A polygon in pixel-centre coordinates; a pixel is inside when its centre is (even-odd rule).
struct PixelPolygon {
    std::vector<std::pair<double, double>> points;
};

// disjoint: the K best rectangles that share no pixel, found in turn. overlap: the K largest sums over
// all distinct rectangles, which may overlap or nest (K-MSP, algo/kmax/KMax.h).
enum class BrightestMode { Disjoint, Overlap };
const char* brightestModeName(BrightestMode mode);
BrightestMode parseBrightestMode(const std::string& name); // throws UsageError

struct BrightestParams {
    PivotSpec pivot;
    int k = 1;
    BrightestMode mode = BrightestMode::Disjoint;
    bool hasRoi = false;
    PixelRect roi;                          // must lie inside the image
    std::vector<PixelRect> excludeRects;    // clipped to the image
    std::vector<PixelPolygon> excludePolygons;
};

// One region in image coordinates. sum is exact: with exactInteger, sumInt holds the bit-exact integer
// sum (and sum the same value as a double); otherwise sum is the double sum of a over the rectangle.
struct BrightestRegion {
    int rank = 0; // 1-based
    int x = 0;
    int y = 0;
    int width = 0;
    int height = 0;
    double sum = 0.0;
    std::int64_t sumInt = 0;
    bool exactInteger = false;
    std::int64_t pixels() const { return static_cast<std::int64_t>(width) * height; }
    double meanExcess() const { return sum / static_cast<double>(pixels()); } // mean of a = I - pivot
};

struct BrightestResult {
    PivotSpec pivotSpec;
    double pivot = 0.0;       // the value subtracted
    bool exactInteger = false; // integer-valued image and integer pivot: sums are bit-exact integers
    BrightestMode mode = BrightestMode::Disjoint;
    int imageWidth = 0;
    int imageHeight = 0;
    std::size_t includedPixels = 0;
    Backend backend = Backend::Reference; // the backend that ran (auto resolved)
    std::string device;
    std::vector<BrightestRegion> regions; // rank order; empty when no rectangle has a positive sum
    // Mean image value over a region: all its pixels are included, so pivot + mean of a.
    double regionMean(const BrightestRegion& r) const { return pivot + r.meanExcess(); }
};

// The CPU backend's expected time for this search, ms (what `auto` weighs against the GPU's set-up).
double estimatedBrightestCpuMs(const Image& image, const BrightestParams& params);

// UsageError when K <= 0 or the pivot is NaN or a percentile outside 0..100.
void validateBrightestParams(const BrightestParams& params);

} // namespace glint
