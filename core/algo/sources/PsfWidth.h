// The width of an image's point spread function, measured on its own stars: what `--max-box auto` bounds the
// source finder's search by (5 FWHM, issue 14: "no region wider than 5 PSF widths"), so that on a crowded
// field each box holds one star and a saturated star's box its core, not its bleed trail.
//
// Each star: a pixel that is the strict maximum of its 5x5 neighbourhood and at least 10 local RMS above the
// background map, unsaturated (no pixel of its window at or above the saturation level), away from blanks and
// the ROI's edge, and isolated (no pixel of its window outside its own half-maximum island reaches half its
// peak). Its width: a circular Gaussian fitted to its half-maximum island (to the island at a quarter of the
// peak when that has fewer than 5 pixels), ln(I - bkg) = a + b x + c y + d r^2 by least squares weighted by
// (I - bkg)^2, sigma^2 = -1 / (2 d), FWHM = 2 sqrt(2 ln 2) sigma: exact for a point-sampled Gaussian wherever
// its centre lies; a pixel-integrated Moffat (beta 3) reads 0-10 % wide. The image's FWHM is the median over
// the most significant stars: those at least 25 RMS above the background when there are 5 or more (fainter
// ones read wide, their islands widened by the noise), else every star found (at most 200). With fewer than
// 5 stars there is none.
#pragma once

#include "core/algo/regions/RegionSearch.h"

#include <optional>

namespace glint {

class BackgroundMap;
class Image;
class JobControl;

struct PsfWidth {
    double fwhm = 0.0; // px; 0 when not measured
    int stars = 0;     // the stars it is the median of
    bool measured() const { return stars > 0; }
};

// Over `roi` of the image (pixel coordinates), with the image's background model (not empty).
PsfWidth measurePsfWidth(const Image& image, const BackgroundMap& model, const PixelRect& roi,
                         std::optional<double> saturation);

// The search bound of --max-box auto: the largest side within factor * FWHM, floor(5 FWHM), at least 3 px.
constexpr double kAutoBoxFwhm = 5.0;
// The stars it needs: at least kPsfMinStars clean, isolated, unsaturated ones, each kPsfMinPeakRms local RMS
// above the background at its peak (else the bound is the mesh).
constexpr int kPsfMinStars = 5;
constexpr double kPsfMinPeakRms = 10.0;
int autoSearchBound(double fwhm);

// The bound a search runs with (--max-box): a value, none (0), or decided from the image (automatic): 5 FWHM
// measured on its stars over `roi` with its background model, or the mesh when there is no model or too few stars
// (saturationLevel() leaves saturated stars out).
struct SearchBound {
    int maxBox = 0;
    bool automatic = false;
    PsfWidth psf;
};
// The automatic bound of `image` (step "psf width" of job).
SearchBound measureSearchBound(const Image& image, const BackgroundMap* model, const PixelRect& roi, int mesh, JobControl& job);
// The result's record of it: `used`, the bound the search ran with (0: none), and where it came from.
void recordSearchBound(const SearchBound& bound, int used, BrightestResult& result);

} // namespace glint
