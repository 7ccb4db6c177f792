#include "core/algo/sources/BackgroundClippingKernels.h"

#include "core/algo/sources/Background.h"
#include "core/algo/sources/BackgroundMath.h"
#include "core/util/CpuFeatures.h"

#include <algorithm>
#include <cstdlib>
#include <string_view>
#include <vector>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace glint {

namespace {

using bgmath::kBins;
using bgmath::kLanes;

} // namespace

// keptLaneSumsVariant's sums (Background.h), adding to a1 and a2 (value k in lane k % kLanes): the scalar form
// also takes any n (clippedStatsHistogram adds a tail of fewer than kLanes values with it). The vector forms keep
// a group of lanes' sums in registers and pass over the values once a group (all 32 lanes' two sums are 64
// doubles: more than SSE2's or AVX2's registers hold); they select with an AND of the comparison's mask (d or
// +0.0), and no product feeds an add directly, so nothing can be contracted to an FMA.
void clipping::keptLaneSumsScalar(const double* values, std::size_t n, double origin, double vmin, double vmax,
                                  double* a1, double* a2) {
    for (std::size_t k = 0; k < n; ++k) {
        const double v = values[k], d = bgmath::bgSub(v, origin);
        const bool in = (v >= vmin) & (v <= vmax);
        a1[k % kLanes] = bgmath::bgAdd(a1[k % kLanes], in ? d : 0.0);
        a2[k % kLanes] = bgmath::bgAdd(a2[k % kLanes], in ? bgmath::bgMul(d, d) : 0.0);
    }
}

namespace {

using clipping::keptLaneSumsScalar;

#if defined(__SSE2__)
void keptLaneSumsSse2(const double* values, std::size_t n, double origin, double vmin, double vmax, double* a1,
                      double* a2) {
    constexpr int G = 8; // lanes a pass: 4 + 4 registers of sums
    const __m128d lo = _mm_set1_pd(vmin), hi = _mm_set1_pd(vmax), o = _mm_set1_pd(origin);
    for (int g = 0; g < kLanes; g += G) {
        __m128d s1[G / 2], s2[G / 2];
        for (int j = 0; j < G / 2; ++j) s1[j] = s2[j] = _mm_setzero_pd();
        for (std::size_t k0 = 0; k0 < n; k0 += kLanes)
            for (int j = 0; j < G / 2; ++j) {
                const __m128d v = _mm_loadu_pd(values + k0 + g + 2 * j), d = _mm_sub_pd(v, o);
                const __m128d in = _mm_and_pd(_mm_cmpge_pd(v, lo), _mm_cmple_pd(v, hi));
                s1[j] = _mm_add_pd(s1[j], _mm_and_pd(in, d));
                s2[j] = _mm_add_pd(s2[j], _mm_and_pd(in, _mm_mul_pd(d, d)));
            }
        for (int j = 0; j < G / 2; ++j) {
            _mm_storeu_pd(a1 + g + 2 * j, s1[j]);
            _mm_storeu_pd(a2 + g + 2 * j, s2[j]);
        }
    }
}

__attribute__((target("avx2"))) void keptLaneSumsAvx2(const double* values, std::size_t n, double origin,
                                                      double vmin, double vmax, double* a1, double* a2) {
    constexpr int G = 16; // lanes a pass: 4 + 4 registers of sums
    const __m256d lo = _mm256_set1_pd(vmin), hi = _mm256_set1_pd(vmax), o = _mm256_set1_pd(origin);
    for (int g = 0; g < kLanes; g += G) {
        __m256d s1[G / 4], s2[G / 4];
        for (int j = 0; j < G / 4; ++j) s1[j] = s2[j] = _mm256_setzero_pd();
        for (std::size_t k0 = 0; k0 < n; k0 += kLanes)
            for (int j = 0; j < G / 4; ++j) {
                const __m256d v = _mm256_loadu_pd(values + k0 + g + 4 * j), d = _mm256_sub_pd(v, o);
                const __m256d in = _mm256_and_pd(_mm256_cmp_pd(v, lo, _CMP_GE_OQ), _mm256_cmp_pd(v, hi, _CMP_LE_OQ));
                s1[j] = _mm256_add_pd(s1[j], _mm256_and_pd(in, d));
                s2[j] = _mm256_add_pd(s2[j], _mm256_and_pd(in, _mm256_mul_pd(d, d)));
            }
        for (int j = 0; j < G / 4; ++j) {
            _mm256_storeu_pd(a1 + g + 4 * j, s1[j]);
            _mm256_storeu_pd(a2 + g + 4 * j, s2[j]);
        }
    }
}

__attribute__((target("avx512f,avx512dq"))) void keptLaneSumsAvx512(const double* values, std::size_t n,
                                                                     double origin, double vmin, double vmax,
                                                                     double* a1, double* a2) {
    // all 32 lanes in one pass: 4 + 4 registers of sums
    const __m512d lo = _mm512_set1_pd(vmin), hi = _mm512_set1_pd(vmax), o = _mm512_set1_pd(origin);
    __m512d s1[kLanes / 8], s2[kLanes / 8];
    for (int j = 0; j < kLanes / 8; ++j) s1[j] = s2[j] = _mm512_setzero_pd();
    for (std::size_t k0 = 0; k0 < n; k0 += kLanes)
        for (int j = 0; j < kLanes / 8; ++j) {
            const __m512d v = _mm512_loadu_pd(values + k0 + 8 * j), d = _mm512_sub_pd(v, o);
            const __mmask8 in = _mm512_cmp_pd_mask(v, lo, _CMP_GE_OQ) & _mm512_cmp_pd_mask(v, hi, _CMP_LE_OQ);
            s1[j] = _mm512_add_pd(s1[j], _mm512_maskz_mov_pd(in, d));
            s2[j] = _mm512_add_pd(s2[j], _mm512_maskz_mov_pd(in, _mm512_mul_pd(d, d)));
        }
    for (int j = 0; j < kLanes / 8; ++j) {
        _mm512_storeu_pd(a1 + 8 * j, s1[j]);
        _mm512_storeu_pd(a2 + 8 * j, s2[j]);
    }
}
#endif

// Every value's bin (binOf) into slot. The vector variants compute f = (value - lo) / binWidth the same way;
// AVX2 takes floor(f) clamped to -1..kBins (binOf's answer when f is not NaN, which binWidth > 0 ensures: for
// 0 <= f < kBins floor is the truncation binOf takes), AVX-512 binOf's truncation and selects.
void binSlotsScalar(const double* values, std::size_t n, double lo, double binWidth, std::int16_t* slot) {
    for (std::size_t k = 0; k < n; ++k) slot[k] = static_cast<std::int16_t>(bgmath::binOf(values[k], lo, binWidth));
}

#if defined(__SSE2__)
__attribute__((target("avx2"))) void binSlotsAvx2(const double* values, std::size_t n, double lo, double binWidth,
                                                  std::int16_t* slot) {
    const __m256d l = _mm256_set1_pd(lo), w = _mm256_set1_pd(binWidth), below = _mm256_set1_pd(-1.0),
                  above = _mm256_set1_pd(static_cast<double>(kBins));
    std::size_t k = 0;
    for (; k + 8 <= n; k += 8) {
        __m128i b[2];
        for (int h = 0; h < 2; ++h) {
            const __m256d f = _mm256_div_pd(_mm256_sub_pd(_mm256_loadu_pd(values + k + 4 * h), l), w);
            b[h] = _mm256_cvttpd_epi32(_mm256_min_pd(_mm256_max_pd(_mm256_floor_pd(f), below), above));
        }
        _mm_storeu_si128(reinterpret_cast<__m128i*>(slot + k), _mm_packs_epi32(b[0], b[1]));
    }
    binSlotsScalar(values + k, n - k, lo, binWidth, slot + k);
}

__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl"))) void binSlotsAvx512(const double* values,
                                                                                  std::size_t n, double lo,
                                                                                  double binWidth,
                                                                                  std::int16_t* slot) {
    const __m512d l = _mm512_set1_pd(lo), w = _mm512_set1_pd(binWidth), zero = _mm512_setzero_pd(),
                  top = _mm512_set1_pd(static_cast<double>(kBins));
    const __m256i below = _mm256_set1_epi32(-1), above = _mm256_set1_epi32(kBins);
    std::size_t k = 0;
    for (; k + 8 <= n; k += 8) {
        // (the maskz forms: GCC 12 warns on the plain ones)
        const __m512d f = _mm512_div_pd(_mm512_sub_pd(_mm512_loadu_pd(values + k), l), w);
        __m256i b = _mm512_maskz_cvttpd_epi32(0xff, f);
        b = _mm256_mask_mov_epi32(b, _mm512_cmp_pd_mask(f, zero, _CMP_LT_OQ), below);
        b = _mm256_mask_mov_epi32(b, _mm512_cmp_pd_mask(f, top, _CMP_GE_OQ), above);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(slot + k), _mm256_maskz_cvtepi32_epi16(0xff, b));
    }
    binSlotsScalar(values + k, n - k, lo, binWidth, slot + k);
}
#endif

