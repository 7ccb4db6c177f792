#include "core/io/ImageStats.h"

#include "core/util/Errors.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace glint {

namespace {

// Calls fn(v) for every sample that is neither blank nor NaN nor infinite, in storage order. Infinities
// are no measurement (the FITS, DICOM and CSV loaders refuse them; an image made otherwise may hold
// them): they are left out of every statistic alike, as blanks are, so that a median or a mean is never inf.
template <class Fn>
void forEachValue(const Image& image, Fn&& fn) {
    image.visit([&](const auto* p) {
        const std::size_t n = image.pixelCount();
        for (std::size_t i = 0; i < n; ++i) {
            if (image.isBlank(i)) continue;
            const double v = static_cast<double>(p[i]);
            if (std::isfinite(v)) fn(v);
        }
    });
}

} // namespace

std::vector<double> nonBlankValues(const Image& image) {
    std::vector<double> values;
    values.reserve(image.pixelCount());
    forEachValue(image, [&](double v) { values.push_back(v); });
    return values;
}

double percentileOf(std::vector<double>& values, double p) {
    if (!(p >= 0.0 && p <= 100.0)) throw UsageError("percentile must be between 0 and 100");
    if (values.empty()) return 0.0;
    const double rank = p / 100.0 * static_cast<double>(values.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(rank));
    const double frac = rank - static_cast<double>(lo);
    std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(lo), values.end());
    const double a = values[lo];
    if (frac == 0.0 || lo + 1 >= values.size()) return a;
    const double b = *std::min_element(values.begin() + static_cast<std::ptrdiff_t>(lo) + 1, values.end());
    const double gap = b - a; // beyond double for neighbours near -1.7e308 and +1.7e308: weighted instead
    return std::isfinite(gap) ? a + gap * frac : a * (1.0 - frac) + b * frac;
}

double percentile(const Image& image, double p) {
    std::vector<double> values = nonBlankValues(image);
    return percentileOf(values, p);
}

ImageStats computeStats(const Image& image) {
    ImageStats s;
    long double sum = 0.0L;
    double mn = std::numeric_limits<double>::infinity();
    double mx = -std::numeric_limits<double>::infinity();
    forEachValue(image, [&](double v) {
        sum += v;
        mn = std::min(mn, v);
        mx = std::max(mx, v);
        ++s.count;
    });
    if (s.count == 0) return s;
    s.min = mn;
    s.max = mx;
    s.mean = static_cast<double>(sum / static_cast<long double>(s.count));
    s.median = percentile(image, 50.0);
    return s;
}

} // namespace glint
