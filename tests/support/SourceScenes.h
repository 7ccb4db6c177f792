// Scenes with a known truth for the source measurements (test_source_measure*.cpp): analytic profiles
// (elliptical Gaussians, Moffats, exponential discs) integrated over each pixel, a background and an RMS map,
// and a segmentation built the way detection does (threshold + 8-connected components), with the segments.
#pragma once

#include "core/algo/sources/SourceCatalog.h"
#include "core/io/Image.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <numbers>
#include <optional>
#include <random>
#include <vector>

namespace glint::test {

// A surface brightness profile: flux per px^2 at (x, y) (pixel centres at integers).
using Profile = std::function<double(double x, double y)>;

inline Profile gaussianProfile(double flux, double x0, double y0, double sx, double sy, double angleDeg) {
    const double c = std::cos(angleDeg * std::numbers::pi / 180), s = std::sin(angleDeg * std::numbers::pi / 180);
    return [=](double x, double y) {
        const double dx = x - x0, dy = y - y0, u = c * dx + s * dy, w = -s * dx + c * dy;
        return flux / (2 * std::numbers::pi * sx * sy) * std::exp(-0.5 * (u * u / (sx * sx) + w * w / (sy * sy)));
    };
}

// A Moffat of the given FWHM: (beta - 1) / (pi alpha^2) (1 + r^2 / alpha^2)^-beta, FWHM = 2 alpha sqrt(2^(1/beta) - 1).
inline Profile moffatProfile(double flux, double x0, double y0, double fwhm, double beta) {
    const double alpha = fwhm / (2 * std::sqrt(std::pow(2.0, 1.0 / beta) - 1));
    return [=](double x, double y) {
        const double r2 = ((x - x0) * (x - x0) + (y - y0) * (y - y0)) / (alpha * alpha);
        return flux * (beta - 1) / (std::numbers::pi * alpha * alpha) * std::pow(1 + r2, -beta);
    };
}

// An exponential disc of half-light radius re (scale h = re / 1.67835), axis ratio q, position angle angleDeg.
inline Profile exponentialProfile(double flux, double x0, double y0, double re, double q, double angleDeg) {
    const double h = re / 1.67835;
    const double c = std::cos(angleDeg * std::numbers::pi / 180), s = std::sin(angleDeg * std::numbers::pi / 180);
    return [=](double x, double y) {
        const double dx = x - x0, dy = y - y0, u = c * dx + s * dy, w = (-s * dx + c * dy) / q;
        return flux / (2 * std::numbers::pi * h * h * q) * std::exp(-std::sqrt(u * u + w * w) / h);
    };
}

// The profile's mean over each pixel (n x n samples), added into v (width x height).
inline void addProfile(std::vector<double>& v, int width, int height, const Profile& f, int n = 8) {
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            double sum = 0;
            for (int j = 0; j < n; ++j)
                for (int i = 0; i < n; ++i) sum += f(x - 0.5 + (i + 0.5) / n, y - 0.5 + (j + 0.5) / n);
            v[static_cast<std::size_t>(y) * width + x] += sum / (n * n);
        }
}

// A field: I = B + v (+ noise), its maps and a segmentation; field() points into it (keep the scene alive).
struct Scene {
    int width = 0, height = 0;
    std::vector<double> v;                 // the truth above the background, noiseless
    std::vector<double> observed;          // v + noise (I - B)
    Image image;                           // I
    std::vector<float> background, rms;
    std::vector<std::uint8_t> bad;
    std::vector<std::int32_t> segmentation;
    std::vector<SourceSegment> segments;
    std::optional<double> saturation;

    Scene(int w, int h, double sky = 100.0, double sigma = 1.0)
        : width(w), height(h), v(static_cast<std::size_t>(w) * h, 0.0), background(v.size(), static_cast<float>(sky)),
          rms(v.size(), static_cast<float>(sigma)), segmentation(v.size(), 0) {}

    void add(const Profile& f, int n = 8) { addProfile(v, width, height, f, n); }
    // I = B + v + Gaussian noise of the RMS map (noise 0: none).
    void makeImage(double noise = 0.0, unsigned seed = 1) {
        std::mt19937 rng(seed);
        std::normal_distribution<double> g(0.0, 1.0);
        observed = v;
        std::vector<double> samples(v.size());
        for (std::size_t i = 0; i < v.size(); ++i) {
            if (noise > 0) observed[i] += noise * g(rng);
            samples[i] = background[i] + observed[i];
        }
        image = Image::fromSamples(width, height, std::move(samples));
    }
    SourceField field() const {
        SourceField f;
        f.image = &image;
        f.background = &background;
        f.rms = &rms;
        f.bad = &bad;
        f.segmentation = &segmentation;
        f.saturation = saturation;
        f.width = width;
        f.height = height;
        return f;
    }
    std::size_t at(int x, int y) const { return static_cast<std::size_t>(y) * width + x; }

    // Detection's segmentation: 8-connected components of observed > threshold, numbered 1.. in scan order.
    void segment(double threshold) {
        std::fill(segmentation.begin(), segmentation.end(), 0);
        int next = 0;
        std::vector<std::pair<int, int>> stack;
        for (int y = 0; y < height; ++y)
            for (int x = 0; x < width; ++x) {
                if (segmentation[at(x, y)] != 0 || !(observed[at(x, y)] > threshold)) continue;
                segmentation[at(x, y)] = ++next;
                stack.assign(1, {x, y});
                while (!stack.empty()) {
                    const auto [px, py] = stack.back();
                    stack.pop_back();
                    for (int dy = -1; dy <= 1; ++dy)
                        for (int dx = -1; dx <= 1; ++dx) {
                            const int qx = px + dx, qy = py + dy;
                            if (qx < 0 || qy < 0 || qx >= width || qy >= height) continue;
                            if (segmentation[at(qx, qy)] != 0 || !(observed[at(qx, qy)] > threshold)) continue;
                            segmentation[at(qx, qy)] = next;
                            stack.emplace_back(qx, qy);
                        }
                }
            }
        makeSegments(threshold);
    }
    // The segments of the labels in the map (bounding boxes and areas).
    void makeSegments(double threshold) {
        int count = 0;
        for (std::int32_t l : segmentation) count = std::max(count, static_cast<int>(l));
        segments.assign(static_cast<std::size_t>(count), SourceSegment{});
        for (int n = 1; n <= count; ++n) {
            SourceSegment& s = segments[static_cast<std::size_t>(n - 1)];
            s.number = n;
            s.xmin = width;
            s.ymin = height;
            s.xmax = s.ymax = -1;
            s.threshold = threshold;
        }
        for (int y = 0; y < height; ++y)
            for (int x = 0; x < width; ++x) {
                const std::int32_t l = segmentation[at(x, y)];
                if (l <= 0) continue;
                SourceSegment& s = segments[static_cast<std::size_t>(l - 1)];
                s.xmin = std::min(s.xmin, x);
                s.ymin = std::min(s.ymin, y);
                s.xmax = std::max(s.xmax, x);
                s.ymax = std::max(s.ymax, y);
                ++s.area;
            }
    }
};

// The fraction of pixel (x, y) inside the circle (n x n samples): the brute-force aperture's weights.
inline double circleOverlap(int x, int y, double cx, double cy, double r, int n = 64) {
    int hits = 0;
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
            const double dx = x - 0.5 + (i + 0.5) / n - cx, dy = y - 0.5 + (j + 0.5) / n - cy;
            hits += dx * dx + dy * dy <= r * r ? 1 : 0;
        }
    return static_cast<double>(hits) / (n * n);
}

} // namespace glint::test
