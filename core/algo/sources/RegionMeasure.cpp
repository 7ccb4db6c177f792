#include "core/algo/sources/RegionMeasure.h"

#include "core/io/Image.h"
#include "core/io/Wcs.h"
#include "core/util/CpuFeatures.h"
#include "core/util/Parallel.h"

#include <algorithm>
#include <array>
#include <map>
#include <mutex>
#include <bit>
#include <memory>
#include <charconv>
#include <immintrin.h>
#include <cmath>
#include <limits>
#include <type_traits>

namespace glint {

namespace {

constexpr int kRowsPerChunk = 16; // rows of one task of a measurement pass

std::optional<double> headerNumber(const Image& image, const char* key) {
    for (const HeaderCard& card : image.meta.header) {
        if (card.key != key) continue;
        std::string v = card.value;
        v.erase(0, v.find_first_not_of(" '"));
        v.erase(v.find_last_not_of(" '") + 1);
        double out = 0.0;
        const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
        if (ec == std::errc() && end == v.data() + v.size() && std::isfinite(out)) return out;
    }
    return std::nullopt;
}


template <class T>
struct PlainTables;

// The centroid sums of a float row over its finite samples above the pivot (v, x * v, their number and the sum
// of their x; the last two exact in double), in partial sums, and the exponent range of all its finite
// non-zero samples (lo 255: none), for exactFloatSums.
struct FloatMoments {
    double sv = 0.0, sxv = 0.0, count = 0.0, sx = 0.0;
    std::uint32_t hi = 0, lo = 255;
};

void floatMomentsTail(const float* row, int x, int x1, double pivot, FloatMoments& f) {
    for (; x < x1; ++x) {
        const float v = row[x];
        const std::uint32_t b = std::bit_cast<std::uint32_t>(v), e = (b >> 23) & 0xffu;
        const bool finite = e != 0xffu;
        const bool in = static_cast<double>(v) > pivot && finite;
        f.sv += in ? static_cast<double>(v) : 0.0;
        f.sxv += in ? static_cast<double>(x) * static_cast<double>(v) : 0.0;
        f.count += in ? 1.0 : 0.0;
        f.sx += in ? static_cast<double>(x) : 0.0;
        f.hi = std::max(f.hi, finite ? e : 0u);
        f.lo = std::min(f.lo, finite && (b & 0x7fffffffu) ? e : 255u);
    }
}

__attribute__((target("avx2"))) void floatMomentsAvx2(const float* row, int x0, int x1, double pivot, FloatMoments& f) {
    __m256d sv0 = _mm256_setzero_pd(), sv1 = sv0, sxv0 = sv0, sxv1 = sv0, c0 = sv0, c1 = sv0, sx0 = sv0, sx1 = sv0;
    __m256i eMax = _mm256_setzero_si256(), eMin = _mm256_set1_epi32(255);
    const __m256i expMask = _mm256_set1_epi32(0xff), absMask = _mm256_set1_epi32(0x7fffffff), none = _mm256_set1_epi32(255);
    const __m256d pv = _mm256_set1_pd(pivot), inf = _mm256_set1_pd(std::numeric_limits<double>::infinity());
    const __m256d one = _mm256_set1_pd(1.0), four = _mm256_set1_pd(4.0), eight = _mm256_set1_pd(8.0);
    __m256d xa = _mm256_setr_pd(x0, x0 + 1.0, x0 + 2.0, x0 + 3.0);
    __m256d xb = _mm256_add_pd(xa, four);
    int x = x0;
    for (; x + 8 <= x1; x += 8) {
        const __m256 v = _mm256_loadu_ps(row + x);
        const __m256i bits = _mm256_castps_si256(v);
        const __m256i e = _mm256_and_si256(_mm256_srli_epi32(bits, 23), expMask);
        const __m256i bad = _mm256_cmpeq_epi32(e, expMask);
        const __m256i zero = _mm256_cmpeq_epi32(_mm256_and_si256(bits, absMask), _mm256_setzero_si256());
        eMax = _mm256_max_epu32(eMax, _mm256_andnot_si256(bad, e));
        eMin = _mm256_min_epu32(eMin, _mm256_blendv_epi8(e, none, _mm256_or_si256(zero, bad)));
        const __m256d va = _mm256_cvtps_pd(_mm256_castps256_ps128(v)), vb = _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1));
        const __m256d ma = _mm256_and_pd(_mm256_cmp_pd(va, pv, _CMP_GT_OQ), _mm256_cmp_pd(va, inf, _CMP_LT_OQ));
        const __m256d mb = _mm256_and_pd(_mm256_cmp_pd(vb, pv, _CMP_GT_OQ), _mm256_cmp_pd(vb, inf, _CMP_LT_OQ));
        sv0 = _mm256_add_pd(sv0, _mm256_and_pd(ma, va));
        sv1 = _mm256_add_pd(sv1, _mm256_and_pd(mb, vb));
        sxv0 = _mm256_add_pd(sxv0, _mm256_and_pd(ma, _mm256_mul_pd(xa, va)));
        sxv1 = _mm256_add_pd(sxv1, _mm256_and_pd(mb, _mm256_mul_pd(xb, vb)));
        c0 = _mm256_add_pd(c0, _mm256_and_pd(ma, one));
        c1 = _mm256_add_pd(c1, _mm256_and_pd(mb, one));
        sx0 = _mm256_add_pd(sx0, _mm256_and_pd(ma, xa));
        sx1 = _mm256_add_pd(sx1, _mm256_and_pd(mb, xb));
        xa = _mm256_add_pd(xa, eight);
        xb = _mm256_add_pd(xb, eight);
    }
    alignas(32) double a[4][8];
    _mm256_store_pd(a[0], sv0);
    _mm256_store_pd(a[0] + 4, sv1);
    _mm256_store_pd(a[1], sxv0);
    _mm256_store_pd(a[1] + 4, sxv1);
    _mm256_store_pd(a[2], c0);
    _mm256_store_pd(a[2] + 4, c1);
    _mm256_store_pd(a[3], sx0);
    _mm256_store_pd(a[3] + 4, sx1);
    alignas(32) std::uint32_t his[8], los[8];
    _mm256_store_si256(reinterpret_cast<__m256i*>(his), eMax);
    _mm256_store_si256(reinterpret_cast<__m256i*>(los), eMin);
    for (int k = 0; k < 8; ++k) {
        f.sv += a[0][k];
        f.sxv += a[1][k];
        f.count += a[2][k];
        f.sx += a[3][k];
        f.hi = std::max(f.hi, his[k]);
        f.lo = std::min(f.lo, los[k]);
    }
    floatMomentsTail(row, x, x1, pivot, f);
}

