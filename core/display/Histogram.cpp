#include "core/display/Histogram.h"

#include "core/util/Errors.h"
#include "core/util/Parallel.h"

#include <algorithm>
#include <cmath>
#include <mutex>

namespace glint {

Histogram computeHistogram(const Image& image, double low, double high, int bins) {
    if (bins < 1) throw UsageError("a histogram needs at least one bin");
    if (!(low < high) || !std::isfinite(low) || !std::isfinite(high))
        throw UsageError("a histogram needs a finite range with low < high");
    Histogram h;
    h.low = low;
    h.high = high;
    h.counts.assign(static_cast<std::size_t>(bins), 0);
    const double perUnit = bins / (high - low);
    std::mutex merge;
    image.visit([&](const auto* p) {
        parallelFor(0, image.pixelCount(), std::size_t(1) << 18, [&](std::size_t b, std::size_t e) {
            std::vector<std::uint64_t> local(h.counts.size(), 0);
            std::uint64_t below = 0, above = 0;
            for (std::size_t i = b; i < e; ++i) {
                const double v = static_cast<double>(p[i]);
                if (!std::isfinite(v) || image.isBlank(i)) continue;
                if (v < low) {
                    ++below;
                } else if (v > high) {
                    ++above;
                } else {
                    const auto bin = static_cast<std::size_t>((v - low) * perUnit);
                    ++local[std::min(bin, local.size() - 1)];
                }
            }
            std::lock_guard lock(merge);
            for (std::size_t k = 0; k < local.size(); ++k) h.counts[k] += local[k];
            h.below += below;
            h.above += above;
        });
    });
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
    if (image.meta.integerValued && max - min + 1.0 <= r.bins) {
        r.low = min - 0.5;
        r.high = max + 0.5;
        r.bins = static_cast<int>(max - min + 1.0);
        return r;
    }
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
    return r;
}

} // namespace glint
