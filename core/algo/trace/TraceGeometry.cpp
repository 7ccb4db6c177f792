#include "core/algo/trace/TraceGeometry.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace glint {

namespace {

SegmentShape makeShape(double dx, double dy, double length) {
    SegmentShape shape;
    shape.samples = std::max(1, static_cast<int>(std::ceil(length - 1e-6)));
    shape.weight = length / shape.samples;
    shape.length = length;
    shape.stepX = dx / shape.samples;
    shape.stepY = dy / shape.samples;
    shape.dirX = dx / length;
    shape.dirY = dy / length;
    return shape;
}

} // namespace

SegmentShape segmentShape(double dx, double dy) { return makeShape(dx, dy, std::sqrt(dx * dx + dy * dy)); }

TraceGeometry::TraceGeometry(TracePoint a, TracePoint b, const TraceParams& params, bool withTurns)
    : a_(a), b_(b), n_(params.guides), d_(params.points) {
    const double dx = b.x - a.x;
    const double dy = b.y - a.y;
    const double length = std::sqrt(dx * dx + dy * dy);
    ux_ = dx / length;
    uy_ = dy / length;
    px_ = -uy_;
    py_ = ux_;
    w_ = traceHalfWidth(a, b, params);
    s_ = 2.0 * w_ / (d_ - 1);
    h_ = length / (n_ + 1);
    limit_ = params.maxAngleDeg * std::numbers::pi / 180.0 + 1e-9;

    // Interior segments depend on the offset delta = x - c alone: h along ab, delta * s across it.
    interior_.resize(2 * d_ - 1);
    for (int delta = -(d_ - 1); delta <= d_ - 1; ++delta) {
        const double across = delta * s_;
        interior_[delta + d_ - 1] =
            makeShape(h_ * ux_ + across * px_, h_ * uy_ + across * py_, std::sqrt(h_ * h_ + across * across));
    }
    first_.resize(d_);
    last_.resize(d_);
    for (int i = 0; i < d_; ++i) {
        const double t = offset(i);
        const double len = std::sqrt(h_ * h_ + t * t);
        first_[i] = makeShape(h_ * ux_ + t * px_, h_ * uy_ + t * py_, len);
        last_[i] = makeShape(h_ * ux_ - t * px_, h_ * uy_ - t * py_, len);
    }
    double samples = 0.0;
    for (int delta = -(d_ - 1); delta <= d_ - 1; ++delta)
        samples += static_cast<double>(d_ - std::abs(delta)) * interiorShape(delta).samples;
    samplesPerTransition_ = samples;
    if (withTurns) computeTurns();
}