// 8-bit rows with AVX2 (the sums are integers: any order gives the same): the sum and maximum of
// row[0..n-1]; and the centroid sums of row[x0..x1-1] over the samples v > limit (limit in [-1, 254]).
__attribute__((target("avx2"))) void u8RowAvx2(const std::uint8_t* row, int n, std::int64_t& sum, std::uint8_t& max) {
    __m256i s = _mm256_setzero_si256(), m = _mm256_setzero_si256();
    int x = 0;
    for (; x + 32 <= n; x += 32) {
        const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + x));
        s = _mm256_add_epi64(s, _mm256_sad_epu8(v, _mm256_setzero_si256()));
        m = _mm256_max_epu8(m, v);
    }
    alignas(32) std::uint64_t sums[4];
    alignas(32) std::uint8_t maxs[32];
    _mm256_store_si256(reinterpret_cast<__m256i*>(sums), s);
    _mm256_store_si256(reinterpret_cast<__m256i*>(maxs), m);
    std::int64_t total = static_cast<std::int64_t>(sums[0] + sums[1] + sums[2] + sums[3]);
    std::uint8_t top = 0;
    for (int k = 0; k < 32; ++k) top = std::max(top, maxs[k]);
    for (; x < n; ++x) {
        total += row[x];
        top = std::max(top, row[x]);
    }
    sum = total;
    max = top;
}

struct IntMoments {
    std::int64_t sv = 0, sxv = 0, count = 0, sx = 0;
};

__attribute__((target("avx2"))) void u8MomentsAvx2(const std::uint8_t* row, int x0, int x1, std::int64_t limit, IntMoments& r) {
    const __m256i zero = _mm256_setzero_si256(), thr = _mm256_set1_epi8(static_cast<char>(limit + 1));
    const __m256i oneBytes = _mm256_set1_epi8(1), ones16 = _mm256_set1_epi16(1);
    const __m256i idx = _mm256_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23,
                                         24, 25, 26, 27, 28, 29, 30, 31);
    __m256i sv = zero, cnt = zero, sxv = zero, sx = zero; // 64-bit lanes
    __m256i lv = zero, lc = zero;                         // 32-bit lanes: sum of i * w within the chunks
    int x = x0, chunks = 0;
    for (; x + 32 <= x1; x += 32) {
        const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + x));
        const __m256i in = _mm256_cmpeq_epi8(_mm256_max_epu8(v, thr), v); // v >= limit + 1
        const __m256i w = _mm256_and_si256(v, in), c = _mm256_and_si256(oneBytes, in);
        const __m256i sw = _mm256_sad_epu8(w, zero), sc = _mm256_sad_epu8(c, zero);
        const __m256i base = _mm256_set1_epi64x(x);
        sv = _mm256_add_epi64(sv, sw);
        cnt = _mm256_add_epi64(cnt, sc);
        sxv = _mm256_add_epi64(sxv, _mm256_mul_epu32(sw, base));
        sx = _mm256_add_epi64(sx, _mm256_mul_epu32(sc, base));
        lv = _mm256_add_epi32(lv, _mm256_madd_epi16(_mm256_maddubs_epi16(w, idx), ones16));
        lc = _mm256_add_epi32(lc, _mm256_madd_epi16(_mm256_maddubs_epi16(c, idx), ones16));
        if (++chunks == 16384) { // a 32-bit lane gains at most 31 620 a chunk
            sxv = _mm256_add_epi64(sxv, _mm256_add_epi64(_mm256_cvtepi32_epi64(_mm256_castsi256_si128(lv)),
                                                         _mm256_cvtepi32_epi64(_mm256_extracti128_si256(lv, 1))));
            sx = _mm256_add_epi64(sx, _mm256_add_epi64(_mm256_cvtepi32_epi64(_mm256_castsi256_si128(lc)),
                                                       _mm256_cvtepi32_epi64(_mm256_extracti128_si256(lc, 1))));
            lv = lc = zero;
            chunks = 0;
        }
    }
    sxv = _mm256_add_epi64(sxv, _mm256_add_epi64(_mm256_cvtepi32_epi64(_mm256_castsi256_si128(lv)),
                                                 _mm256_cvtepi32_epi64(_mm256_extracti128_si256(lv, 1))));
    sx = _mm256_add_epi64(sx, _mm256_add_epi64(_mm256_cvtepi32_epi64(_mm256_castsi256_si128(lc)),
                                               _mm256_cvtepi32_epi64(_mm256_extracti128_si256(lc, 1))));
    alignas(32) std::int64_t a[4][4];
    _mm256_store_si256(reinterpret_cast<__m256i*>(a[0]), sv);
    _mm256_store_si256(reinterpret_cast<__m256i*>(a[1]), sxv);
    _mm256_store_si256(reinterpret_cast<__m256i*>(a[2]), cnt);
    _mm256_store_si256(reinterpret_cast<__m256i*>(a[3]), sx);
    for (int k = 0; k < 4; ++k) {
        r.sv += a[0][k];
        r.sxv += a[1][k];
        r.count += a[2][k];
        r.sx += a[3][k];
    }
    for (; x < x1; ++x) {
        const std::int64_t v = row[x];
        if (v <= limit) continue;
        r.sv += v;
        r.sxv += x * v;
        ++r.count;
        r.sx += x;
    }
}

void floatMoments(const float* row, int x0, int x1, double pivot, FloatMoments& f) {
    if (cpuHasAvx2()) floatMomentsAvx2(row, x0, x1, pivot, f);
    else floatMomentsTail(row, x0, x1, pivot, f);
}


// The sample types the shared tables serve: integers of at most 32 bits and float (int64 and double samples,
// whose scan sums round in double, are always scanned).
template <class T>
constexpr bool kHasTables = (std::is_integral_v<T> && sizeof(T) <= 4) || std::is_same_v<T, float>;

// The figures without a background model and without blanks: the background is the constant pivot and the
// RMS 0, so every sum splits into sums of the samples (integers summed exactly) and counts, in loops the
// compiler vectorises. A row of a floating-point image whose sums are not finite (NaN or infinite samples)
// is measured again pixel by pixel, skipping those samples as the general pass does. With `tables` (many
// regions, measureRegions) each row's sums come from prefix sums instead, which are proven to give the same
// numbers (PlainTables).
template <class T>
struct PlainMeasure {
    const T* p;
    int W;
    double pivot;
    const PlainTables<T>* tables = nullptr;
    // Exact integer sums for samples of at most 32 bits (a row's sum fits int64), double otherwise.
    static constexpr bool kSmallInteger = std::is_integral_v<T> && sizeof(T) <= 4;
    using Sum = std::conditional_t<kSmallInteger, std::int64_t, double>;
    // Centroid sums over a row: sum of x*v in int64 for samples of at most 16 bits, else in double.
    using XSum = std::conditional_t<std::is_integral_v<T> && sizeof(T) <= 2, std::int64_t, double>;

