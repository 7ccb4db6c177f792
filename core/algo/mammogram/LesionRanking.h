// The mammogram ranking (`--rank contrast`, the mammogram preset's): findings ranked by their local contrast
// against the surrounding tissue, one box per finding, within the size range of masses and calcification
// clusters, instead of the largest sums of I - pivot (which on a film favour whole dense regions, and give one
// calcification cluster five boxes).
//
// contrast (the JSON's and the window's "contrast") = (mean inside the finding - mean of the tissue ring around
// it) / the spread of that ring (its standard deviation, with the film's noise added in quadrature): how far a
// finding stands out from the tissue around it, in units of that tissue's own variation. Only included pixels
// count (the exclusions: outside of the breast, labels, film edges, pectoral muscle).
// - Masses: discs of radius 1-15 mm (diameters 2-30 mm) against the ring from r to 2r (square windows), at
//   8 scales; the scale of largest contrast is the finding's; the box is the square of side 2r. A disc less than
//   90 % included (at a shape's edge) is not a candidate.
// - Calcification clusters: specks of at most ~1 mm that a white top-hat (disc of 1.6 mm) raises 5 robust noise
//   spreads above the tissue; at least 3 specks within 4 mm of one another make a cluster's core, whose contrast
//   is the median of its specks' contrasts at the speck scale (0.4 mm disc against its ring); lone specks and
//   pairs within 6 mm of its specks are the same cluster's (while it stays within 1 cm), and its box holds them all.
// Candidates are ranked by contrast; one whose centre lies inside a better one's box (or holds a better one's
// centre) is the same finding and is dropped, also when the better one's box grows to its own scale later; a
// speck-sized mass box on one of a cluster's specks is that cluster (one finding, one box).
// Two mass candidates side by side (a large mass's parts) are one finding when the smallest disc holding both stands
// out at least as strongly as the weaker; that disc is the finding's box when it stands out as strongly as the
// better one, within one unit. The pixel size is the DICOM Pixel Spacing when the image has it, else a PNG's
// pHYs or a TIFF's resolution when plausible for a film (0.02-1 mm, the longer side 100-400 mm, not a screen's
// 72 or 96 dpi), else 0.2 mm at a 1024-px film (mini-MIAS), scaled with the longer side.
#pragma once

#include "core/algo/regions/RegionSearch.h"
#include "core/jobs/JobControl.h"

namespace glint {

class Image;

// The K findings of `image` under params' ROI and exclusions (its shapes; blank pixels), ranked by contrast:
// regions measured (flux = sum of I - ring mean over the box, peak, centroid, mean background = ring mean,
// contrast; no SNR). The result's note says the pixel size used and how many of each kind were found.
BrightestResult rankMammogramLesions(const Image& image, const BrightestParams& params, JobControl& job);

} // namespace glint
