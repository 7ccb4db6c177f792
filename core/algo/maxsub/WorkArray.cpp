#include "core/algo/maxsub/WorkArray.h"

#include "core/algo/maxsub/OrderedKey.h"

#include "core/io/Image.h"
#include "core/io/ImageStats.h"
#include "core/util/CpuFeatures.h"
#include "core/util/Errors.h"
#include "core/util/Parallel.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <immintrin.h>
#include <bit>
#include <functional>
#include <type_traits>
#include <cmath>
#include <cstdio>
#include <cstring>
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
    // Blanks and non-finite samples, found row by row on every core (a float image is first only
    // scanned: most have no NaN, and then no mask is made).
    const bool floating = !isIntegerSampleType(image.sampleType());
    bool nonFinite = false;
    if (floating && !image.hasBlanks()) {
        std::atomic<bool> any{false};
        image.visit([&](const auto* p) {
            using T = std::remove_cv_t<std::remove_pointer_t<decltype(p)>>;
            if constexpr (std::is_floating_point_v<T>) {
                parallelFor(0, static_cast<std::size_t>(roi.height), 16, [&](std::size_t y0, std::size_t y1) {
                    bool found = false;
                    for (std::size_t y = y0; y < y1 && !found; ++y) {
                        const T* row = p + (roi.y + y) * static_cast<std::size_t>(image.width()) + roi.x;
                        T acc = T(0);
                        for (int x = 0; x < roi.width; ++x) acc += row[x] - row[x]; // NaN unless all finite
                        found = !(acc == T(0));
                    }
                    if (found) any = true;
                }, threadsForPixels(static_cast<double>(roi.width) * roi.height));
            }
        });
        nonFinite = any;
    }
    if (image.hasBlanks() || nonFinite) {
        std::vector<std::uint8_t> m(n, 0);
        std::atomic<bool> any{false};
        image.visit([&](const auto* p) {
            using T = std::remove_cv_t<std::remove_pointer_t<decltype(p)>>;
            parallelFor(0, static_cast<std::size_t>(roi.height), 16, [&](std::size_t y0, std::size_t y1) {
                bool found = false;
                for (std::size_t y = y0; y < y1; ++y) {
                    const std::size_t base = (roi.y + y) * static_cast<std::size_t>(image.width()) + roi.x;
                    std::uint8_t* out = m.data() + y * roi.width;
                    if (image.hasBlanks()) {
                        const std::uint8_t* blank = image.blankMask().data() + base;
                        for (int x = 0; x < roi.width; ++x) out[x] = blank[x] != 0;
                    }
                    if constexpr (std::is_floating_point_v<T>) {
                        const T* row = p + base;
                        for (int x = 0; x < roi.width; ++x) out[x] |= !(row[x] - row[x] == T(0)); // NaN or inf
                    }
                    for (int x = 0; x < roi.width; ++x) found |= out[x] != 0;
                }
                if (found) any = true;
            }, threadsForPixels(static_cast<double>(roi.width) * roi.height));
        });
        if (any) mask = std::move(m);
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
    std::vector<std::uint64_t> histogram; // small integer types: counts by value - histogramOffset
    long long histogramOffset = 0;
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
    const int chunks = std::max(1, std::min(threadsForPixels(static_cast<double>(roi.width) * roi.height), roi.height));
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
    s.histogramOffset = kOffset;
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
    s.histogram = std::move(hist);
    return s;
}

