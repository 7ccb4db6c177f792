// Truth-injected sky frames for the source catalogue's evaluation (issue 30): the three 2048² fields
// ("sparse", "crowded", "galaxies"), deterministic for a seed, with one truth record per injected object, the
// FITS form SExtractor and Glint read (TAN WCS, GAIN, SATURATE, RDNOISE cards) and a truth CSV. The scoring
// lives in scenes/SkyTruthScore.h; the bench that runs both catalogues in bench/CatalogueBench.cpp.
//
// The frame (all in e-, gain 1): a sky with a linear gradient, Moffat stars (beta 3, FWHM ~3 px) with a
// power-law flux distribution dN/dF ~ F^-slope, Sersic galaxies (n = 1 exponential, n = 4 de Vaucouleurs),
// Gaussian noise of variance (sky + sources + readNoise^2), and every pixel clipped at the full well
// (SATURATE; the brightest stars are drawn to exceed it). No blank borders.
//
// Each object's profile is integrated over the pixels (sub-sampled: finer near the centre), truncated at a
// radius (stars: where the profile falls below 0.02 e- a pixel; galaxies: truncationRe x r_e along the
// ellipse), and normalised so that its pixels sum to the drawn total. The truth flux is the sum of the
// object's pixels that fall inside the frame, computed exactly in double precision: the noiseless image of
// that object sums to it (before the float32 rounding and the full-well clipping of the frame).
//
// SNR (the completeness bins 5-10 / 10-20 / 20-50 / 50+) is the aperture SNR of the object's own
// noiseless light, the definition of issue 14's StarField: F_ap / sqrt(F_ap + N_ap (sky + readNoise^2)), with
// F_ap the object's flux in pixels whose centre lies within the aperture and N_ap their count; the aperture is
// the circle of radius FWHM for a star and the ellipse of semi-major axis r_e (axis ratio and angle of the
// galaxy, at least 1 px) for a galaxy.
#pragma once

#include "core/io/Image.h"

#include <cstdint>
#include <string>
#include <vector>

namespace glint {

enum class SkyFieldKind { Sparse, Crowded, Galaxies };
const char* skyFieldName(SkyFieldKind kind);
SkyFieldKind parseSkyFieldKind(const std::string& name); // UsageError naming the three

struct SkyFieldOptions {
    std::string name = "sparse";
    int width = 2048, height = 2048;
    int stars = 700;
    int galaxies = 0;
    double fwhmMin = 2.8, fwhmMax = 3.2; // px, uniform per star
    double beta = 3.0;                   // Moffat
    double fluxMin = 700.0;              // e-: the power law's lower end (aperture SNR ~3 on this sky)
    double fluxMax = 3.0e6;              // e-: its upper cut
    double slope = 1.8;                  // dN/dF ~ F^-slope
    int saturatedStars = 8;              // of `stars`: drawn with fluxes 1.5e6..6e6, their cores over the full well
    double minSeparation = 0.0;          // px between stars (0: none, blends happen)
    double sky = 1000.0;                 // e- per pixel at (0, 0)
    double gradientX = 0.25, gradientY = 0.15; // e- per pixel per pixel
    double readNoise = 5.0;              // e- rms
    double saturation = 60000.0;         // full well, e- (the SATURATE card)
    double reMin = 2.0, reMax = 60.0;    // galaxies' r_e (px, along the major axis), log-uniform
    double axisRatioMin = 0.3;           // galaxies' b/a, uniform in [axisRatioMin, 1]
    double truncationExp = 8.0;          // n = 1 profiles end at 8 r_e
    double truncationDeV = 5.0;          // n = 4 profiles end at 5 r_e
    // Galaxies' mean surface brightness inside r_e, log-uniform in e- per pixel; the total flux is
    // 2 pi q r_e^2 times it, raised to an aperture SNR of at least galaxySnrMin and lowered so that the brightest
    // pixel stays at half the full well over the sky.
    double galaxySbMin = 60.0, galaxySbMax = 1500.0; // ~2 to ~47 x the pixel noise
    double galaxySnrMin = 30.0;
    // WCS: a TAN projection centred on the frame.
    double ra = 150.1, dec = 2.2;        // degrees, at the frame's centre
    double pixelScale = 0.2;             // arcsec per pixel
    std::uint64_t seed = 1;
};

// The three fields of the issue at full size (2048²), or scaled to `side` (object counts by area).
SkyFieldOptions skyFieldOptions(SkyFieldKind kind, int side = 2048, std::uint64_t seed = 0);

enum class TruthType { Star, Galaxy };

struct TruthObject {
    TruthType type = TruthType::Star;
    double x = 0.0, y = 0.0;      // 0-based pixel frame, pixel centres at integers
    double flux = 0.0;            // e-: the object's pixels inside the frame, summed exactly (before noise and clipping)
    double snr = 0.0;             // aperture SNR (above)
    double fwhm = 0.0;            // stars: the Moffat FWHM; galaxies: 0
    double re = 0.0;              // galaxies: half-light radius along the major axis (px) of the untruncated profile
    double sersicN = 0.0;         // galaxies: 1 or 4
    double axisRatio = 1.0;       // b/a
    double angleDeg = 0.0;        // major axis, degrees counter-clockwise from +x
    double truncation = 0.0;      // galaxies: the profile's end, in px along the major axis
    double kronRadius = 0.0;      // galaxies: r1, the first moment of the truncated profile's elliptical radius
                                  // along the major axis (px); SExtractor's AUTO ellipse, KRON_RADIUS x A_IMAGE
                                  // (KRON_RADIUS holds the Kron factor 2.5), estimates 2.5 r1
    bool saturated = false;       // a pixel within 1 px of its centre reached the full well
    bool isolated = true;         // no other object of >= 10 % of its flux within 3 FWHM (stars) or 2 r_e (galaxies)
};

struct SkyField {
    SkyFieldOptions options;
    Image image;                  // float32 frame (with its WCS), e-
    std::vector<TruthObject> objects; // stars brightest first, then galaxies brightest first
    std::vector<float> sources;   // the noiseless objects, no sky, before clipping (width*height)
    double noiseVariance(double x, double y) const; // sky + readNoise^2 at a place
    double skyAt(double x, double y) const;
    double medianStarFwhm() const;
};

SkyField makeSkyField(const SkyFieldOptions& options);

// One Sersic galaxy rendered alone into `pixels` (width*height, added to): its pixels' exact sum over the
// frame is returned (what the truth records as flux). Exposed for the tests.
double renderGalaxy(std::vector<double>& pixels, int width, int height, const TruthObject& galaxy, double totalFlux);

// Sersic's b_n (Ciotti & Bertin's expansion): half the light of the untruncated profile lies within r_e.
double sersicBn(double n);

// float32 FITS with the frame's cards: GAIN, SATURATE, RDNOISE, a TAN WCS (CTYPE, CRVAL, CRPIX, CD). Throws
// OutputError.
void writeSkyFieldFits(const SkyField& field, const std::string& path);
// id,type,x,y,flux,snr,fwhm,re,sersic_n,axis_ratio,angle_deg,kron_radius,saturated,isolated (x, y 0-based).
void writeSkyTruthCsv(const SkyField& field, const std::string& path);

} // namespace glint
