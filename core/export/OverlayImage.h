// A full-resolution picture of an image with results drawn over it, for glint-cli --overlay. Pixel (x, y)
// of the PNG is pixel (x, y) of the image (row 0 at the top, as stored), so the picture and the JSON
// agree. The window draws its own overlays with Qt; this one needs no display.
#pragma once

#include "core/display/Display.h"
#include "core/io/Image.h"

#include <opencv2/core.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace glint {

// Distinct colours for ranks, pivots and legs (0xRRGGBB).
std::uint32_t overlayPaletteColour(std::size_t index);

class OverlayImage {
public:
    OverlayImage(const Image& image, const DisplaySettings& settings);
    int width() const { return canvas_.cols; }
    int height() const { return canvas_.rows; }
    // Outline of whole pixels x..x+w-1, y..y+h-1 (drawn on the pixel edges).
    void drawRectangle(int x, int y, int width, int height, std::uint32_t rgb, double opacity = 1.0);
    // A polyline through pixel-centre coordinates (real-valued).
    void drawPolyline(const std::vector<std::pair<double, double>>& points, std::uint32_t rgb, bool closed = false,
                      double opacity = 1.0);
    void drawMarker(double x, double y, std::uint32_t rgb);
    // Tints the pixels where mask != 0 (mask has width*height bytes), offset by (dx, dy).
    void tintMask(const std::vector<std::uint8_t>& mask, int maskWidth, int maskHeight, int dx, int dy,
                  std::uint32_t rgb, double alpha);
    // Text with a dark halo so it reads on any background; (x, y) is its top-left corner in pixels.
    void drawLabel(double x, double y, const std::string& text, std::uint32_t rgb);
    // A label for the rectangle x, y, w, h. Rectangle labels are placed together when the picture is
    // written (in the order given, which is their priority): each takes the free spot nearest its
    // rectangle (beside it, then farther out with a leader line, inside it only when nothing outside is
    // free), covering no other label nor the legend and as little of any drawn rectangle as it can; a
    // label with no free spot is left out, except the first one.
    void drawRectangleLabel(int x, int y, int width, int height, const std::string& text, std::uint32_t rgb);
    // A legend box in the top-left corner: one coloured line per entry.
    void drawLegend(const std::vector<std::pair<std::string, std::uint32_t>>& entries);
    // Line width and font scale grow with the image so that labels stay readable.
    int lineWidth() const { return lineWidth_; }
    // PNG, written atomically. Throws OutputError.
    void savePng(const std::string& path) const;
    cv::Mat pixels() const; // BGR, 8 bit: the picture with the rectangle labels placed

    struct PlacedLabel {
        std::size_t index = 0; // in the order drawRectangleLabel was called
        cv::Rect box;          // the text's box in picture pixels
        bool leader = false;   // a line joins it to its rectangle
    };
    // Where the rectangle labels go (what pixels() and savePng() draw).
    std::vector<PlacedLabel> placeLabels() const;

private:
    struct PendingLabel {
        cv::Rect target;
        std::string text;
        std::uint32_t rgb = 0;
    };
    cv::Size labelSize(const std::string& text, int* baseline = nullptr) const;

    cv::Mat canvas_;
    std::vector<cv::Rect> rectangles_; // drawn so far: labels keep off them where they can
    std::vector<cv::Rect> legends_;    // labels never cover these
    std::vector<PendingLabel> labels_;
    int lineWidth_ = 1;
    double fontScale_ = 0.4;
};

} // namespace glint
