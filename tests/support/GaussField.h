// The source finder's synthetic star field with a known truth (test_sources.cpp, test_source_filters.cpp):
// a 512x512 sky with a gradient, a step seam, noise, Gaussian stars of a power-law flux and a saturated star.
#pragma once

#include "core/io/Image.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace glint::test {

struct Star {
    double x, y, flux;
};

// A 512x512 field: sky 1000 + a gradient + a step of 15 (1.5 sigma) at x >= 300, Gaussian noise 10 (+ Poisson-like
// scatter), Gaussian stars (sigma 1.5 px) with a power-law flux; one saturated star clipped at 65535.
struct GaussField {
    Image image;
    std::vector<Star> stars;
    double noise = 10.0;
    double psfSigma = 1.5;
};

inline GaussField makeGaussField(unsigned seed, int count = 60) {
    GaussField f;
    const int W = 512, H = 512;
    std::mt19937 rng(seed);
    std::vector<double> v(static_cast<std::size_t>(W) * H);
    std::normal_distribution<double> g(0.0, f.noise);
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x)
            v[static_cast<std::size_t>(y) * W + x] = 1000 + 0.1 * x + 0.05 * y + (x >= 300 ? 15 : 0) + g(rng);
    std::uniform_real_distribution<double> pos(20, 492), u(0, 1);
    for (int i = 0; i < count; ++i) {
        Star s{pos(rng), pos(rng), 0};
        // Power law N(>F) ~ F^-1 between 300 and 300000 (peak = F / (2 pi sigma^2)).
        s.flux = 300.0 / (1.0 - u(rng) * (1.0 - 1e-3));
        bool close = false;
        for (const Star& o : f.stars) close |= std::hypot(o.x - s.x, o.y - s.y) < 15;
        if (close) continue;
        f.stars.push_back(s);
    }
    f.stars.push_back({256.3, 100.6, 3.0e6}); // saturated
    for (const Star& s : f.stars)
        for (int y = std::max(0, int(s.y) - 10); y < std::min(H, int(s.y) + 11); ++y)
            for (int x = std::max(0, int(s.x) - 10); x < std::min(W, int(s.x) + 11); ++x) {
                const double r2 = (x - s.x) * (x - s.x) + (y - s.y) * (y - s.y);
                v[static_cast<std::size_t>(y) * W + x] +=
                    s.flux / (2 * M_PI * f.psfSigma * f.psfSigma) * std::exp(-r2 / (2 * f.psfSigma * f.psfSigma));
            }
    std::vector<std::uint16_t> u16(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) u16[i] = static_cast<std::uint16_t>(std::clamp(std::lround(v[i]), 0L, 65535L));
    f.image = Image::fromSamples(W, H, std::move(u16));
    return f;
}

// The star's SNR as the finder measures it in an aperture of radius 2 sigma: flux / (noise * sqrt(area)).
inline double starSnr(const GaussField& f, const Star& s) {
    const double area = M_PI * 4 * f.psfSigma * f.psfSigma;
    return 0.86 * s.flux / (f.noise * std::sqrt(area));
}

} // namespace glint::test
