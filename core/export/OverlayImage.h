// A full-resolution picture of an image with results drawn over it, for glint-cli --overlay. Every drawing
// call takes image coordinates (those of the JSON: row 0 = the first row stored). The picture is the
// image as the window shows it: pixel (x, y) of the PNG is pixel (x, y) of the image, except for an image
// drawn y-up (FITS, meta.displayYUp), whose picture is flipped top to bottom like the window's (row 0 at
// the bottom; PNG row y is image row height-1-y), with a legend line that says so. Text stays upright.
// The window draws its own overlays with Qt; this one needs no display.
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
    // A polyline through pixel-centre coordinates (real-valued);
    // thickness: the line's width in picture pixels (0: lineWidth()).
    void drawPolyline(const std::vector<std::pair<double, double>>& points, std::uint32_t rgb, bool closed = false,
                      double opacity = 1.0, int thickness = 0);
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
    // A legend box in the top-left corner: one coloured line per entry (entries of several calls go into
    // one box, drawn over everything else; a y-up picture's box ends with the orientation line).
    void drawLegend(const std::vector<std::pair<std::string, std::uint32_t>>& entries);
    // Whether the picture is flipped (the image is drawn y-up), and the legend line that then says so.
    bool isFlipped() const { return flipped_; }
    static const char* flippedLegendText();
    // The legend's box in picture pixels (empty when there is no legend).
    cv::Rect legendBox() const { return legendBox_; }
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
    // Image coordinates to picture coordinates: a pixel centre's y, and whole pixel rows y..y+h-1.
    double pictureY(double y) const { return flipped_ ? (canvas_.rows - 1) - y : y; }
    int pictureTop(int y, int h) const { return flipped_ ? canvas_.rows - y - h : y; }
    void layoutLegend();
    void paintLegend(cv::Mat& out) const;

    cv::Mat canvas_;
    bool flipped_ = false;
    std::vector<cv::Rect> rectangles_; // drawn so far (picture pixels): labels keep off them where they can
    std::vector<std::pair<std::string, std::uint32_t>> legend_;
    cv::Rect legendBox_;               // labels never cover it
    int legendLineHeight_ = 0;
    int legendBaseline_ = 0;
    std::vector<PendingLabel> labels_; // targets in picture pixels
    int lineWidth_ = 1;
    double fontScale_ = 0.4;
};

} // namespace glint