// The k-th smallest (0-based) included value, exactly, by radix selection on order-preserving keys of the
// doubles: each pass histograms 16 more key bits on every core, keeping only the values whose higher bits
// match the bucket found so far; once few are left they are collected and std::nth_element finishes.
// ~1 ms for 1024^2 values on 16 cores where one nth_element over a copy took ~10 ms.
// With `next`, also the (k+1)-th smallest, from the same passes when it falls in the same last bucket (the
// usual case), else by a second selection.
template <class T>
double kthIncluded(const T* p, const Image& image, const PixelRect& roi, const std::vector<std::uint8_t>& mask,
                   std::size_t k, double* next = nullptr) {
    auto keyOf = [](double v) { return orderedKey(v + 0.0); }; // -0 and +0 alike
    const int chunks = std::max(1, std::min(threadsForPixels(static_cast<double>(roi.width) * roi.height), roi.height));
    const std::size_t grain = (static_cast<std::size_t>(roi.height) + chunks - 1) / chunks;
    auto forEach = [&](auto&& visit) { // visit(chunk, key, value) over the included values, in parallel
        parallelFor(0, static_cast<std::size_t>(roi.height), grain, [&](std::size_t b, std::size_t e) {
            for (std::size_t y = b; y < e; ++y) {
                const T* row = p + (roi.y + y) * static_cast<std::size_t>(image.width()) + roi.x;
                const std::uint8_t* m = mask.empty() ? nullptr : mask.data() + y * roi.width;
                for (int x = 0; x < roi.width; ++x)
                    if (!m || !m[x]) {
                        const double v = static_cast<double>(row[x]);
                        visit(b / grain, keyOf(v), v);
                    }
            }
        });
    };
    std::uint64_t prefix = 0; // the key bits fixed so far (the top `fixed` bits)
    int fixed = 0;
    std::size_t rank = k, left = 0;
    constexpr std::size_t kFew = 1 << 16;
    while (fixed < 64) {
        std::vector<std::vector<std::uint32_t>> partial(static_cast<std::size_t>(chunks));
        const int shift = 64 - fixed - 16;
        forEach([&](std::size_t c, std::uint64_t key, double) {
            if (fixed && (key >> (64 - fixed)) != prefix) return;
            std::vector<std::uint32_t>& h = partial[c];
            if (h.empty()) h.assign(std::size_t{1} << 16, 0);
            ++h[static_cast<std::size_t>((key >> shift) & 0xffff)];
        });
        std::vector<std::uint64_t> hist(std::size_t{1} << 16, 0);
        for (const auto& h : partial)
            for (std::size_t i = 0; i < h.size(); ++i) hist[i] += h[i];
        std::size_t bucket = 0, below = 0;
        while (below + hist[bucket] <= rank) below += hist[bucket++];
        rank -= below;
        left = hist[bucket];
        if (next && rank + 1 >= left) { // the (k+1)-th lies in a later bucket: its own selection
            *next = kthIncluded(p, image, roi, mask, k + 1);
            next = nullptr;
        }
        prefix = (prefix << 16) | bucket;
        fixed += 16;
        if (left <= kFew) break;
    }
    if (fixed == 64) { // every key bit fixed: the value itself (and the next one too, when asked for)
        const std::uint64_t b = (prefix & 0x8000000000000000ull) ? (prefix & ~0x8000000000000000ull) : ~prefix;
        double v;
        std::memcpy(&v, &b, sizeof(v));
        if (next) *next = v;
        return v;
    }
    std::vector<std::vector<double>> found(static_cast<std::size_t>(chunks));
    forEach([&](std::size_t c, std::uint64_t key, double v) {
        if ((key >> (64 - fixed)) == prefix) found[c].push_back(v + 0.0);
    });
    std::vector<double> candidates;
    candidates.reserve(left);
    for (const auto& f : found) candidates.insert(candidates.end(), f.begin(), f.end());
    std::nth_element(candidates.begin(), candidates.begin() + static_cast<std::ptrdiff_t>(rank), candidates.end());
    if (next) *next = *std::min_element(candidates.begin() + static_cast<std::ptrdiff_t>(rank) + 1, candidates.end());
    return candidates[rank];
}

