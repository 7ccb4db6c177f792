#include "core/algo/sources/RegionRowKernels.h"

#include "core/util/CpuFeatures.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <immintrin.h>
#include <limits>

namespace glint::region_measure {

namespace {

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

} // namespace

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

} // namespace glint::region_measure
