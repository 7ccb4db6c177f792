#include "algo/trace/TraceSampling.h"

#include <algorithm>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define GLINT_TRACE_AVX2 1
#include <immintrin.h>
#endif

namespace glint {

namespace {

void sampleFanScalar(const PaddedField& field, SplitPoint start, const FloatShape* shapes, int count, float* out) {
    for (int i = 0; i < count; ++i) out[i] = sampleSegment(field, start, shapes[i]);
}

#if GLINT_TRACE_AVX2
// Eight segments of the fan in the lanes of one register, the four corners' (x, y) fetched with gathers.
// Lanes whose segment has fewer samples, and samples outside the image, read the zero border with zero
// weights, exactly as the scalar loop does.
__attribute__((target("avx2,fma"))) void sampleFanAvx2(const PaddedField& field, SplitPoint start,
                                                         const FloatShape* shapes, int count, float* out) {
    const float* base = field.xy.data();
    const int pitch2 = 2 * field.pitch;
    const __m256i width = _mm256_set1_epi32(field.width), height = _mm256_set1_epi32(field.height);
    const __m256i one = _mm256_set1_epi32(1), rowStride = _mm256_set1_epi32(pitch2);
    const __m256 absMask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    const __m256 offX = _mm256_set1_ps(start.fx), offY = _mm256_set1_ps(start.fy);
    const __m256i originX = _mm256_set1_epi32(start.ox), originY = _mm256_set1_epi32(start.oy);
    for (int first = 0; first < count; first += 8) {
        alignas(32) float stepX[8], stepY[8], dirX[8], dirY[8], weight[8];
        alignas(32) int samples[8];
        int most = 0;
        for (int l = 0; l < 8; ++l) {
            const bool real = first + l < count;
            const FloatShape s = real ? shapes[first + l] : FloatShape{0, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
            stepX[l] = s.stepX;
            stepY[l] = s.stepY;
            dirX[l] = s.dirX;
            dirY[l] = s.dirY;
            weight[l] = s.weight;
            samples[l] = s.samples;
            most = std::max(most, s.samples);
        }
        const __m256 sx = _mm256_load_ps(stepX), sy = _mm256_load_ps(stepY);
        const __m256 vx = _mm256_load_ps(dirX), vy = _mm256_load_ps(dirY);
        const __m256i n = _mm256_load_si256(reinterpret_cast<const __m256i*>(samples));
        __m256 sum = _mm256_setzero_ps();
        for (int m = 0; m < most; ++m) {
            const __m256 t = _mm256_set1_ps(static_cast<float>(m) + 0.5f);
            const __m256 lx = _mm256_fmadd_ps(t, sx, offX), ly = _mm256_fmadd_ps(t, sy, offY);
            const __m256 flx = _mm256_floor_ps(lx), fly = _mm256_floor_ps(ly);
            // Pixel + 1, so that the valid range [-1, W-1] becomes [0, W] for an unsigned comparison.
            __m256i ix = _mm256_add_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(flx), originX), one);
            __m256i iy = _mm256_add_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(fly), originY), one);
            const __m256i live = _mm256_cmpgt_epi32(n, _mm256_set1_epi32(m));
            const __m256i okX = _mm256_and_si256(_mm256_cmpeq_epi32(_mm256_min_epu32(ix, width), ix), live);
            const __m256i okY = _mm256_and_si256(_mm256_cmpeq_epi32(_mm256_min_epu32(iy, height), iy), live);
            ix = _mm256_and_si256(ix, okX);
            iy = _mm256_and_si256(iy, okY);
            const __m256 fx = _mm256_and_ps(_mm256_sub_ps(lx, flx), _mm256_castsi256_ps(okX));
            const __m256 fy = _mm256_and_ps(_mm256_sub_ps(ly, fly), _mm256_castsi256_ps(okY));
            // A dead lane reads padded entry (0, 0), the zero corner at pixel (-1, -1), with weight 1.
            const __m256i top = _mm256_add_epi32(_mm256_mullo_epi32(iy, rowStride), _mm256_add_epi32(ix, ix));
            const __m256i bottom = _mm256_add_epi32(top, rowStride);
            const __m256 g00x = _mm256_i32gather_ps(base, top, 4), g00y = _mm256_i32gather_ps(base + 1, top, 4);
            const __m256 g10x = _mm256_i32gather_ps(base + 2, top, 4), g10y = _mm256_i32gather_ps(base + 3, top, 4);
            const __m256 g01x = _mm256_i32gather_ps(base, bottom, 4), g01y = _mm256_i32gather_ps(base + 1, bottom, 4);
            const __m256 g11x = _mm256_i32gather_ps(base + 2, bottom, 4), g11y = _mm256_i32gather_ps(base + 3, bottom, 4);
            const __m256 c00 = _mm256_and_ps(_mm256_fmsub_ps(g00x, vy, _mm256_mul_ps(g00y, vx)), absMask);
            const __m256 c10 = _mm256_and_ps(_mm256_fmsub_ps(g10x, vy, _mm256_mul_ps(g10y, vx)), absMask);
            const __m256 c01 = _mm256_and_ps(_mm256_fmsub_ps(g01x, vy, _mm256_mul_ps(g01y, vx)), absMask);
            const __m256 c11 = _mm256_and_ps(_mm256_fmsub_ps(g11x, vy, _mm256_mul_ps(g11y, vx)), absMask);
            const __m256 upper = _mm256_fmadd_ps(fx, _mm256_sub_ps(c10, c00), c00);
            const __m256 lower = _mm256_fmadd_ps(fx, _mm256_sub_ps(c11, c01), c01);
            sum = _mm256_add_ps(sum, _mm256_fmadd_ps(fy, _mm256_sub_ps(lower, upper), upper));
        }
        alignas(32) float result[8];
        _mm256_store_ps(result, _mm256_mul_ps(sum, _mm256_load_ps(weight)));
        for (int l = 0; l < 8 && first + l < count; ++l) out[first + l] = result[l];
    }
}
#endif

using FanFunction = void (*)(const PaddedField&, SplitPoint, const FloatShape*, int, float*);

FanFunction chooseFan() {
#if GLINT_TRACE_AVX2
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return &sampleFanAvx2;
#endif
    return &sampleFanScalar;
}

} // namespace

void sampleFan(const PaddedField& field, SplitPoint start, const FloatShape* shapes, int count, float* out) {
    static const FanFunction fan = chooseFan();
    fan(field, start, shapes, count, out);
}

} // namespace glint