__attribute__((target("avx2"))) FloatRowStats floatRowStatsAvx2(const float* row, int n) {
    __m256d s0 = _mm256_setzero_pd(), s1 = _mm256_setzero_pd(), s2 = _mm256_setzero_pd(), s3 = _mm256_setzero_pd();
    __m256 mn = _mm256_set1_ps(std::numeric_limits<float>::infinity()), mx = _mm256_set1_ps(-std::numeric_limits<float>::infinity());
    __m256i eMax = _mm256_setzero_si256(), eMin = _mm256_set1_epi32(255);
    const __m256i expMask = _mm256_set1_epi32(0xff), absMask = _mm256_set1_epi32(0x7fffffff), none = _mm256_set1_epi32(255);
    int x = 0;
    for (; x + 16 <= n; x += 16) {
        const __m256 a = _mm256_loadu_ps(row + x), b = _mm256_loadu_ps(row + x + 8);
        s0 = _mm256_add_pd(s0, _mm256_cvtps_pd(_mm256_castps256_ps128(a)));
        s1 = _mm256_add_pd(s1, _mm256_cvtps_pd(_mm256_extractf128_ps(a, 1)));
        s2 = _mm256_add_pd(s2, _mm256_cvtps_pd(_mm256_castps256_ps128(b)));
        s3 = _mm256_add_pd(s3, _mm256_cvtps_pd(_mm256_extractf128_ps(b, 1)));
        for (const __m256 v : {a, b}) {
            const __m256i bits = _mm256_castps_si256(v);
            const __m256i e = _mm256_and_si256(_mm256_srli_epi32(bits, 23), expMask);
            const __m256i zero = _mm256_cmpeq_epi32(_mm256_and_si256(bits, absMask), _mm256_setzero_si256());
            eMax = _mm256_max_epu32(eMax, e);
            eMin = _mm256_min_epu32(eMin, _mm256_blendv_epi8(e, none, zero));
            mn = _mm256_min_ps(v, mn);
            mx = _mm256_max_ps(v, mx);
        }
    }
    alignas(32) double sums[16];
    _mm256_store_pd(sums, s0);
    _mm256_store_pd(sums + 4, s1);
    _mm256_store_pd(sums + 8, s2);
    _mm256_store_pd(sums + 12, s3);
    alignas(32) float mins[8], maxs[8];
    alignas(32) std::uint32_t his[8], los[8];
    _mm256_store_ps(mins, mn);
    _mm256_store_ps(maxs, mx);
    _mm256_store_si256(reinterpret_cast<__m256i*>(his), eMax);
    _mm256_store_si256(reinterpret_cast<__m256i*>(los), eMin);
    FloatRowStats r;
    r.min = std::numeric_limits<float>::infinity();
    r.max = -r.min;
    for (int k = 0; k < 16; ++k) r.sum += sums[k];
    for (int k = 0; k < 8; ++k) {
        r.min = mins[k] < r.min ? mins[k] : r.min;
        r.max = maxs[k] > r.max ? maxs[k] : r.max;
        r.hi = std::max(r.hi, his[k]);
        r.lo = std::min(r.lo, los[k]);
    }
    for (; x < n; ++x) {
        const float v = row[x];
        r.sum += static_cast<double>(v);
        r.min = v < r.min ? v : r.min;
        r.max = v > r.max ? v : r.max;
        const std::uint32_t b = std::bit_cast<std::uint32_t>(v), e = (b >> 23) & 0xffu;
        r.hi = std::max(r.hi, e);
        r.lo = std::min(r.lo, (b & 0x7fffffffu) ? e : 255u);
    }
    // A NaN or an infinity makes the sum non-finite (finite floats cannot overflow a double sum).
    r.finite = std::isfinite(r.sum);
    return r;
}

FloatRowStats floatRowStatsScalar(const float* row, int n) {
    FloatRowStats r;
    r.min = std::numeric_limits<float>::infinity();
    r.max = -r.min;
    double s[4] = {0.0, 0.0, 0.0, 0.0};
    int x = 0;
    for (; x < n; ++x) {
        const float v = row[x];
        s[x & 3] += static_cast<double>(v);
        r.min = v < r.min ? v : r.min;
        r.max = v > r.max ? v : r.max;
        const std::uint32_t b = std::bit_cast<std::uint32_t>(v), e = (b >> 23) & 0xffu;
        r.hi = std::max(r.hi, e);
        r.lo = std::min(r.lo, (b & 0x7fffffffu) ? e : 255u);
    }
    r.sum = (s[0] + s[1]) + (s[2] + s[3]);
    r.finite = std::isfinite(r.sum);
    return r;
}

// The positive sums' four chains over a float row without a mask (chain k adds the samples x = k mod 4, in
// order: lane k of one vector), as far as whole groups of 4 go; returns where the scalar loop goes on.
__attribute__((target("avx2"))) int positiveChainsAvx2(const float* row, int width, double pivot, double s[4]) {
    __m256d acc = _mm256_loadu_pd(s);
    const __m256d pv = _mm256_set1_pd(pivot), zero = _mm256_setzero_pd();
    int x = 0;
    for (; x + 8 <= width; x += 8) {
        const __m256 v = _mm256_loadu_ps(row + x);
        const __m256d a = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(v)), pv);
        const __m256d b = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)), pv);
        acc = _mm256_add_pd(acc, _mm256_and_pd(_mm256_cmp_pd(a, zero, _CMP_GT_OQ), a));
        acc = _mm256_add_pd(acc, _mm256_and_pd(_mm256_cmp_pd(b, zero, _CMP_GT_OQ), b));
    }
    _mm256_storeu_pd(s, acc);
    return x;
}

} // namespace

