#include "core/algo/trace/TraceSampling.h"

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
// Eight segments of the fan in the lanes of one register. Each lane's two rows of corners are fetched
// with one 16-byte load each and transposed into per-component vectors (cheaper than gathers here).
// Checked samples clamp out-of-image positions and finished lanes to the zero border with zero weights,
// exactly as the scalar loop does; unchecked samples are known to be inside and live.
struct FanLanes {
    __m256 stepX, stepY, dirX, dirY, sum;
    __m256i samples;
};

// Four lanes' 4-float rows (lanes l and l + 4 share a register) -> one vector per float of the row.
__attribute__((target("avx2,fma"))) inline void transposeRows(const float* base, const int* index, __m256& v0,
                                                                 __m256& v1, __m256& v2, __m256& v3) {
    const __m256 q0 = _mm256_set_m128(_mm_loadu_ps(base + index[4]), _mm_loadu_ps(base + index[0]));
    const __m256 q1 = _mm256_set_m128(_mm_loadu_ps(base + index[5]), _mm_loadu_ps(base + index[1]));
    const __m256 q2 = _mm256_set_m128(_mm_loadu_ps(base + index[6]), _mm_loadu_ps(base + index[2]));
    const __m256 q3 = _mm256_set_m128(_mm_loadu_ps(base + index[7]), _mm_loadu_ps(base + index[3]));
    const __m256 u0 = _mm256_unpacklo_ps(q0, q1), u1 = _mm256_unpackhi_ps(q0, q1);
    const __m256 u2 = _mm256_unpacklo_ps(q2, q3), u3 = _mm256_unpackhi_ps(q2, q3);
    v0 = _mm256_shuffle_ps(u0, u2, 0x44);
    v1 = _mm256_shuffle_ps(u0, u2, 0xEE);
    v2 = _mm256_shuffle_ps(u1, u3, 0x44);
    v3 = _mm256_shuffle_ps(u1, u3, 0xEE);
}

