#include "scenes/TraceScenes.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <random>
#include <string>

#include "core/jobs/Backend.h"
#include "core/jobs/JobControl.h"
#include "core/util/Errors.h"

#include <chrono>

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

// The mean over the 7 x 7 box about each pixel (clipped at the borders): noise smoothed into blotches.
std::vector<double> boxMean7(const std::vector<double>& in, int width, int height) {
    std::vector<double> out(in.size());
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            double sum = 0.0;
            int count = 0;
            for (int j = std::max(0, y - 3); j <= std::min(height - 1, y + 3); ++j)
                for (int i = std::max(0, x - 3); i <= std::min(width - 1, x + 3); ++i, ++count)
                    sum += in[static_cast<std::size_t>(j) * width + i];
            out[static_cast<std::size_t>(y) * width + x] = sum / count;
        }
    return out;
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
        const std::vector<double> smooth = boxMean7(blotch, width, height);
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
    scene.trueFrom = scene.from;
    scene.trueTo = scene.to;
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

// ---- evaluation scenes ----------------------------------------------------------------------------------

namespace {

// A float canvas; strokes add amplitude x coverage, where a pixel's coverage is the largest over the
// stroke's segments (so joints are not painted twice).
struct Canvas {
    int width, height;
    std::vector<double> v;
    double& at(int x, int y) { return v[static_cast<std::size_t>(y) * width + x]; }

    // A polyline of per-vertex half-widths (a tapering inlet), anti-aliased.
    void stroke(const std::vector<TracePoint>& line, const std::vector<double>& halves, double amplitude) {
        std::vector<double> cover(v.size(), 0.0);
        for (std::size_t i = 0; i + 1 < line.size(); ++i) {
            const TracePoint a = line[i], b = line[i + 1];
            const double reach = std::max(halves[i], halves[i + 1]) + 1.5;
            const int xa = std::max(0, static_cast<int>(std::floor(std::min(a.x, b.x) - reach)));
            const int xb = std::min(width - 1, static_cast<int>(std::ceil(std::max(a.x, b.x) + reach)));
            const int ya = std::max(0, static_cast<int>(std::floor(std::min(a.y, b.y) - reach)));
            const int yb = std::min(height - 1, static_cast<int>(std::ceil(std::max(a.y, b.y) + reach)));
            const double dx = b.x - a.x, dy = b.y - a.y, len2 = dx * dx + dy * dy;
            for (int y = ya; y <= yb; ++y)
                for (int x = xa; x <= xb; ++x) {
                    double t = len2 > 0 ? ((x - a.x) * dx + (y - a.y) * dy) / len2 : 0.0;
                    t = std::clamp(t, 0.0, 1.0);
                    const double dist = std::hypot(x - (a.x + t * dx), y - (a.y + t * dy));
                    const double half = halves[i] + t * (halves[i + 1] - halves[i]);
                    double& c = cover[static_cast<std::size_t>(y) * width + x];
                    c = std::max(c, coverage(dist, half));
                }
        }
        for (std::size_t i = 0; i < v.size(); ++i) v[i] += amplitude * cover[i];
    }
    void stroke(const std::vector<TracePoint>& line, double half, double amplitude) {
        stroke(line, std::vector<double>(line.size(), half), amplitude);
    }
};

double distanceToLine(TracePoint p, const std::vector<TracePoint>& line) {
    double best = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i + 1 < line.size(); ++i) best = std::min(best, distanceToSegment(p, line[i], line[i + 1]));
    return best;
}

// The polyline at signed offset `offset` from `line` (normals from neighbouring points).
std::vector<TracePoint> offsetLine(const std::vector<TracePoint>& line, double offset) {
    std::vector<TracePoint> out;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const TracePoint p = line[i == 0 ? 0 : i - 1], q = line[std::min(line.size() - 1, i + 1)];
        const double len = std::hypot(q.x - p.x, q.y - p.y);
        out.push_back({line[i].x - offset * (q.y - p.y) / len, line[i].y + offset * (q.x - p.x) / len});
    }
    return out;
}

std::vector<TracePoint> straightLine(TracePoint a, TracePoint b, double step = 0.5) {
    const int count = std::max(1, static_cast<int>(std::ceil(std::hypot(b.x - a.x, b.y - a.y) / step)));
    std::vector<TracePoint> out;
    for (int i = 0; i <= count; ++i) {
        const double t = static_cast<double>(i) / count;
        out.push_back({a.x + t * (b.x - a.x), a.y + t * (b.y - a.y)});
    }
    return out;
}