FloatRowStats floatRowStats(const float* row, int n) {
    return cpuHasAvx2() ? floatRowStatsAvx2(row, n) : floatRowStatsScalar(row, n);
}

namespace {

// A row's count, sum, minimum and maximum (all its samples), when every sum of them is exact in double: 32-bit
// integers (summed in int64) and float rows whose exponents span little enough (exactFloatSums); false
// otherwise (a float row with a non-finite sample included).
template <class T>
bool fastRowStats(const T* row, int width, std::size_t& count, long double& sum, double& min, double& max) {
    constexpr int L = 8;
    T mn[L], mx[L];
    for (int k = 0; k < L; ++k) mn[k] = mx[k] = row[0];
    if constexpr (std::is_integral_v<T>) {
        std::int64_t s[L] = {};
        const auto lane = [&](int k, T v) {
            s[k] += v;
            mn[k] = v < mn[k] ? v : mn[k];
            mx[k] = v > mx[k] ? v : mx[k];
        };
        int x = 0;
        for (; x + L <= width; x += L)
            for (int k = 0; k < L; ++k) lane(k, row[x + k]);
        for (int k = 0; x < width; ++x, ++k) lane(k, row[x]);
        std::int64_t total = 0;
        for (int k = 0; k < L; ++k) total += s[k];
        sum = static_cast<long double>(total);
    } else {
        const FloatRowStats f = floatRowStats(row, width);
        if (!f.exact(width)) return false;
        count = static_cast<std::size_t>(width);
        sum = static_cast<long double>(f.sum);
        min = static_cast<double>(f.min);
        max = static_cast<double>(f.max);
        return true;
    }
    T lo = mn[0], hi = mx[0];
    for (int k = 1; k < L; ++k) {
        lo = mn[k] < lo ? mn[k] : lo;
        hi = mx[k] > hi ? mx[k] : hi;
    }
    count = static_cast<std::size_t>(width);
    min = static_cast<double>(lo);
    max = static_cast<double>(hi);
    return true;
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
            if constexpr (std::is_same_v<T, float> || (std::is_integral_v<T> && sizeof(T) == 4)) {
                // Without a mask: the row's sum in 8 partial sums (vectorised) where it is exact in any order,
                // hence equal to the long double chain's (exact too: 64 significant bits).
                if (!m && fastRowStats(row, roi.width, rows[y].count, rows[y].sum, rows[y].min, rows[y].max)) continue;
            }
            // Locals, not the row's record: an 80-bit long double kept in memory stalls every addition.
            std::size_t count = 0;
            long double sum = 0.0L;
            double mn = std::numeric_limits<double>::infinity(), mx = -mn;
            for (int x = 0; x < roi.width; ++x) {
                if (m && m[x]) continue;
                const double v = static_cast<double>(row[x]);
                ++count;
                sum += static_cast<long double>(row[x]);
                mn = v < mn ? v : mn;
                mx = v > mx ? v : mx;
            }
            rows[y] = {count, sum, mn, mx};
        }
    }, threadsForPixels(static_cast<double>(roi.width) * roi.height));
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
        // The same order statistics and interpolation as percentileOf (NumPy's default), selected in
        // parallel instead of by nth_element over a copy of every value.
        // Both order statistics the interpolation needs come from one selection.
        double following = 0.0;
        std::size_t first = 0;
        bool haveFollowing = false;
        auto kth = [&](std::size_t k) {
            if (haveFollowing && k == first + 1) return following;
            first = k;
            haveFollowing = k + 1 < s.count;
            return kthIncluded(p, image, roi, mask, k, haveFollowing ? &following : nullptr);
        };
        s.pivot = orderStatisticInterpolated(s.count, percentileOfSpec(spec), kth);
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