template <bool Checked>
__attribute__((target("avx2,fma"))) inline void fanSamples(const PaddedField& field, SplitPoint start, FanLanes& lanes,
                                                             int from, int to) {
    const float* base = field.xy.data();
    const int pitch2 = 2 * field.pitch;
    const __m256i width = _mm256_set1_epi32(field.width), height = _mm256_set1_epi32(field.height);
    const __m256i rowStride = _mm256_set1_epi32(pitch2);
    const __m256 absMask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    const __m256 offX = _mm256_set1_ps(start.fx), offY = _mm256_set1_ps(start.fy);
    // Pixel + 1 (the padded entry), so that the valid range [-1, W-1] becomes [0, W].
    const __m256i originX = _mm256_set1_epi32(start.ox + 1), originY = _mm256_set1_epi32(start.oy + 1);
    alignas(32) int index[8];
    for (int m = from; m < to; ++m) {
        const __m256 t = _mm256_set1_ps(static_cast<float>(m) + 0.5f);
        const __m256 lx = _mm256_fmadd_ps(t, lanes.stepX, offX), ly = _mm256_fmadd_ps(t, lanes.stepY, offY);
        const __m256 flx = _mm256_floor_ps(lx), fly = _mm256_floor_ps(ly);
        __m256i ix = _mm256_add_epi32(_mm256_cvtps_epi32(flx), originX);
        __m256i iy = _mm256_add_epi32(_mm256_cvtps_epi32(fly), originY);
        __m256 fx = _mm256_sub_ps(lx, flx), fy = _mm256_sub_ps(ly, fly);
        if constexpr (Checked) {
            // A finished lane, or a sample outside, reads entry (0, 0) (pixel (-1, -1), zero) with weight 1.
            const __m256i live = _mm256_cmpgt_epi32(lanes.samples, _mm256_set1_epi32(m));
            const __m256i okX = _mm256_and_si256(_mm256_cmpeq_epi32(_mm256_min_epu32(ix, width), ix), live);
            const __m256i okY = _mm256_and_si256(_mm256_cmpeq_epi32(_mm256_min_epu32(iy, height), iy), live);
            ix = _mm256_and_si256(ix, okX);
            iy = _mm256_and_si256(iy, okY);
            fx = _mm256_and_ps(fx, _mm256_castsi256_ps(okX));
            fy = _mm256_and_ps(fy, _mm256_castsi256_ps(okY));
        }
        _mm256_store_si256(reinterpret_cast<__m256i*>(index),
                           _mm256_add_epi32(_mm256_mullo_epi32(iy, rowStride), _mm256_add_epi32(ix, ix)));
        __m256 g00x, g00y, g10x, g10y, g01x, g01y, g11x, g11y;
        transposeRows(base, index, g00x, g00y, g10x, g10y);
        transposeRows(base + pitch2, index, g01x, g01y, g11x, g11y);
        const __m256 vx = lanes.dirX, vy = lanes.dirY;
        const __m256 c00 = _mm256_and_ps(_mm256_fmsub_ps(g00x, vy, _mm256_mul_ps(g00y, vx)), absMask);
        const __m256 c10 = _mm256_and_ps(_mm256_fmsub_ps(g10x, vy, _mm256_mul_ps(g10y, vx)), absMask);
        const __m256 c01 = _mm256_and_ps(_mm256_fmsub_ps(g01x, vy, _mm256_mul_ps(g01y, vx)), absMask);
        const __m256 c11 = _mm256_and_ps(_mm256_fmsub_ps(g11x, vy, _mm256_mul_ps(g11y, vx)), absMask);
        const __m256 upper = _mm256_fmadd_ps(fx, _mm256_sub_ps(c10, c00), c00);
        const __m256 lower = _mm256_fmadd_ps(fx, _mm256_sub_ps(c11, c01), c01);
        lanes.sum = _mm256_add_ps(lanes.sum, _mm256_fmadd_ps(fy, _mm256_sub_ps(lower, upper), upper));
    }
}

__attribute__((target("avx2,fma"))) void sampleFanAvx2(const PaddedField& field, SplitPoint start,
                                                         const FloatShape* shapes, int count, float* out) {
    // Inside by a pixel of margin at both ends of a segment means inside at every sample (a segment is
    // convex); the integer origin keeps these tests exact enough.
    const double minX = 0.0, maxX = field.width - 1.0, minY = 0.0, maxY = field.height - 1.0;
    const double px = start.ox + static_cast<double>(start.fx), py = start.oy + static_cast<double>(start.fy);
    const bool startInside = px >= minX && px <= maxX && py >= minY && py <= maxY;
    for (int first = 0; first < count; first += 8) {
        alignas(32) float stepX[8], stepY[8], dirX[8], dirY[8], weight[8];
        alignas(32) int samples[8];
        int most = 0, least = 1 << 30;
        bool inside = startInside;
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
            least = std::min(least, s.samples);
            const double ex = px + static_cast<double>(s.samples) * s.stepX, ey = py + static_cast<double>(s.samples) * s.stepY;
            inside = inside && ex >= minX && ex <= maxX && ey >= minY && ey <= maxY;
        }
        FanLanes lanes{_mm256_load_ps(stepX), _mm256_load_ps(stepY), _mm256_load_ps(dirX), _mm256_load_ps(dirY),
                       _mm256_setzero_ps(), _mm256_load_si256(reinterpret_cast<const __m256i*>(samples))};
        if (inside) {
            fanSamples<false>(field, start, lanes, 0, least);
            fanSamples<true>(field, start, lanes, least, most);
        } else {
            fanSamples<true>(field, start, lanes, 0, most);
        }
        alignas(32) float result[8];
        _mm256_store_ps(result, _mm256_mul_ps(lanes.sum, _mm256_load_ps(weight)));
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
