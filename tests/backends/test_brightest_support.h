// Helpers of the brightest region suites (test_brightest_search, test_brightest_pivots): the brute force
// over every rectangle, the exclusion mask as the search sees it, a direct sum, one run on a backend, and the
// smooth 8-bit and float-bump images of the larger cases.
#pragma once

#include "core/algo/brightest/Brightest.h"
#include "core/io/Image.h"
#include "core/jobs/JobControl.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace glint::test::brightestsearch {

// Every rectangle, by 2-D prefix sums in long double: the largest sum of a rectangle free of excluded
// pixels (0 when none is positive). O(H^2 W^2).
struct Brute {
    long double best = 0;
    int count = 0; // rectangles reaching best (when best > 0)
};

inline long double pixelValue(const Image& im, int x, int y, double pivot) {
    return static_cast<long double>(im.value(x, y)) - static_cast<long double>(pivot);
}

inline Brute bruteSearch(const Image& im, double pivot, const std::vector<std::uint8_t>& excluded) {
    const int W = im.width(), H = im.height();
    std::vector<long double> S((W + 1) * (H + 1), 0);
    std::vector<int> E((W + 1) * (H + 1), 0);
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
            const bool ex = excluded[y * W + x];
            const long double v = ex ? 0 : pixelValue(im, x, y, pivot);
            S[(y + 1) * (W + 1) + x + 1] = v + S[y * (W + 1) + x + 1] + S[(y + 1) * (W + 1) + x] - S[y * (W + 1) + x];
            E[(y + 1) * (W + 1) + x + 1] = ex + E[y * (W + 1) + x + 1] + E[(y + 1) * (W + 1) + x] - E[y * (W + 1) + x];
        }
    auto rect = [&](const auto& A, int x0, int y0, int x1, int y1) {
        return A[y1 * (W + 1) + x1] - A[y0 * (W + 1) + x1] - A[y1 * (W + 1) + x0] + A[y0 * (W + 1) + x0];
    };
    Brute b;
    for (int y0 = 0; y0 < H; ++y0)
        for (int y1 = y0 + 1; y1 <= H; ++y1)
            for (int x0 = 0; x0 < W; ++x0)
                for (int x1 = x0 + 1; x1 <= W; ++x1) {
                    if (rect(E, x0, y0, x1, y1) != 0) continue;
                    const long double s = rect(S, x0, y0, x1, y1);
                    if (s > b.best) b = {s, 1};
                }
    return b;
}

inline std::vector<std::uint8_t> exclusionMask(const Image& im, const BrightestParams& p) {
    std::vector<std::uint8_t> m(im.pixelCount(), 0);
    for (std::size_t i = 0; i < m.size(); ++i)
        m[i] = im.isBlank(i) || !std::isfinite(im.value(i));
    for (const auto& r : p.excludeRects)
        for (int y = std::max(0, r.y); y < std::min(im.height(), r.y + r.height); ++y)
            for (int x = std::max(0, r.x); x < std::min(im.width(), r.x + r.width); ++x) m[y * im.width() + x] = 1;
    for (const auto& poly : p.excludePolygons) rasterizePolygon(poly, im.width(), im.height(), m);
    if (p.roi)
        for (int y = 0; y < im.height(); ++y)
            for (int x = 0; x < im.width(); ++x)
                if (x < p.roi->x || y < p.roi->y || x >= p.roi->x + p.roi->width || y >= p.roi->y + p.roi->height)
                    m[y * im.width() + x] = 1;
    return m;
}

inline long double directSum(const Image& im, const BrightestRegion& r, double pivot) {
    long double s = 0;
    for (int y = r.y; y < r.y + r.height; ++y)
        for (int x = r.x; x < r.x + r.width; ++x) s += pixelValue(im, x, y, pivot);
    return s;
}

inline bool touches(const BrightestRegion& r, const std::vector<std::uint8_t>& mask, int width) {
    for (int y = r.y; y < r.y + r.height; ++y)
        for (int x = r.x; x < r.x + r.width; ++x)
            if (mask[y * width + x]) return true;
    return false;
}

inline BrightestResult run(const Image& im, const BrightestParams& p, Backend b) {
    JobControl job;
    return runBrightest(im, p, b, job);
}

// Smooth structure plus noise, so that the best rectangle is large and its neighbours are close.
inline Image smoothU8Image(int w, int h, std::mt19937& rng) {
    std::uniform_int_distribution<int> d(0, 255);
    std::vector<std::uint8_t> v(static_cast<std::size_t>(w) * h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const double s = 60.0 * std::sin(x * 0.013 + 1.0) * std::cos(y * 0.021);
            v[static_cast<std::size_t>(y) * w + x] = static_cast<std::uint8_t>(std::clamp(d(rng) / 2 + 64 + static_cast<int>(s), 0, 255));
        }
    return Image::fromSamples<std::uint8_t>(w, h, std::move(v));
}

// Float noise around 100 with a Gaussian bump, optionally with blanks.
inline Image bumpFloatImage(int w, int h, std::mt19937& rng, double blanks = 0.0) {
    std::normal_distribution<float> d(0.0f, 3.0f);
    std::vector<float> v(static_cast<std::size_t>(w) * h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const double gx = (x - 0.6 * w) / (0.1 * w + 1), gy = (y - 0.4 * h) / (0.08 * h + 1);
            v[static_cast<std::size_t>(y) * w + x] = 100.0f + d(rng) + static_cast<float>(20.0 * std::exp(-0.5 * (gx * gx + gy * gy)));
        }
    Image im = Image::fromSamples<float>(w, h, std::move(v));
    if (blanks > 0) {
        std::vector<std::uint8_t> m(im.pixelCount());
        std::bernoulli_distribution b(blanks);
        for (auto& x : m) x = b(rng);
        im.setBlankMask(std::move(m));
    }
    return im;
}

} // namespace glint::test::brightestsearch