    struct Region {
        double flux = 0.0;
        double peak = -std::numeric_limits<double>::infinity();
        double maxValue = -std::numeric_limits<double>::infinity(); // the sample at the peak
        T peakSample{};                                             // the same, as stored
        int peakY = 0;                                              // its column: peakColumn()
        std::int64_t count = 0; // finite samples
        bool nonFinite = false;
    };

    // One row's part of a region: the sum and number of its finite samples, their maximum (the first of
    // equal ones, as `v > m ? v : m` from the left keeps it), whether a sample was not finite, and whether any
    // was.
    struct RowPart {
        Sum s = 0;
        std::int64_t n = 0;
        T m{};
        bool nonFinite = false;
        bool any = true;
    };
    RowPart scanRow(int y, int x0, int x1) const {
        const T* row = p + static_cast<std::size_t>(y) * W;
        RowPart r;
        if constexpr (std::is_same_v<T, float>)
            if (fastFloatRow(row, x0, x1, r)) return r;
        if constexpr (std::is_same_v<T, std::uint8_t>)
            if (cpuHasAvx2()) {
                u8RowAvx2(row + x0, x1 - x0, r.s, r.m);
                r.n = x1 - x0;
                return r;
            }
        Sum s = 0;
        T m = row[x0];
        for (int x = x0; x < x1; ++x) {
            s += static_cast<Sum>(row[x]);
            m = row[x] > m ? row[x] : m;
        }
        std::int64_t n = x1 - x0;
        if constexpr (!kSmallInteger) {
            if (!std::isfinite(static_cast<double>(s)) || !std::isfinite(static_cast<double>(m))) {
                // NaN or infinite samples: the general pass's rule, one pixel at a time.
                r.nonFinite = true;
                s = 0;
                n = 0;
                bool any = false;
                for (int x = x0; x < x1; ++x) {
                    if (!std::isfinite(static_cast<double>(row[x]))) continue;
                    s += static_cast<Sum>(row[x]);
                    m = !any || row[x] > m ? row[x] : m;
                    any = true;
                    ++n;
                }
                r.any = any;
            }
        }
        r.s = s;
        r.n = n;
        r.m = m;
        return r;
    }

    // Float rows, in 8 partial sums (vectorised) instead of one chain: only where every sum of the row's
    // samples is exact in double (exactFloatSums), so that the order does not matter; and not where a sample is
    // not finite (the scan's pixel-by-pixel rule then). The maximum is the same value (the first of equal ones
    // is looked for when it is a zero, whose sign the lanes could change). False: scan.
    static bool fastFloatRow(const float* row, int x0, int x1, RowPart& out) {
        const FloatRowStats f = floatRowStats(row + x0, x1 - x0);
        if (!f.exact(x1 - x0)) return false;
        float m = f.max;
        if (m == 0.0f) { // the scan's zero: the first of the row's zeros
            m = row[x0];
            for (int i = x0; i < x1; ++i) m = row[i] > m ? row[i] : m;
        }
        out.s = f.sum;
        out.n = x1 - x0;
        out.m = m;
        out.nonFinite = false;
        out.any = true;
        return true;
    }

    // Rows y0..y1-1, columns x0..x1-1.
    void region(int x0, int x1, int y0, int y1, Region& out) const {
        for (int y = y0; y < y1; ++y) {
            const RowPart r = tables ? tables->regionRow(y, x0, x1) : scanRow(y, x0, x1);
            out.nonFinite = out.nonFinite || r.nonFinite;
            if (!r.any) continue;
            out.flux += static_cast<double>(r.s) - static_cast<double>(r.n) * pivot;
            out.count += r.n;
            const double d = static_cast<double>(r.m) - pivot;
            if (d > out.peak) {
                out.peak = d;
                out.maxValue = static_cast<double>(r.m);
                out.peakSample = r.m;
                out.peakY = y;
            }
        }
    }
    // The peak's column: the first in the row holding the peak's sample.
    int peakColumn(int x0, int y, T m) const {
        const T* row = p + static_cast<std::size_t>(y) * W;
        int x = x0;
        while (!(row[x] == m)) ++x;
        return x;
    }

    // v > pivot; for integer samples v > floor(pivot), with floor(pivot) clamped to [lowest - 1, max] of the
    // type, which is the same test and one integer comparison.
    std::int64_t limit = 0;
    void setPivot(double value) {
        pivot = value;
        if constexpr (kSmallInteger) {
            const double lo = static_cast<double>(std::numeric_limits<T>::lowest()) - 1.0;
            const double hi = static_cast<double>(std::numeric_limits<T>::max());
            limit = static_cast<std::int64_t>(std::clamp(std::floor(value), lo, hi));
        }
    }
    bool above(T v) const {
        if constexpr (kSmallInteger) return static_cast<std::int64_t>(v) > limit;
        else return static_cast<double>(v) > pivot;
    }

    // One row's centroid sums over the samples v > pivot (finite ones): of v, of x * v, their number and the
    // sum of their x.
    struct RowMoments {
        Sum sv = 0;
        XSum sxv = 0;
        std::int64_t count = 0, sx = 0;
    };
    RowMoments scanMoments(int y, int x0, int x1) const {
        const T* row = p + static_cast<std::size_t>(y) * W;
        if constexpr (std::is_same_v<T, float>) {
            RowMoments r;
            if (fastFloatMoments(row, x0, x1, r)) return r;
        }
        if constexpr (std::is_same_v<T, std::uint8_t>) {
            if (limit >= 255) return {};
            if (cpuHasAvx2()) {
                IntMoments m;
                u8MomentsAvx2(row, x0, x1, limit, m);
                return {m.sv, m.sxv, m.count, m.sx};
            }
        }
        Sum sv = 0;
        XSum sxv = 0;
        std::int64_t count = 0, sx = 0;
        if constexpr (kSmallInteger) {
            // Branch-free (masks).
            for (int x = x0; x < x1; ++x) {
                const std::int64_t v = static_cast<std::int64_t>(row[x]);
                const std::int64_t mask = -static_cast<std::int64_t>(v > limit);
                sv += v & mask;
                sxv += static_cast<XSum>(x) * static_cast<XSum>(v & mask);
                count -= mask;
                sx += x & mask;
            }
        } else {
            for (int x = x0; x < x1; ++x) {
                const bool in = above(row[x]);
                sv += in ? static_cast<Sum>(row[x]) : Sum(0);
                sxv += in ? static_cast<XSum>(x) * static_cast<XSum>(row[x]) : XSum(0);
                count += in;
                sx += in ? x : 0;
            }
        }
        if constexpr (!kSmallInteger) {
            if (!std::isfinite(static_cast<double>(sv)) || !std::isfinite(static_cast<double>(sxv))) {
                sv = 0;
                sxv = 0;
                count = sx = 0;
                for (int x = x0; x < x1; ++x) {
                    const double v = static_cast<double>(row[x]);
                    if (!(v > pivot) || !std::isfinite(v)) continue;
                    sv += row[x];
                    sxv += static_cast<double>(x) * v;
                    ++count;
                    sx += x;
                }
            }
        }
        return {sv, sxv, count, sx};
    }