// The variants from the widest down, or from GLINT_CLIP_KERNEL's (avx2, sse2 or scalar: to time the narrower
// ones on a wider CPU).
std::vector<std::string_view> clipKernels() {
    const char* force = std::getenv("GLINT_CLIP_KERNEL");
    const std::string_view forced = force ? force : "";
    std::vector<std::string_view> names{"avx512", "avx2", "sse2", "scalar"};
    const auto at = std::find(names.begin(), names.end(), forced);
    if (at != names.end()) names.erase(names.begin(), at);
    return names;
}

} // namespace

// The widest variant the CPU runs (chosen once) when binWidth > 0, else the scalar one.
void clipping::binSlots(const double* values, std::size_t n, double lo, double binWidth, std::int16_t* slot) {
    static const BinSlotsFunction widest = [] {
        for (std::string_view name : clipKernels())
            if (BinSlotsFunction g = binSlotsVariant(name)) return g;
        return &binSlotsScalar;
    }();
    (binWidth > 0.0 ? widest : &binSlotsScalar)(values, n, lo, binWidth, slot);
}

// The widest variant the CPU runs, chosen once.
KeptLaneSumsFunction clipping::keptLaneSums() {
    static const KeptLaneSumsFunction f = [] {
        for (std::string_view name : clipKernels())
            if (KeptLaneSumsFunction g = keptLaneSumsVariant(name)) return g;
        return &keptLaneSumsScalar;
    }();
    return f;
}

BinSlotsFunction binSlotsVariant(std::string_view name) {
    if (name == "scalar") return &binSlotsScalar;
#if defined(__SSE2__)
    if (name == "avx2" && cpuHasAvx2()) return &binSlotsAvx2;
    if (name == "avx512" && cpuHasAvx512()) return &binSlotsAvx512;
#endif
    return nullptr;
}

KeptLaneSumsFunction keptLaneSumsVariant(std::string_view name) {
    if (name == "scalar") return &keptLaneSumsScalar;
#if defined(__SSE2__)
    if (name == "sse2") return &keptLaneSumsSse2;
    if (name == "avx2" && cpuHasAvx2()) return &keptLaneSumsAvx2;
    if (name == "avx512" && cpuHasAvx512()) return &keptLaneSumsAvx512;
#endif
    return nullptr;
}

} // namespace glint
