// Automatic exclusions for the brightest-region search (`--auto-exclude mammogram`): on a mammogram, the
// outside of the breast, burned-in text and markers (view labels such as "R MLO", film labels, lead
// markers) and the pectoral muscle of MLO views, so that the K brightest regions are found in the breast
// tissue (the mammogram paper removed the bright chest regions by hand). The shapes are ordinary exclusion
// shapes (BrightestParams::excludeRects / excludePolygons): the window shows them for the user to edit.
#pragma once

#include "core/algo/regions/RegionSearch.h"

#include <string>
#include <vector>

namespace glint {

class Image;

enum class AutoExclusionKind { OutsideBreast, Label, Pectoral, FilmEdge };
// "outside-breast", "label", "pectoral", "film-edge"
const char* autoExclusionKindName(AutoExclusionKind kind);

// One exclusion shape: a rectangle (labels and markers) or a polygon (outside of the breast, pectoral
// muscle), in image pixels (polygons: pixel-centre coordinates, even-odd rule, may reach outside the image).
struct AutoExclusion {
    AutoExclusionKind kind = AutoExclusionKind::OutsideBreast;
    bool isRect = false;
    PixelRect rect;
    PixelPolygon polygon;
};

struct MammogramExclusions {
    std::vector<AutoExclusion> shapes;
    bool foundBreast = false;        // false: no breast-like foreground (then no shape at all)
    bool chestWallLeft = true;       // the side where the breast meets the image edge
    bool foundPectoral = false;
    int downsample = 1;              // the analysis ran on an image reduced by this factor
    double backgroundThreshold = 0.0; // breast / background level (Otsu, lowered towards the background)
    std::string note;                // one line on what was found (or why nothing was)
};

// Finds the exclusions of a mammogram: (1) the outside of the breast: Otsu's threshold on a reduced image
// (longer side <= 512), lowered towards the background level; the largest connected component (holes
// filled) is the breast, the rest is excluded as polygons with a margin of one reduced pixel; (2) labels
// and markers: the other foreground components, and very bright blobs (above the breast's 99th
// percentile, halfway to its maximum) within 3 % of the image size of the breast's border, each as a
// padded rectangle (letters of a word merged); (3) on MLO views (not when the DICOM View Position says CC),
// the pectoral muscle in the top corner on the chest-wall side (the side where the breast meets the image
// edge): its lower end is the sharpest drop of brightness down the chest wall, its edge a dynamic-
// programming path of maximal left/right contrast from the top row to that end, moving towards the chest
// wall row by row and held within a small allowance of the straight line from its top part to its end;
// kept only when the wedge is clearly brighter than the tissue beside it at the top (heuristic
// thresholds, set on synthetic scenes: see the note on real images in the report / NOTES).
// (4) the film's edges: a band of 0.5 % of the longer side (at least 2 px) along each image side, where
// scanners leave strips and film edges (mini-MIAS: a 148x1 bright strip on the top row, inside the breast).
// Blank pixels count as background. Deterministic; an image with no foreground gets no shape.
MammogramExclusions mammogramAutoExclusions(const Image& image);

// Appends the shapes to params.excludeRects / excludePolygons.
void appendAutoExclusions(const MammogramExclusions& exclusions, BrightestParams& params);

// The pixels the shapes exclude (1 = excluded), width*height bytes, with the same rule as the search.
std::vector<unsigned char> autoExclusionMask(const MammogramExclusions& exclusions, int width, int height);

} // namespace glint