// The value a of cell (r, c) in the work array's number format, through the typed sample pointer.
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
void fillRow(const WorkArray& w, int r, V* out, int c0, int c1) {
    if (c1 < 0) c1 = w.cols;
    const std::uint8_t* m = w.excluded.empty() ? nullptr : w.excluded.data() + static_cast<std::size_t>(r) * w.cols;
    w.image->visit([&](const auto* p) {
        using T = std::remove_cv_t<std::remove_pointer_t<decltype(p)>>;
        if (!w.transposed && (std::is_floating_point_v<V> || !std::is_floating_point_v<T>)) {
            // The common case, in a loop the compiler vectorises (the same arithmetic as cellValue).
            const T* src = p + (w.roi.y + r) * static_cast<std::size_t>(w.image->width()) + w.roi.x;
            const V pivot = std::is_floating_point_v<V> ? static_cast<V>(w.pivot) : static_cast<V>(w.pivotInt);
            for (int c = c0; c < c1; ++c) out[c - c0] = (m && m[c]) ? V(0) : static_cast<V>(src[c]) - pivot;
            return;
        }
        for (int c = c0; c < c1; ++c) out[c - c0] = (m && m[c]) ? V(0) : cellValue<T, V>(w, p, r, c);
    });
}

template <class V>
std::vector<V> prefixSums(const WorkArray& w) {
    const std::size_t cols = static_cast<std::size_t>(w.cols);
    std::vector<V> P((static_cast<std::size_t>(w.rows) + 1) * cols, V(0));
    // Column blocks walk down the rows (a transposed frame still reads image rows in order).
    parallelFor(0, cols, 256, [&](std::size_t c0, std::size_t c1) {
        std::vector<V> a(c1 - c0);
        for (int r = 0; r < w.rows; ++r) {
            fillRow(w, r, a.data(), static_cast<int>(c0), static_cast<int>(c1));
            const V* above = P.data() + static_cast<std::size_t>(r) * cols;
            V* row = P.data() + static_cast<std::size_t>(r + 1) * cols;
            for (std::size_t c = c0; c < c1; ++c) row[c] = above[c] + a[c - c0];
        }
    }, threadsForPixels(static_cast<double>(w.rows) * w.cols));
    return P;
}

// The sum of the positive a over the included pixels: exact in integer mode, rounded up otherwise.
// From the histogram when there is one; otherwise row by row on every core, rows added in order.
void positiveSums(WorkArray& w, const IncludedStats& stats, const std::vector<std::uint8_t>& roiMask) {
    if (!stats.histogram.empty()) {
        long double real = 0.0L;
        std::int64_t exact = 0;
        for (std::size_t i = 0; i < stats.histogram.size(); ++i) {
            if (!stats.histogram[i]) continue;
            const long long v = static_cast<long long>(i) - stats.histogramOffset;
            const auto n = static_cast<std::int64_t>(stats.histogram[i]);
            if (w.integer && v > w.pivotInt) exact += (v - w.pivotInt) * n;
            if (!w.integer && v > w.pivot) real += (static_cast<long double>(v) - w.pivot) * n;
        }
        w.positiveSumInt = exact;
        w.positiveSum = w.integer ? static_cast<double>(exact) : static_cast<double>(real) * (1.0 + 1e-9) + 1e-300;
        return;
    }
    const PixelRect& roi = w.roi;
    std::vector<std::int64_t> rowInt(static_cast<std::size_t>(roi.height), 0);
    std::vector<double> rowReal(static_cast<std::size_t>(roi.height), 0.0);
    w.image->visit([&](const auto* p) {
        using T = std::remove_cv_t<std::remove_pointer_t<decltype(p)>>;
        parallelFor(0, rowInt.size(), 16, [&](std::size_t y0, std::size_t y1) {
            for (std::size_t y = y0; y < y1; ++y) {
                const T* row = p + (roi.y + y) * static_cast<std::size_t>(w.image->width()) + roi.x;
                const std::uint8_t* m = roiMask.empty() ? nullptr : roiMask.data() + y * roi.width;
                if (w.integer) {
                    std::int64_t s = 0;
                    for (int x = 0; x < roi.width; ++x) {
                        if (m && m[x]) continue;
                        std::int64_t v;
                        if constexpr (std::is_floating_point_v<T>) v = static_cast<std::int64_t>(std::llround(row[x]));
                        else v = static_cast<std::int64_t>(row[x]);
                        const auto a = static_cast<std::int64_t>(static_cast<std::uint64_t>(v) -
                                                                 static_cast<std::uint64_t>(w.pivotInt));
                        s += a > 0 ? a : 0;
                    }
                    rowInt[y] = s;
                } else {
                    double s[4] = {0.0, 0.0, 0.0, 0.0}; // four chains: the additions overlap
                    int x = 0;
                    if constexpr (std::is_same_v<T, float>)
                        if (!m && cpuHasAvx2()) x = positiveChainsAvx2(row, roi.width, w.pivot, s);
                    for (; x + 4 <= roi.width; x += 4)
                        for (int k = 0; k < 4; ++k) {
                            const double a = static_cast<double>(row[x + k]) - w.pivot;
                            s[k] += (m && m[x + k]) || !(a > 0) ? 0.0 : a;
                        }
                    for (; x < roi.width; ++x) {
                        const double a = static_cast<double>(row[x]) - w.pivot;
                        s[0] += (m && m[x]) || !(a > 0) ? 0.0 : a;
                    }
                    rowReal[y] = (s[0] + s[1]) + (s[2] + s[3]);
                }
            }
        }, threadsForPixels(static_cast<double>(roi.width) * roi.height));
    });
    if (w.integer) {
        for (std::int64_t v : rowInt) w.positiveSumInt += v;
        w.positiveSum = static_cast<double>(w.positiveSumInt);
    } else {
        double s = 0.0;
        for (double v : rowReal) s += v;
        w.positiveSum = s * (1.0 + 1e-9) + 1e-300;
    }
}

} // namespace

