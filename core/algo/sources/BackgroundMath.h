// The arithmetic of the background model that the host (Background.cpp, BackgroundClipping.cpp) and the device
// (cuda/BackgroundKernels.cuh) share, so that both give the same cells, knots and interpolated rows bit for bit:
// every double operation goes through bgAdd/bgSub/bgMul/bgDiv/bgSqrt (plain IEEE operations on the host,
// the round-to-nearest intrinsics on the device, so that neither side contracts a * b + c into an FMA; the
// host objects are built for baseline x86-64, which has no FMA, and test_background_map checks that a * b + c is
// not contracted there). The clipping's long sums are formed in one fixed order on both sides: 32 lanes
// (value k of a cell's good values, in row-major order, in lane k % 32, each lane in increasing k, starting
// at +0.0; a value left out adds +0.0, which leaves a lane's sum as it is), then a fixed tree (laneTreeSum,
// what a warp's __shfl_down_sync reduction forms in lane 0). The histogram holds counts only (exact in any
// order).
#pragma once

#include "core/algo/maxsub/OrderedKey.h"
#include "core/util/HostDevice.h"

#include <cstdint>

#if !defined(__CUDA_ARCH__)
#include <cmath>
#include <cstring>
#endif

namespace glint::bgmath {

GLINT_HD double bgAdd(double a, double b) {
#if defined(__CUDA_ARCH__)
    return __dadd_rn(a, b);
#else
    return a + b;
#endif
}
GLINT_HD double bgSub(double a, double b) {
#if defined(__CUDA_ARCH__)
    return __dsub_rn(a, b);
#else
    return a - b;
#endif
}
GLINT_HD double bgMul(double a, double b) {
#if defined(__CUDA_ARCH__)
    return __dmul_rn(a, b);
#else
    return a * b;
#endif
}
GLINT_HD double bgDiv(double a, double b) {
#if defined(__CUDA_ARCH__)
    return __ddiv_rn(a, b);
#else
    return a / b;
#endif
}
GLINT_HD double bgSqrt(double a) {
#if defined(__CUDA_ARCH__)
    return __dsqrt_rn(a);
#else
    return std::sqrt(a);
#endif
}
GLINT_HD double bgFloor(double a) {
#if defined(__CUDA_ARCH__)
    return floor(a);
#else
    return std::floor(a);
#endif
}
GLINT_HD double bgCeil(double a) {
#if defined(__CUDA_ARCH__)
    return ceil(a);
#else
    return std::ceil(a);
#endif
}
GLINT_HD double bgAbs(double a) { return a < 0.0 ? -a : a; }
// std::max(0.0, v) (0 unless v > 0; -0.0 gives +0.0), as the RMS clamp and the variance use it.
GLINT_HD double bgPositive(double v) { return 0.0 < v ? v : 0.0; }

// Order-preserving keys of doubles (-0 below +0): each bin's smallest and largest value (OrderedKey.h's).
GLINT_HD std::uint64_t bgKey(double v) { return orderedKey(v); }
GLINT_HD double bgValueOfKey(std::uint64_t k) {
    const std::uint64_t b = (k & 0x8000000000000000ull) ? (k & 0x7fffffffffffffffull) : ~k;
#if defined(__CUDA_ARCH__)
    return __longlong_as_double(static_cast<long long>(b));
#else
    double v;
    std::memcpy(&v, &b, sizeof(v));
    return v;
#endif
}

constexpr int kLanes = 32;      // the fixed lanes of the cells' sums
constexpr int kBins = 1024;     // histogram bins over +-kSpan sigma
constexpr double kSpan = 5.0;
constexpr int kRebuilds = 4;    // histograms made again around a much smaller sigma

// The fixed tree over the 32 lane sums (p is overwritten): p[l] += p[l + h] for h = 16, 8, 4, 2, 1, l < h
// (what a warp's __shfl_down_sync reduction forms in lane 0).
GLINT_HD double laneTreeSum(double* p) {
    for (int h = kLanes / 2; h >= 1; h /= 2)
        for (int l = 0; l < h; ++l) p[l] = bgAdd(p[l], p[l + h]);
    return p[0];
}

// Mean and sigma (population form) from sums s = sum d, ss = sum d^2 of n values d = v - shift.
GLINT_HD void meanSigma(double shift, double s, double ss, double n, double& mean, double& sigma) {
    const double m = bgDiv(s, n);
    mean = bgAdd(shift, m);
    sigma = bgSqrt(bgPositive(bgSub(bgDiv(ss, n), bgMul(m, m))));
}

// The histogram over centre +- kSpan width: its first edge and bin width.
GLINT_HD void histogramGeometry(double centre, double width, double& lo, double& binWidth) {
    lo = bgSub(centre, bgMul(kSpan, width));
    binWidth = bgDiv(bgMul(2.0 * kSpan, width), static_cast<double>(kBins));
}

// The bin of v: -1 below the histogram, kBins above it.
GLINT_HD int binOf(double v, double lo, double binWidth) {
    const double f = bgDiv(bgSub(v, lo), binWidth);
    if (f < 0.0) return -1;
    if (f >= static_cast<double>(kBins)) return kBins;
    return static_cast<int>(f);
}

// A bin index from a real position, clamped to -1..kBins+1 before the conversion (no overflow).
GLINT_HD int clampedIndex(double f) {
    if (!(f > -1.0)) return -1;
    if (f > static_cast<double>(kBins + 1)) return kBins + 1;
    return static_cast<int>(f);
}

// The bins b0..b1 of the clipping interval [median - k sigma, median + k sigma] (bins whose centre lies in
// it); when none, the median's bin.
GLINT_HD void clipBins(double median, double sigma, double clipSigma, double lo, double binWidth, int& b0, int& b1) {
    const double ks = bgMul(clipSigma, sigma);
    const double cl = bgSub(median, ks), ch = bgAdd(median, ks);
    int n0 = clampedIndex(bgCeil(bgSub(bgDiv(bgSub(cl, lo), binWidth), 0.5)));
    int n1 = clampedIndex(bgFloor(bgSub(bgDiv(bgSub(ch, lo), binWidth), 0.5)));
    n0 = n0 < 0 ? 0 : n0;
    n1 = n1 > kBins - 1 ? kBins - 1 : n1;
    if (n0 > n1) {
        int m = clampedIndex(bgDiv(bgSub(median, lo), binWidth));
        m = m < 0 ? 0 : m > kBins - 1 ? kBins - 1 : m;
        n0 = n1 = m;
    }
    b0 = n0;
    b1 = n1;
}

// Whether a bin's values (count h0, sums h1 of d and h2 of d^2, d = value - centre) are a single value up to
// rounding (integer data: bins narrower than 1 when sigma < ~100).
GLINT_HD bool binIsSpike(double h0, double h1, double h2, double binWidth) {
    const double m = bgDiv(h1, h0);
    return bgSub(bgDiv(h2, h0), bgMul(m, m)) <= bgMul(bgMul(1e-4, binWidth), binWidth);
}

// The mean of a bin's values from its count and sum of d.
GLINT_HD double binMean(double centre, double h0, double h1) { return bgAdd(centre, bgDiv(h1, h0)); }

// The median interpolated inside bin b (h values, inBin of them at or below the rank).
GLINT_HD double interpolatedMedian(double lo, int b, double inBin, double h, double binWidth) {
    return bgAdd(lo, bgMul(bgAdd(static_cast<double>(b), bgDiv(inBin, h)), binWidth));
}

// The median in bin b of the kept bins (count h, its sums h1 and h2; inBin of its values at or below the
// rank), as a single-valued bin gives it: the interpolated position unless the bin is a spike; a spike gives its
// mean, or when the rank ends exactly at its end the mean of it and the next nonempty kept bin q (count hq,
// sums q1, q2; q < 0: none; a next bin that is not a spike gives its lower edge). medianBin and medianNext
// say which bins the exact pass takes the first value of (-1: none).
GLINT_HD double medianOfBin(double centre, double lo, double binWidth, int b, double h, double h1, double h2, double inBin,
                            int q, double hq, double q1, double q2, int& medianBin, int& medianNext) {
    medianBin = medianNext = -1;
    if (!binIsSpike(h, h1, h2, binWidth)) return interpolatedMedian(lo, b, inBin, h, binWidth);
    medianBin = b;
    if (inBin < h || q < 0) return binMean(centre, h, h1);
    if (!binIsSpike(hq, q1, q2, binWidth)) {
        medianBin = -1;
        return bgMul(0.5, bgAdd(bgAdd(binMean(centre, h, h1), lo), bgMul(static_cast<double>(q), binWidth)));
    }
    medianNext = q;
    return bgMul(0.5, bgAdd(binMean(centre, h, h1), binMean(centre, hq, q1)));
}

GLINT_HD double halfSum(double a, double b) { return bgMul(0.5, bgAdd(a, b)); }

// The mode estimate of SExtractor and SEP: 2.5 median - 1.5 mean unless the clipped distribution is
// skewed (|mean - median| >= 0.3 sigma, a crowded cell), then the median.
GLINT_HD double modeOf(double mean, double median, double sigma) {
    if (!(sigma > 0.0)) return mean;
    return bgAbs(bgSub(mean, median)) < bgMul(0.3, sigma) ? bgSub(bgMul(2.5, median), bgMul(1.5, mean)) : median;
}

// ---- the natural cubic spline through the cell centres -------------------------------------------------

// The interval i of knot array x (n knots) with x[i] <= t < x[i+1], clamped to 0..n-2 (0 when n < 2).
GLINT_HD int intervalOf(const double* x, int n, double t) {
    if (n < 2) return 0;
    int lo = 0, hi = n; // upper_bound: the first knot > t
    while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (t < x[mid]) hi = mid;
        else lo = mid + 1;
    }
    int i = lo - 1;
    return i < 0 ? 0 : i > n - 2 ? n - 2 : i;
}