void TraceGeometry::computeTurns() {
    if (turns_) return;
    interiorAngle_.resize(2 * d_ - 1);
    // Angles built from the non-negative half and mirrored, then forced non-decreasing, so that the
    // interval form of the turn test is exact whatever the last bit of atan2 does.
    for (int delta = 0; delta <= d_ - 1; ++delta) {
        double angle = std::atan2(delta * s_, h_);
        if (delta > 0) angle = std::max(angle, interiorAngle_[delta - 1 + d_ - 1]);
        interiorAngle_[delta + d_ - 1] = angle;
        interiorAngle_[-delta + d_ - 1] = -angle;
    }
    firstAngle_.resize(d_);
    lastAngle_.resize(d_);
    for (int i = 0; i < d_; ++i) {
        firstAngle_[i] = std::atan2(offset(i), h_);
        if (i > 0) firstAngle_[i] = std::max(firstAngle_[i], firstAngle_[i - 1]);
    }
    for (int i = 0; i < d_; ++i) lastAngle_[i] = -firstAngle_[i];

    // Interior turns: for the outgoing offset delta, incoming offsets m with angle(m) in
    // [angle(delta) - theta, angle(delta) + theta]. angle(m) is non-decreasing, so each end of that range is
    // the first m where a monotone test flips, and both ends only move up as delta (or c below) grows: one
    // sweep each, with branches that predict well (binary searches mispredicted half their steps).
    const int lo = -(d_ - 1), hi = d_ - 1;
    const double limit = limit_;
    incoming_.resize(2 * d_ - 1);
    for (int delta = lo, mLo = lo, mEnd = lo; delta <= hi; ++delta) {
        const double out = interiorAngle(delta);
        while (out - interiorAngle(mLo) > limit) ++mLo;                      // stops at m = delta at the latest
        if (mEnd < mLo) mEnd = mLo;
        while (mEnd <= hi && out - interiorAngle(mEnd) >= -limit) ++mEnd;   // first m past the range
        incoming_[delta + d_ - 1] = {mLo, mEnd - 1};
    }
    firstNext_.resize(d_);
    lastPrev_.resize(d_);
    // After a -> q_{1,c}: outgoing offsets delta with angle(delta) - in in [-theta, theta]; in grows with c.
    for (int c = 0, dLo = lo, dEnd = lo; c < d_; ++c) {
        const double in = firstAngle_[c];
        while (dLo <= hi && interiorAngle(dLo) - in < -limit) ++dLo;
        if (dEnd < dLo) dEnd = dLo;
        while (dEnd <= hi && interiorAngle(dEnd) - in <= limit) ++dEnd;
        firstNext_[c] = {std::max(0, c + dLo), std::min(d_ - 1, c + dEnd - 1)};
    }
    // Before q_{n,c} -> b: incoming offsets m = c - p with out - angle(m) in [-theta, theta]; out grows as c
    // falls, so sweep c downwards.
    for (int c = d_ - 1, mLo = lo, mEnd = lo; c >= 0; --c) {
        const double out = lastAngle_[c];
        while (mLo <= hi && out - interiorAngle(mLo) > limit) ++mLo;
        if (mEnd < mLo) mEnd = mLo;
        while (mEnd <= hi && out - interiorAngle(mEnd) >= -limit) ++mEnd;
        lastPrev_[c] = {std::max(0, c - (mEnd - 1)), std::min(d_ - 1, c - mLo)};
    }
    turns_ = true;
}

IndexRange TraceGeometry::usedSuccessors(int k, int c) const {
    IndexRange r{0, d_ - 1};
    if (k == 1) {
        const IndexRange f = firstNext_[c];
        r = {std::max(r.lo, f.lo), std::min(r.hi, f.hi)};
    }
    if (k == n_ - 1) {
        // lastPrev_[x] = [lo(x), hi(x)], both ends non-decreasing in x: the x whose range holds c form one
        // interval, from the first x with hi(x) >= c to the last with lo(x) <= c.
        const auto first = std::partition_point(lastPrev_.begin(), lastPrev_.end(),
                                                [&](const IndexRange& p) { return p.hi < c; });
        const auto past = std::partition_point(lastPrev_.begin(), lastPrev_.end(),
                                               [&](const IndexRange& p) { return p.lo <= c; });
        r = {std::max(r.lo, static_cast<int>(first - lastPrev_.begin())),
             std::min(r.hi, static_cast<int>(past - lastPrev_.begin()) - 1)};
    }
    return r;
}

double TraceGeometry::usedInteriorSamples() const {
    if (n_ < 2) return 0.0;
    double samples = n_ > 3 ? (n_ - 3) * samplesPerTransition_ : 0.0; // the middle transitions, in full
    const std::vector<int> ends = n_ == 2 ? std::vector<int>{1} : std::vector<int>{1, n_ - 1};
    for (int k : ends)
        for (int c = 0; c < d_; ++c) {
            const IndexRange r = usedSuccessors(k, c);
            for (int x = r.lo; x <= r.hi; ++x) samples += interiorShape(x - c).samples;
        }
    return samples;
}