void checkSumRange(const WorkArray& work, const PivotSpec& pivot) {
    constexpr double kLimit = 1e300;
    if (work.integer || work.includedCount == 0) return;
    const double n = static_cast<double>(work.includedCount);
    if (work.maxAbs * n < kLimit) return;
    // |a| <= |I| + |pivot|: a pivot above half the limit per pixel is what breaks the bound.
    const double pivotLimit = kLimit / (2.0 * n);
    if (pivot.kind == PivotSpec::Kind::Number && std::fabs(pivot.value) > pivotLimit) {
        char limit[32];
        std::snprintf(limit, sizeof limit, "%.3g", pivotLimit);
        throw UsageError("the pivot " + pivot.text() + " is too large: the sums of I - pivot over the " +
                         std::to_string(work.includedCount) + " included pixels would leave double range (|pivot| must be at most " +
                         limit + " here)");
    }
    throw InputError("the image values are too large: their sums leave double range");
}

PixelRect WorkArray::toImage(int row0, int col0, int nrows, int ncols) const {
    if (transposed) return {roi.x + row0, roi.y + col0, nrows, ncols};
    return {roi.x + col0, roi.y + row0, ncols, nrows};
}

void WorkArray::rowInteger(int r, std::int64_t* out, int c0, int c1) const { fillRow(*this, r, out, c0, c1); }
void WorkArray::rowReal(int r, double* out, int c0, int c1) const { fillRow(*this, r, out, c0, c1); }

bool WorkArray::fitsInt32() const {
    if (!integer) return false;
    const double a = static_cast<double>(rows) * maxAbs;
    return a < 1073741824.0 && static_cast<double>(positiveSumInt) + a < 2147483647.0;
}

PreparedRegionSearch prepareRegionSearch(const Image& image, const BrightestParams& params, BrightestMode mode,
                                         Backend resolved, JobControl& job, DeviceLocalPivot* device) {
    PreparedRegionSearch s;
    BrightestResult& result = s.result;
    result.pivotSpec = params.pivot;
    result.mode = mode;
    result.imageWidth = image.width();
    result.imageHeight = image.height();
    result.backend = resolved;
    result.device = job.device();
    {
        auto step = job.timing().scope("preprocess");
        s.work = prepareWorkArray(image, params, device, &job);
    }
    job.throwIfCancelled();
    checkSumRange(s.work, params.pivot); // every rectangle sum is bounded by the sum of |a|
    result.pivot = s.work.pivot;
    result.exactInteger = s.work.integer;
    result.includedPixels = s.work.includedCount;
    result.threshold = params.threshold;
    if (s.work.background && !s.work.background->empty()) {
        result.hasModel = true;
        result.globalBackground = s.work.background->globalBackground();
        result.globalRms = s.work.background->globalRms();
    }
    if (s.work.localPivot) result.pivot = result.globalBackground + params.threshold * result.globalRms;
    return s;
}