    // The same sums over the finite samples above the pivot in 8 partial sums, where exactFloatSums proves
    // every sum of the row exact (which is also what the scan gives when it drops an infinite sample).
    bool fastFloatMoments(const float* row, int x0, int x1, RowMoments& out) const {
        FloatMoments f;
        floatMoments(row, x0, x1, pivot, f);
        int xBits = 0;
        while ((std::int64_t{1} << xBits) < x1) ++xBits;
        if (!exactFloatSums(x1 - x0, f.hi, f.lo, xBits)) return false;
        out.sv = f.sv;
        out.sxv = f.sxv;
        out.count = static_cast<std::int64_t>(f.count);
        out.sx = static_cast<std::int64_t>(f.sx);
        return true;
    }

    struct Moments {
        double w = 0.0, wx = 0.0, wy = 0.0;
    };
    // Weights v - pivot where v > pivot (the general pass's rule with the RMS 0).
    void moments(int x0, int x1, int y0, int y1, Moments& out) const {
        const bool fromTables = tables && tables->hasMoments();
        for (int y = y0; y < y1; ++y) {
            const RowMoments r = fromTables ? tables->momentsRow(y, x0, x1) : scanMoments(y, x0, x1);
            const double w = static_cast<double>(r.sv) - static_cast<double>(r.count) * pivot;
            out.w += w;
            out.wx += static_cast<double>(r.sxv) - pivot * static_cast<double>(r.sx);
            out.wy += w * y;
        }
    }
};

// Shared passes of many regions over one image, without a background model and without blanks (kmax's K
// overlapping rectangles are near copies of each other, and each one scanned cost O(area)): per row, prefix
// sums over blocks of 8 samples of the finite samples (and, for floats, counts of the others) and of the
// centroid's sums over the samples above the pivot, and a sparse table of the blocks' maxima; a row's part is
// its whole blocks from those plus at most 14 samples at its ends. A region then costs O(rows). The numbers are
// the scan's, bit for bit:
// - integer samples: the sums are exact integers either way (the x * v sums of 32-bit samples, which the scan
//   adds in double, only where max|v| * W * W < 2^53, so those double sums are exact too; else the centroid
//   sums are scanned);
// - float samples: every finite sample is a multiple of 2^Emin (its smallest exponent's unit) below 2^Emax,
//   so any sum of n of them is a multiple of 2^Emin below n 2^Emax, exact in double when n 2^(Emax - Emin) <=
//   2^53 (x * v: times W more). Then every partial sum of the scan, in its order, is exact, and so is every
//   sum of the tables' pieces: the same double. Where the image's range is too wide there are no tables.
// - the maxima combine as the scan does (`b > a ? b : a`, left part first), so the first of equal maxima
//   wins (the sign of a zero included); non-finite samples read -infinity, as the scan skips them.
} // namespace

struct RegionMeasureTables {
    virtual ~RegionMeasureTables() = default;
    // The centroid sums (w, wx, wy) of the windows measured so far, by window (x0, x1, y0, y1): the same window
    // gives the same sums.
    bool findWindow(const std::array<int, 4>& key, double& w, double& wx, double& wy) const {
        const std::lock_guard lock(mutex);
        const auto it = windows.find(key);
        if (it == windows.end()) return false;
        w = it->second[0];
        wx = it->second[1];
        wy = it->second[2];
        return true;
    }
    void keepWindow(const std::array<int, 4>& key, double w, double wx, double wy) const {
        const std::lock_guard lock(mutex);
        windows.emplace(key, std::array<double, 3>{w, wx, wy});
    }
    mutable std::mutex mutex;
    mutable std::map<std::array<int, 4>, std::array<double, 3>> windows;
};

namespace {

template <class T>
struct PlainTables : RegionMeasureTables {
    using PM = PlainMeasure<T>;
    using Sum = typename PM::Sum;
    static constexpr int kBlock = 8;
    static constexpr bool kFloat = std::is_floating_point_v<T>;
    // The x * v sums: exact int64 for integer samples, double for floats.
    using XPrefix = std::conditional_t<kFloat, double, std::int64_t>;

    // Prefix sums over whole blocks of kBlock samples: entry b of a row sums its blocks 0..b-1.
    struct Prefix {
        Sum s = 0;           // finite samples
        std::int32_t bad = 0; // non-finite samples (floats)
        std::int32_t count = 0; // samples above the pivot (finite)
        Sum sv = 0;
        XPrefix sxv = 0;
        std::int64_t sx = 0;
    };

    const T* p = nullptr;
    PM plain{nullptr, 0, 0.0}; // the pivot of the centroid sums
    int W = 0, H = 0;
    int blocks = 0, levels = 0;
    std::size_t stride = 0; // blocks + 1
    std::unique_ptr<Prefix[]> prefix;
    std::unique_ptr<T[]> maxima; // level k: H * blocks entries from k * H * blocks
    bool moments = false;

    bool hasMoments() const { return moments; }

    static T clean(T v) {
        if constexpr (kFloat) return std::isfinite(v) ? v : -std::numeric_limits<T>::infinity();
        else return v;
    }
    // The samples x0..x1-1 of a row, one by one, into a region part (max folded left to right).
    void addSamples(const T* row, int x0, int x1, typename PM::RowPart& r, std::int64_t& bad) const {
        for (int x = x0; x < x1; ++x) {
            const T v = row[x];
            if constexpr (kFloat) {
                if (!std::isfinite(v)) {
                    ++bad;
                    continue;
                }
            }
            r.s += static_cast<Sum>(v);
        }
    }
    T foldMax(const T* row, int x0, int x1, T m) const {
        for (int x = x0; x < x1; ++x) {
            const T v = clean(row[x]);
            m = v > m ? v : m;
        }
        return m;
    }

