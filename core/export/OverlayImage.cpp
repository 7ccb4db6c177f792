#include "core/export/OverlayImage.h"

#include "core/util/AtomicFile.h"
#include "core/util/Errors.h"

#if GLINT_WITH_IMGCODECS
#include <opencv2/imgcodecs.hpp>
#endif
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>

namespace glint {

std::uint32_t overlayPaletteColour(std::size_t index) {
    // Tableau-like colours that stay visible on grey, heat and viridis maps.
    static const std::array<std::uint32_t, 10> palette = {0x00E5FF, 0xFF3D00, 0x76FF03, 0xFFEA00, 0xD500F9,
                                                          0x2979FF, 0xFF9100, 0x1DE9B6, 0xF50057, 0xFFFFFF};
    return palette[index % palette.size()];
}

namespace {
cv::Scalar bgr(std::uint32_t rgb) {
    return cv::Scalar(rgb & 0xFF, (rgb >> 8) & 0xFF, (rgb >> 16) & 0xFF);
}
} // namespace

OverlayImage::OverlayImage(const Image& image, const DisplaySettings& settings) {
    const DisplayLimits limits = computeLimits(image, settings);
    const std::vector<std::uint32_t> argb = renderImage(image, settings, limits);
    canvas_.create(image.height(), image.width(), CV_8UC3);
    for (int y = 0; y < image.height(); ++y) {
        auto* row = canvas_.ptr<cv::Vec3b>(y);
        const std::uint32_t* src = argb.data() + static_cast<std::size_t>(y) * image.width();
        for (int x = 0; x < image.width(); ++x)
            row[x] = cv::Vec3b(src[x] & 0xFF, (src[x] >> 8) & 0xFF, (src[x] >> 16) & 0xFF);
    }
    const int side = std::min(image.width(), image.height());
    lineWidth_ = std::max(1, side / 400);
    fontScale_ = std::clamp(side / 1600.0, 0.35, 2.0);
}

void OverlayImage::drawRectangle(int x, int y, int w, int h, std::uint32_t rgb, double opacity) {
    if (w <= 0 || h <= 0) return;
    cv::Mat layer = canvas_.clone();
    // Pixel edges: the outline sits on the outermost pixels of the rectangle, inside it.
    const int t = std::min({lineWidth_, (w + 1) / 2, (h + 1) / 2});
    const cv::Point p0(x + t / 2, y + t / 2);
    const cv::Point p1(x + w - 1 - (t - 1) / 2, y + h - 1 - (t - 1) / 2);
    cv::rectangle(opacity < 1.0 ? layer : canvas_, p0, p1, bgr(rgb), t, cv::LINE_8);
    if (opacity < 1.0) cv::addWeighted(layer, opacity, canvas_, 1.0 - opacity, 0.0, canvas_);
}

void OverlayImage::drawPolyline(const std::vector<std::pair<double, double>>& points, std::uint32_t rgb, bool closed,
                                double opacity) {
    if (points.size() < 2) return;
    constexpr int kShift = 4; // sub-pixel precision of cv::polylines
    std::vector<cv::Point> pts;
    pts.reserve(points.size());
    for (const auto& [x, y] : points)
        pts.emplace_back(static_cast<int>(std::lround(x * (1 << kShift))), static_cast<int>(std::lround(y * (1 << kShift))));
    if (opacity >= 1.0) {
        cv::polylines(canvas_, pts, closed, bgr(rgb), lineWidth_, cv::LINE_AA, kShift);
        return;
    }
    cv::Mat layer = canvas_.clone();
    cv::polylines(layer, pts, closed, bgr(rgb), lineWidth_, cv::LINE_AA, kShift);
    cv::addWeighted(layer, opacity, canvas_, 1.0 - opacity, 0.0, canvas_);
}

void OverlayImage::drawMarker(double x, double y, std::uint32_t rgb) {
    const int size = 6 * lineWidth_ + 4;
    cv::drawMarker(canvas_, cv::Point(static_cast<int>(std::lround(x)), static_cast<int>(std::lround(y))), bgr(rgb),
                   cv::MARKER_CROSS, size, lineWidth_);
}

void OverlayImage::tintMask(const std::vector<std::uint8_t>& mask, int maskWidth, int maskHeight, int dx, int dy,
                            std::uint32_t rgb, double alpha) {
    const cv::Vec3d colour(rgb & 0xFF, (rgb >> 8) & 0xFF, (rgb >> 16) & 0xFF);
    for (int my = 0; my < maskHeight; ++my) {
        const int y = my + dy;
        if (y < 0 || y >= canvas_.rows) continue;
        auto* row = canvas_.ptr<cv::Vec3b>(y);
        for (int mx = 0; mx < maskWidth; ++mx) {
            const int x = mx + dx;
            if (x < 0 || x >= canvas_.cols || !mask[static_cast<std::size_t>(my) * maskWidth + mx]) continue;
            for (int c = 0; c < 3; ++c)
                row[x][c] = cv::saturate_cast<std::uint8_t>(row[x][c] * (1.0 - alpha) + colour[c] * alpha);
        }
    }
}

void OverlayImage::drawLabel(double x, double y, const std::string& text, std::uint32_t rgb) {
    int baseline = 0;
    const int thickness = std::max(1, lineWidth_);
    const cv::Size size = cv::getTextSize(text, cv::FONT_HERSHEY_SIMPLEX, fontScale_, thickness, &baseline);
    // Keep the label inside the picture.
    int px = std::clamp(static_cast<int>(std::lround(x)), 0, std::max(0, canvas_.cols - size.width - 2));
    int py = std::clamp(static_cast<int>(std::lround(y)) + size.height, size.height + 1, std::max(size.height + 1, canvas_.rows - baseline - 1));
    cv::putText(canvas_, text, cv::Point(px, py), cv::FONT_HERSHEY_SIMPLEX, fontScale_, cv::Scalar(0, 0, 0),
                thickness + 2, cv::LINE_AA);
    cv::putText(canvas_, text, cv::Point(px, py), cv::FONT_HERSHEY_SIMPLEX, fontScale_, bgr(rgb), thickness,
                cv::LINE_AA);
}

void OverlayImage::drawRectangleLabel(int x, int y, int /*width*/, int h, const std::string& text, std::uint32_t rgb) {
    int baseline = 0;
    const int thickness = std::max(1, lineWidth_);
    const cv::Size size = cv::getTextSize(text, cv::FONT_HERSHEY_SIMPLEX, fontScale_, thickness, &baseline);
    const int gap = lineWidth_ + 2;
    const int above = y - gap - size.height - baseline;
    drawLabel(x, above >= 0 ? above : y + h + gap, text, rgb);
}

void OverlayImage::drawLegend(const std::vector<std::pair<std::string, std::uint32_t>>& entries) {
    if (entries.empty()) return;
    int baseline = 0;
    const int thickness = std::max(1, lineWidth_);
    int widest = 0;
    int lineHeight = 0;
    for (const auto& e : entries) {
        const cv::Size s = cv::getTextSize(e.first, cv::FONT_HERSHEY_SIMPLEX, fontScale_, thickness, &baseline);
        widest = std::max(widest, s.width);
        lineHeight = std::max(lineHeight, s.height + baseline + 4);
    }
    const int swatch = lineHeight;
    const cv::Rect box(4, 4, std::min(canvas_.cols - 8, widest + swatch + 16),
                       std::min(canvas_.rows - 8, lineHeight * static_cast<int>(entries.size()) + 8));
    if (box.width <= 0 || box.height <= 0) return;
    cv::Mat roi = canvas_(box);
    roi *= 0.35; // darken behind the legend
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const int y = box.y + 4 + static_cast<int>(i) * lineHeight;
        cv::line(canvas_, cv::Point(box.x + 4, y + lineHeight / 2), cv::Point(box.x + 4 + swatch, y + lineHeight / 2),
                 bgr(entries[i].second), std::max(2, lineWidth_));
        cv::putText(canvas_, entries[i].first, cv::Point(box.x + swatch + 10, y + lineHeight - baseline - 2),
                    cv::FONT_HERSHEY_SIMPLEX, fontScale_, cv::Scalar(255, 255, 255), thickness, cv::LINE_AA);
    }
}

void OverlayImage::savePng(const std::string& path) const {
#if !GLINT_WITH_IMGCODECS
    throw OutputError("cannot write '" + path + "': this headless build of Glint writes no PNG files");
#else
    std::vector<std::uint8_t> bytes;
    if (!cv::imencode(".png", canvas_, bytes)) throw OutputError("cannot write '" + path + "': PNG encoding failed");
    writeFileAtomically(path, std::string(bytes.begin(), bytes.end()));
#endif
}

} // namespace glint
