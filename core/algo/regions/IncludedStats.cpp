// The included pixels' statistics: count, extremes and the pivot (mean, median, percentiles) exactly, and a
// float row's sum and exponent range.
#include "core/algo/regions/WorkArrayParts.h"

#include "core/algo/maxsub/OrderedKey.h"
#include "core/io/Image.h"
#include "core/io/ImageStats.h"
#include "core/util/CpuFeatures.h"
#include "core/util/Errors.h"
#include "core/util/Parallel.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <immintrin.h>
#include <limits>
#include <type_traits>

namespace glint {

namespace regions {

namespace {

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


} // namespace

} // namespace regions

FloatRowStats floatRowStats(const float* row, int n) {
    return cpuHasAvx2() ? regions::floatRowStatsAvx2(row, n) : regions::floatRowStatsScalar(row, n);
}

namespace regions {

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

} // namespace

IncludedStats includedStats(const Image& image, const PixelRect& roi, const std::vector<std::uint8_t>& mask,
                            const PivotSpec& spec) {
    return image.visit([&](const auto* p) {
        using T = std::remove_cv_t<std::remove_pointer_t<decltype(p)>>;
        if constexpr (std::is_integral_v<T> && sizeof(T) <= 2) return histogramStats<T>(p, image, roi, mask, spec);
        else return generalStats<T>(p, image, roi, mask, spec);
    });
}

} // namespace regions

} // namespace glint
