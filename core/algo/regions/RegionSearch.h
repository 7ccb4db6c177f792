// The parameters and result of a region search over a = I - pivot, shared by the brightest region
// (disjoint, core/algo/brightest) and the K maximum subarrays (overlap, core/algo/kmax): the pivot, the
// ROI and exclusions, the mode, and the ranked regions in image pixels.
#pragma once

#include "core/geometry/PixelGeometry.h"
#include "core/jobs/Backend.h"
#include "core/params/AutoValue.h"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace glint {

class Image;

// How the pivot is chosen: mean (default), median, a percentile ("p90", "p99.5"), a number, or local: the
// background map of core/algo/sources/Background.h, one value per pixel.
struct PivotSpec {
    enum class Kind { Mean, Median, Percentile, Number, Local };
    Kind kind = Kind::Mean;
    double value = 0.0; // the percentile (0..100) or the number

    // "mean", "median", "pNN", "local", or a number. Throws UsageError (NaN, unknown word, percentile outside 0..100).
    static PivotSpec parse(const std::string& text);
    std::string text() const;
};

// disjoint: the K best rectangles that share no pixel, found in turn. overlap: the K largest sums over
// all distinct rectangles, which may overlap or nest (K-MSP, algo/kmax/KMax.h).
enum class BrightestMode { Disjoint, Overlap };
const char* brightestModeName(BrightestMode mode);
BrightestMode parseBrightestMode(const std::string& name); // throws UsageError

// --auto-exclude: mammogram adds the outside of the breast, labels and markers and the pectoral muscle to the
// exclusions (core/algo/mammogram/AutoExclude.h); resolveBrightest turns them into shapes.
enum class AutoExcludeMode { None, Mammogram };

// --rank: sum ranks the disjoint search's rectangles by their sum of a (the brightest regions); contrast ranks
// mammogram findings by their local contrast against the surrounding tissue, one box per finding
// (core/algo/mammogram/LesionRanking.h; the mammogram preset's).
enum class RegionRank { Sum, Contrast };

struct BrightestParams {
    PivotSpec pivot;
    // a = I - pivot - threshold * RMS: the local RMS with the local pivot, the global RMS (the median of the
    // cells' RMS) with the others. >= 0.
    double threshold = 0.0;
    int mesh = 64; // the background model's cell side (px)
    // Significance filters of the disjoint search (0: none): a rectangle that fails one is excluded and not
    // reported, and the search goes on (see DisjointRule in core/algo/maxsub/MaxSubarray.h). With any
    // filter set, a rectangle touching a reported one (a fragment of the same source) is rejected as well, and
    // with the auto bound measured on the stars so is one whose brightest pixel has a brighter neighbour outside
    // it (it lies on the slope of a brighter source, a galaxy's or a bright star's wings:
    // RegionMeasurer::peakIsLocalMaximum; core/algo/brightest/Brightest.cpp says why not with larger bounds).
    double minSnr = 0.0;
    std::int64_t minArea = 0; // pixels
    int maxSize = 0;          // px, the larger side
    double minPeak = 0.0;     // image units: the brightest pixel's excess over the background (peak)
    // The search bound (not a filter): > 0, the search considers only rectangles with both sides <= maxBox, so
    // that a crowded field, whose summed light makes the whole frame the best rectangle, gives one box per source
    // (disjoint: each round is the exact best bounded rectangle, core/algo/brightest/NOTES.md; overlap: the exact
    // top K of the bounded rectangles, plain or under --distinct, core/algo/kmax/NOTES.md). None: all.
    // Auto (--max-box auto): 5 PSF FWHM, the FWHM measured on the image's own stars (PsfWidth.h); the mesh when it
    // cannot be measured (too few clean stars, or no background model). resolveBrightest decides it before any
    // backend is chosen; the result says which.
    AutoValue<int> maxBox = AutoValue<int>::none();
    // With filters, reject a rectangle whose brightest pixel has a brighter neighbour outside it: it lies on the
    // slope of a brighter source (a galaxy's core would otherwise come back as a ring of boxes around its nucleus).
    // Meant for boxes of a few PSF widths: auto turns it on when the search bound was measured on the image's stars
    // (--max-box auto), off otherwise (core/algo/brightest/Brightest.cpp says why).
    AutoValue<bool> slopeRule = AutoValue<bool>::automatic();
    int k = 1;
    BrightestMode mode = BrightestMode::Disjoint;
    // --distinct F (overlap mode only, 0 <= F < 1): list a rectangle only if it overlaps every higher-ranked
    // listed one by at most F of the smaller area (the exact top K under that rule, core/algo/kmax/Distinct.h).
    // Unset: every rectangle (K-MSP).
    std::optional<double> distinct;
    std::optional<PixelRect> roi;           // must lie inside the image
    std::vector<PixelRect> excludeRects;    // clipped to the image
    std::vector<PixelPolygon> excludePolygons;
    AutoExcludeMode autoExclude = AutoExcludeMode::None;
    RegionRank rank = RegionRank::Sum;