std::vector<std::uint8_t> imageExclusionMask(const Image& image, const BrightestParams& params) {
    return roiExclusionMask(image, {0, 0, image.width(), image.height()}, params);
}

BackgroundParams backgroundParamsOf(const BrightestParams& params) {
    BackgroundParams b;
    b.mesh = params.mesh;
    return b;
}

namespace {

bool needsModel(const BrightestParams& params) {
    return params.pivot.kind == PivotSpec::Kind::Local || params.threshold != 0.0 || params.minSnr > 0.0;
}

// The model when the search needs it; null otherwise (it costs ~7 ms a megapixel on 2 cores, more than the
// GPU's whole search of large frames, so the plain pivots do without it and their regions have no SNR).
std::shared_ptr<const BackgroundMap> modelFor(const Image& image, const BrightestParams& params) {
    if (!needsModel(params)) return nullptr;
    return std::make_shared<const BackgroundMap>(
        estimateBackground(image, imageExclusionMask(image, params), backgroundParamsOf(params)));
}

// The double image I - bkg - threshold * rms over the ROI (0 elsewhere), blank where the source is.
std::shared_ptr<const Image> localWorkImage(const Image& image, const PixelRect& roi, const BackgroundMap& model,
                                            double threshold) {
    auto d = std::make_shared<Image>(image.width(), image.height(), SampleType::Float64);
    d->meta.integerValued = false;
    if (image.hasBlanks()) d->setBlankMask(image.blankMask());
    double* out = d->mutableSamples<double>();
    image.visit([&](const auto* p) {
        parallelFor(0, static_cast<std::size_t>(roi.height), 8, [&](std::size_t y0, std::size_t y1) {
            std::vector<double> back(static_cast<std::size_t>(roi.width)), rms(back.size());
            for (std::size_t yy = y0; yy < y1; ++yy) {
                const int y = roi.y + static_cast<int>(yy);
                model.row(y, roi.x, roi.x + roi.width, back.data(), threshold != 0.0 ? rms.data() : nullptr);
                const std::size_t base = static_cast<std::size_t>(y) * image.width() + roi.x;
                if (threshold != 0.0)
                    for (int x = 0; x < roi.width; ++x)
                        out[base + x] = static_cast<double>(p[base + x]) - back[x] - threshold * rms[x];
                else
                    for (int x = 0; x < roi.width; ++x) out[base + x] = static_cast<double>(p[base + x]) - back[x];
            }
        });
    });
    return d;
}

WorkArray prepareWorkArrayOf(const Image& image, const BrightestParams& params, double pivotShift);

} // namespace

double computePivot(const Image& image, const BrightestParams& params) {
    const PixelRect roi = checkedRoi(image, params);
    double shift = 0.0, base = 0.0;
    if (needsModel(params)) {
        const auto model = modelFor(image, params);
        shift = params.threshold * model->globalRms();
        if (params.pivot.kind == PivotSpec::Kind::Local) return model->globalBackground() + shift;
    }
    const auto mask = roiExclusionMask(image, roi, params);
    base = includedStats(image, roi, mask, params.pivot).pivot;
    return base + shift;
}