// Second derivatives of the natural cubic spline through (x[i], y[i * stride]), i < n, into d2[i * stride];
// u: n scratch values. With count > 1, the count splines through y[i * stride + c], c < count, side by side
// (d2[i * stride + c]; u: n * count values): each column's operations are the single spline's, in its order,
// and the columns' divisions overlap (the host's model solves all its cell columns in one call).
GLINT_HD void naturalSpline(const double* x, const double* y, int n, int stride, double* d2, double* u, int count = 1) {
    for (int i = 0; i < n; ++i)
        for (int c = 0; c < count; ++c) d2[i * stride + c] = 0.0;
    if (n < 3) return;
    for (int c = 0; c < count; ++c) u[c] = 0.0;
    for (int i = 1; i < n - 1; ++i) {
        const double sig = bgDiv(bgSub(x[i], x[i - 1]), bgSub(x[i + 1], x[i - 1]));
        const double hi = bgSub(x[i + 1], x[i]), lo = bgSub(x[i], x[i - 1]), span = bgSub(x[i + 1], x[i - 1]);
        for (int c = 0; c < count; ++c) {
            const double* yc = y + c;
            const double p = bgAdd(bgMul(sig, d2[(i - 1) * stride + c]), 2.0);
            d2[i * stride + c] = bgDiv(bgSub(sig, 1.0), p);
            const double dy = bgSub(bgDiv(bgSub(yc[(i + 1) * stride], yc[i * stride]), hi),
                                    bgDiv(bgSub(yc[i * stride], yc[(i - 1) * stride]), lo));
            u[i * count + c] = bgDiv(bgSub(bgDiv(bgMul(6.0, dy), span), bgMul(sig, u[(i - 1) * count + c])), p);
        }
    }
    for (int c = 0; c < count; ++c) d2[(n - 1) * stride + c] = 0.0;
    for (int i = n - 2; i >= 0; --i)
        for (int c = 0; c < count; ++c) d2[i * stride + c] = bgAdd(bgMul(d2[i * stride + c], d2[(i + 1) * stride + c]), u[i * count + c]);
}

