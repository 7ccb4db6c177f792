#include "core/algo/trace/TraceScenes.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <random>

namespace glint {

namespace {

struct Curve {
    double cy, amplitude, period, phase;
    double y(double x) const { return cy + amplitude * std::sin(2 * std::numbers::pi * x / period + phase); }
    double slope(double x) const {
        return amplitude * 2 * std::numbers::pi / period * std::cos(2 * std::numbers::pi * x / period + phase);
    }
    // Signed distance of (x, y) from the curve, along its normal (good for gentle curves).
    double distance(double x, double yy) const { return (yy - y(x)) / std::sqrt(1 + slope(x) * slope(x)); }
    // The polyline at signed normal offset `offset`.
    std::vector<TracePoint> polyline(double x0, double x1, double offset) const {
        std::vector<TracePoint> out;
        for (double x = x0; x <= x1; x += 0.5) {
            const double s = slope(x), len = std::sqrt(1 + s * s);
            out.push_back({x - offset * s / len, y(x) + offset / len});
        }
        return out;
    }
};

// Fraction of pixel (x, y) inside a band |distance| <= half, for an anti-aliased edge.
double coverage(double distance, double half) { return std::clamp(half + 0.5 - std::fabs(distance), 0.0, 1.0); }

double distanceToSegment(TracePoint p, TracePoint a, TracePoint b) {
    const double dx = b.x - a.x, dy = b.y - a.y;
    const double len2 = dx * dx + dy * dy;
    double t = len2 > 0 ? ((p.x - a.x) * dx + (p.y - a.y) * dy) / len2 : 0.0;
    t = std::clamp(t, 0.0, 1.0);
    return std::hypot(p.x - (a.x + t * dx), p.y - (a.y + t * dy));
}

} // namespace

TraceScene makeTraceScene(TraceSceneKind kind, double lineWidth, std::uint32_t seed, int width, int height) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> uni(0.0, 1.0);
    std::normal_distribution<double> noise(0.0, 1.0);
    const Curve curve{height / 2.0 + (uni(rng) - 0.5) * 0.2 * height, 15 + 15 * uni(rng), 450 + 200 * uni(rng),
                      2 * std::numbers::pi * uni(rng)};

