// The feature's width along a finished trace (TraceWidth.h).
#include "core/algo/trace/TraceWidth.h"

#include "core/util/Errors.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace glint {

namespace {

constexpr double kProfileStep = 0.5;  // px between profile samples across the path
constexpr double kCentreShift = 2.0;  // the bar's centre may sit this far from the path, px
constexpr double kScaleShare = 0.5;   // the chosen scale holds at least this share of the largest contrast

// Bilinear value at (x, y) (pixel centres at integers), NaN outside the image or touching a blank pixel.
double sampleAt(const Image& image, double x, double y) {
    const double fx = std::floor(x), fy = std::floor(y);
    const int x0 = static_cast<int>(fx), y0 = static_cast<int>(fy);
    const double ax = x - fx, ay = y - fy;
    const int x1 = ax > 0.0 ? x0 + 1 : x0, y1 = ay > 0.0 ? y0 + 1 : y0;
    if (x0 < 0 || y0 < 0 || x1 >= image.width() || y1 >= image.height()) return std::numeric_limits<double>::quiet_NaN();
    if (image.hasBlanks() && (image.isBlank(x0, y0) || image.isBlank(x1, y0) || image.isBlank(x0, y1) || image.isBlank(x1, y1)))
        return std::numeric_limits<double>::quiet_NaN();
    const double top = (1.0 - ax) * image.value(x0, y0) + ax * image.value(x1, y0);
    const double bottom = (1.0 - ax) * image.value(x0, y1) + ax * image.value(x1, y1);
    return (1.0 - ay) * top + ay * bottom;
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

double pathLength(const std::vector<TracePoint>& line) {
    double length = 0.0;
    for (std::size_t i = 1; i < line.size(); ++i) length += std::hypot(line[i].x - line[i - 1].x, line[i].y - line[i - 1].y);
    return length;
}

// The point at arc length s along a polyline (clamped to its ends).
TracePoint pointAt(const std::vector<TracePoint>& line, double s) {
    if (s <= 0.0 || line.size() == 1) return line.front();
    double before = 0.0;
    for (std::size_t i = 1; i < line.size(); ++i) {
        const double l = std::hypot(line[i].x - line[i - 1].x, line[i].y - line[i - 1].y);
        if (before + l >= s && l > 0.0) {
            const double f = (s - before) / l;
            return {line[i - 1].x + f * (line[i].x - line[i - 1].x), line[i - 1].y + f * (line[i].y - line[i - 1].y)};
        }
        before += l;
    }
    return line.back();
}

} // namespace

std::optional<TraceWidthSample> measureTraceWidthAt(const Image& image, TracePoint point, double tx, double ty,
                                                    TracePolarity polarity) {
    const double norm = std::hypot(tx, ty);
    if (!(norm > 0.0)) return std::nullopt;
    tx /= norm;
    ty /= norm;
    const double nx = -ty, ny = tx;
    const double sign = polarity == TracePolarity::Dark ? -1.0 : 1.0;
    // Profile indices -half..half (offset = i * kProfileStep), reaching the widest bar's flanks from the
    // farthest centre.
    const int maxH = static_cast<int>(std::lround(kTraceWidthMaxHalf / kProfileStep));
    const int maxC = static_cast<int>(std::lround(kCentreShift / kProfileStep));
    const int half = 2 * maxH + maxC;
    const int n = 2 * half + 1;
    std::vector<double> q(static_cast<std::size_t>(n), std::numeric_limits<double>::quiet_NaN());
    for (int i = 0; i < n; ++i) {
        const double o = (i - half) * kProfileStep;
        double sum = 0.0;
        bool ok = true;
        for (int s = -kTraceWidthAlong; s <= kTraceWidthAlong && ok; ++s) {
            const double v = sampleAt(image, point.x + nx * o + tx * s, point.y + ny * o + ty * s);
            if (std::isnan(v)) ok = false;
            else sum += v;
        }
        if (ok) q[static_cast<std::size_t>(i)] = sign * sum / (2 * kTraceWidthAlong + 1);
    }
    // The usable run around the path: contiguous valid samples.
    int lo = half, hi = half;
    if (std::isnan(q[static_cast<std::size_t>(half)])) return std::nullopt;
    while (lo > 0 && !std::isnan(q[static_cast<std::size_t>(lo - 1)])) --lo;
    while (hi < n - 1 && !std::isnan(q[static_cast<std::size_t>(hi + 1)])) ++hi;
    std::vector<double> prefix(static_cast<std::size_t>(n) + 1, 0.0);
    for (int i = lo; i <= hi; ++i) prefix[static_cast<std::size_t>(i) + 1] = prefix[static_cast<std::size_t>(i)] + q[static_cast<std::size_t>(i)];
    const auto meanOver = [&](int a, int b) { // inclusive indices, lo <= a <= b <= hi
        return (prefix[static_cast<std::size_t>(b) + 1] - prefix[static_cast<std::size_t>(a)]) / (b - a + 1);
    };
    // Best contrast per half-width h (in profile steps, 1..maxH) over the centres; NaN where no centre fits.
    struct Best {
        double contrast = -std::numeric_limits<double>::infinity();
        int centre = 0;
        double flank = 0.0;
    };
    std::vector<Best> best(static_cast<std::size_t>(maxH) + 1);
    for (int h = 1; h <= maxH; ++h) {
        Best& b = best[static_cast<std::size_t>(h)];
        for (int c = half - maxC; c <= half + maxC; ++c) {
            if (c - 2 * h < lo || c + 2 * h > hi) continue;
            const double inside = meanOver(c - h, c + h);
            const double flank = std::max(meanOver(c - 2 * h, c - h - 1), meanOver(c + h + 1, c + 2 * h));
            if (inside - flank > b.contrast) b = {inside - flank, c, flank};
        }
    }
    double largest = -std::numeric_limits<double>::infinity();
    for (int h = 1; h <= maxH; ++h) largest = std::max(largest, best[static_cast<std::size_t>(h)].contrast);
    if (!(largest > 0.0)) return std::nullopt;
    int chosen = 0;
    for (int h = 1; h <= maxH && !chosen; ++h) {
        const double c = best[static_cast<std::size_t>(h)].contrast;
        if (!(c >= kScaleShare * largest)) continue;
        const double next = h < maxH ? best[static_cast<std::size_t>(h) + 1].contrast : -std::numeric_limits<double>::infinity();
        if (c >= next) chosen = h; // a local maximum over h (or the last scale)
    }
    if (!chosen) return std::nullopt;
    const Best& b = best[static_cast<std::size_t>(chosen)];
    // Half contrast: the level midway between the bar's peak and its flanks' level. The peak is the mean over the
    // bar's central half (for a bar, its top; in a textured belt, not one texture extreme); the walk out to the
    // edges starts from the central half's highest sample.
    const int quarter = std::max(1, chosen / 2);
    int peakAt = b.centre;
    for (int i = b.centre - quarter; i <= b.centre + quarter; ++i)
        if (q[static_cast<std::size_t>(i)] > q[static_cast<std::size_t>(peakAt)]) peakAt = i;
    const double top = meanOver(b.centre - quarter, b.centre + quarter);
    const double level = 0.5 * (top + b.flank);
    // Walk out from the peak to the first sample below the level on each side, within the bar's flanks;
    // linear interpolation between the last sample above and the first below.
    const auto edge = [&](int step) -> std::optional<double> {
        const int limit = step < 0 ? b.centre - 2 * chosen : b.centre + 2 * chosen;
        for (int i = peakAt; i != limit; i += step) {
            const double a = q[static_cast<std::size_t>(i)], c = q[static_cast<std::size_t>(i + step)];
            if (c < level) return (i + step * (a - level) / (a - c) - half) * kProfileStep;
        }
        return std::nullopt;
    };
    const auto left = edge(-1), right = edge(+1);
    if (!left || !right) return std::nullopt;
    TraceWidthSample out;
    out.x = point.x;
    out.y = point.y;
    out.width = *right - *left;
    out.contrast = b.contrast;
    return out;
}

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
        const std::vector<TracePoint>& line = leg.points;
        const double length = line.empty() ? 0.0 : pathLength(line);
        if (length > 0.0) {
            const int count = std::clamp(static_cast<int>(std::floor(length / kTraceWidthStep)) + 1, 2, kTraceWidthMaxSamples);
            for (int k = 0; k < count; ++k) {
                const double s = length * k / (count - 1);
                const TracePoint p = pointAt(line, s);
                // The direction of the path around the sample (over 2 step lengths: a path's pixel steps average out).
                const TracePoint a = pointAt(line, s - kTraceWidthStep), b = pointAt(line, s + kTraceWidthStep);
                TraceWidthSample sample;
                if (auto found = measureTraceWidthAt(image, p, b.x - a.x, b.y - a.y, polarity)) sample = *found;
                sample.arc = s;
                sample.x = p.x;
                sample.y = p.y;
                if (sample.width) w.widths.push_back(*sample.width);
                w.along.push_back(sample);
            }
            w.samples = count;
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
