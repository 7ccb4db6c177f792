#include "algo/brightest/WorkArray.h"

#include "io/Image.h"
#include "io/ImageStats.h"
#include "util/Errors.h"
#include "util/Parallel.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>

namespace glint {

namespace {

std::string rectText(const PixelRect& r) {
    return std::to_string(r.x) + "," + std::to_string(r.y) + "," + std::to_string(r.width) + "," +
           std::to_string(r.height);
}

PixelRect checkedRoi(const Image& image, const BrightestParams& params) {
    if (!params.hasRoi) return {0, 0, image.width(), image.height()};
    const PixelRect& r = params.roi;
    if (r.width <= 0 || r.height <= 0)
        throw UsageError("the ROI " + rectText(r) + " must have a positive width and height");
    if (r.x < 0 || r.y < 0 || static_cast<long long>(r.x) + r.width > image.width() ||
        static_cast<long long>(r.y) + r.height > image.height())
        throw UsageError("the ROI " + rectText(r) + " does not lie inside the " + std::to_string(image.width()) + "x" +
                         std::to_string(image.height()) + " image");
    return r;
}

// The exclusion mask in the ROI's own frame (row-major, roi.width per row); empty when nothing is
// excluded. Blanks, non-finite samples, exclusion rectangles (clipped) and polygons.
std::vector<std::uint8_t> roiExclusionMask(const Image& image, const PixelRect& roi, const BrightestParams& params) {
    const std::size_t n = static_cast<std::size_t>(roi.width) * roi.height;
    std::vector<std::uint8_t> mask;
    auto ensure = [&] {
        if (mask.empty()) mask.assign(n, 0);
    };
    const bool floating = !isIntegerSampleType(image.sampleType());
    bool nonFinite = false;
    if (floating) {
        image.visit([&](const auto* p) {
            using T = std::remove_cv_t<std::remove_pointer_t<decltype(p)>>;
            if constexpr (std::is_floating_point_v<T>) {
                for (int y = 0; y < roi.height && !nonFinite; ++y) {
                    const T* row = p + static_cast<std::size_t>(roi.y + y) * image.width() + roi.x;
                    for (int x = 0; x < roi.width; ++x)
                        if (!std::isfinite(row[x])) {
                            nonFinite = true;
                            break;
                        }
                }
            }
        });
    }
    if (image.hasBlanks() || nonFinite) {
        ensure();
        bool any = false;
        image.visit([&](const auto* p) {
            using T = std::remove_cv_t<std::remove_pointer_t<decltype(p)>>;
            for (int y = 0; y < roi.height; ++y) {
                const std::size_t base = static_cast<std::size_t>(roi.y + y) * image.width() + roi.x;
                for (int x = 0; x < roi.width; ++x) {
                    bool out = image.isBlank(base + x);
                    if constexpr (std::is_floating_point_v<T>) out = out || !std::isfinite(p[base + x]);
                    if (out) {
                        mask[static_cast<std::size_t>(y) * roi.width + x] = 1;
                        any = true;
                    }
                }
            }
        });
        if (!any) mask.clear();
    }
    for (const PixelRect& e : params.excludeRects) {
        if (e.width <= 0 || e.height <= 0)
            throw UsageError("the exclusion rectangle " + rectText(e) + " must have a positive width and height");
        const long long x0 = std::max<long long>(e.x, roi.x), y0 = std::max<long long>(e.y, roi.y);
        const long long x1 = std::min<long long>(static_cast<long long>(e.x) + e.width, roi.x + roi.width);
        const long long y1 = std::min<long long>(static_cast<long long>(e.y) + e.height, roi.y + roi.height);
        if (x0 >= x1 || y0 >= y1) continue;
        ensure();
        for (long long y = y0; y < y1; ++y)
            std::fill_n(mask.begin() + static_cast<std::ptrdiff_t>((y - roi.y) * roi.width + (x0 - roi.x)), x1 - x0,
                        std::uint8_t{1});
    }
    for (const PixelPolygon& polygon : params.excludePolygons) {
        PixelPolygon shifted = polygon;
        for (auto& [x, y] : shifted.points) {
            x -= roi.x;
            y -= roi.y;
        }
        ensure();
        rasterizePolygon(shifted, roi.width, roi.height, mask);
    }
    if (!mask.empty() && std::find(mask.begin(), mask.end(), 1) == mask.end()) mask.clear();
    return mask;
}

// Statistics of the included values that the pivot and the number formats need.
struct IncludedStats {
    std::size_t count = 0;
    double min = 0.0;
    double max = 0.0;
    double pivot = 0.0;
};

double orderStatisticInterpolated(std::size_t n, double p, const std::function<double(std::size_t)>& kth) {
    // The same interpolation as percentileOf (NumPy's default), over order statistics given by kth.
    const double rank = p / 100.0 * static_cast<double>(n - 1);
    const auto lo = static_cast<std::size_t>(std::floor(rank));
    const double frac = rank - static_cast<double>(lo);
    const double a = kth(lo);
    if (frac == 0.0 || lo + 1 >= n) return a;
    const double b = kth(lo + 1);
    return a + (b - a) * frac;
}

double percentileOfSpec(const PivotSpec& spec) {
    return spec.kind == PivotSpec::Kind::Median ? 50.0 : spec.value;
}

// Small integer samples: one histogram pass gives the exact mean, median and percentiles.
template <class T>
IncludedStats histogramStats(const T* p, const Image& image, const PixelRect& roi, const std::vector<std::uint8_t>& mask,
                             const PivotSpec& spec) {
    constexpr long long kOffset = -static_cast<long long>(std::numeric_limits<T>::min());
    constexpr std::size_t kBins = std::size_t{1} << (8 * sizeof(T));
    const int chunks = std::max(1, std::min(cpuThreadCount(), roi.height));
    std::vector<std::vector<std::uint64_t>> partial(static_cast<std::size_t>(chunks));
    const std::size_t grain = (static_cast<std::size_t>(roi.height) + chunks - 1) / chunks;
    parallelFor(0, static_cast<std::size_t>(roi.height), grain, [&](std::size_t b, std::size_t e) {
        std::vector<std::uint64_t>& h = partial[b / grain];
        h.assign(kBins, 0);
        for (std::size_t y = b; y < e; ++y) {
            const T* row = p + (roi.y + y) * static_cast<std::size_t>(image.width()) + roi.x;
            const std::uint8_t* m = mask.empty() ? nullptr : mask.data() + y * roi.width;
            for (int x = 0; x < roi.width; ++x)
                if (!m || !m[x]) ++h[static_cast<std::size_t>(static_cast<long long>(row[x]) + kOffset)];
        }
    });
    std::vector<std::uint64_t> hist(kBins, 0);
    for (const auto& h : partial)
        for (std::size_t i = 0; i < h.size(); ++i) hist[i] += h[i];
    IncludedStats s;
    long long sum = 0;
    bool first = true;
    for (std::size_t i = 0; i < kBins; ++i) {
        if (!hist[i]) continue;
        const long long v = static_cast<long long>(i) - kOffset;
        s.count += hist[i];
        sum += v * static_cast<long long>(hist[i]);
        if (first) s.min = static_cast<double>(v);
        s.max = static_cast<double>(v);
        first = false;
    }
    if (s.count == 0) return s;
    switch (spec.kind) {
    case PivotSpec::Kind::Number: s.pivot = spec.value; break;
    case PivotSpec::Kind::Mean:
        s.pivot = static_cast<double>(static_cast<long double>(sum) / static_cast<long double>(s.count));
        break;
    default: {
        std::size_t bin = 0, below = 0; // kth walks forward: order statistics are asked for in increasing k
        auto kth = [&](std::size_t k) {
            while (below + hist[bin] <= k) below += hist[bin++];
            return static_cast<double>(static_cast<long long>(bin) - kOffset);
        };
        s.pivot = orderStatisticInterpolated(s.count, percentileOfSpec(spec), kth);
    }
    }
    return s;
}

template <class T>
IncludedStats generalStats(const T* p, const Image& image, const PixelRect& roi, const std::vector<std::uint8_t>& mask,
                           const PivotSpec& spec) {
    struct RowStats {
        std::size_t count = 0;
        long double sum = 0.0L;
        double min = std::numeric_limits<double>::infinity();
        double max = -std::numeric_limits<double>::infinity();
    };
    std::vector<RowStats> rows(static_cast<std::size_t>(roi.height));
    parallelFor(0, rows.size(), 16, [&](std::size_t b, std::size_t e) {
        for (std::size_t y = b; y < e; ++y) {
            const T* row = p + (roi.y + y) * static_cast<std::size_t>(image.width()) + roi.x;
            const std::uint8_t* m = mask.empty() ? nullptr : mask.data() + y * roi.width;
            RowStats& r = rows[y];
            for (int x = 0; x < roi.width; ++x) {
                if (m && m[x]) continue;
                const double v = static_cast<double>(row[x]);
                ++r.count;
                r.sum += static_cast<long double>(row[x]);
                r.min = std::min(r.min, v);
                r.max = std::max(r.max, v);
            }
        }
    });
    IncludedStats s;
    long double sum = 0.0L;
    s.min = std::numeric_limits<double>::infinity();
    s.max = -std::numeric_limits<double>::infinity();
    for (const RowStats& r : rows) {
        s.count += r.count;
        sum += r.sum;
        s.min = std::min(s.min, r.min);
        s.max = std::max(s.max, r.max);
    }
    if (s.count == 0) return {};
    switch (spec.kind) {
    case PivotSpec::Kind::Number: s.pivot = spec.value; break;
    case PivotSpec::Kind::Mean: s.pivot = static_cast<double>(sum / static_cast<long double>(s.count)); break;
    default: {
        std::vector<double> values;
        values.reserve(s.count);
        for (int y = 0; y < roi.height; ++y) {
            const T* row = p + static_cast<std::size_t>(roi.y + y) * image.width() + roi.x;
            const std::uint8_t* m = mask.empty() ? nullptr : mask.data() + static_cast<std::size_t>(y) * roi.width;
            for (int x = 0; x < roi.width; ++x)
                if (!m || !m[x]) values.push_back(static_cast<double>(row[x]));
        }
        s.pivot = percentileOf(values, percentileOfSpec(spec));
    }
    }
    return s;
}

IncludedStats includedStats(const Image& image, const PixelRect& roi, const std::vector<std::uint8_t>& mask,
                            const PivotSpec& spec) {
    return image.visit([&](const auto* p) {
        using T = std::remove_cv_t<std::remove_pointer_t<decltype(p)>>;
        if constexpr (std::is_integral_v<T> && sizeof(T) <= 2) return histogramStats<T>(p, image, roi, mask, spec);
        else return generalStats<T>(p, image, roi, mask, spec);
    });
}

// Calls fn(r, c, a) ... through a typed accessor of cell (r, c); a in the work array's number format.
template <class T, class V>
V cellValue(const WorkArray& w, const T* p, int r, int c) {
    const std::size_t idx = static_cast<std::size_t>(w.imageY(r, c)) * w.image->width() + w.imageX(r, c);
    if constexpr (std::is_same_v<V, std::int64_t>) {
        // Wrapping subtraction: |v - pivot| < 2^62 is guaranteed in integer mode, whatever v's type.
        std::int64_t v;
        if constexpr (std::is_floating_point_v<T>) v = static_cast<std::int64_t>(std::llround(p[idx]));
        else v = static_cast<std::int64_t>(p[idx]);
        return static_cast<std::int64_t>(static_cast<std::uint64_t>(v) - static_cast<std::uint64_t>(w.pivotInt));
    } else {
        return static_cast<double>(p[idx]) - w.pivot;
    }
}

template <class V>
void fillRow(const WorkArray& w, int r, V* out) {
    w.image->visit([&](const auto* p) {
        for (int c = 0; c < w.cols; ++c) out[c] = w.isExcluded(r, c) ? V(0) : cellValue<std::remove_cv_t<std::remove_pointer_t<decltype(p)>>, V>(w, p, r, c);
    });
}

template <class V>
std::vector<V> prefixSums(const WorkArray& w) {
    const std::size_t cols = static_cast<std::size_t>(w.cols);
    std::vector<V> P((static_cast<std::size_t>(w.rows) + 1) * cols);
    // Column blocks: each block walks down the rows, so a transposed frame still reads image rows in order.
    parallelFor(0, cols, 64, [&](std::size_t c0, std::size_t c1) {
        w.image->visit([&](const auto* p) {
            using T = std::remove_cv_t<std::remove_pointer_t<decltype(p)>>;
            for (std::size_t c = c0; c < c1; ++c) P[c] = V(0);
            for (int r = 0; r < w.rows; ++r) {
                const V* above = P.data() + static_cast<std::size_t>(r) * cols;
                V* row = P.data() + static_cast<std::size_t>(r + 1) * cols;
                for (std::size_t c = c0; c < c1; ++c) {
                    const int ci = static_cast<int>(c);
                    const V a = w.isExcluded(r, ci) ? V(0) : cellValue<T, V>(w, p, r, ci);
                    row[c] = above[c] + a;
                }
            }
        });
    });
    return P;
}

} // namespace

PixelRect WorkArray::toImage(int row0, int col0, int nrows, int ncols) const {
    if (transposed) return {roi.x + row0, roi.y + col0, nrows, ncols};
    return {roi.x + col0, roi.y + row0, ncols, nrows};
}

void WorkArray::rowInteger(int r, std::int64_t* out) const { fillRow(*this, r, out); }
void WorkArray::rowReal(int r, double* out) const { fillRow(*this, r, out); }

bool WorkArray::fitsInt32() const {
    if (!integer) return false;
    const double a = static_cast<double>(rows) * maxAbs;
    return a < 1073741824.0 && static_cast<double>(positiveSumInt) + a < 2147483647.0;
}

double computePivot(const Image& image, const BrightestParams& params) {
    const PixelRect roi = checkedRoi(image, params);
    const auto mask = roiExclusionMask(image, roi, params);
    return includedStats(image, roi, mask, params.pivot).pivot;
}

WorkArray prepareWorkArray(const Image& image, const BrightestParams& params) {
    WorkArray w;
    w.image = &image;
    w.roi = checkedRoi(image, params);
    std::vector<std::uint8_t> mask = roiExclusionMask(image, w.roi, params);
    const IncludedStats stats = includedStats(image, w.roi, mask, params.pivot);
    w.includedCount = stats.count;
    w.pivot = params.pivot.kind == PivotSpec::Kind::Number ? params.pivot.value : stats.pivot;
    if (!std::isfinite(w.pivot)) throw UsageError("the pivot is not a finite number");
    w.transposed = w.roi.height > w.roi.width;
    w.rows = w.transposed ? w.roi.width : w.roi.height;
    w.cols = w.transposed ? w.roi.height : w.roi.width;
    if (!mask.empty() && w.transposed) {
        std::vector<std::uint8_t> t(mask.size());
        for (int y = 0; y < w.roi.height; ++y)
            for (int x = 0; x < w.roi.width; ++x)
                t[static_cast<std::size_t>(x) * w.cols + y] = mask[static_cast<std::size_t>(y) * w.roi.width + x];
        mask.swap(t);
    }
    w.excluded = std::move(mask);
    if (stats.count == 0) return w; // everything excluded: an empty result

    w.maxAbs = std::max(std::fabs(stats.max - w.pivot), std::fabs(stats.min - w.pivot));
    const bool integerSamples = isIntegerSampleType(image.sampleType()) || image.meta.integerValued;
    w.integer = integerSamples && std::floor(w.pivot) == w.pivot && std::fabs(w.pivot) < 9.0e15 &&
                w.maxAbs * static_cast<double>(stats.count) < 4.0e18;
    if (w.integer) w.pivotInt = static_cast<std::int64_t>(w.pivot);

    // Positive sum, per row and then in row order (deterministic whatever the thread count).
    std::vector<std::int64_t> rowInt(static_cast<std::size_t>(w.rows), 0);
    std::vector<double> rowReal(static_cast<std::size_t>(w.rows), 0.0);
    parallelFor(0, static_cast<std::size_t>(w.rows), 8, [&](std::size_t b, std::size_t e) {
        std::vector<std::int64_t> ib(w.integer ? w.cols : 0);
        std::vector<double> rb(w.integer ? 0 : w.cols);
        for (std::size_t r = b; r < e; ++r) {
            if (w.integer) {
                w.rowInteger(static_cast<int>(r), ib.data());
                for (std::int64_t v : ib) rowInt[r] += v > 0 ? v : 0;
            } else {
                w.rowReal(static_cast<int>(r), rb.data());
                for (double v : rb) rowReal[r] += v > 0 ? v : 0.0;
            }
        }
    });
    if (w.integer) {
        for (std::int64_t v : rowInt) w.positiveSumInt += v;
        w.positiveSum = static_cast<double>(w.positiveSumInt);
    } else {
        double s = 0.0;
        for (double v : rowReal) s += v;
        w.positiveSum = s * (1.0 + 1e-9) + 1e-300;
    }
    return w;
}

std::vector<std::int64_t> columnPrefixSumsInteger(const WorkArray& work) { return prefixSums<std::int64_t>(work); }
std::vector<double> columnPrefixSumsReal(const WorkArray& work) { return prefixSums<double>(work); }

void rasterizePolygon(const PixelPolygon& polygon, int width, int height, std::vector<std::uint8_t>& mask) {
    const auto& pts = polygon.points;
    if (pts.size() < 3) throw UsageError("an exclusion polygon needs at least three points");
    for (const auto& [x, y] : pts)
        if (!std::isfinite(x) || !std::isfinite(y)) throw UsageError("an exclusion polygon has a non-finite point");
    double ymin = pts[0].second, ymax = pts[0].second;
    for (const auto& pt : pts) {
        ymin = std::min(ymin, pt.second);
        ymax = std::max(ymax, pt.second);
    }
    const int y0 = std::max(0, static_cast<int>(std::floor(ymin)));
    const int y1 = std::min(height - 1, static_cast<int>(std::ceil(ymax)));
    std::vector<double> cross;
    for (int y = y0; y <= y1; ++y) {
        const double yc = y;
        cross.clear();
        // PNPOLY's test: an edge counts when it straddles the row, half-open at its upper end.
        for (std::size_t i = 0, j = pts.size() - 1; i < pts.size(); j = i++) {
            const auto [xi, yi] = pts[i];
            const auto [xj, yj] = pts[j];
            if ((yi > yc) != (yj > yc)) cross.push_back((xj - xi) * (yc - yi) / (yj - yi) + xi);
        }
        std::sort(cross.begin(), cross.end());
        // Centre x is inside when an odd number of crossings lie strictly right of it: c[2k] <= x < c[2k+1].
        for (std::size_t k = 0; k + 1 < cross.size(); k += 2) {
            const double lo = std::max(std::ceil(cross[k]), 0.0);
            const double hi = std::min(std::ceil(cross[k + 1]) - 1.0, static_cast<double>(width - 1));
            for (long long x = static_cast<long long>(lo); x <= static_cast<long long>(hi); ++x)
                mask[static_cast<std::size_t>(y) * width + static_cast<std::size_t>(x)] = 1;
        }
    }
}

} // namespace glint
