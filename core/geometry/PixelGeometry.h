// The shapes every layer names in pixels (DESIGN.md's frame: x = column, y = row, pixel centres at integers):
// whole-pixel rectangles, polygons through pixel-centre coordinates, and a polygon's pixels.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace glint {

// Whole pixels x..x+width-1, y..y+height-1.
struct PixelRect {
    int x = 0;
    int y = 0;
    int width = 0;
    int height = 0;
    bool operator==(const PixelRect&) const = default;
};

// A polygon in pixel-centre coordinates; a pixel is inside when its centre is (even-odd rule).
struct PixelPolygon {
    std::vector<std::pair<double, double>> points;
    bool operator==(const PixelPolygon&) const = default;
};

// Marks the pixels inside a polygon (pixel centre inside, even-odd rule) in a width*height mask. UsageError for
// fewer than three points or a point that is not finite.
void rasterizePolygon(const PixelPolygon& polygon, int width, int height, std::vector<std::uint8_t>& mask);

} // namespace glint