    // The search bound as the search runs with it: the value, 0 for none (resolved parameters only).
    int boundOrNone() const { return maxBox.valueOr(0); }
};

// The source finder's search, the sky preset of the brightest spec (core/algo/brightest/BrightestSpec.cpp) as the
// window's FITS defaults and `bench sources` run it: the local pivot, threshold 3 RMS, min SNR 5; K regions; and
// the search bound (--max-box) maxBox, by default auto (5 PSF FWHM measured on the image; the mesh, 64 px, when
// none can be measured). Unbounded, a search joins bright sources across the sky between them (on a star field,
// two saturated stars 760 px apart and the seven stars between them in one 66x790 rectangle); bounded by the
// mesh, a crowded field's boxes each hold several stars and a saturated star's its bleed trail.
BrightestParams sourceFinderParams(int k, std::optional<AutoValue<int>> maxBox = std::nullopt);

// A search bound for code that fills parameters itself: sides of at most `side` px (validation refuses side < 1);
// none for 0.
inline AutoValue<int> searchBox(int side) { return side == 0 ? AutoValue<int>::none() : AutoValue<int>::value(side); }

// Region flags, SExtractor's bits where one means the same: 4 a pixel is saturated (SATURATE or DATAMAX
// card, else the maximum of an integer sample type), 8 the rectangle touches the image's edge, 16 a blank,
// non-finite or excluded pixel touches it (in it or next to it).
constexpr int kRegionFlagSaturated = 4;
constexpr int kRegionFlagEdge = 8;
constexpr int kRegionFlagBlank = 16;

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
    // Measurements (measured: made by the search; sessions of older versions have none). flux = sum of
    // I - background (the background model, or the pivot when no model was made); snr = flux / sqrt(sum of
    // the local RMS^2) (SExtractor's FLUXERR_ISO with GAIN 0: no Poisson term), +-infinity when the RMS is 0,
    // NaN when no model was made; peak = max of I - background; the flux-weighted centroid (weights
    // max(0, I - background); the centre when none is positive) in the pixel frame, and its RA/Dec (FK5
    // J2000) when the image has a WCS; the mean background; flags (kRegionFlag*).
    bool measured = false;
    double flux = 0.0;
    double snr = 0.0;
    double peak = 0.0;
    int peakX = 0, peakY = 0; // where the peak is (pixel frame; measured, not saved)
    double centroidX = 0.0;
    double centroidY = 0.0;
    bool hasSky = false;
    double ra = 0.0;
    double dec = 0.0;
    double meanBackground = 0.0;
    int flags = 0;
    // --rank contrast: (mean inside - mean of the tissue ring around) / the ring's spread (LesionRanking.h);
    // NaN for the other rankings.
    double contrast = std::numeric_limits<double>::quiet_NaN();
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
    // The search's figures: the threshold (in RMS), the global background and RMS of the model (hasModel),
    // the searches made, the rectangles the filters rejected, and when fewer than K came back, why (note).
    double threshold = 0.0;
    bool hasModel = false;
    double globalBackground = 0.0;
    double globalRms = 0.0;
    int rounds = 0;
    int rejected = 0;
    std::optional<double> distinct; // overlap mode's --distinct F, when set
    // The search bound the search ran with (0: none); with --max-box auto, the FWHM it came from (px) and the
    // stars that FWHM is the median of (0: not measured, the mesh was used).
    int maxBox = 0;
    bool maxBoxAuto = false;
    double psfFwhm = 0.0;
    int psfStars = 0;
    std::string note;
    // Mean image value over a region: all its pixels are included, so pivot + mean of a (with the local
    // pivot: the mean background + flux / pixels).
    double regionMean(const BrightestRegion& r) const {
        if (pivotSpec.kind == PivotSpec::Kind::Local && r.measured)
            return r.meanBackground + r.flux / static_cast<double>(r.pixels());
        return pivot + r.meanExcess();
    }
};

// With --max-box auto, what bound the search ran with and where it came from ("max box auto: 16 px = 5 FWHM,
// FWHM 3.08 px on 57 stars", or the mesh and why); empty otherwise.
std::string searchBoundText(const BrightestResult& result);

// The CPU backend's expected time for this search, ms (what `auto` weighs against the GPU's set-up).
double estimatedBrightestCpuMs(const Image& image, const BrightestParams& params);

// UsageError when a value lies outside its range in the brightest spec (K <= 0, a NaN pivot or a percentile
// outside 0..100, a negative threshold, min SNR, min area or max size, a mesh below 2, --distinct outside [0, 1)
// or outside overlap mode, filters in overlap mode). Defined with the spec (core/algo/brightest/BrightestSpec.cpp).
void validateBrightestParams(const BrightestParams& params);

} // namespace glint
