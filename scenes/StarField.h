// The source-finder evaluation harness (issue 14): synthetic star fields with a known truth, the FITS
// form SExtractor reads, and the scoring of a catalogue against the truth (completeness and purity by SNR
// bin, centroid error). Used by `glint-cli bench sources` (bench/SourceBench.cpp) and its tests.
//
// The frame: Moffat stars (beta ~3, FWHM 2.5-4 px) with a power-law flux distribution (dN/dF ~ F^-2),
// a sky with a gradient and a step seam (two amplifiers), photon noise (Gaussian with variance = signal,
// gain 1 e-/ADU) and read noise, saturated stars whose excess charge bleeds along their columns, one
// Sersic galaxy, and blank (NaN) borders. Deterministic for a seed (cv::RNG, same numbers everywhere).
#pragma once

#include "core/io/Image.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace glint {

struct StarFieldOptions {
    int width = 1024;
    int height = 1024;
    int stars = 250;
    double fwhmMin = 2.5, fwhmMax = 4.0; // px, uniform per star
    double beta = 3.0;                   // Moffat
    double fluxMin = 800.0;              // e-, the power law's lower end (SNR ~ 3 on the default sky)
    double fluxMax = 1.0e7;              // e-, the upper cut (saturates)
    int saturatedStars = 3;              // of `stars`, drawn with fluxes 3e6..1e7 (saturated, bleeding)
    double sky = 1000.0;                 // e- per pixel at the origin
    double gradientX = 0.3, gradientY = 0.2; // e- per pixel per pixel
    double seamStep = 150.0;             // e- added right of the seam
    double seamFraction = 0.6;           // the seam's column as a fraction of the width
    double readNoise = 5.0;              // e- rms
    double saturation = 60000.0;         // full well, e-: brighter pixels clip and bleed along the column
    int blankBorder = 12;                // px of NaN on each side
    bool galaxy = true;
    double minSeparation = 6.0;          // px between stars
    std::uint64_t seed = 1;
};

struct TruthStar {
    double x = 0.0, y = 0.0; // pixel frame, pixel centres at integers (x = column, y = row)
    double flux = 0.0;       // e-, total
    double fwhm = 0.0;
    double snr = 0.0;        // within radius FWHM: F_ap / sqrt(F_ap + pi FWHM^2 (sky + readNoise^2))
    bool saturated = false;  // its peak exceeds the full well (the column bleeds)
};

struct TruthGalaxy {
    double x = 0.0, y = 0.0;
    double flux = 0.0;
    double effectiveRadius = 0.0; // px, half-light radius along the major axis
    double sersicIndex = 1.5;
    double axisRatio = 0.6;
    double angleDeg = 30.0;
};

struct StarField {
    StarFieldOptions options;
    Image image;                    // float32, NaN (blank) borders
    std::vector<TruthStar> stars;   // brightest first
    std::optional<TruthGalaxy> galaxy;
    std::vector<float> sources;     // the noiseless stars + galaxy (no sky), width*height, before clipping
    std::vector<float> skyModel;    // the noiseless sky, width*height
    double noiseVariance(int x, int y) const; // per pixel: sky + readNoise^2 (gain 1)
};

StarField makeStarField(const StarFieldOptions& options);

// Writes a float32 frame as a FITS image with the cards SExtractor reads (GAIN 1, SATURATE, RDNOISE), then
// extraCards(fitsfile*, status) (more cards, through CFITSIO), atomically enough for tests (CFITSIO's "!" overwrite).
// Throws OutputError.
void writeFrameFits(const Image& image, double saturation, double readNoise, const std::string& path,
                    const std::function<void(void* fitsFile, int& status)>& extraCards);

// Writes the frame as a float32 FITS image (NaN blanks; GAIN, SATURATE, RDNOISE cards) through CFITSIO.
// Throws OutputError.
void writeStarFieldFits(const StarField& field, const std::string& path);

// A detection of a catalogue: centroid in the pixel frame, and for Glint its rectangle.
struct Detection {
    double x = 0.0, y = 0.0;
    bool hasRect = false;
    int rx = 0, ry = 0, rw = 0, rh = 0;
};

// The SNR at a place of the truth: the noiseless sources within radius r (default: the mean FWHM) of
// (x, y) over sqrt(that + pi r^2 (sky + readNoise^2)). Unmatched detections are binned by it.
double truthSnrAt(const StarField& field, double x, double y);

struct SnrBin {
    double lo = 0.0, hi = 0.0; // [lo, hi)
    int truths = 0, found = 0;        // completeness = found / truths
    int detections = 0, genuine = 0;  // purity = genuine / detections
    double completeness() const { return truths ? static_cast<double>(found) / truths : 0.0; }
    double purity() const { return detections ? static_cast<double>(genuine) / detections : 0.0; }
};

struct MatchScore {
    std::vector<SnrBin> bins;       // SNR bins: 0-5, 5-10, 10-20, 20-50, 50-100, 100+
    SnrBin atLeast10;               // every truth / detection with SNR >= 10
    int detections = 0;
    int matched = 0;                // detections matched to a star
    int onGalaxy = 0;               // detections on the galaxy (neither a star nor false)
    int falseDetections = 0;        // matched to nothing
    int centroidCount = 0;          // matched, SNR >= 20, not saturated
    double centroidMedian = 0.0;    // px
    double centroidRms = 0.0;       // px
    std::vector<int> truthMatch;    // per truth star: the detection index, or -1
    // Widths of the detections with rectangles (Glint's), those on the galaxy left out: the frame's PSF FWHM
    // (the median of the stars'), the largest side, and how many are wider than 5 FWHM (issue 14's target: none).
    double psfFwhm = 0.0;
    int widestSide = 0;
    int wide = 0;
};

// One-to-one matching, nearest pairs first: a detection and a star pair when the centroid is within
// `radius` px of the star, or (Glint's rectangles) the star lies inside the rectangle. A detection within
// 2 effective radii of the galaxy's centre (or whose rectangle holds it) that matches no star counts as the
// galaxy. Completeness bins stars by their SNR; purity bins detections by the SNR of their star, or for
// unmatched ones by truthSnrAt.
MatchScore scoreCatalogue(const StarField& field, const std::vector<Detection>& detections, double radius = 1.5);

} // namespace glint