    std::vector<double> v(static_cast<std::size_t>(width) * height);
    // Smooth background shading, so that no constant level can be taken for granted.
    const double gx = (uni(rng) - 0.5) * 0.08, gy = (uni(rng) - 0.5) * 0.08;
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x)
            v[static_cast<std::size_t>(y) * width + x] =
                110 + gx * (x - width / 2.0) + gy * (y - height / 2.0) + 10 * std::sin(x / 37.0) * std::cos(y / 53.0);

    TraceScene scene;
    const double x0 = 0.12 * width, x1 = 0.88 * width;
    scene.from = {x0, curve.y(x0)};
    scene.to = {x1, curve.y(x1)};
    scene.centre = curve.polyline(0, width - 1, 0.0);

    if (kind == TraceSceneKind::TexturedBoundary) {
        scene.name = "textured boundary";
        scene.edges = {scene.centre};
        // Upper texture: fine stripes; lower texture: blotches (smoothed noise) at a brighter mean level.
        const double angle = std::numbers::pi * uni(rng);
        const double ca = std::cos(angle), sa = std::sin(angle);
        std::vector<double> blotch(v.size());
        for (auto& b : blotch) b = noise(rng);
        std::vector<double> smooth(v.size());
        for (int y = 0; y < height; ++y)
            for (int x = 0; x < width; ++x) {
                double sum = 0.0;
                int count = 0;
                for (int j = std::max(0, y - 3); j <= std::min(height - 1, y + 3); ++j)
                    for (int i = std::max(0, x - 3); i <= std::min(width - 1, x + 3); ++i, ++count)
                        sum += blotch[static_cast<std::size_t>(j) * width + i];
                smooth[static_cast<std::size_t>(y) * width + x] = sum / count;
            }
        for (int y = 0; y < height; ++y)
            for (int x = 0; x < width; ++x) {
                const std::size_t i = static_cast<std::size_t>(y) * width + x;
                const double below = std::clamp(0.5 + curve.distance(x, y), 0.0, 1.0);
                const double upper = -20 + 8 * std::sin((ca * x + sa * y) * 2 * std::numbers::pi / 7.0);
                const double lower = 35 + 40 * smooth[i];
                v[i] += (1 - below) * upper + below * lower;
            }
    } else {
        const bool bright = kind == TraceSceneKind::BrightRoad;
        scene.name = std::string(bright ? "bright road" : "dark river") + " width " + std::to_string(lineWidth).substr(0, 3);
        scene.edges = {curve.polyline(0, width - 1, -lineWidth / 2), curve.polyline(0, width - 1, lineWidth / 2)};
        const double contrast = bright ? 60.0 : -60.0;
        for (int y = 0; y < height; ++y)
            for (int x = 0; x < width; ++x)
                v[static_cast<std::size_t>(y) * width + x] += contrast * coverage(curve.distance(x, y), lineWidth / 2);
    }

    // Clutter: blobs away from the true line, and short straight lines anywhere (some cross it).
    for (int b = 0; b < 14; ++b) {
        const double cx = width * uni(rng), cy = height * uni(rng), r = 3 + 5 * uni(rng);
        const double amp = (uni(rng) < 0.5 ? -1 : 1) * (30 + 30 * uni(rng));
        if (std::fabs(curve.distance(cx, cy)) < r * 3 + lineWidth + 6) continue;
        for (int y = std::max(0, int(cy - 3 * r)); y < std::min(height, int(cy + 3 * r) + 1); ++y)
            for (int x = std::max(0, int(cx - 3 * r)); x < std::min(width, int(cx + 3 * r) + 1); ++x)
                v[static_cast<std::size_t>(y) * width + x] +=
                    amp * std::exp(-((x - cx) * (x - cx) + (y - cy) * (y - cy)) / (2 * r * r));
    }
    for (int l = 0; l < 6; ++l) {
        const TracePoint p{width * uni(rng), height * uni(rng)};
        const double angle = std::numbers::pi * uni(rng), len = 30 + 50 * uni(rng);
        const TracePoint q{p.x + len * std::cos(angle), p.y + len * std::sin(angle)};
        const double half = 0.5 + 1.5 * uni(rng), amp = (uni(rng) < 0.5 ? -1 : 1) * (25 + 15 * uni(rng));
        for (int y = 0; y < height; ++y)
            for (int x = 0; x < width; ++x) {
                const double dist = distanceToSegment({double(x), double(y)}, p, q);
                if (dist < half + 1) v[static_cast<std::size_t>(y) * width + x] += amp * coverage(dist, half);
            }
    }

    std::vector<std::uint8_t> pixels(v.size());
    for (std::size_t i = 0; i < v.size(); ++i)
        pixels[i] = static_cast<std::uint8_t>(std::clamp(std::lround(v[i] + 10 * noise(rng)), 0L, 255L));
    scene.image = Image::fromSamples<std::uint8_t>(width, height, std::move(pixels));
    scene.image.meta.format = "synthetic";
    return scene;
}

double meanDistanceToPolylines(const std::vector<TracePoint>& path, const std::vector<std::vector<TracePoint>>& truth,
                               double step) {
    double sum = 0.0;
    std::size_t count = 0;
    auto nearest = [&](TracePoint p) {
        double best = std::numeric_limits<double>::infinity();
        for (const auto& line : truth)
            for (std::size_t i = 0; i + 1 < line.size(); ++i) best = std::min(best, distanceToSegment(p, line[i], line[i + 1]));
        return best;
    };
    for (std::size_t i = 0; i + 1 < path.size(); ++i) {
        const double len = std::hypot(path[i + 1].x - path[i].x, path[i + 1].y - path[i].y);
        const int samples = std::max(1, static_cast<int>(std::ceil(len / step)));
        for (int s = 0; s < samples; ++s) {
            const double t = static_cast<double>(s) / samples;
            sum += nearest({path[i].x + t * (path[i + 1].x - path[i].x), path[i].y + t * (path[i + 1].y - path[i].y)});
            ++count;
        }
    }
    if (!path.empty()) {
        sum += nearest(path.back());
        ++count;
    }
    return count ? sum / count : 0.0;
}

} // namespace glint