// The spline at t in the interval [x[i], x[i+1]] (i from the caller), or extended linearly beyond the end
// knots with the end slopes.
GLINT_HD double splineAt(const double* x, const double* y, const double* d2, int n, int stride, double t, int i) {
    if (n == 1) return y[0];
    if (t <= x[0]) {
        const double h = bgSub(x[1], x[0]);
        const double slope = bgSub(bgDiv(bgSub(y[stride], y[0]), h),
                                   bgDiv(bgMul(h, bgAdd(bgMul(2.0, d2[0]), d2[stride])), 6.0));
        return bgAdd(y[0], bgMul(slope, bgSub(t, x[0])));
    }
    if (t >= x[n - 1]) {
        const double h = bgSub(x[n - 1], x[n - 2]);
        const double slope = bgAdd(bgDiv(bgSub(y[(n - 1) * stride], y[(n - 2) * stride]), h),
                                   bgDiv(bgMul(h, bgAdd(d2[(n - 2) * stride], bgMul(2.0, d2[(n - 1) * stride]))), 6.0));
        return bgAdd(y[(n - 1) * stride], bgMul(slope, bgSub(t, x[n - 1])));
    }
    const double h = bgSub(x[i + 1], x[i]);
    const double a = bgDiv(bgSub(x[i + 1], t), h), b = bgSub(1.0, a);
    const double cubic = bgAdd(bgMul(bgSub(bgMul(bgMul(a, a), a), a), d2[i * stride]),
                               bgMul(bgSub(bgMul(bgMul(b, b), b), b), d2[(i + 1) * stride]));
    return bgAdd(bgAdd(bgMul(a, y[i * stride]), bgMul(b, y[(i + 1) * stride])), bgDiv(bgMul(bgMul(cubic, h), h), 6.0));
}

