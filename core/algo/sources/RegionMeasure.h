// Per-region measurements of a search (flux, SNR, peak, centroid, sky position, mean background, flags),
// from the image the user gave and the background model of the work array (or its pivot when no model was
// made). The significance filters of the disjoint search use the same figures.
#pragma once

#include "core/algo/regions/WorkArray.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace glint {

// The saturation level of an image: SATURATE, else DATAMAX, else the maximum of an integer sample type; none
// for floating-point samples without a card.
std::optional<double> saturationLevel(const Image& image);
// A header card's value as a finite number (quotes and blanks around it dropped), or none.
std::optional<double> headerNumber(const Image& image, const std::string& key);

class RegionMeasurer {
public:
    explicit RegionMeasurer(const WorkArray& work);
    // The rectangle's figures (in a BrightestRegion's measurement fields; x, y, width, height as given).
    // O(area): every pixel is read once, plus the centroid's window twice; rowThreads threads share the
    // rows (0: every core). The figures do not depend on the thread count.
    void measure(BrightestRegion& region, int rowThreads = 0) const;
    // Prepares passes shared by these regions when their summed areas (rectangles and centroid windows) pay
    // for it: without a background model and without blanks, per-row prefix sums over blocks of 8 samples and a
    // sparse table of the blocks' maxima (O(pixels) once, then O(rows) a region; kmax's K overlapping regions).
    // The figures stay the same, bit for bit. Returns whether it did.
    bool shareAmong(const std::vector<BrightestRegion>& regions);
    // Whether a measured region's peak is a local maximum: no pixel next to it (the 8 neighbours) outside the
    // rectangle is brighter both above the background (I - background) and as stored (I: a saturated plateau
    // is level), among those in the image and the searched area that are not blank, excluded or non-finite.
    // A rectangle whose brightest pixel has a brighter neighbour outside lies on the slope of a brighter source
    // (a galaxy's or a bright star's wings) and holds no source of its own: the source finder rejects it with
    // the auto bound (core/algo/brightest/Brightest.cpp).
    bool peakIsLocalMaximum(const BrightestRegion& region) const;

private:
    const WorkArray& work_;
    const Image& image_;
    std::optional<double> saturation_;
    std::shared_ptr<const struct RegionMeasureTables> tables_; // shareAmong's, or null
};

// Measures every region (rank order kept).
void measureRegions(const WorkArray& work, std::vector<BrightestRegion>& regions);

// The significance filters of BrightestParams: whether a measured region passes them all.
bool passesFilters(const BrightestRegion& region, const BrightestParams& params);
bool hasFilters(const BrightestParams& params);
// The filters' settings for a note ("min SNR 5, min area 0, max size 30").
std::string describeFilters(const BrightestParams& params);

} // namespace glint