// The point of `line` nearest to x (the lines here are functions of x near the clicks).
TracePoint atX(const std::vector<TracePoint>& line, double x) {
    return *std::min_element(line.begin(), line.end(),
                             [&](TracePoint p, TracePoint q) { return std::fabs(p.x - x) < std::fabs(q.x - x); });
}

} // namespace

const char* traceEvalKindName(TraceEvalKind kind) {
    switch (kind) {
    case TraceEvalKind::ParallelRoads: return "parallel roads";
    case TraceEvalKind::StreetGrid: return "street grid";
    case TraceEvalKind::Meander: return "meander";
    case TraceEvalKind::FaintTrack: return "faint track by edge";
    case TraceEvalKind::RiverInlets: return "river inlets";
    }
    return "parallel roads";
}

std::string traceEvalCaseName(const TraceEvalCase& c) {
    char text[96];
    std::snprintf(text, sizeof text, "%s, %s width %g, seed %u", traceEvalKindName(c.kind), c.bright ? "bright" : "dark",
                  c.lineWidth, static_cast<unsigned>(c.seed));
    return text;
}

TraceScene makeEvaluationScene(const TraceEvalCase& c) {
    if (!(c.lineWidth >= 1.0 && c.lineWidth <= 40.0)) throw UsageError("evaluation scenes take widths of 1 to 40 px");
    const int width = 480, height = 360;
    std::mt19937 rng(c.seed * 2654435761u + static_cast<std::uint32_t>(c.kind) * 97u + 1u);
    std::uniform_real_distribution<double> uni(0.0, 1.0);
    std::normal_distribution<double> noise(0.0, 1.0);
    const double sign = c.bright ? 1.0 : -1.0;
    const double half = c.lineWidth / 2;

    Canvas canvas{width, height, std::vector<double>(static_cast<std::size_t>(width) * height)};
    const double gx = (uni(rng) - 0.5) * 0.08, gy = (uni(rng) - 0.5) * 0.08;
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x)
            canvas.at(x, y) =
                120 + gx * (x - width / 2.0) + gy * (y - height / 2.0) + 10 * std::sin(x / 37.0) * std::cos(y / 53.0);

    TraceScene scene;
    scene.name = traceEvalCaseName(c);
    const double x0 = 0.12 * width, x1 = 0.88 * width;
    const Curve curve{height / 2.0 + (uni(rng) - 0.5) * 0.2 * height, 10 + 15 * uni(rng), 450 + 200 * uni(rng),
                      2 * std::numbers::pi * uni(rng)};
    switch (c.kind) {
    case TraceEvalKind::ParallelRoads: {
        scene.centre = curve.polyline(-20, width + 20, 0.0);
        const double spacing = std::max(10 + 30 * uni(rng), c.lineWidth + 4);
        const double side = uni(rng) < 0.5 ? -1.0 : 1.0;
        canvas.stroke(scene.centre, half, sign * 60);
        canvas.stroke(curve.polyline(-20, width + 20, side * spacing), half, sign * 60 * (0.8 + 0.2 * uni(rng)));
        break;
    }
    case TraceEvalKind::StreetGrid: {
        const double angle = (uni(rng) - 0.5) * std::numbers::pi / 6; // +-15 degrees
        const double ca = std::cos(angle), sa = std::sin(angle);
        const double gapX = 45 + 25 * uni(rng), gapY = 45 + 25 * uni(rng);
        const double phaseX = gapX * uni(rng), phaseY = gapY * uni(rng);
        const TracePoint o{width / 2.0, height / 2.0};
        auto map = [&](double u, double v) { return TracePoint{o.x + ca * u - sa * v, o.y + sa * u + ca * v}; };
        for (int j = -10; j <= 10; ++j) {
            const double v = j * gapY + phaseY - gapY / 2; // streets along u (the target is one of them)
            const auto line = straightLine(map(-600, v), map(600, v), 4.0);
            canvas.stroke(line, half, sign * 60);
            if (j == 0) scene.centre = straightLine(map(-600, v), map(600, v), 0.5);
            const double u = j * gapX + phaseX - gapX / 2; // cross streets
            canvas.stroke(straightLine(map(u, -600), map(u, 600), 4.0), half, sign * 60);
        }
        break;
    }
    case TraceEvalKind::Meander: {
        const double length = x1 - x0;
        const double amplitude = (0.28 + 0.12 * uni(rng)) * length * (uni(rng) < 0.5 ? -1.0 : 1.0);
        const double cy = height / 2.0 - amplitude / 2;
        for (double x = -20; x <= width + 20; x += 0.5) {
            const double y = x <= x0 || x >= x1 ? cy : cy + amplitude * std::sin(std::numbers::pi * (x - x0) / length);
            scene.centre.push_back({x, y});
        }
        canvas.stroke(scene.centre, half, sign * 60);
        break;
    }
    case TraceEvalKind::FaintTrack: {
        scene.centre = curve.polyline(-20, width + 20, 0.0);
        // Texture: smoothed noise blotches.
        std::vector<double> blotch(canvas.v.size());
        for (auto& b : blotch) b = noise(rng);
        const std::vector<double> smooth = boxMean7(blotch, width, height);
        for (std::size_t i = 0; i < canvas.v.size(); ++i) canvas.v[i] += 40 * smooth[i];
        canvas.stroke(scene.centre, half, sign * 22);
        // The strong edge: beyond it the image steps by 90 in the track's own polarity.
        const double side = uni(rng) < 0.5 ? -1.0 : 1.0;
        const double at = half + 6 + 7 * uni(rng);
        for (int y = 0; y < height; ++y)
            for (int x = 0; x < width; ++x) {
                const double beyond = side * curve.distance(x, y) - at;
                canvas.at(x, y) += sign * 90 * std::clamp(0.5 + beyond, 0.0, 1.0);
            }
        break;
    }
    case TraceEvalKind::RiverInlets: {
        scene.centre = curve.polyline(-20, width + 20, 0.0);
        canvas.stroke(scene.centre, half, sign * 60);
        const int inlets = 4 + static_cast<int>(rng() % 3);
        for (int i = 0; i < inlets; ++i) {
            const double x = x0 + 30 + (x1 - x0 - 60) * (i + 0.2 + 0.6 * uni(rng)) / inlets;
            const double slope = curve.slope(x), len = std::sqrt(1 + slope * slope);
            const double tx = 1 / len, ty = slope / len;                 // along the river
            const double side = uni(rng) < 0.5 ? -1.0 : 1.0;
            const double turn = (30 + 40 * uni(rng)) * std::numbers::pi / 180 * (uni(rng) < 0.5 ? -1.0 : 1.0);
            // Direction: the river's, turned by `turn` towards `side`.
            const double nx = -ty * side, ny = tx * side;
            const double ct = std::cos(std::fabs(turn)), st = std::sin(std::fabs(turn));
            const double dirSign = turn < 0 ? -1.0 : 1.0; // forward or backward along the river
            const double dx = dirSign * ct * tx + st * nx, dy = dirSign * ct * ty + st * ny;
            const double reach = 30 + 50 * uni(rng);
            const TracePoint from{x, curve.y(x)};
            std::vector<TracePoint> line;
            std::vector<double> halves;
            const double bend = (uni(rng) - 0.5) * 0.6;
            for (int k = 0; k <= 20; ++k) {
                const double t = k / 20.0 * reach;
                const double curl = bend * t * t / reach; // a gentle bend
                line.push_back({from.x + t * dx - curl * dy, from.y + t * dy + curl * dx});
                halves.push_back(std::max(0.75, half * (0.9 - 0.6 * k / 20.0)));
            }
            canvas.stroke(line, halves, sign * 60);
        }
        break;
    }
    }
    scene.edges = {offsetLine(scene.centre, -half), offsetLine(scene.centre, half)};

    // Clutter away from the target: blobs and short lines.
    for (int b = 0; b < 10; ++b) {
        const double cx = width * uni(rng), cy = height * uni(rng), r = 3 + 5 * uni(rng);
        const double amp = (uni(rng) < 0.5 ? -1 : 1) * (30 + 30 * uni(rng));
        if (distanceToLine({cx, cy}, scene.centre) < r * 3 + c.lineWidth + 6) continue;
        for (int y = std::max(0, int(cy - 3 * r)); y < std::min(height, int(cy + 3 * r) + 1); ++y)
            for (int x = std::max(0, int(cx - 3 * r)); x < std::min(width, int(cx + 3 * r) + 1); ++x)
                canvas.at(x, y) += amp * std::exp(-((x - cx) * (x - cx) + (y - cy) * (y - cy)) / (2 * r * r));
    }
    for (int l = 0; l < 5; ++l) {
        const TracePoint p{width * uni(rng), height * uni(rng)};
        const double angle = std::numbers::pi * uni(rng), len = 20 + 30 * uni(rng);
        const TracePoint q{p.x + len * std::cos(angle), p.y + len * std::sin(angle)};
        if (distanceToLine(p, scene.centre) < len + c.lineWidth + 6) continue;
        canvas.stroke({p, q}, 0.5 + 1.5 * uni(rng), (uni(rng) < 0.5 ? -1 : 1) * (25 + 15 * uni(rng)));
    }

    std::vector<std::uint8_t> pixels(canvas.v.size());
    for (std::size_t i = 0; i < canvas.v.size(); ++i)
        pixels[i] = static_cast<std::uint8_t>(std::clamp(std::lround(canvas.v[i] + 10 * noise(rng)), 0L, 255L));
    scene.image = Image::fromSamples<std::uint8_t>(width, height, std::move(pixels));
    scene.image.meta.format = "synthetic";

    // The clicks: on the centre line at x0 and x1 (the grid street: where it crosses them), then jittered.
    if (c.kind == TraceEvalKind::StreetGrid) {
        scene.trueFrom = atX(scene.centre, x0 + 10);
        scene.trueTo = atX(scene.centre, x1 - 10);
    } else {
        scene.trueFrom = atX(scene.centre, x0);
        scene.trueTo = atX(scene.centre, x1);
    }
    std::mt19937 jr(c.seed * 7919u + 13u + static_cast<std::uint32_t>(c.kind));
    std::uniform_real_distribution<double> shift(-c.jitter, c.jitter);
    auto inside = [&](TracePoint p) {
        return TracePoint{std::clamp(p.x, 0.0, width - 1.0), std::clamp(p.y, 0.0, height - 1.0)};
    };
    scene.from = inside({scene.trueFrom.x + shift(jr), scene.trueFrom.y + shift(jr)});
    scene.to = inside({scene.trueTo.x + shift(jr), scene.trueTo.y + shift(jr)});
    return scene;
}

