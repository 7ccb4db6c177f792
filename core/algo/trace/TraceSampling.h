// The float sampling that the fast backends share (cpu here, cuda mirrors it): a zero-padded copy of the
// field and the per-segment sample sum, computed relative to an integer origin to keep float precision.
#pragma once

#include "core/algo/trace/LineTrace.h"
#include "core/algo/trace/TraceGeometry.h"

#include <cmath>
#include <cstdint>
#include <vector>

namespace glint {

// A segment's shape in float, as the fast backends use it.
struct FloatShape {
    int samples;
    float weight;
    float stepX, stepY;
    float dirX, dirY;
};

inline FloatShape toFloatShape(const SegmentShape& s) {
    return {s.samples,
            static_cast<float>(s.weight),
            static_cast<float>(s.stepX),
            static_cast<float>(s.stepY),
            static_cast<float>(s.dirX),
            static_cast<float>(s.dirY)};
}

// The field with a one-pixel zero border: pixel (x, y) of the image is entry (x + 1, y + 1), so the four
// corners of any sample clamped into [-1, W-1] x [-1, H-1] can be read without a test.
struct PaddedField {
    int width = 0;  // of the image
    int height = 0;
    int pitch = 0;  // entries per padded row = width + 2
    std::vector<float> xy;

    explicit PaddedField(const TraceField& field);
    const float* at(int x, int y) const {
        return xy.data() + 2 * (static_cast<std::size_t>(y + 1) * pitch + static_cast<std::size_t>(x + 1));
    }
};

// A start point split into an integer origin and a float offset in [0, 1): sample positions are then
// origin + (offset + t * step), the float part staying small and precise.
struct SplitPoint {
    int ox, oy;
    float fx, fy;
};

inline SplitPoint splitPoint(TracePoint p) {
    const double x0 = std::floor(p.x), y0 = std::floor(p.y);
    return {static_cast<int>(x0), static_cast<int>(y0), static_cast<float>(p.x - x0), static_cast<float>(p.y - y0)};
}

// Floor without SSE4.1 (the default x86-64 target has no rounding instruction, and floorf would be a call).
inline int floorToInt(float v) {
    const int i = static_cast<int>(v);
    return i - (v < static_cast<float>(i) ? 1 : 0);
}

// Sum over the segment's samples of the bilinear interpolation of |G x v|, times the shape's weight.
inline float sampleSegment(const PaddedField& field, SplitPoint start, const FloatShape& s) {
    const float* base = field.xy.data();
    const std::size_t pitch2 = 2 * static_cast<std::size_t>(field.pitch);
    const unsigned w = static_cast<unsigned>(field.width), h = static_cast<unsigned>(field.height);
    float sum = 0.0f;
    float t = 0.5f;
    for (int m = 0; m < s.samples; ++m, t += 1.0f) {
        const float lx = start.fx + t * s.stepX;
        const float ly = start.fy + t * s.stepY;
        const int flx = floorToInt(lx), fly = floorToInt(ly);
        float fx = lx - static_cast<float>(flx), fy = ly - static_cast<float>(fly);
        int ix = start.ox + flx, iy = start.oy + fly;
        // Outside [-1, W-1]: every corner is outside the image, so read the zero border with weight 0.
        if (static_cast<unsigned>(ix + 1) > w) {
            ix = -1;
            fx = 0.0f;
        }
        if (static_cast<unsigned>(iy + 1) > h) {
            iy = -1;
            fy = 0.0f;
        }
        const float* r0 = base + static_cast<std::size_t>(iy + 1) * pitch2 + 2 * static_cast<std::size_t>(ix + 1);
        const float* r1 = r0 + pitch2;
        const float c00 = std::fabs(r0[0] * s.dirY - r0[1] * s.dirX);
        const float c10 = std::fabs(r0[2] * s.dirY - r0[3] * s.dirX);
        const float c01 = std::fabs(r1[0] * s.dirY - r1[1] * s.dirX);
        const float c11 = std::fabs(r1[2] * s.dirY - r1[3] * s.dirX);
        const float top = c00 + fx * (c10 - c00);
        const float bottom = c01 + fx * (c11 - c01);
        sum += top + fy * (bottom - top);
    }
    return sum * s.weight;
}

// Scores of `count` segments that all start at `start` (a fan: one point of guide k to every point of
// guide k+1): out[i] = sampleSegment(field, start, shapes[i]). Uses AVX2 (eight segments at a time) when
// the processor has it, else the scalar loop.
void sampleFan(const PaddedField& field, SplitPoint start, const FloatShape* shapes, int count, float* out);

} // namespace glint