    typename PM::RowPart regionRow(int y, int x0, int x1) const {
        typename PM::RowPart r;
        const T* row = p + static_cast<std::size_t>(y) * W;
        const int b0 = (x0 + kBlock - 1) / kBlock, b1 = x1 / kBlock;
        std::int64_t bad = 0;
        T m = clean(row[x0]);
        if (b0 >= b1) {
            addSamples(row, x0, x1, r, bad);
            m = foldMax(row, x0 + 1, x1, m);
        } else {
            addSamples(row, x0, b0 * kBlock, r, bad);
            m = foldMax(row, x0 + 1, b0 * kBlock, m);
            const Prefix* pr = prefix.get() + static_cast<std::size_t>(y) * stride;
            r.s += pr[b1].s - pr[b0].s;
            bad += pr[b1].bad - pr[b0].bad;
            int k = 0;
            while ((2 << k) <= b1 - b0) ++k;
            const T* level = maxima.get() + (static_cast<std::size_t>(k) * H + y) * blocks;
            const T a = level[b0], c = level[b1 - (1 << k)];
            const T ac = c > a ? c : a;
            m = ac > m ? ac : m;
            addSamples(row, b1 * kBlock, x1, r, bad);
            m = foldMax(row, b1 * kBlock, x1, m);
        }
        r.n = (x1 - x0) - bad;
        r.nonFinite = bad > 0;
        r.any = r.n > 0;
        r.m = m;
        return r;
    }

    struct MomentSums {
        Sum sv = 0;
        XPrefix sxv = 0;
        std::int64_t count = 0, sx = 0;
    };
    void addMoments(const T* row, int x0, int x1, MomentSums& r) const {
        for (int x = x0; x < x1; ++x) {
            const T v = row[x];
            bool in;
            if constexpr (kFloat) in = std::isfinite(v) && plain.above(v);
            else in = plain.above(v);
            if (!in) continue;
            r.sv += static_cast<Sum>(v);
            r.sxv += static_cast<XPrefix>(x) * static_cast<XPrefix>(v);
            ++r.count;
            r.sx += x;
        }
    }
    typename PM::RowMoments momentsRow(int y, int x0, int x1) const {
        const T* row = p + static_cast<std::size_t>(y) * W;
        const int b0 = (x0 + kBlock - 1) / kBlock, b1 = x1 / kBlock;
        MomentSums m;
        if (b0 >= b1) {
            addMoments(row, x0, x1, m);
        } else {
            addMoments(row, x0, b0 * kBlock, m);
            const Prefix* pr = prefix.get() + static_cast<std::size_t>(y) * stride;
            m.sv += pr[b1].sv - pr[b0].sv;
            m.sxv += pr[b1].sxv - pr[b0].sxv;
            m.count += pr[b1].count - pr[b0].count;
            m.sx += pr[b1].sx - pr[b0].sx;
            addMoments(row, b1 * kBlock, x1, m);
        }
        typename PM::RowMoments r;
        r.sv = m.sv;
        r.sxv = static_cast<typename PM::XSum>(m.sxv);
        r.count = m.count;
        r.sx = m.sx;
        return r;
    }

    // Bytes the tables of a W x H image take.
    static double bytesFor(int W, int H) {
        const double blocksPerRow = W / kBlock;
        double levelCount = 1;
        while (std::pow(2.0, levelCount) <= blocksPerRow) ++levelCount;
        return (blocksPerRow + 1) * H * sizeof(Prefix) + blocksPerRow * H * levelCount * sizeof(T);
    }

    // Null when the numbers could not be proven to equal the scan's (a float image of too wide a range).
    static std::unique_ptr<PlainTables> build(const T* p, int W, int H, const PM& plain) {
        // The range of the samples: for floats the exponents of the finite non-zero ones and whether any is not
        // finite, for 32-bit integers max |v| (the x * v sums).
        struct Range {
            std::uint32_t hi = 0, lo = 255;
            double maxAbs = 0.0;
        };
        const int threads = threadsForPixels(3.0 * W * H);
        Range all;
        if constexpr (kFloat || sizeof(T) == 4) {
            std::vector<Range> ranges(static_cast<std::size_t>(H));
            parallelFor(0, static_cast<std::size_t>(H), 16, [&](std::size_t y0, std::size_t y1) {
                for (std::size_t y = y0; y < y1; ++y) {
                    const T* row = p + y * W;
                    Range r;
                    if constexpr (kFloat) {
                        const FloatRowStats f = floatRowStats(row, W);
                        r.hi = f.hi == 255 ? 0 : f.hi; // non-finite samples are left out of the sums
                        r.lo = f.lo;
                        if (!f.finite) { // their exponent 255 counted: again without them
                            r.hi = 0;
                            r.lo = 255;
                            for (int x = 0; x < W; ++x) {
                                const std::uint32_t b = std::bit_cast<std::uint32_t>(row[x]), e = (b >> 23) & 0xffu;
                                if (e == 0xffu) continue;
                                r.hi = std::max(r.hi, e);
                                r.lo = std::min(r.lo, (b & 0x7fffffffu) ? e : 255u);
                            }
                        }
                    } else {
                        T lo = row[0], hi = row[0];
                        for (int x = 0; x < W; ++x) {
                            lo = row[x] < lo ? row[x] : lo;
                            hi = row[x] > hi ? row[x] : hi;
                        }
                        r.maxAbs = std::max(std::fabs(static_cast<double>(lo)), std::fabs(static_cast<double>(hi)));
                    }
                    ranges[y] = r;
                }
            }, threads);
            for (const Range& r : ranges) {
                all.hi = std::max(all.hi, r.hi);
                all.lo = std::min(all.lo, r.lo);
                all.maxAbs = std::max(all.maxAbs, r.maxAbs);
            }
        }
        int wBits = 0; // W <= 2^wBits: a row has at most 2^wBits samples, and x < 2^wBits
        while ((std::int64_t{1} << wBits) < W) ++wBits;
        bool momentsExact = true;
        if constexpr (kFloat) {
            if (!exactFloatSums(W, all.hi, all.lo, 0)) return nullptr;
            momentsExact = exactFloatSums(W, all.hi, all.lo, wBits);
        } else if constexpr (sizeof(T) == 4) {
            momentsExact = all.maxAbs * std::ldexp(1.0, 2 * wBits) < std::ldexp(1.0, 53);
        }
        auto t = std::make_unique<PlainTables>();
        t->p = p;
        t->plain = plain;
        t->W = W;
        t->H = H;
        t->blocks = W / kBlock;
        t->stride = static_cast<std::size_t>(t->blocks) + 1;
        t->levels = 0;
        while (t->blocks > 0 && (1 << t->levels) <= t->blocks) ++t->levels;
        t->prefix.reset(new Prefix[t->stride * H]);
        t->maxima.reset(new T[static_cast<std::size_t>(t->levels) * H * t->blocks]);
        t->moments = momentsExact;
        PlainTables& tb = *t;
        parallelFor(0, static_cast<std::size_t>(H), 16, [&](std::size_t y0, std::size_t y1) {
            for (std::size_t y = y0; y < y1; ++y) {
                const T* row = p + y * W;
                Prefix* pr = tb.prefix.get() + y * tb.stride;
                Prefix acc;
                pr[0] = acc;
                T* level0 = tb.maxima.get() + y * tb.blocks;
                for (int b = 0; b < tb.blocks; ++b) {
                    const T* v = row + b * kBlock;
                    typename PM::RowPart part;
                    part.s = 0;
                    std::int64_t bad = 0;
                    tb.addSamples(row, b * kBlock, (b + 1) * kBlock, part, bad);
                    acc.s += part.s;
                    acc.bad += static_cast<std::int32_t>(bad);
                    if (tb.moments) {
                        MomentSums m;
                        tb.addMoments(row, b * kBlock, (b + 1) * kBlock, m);
                        acc.sv += m.sv;
                        acc.sxv += m.sxv;
                        acc.count += static_cast<std::int32_t>(m.count);
                        acc.sx += m.sx;
                    }
                    pr[b + 1] = acc;
                    level0[b] = tb.foldMax(v, 1, kBlock, clean(v[0]));
                }
                for (int k = 1; k < tb.levels; ++k) {
                    const T* below = tb.maxima.get() + (static_cast<std::size_t>(k - 1) * H + y) * tb.blocks;
                    T* level = tb.maxima.get() + (static_cast<std::size_t>(k) * H + y) * tb.blocks;
                    const int half = 1 << (k - 1);
                    for (int b = 0; b + 2 * half <= tb.blocks; ++b) {
                        const T a = below[b], c = below[b + half];
                        level[b] = c > a ? c : a;
                    }
                }
            }
        }, threads);
        return t;
    }
};

} // namespace