TraceDistance distanceToPolyline(const std::vector<TracePoint>& path, const std::vector<TracePoint>& truth, double step) {
    TraceDistance out;
    std::size_t count = 0;
    auto add = [&](TracePoint p) {
        const double d = distanceToLine(p, truth);
        out.mean += d;
        out.max = std::max(out.max, d);
        ++count;
    };
    for (std::size_t i = 0; i + 1 < path.size(); ++i) {
        const double len = std::hypot(path[i + 1].x - path[i].x, path[i + 1].y - path[i].y);
        const int samples = std::max(1, static_cast<int>(std::ceil(len / step)));
        for (int s = 0; s < samples; ++s) {
            const double t = static_cast<double>(s) / samples;
            add({path[i].x + t * (path[i + 1].x - path[i].x), path[i].y + t * (path[i + 1].y - path[i].y)});
        }
    }
    if (!path.empty()) add(path.back());
    if (count) out.mean /= static_cast<double>(count);
    return out;
}

TraceEvalOutcome evaluateTraceCase(const TraceEvalCase& c, const TraceParams& params, Backend backend) {
    const TraceScene scene = makeEvaluationScene(c);
    TraceFieldOptions options;
    options.score = TraceScore::Ridge;
    options.lineWidth = c.lineWidth;
    options.polarity = c.bright ? TracePolarity::Bright : TracePolarity::Dark;
    auto tracer = BackendRegistry<LineTracer>::create(backend);
    JobControl setup;
    tracer->setField(TraceField::compute(scene.image, options), setup);
    TraceEvalOutcome out;
    JobControl job;
    const auto start = std::chrono::steady_clock::now();
    out.leg = tracer->trace(scene.from, scene.to, params, job);
    out.traceMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    out.distance = distanceToPolyline(out.leg.points, scene.centre);
    return out;
}

} // namespace glint