TracePoint TraceGeometry::point(int guide, int index) const {
    if (guide <= 0) return a_;
    if (guide >= n_ + 1) return b_;
    const double f = static_cast<double>(guide) / (n_ + 1);
    const double t = offset(index);
    return {a_.x + f * (b_.x - a_.x) + t * px_, a_.y + f * (b_.y - a_.y) + t * py_};
}

namespace {

// floor(v) for v in [-2, 2^62): truncation, one less for negative non-integers.
long long floorToInteger(double v) {
    const auto i = static_cast<long long>(v);
    return i - (v < static_cast<double>(i) ? 1 : 0);
}

double cornerScore(const TraceField& field, long long x, long long y, double vx, double vy) {
    if (x < 0 || y < 0 || x >= field.width() || y >= field.height()) return 0.0;
    const float* g = field.vectors() + 2 * (y * field.width() + x);
    return std::fabs(static_cast<double>(g[0]) * vy - static_cast<double>(g[1]) * vx);
}

} // namespace

double segmentScoreExact(const TraceField& field, TracePoint start, const SegmentShape& shape) {
    double sum = 0.0;
    const double right = field.width() + 2.0, bottom = field.height() + 2.0;
    for (int m = 0; m < shape.samples; ++m) {
        const double x = start.x + (m + 0.5) * shape.stepX;
        const double y = start.y + (m + 0.5) * shape.stepY;
        // Far outside the image every corner is zero (floor(x) < -2 or > W + 1, likewise y); the bound also
        // keeps the integer conversion defined. Inside it, floor by conversion: std::floor is a library call
        // on the baseline x86-64 target (no SSE4.1), and this loop runs for every leg (assemble, confidence).
        if (!(x >= -2.0 && y >= -2.0 && x < right && y < bottom)) continue;
        const auto ix = floorToInteger(x), iy = floorToInteger(y);
        const double fx = x - static_cast<double>(ix), fy = y - static_cast<double>(iy);
        const double c00 = cornerScore(field, ix, iy, shape.dirX, shape.dirY);
        const double c10 = cornerScore(field, ix + 1, iy, shape.dirX, shape.dirY);
        const double c01 = cornerScore(field, ix, iy + 1, shape.dirX, shape.dirY);
        const double c11 = cornerScore(field, ix + 1, iy + 1, shape.dirX, shape.dirY);
        sum += (1 - fy) * ((1 - fx) * c00 + fx * c10) + fy * ((1 - fx) * c01 + fx * c11);
    }
    return sum * shape.weight;
}

double pathLength(const TraceGeometry& geometry, const std::vector<int>& indices) {
    const int n = geometry.guides();
    double length = geometry.firstShape(indices[0]).length + geometry.lastShape(indices[n - 1]).length;
    for (int k = 1; k < n; ++k) length += geometry.interiorShape(indices[k] - indices[k - 1]).length;
    return length;
}

TraceLeg assembleLeg(const TraceField& field, const TraceGeometry& geometry, const std::vector<int>& indices,
                     double optimumScore) {
    const int n = geometry.guides();
    TraceLeg leg;
    leg.from = geometry.a();
    leg.to = geometry.b();
    leg.halfWidth = geometry.halfWidth();
    leg.guideIndices = indices;
    leg.optimumScore = optimumScore;
    leg.points.push_back(geometry.a());
    for (int k = 1; k <= n; ++k) leg.points.push_back(geometry.point(k, indices[k - 1]));
    leg.points.push_back(geometry.b());
    for (int k = 0; k <= n; ++k) {
        const SegmentShape& shape = k == 0   ? geometry.firstShape(indices[0])
                                    : k == n ? geometry.lastShape(indices[n - 1])
                                             : geometry.interiorShape(indices[k] - indices[k - 1]);
        leg.segmentScores.push_back(segmentScoreExact(field, leg.points[k], shape));
        leg.score += leg.segmentScores.back();
    }
    leg.length = pathLength(geometry, indices);
    leg.meanScore = leg.score / leg.length;
    return leg;
}

} // namespace glint