namespace {

// The background where no model was made: the pivot, less the threshold's share (none without a model).
double measurePivot(const WorkArray& work, const BackgroundMap* model) {
    return work.pivot - (work.localPivot ? 0.0 : work.threshold * (model ? model->globalRms() : 0.0));
}

// Whether image pixel (x, y) lies in the searched area (the ROI), and whether an exclusion covers it (in the ROI).
bool inRoi(const WorkArray& work, int x, int y) {
    return x >= work.roi.x && x < work.roi.x + work.roi.width && y >= work.roi.y && y < work.roi.y + work.roi.height;
}
bool excludedAt(const WorkArray& work, int x, int y) {
    if (!work.hasExclusions()) return false;
    const int c = work.transposed ? y - work.roi.y : x - work.roi.x;
    const int r = work.transposed ? x - work.roi.x : y - work.roi.y;
    return work.isExcluded(r, c);
}

} // namespace

std::optional<double> saturationLevel(const Image& image) {
    if (auto v = headerNumber(image, "SATURATE")) return v;
    if (auto v = headerNumber(image, "DATAMAX")) return v;
    return image.visit([](const auto* p) -> std::optional<double> {
        using T = std::remove_cv_t<std::remove_pointer_t<decltype(p)>>;
        if constexpr (std::is_integral_v<T>) return static_cast<double>(std::numeric_limits<T>::max());
        else return std::nullopt;
    });
}

RegionMeasurer::RegionMeasurer(const WorkArray& work)
    : work_(work), image_(work.source ? *work.source : *work.image), saturation_(saturationLevel(image_)) {}