namespace {

// The local pivot's work array from the device (DeviceLocalPivot): the same fields as the host path's,
// `image` null and the samples in device memory. Null model: the device declined after all (a not finite
// where the host path would exclude it: the caller prepares on the host with that model).
bool prepareOnDevice(const Image& image, const BrightestParams& params, DeviceLocalPivot& device, JobControl& job,
                     WorkArray& w, std::shared_ptr<const BackgroundMap>& model) {
    const PixelRect roi = checkedRoi(image, params);
    const BackgroundParams bp = backgroundParamsOf(params);
    checkBackgroundParams(image.width(), image.height(), bp);
    const std::vector<std::uint8_t> imageMask = imageExclusionMask(image, params);
    model = std::make_shared<const BackgroundMap>(
        backgroundFromCells(image.width(), image.height(), bp, device.cells(image, imageMask, bp, job)));
    const bool whole = roi.x == 0 && roi.y == 0 && roi.width == image.width() && roi.height == image.height();
    std::vector<std::uint8_t> mask = whole ? imageMask : roiExclusionMask(image, roi, params);
    const DeviceDerivedStats d = device.derive(*model, roi, params.threshold, mask, job);
    if (d.nonFinite > 0) return false;
    w.image = nullptr;
    w.deviceSamples = d.samples;
    w.roi = roi;
    w.includedCount = d.included;
    w.pivot = 0.0;
    w.transposed = roi.height > roi.width;
    w.rows = w.transposed ? roi.width : roi.height;
    w.cols = w.transposed ? roi.height : roi.width;
    w.integer = false;
    if (d.included > 0) {
        w.maxAbs = d.maxAbs;
        w.positiveSum = d.positiveSum;
    }
    if (!mask.empty() && w.transposed) {
        std::vector<std::uint8_t> t(mask.size());
        for (int y = 0; y < roi.height; ++y)
            for (int x = 0; x < roi.width; ++x)
                t[static_cast<std::size_t>(x) * w.cols + y] = mask[static_cast<std::size_t>(y) * roi.width + x];
        mask.swap(t);
    }
    w.excluded = std::move(mask);
    w.localPivot = true;
    return true;
}

} // namespace

WorkArray prepareWorkArray(const Image& image, const BrightestParams& params, DeviceLocalPivot* device, JobControl* job) {
    const PixelRect roi = checkedRoi(image, params);
    std::shared_ptr<const BackgroundMap> model;
    WorkArray w;
    JobControl local;
    if (device && params.pivot.kind == PivotSpec::Kind::Local && device->accepts(image, params) &&
        prepareOnDevice(image, params, *device, job ? *job : local, w, model)) {
        w.source = &image;
        w.background = std::move(model);
        w.threshold = params.threshold;
        return w;
    }
    if (!model) model = modelFor(image, params);
    if (params.pivot.kind == PivotSpec::Kind::Local) {
        std::shared_ptr<const Image> derived = localWorkImage(image, roi, *model, params.threshold);
        BrightestParams inner = params;
        inner.pivot = PivotSpec::parse("0");
        w = prepareWorkArrayOf(*derived, inner, 0.0);
        w.derived = std::move(derived);
        w.localPivot = true;
    } else {
        w = prepareWorkArrayOf(image, params, model && params.threshold != 0.0 ? params.threshold * model->globalRms() : 0.0);
    }
    w.source = &image;
    w.background = std::move(model);
    w.threshold = params.threshold;
    return w;
}

namespace {

WorkArray prepareWorkArrayOf(const Image& image, const BrightestParams& params, double pivotShift) {
    WorkArray w;
    w.image = &image;
    w.source = &image;
    w.roi = checkedRoi(image, params);
    std::vector<std::uint8_t> mask = roiExclusionMask(image, w.roi, params);
    const IncludedStats stats = includedStats(image, w.roi, mask, params.pivot);
    w.includedCount = stats.count;
    w.pivot = (params.pivot.kind == PivotSpec::Kind::Number ? params.pivot.value : stats.pivot) + pivotShift;
    if (!std::isfinite(w.pivot)) throw UsageError("the pivot is not a finite number");
    w.transposed = w.roi.height > w.roi.width;
    w.rows = w.transposed ? w.roi.width : w.roi.height;
    w.cols = w.transposed ? w.roi.height : w.roi.width;
    if (stats.count > 0) {
        w.maxAbs = std::max(std::fabs(stats.max - w.pivot), std::fabs(stats.min - w.pivot));
        const bool integerSamples = isIntegerSampleType(image.sampleType()) || image.meta.integerValued;
        w.integer = integerSamples && std::floor(w.pivot) == w.pivot && std::fabs(w.pivot) < 9.0e15 &&
                    w.maxAbs * static_cast<double>(stats.count) < 4.0e18;
        if (w.integer) w.pivotInt = static_cast<std::int64_t>(w.pivot);
        positiveSums(w, stats, mask);
    }
    if (!mask.empty() && w.transposed) {
        std::vector<std::uint8_t> t(mask.size());
        for (int y = 0; y < w.roi.height; ++y)
            for (int x = 0; x < w.roi.width; ++x)
                t[static_cast<std::size_t>(x) * w.cols + y] = mask[static_cast<std::size_t>(y) * w.roi.width + x];
        mask.swap(t);
    }
    w.excluded = std::move(mask);
    return w;
}

} // namespace

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
