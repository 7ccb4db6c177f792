#include "core/export/OverlayImage.h"

#include "core/io/Codecs.h"
#include "core/util/AtomicFile.h"
#include "core/util/Errors.h"

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

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

const char* OverlayImage::flippedLegendText() { return "y up: row 0 at the bottom, as the window shows it"; }

OverlayImage::OverlayImage(const Image& image, const DisplaySettings& settings) {
    const DisplayLimits limits = computeLimits(image, settings);
    const std::vector<std::uint32_t> argb = renderImage(image, settings, limits);
    canvas_.create(image.height(), image.width(), CV_8UC3);
    flipped_ = image.meta.displayYUp;
    for (int y = 0; y < image.height(); ++y) {
        auto* row = canvas_.ptr<cv::Vec3b>(flipped_ ? image.height() - 1 - y : y);
        const std::uint32_t* src = argb.data() + static_cast<std::size_t>(y) * image.width();
        for (int x = 0; x < image.width(); ++x)
            row[x] = cv::Vec3b(src[x] & 0xFF, (src[x] >> 8) & 0xFF, (src[x] >> 16) & 0xFF);
    }
    const int side = std::min(image.width(), image.height());
    lineWidth_ = std::max(1, side / 400);
    fontScale_ = std::clamp(side / 1600.0, 0.35, 2.0);
    layoutLegend(); // a flipped picture says so even when nothing else goes into the legend
}

void OverlayImage::drawRectangle(int x, int y, int w, int h, std::uint32_t rgb, double opacity) {
    if (w <= 0 || h <= 0) return;
    y = pictureTop(y, h);
    rectangles_.emplace_back(x, y, w, h);
    cv::Mat layer = canvas_.clone();
    // Pixel edges: the outline sits on the outermost pixels of the rectangle, inside it.
    const int t = std::min({lineWidth_, (w + 1) / 2, (h + 1) / 2});
    const cv::Point p0(x + t / 2, y + t / 2);
    const cv::Point p1(x + w - 1 - (t - 1) / 2, y + h - 1 - (t - 1) / 2);
    cv::rectangle(opacity < 1.0 ? layer : canvas_, p0, p1, bgr(rgb), t, cv::LINE_8);
    if (opacity < 1.0) cv::addWeighted(layer, opacity, canvas_, 1.0 - opacity, 0.0, canvas_);
}

void OverlayImage::drawPolyline(const std::vector<std::pair<double, double>>& points, std::uint32_t rgb, bool closed,
                                double opacity, int thickness) {
    if (points.size() < 2) return;
    const int width = thickness > 0 ? thickness : lineWidth_;
    constexpr int kShift = 4; // sub-pixel precision of cv::polylines
    std::vector<cv::Point> pts;
    pts.reserve(points.size());
    for (const auto& [x, y] : points)
        pts.emplace_back(static_cast<int>(std::lround(x * (1 << kShift))),
                         static_cast<int>(std::lround(pictureY(y) * (1 << kShift))));
    if (opacity >= 1.0) {
        cv::polylines(canvas_, pts, closed, bgr(rgb), width, cv::LINE_AA, kShift);
        return;
    }
    cv::Mat layer = canvas_.clone();
    cv::polylines(layer, pts, closed, bgr(rgb), width, cv::LINE_AA, kShift);
    cv::addWeighted(layer, opacity, canvas_, 1.0 - opacity, 0.0, canvas_);
}

void OverlayImage::drawMarker(double x, double y, std::uint32_t rgb) {
    const int size = 6 * lineWidth_ + 4;
    cv::drawMarker(canvas_, cv::Point(static_cast<int>(std::lround(x)), static_cast<int>(std::lround(pictureY(y)))), bgr(rgb),
                   cv::MARKER_CROSS, size, lineWidth_);
}

