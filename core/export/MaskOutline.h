// Outlines of a pixel mask as polygons along the pixel edges (outer boundaries and holes), so that a
// component can be exported as a DS9 polygon or a GeoJSON Polygon rather than as a picture.
#pragma once

#include <cstdint>
#include <vector>

namespace glint {

// A corner of the pixel grid: pixel (x, y) spans corners (x, y) .. (x + 1, y + 1) (GeoJSON/QuPath frame).
struct GridCorner {
    int x = 0;
    int y = 0;
    bool operator==(const GridCorner&) const = default;
};

// A closed ring without the repeated first corner; only corners where the outline turns.
using CornerRing = std::vector<GridCorner>;

struct MaskPolygon {
    CornerRing outer;           // clockwise on screen (y down)
    std::vector<CornerRing> holes; // counter-clockwise on screen
};

// Traces every boundary of the pixels where mask != 0 (width * height bytes, row-major). Pixels that
// touch only at a corner are not connected (4-connectivity, as the common component is defined), so
// each 4-connected part gets its own outer ring. Holes are assigned to the smallest outer ring around
// them. Polygons come in the order of their top-left pixel.
std::vector<MaskPolygon> traceMaskOutline(const std::vector<std::uint8_t>& mask, int width, int height);

// Twice the signed area of a ring (positive for outer rings as traced above).
long long ringDoubleArea(const CornerRing& ring);
// Number of pixels inside the polygon (outer area minus the holes').
long long polygonPixelCount(const MaskPolygon& polygon);

} // namespace glint
