// Scoring a source catalogue against a truth-injected sky frame (SkyTruth.h): what issue 30's targets read.
//
// Matching, in this order:
//  1. stars, one to one, nearest pairs first: a detection and a star pair when the detection's centre is within
//     `radius` px of the star (saturated stars: 2 x radius, their centroids are poorer);
//  2. every detection left whose centre lies inside a galaxy's 2 r_e ellipse is that galaxy's (the nearest
//     galaxy's, in units of its ellipse); a galaxy with exactly one is "found as one source", with more it is
//     "shredded" (its pieces are not false detections), and its flux and size are read from the detection
//     nearest its centre;
//  3. the rest are false detections. Purity = (detections - false) / detections.
// Figures:
//  - completeness of stars by SNR bin (0-5, 5-10, 10-20, 20-50, 50+; the truth's aperture SNR), for isolated
//    stars and for all stars, and for both at SNR >= 10;
//  - centroid error (median and rms, px) of matched unsaturated stars with SNR >= 20;
//  - FLUX_AUTO / true total flux, median per SNR bin of matched unsaturated stars;
//  - per galaxy: detections on it, FLUX_AUTO / true flux, A_IMAGE / r_e, and KRON_RADIUS x A_IMAGE / (2.5 r1): the
//    AUTO ellipse's semi-major axis against the truth's, r1 being the first moment of the truncated profile's
//    elliptical radius along the major axis (SExtractor's KRON_RADIUS holds the Kron factor: its AUTO ellipse is
//    KRON_RADIUS x A_IMAGE; both catalogues give A and KRON_RADIUS, ours no FLUX_RADIUS);
//  - blends: stars with SNR >= 10 within 2 FWHM of a brighter star (of at most 10 x their flux), found as their
//    own source (matched to a detection of their own).
#pragma once

#include "scenes/SkyTruth.h"

#include <limits>
#include <string>
#include <vector>

namespace glint {

// One catalogue row as both programs give it (0-based pixel frame; NaN where a program gives no value).
struct CatalogueEntry {
    static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
    double x = kNaN, y = kNaN;
    double fluxAuto = kNaN;
    double a = kNaN, b = kNaN;       // A_IMAGE, B_IMAGE (px)
    double kronRadius = kNaN;        // KRON_RADIUS (units of A and B)
    int flags = 0;
};

struct CompletenessBin {
    double lo = 0.0, hi = 0.0; // SNR in [lo, hi)
    int truths = 0, found = 0;
    double completeness() const { return truths ? static_cast<double>(found) / truths : kNaN(); }
    static double kNaN() { return std::numeric_limits<double>::quiet_NaN(); }
};

struct RatioStat {
    int count = 0;
    double median = std::numeric_limits<double>::quiet_NaN();
};

struct GalaxyScore {
    int truth = -1;                // index into SkyField::objects
    double re = 0.0, sersicN = 0.0, snr = 0.0;
    bool isolated = true;
    int detections = 0;            // on it (0: missed, 1: found as one, 2+: shredded)
    double fluxRatio = std::numeric_limits<double>::quiet_NaN(); // FLUX_AUTO / true flux
    double aOverRe = std::numeric_limits<double>::quiet_NaN();   // A_IMAGE / r_e
    double kronRatio = std::numeric_limits<double>::quiet_NaN(); // KRON_RADIUS x A_IMAGE / (2.5 x truth's r1)
};

struct CatalogueScore {
    std::vector<CompletenessBin> isolatedStars, allStars; // the SNR bins (skySnrEdges)
    CompletenessBin isolated10, all10;                    // SNR >= 10
    int detections = 0, onStars = 0, onGalaxies = 0, falseDetections = 0;
    double purity() const { return detections ? static_cast<double>(detections - falseDetections) / detections : 1.0; }
    int centroidCount = 0;
    double centroidMedian = std::numeric_limits<double>::quiet_NaN(), centroidRms = std::numeric_limits<double>::quiet_NaN();
    std::vector<RatioStat> starFluxRatio; // per SNR bin
    std::vector<GalaxyScore> galaxies;
    int galaxiesFoundOnce = 0, galaxiesShredded = 0, galaxiesMissed = 0;
    // Galaxies with r_e >= 3 px (the target's): found as one source, and of those with FLUX_AUTO within 10 %.
    int bigGalaxies = 0, bigFoundOnce = 0, bigFluxWithin10 = 0;
    RatioStat galaxyFluxRatio, galaxyAOverRe, galaxyKronRatio; // medians over galaxies found (once or shredded)
    int blendedStars = 0, blendedFound = 0;
    std::vector<int> truthMatch;    // per truth object: the detection index that is its own, or -1
    std::vector<int> detectionTruth; // per detection: the truth object it matched or lies on, or -1 (false)
};

// The bins' lower edges: 0, 5, 10, 20, 50 (the last one open).
const std::vector<double>& skySnrEdges();

CatalogueScore scoreSkyCatalogue(const SkyField& field, const std::vector<CatalogueEntry>& catalogue, double radius = 1.5);

} // namespace glint
