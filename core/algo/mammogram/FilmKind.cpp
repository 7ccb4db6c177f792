// A mammogram recognised by its content (FilmKind.h).
#include "core/algo/mammogram/FilmKind.h"

#include "core/io/Image.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <vector>

namespace glint {

namespace {

FilmKindTest no(const std::string& why) { return {false, why}; }

double quantileOf(std::vector<float> v, double q) {
    if (v.empty()) return 0.0;
    const std::size_t k = std::min(v.size() - 1, static_cast<std::size_t>(q * static_cast<double>(v.size() - 1)));
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
    return v[k];
}

} // namespace

FilmKindTest mammogramByContent(const Image& image) {
    const int w = image.width(), h = image.height();
    if (w < 128 || h < 128) return no("too small for a film");
    if (std::max(w, h) > 2 * std::min(w, h) + 1) return no("not a film's proportions");
    cv::Mat full(h, w, CV_32F);
    bool anyFinite = false;
    image.visit([&](const auto* s) {
        float* out = full.ptr<float>(0);
        for (std::size_t i = 0; i < image.pixelCount(); ++i) {
            const double v = static_cast<double>(s[i]);
            const bool ok = std::isfinite(v) && !image.isBlank(i);
            anyFinite = anyFinite || ok;
            out[i] = ok ? static_cast<float>(v) : std::numeric_limits<float>::quiet_NaN();
        }
    });
    if (!anyFinite) return no("no finite pixel");
    double lo = std::numeric_limits<double>::infinity();
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            if (std::isfinite(full.at<float>(y, x))) lo = std::min(lo, static_cast<double>(full.at<float>(y, x)));
    cv::patchNaNs(full, lo);
    const int factor = std::max(1, (std::max(w, h) + 255) / 256);
    cv::Mat small;
    cv::resize(full, small, cv::Size((w + factor - 1) / factor, (h + factor - 1) / factor), 0, 0, cv::INTER_AREA);
    // Drop a thin frame (scanner borders, film edges) before the analysis.
    const int trim = std::max(1, small.cols / 40);
    const cv::Rect inner(trim, trim, small.cols - 2 * trim, small.rows - 2 * trim);
    cv::Mat m = small(inner).clone();
    std::vector<float> values(m.begin<float>(), m.end<float>());
    const double p01 = quantileOf(values, 0.01), p99 = quantileOf(values, 0.99);
    if (!(p99 > p01)) return no("flat image");
    // Otsu on 256 bins between p1 and p99.
    std::vector<double> hist(256, 0.0);
    for (float v : values) hist[static_cast<std::size_t>(std::clamp(static_cast<int>((v - p01) / (p99 - p01) * 255.0), 0, 255))] += 1;
    double total = 0, sumAll = 0;
    for (int i = 0; i < 256; ++i) total += hist[i], sumAll += i * hist[i];
    double w0 = 0, s0 = 0, best = -1;
    int cut = 128;
    for (int i = 0; i < 255; ++i) {
        w0 += hist[i];
        s0 += i * hist[i];
        const double w1 = total - w0;
        if (w0 <= 0 || w1 <= 0) continue;
        const double d = s0 / w0 - (sumAll - s0) / w1, between = w0 * w1 * d * d;
        if (between > best) best = between, cut = i;
    }
    const double t = p01 + (cut + 1) / 255.0 * (p99 - p01);
    cv::Mat fg = m > t;
    cv::morphologyEx(fg, fg, cv::MORPH_OPEN, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(3, 3)));
    cv::Mat labels, stats, cents;
    const int n = cv::connectedComponentsWithStats(fg, labels, stats, cents, 8, CV_32S);
    int lab = -1, area = 0;
    for (int i = 1; i < n; ++i)
        if (stats.at<int>(i, cv::CC_STAT_AREA) > area) area = stats.at<int>(i, cv::CC_STAT_AREA), lab = i;
    const double share = static_cast<double>(area) / (m.rows * m.cols);
    std::ostringstream pct;
    pct << std::lround(100 * share) << " % of the film";
    if (lab < 0 || share < 0.12 || share > 0.8) return no("no breast-sized foreground (" + pct.str() + ")");
    cv::Mat breast = labels == lab;
    // A dark, flat background: well below the breast, with little spread.
    std::vector<float> bg, fgv;
    for (int y = 0; y < m.rows; ++y)
        for (int x = 0; x < m.cols; ++x) (breast.at<std::uint8_t>(y, x) ? fgv : bg).push_back(m.at<float>(y, x));
    const double bgMed = quantileOf(bg, 0.5), fgMed = quantileOf(fgv, 0.5);
    const double bgSpread = quantileOf(bg, 0.75) - quantileOf(bg, 0.25);
    if (fgMed - bgMed < 0.25 * (p99 - p01)) return no("no dark background around the foreground");
    if (bgSpread > 0.2 * (fgMed - bgMed)) return no("background not flat");
    // Contact with the left and right sides (rows whose first/last column is breast).
    int left = 0, right = 0, top = 0, bottom = 0;
    for (int y = 0; y < m.rows; ++y) {
        left += breast.at<std::uint8_t>(y, 0) ? 1 : 0;
        right += breast.at<std::uint8_t>(y, m.cols - 1) ? 1 : 0;
    }
    for (int x = 0; x < m.cols; ++x) {
        top += breast.at<std::uint8_t>(0, x) ? 1 : 0;
        bottom += breast.at<std::uint8_t>(m.rows - 1, x) ? 1 : 0;
    }
    const bool wallLeft = left >= right;
    const int wall = std::max(left, right), other = std::min(left, right);
    if (wall < 0.25 * m.rows) return no("the foreground meets no side along a chest wall");
    if (other > 0.05 * m.rows) return no("the foreground meets both the left and the right side");
    if (top > 0.6 * m.cols && bottom > 0.6 * m.cols) return no("the foreground spans the image top to bottom");
    // Reach from the chest wall, narrowing away from it, and a half-ellipse's fill of its box.
    const int bx = stats.at<int>(lab, cv::CC_STAT_LEFT), bw = stats.at<int>(lab, cv::CC_STAT_WIDTH), bh = stats.at<int>(lab, cv::CC_STAT_HEIGHT);
    const double reach = static_cast<double>(bw) / m.cols;
    if ((wallLeft && bx > 1) || (!wallLeft && bx + bw < m.cols - 1)) return no("the foreground leaves the chest-wall side");
    if (reach < 0.2 || reach > 0.97) return no("the foreground's reach does not fit a breast");
    const double fill = static_cast<double>(area) / (static_cast<double>(bw) * bh);
    if (fill < 0.45 || fill > 0.93) return no("the foreground's shape does not fit a breast");
    const auto column = [&](double at) {
        const int x = wallLeft ? bx + static_cast<int>(at * (bw - 1)) : bx + bw - 1 - static_cast<int>(at * (bw - 1));
        return cv::countNonZero(breast.col(x));
    };
    const int nearWall = column(0.15), middle = column(0.5), far = column(0.85);
    if (!(nearWall >= middle && middle >= far && far < 0.8 * nearWall)) return no("the foreground does not narrow away from the side it meets");
    return {true, std::string("breast against the ") + (wallLeft ? "left" : "right") + " side, " + pct.str()};
}

} // namespace glint
