// The feature's width along a finished trace (TraceWidth.h).
#include "core/algo/trace/TraceWidth.h"

#include "core/util/Errors.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace glint {

namespace {

// The estimator's filters reach search + ceil(4 sigma) px from a point, sigma at most 20 px: a window this far
// around a sample holds everything the estimate there reads, so it runs on that window alone (the same numbers,
// without converting the whole image for every sample).
constexpr int kWindowHalf = kTraceWidthSearch + 81;

Image windowAround(const Image& image, TracePoint p, TracePoint& local) {
    const int cx = std::clamp(static_cast<int>(std::lround(p.x)), 0, image.width() - 1);
    const int cy = std::clamp(static_cast<int>(std::lround(p.y)), 0, image.height() - 1);
    const int x0 = std::max(0, cx - kWindowHalf), y0 = std::max(0, cy - kWindowHalf);
    const int x1 = std::min(image.width() - 1, cx + kWindowHalf), y1 = std::min(image.height() - 1, cy + kWindowHalf);
    const int w = x1 - x0 + 1, h = y1 - y0 + 1;
    std::vector<double> values(static_cast<std::size_t>(w) * h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            values[static_cast<std::size_t>(y) * w + x] = image.isBlank(x0 + x, y0 + y)
                                                             ? std::numeric_limits<double>::quiet_NaN()
                                                             : image.value(x0 + x, y0 + y);
    Image window = Image::fromSamples(w, h, std::move(values));
    if (image.hasBlanks()) {
        std::vector<std::uint8_t> mask(window.pixelCount());
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) mask[static_cast<std::size_t>(y) * w + x] = image.isBlank(x0 + x, y0 + y) ? 1 : 0;
        window.setBlankMask(std::move(mask));
    }
    local = {std::clamp(p.x - x0, -0.5, w - 0.5), std::clamp(p.y - y0, -0.5, h - 0.5)};
    return window;
}

std::optional<double> median(std::vector<double> v) {
    if (v.empty()) return std::nullopt;
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::optional<double> mean(const std::vector<double>& v) {
    if (v.empty()) return std::nullopt;
    double sum = 0.0;
    for (double x : v) sum += x;
    return sum / static_cast<double>(v.size());
}

// Points every `step` px of arc length along a polyline (its ends included), at most `most`, spread evenly.
std::vector<TracePoint> samplesAlong(const std::vector<TracePoint>& line, double step, int most) {
    double length = 0.0;
    for (std::size_t i = 1; i < line.size(); ++i) length += std::hypot(line[i].x - line[i - 1].x, line[i].y - line[i - 1].y);
    if (line.empty()) return {};
    if (line.size() == 1 || length <= 0.0) return {line.front()};
    const int count = std::clamp(static_cast<int>(std::floor(length / step)) + 1, 2, std::max(2, most));
    std::vector<TracePoint> out;
    std::size_t seg = 1;
    double before = 0.0; // arc length at line[seg - 1]
    for (int k = 0; k < count; ++k) {
        const double s = length * k / (count - 1);
        while (seg + 1 < line.size()) {
            const double l = std::hypot(line[seg].x - line[seg - 1].x, line[seg].y - line[seg - 1].y);
            if (before + l >= s) break;
            before += l;
            ++seg;
        }
        const double l = std::hypot(line[seg].x - line[seg - 1].x, line[seg].y - line[seg - 1].y);
        const double f = l > 0.0 ? std::clamp((s - before) / l, 0.0, 1.0) : 0.0;
        out.push_back({line[seg - 1].x + f * (line[seg].x - line[seg - 1].x),
                       line[seg - 1].y + f * (line[seg].y - line[seg - 1].y)});
    }
    return out;
}

} // namespace

TraceWidth measureTraceWidth(const Image& image, const TraceResult& result, TracePolarity polarity) {
    if (image.empty()) throw InputError("trace: the image is empty");
    TraceWidth out;
    if (polarity == TracePolarity::Both) {
        std::vector<TracePoint> clicks;
        for (const TraceLeg& leg : result.legs) {
            if (clicks.empty()) clicks.push_back(leg.from);
            clicks.push_back(leg.to);
        }
        polarity = clicks.empty() ? TracePolarity::Bright : estimateTraceLinePolarity(image, clicks);
    }
    out.polarity = polarity;
    std::vector<double> all;
    for (const TraceLeg& leg : result.legs) {
        TraceLegWidth w;
        for (const TracePoint& p : samplesAlong(leg.points, kTraceWidthStep, kTraceWidthMaxSamples)) {
            ++w.samples;
            TracePoint local;
            const Image window = windowAround(image, p, local);
            if (const auto width = measureTraceLineWidthAt(window, local, polarity, kTraceWidthSearch))
                w.widths.push_back(width->width);
        }
        w.meanPx = mean(w.widths);
        w.medianPx = median(w.widths);
        all.insert(all.end(), w.widths.begin(), w.widths.end());
        out.legs.push_back(std::move(w));
    }
    out.meanPx = mean(all);
    out.medianPx = median(all);
    return out;
}

} // namespace glint
