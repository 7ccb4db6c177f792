// The per-source measurements of the catalogue, with SExtractor's names and meanings: one SourceRecord per
// SourceSegment that detection and deblending leave. v = I - B (background-subtracted), sigma the RMS map; a
// source's segment = the pixels of its bounding box labelled with its number in the segmentation map.
//
// The rules (each one SExtractor's unless said otherwise):
// * Pixels. Bad = flagged in SourceField::bad, blank in the image, a non-finite I or B, or a non-finite or negative
//   sigma (sigma = 0 is kept, with no variance). Bad pixels never add to a sum. Without an RMS map every error is NaN.
// * Isophotal (over the segment's usable pixels): FLUX_ISO = sum v; FLUXERR_ISO = sqrt(sum sigma^2 + sum max(v, 0) /
//   gain) (the Poisson term only when gain > 0); ISOAREA_IMAGE = the segment's pixels (bad ones included);
//   FLUX_MAX = max v; X/Y_MIN/MAX = the bounding box of the pixels found.
// * Barycentre and moments use the weights w = max(v, 0); when no weight is positive (an all-negative source) the
//   weights are 1 (the footprint's geometric centre and moments). x2, y2, xy are the central second moments; when
//   x2 y2 - xy^2 < 1/144 (a line or a single pixel) both x2 and y2 gain 1/12 px^2 (analyse.c). Then
//   A^2, B^2 = (x2 + y2) / 2 +- sqrt(((x2 - y2) / 2)^2 + xy^2), THETA = atan2(2 xy, x2 - y2) / 2 in degrees,
//   counter-clockwise from +x, in (-90, 90] (0 for a round source, where SExtractor's code says 45),
//   CXX = y2 / det, CYY = x2 / det, CXY = -2 xy / det (det = x2 y2 - xy^2), ELLIPTICITY = 1 - B / A.
// * Masking of every aperture (Kron radius, AUTO, APER, half-light radius, windowed centroid): MASK_TYPE CORRECT.
//   A pixel of another source (label != 0 and != number) or a bad pixel is replaced by the pixel symmetric about
//   the aperture's centre (nearest pixel to 2c - p) when that one is in the image and free (sky or the source's
//   own, not bad); otherwise it is dropped. Pixels outside the image are dropped.
// * The first moment r1 = sum r v / sum v over the pixel centres inside the ellipse (CXX, CYY, CXY) of scale 6 (r in
//   units of A and B), masked as above; NaN when either sum is <= 0. KRON_RADIUS is SExtractor's: the AUTO
//   aperture's scale, kronFactor x r1, or kronMinRadius when that is smaller or r1 is NaN (the AUTO ellipse's
//   semi-axes are KRON_RADIUS x A and KRON_RADIUS x B).
// * Aperture sums (AUTO, APER): pixels wholly inside count whole; a pixel within half a pixel diagonal of the
//   boundary is sampled 5 x 5 (APER_OVERSAMP) and counts by the fraction of its samples inside, for both the flux and
//   the variance: FLUXERR = sqrt(sum f sigma^2 + sum f max(v, 0) / gain). FLUX_APER: circles of the given diameters
//   about the barycentre. MAG = zp - 2.5 log10(flux), MAGERR = 1.0857 err / flux, both NaN when flux <= 0 (the
//   files write 99). snr = FLUX_AUTO / FLUXERR_AUTO, NaN when the error is not > 0.
// * XWIN/YWIN: SExtractor's iteration x += 2 sum w v dx / sum w v, w = exp(-r^2 / 2 sigma_win^2), over the pixel
//   centres within 4 sigma_win, from the barycentre, until a step is < 2e-4 px or 16 steps; sigma_win =
//   2 r_half / 2.3548 (SExtractor's FWHM_hl / sqrt(8 ln 2)), at least 0.5 px, with r_half SExtractor's half-light
//   radius (growth.c): the radius about the barycentre holding half of FLUX_AUTO (cumulative sum over the pixel
//   centres by radius, interpolated), searched within 6 A and capped there. When the iteration fails (sum w v <= 0, the centre leaves the image or moves
//   more than 4 sigma_win, or leaves the segment's bounding box) XWIN/YWIN are the barycentre.
// * FWHM_IMAGE (Glint's rule; SExtractor's "assuming a Gaussian core"): over the segment's usable pixels with
//   v >= FLUX_MAX / 2, a least-squares line ln v = c - rho^2 / (2 s^2), rho^2 = CXX dx^2 + CYY dy^2 + CXY dx dy about
//   XWIN/YWIN; FWHM = sqrt(8 ln 2) sqrt(s^2 A B - 1/12) (the geometric-mean FWHM of an elliptical Gaussian, the
//   pixel's 1/12 px^2 removed: the FWHM of the profile before the pixels integrate it; within ~1 % for Moffats of
//   beta >= 2.5 wider than 3 px, whose chord over the core matches their half maximum). With fewer than 3 such
//   pixels, no negative slope or s^2 A B <= 1/12: 2 sqrt(n / pi), n the pixels with v >= FLUX_MAX / 2. NaN when
//   FLUX_MAX <= 0.
// * BACKGROUND = B at the pixel nearest the barycentre; THRESHOLD = segment.threshold; ALPHA/DELTA_J2000 =
//   wcs->pixelToSky(x, y) (0-based, the frame of SourceRecord) when the field has a WCS.
// * FLAGS = segment.flags | 4 (a segment pixel with I >= the saturation level) | 8 (the segment touches the
//   image's border) | 16 (the AUTO or an APER aperture reaches outside the image or covers bad pixels) | 1 (the
//   neighbours' and bad pixels cover more than 10 % of the AUTO aperture's area in the image) | 32 (a segment pixel
//   is bad or has a bad 8-neighbour).
// A segment without pixels in the map gives a record with its number, bounding box, threshold and flags, isoArea 0
// and NaN figures.
#pragma once

#include "core/algo/sources/SourceCatalog.h"

#include <vector>

namespace glint {

// One record per segment, in the same order (number = segment.number). Sources are measured in parallel on
// params.threads threads (0: every core); the figures do not depend on the thread count, bit for bit.
// Throws std::invalid_argument when the field's maps do not match its image.
std::vector<SourceRecord> measureSources(const SourceField& field, const std::vector<SourceSegment>& segments,
                                         const MeasureParams& params);

} // namespace glint
