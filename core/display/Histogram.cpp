#include "core/display/Histogram.h"

#include "core/display/Display.h"

#include "core/util/EnumNames.h"
#include "core/util/Errors.h"
#include "core/util/Parallel.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <numeric>

namespace glint {

namespace {
constexpr EnumName<HistogramAxis> kAxisNames[] = {
    {HistogramAxis::Linear, "linear"}, {HistogramAxis::Log, "log"}, {HistogramAxis::Asinh, "asinh"}};
} // namespace

const char* histogramAxisName(HistogramAxis axis) { return enumName(kAxisNames, axis); }
HistogramAxis parseHistogramAxis(const std::string& name) { return parseEnumName(kAxisNames, name, "histogram axis"); }

namespace {
constexpr double kLogExponent = 1000.0; // DS9's log stretch
constexpr double kAsinhGain = 10.0;

// The axis on t = (v − low) / (high − low): odd functions, so that values beyond low stay ordered.
double axisForward(HistogramAxis axis, double t) {
    switch (axis) {
    case HistogramAxis::Linear: return t;
    case HistogramAxis::Log: return std::copysign(std::log10(kLogExponent * std::abs(t) + 1.0) / std::log10(kLogExponent + 1.0), t);
    case HistogramAxis::Asinh: return std::asinh(kAsinhGain * t) / std::asinh(kAsinhGain);
    }
    return t;
}

double axisInverse(HistogramAxis axis, double p) {
    switch (axis) {
    case HistogramAxis::Linear: return p;
    case HistogramAxis::Log:
        return std::copysign((std::pow(10.0, std::abs(p) * std::log10(kLogExponent + 1.0)) - 1.0) / kLogExponent, p);
    case HistogramAxis::Asinh: return std::sinh(p * std::asinh(kAsinhGain)) / kAsinhGain;
    }
    return p;
}
} // namespace

double histogramAxisPosition(HistogramAxis axis, double low, double high, double value) {
    if (!(high > low)) return 0.0;
    return axisForward(axis, unitFraction(value, low, high));
}

double histogramAxisValue(HistogramAxis axis, double low, double high, double position) {
    const double t = axisInverse(axis, position);
    if (std::isfinite(high - low)) return low + t * (high - low);
    // A range wider than double holds (±1.7e308): half the range added twice, each sum within [low, high].
    const double half = t * (0.5 * high - 0.5 * low);
    return (low + half) + half;
}

double Histogram::axisDensity(std::size_t i) const {
    if (i >= counts.size()) return 0.0;
    const double a = histogramAxisPosition(axis, low, high, binLow(i));
    const double b = histogramAxisPosition(axis, low, high, binHigh(i));
    const double share = (b - a) * static_cast<double>(counts.size());
    return share > 0.0 ? static_cast<double>(counts[i]) / share : 0.0;
}

namespace {

// Counts every finite, non-blank sample into h (its low, high and counts set): below low, above high, or
// in bin binOf(v) (clamped to the last bin), on every core.
template <class BinOf>
void countInto(const Image& image, Histogram& h, BinOf binOf) {
    std::mutex merge;
    image.visit([&](const auto* p) {
        parallelFor(0, image.pixelCount(), std::size_t(1) << 18, [&](std::size_t b, std::size_t e) {
            std::vector<std::uint64_t> local(h.counts.size(), 0);
            std::uint64_t below = 0, above = 0;
            for (std::size_t i = b; i < e; ++i) {
                const double v = static_cast<double>(p[i]);
                if (!std::isfinite(v) || image.isBlank(i)) continue;
                if (v < h.low) ++below;
                else if (v > h.high) ++above;
                else ++local[std::min(binOf(v), local.size() - 1)];
            }
            std::lock_guard lock(merge);
            for (std::size_t k = 0; k < local.size(); ++k) h.counts[k] += local[k];
            h.below += below;
            h.above += above;
        });
    });
}

} // namespace

Histogram computeHistogram(const Image& image, double low, double high, int bins) {
    if (bins < 1) throw UsageError("a histogram needs at least one bin");
    if (!(low < high) || !std::isfinite(low) || !std::isfinite(high))
        throw UsageError("a histogram needs a finite range with low < high");
    Histogram h;
    h.low = low;
    h.high = high;
    h.counts.assign(static_cast<std::size_t>(bins), 0);
    const double perUnit = bins / (high - low);
    if (perUnit > 0.0 && std::isfinite(perUnit))
        countInto(image, h, [&](double v) { return static_cast<std::size_t>((v - low) * perUnit); });
    else // high − low overflows double (data near ±1.7e308)
        countInto(image, h, [&](double v) { return static_cast<std::size_t>(unitFraction(v, low, high) * bins); });
    return h;
}

HistogramRange chooseHistogramRange(const Image& image, double min, double max, int maxBins) {
    HistogramRange r;
    r.bins = std::max(1, maxBins);
    if (!(max > min)) {
        r.low = min - 0.5;
        r.high = min + 0.5;
        return r;
    }
    // Whole levels only where the range holds exact integers (not for data near ±1.7e308).
    const bool levels = image.meta.integerValued && max - min < 9.0e15;
    if (levels && max - min + 1.0 <= r.bins) {
        r.low = min - 0.5;
        r.high = max + 0.5;
        r.bins = static_cast<int>(max - min + 1.0);
        return r;
    }
    // Integer data with more levels than bins: bins of a whole number of levels, edges halfway between two
    // levels, so that every bin holds as many levels as the next (no comb). Outliers are trimmed below.
    const auto wholeLevels = [&](double lo, double hi) {
        const double levels = std::floor(hi) - std::ceil(lo) + 1.0;
        const double perBin = std::ceil(levels / r.bins);
        r.low = std::ceil(lo) - 0.5;
        r.bins = static_cast<int>(std::ceil(levels / perBin));
        r.high = r.low + perBin * r.bins;
    };
    r.low = min;
    r.high = max;
    // A coarse pass finds the central 99.9%; if it spans under a tenth of the range, the extremes are
    // outliers and the dock would show one spike: show the bulk with a 10% margin instead.
    const Histogram coarse = computeHistogram(image, min, max, 4096);
    std::uint64_t total = 0;
    for (auto c : coarse.counts) total += c;
    const auto cut = static_cast<std::uint64_t>(static_cast<double>(total) * 0.0005);
    std::size_t first = 0, last = coarse.counts.size() - 1;
    for (std::uint64_t seen = 0; first < last && seen + coarse.counts[first] <= cut; ++first) seen += coarse.counts[first];
    for (std::uint64_t seen = 0; last > first && seen + coarse.counts[last] <= cut; --last) seen += coarse.counts[last];
    const double w = coarse.binWidth();
    const double bulkLow = min + static_cast<double>(first) * w;
    const double bulkHigh = min + static_cast<double>(last + 1) * w;
    if (bulkHigh - bulkLow < 0.1 * (max - min)) {
        const double margin = 0.1 * (bulkHigh - bulkLow);
        r.low = std::max(min, bulkLow - margin);
        r.high = std::min(max, bulkHigh + margin);
    }
    if (levels && r.high - r.low >= 1.0) wholeLevels(r.low, r.high);
    return r;
}

std::optional<LevelGrid> integerLevelGrid(const Image& image) {
    if (!image.meta.integerValued) return std::nullopt;
    // The smallest value and the gcd of all differences from the first value (found in one pass; the gcd
    // of differences from any one value is the gcd of all pairwise differences).
    std::mutex merge;
    bool haveFirst = false;
    double first = 0.0, least = 0.0;
    std::uint64_t gcd = 0;
    bool huge = false;
    image.visit([&](const auto* p) {
        const std::size_t n = image.pixelCount();
        std::size_t start = 0;
        for (; start < n; ++start) {
            const double v = static_cast<double>(p[start]);
            if (std::isfinite(v) && !image.isBlank(start)) {
                haveFirst = true;
                first = least = v;
                break;
            }
        }
        if (!haveFirst) return;
        parallelFor(start, n, std::size_t(1) << 18, [&](std::size_t b, std::size_t e) {
            std::uint64_t g = 0;
            bool beyond = false;
            double lo = first;
            for (std::size_t i = b; i < e; ++i) {
                const double v = static_cast<double>(p[i]);
                if (!std::isfinite(v) || image.isBlank(i)) continue;
                lo = std::min(lo, v);
                const double d = std::abs(v - first);
                if (!(d < 9.0e15)) { // beyond exact integers in double: no grid of levels
                    beyond = true;
                    continue;
                }
                g = std::gcd(g, static_cast<std::uint64_t>(d));
            }
            std::lock_guard lock(merge);
            if (beyond) huge = true;
            gcd = std::gcd(gcd, g);
            least = std::min(least, lo);
        });
    });
    if (!haveFirst || gcd == 0 || huge) return std::nullopt;
    return LevelGrid{least, static_cast<double>(gcd)};
}

Histogram computeAxisHistogram(const Image& image, double low, double high, int bins, HistogramAxis axis,
                               const std::optional<LevelGrid>& levels) {
    if (bins < 1) throw UsageError("a histogram needs at least one bin");
    if (!(low < high) || !std::isfinite(low) || !std::isfinite(high))
        throw UsageError("a histogram needs a finite range with low < high");
    if (!levels && axis == HistogramAxis::Linear) return computeHistogram(image, low, high, bins);
    std::vector<double> edges;
    if (levels && levels->step > 0.0) {
        // Edges halfway between levels: the range widened to whole levels, then each edge of the ideal
        // (axis-uniform) grid moved to the nearest half level; repeats dropped, so each bin holds a level.
        const double step = levels->step, origin = levels->origin;
        enum class Snap { Down, Nearest, Up };
        const auto half = [&](double v, Snap snap) {
            const double k = (v - origin) / step - 0.5;
            return origin + ((snap == Snap::Down ? std::floor(k) : snap == Snap::Up ? std::ceil(k) : std::round(k)) + 0.5) * step;
        };
        const double lo = half(low, Snap::Down), hi = std::max(half(high, Snap::Up), lo + step);
        edges.reserve(static_cast<std::size_t>(bins) + 1);
        edges.push_back(lo);
        for (int i = 1; i < bins; ++i) {
            const double e = half(histogramAxisValue(axis, lo, hi, static_cast<double>(i) / bins), Snap::Nearest);
            if (e > edges.back() && e < hi) edges.push_back(e);
        }
        edges.push_back(hi);
    } else {
        edges.reserve(static_cast<std::size_t>(bins) + 1);
        for (int i = 0; i <= bins; ++i) edges.push_back(histogramAxisValue(axis, low, high, static_cast<double>(i) / bins));
        edges.front() = low;
        edges.back() = high;
    }
    Histogram h;
    h.low = edges.front();
    h.high = edges.back();
    h.axis = axis;
    h.levelStep = levels ? levels->step : 0.0;
    h.counts.assign(edges.size() - 1, 0);
    countInto(image, h, [&](double v) {
        const auto at = std::upper_bound(edges.begin(), edges.end(), v);
        return static_cast<std::size_t>(std::max<std::ptrdiff_t>(0, at - edges.begin() - 1));
    });
    h.edges = std::move(edges);
    // Equal bins need no edge list (binLow/binHigh compute them).
    if (axis == HistogramAxis::Linear) {
        const double w = h.binWidth();
        bool equal = true;
        for (std::size_t i = 0; i < h.edges.size() && equal; ++i)
            equal = std::abs(h.edges[i] - (h.low + static_cast<double>(i) * w)) <= 1e-9 * std::max(1.0, std::abs(h.edges[i]));
        if (equal) h.edges.clear();
    }
    return h;
}

} // namespace glint