void RegionMeasurer::measure(BrightestRegion& g, int rowThreads) const {
    const int W = image_.width(), H = image_.height();
    const BackgroundMap* model = work_.background && !work_.background->empty() ? work_.background.get() : nullptr;
    const double pivot = measurePivot(work_, model);
    const std::uint8_t* blankMask = image_.blankMask().empty() ? nullptr : image_.blankMask().data();
    // Threads as the pass's size warrants (starting one costs as much as ~60 000 pixels of this work).
    const int regionThreads = rowThreads > 0 ? rowThreads : threadsForPixels(static_cast<double>(g.width) * g.height);
    // No model and no blanks: the vectorised passes of PlainMeasure (same figures up to rounding).
    const bool plain = !model && !blankMask;
    double flux = 0.0, noise2 = 0.0, peak = -std::numeric_limits<double>::infinity(), sumBack = 0.0;
    int peakX = g.x, peakY = g.y;
    bool saturated = false;
    bool blank = false;
    g.centroidX = g.x + (g.width - 1) / 2.0;
    g.centroidY = g.y + (g.height - 1) / 2.0;
    // One typed pass per loop (no per-pixel dispatch on the sample type): every region of a run is measured,
    // and a large one covers most of the image.
    image_.visit([&](const auto* p) {
        // Rows in fixed chunks, summed in chunk order: the figures do not depend on the thread count.
        using T = std::remove_cv_t<std::remove_pointer_t<decltype(p)>>;
        struct Part {
            double flux = 0.0, noise2 = 0.0, sumBack = 0.0, peak = -std::numeric_limits<double>::infinity();
            int peakX = 0, peakY = 0;
            T peakSample{}; // the plain pass's peak sample (its column found once, for the region's peak)
            bool saturated = false, blank = false;
        };
        const int chunks = (g.height + kRowsPerChunk - 1) / kRowsPerChunk;
        std::vector<Part> parts(static_cast<std::size_t>(std::max(chunks, 0)));
        PlainMeasure<T> plainPass{p, W, pivot};
        plainPass.setPivot(pivot);
        if constexpr (kHasTables<T>)
            if (plain && tables_) plainPass.tables = static_cast<const PlainTables<T>*>(tables_.get());
        if (plain) {
            parallelFor(
                0, parts.size(), 1,
                [&](std::size_t c0, std::size_t c1) {
                    for (std::size_t c = c0; c < c1; ++c) {
                        const int y0 = g.y + static_cast<int>(c) * kRowsPerChunk;
                        typename PlainMeasure<T>::Region r;
                        plainPass.region(g.x, g.x + g.width, y0, std::min(g.y + g.height, y0 + kRowsPerChunk), r);
                        Part& part = parts[c];
                        part.flux = r.flux;
                        part.sumBack = static_cast<double>(r.count) * pivot;
                        part.peak = r.peak;
                        part.peakY = r.peakY;
                        part.peakSample = r.peakSample;
                        part.saturated = saturation_ && std::isfinite(r.peak) && r.maxValue >= *saturation_;
                        part.blank = r.nonFinite;
                    }
                },
                plainPass.tables ? 1 : regionThreads);
        } else
        parallelFor(
            0, parts.size(), 1,
            [&](std::size_t c0, std::size_t c1) {
                std::vector<double> back(static_cast<std::size_t>(std::max(g.width, 1)), pivot), rms(back.size(), 0.0);
                for (std::size_t c = c0; c < c1; ++c) {
                    Part& part = parts[c];
                    const int yEnd = std::min(g.y + g.height, g.y + static_cast<int>(c + 1) * kRowsPerChunk);
                    for (int y = g.y + static_cast<int>(c) * kRowsPerChunk; y < yEnd; ++y) {
                        if (model) model->row(y, g.x, g.x + g.width, back.data(), rms.data());
                        const auto* row = p + static_cast<std::size_t>(y) * W;
                        const std::uint8_t* rowBlank = blankMask ? blankMask + static_cast<std::size_t>(y) * W : nullptr;
                        for (int i = 0; i < g.width; ++i) {
                            const int x = g.x + i;
                            const double v = static_cast<double>(row[x]);
                            if ((rowBlank && rowBlank[x]) || !std::isfinite(v)) {
                                part.blank = true;
                                continue;
                            }
                            const double b = model ? back[static_cast<std::size_t>(i)] : pivot;
                            const double d = v - b;
                            part.flux += d;
                            part.sumBack += b;
                            if (model) part.noise2 += rms[static_cast<std::size_t>(i)] * rms[static_cast<std::size_t>(i)];
                            if (d > part.peak) {
                                part.peak = d;
                                part.peakX = x;
                                part.peakY = y;
                            }
                            if (saturation_ && v >= *saturation_) part.saturated = true;
                        }
                    }
                }
            },
            regionThreads);
        T peakSample{};
        for (const Part& part : parts) {
            flux += part.flux;
            noise2 += part.noise2;
            sumBack += part.sumBack;
            if (part.peak > peak) {
                peak = part.peak;
                peakX = part.peakX;
                peakY = part.peakY;
                peakSample = part.peakSample;
            }
            saturated = saturated || part.saturated;
            blank = blank || part.blank;
        }
        if (plain && std::isfinite(peak)) peakX = plainPass.peakColumn(g.x, peakY, peakSample);
        // Blanks, non-finite and excluded pixels on the rectangle's one-pixel border (inside, the search never
        // takes an excluded pixel, and the pass above saw the blanks).
        const auto outside = [&](int x, int y) {
            if ((blankMask && blankMask[static_cast<std::size_t>(y) * W + x]) ||
                !std::isfinite(static_cast<double>(p[static_cast<std::size_t>(y) * W + x])))
                return true;
            return inRoi(work_, x, y) && excludedAt(work_, x, y);
        };
        const int bx0 = std::max(0, g.x - 1), bx1 = std::min(W, g.x + g.width + 1);
        const int by0 = std::max(0, g.y - 1), by1 = std::min(H, g.y + g.height + 1);
        for (int y = by0; y < by1 && !blank; ++y) {
            const bool edgeRow = y < g.y || y >= g.y + g.height;
            for (int x = bx0; x < bx1 && !blank; x += (edgeRow || x >= g.x + g.width) ? 1 : std::max(1, g.x + g.width - x))
                if (outside(x, y)) blank = true;
        }
        // The centroid: weights I - background where above the local RMS, in a square window centred on the peak
        // (half-size max(2, half the larger side), clipped to the image), then once more centred on that
        // centroid. A window symmetric about the source, not the rectangle itself: the rectangle cuts a round
        // source unevenly.
        if (!std::isfinite(peak)) return;
        const int half = std::max(2, (std::max(g.width, g.height) + 1) / 2);
        double cx = peakX, cy = peakY;
        int last[4] = {-1, -1, -1, -1};
        for (int pass = 0; pass < 2; ++pass) {
            const int x0 = std::max(0, static_cast<int>(std::lround(cx)) - half);
            const int x1 = std::min(W, static_cast<int>(std::lround(cx)) + half + 1);
            const int y0 = std::max(0, static_cast<int>(std::lround(cy)) - half);
            const int y1 = std::min(H, static_cast<int>(std::lround(cy)) + half + 1);
            // The same window as the first pass: the same centroid again.
            if (x0 == last[0] && x1 == last[1] && y0 == last[2] && y1 == last[3]) break;
            last[0] = x0;
            last[1] = x1;
            last[2] = y0;
            last[3] = y1;
            // Near copies (kmax) often share a window (clipped at the image's edges): its sums once.
            double w = 0.0, wx = 0.0, wy = 0.0;
            const std::array<int, 4> key{x0, x1, y0, y1};
            if (!(plainPass.tables && tables_->findWindow(key, w, wx, wy))) {
                struct Moments {
                    double w = 0.0, wx = 0.0, wy = 0.0;
                };
                const int windowChunks = (y1 - y0 + kRowsPerChunk - 1) / kRowsPerChunk;
                std::vector<Moments> moments(static_cast<std::size_t>(std::max(windowChunks, 0)));
                if (plain) {
                    parallelFor(
                        0, moments.size(), 1,
                        [&](std::size_t c0, std::size_t c1) {
                            for (std::size_t c = c0; c < c1; ++c) {
                                typename PlainMeasure<T>::Moments m;
                                const int ya = y0 + static_cast<int>(c) * kRowsPerChunk;
                                plainPass.moments(x0, x1, ya, std::min(y1, ya + kRowsPerChunk), m);
                                moments[c] = {m.w, m.wx, m.wy};
                            }
                        },
                        plainPass.tables ? 1 : rowThreads > 0 ? rowThreads : threadsForPixels(static_cast<double>(x1 - x0) * (y1 - y0)));
                } else
                parallelFor(
                    0, moments.size(), 1,
                    [&](std::size_t c0, std::size_t c1) {
                        std::vector<double> back(static_cast<std::size_t>(std::max(x1 - x0, 1)), pivot), rms(back.size(), 0.0);
                        for (std::size_t c = c0; c < c1; ++c) {
                            Moments& m = moments[c];
                            const int yEnd = std::min(y1, y0 + static_cast<int>(c + 1) * kRowsPerChunk);
                            for (int y = y0 + static_cast<int>(c) * kRowsPerChunk; y < yEnd; ++y) {
                                if (model) model->row(y, x0, x1, back.data(), rms.data());
                                const auto* row = p + static_cast<std::size_t>(y) * W;
                                const std::uint8_t* rowBlank = blankMask ? blankMask + static_cast<std::size_t>(y) * W : nullptr;
                                for (int x = x0; x < x1; ++x) {
                                    if (rowBlank && rowBlank[x]) continue;
                                    const double d = static_cast<double>(row[x]) - back[static_cast<std::size_t>(x - x0)];
                                    // Pixels above 1 RMS only: the noise of the window would pull the centroid to its centre.
                                    if (!(d > rms[static_cast<std::size_t>(x - x0)]) || !(d > 0.0) || !std::isfinite(d)) continue;
                                    m.w += d;
                                    m.wx += d * x;
                                    m.wy += d * y;
                                }
                            }
                        }
                    },
                    rowThreads > 0 ? rowThreads : threadsForPixels(static_cast<double>(x1 - x0) * (y1 - y0)));
                for (const Moments& m : moments) {
                    w += m.w;
                    wx += m.wx;
                    wy += m.wy;
                }
                if (plainPass.tables) tables_->keepWindow(key, w, wx, wy);
            }
            if (!(w > 0.0)) break;
            cx = wx / w;
            cy = wy / w;
            g.centroidX = cx;
            g.centroidY = cy;
        }
    });
    const double n = static_cast<double>(g.pixels());
    g.measured = true;
    g.flux = flux;
    g.peak = std::isfinite(peak) ? peak : 0.0;
    g.peakX = peakX;
    g.peakY = peakY;
    g.meanBackground = sumBack / n;
    if (!model) g.snr = std::numeric_limits<double>::quiet_NaN();
    else if (noise2 > 0.0) g.snr = flux / std::sqrt(noise2);
    else g.snr = flux > 0.0 ? std::numeric_limits<double>::infinity() : flux < 0.0 ? -std::numeric_limits<double>::infinity() : 0.0;
    g.hasSky = false;
    if (image_.meta.wcs)
        if (auto sky = image_.meta.wcs->pixelToSky(g.centroidX, g.centroidY)) {
            g.hasSky = true;
            g.ra = sky->ra;
            g.dec = sky->dec;
        }
    g.flags = 0;
    if (saturated) g.flags |= kRegionFlagSaturated;
    if (g.x == 0 || g.y == 0 || g.x + g.width == W || g.y + g.height == H) g.flags |= kRegionFlagEdge;
    if (blank) g.flags |= kRegionFlagBlank;
}