void OverlayImage::tintMask(const std::vector<std::uint8_t>& mask, int maskWidth, int maskHeight, int dx, int dy,
                            std::uint32_t rgb, double alpha) {
    const cv::Vec3d colour(rgb & 0xFF, (rgb >> 8) & 0xFF, (rgb >> 16) & 0xFF);
    for (int my = 0; my < maskHeight; ++my) {
        const int y = pictureTop(my + dy, 1);
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
    // The text's box covers image rows y..y+height: flipped, its top is where that span ends.
    if (flipped_) y = canvas_.rows - y - size.height;
    // Keep the label inside the picture.
    int px = std::clamp(static_cast<int>(std::lround(x)), 0, std::max(0, canvas_.cols - size.width - 2));
    int py = std::clamp(static_cast<int>(std::lround(y)) + size.height, size.height + 1, std::max(size.height + 1, canvas_.rows - baseline - 1));
    cv::putText(canvas_, text, cv::Point(px, py), cv::FONT_HERSHEY_SIMPLEX, fontScale_, cv::Scalar(0, 0, 0),
                thickness + 2, cv::LINE_AA);
    cv::putText(canvas_, text, cv::Point(px, py), cv::FONT_HERSHEY_SIMPLEX, fontScale_, bgr(rgb), thickness,
                cv::LINE_AA);
}

void OverlayImage::drawRectangleLabel(int x, int y, int width, int height, const std::string& text, std::uint32_t rgb) {
    if (text.empty()) return;
    const int h = std::max(1, height);
    labels_.push_back({cv::Rect(x, pictureTop(y, h), std::max(1, width), h), text, rgb});
}

cv::Size OverlayImage::labelSize(const std::string& text, int* baseline) const {
    int base = 0;
    const int thickness = std::max(1, lineWidth_);
    cv::Size size = cv::getTextSize(text, cv::FONT_HERSHEY_SIMPLEX, fontScale_, thickness, &base);
    if (baseline) *baseline = base;
    return {size.width + 2 * (thickness + 1), size.height + base + 2 * (thickness + 1)}; // with the halo
}

namespace {

// Boxes bucketed by picture area, so that a thousand labels are placed in near-linear time.
class BoxGrid {
public:
    explicit BoxGrid(int cell) : cell_(std::max(16, cell)) {}
    void add(const cv::Rect& box) {
        const int index = static_cast<int>(boxes_.size());
        boxes_.push_back(box);
        forCells(box, [&](std::uint64_t key) {
            cells_[key].push_back(index);
            return false;
        });
    }
    int countOverlaps(const cv::Rect& box) const {
        std::vector<int> seen;
        forCells(box, [&](std::uint64_t key) {
            const auto it = cells_.find(key);
            if (it != cells_.end())
                for (int i : it->second)
                    if ((boxes_[static_cast<std::size_t>(i)] & box).area() > 0 && std::find(seen.begin(), seen.end(), i) == seen.end())
                        seen.push_back(i);
            return false;
        });
        return static_cast<int>(seen.size());
    }
    double coveredArea(const cv::Rect& box) const {
        double area = 0.0;
        std::vector<int> seen;
        forCells(box, [&](std::uint64_t key) {
            const auto it = cells_.find(key);
            if (it == cells_.end()) return false;
            for (int i : it->second) {
                if (std::find(seen.begin(), seen.end(), i) != seen.end()) continue;
                seen.push_back(i);
                area += static_cast<double>((boxes_[static_cast<std::size_t>(i)] & box).area());
            }
            return false;
        });
        return area;
    }

private:
    template <class F>
    bool forCells(const cv::Rect& box, F&& f) const {
        if (box.width <= 0 || box.height <= 0) return false;
        const auto floorDiv = [this](int v) { return v >= 0 ? v / cell_ : -((-v + cell_ - 1) / cell_); };
        for (int y = floorDiv(box.y); y <= floorDiv(box.y + box.height - 1); ++y)
            for (int x = floorDiv(box.x); x <= floorDiv(box.x + box.width - 1); ++x)
                if (f((static_cast<std::uint64_t>(static_cast<std::uint32_t>(y)) << 32) | static_cast<std::uint32_t>(x))) return true;
        return false;
    }
    int cell_;
    std::vector<cv::Rect> boxes_;
    std::unordered_map<std::uint64_t, std::vector<int>> cells_;
};

// The nearest points of two boxes (a leader line's ends).
std::pair<cv::Point, cv::Point> nearestPoints(const cv::Rect& a, const cv::Rect& b) {
    const auto span = [](int a0, int a1, int b0, int b1) -> std::pair<int, int> {
        if (a1 < b0) return {a1, b0};
        if (b1 < a0) return {a0, b1};
        const int mid = (std::max(a0, b0) + std::min(a1, b1)) / 2;
        return {mid, mid};
    };
    const auto [ax, bx] = span(a.x, a.x + a.width - 1, b.x, b.x + b.width - 1);
    const auto [ay, by] = span(a.y, a.y + a.height - 1, b.y, b.y + b.height - 1);
    return {cv::Point(ax, ay), cv::Point(bx, by)};
}

} // namespace

std::vector<OverlayImage::PlacedLabel> OverlayImage::placeLabels() const {
    std::vector<PlacedLabel> placed;
    if (labels_.empty()) return placed;
    const cv::Rect picture(0, 0, canvas_.cols, canvas_.rows);
    const int cell = std::max(32, labelSize("#000  000000").width);
    BoxGrid taken(cell), regions(cell);
    if (legendBox_.area() > 0) taken.add(legendBox_ & picture);
    for (const cv::Rect& r : rectangles_) {
        const cv::Rect inside = r & picture;
        if (inside.area() > 0) regions.add(inside);
    }
    const int gap = lineWidth_ + 2;
    const int ringStep = std::max(8, 6 * lineWidth_ + 4);
    for (std::size_t i = 0; i < labels_.size(); ++i) {
        const cv::Rect t = labels_[i].target;
        const cv::Size size = labelSize(labels_[i].text);
        if (size.width > picture.width || size.height > picture.height) continue;
        const double area = static_cast<double>(size.area());
        const double ownArea = std::max(1.0, static_cast<double>(t.area()));
        double bestCost = std::numeric_limits<double>::infinity(), forcedCost = bestCost;
        int forcedCovered = std::numeric_limits<int>::max();
        cv::Rect best, forced;
        const auto consider = [&](int x, int y, double ringCost) {
            cv::Rect box(std::clamp(x, 0, picture.width - size.width), std::clamp(y, 0, picture.height - size.height), size.width, size.height);
            const double own = static_cast<double>((box & t).area());
            const double other = std::max(0.0, regions.coveredArea(box) - own);
            const double ownWeight = own > 0.0 ? 2.0 * std::min(1.0, 4.0 * area / ownArea) + 1.0 : 0.0;
            const double cost = ownWeight * own / area + other / area + ringCost;
            const int covered = taken.countOverlaps(box);
            if (covered == 0 && cost < bestCost) {
                bestCost = cost;
                best = box;
            }
            if (i == 0 && (covered < forcedCovered || (covered == forcedCovered && cost < forcedCost))) {
                forcedCovered = covered;
                forcedCost = cost;
                forced = box;
            }
        };
        for (int ring = 0; ring < 6; ++ring) {
            const int d = gap + (ring == 0 ? 0 : ringStep * ring * (ring + 1) / 2);
            const int l = t.x - d, r = t.x + t.width + d, top = t.y - d, bottom = t.y + t.height + d;
            const int cx = (l + r) / 2 - size.width / 2, cy = (top + bottom) / 2 - size.height / 2;
            const double ringCost = 0.05 * ring;
            const int spots[][2] = {{l, top - size.height},          {l, bottom},
                                    {r - size.width, top - size.height}, {r - size.width, bottom},
                                    {cx, top - size.height},         {cx, bottom},
                                    {r, top},                        {l - size.width, top},
                                    {r, bottom - size.height},       {l - size.width, bottom - size.height},
                                    {r, cy},                         {l - size.width, cy}};
            for (std::size_t k = 0; k < std::size(spots); ++k) consider(spots[k][0], spots[k][1], ringCost + 0.001 * static_cast<double>(k));
            if (bestCost < ringCost + 0.05) break;
        }
        consider(t.x + gap, t.y + gap, 0.3); // inside, at the top: when nothing outside was free
        cv::Rect chosen;
        if (std::isfinite(bestCost)) chosen = best;
        else if (i == 0 && std::isfinite(forcedCost)) chosen = forced;
        else continue;
        taken.add(chosen);
        const auto [a, b] = nearestPoints(chosen, t);
        placed.push_back({i, chosen, std::hypot(a.x - b.x, a.y - b.y) > gap + 1.0});
    }
    return placed;
}

cv::Mat OverlayImage::pixels() const {
    cv::Mat out = canvas_.clone();
    paintLegend(out);
    const int thickness = std::max(1, lineWidth_);
    for (const PlacedLabel& p : placeLabels()) {
        const PendingLabel& label = labels_[p.index];
        if (p.leader) {
            const auto [a, b] = nearestPoints(p.box, label.target);
            cv::line(out, a, b, cv::Scalar(0, 0, 0), thickness + 2, cv::LINE_AA);
            cv::line(out, a, b, bgr(label.rgb), thickness, cv::LINE_AA);
        }
        int baseline = 0;
        labelSize(label.text, &baseline);
        const cv::Point origin(p.box.x + thickness + 1, p.box.y + p.box.height - baseline - thickness - 1);
        cv::putText(out, label.text, origin, cv::FONT_HERSHEY_SIMPLEX, fontScale_, cv::Scalar(0, 0, 0), thickness + 2, cv::LINE_AA);
        cv::putText(out, label.text, origin, cv::FONT_HERSHEY_SIMPLEX, fontScale_, bgr(label.rgb), thickness, cv::LINE_AA);
    }
    return out;
}

void OverlayImage::drawLegend(const std::vector<std::pair<std::string, std::uint32_t>>& entries) {
    legend_.insert(legend_.end(), entries.begin(), entries.end());
    layoutLegend();
}

void OverlayImage::layoutLegend() {
    std::vector<std::pair<std::string, std::uint32_t>> lines = legend_;
    if (flipped_) lines.emplace_back(flippedLegendText(), 0xB0B0B0);
    legendBox_ = {};
    if (lines.empty()) return;
    const int thickness = std::max(1, lineWidth_);
    int widest = 0;
    legendLineHeight_ = 0;
    for (const auto& e : lines) {
        const cv::Size s = cv::getTextSize(e.first, cv::FONT_HERSHEY_SIMPLEX, fontScale_, thickness, &legendBaseline_);
        widest = std::max(widest, s.width);
        legendLineHeight_ = std::max(legendLineHeight_, s.height + legendBaseline_ + 4);
    }
    const int swatch = legendLineHeight_;
    const cv::Rect box(4, 4, std::min(canvas_.cols - 8, widest + swatch + 16),
                       std::min(canvas_.rows - 8, legendLineHeight_ * static_cast<int>(lines.size()) + 8));
    if (box.width > 0 && box.height > 0) legendBox_ = box;
}

void OverlayImage::paintLegend(cv::Mat& out) const {
    if (legendBox_.area() <= 0) return;
    std::vector<std::pair<std::string, std::uint32_t>> lines = legend_;
    if (flipped_) lines.emplace_back(flippedLegendText(), 0xB0B0B0);
    const int thickness = std::max(1, lineWidth_);
    const cv::Rect& box = legendBox_;
    cv::Mat roi = out(box);
    roi *= 0.35; // darken behind the legend
    const int swatch = legendLineHeight_;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const int y = box.y + 4 + static_cast<int>(i) * legendLineHeight_;
        if (y + legendLineHeight_ > box.y + box.height) break; // a short picture shows what fits
        cv::line(out, cv::Point(box.x + 4, y + legendLineHeight_ / 2), cv::Point(box.x + 4 + swatch, y + legendLineHeight_ / 2),
                 bgr(lines[i].second), std::max(2, lineWidth_));
        cv::putText(out, lines[i].first, cv::Point(box.x + swatch + 10, y + legendLineHeight_ - legendBaseline_ - 2),
                    cv::FONT_HERSHEY_SIMPLEX, fontScale_, cv::Scalar(255, 255, 255), thickness, cv::LINE_AA);
    }
}

void OverlayImage::savePng(const std::string& path) const {
#if !GLINT_WITH_IMGCODECS
    throw OutputError("cannot write '" + path + "': this headless build of Glint writes no PNG files");
#else
    const Codecs* codecs = glint::codecs();
    if (!codecs) throw OutputError("cannot write '" + path + "': writing PNG files needs Glint's codecs plugin: " + codecsError());
    const std::vector<std::uint8_t> bytes = codecs->encodePng(pixels());
    if (bytes.empty()) throw OutputError("cannot write '" + path + "': PNG encoding failed");
    writeFileAtomically(path, std::string(bytes.begin(), bytes.end()));
#endif
}

} // namespace glint