// Interval i's cubic of the spline through (x, y) (second derivatives d2) as y[i] + s (c[0] + s (c[1] + s c[2]))
// with s = t - x[i].
GLINT_HD void splineCoefficients(const double* x, const double* y, const double* d2, int i, double* c) {
    const double h = bgSub(x[i + 1], x[i]);
    c[0] = bgSub(bgDiv(bgSub(y[i + 1], y[i]), h), bgDiv(bgMul(h, bgAdd(bgMul(2.0, d2[i]), d2[i + 1])), 6.0));
    c[1] = bgMul(0.5, d2[i]);
    c[2] = bgDiv(bgSub(d2[i + 1], d2[i]), bgMul(6.0, h));
}

// The slope of the linear extension beyond the last knot.
GLINT_HD double splineEndSlope(const double* x, const double* y, const double* d2, int n) {
    const double h = bgSub(x[n - 1], x[n - 2]);
    return bgAdd(bgDiv(bgSub(y[n - 1], y[n - 2]), h), bgDiv(bgMul(h, bgAdd(d2[n - 2], bgMul(2.0, d2[n - 1]))), 6.0));
}

// Which piece of the row spline covers integer t (n >= 2 knots, increasing): -1 the left extension (t <=
// x[0]), n - 1 the right one, else the interval i: the integers of (x[i], x[i+1]], the last interval ending
// before ceil(x[n-1]).
GLINT_HD int splinePiece(const double* x, int n, int t) {
    const double tt = static_cast<double>(t);
    if (tt <= x[0]) return -1;
    // The first interval i <= n - 3 with t <= floor(x[i+1]), i.e. t <= x[i+1] (t is an integer).
    int lo = 0, hi = n - 2; // answer in [lo, hi]; hi = n - 2 means "not among the first n - 2"
    while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (tt < bgFloor(x[mid + 1]) + 1.0) hi = mid;
        else lo = mid + 1;
    }
    if (lo < n - 2) return lo;
    return tt < bgCeil(x[n - 1]) ? n - 2 : n - 1;
}

// The first integer after piece `piece` (as splinePiece numbers them): a row walks the pieces in order.
GLINT_HD long long splinePieceEnd(const double* x, int n, int piece) {
    if (piece < 0) return static_cast<long long>(bgFloor(x[0])) + 1;
    if (piece < n - 2) return static_cast<long long>(bgFloor(x[piece + 1])) + 1;
    if (piece == n - 2) return static_cast<long long>(bgCeil(x[n - 1]));
    return 0x7fffffffffffffffll;
}

// The row spline at integer t: piece from splinePiece, c the coefficients of that interval (c0 those of
// interval 0, for the left extension), endSlope for the right one.
GLINT_HD double splineValue(const double* x, const double* y, int n, int piece, const double* c, double c0,
                            double endSlope, int t) {
    const double tt = static_cast<double>(t);
    if (piece < 0) return bgAdd(y[0], bgMul(c0, bgSub(tt, x[0])));
    if (piece >= n - 1) return bgAdd(y[n - 1], bgMul(endSlope, bgSub(tt, x[n - 1])));
    const double s = bgSub(tt, x[piece]);
    return bgAdd(y[piece], bgMul(s, bgAdd(c[0], bgMul(s, bgAdd(c[1], bgMul(s, c[2]))))));
}

} // namespace glint::bgmath
