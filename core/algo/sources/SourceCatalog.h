// The source catalogue's shared types: what detection and deblending hand to the measurements (a segmentation
// map and one segment per source), and what the measurements hand to the outputs (one SourceRecord per source,
// with SExtractor's quantities). Detection: core/algo/sources/Detect*; measurements: SourceMeasure; files:
// core/export/SourceCatalogFile (FITS, FITS_LDAC, ASCII_HEAD, CSV) and core/export/FitsMaps (segmentation,
// background and RMS maps).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace glint {

class Image;
class Wcs;

// SExtractor's FLAGS bits, with its meanings.
enum SourceFlag : int {
    kSourceNeighbours = 1,   // the AUTO photometry may be biased by neighbours or bad pixels (>10 % of its area)
    kSourceBlended = 2,      // deblended from a footprint holding other sources
    kSourceSaturated = 4,    // at least one pixel at or above the saturation level
    kSourceTruncated = 8,    // touches the image's border (or the ROI's)
    kSourceAperIncomplete = 16, // an aperture (AUTO or APER) reaches outside the image or over excluded pixels
    kSourceIsoIncomplete = 32,  // the footprint holds blank or excluded pixels next to it
    kSourceDeblendOverflow = 64,  // the deblending stopped at its bound (too many branches)
    kSourceExtractOverflow = 128, // the footprint exceeded the extraction bound
};

// The frame the measurements read, all arrays width*height row-major in the image's frame.
struct SourceField {
    const Image* image = nullptr;              // the values as the user gave them (I)
    const std::vector<float>* background = nullptr; // B(x, y)
    const std::vector<float>* rms = nullptr;        // sigma(x, y) of one pixel (> 0 where not bad)
    const std::vector<std::uint8_t>* bad = nullptr; // 1 = blank, non-finite, excluded or zero weight; may be empty
    const std::vector<std::int32_t>* segmentation = nullptr; // 0 = sky, n = the source with number n
    std::optional<double> saturation;          // the saturation level of I, when known
    const Wcs* wcs = nullptr;                  // for ALPHA/DELTA_J2000; null without one
    int width = 0, height = 0;
};

// One source's segment as detection and deblending leave it.
struct SourceSegment {
    int number = 0;                 // its label in the segmentation map (1..N, in catalogue order)
    int xmin = 0, ymin = 0, xmax = 0, ymax = 0; // its pixels' bounding box, inclusive, 0-based
    std::int64_t area = 0;          // its pixels in the segmentation map
    double threshold = 0.0;         // the analysis threshold above the background (image units) at its peak
    int flags = 0;                  // detection's flags (blended, truncated, overflow); the measurements add theirs
};

struct MeasureParams {
    std::vector<double> apertures;  // FLUX_APER diameters in pixels
    double kronFactor = 2.5;        // PHOT_AUTOPARAMS: the AUTO aperture is kronFactor x KRON_RADIUS ...
    double kronMinRadius = 3.5;     // ... but at least this (in units of A and B)
    double magZeropoint = 0.0;      // MAG_* = magZeropoint - 2.5 log10(flux)
    double gain = 0.0;              // e-/ADU for the Poisson term of the errors; 0: none (background noise only)
    int threads = 0;                // 0: every core; the figures do not depend on it
};

// One catalogue row. Pixel positions 0-based here (pixel centres at integers); the files write SExtractor's
// 1-based X_IMAGE = x + 1.
struct SourceRecord {
    static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
    int number = 0;
    double x = kNaN, y = kNaN;               // X_IMAGE, Y_IMAGE - 1: the isophotal barycentre
    double xWin = kNaN, yWin = kNaN;         // XWIN_IMAGE, YWIN_IMAGE - 1: the windowed centroid
    int xmin = 0, ymin = 0, xmax = 0, ymax = 0; // X/YMIN/MAX_IMAGE - 1
    double fluxIso = kNaN, fluxErrIso = kNaN;
    double fluxAuto = kNaN, fluxErrAuto = kNaN, magAuto = kNaN, magErrAuto = kNaN;
    std::vector<double> fluxAper, fluxErrAper, magAper, magErrAper; // one per MeasureParams::apertures
    double kronRadius = kNaN;                // KRON_RADIUS, in units of A and B
    double a = kNaN, b = kNaN, theta = kNaN; // A_IMAGE, B_IMAGE (px), THETA_IMAGE (degrees, counter-clockwise from +x, (-90, 90])
    double cxx = kNaN, cyy = kNaN, cxy = kNaN; // CXX/CYY/CXY_IMAGE (the ellipse cxx dx^2 + cyy dy^2 + cxy dx dy = R^2)
    double ellipticity = kNaN;               // 1 - B/A
    double fwhm = kNaN;                      // FWHM_IMAGE (px)
    std::int64_t isoArea = 0;                // ISOAREA_IMAGE
    double peak = kNaN;                      // FLUX_MAX: the highest I - B in the segment
    double background = kNaN;                // BACKGROUND at the barycentre
    double threshold = kNaN;                 // THRESHOLD: the analysis threshold above the background
    double snr = kNaN;                       // SNR_WIN's equivalent: FLUX_AUTO / FLUXERR_AUTO
    double ra = kNaN, dec = kNaN;            // ALPHA_J2000, DELTA_J2000 (degrees) of the barycentre; NaN without WCS
    int flags = 0;                           // SourceFlag bits
};

// A whole run's catalogue, as the outputs write it.
struct SourceCatalog {
    std::vector<double> apertures; // the FLUX_APER diameters (px), for the column names
    double magZeropoint = 0.0;
    std::vector<SourceRecord> sources;
};

} // namespace glint