bool RegionMeasurer::shareAmong(const std::vector<BrightestRegion>& regions) {
    tables_.reset();
    const bool model = work_.background && !work_.background->empty();
    if (model || image_.hasBlanks() || regions.empty()) return false;
    const int W = image_.width(), H = image_.height();
    // The scan reads each rectangle and up to two centroid windows (about twice the larger side, clipped).
    double scanned = 0.0;
    for (const BrightestRegion& g : regions) {
        const double side = 2.0 * std::max(2, (std::max(g.width, g.height) + 1) / 2) + 1.0;
        scanned += static_cast<double>(g.width) * g.height + 2.0 * std::min<double>(side, W) * std::min<double>(side, H);
    }
    const double pixels = static_cast<double>(W) * H;
    // The tables cost about 4 passes over the image; memory at most 1 GiB.
    if (scanned < 6.0 * pixels) return false;
    const double pivot = measurePivot(work_, nullptr);
    return image_.visit([&](const auto* p) {
        using T = std::remove_cv_t<std::remove_pointer_t<decltype(p)>>;
        if constexpr (kHasTables<T>) {
            if (PlainTables<T>::bytesFor(W, H) > 1024.0 * 1024.0 * 1024.0) return false;
            PlainMeasure<T> plain{p, W, pivot};
            plain.setPivot(pivot);
            tables_ = PlainTables<T>::build(p, W, H, plain);
            return tables_ != nullptr;
        } else {
            return false;
        }
    });
}

void measureRegions(const WorkArray& work, std::vector<BrightestRegion>& regions) {
    if (!work.image) return;
    RegionMeasurer m(work);
    m.shareAmong(regions);
    // Many regions: one per task, each on one thread; a few: one after the other, each over every core.
    if (regions.size() >= static_cast<std::size_t>(cpuThreadCount())) {
        parallelFor(0, regions.size(), 1, [&](std::size_t begin, std::size_t end) {
            for (std::size_t i = begin; i < end; ++i) m.measure(regions[i], 1);
        });
    } else {
        for (BrightestRegion& g : regions) m.measure(g);
    }
}

bool RegionMeasurer::peakIsLocalMaximum(const BrightestRegion& g) const {
    if (!g.measured) return true;
    const int W = image_.width(), H = image_.height();
    const BackgroundMap* model = work_.background && !work_.background->empty() ? work_.background.get() : nullptr;
    const double pivot = measurePivot(work_, model);
    const std::uint8_t* blankMask = image_.blankMask().empty() ? nullptr : image_.blankMask().data();
    // A neighbour counts as brighter when it is so both above the background and as stored: a saturated
    // plateau (a bright star's flat top, its bleed trail) is level as stored, whatever the background's slope.
    const double top = image_.value(g.peakX, g.peakY);
    const int xa = std::max(0, g.peakX - 1), xb = std::min(W, g.peakX + 2);
    for (int y = std::max(0, g.peakY - 1); y < std::min(H, g.peakY + 2); ++y) {
        // The background as measure() takes it (a row piece of the model equals the whole row's values).
        double back[3] = {pivot, pivot, pivot};
        if (model) model->row(y, xa, xb, back, nullptr);
        for (int x = xa; x < xb; ++x) {
            if (x >= g.x && x < g.x + g.width && y >= g.y && y < g.y + g.height) continue;
            if (blankMask && blankMask[static_cast<std::size_t>(y) * W + x]) continue;
            const double v = image_.value(x, y);
            if (!std::isfinite(v)) continue;
            if (!inRoi(work_, x, y) || excludedAt(work_, x, y)) continue;
            if (v - back[x - xa] > g.peak && v > top) return false;
        }
    }
    return true;
}

bool hasFilters(const BrightestParams& params) {
    return params.minSnr > 0.0 || params.minArea > 0 || params.maxSize > 0;
}

bool passesFilters(const BrightestRegion& g, const BrightestParams& params) {
    if (params.minArea > 0 && g.pixels() < params.minArea) return false;
    if (params.maxSize > 0 && std::max(g.width, g.height) > params.maxSize) return false;
    if (params.minSnr > 0.0 && !(g.snr >= params.minSnr)) return false;
    return true;
}

} // namespace glint
