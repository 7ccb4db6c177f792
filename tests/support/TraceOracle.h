// An independent oracle for the trace tests (cpu and gpu): guide points, segment scores and turns computed
// straight from DESIGN.md's definition, and a brute force over every path a, q_1..q_n, b.
#pragma once

#include "core/algo/trace/LineTrace.h"

#include <QtTest>

#include <cmath>
#include <limits>
#include <numbers>
#include <random>
#include <vector>

namespace glint::test {

struct BruteGuides {
    TracePoint a, b;
    int n = 0, d = 0;
    double w = 0.0;
    double ux = 0, uy = 0, px = 0, py = 0, length = 0;

    BruteGuides(TracePoint a_, TracePoint b_, const TraceParams& params) : a(a_), b(b_), n(params.guides), d(params.points) {
        length = std::hypot(b.x - a.x, b.y - a.y);
        ux = (b.x - a.x) / length;
        uy = (b.y - a.y) / length;
        px = -uy;
        py = ux;
        w = params.halfWidth > 0 ? params.halfWidth : std::max(8.0, length / 4);
    }
    TracePoint point(int k, int i) const {
        if (k == 0) return a;
        if (k == n + 1) return b;
        const double f = static_cast<double>(k) / (n + 1);
        const double t = -w + i * (2 * w / (d - 1));
        return {a.x + f * (b.x - a.x) + t * px, a.y + f * (b.y - a.y) + t * py};
    }
};

// Bilinear interpolation of |G x v| over the four pixels around (x, y); outside the image counts zero.
inline double oracleSample(const TraceField& field, double x, double y, double vx, double vy) {
    const double x0 = std::floor(x), y0 = std::floor(y);
    double sum = 0.0;
    for (int j = 0; j <= 1; ++j)
        for (int i = 0; i <= 1; ++i) {
            const double cx = x0 + i, cy = y0 + j;
            if (cx < 0 || cy < 0 || cx >= field.width() || cy >= field.height()) continue;
            const float* g = field.vectors() + 2 * (static_cast<std::size_t>(cy) * field.width() + static_cast<std::size_t>(cx));
            const double weight = (i ? x - x0 : 1 - (x - x0)) * (j ? y - y0 : 1 - (y - y0));
            sum += weight * std::fabs(g[0] * vy - g[1] * vx);
        }
    return sum;
}

// Samples at the midpoints of N = max(1, ceil(|PQ| - 1e-6)) equal parts, each weighted |PQ| / N.
inline double oracleSegment(const TraceField& field, TracePoint p, TracePoint q) {
    const double dx = q.x - p.x, dy = q.y - p.y, length = std::hypot(dx, dy);
    const int samples = std::max(1, static_cast<int>(std::ceil(length - 1e-6)));
    double sum = 0.0;
    for (int m = 0; m < samples; ++m) {
        const double t = (m + 0.5) / samples;
        sum += oracleSample(field, p.x + t * dx, p.y + t * dy, dx / length, dy / length);
    }
    return sum * length / samples;
}

// The angle limit as the library applies it: a tolerance of 1e-9 rad lets a turn of exactly theta through.
inline double turnLimitDegrees(const TraceParams& params) { return params.maxAngleDeg + 1e-9 * 180.0 / std::numbers::pi; }

// The turn at q between p -> q and q -> r, in degrees.
inline double turnDegrees(TracePoint p, TracePoint q, TracePoint r) {
    const double ax = q.x - p.x, ay = q.y - p.y, bx = r.x - q.x, by = r.y - q.y;
    return std::atan2(std::fabs(ax * by - ay * bx), ax * bx + ay * by) * 180.0 / std::numbers::pi;
}

// The objective's value of a path: its total score (sum) or its score per pixel of length (ratio).
inline double objectiveValue(const TraceLeg& leg, const TraceParams& params) {
    return params.objective == TraceObjective::Sum ? leg.score : leg.meanScore;
}

// The objective's best value over every path (every index tuple): the largest total score (sum) or the
// largest score per pixel of length (ratio); -inf when no path keeps its turns within the limit.
inline double bruteForceBest(const TraceField& field, TracePoint a, TracePoint b, const TraceParams& params) {
    const BruteGuides g(a, b, params);
    const int n = g.n, d = g.d;
    // Segment scores between guides k and k+1 for every pair (guide 0 = a, guide n+1 = b).
    std::vector<std::vector<double>> seg(n + 1);
    for (int k = 0; k <= n; ++k) {
        const int from = k == 0 ? 1 : d, to = k == n ? 1 : d;
        seg[k].resize(static_cast<std::size_t>(from) * to);
        for (int i = 0; i < from; ++i)
            for (int j = 0; j < to; ++j) seg[k][i * to + j] = oracleSegment(field, g.point(k, i), g.point(k + 1, j));
    }
    std::vector<int> idx(n, 0);
    double best = -std::numeric_limits<double>::infinity();
    for (;;) {
        bool ok = true;
        std::vector<TracePoint> pts{a};
        for (int k = 1; k <= n; ++k) pts.push_back(g.point(k, idx[k - 1]));
        pts.push_back(b);
        for (int k = 1; k <= n && ok; ++k) ok = turnDegrees(pts[k - 1], pts[k], pts[k + 1]) <= turnLimitDegrees(params);
        if (ok) {
            double s = seg[0][idx[0]] + seg[n][idx[n - 1]];
            for (int k = 1; k < n; ++k) s += seg[k][idx[k - 1] * d + idx[k]];
            double length = 0.0;
            for (int k = 0; k <= n; ++k) length += std::hypot(pts[k + 1].x - pts[k].x, pts[k + 1].y - pts[k].y);
            best = std::max(best, params.objective == TraceObjective::Sum ? s : s / length);
        }
        int k = 0;
        while (k < n && ++idx[k] == d) idx[k++] = 0;
        if (k == n) break;
    }
    return best;
}

// Checks a leg against the definition: its points on their guides, every turn within the limit, and its
// scores equal to the oracle's for that path.
inline void verifyLeg(const TraceField& field, const TraceLeg& leg, TracePoint a, TracePoint b, const TraceParams& params) {
    const BruteGuides g(a, b, params);
    QCOMPARE(static_cast<int>(leg.points.size()), g.n + 2);
    QCOMPARE(static_cast<int>(leg.segmentScores.size()), g.n + 1);
    QCOMPARE(static_cast<int>(leg.guideIndices.size()), g.n);
    QCOMPARE(leg.points.front().x, a.x);
    QCOMPARE(leg.points.back().y, b.y);
    const double scale = std::max(1.0, g.length + g.w);
    for (int k = 1; k <= g.n; ++k) {
        const TracePoint q = leg.points[k];
        const double along = (q.x - a.x) * g.ux + (q.y - a.y) * g.uy;
        const double across = (q.x - a.x) * g.px + (q.y - a.y) * g.py;
        QVERIFY2(std::fabs(along - g.length * k / (g.n + 1)) < 1e-9 * scale, "a point is off its guide");
        const double index = (across + g.w) / (2 * g.w / (g.d - 1));
        QVERIFY2(std::fabs(index - std::round(index)) < 1e-7 && std::round(index) >= 0 && std::round(index) <= g.d - 1,
                 "a point is not one of its guide's points");
        QCOMPARE(static_cast<int>(std::round(index)), leg.guideIndices[k - 1]);
        QVERIFY2(turnDegrees(leg.points[k - 1], q, leg.points[k + 1]) <= turnLimitDegrees(params) + 1e-9,
                 "a turn exceeds the limit");
    }
    double total = 0.0;
    for (int k = 0; k <= g.n; ++k) {
        const double s = oracleSegment(field, leg.points[k], leg.points[k + 1]);
        QVERIFY2(std::fabs(s - leg.segmentScores[k]) <= 1e-6 * std::max(1.0, std::fabs(s)), "segment score differs");
        total += s;
    }
    QVERIFY2(std::fabs(total - leg.score) <= 1e-6 * std::max(1.0, std::fabs(total)), "leg score is not the sum");
    double length = 0.0;
    for (int k = 0; k <= g.n; ++k)
        length += std::hypot(leg.points[k + 1].x - leg.points[k].x, leg.points[k + 1].y - leg.points[k].y);
    QVERIFY2(std::fabs(length - leg.length) <= 1e-9 * std::max(1.0, length), "leg length differs");
    QVERIFY2(std::fabs(total / length - leg.meanScore) <= 1e-6 * std::max(1.0, total / length), "mean score differs");
}

// A random field given directly (no filtering): values in [-range, range].
inline std::shared_ptr<const TraceField> randomField(int width, int height, std::mt19937& rng, double range = 50.0) {
    std::uniform_real_distribution<float> v(static_cast<float>(-range), static_cast<float>(range));
    std::vector<float> xy(2 * static_cast<std::size_t>(width) * height);
    for (auto& e : xy) e = v(rng);
    return TraceField::fromVectors(width, height, std::move(xy));
}

inline TracePoint randomPoint(int width, int height, std::mt19937& rng) {
    std::uniform_real_distribution<double> x(-0.5, width - 0.5), y(-0.5, height - 0.5);
    return {x(rng), y(rng)};
}

} // namespace glint::test
