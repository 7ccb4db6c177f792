// Kernels of the CUDA line tracer: the padded field, the segment scores (one thread a segment), and the
// interval DP (one block a current point, a sparse table of range maxima in shared memory).
#pragma once

#include "core/algo/trace/TraceSampling.h"

#include <cuda_runtime.h>

#include <cstdint>

namespace glint::cuda::trace {

// What the kernels need of TraceGeometry to place the guide points (the rest comes in tables).
struct DeviceGeometry {
    double ax, ay, bx, by; // a, b
    double px, py;         // unit normal of ab
    double w, s;           // half-width, spacing of the points of a guide
    int n, d;
};

// q_{k,c} for 1 <= k <= n, as TraceGeometry::point computes it.
__device__ inline void guidePoint(const DeviceGeometry& g, int k, int c, double& x, double& y) {
    const double f = static_cast<double>(k) / (g.n + 1);
    const double t = -g.w + c * g.s;
    x = g.ax + f * (g.bx - g.ax) + t * g.px;
    y = g.ay + f * (g.by - g.ay) + t * g.py;
}

// The field as float4 {G(x, y), G(x+1, y)} for x in [-1, W-1], y in [-1, H] (zero outside the image), so
// that a sample needs two aligned 16-byte loads. Entry (X, Y) = pixel (X - 1, Y - 1); pitch W + 1.
__global__ void packFieldKernel(const float2* __restrict__ xy, int width, int height, float4* __restrict__ packed) {
    const int X = blockIdx.x * blockDim.x + threadIdx.x;
    const int Y = blockIdx.y;
    if (X > width) return;
    const int x = X - 1, y = Y - 1;
    float2 left = make_float2(0.0f, 0.0f), right = make_float2(0.0f, 0.0f);
    if (y >= 0 && y < height) {
        if (x >= 0) left = xy[static_cast<std::size_t>(y) * width + x];
        if (x + 1 < width) right = xy[static_cast<std::size_t>(y) * width + x + 1];
    }
    packed[static_cast<std::size_t>(Y) * (width + 1) + X] = make_float4(left.x, left.y, right.x, right.y);
}

// The sample sum of TraceSampling.h's sampleSegment, on the packed field. Checked samples clamp positions
// outside [-1, W-1] x [-1, H-1] to the zero border with weight 0; a warp whose segments all lie inside
// the image skips those tests and forms the load index with one conversion (eight instructions of about
// thirty-five a sample).
template <bool Checked>
__device__ __forceinline__ float sampleLoop(const float4* __restrict__ field, int width, int height, int ox, int oy,
                                            float offX, float offY, const int samples, const float stepX,
                                            const float stepY, const float dirX, const float dirY) {
    const unsigned pitch = static_cast<unsigned>(width) + 1u;
    const float pitchF = static_cast<float>(pitch);
    const unsigned origin = static_cast<unsigned>(oy) * pitch + static_cast<unsigned>(ox); // unchecked path only
    float sum = 0.0f;
    float t = 0.5f;
    for (int m = 0; m < samples; ++m, t += 1.0f) {
        const float lx = fmaf(t, stepX, offX), ly = fmaf(t, stepY, offY);
        const float flx = floorf(lx), fly = floorf(ly);
        float fx = lx - flx, fy = ly - fly;
        unsigned index;
        if constexpr (Checked) {
            int X = ox + static_cast<int>(flx), Y = oy + static_cast<int>(fly);
            if (static_cast<unsigned>(X) > static_cast<unsigned>(width)) {
                X = 0;
                fx = 0.0f;
            }
            if (static_cast<unsigned>(Y) > static_cast<unsigned>(height)) {
                Y = 0;
                fy = 0.0f;
            }
            index = static_cast<unsigned>(Y) * pitch + static_cast<unsigned>(X);
        } else {
            // The local offset fly * pitch + flx is an integer below 2^24 (checked by the caller), so float
            // holds it exactly: one conversion a sample instead of two, and no integer multiply.
            index = origin + static_cast<unsigned>(__float2int_rn(fmaf(fly, pitchF, flx)));
        }
        const float4 r0 = __ldg(field + index);
        const float4 r1 = __ldg(field + index + pitch);
        const float c00 = fabsf(r0.x * dirY - r0.y * dirX);
        const float c10 = fabsf(r0.z * dirY - r0.w * dirX);
        const float c01 = fabsf(r1.x * dirY - r1.y * dirX);
        const float c11 = fabsf(r1.z * dirY - r1.w * dirX);
        const float top = fmaf(fx, c10 - c00, c00);
        const float bottom = fmaf(fx, c11 - c01, c01);
        sum += fmaf(fy, bottom - top, top);
    }
    return sum;
}

// Called by every thread of the warp (the fast-path vote needs all of them); `active` = has a segment.
__device__ __forceinline__ float sampleSegmentDevice(const float4* __restrict__ field, int width, int height, double px,
                                                     double py, const FloatShape& s, bool active = true) {
    const double x0 = floor(px), y0 = floor(py);
    const int ox = static_cast<int>(x0) + 1, oy = static_cast<int>(y0) + 1; // +1: padded entry of the pixel
    const float offX = static_cast<float>(px - x0), offY = static_cast<float>(py - y0);
    // Inside by a pixel at both ends means inside at every sample (as on the CPU).
    const double ex = px + static_cast<double>(s.samples) * s.stepX, ey = py + static_cast<double>(s.samples) * s.stepY;
    const double pitch = width + 1.0;
    const bool inside = px >= 0.0 && px <= width - 1.0 && py >= 0.0 && py <= height - 1.0 && ex >= 0.0 &&
                        ex <= width - 1.0 && ey >= 0.0 && ey <= height - 1.0 &&
                        (fabs(ey - py) + 2.0) * pitch + fabs(ex - px) + 2.0 < 16777216.0;
    // The shape in registers: the loads inside the loop must not re-read it every sample.
    const int samples = s.samples;
    const float stepX = s.stepX, stepY = s.stepY, dirX = s.dirX, dirY = s.dirY, weight = s.weight;
    float sum;
    if (__all_sync(0xffffffffu, inside || !active))
        sum = sampleLoop<false>(field, width, height, ox, oy, offX, offY, samples, stepX, stepY, dirX, dirY);
    else
        sum = sampleLoop<true>(field, width, height, ox, oy, offX, offY, samples, stepX, stepY, dirX, dirY);
    return sum * weight;
}

// seg[(k-1)*d*d + c*d + x] for transitions k = firstTransition + blockIdx.z: q_{k,c} -> q_{k+1,x}.
__global__ void segmentScoresKernel(const float4* __restrict__ field, int width, int height, DeviceGeometry g,
                                    const FloatShape* __restrict__ interior, int firstTransition,
                                    float* __restrict__ seg, const int2* __restrict__ firstNext = nullptr,
                                    const int2* __restrict__ lastPrev = nullptr) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int c = blockIdx.y;
    const int k = firstTransition + static_cast<int>(blockIdx.z);
    // Only the segments a feasible path can use (TraceGeometry::usedSuccessors): of the first transition
    // those after an allowed turn at q_1, of the last those before an allowed turn at q_n; the DP never
    // reads the others, which get zero. (firstNext and lastPrev are null for the middle transitions.)
    bool active = x < g.d;
    if (active && firstNext != nullptr && k == 1) {
        const int2 r = firstNext[c];
        active = x >= r.x && x <= r.y;
    }
    if (active && lastPrev != nullptr && k == g.n - 1) {
        const int2 r = lastPrev[x];
        active = c >= r.x && c <= r.y;
    }
    double px, py;
    guidePoint(g, k, c, px, py);
    FloatShape shape{0, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
    if (active) shape = interior[x - c + g.d - 1];
    const float score = sampleSegmentDevice(field, width, height, px, py, shape, active);
    if (x < g.d) seg[(static_cast<std::size_t>(k - 1) * g.d + c) * g.d + x] = active ? score : 0.0f;
}

// ends[c] = a -> q_{1,c}; ends[d + c] = q_{n,c} -> b.
__global__ void endSegmentsKernel(const float4* __restrict__ field, int width, int height, DeviceGeometry g,
                                  const FloatShape* __restrict__ first, const FloatShape* __restrict__ last,
                                  float* __restrict__ ends) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const bool active = c < g.d;
    // Lanes past d sample nothing (zero samples), whichever loop the warp's vote picks.
    FloatShape shape{0, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
    if (active) shape = blockIdx.y == 0 ? first[c] : last[c];
    double px = g.ax, py = g.ay;
    if (blockIdx.y == 1) guidePoint(g, g.n, active ? c : 0, px, py);
    const float score = sampleSegmentDevice(field, width, height, px, py, shape, active);
    if (active) ends[blockIdx.y * g.d + c] = score;
}

// A segment's length |PQ| = N * (|PQ| / N): the lambda term of the ratio objective's edge weight
// score - lambda * length (lambda = 0 leaves the score exactly as it was).
__device__ inline float shapeLength(const FloatShape& s) { return s.weight * static_cast<float>(s.samples); }

// score[x*d + c] = best path a, q_{1,c}, q_{2,x}: the first turn needs no maximum, only its test.
__global__ void dpFirstKernel(const float* __restrict__ ends, const float* __restrict__ seg1,
                              const int2* __restrict__ firstNext, const FloatShape* __restrict__ first,
                              const FloatShape* __restrict__ interior, float lambda, int d, float* __restrict__ score) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int c = blockIdx.y;
    if (x >= d) return;
    const int2 r = firstNext[c];
    const bool ok = x >= r.x && x <= r.y;
    const float start = ends[c] - lambda * shapeLength(first[c]);
    const float step = seg1[static_cast<std::size_t>(c) * d + x] - lambda * shapeLength(interior[x - c + d - 1]);
    score[static_cast<std::size_t>(x) * d + c] = ok ? start + step : -INFINITY;
}

__device__ inline int sparseLevelOffset(int level, int d) { return (level - 1) * (d + 1) - ((1 << level) - 2); }

// One DP step for the current point c = blockIdx.x: next[x*d + c] = seg[c*d + x] + max over the allowed
// predecessors p of score[c*d + p], back[c*d + x] = that p. The predecessors form one interval, so a sparse
// table over score[c*d + .] (levels of 16-bit argmax indices in shared memory) answers each x in O(1).
__global__ void dpStepKernel(const float* __restrict__ score, const float* __restrict__ seg,
                             const int2* __restrict__ incoming, const FloatShape* __restrict__ interior, float lambda,
                             int d, int levels, float* __restrict__ next, std::uint16_t* __restrict__ back) {
    extern __shared__ float shared[];
    float* values = shared;
    auto* table = reinterpret_cast<std::uint16_t*>(values + d);
    const int c = blockIdx.x;
    for (int p = threadIdx.x; p < d; p += blockDim.x) values[p] = score[static_cast<std::size_t>(c) * d + p];
    __syncthreads();
    for (int level = 1; level <= levels; ++level) {
        std::uint16_t* current = table + sparseLevelOffset(level, d);
        const std::uint16_t* below = level > 1 ? table + sparseLevelOffset(level - 1, d) : nullptr;
        const int half = 1 << (level - 1);
        const int count = d - (1 << level) + 1;
        for (int i = threadIdx.x; i < count; i += blockDim.x) {
            const int a = below ? below[i] : i;
            const int b = below ? below[i + half] : i + 1;
            current[i] = static_cast<std::uint16_t>(values[a] >= values[b] ? a : b);
        }
        __syncthreads();
    }
    for (int x = threadIdx.x; x < d; x += blockDim.x) {
        const int2 m = incoming[x - c + d - 1]; // allowed c - p
        const int lo = max(0, c - m.y), hi = min(d - 1, c - m.x);
        float best = -INFINITY;
        int arg = 0;
        if (lo <= hi) {
            const int level = 31 - __clz(hi - lo + 1);
            int a = lo, b = lo;
            if (level > 0) {
                const std::uint16_t* t = table + sparseLevelOffset(level, d);
                a = t[lo];
                b = t[hi - (1 << level) + 1];
            }
            arg = values[a] >= values[b] ? a : b;
            best = values[arg];
        }
        next[static_cast<std::size_t>(x) * d + c] =
            best + (seg[static_cast<std::size_t>(c) * d + x] - lambda * shapeLength(interior[x - c + d - 1]));
        back[static_cast<std::size_t>(c) * d + x] = static_cast<std::uint16_t>(arg);
    }
}

// Per point c of guide n: the best complete path ending q_{n,c} -> b (n >= 2: over the allowed
// predecessors p; n == 1: a -> q_{1,c} -> b if that turn is allowed).
__global__ void dpFinalKernel(const float* __restrict__ score, const float* __restrict__ ends,
                              const int2* __restrict__ lastPrev, const int* __restrict__ single,
                              const FloatShape* __restrict__ first, const FloatShape* __restrict__ last, float lambda,
                              int n, int d, float* __restrict__ bestScore, int* __restrict__ bestPrev) {
    const int c = blockIdx.x;
    __shared__ float values[32];
    __shared__ int args[32];
    float best = -INFINITY;
    int arg = 0x7fffffff;
    if (n >= 2) {
        const int2 r = lastPrev[c];
        for (int p = r.x + threadIdx.x; p <= r.y; p += blockDim.x) {
            const float v = score[static_cast<std::size_t>(c) * d + p];
            if (v > best || (v == best && p < arg)) {
                best = v;
                arg = p;
            }
        }
    } else if (threadIdx.x == 0 && single[c]) {
        best = ends[c] - lambda * shapeLength(first[c]);
        arg = 0;
    }
    for (int offset = 16; offset > 0; offset >>= 1) {
        const float ov = __shfl_down_sync(0xffffffffu, best, offset);
        const int oa = __shfl_down_sync(0xffffffffu, arg, offset);
        if (ov > best || (ov == best && oa < arg)) {
            best = ov;
            arg = oa;
        }
    }
    if ((threadIdx.x & 31) == 0) {
        values[threadIdx.x >> 5] = best;
        args[threadIdx.x >> 5] = arg;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < static_cast<int>(blockDim.x >> 5); ++w)
            if (values[w] > best || (values[w] == best && args[w] < arg)) {
                best = values[w];
                arg = args[w];
            }
        bestScore[c] = best + (ends[d + c] - lambda * shapeLength(last[c]));
        bestPrev[c] = arg == 0x7fffffff ? 0 : arg;
    }
}

// One block: the best c, then the path back through the back-pointers. result[0] = score (as float bits),
// result[1 + k - 1] = index of q_k.
__global__ void backtrackKernel(const float* __restrict__ bestScore, const int* __restrict__ bestPrev,
                                const std::uint16_t* __restrict__ back, int n, int d, int* __restrict__ result) {
    __shared__ float values[1024];
    __shared__ int args[1024];
    float best = -INFINITY;
    int arg = 0x7fffffff;
    for (int c = threadIdx.x; c < d; c += blockDim.x)
        if (bestScore[c] > best) {
            best = bestScore[c];
            arg = c;
        }
    values[threadIdx.x] = best;
    args[threadIdx.x] = arg;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) {
            const float ov = values[threadIdx.x + stride];
            const int oa = args[threadIdx.x + stride];
            if (ov > values[threadIdx.x] || (ov == values[threadIdx.x] && oa < args[threadIdx.x])) {
                values[threadIdx.x] = ov;
                args[threadIdx.x] = oa;
            }
        }
        __syncthreads();
    }
    if (threadIdx.x != 0) return;
    result[0] = __float_as_int(values[0]);
    const int c = args[0] == 0x7fffffff ? 0 : args[0];
    int* q = result + 1; // q[k-1] = index of q_k
    q[n - 1] = c;
    if (n >= 2) q[n - 2] = bestPrev[c];
    const std::size_t dd = static_cast<std::size_t>(d) * d;
    for (int j = n; j >= 3; --j) q[j - 3] = back[(j - 3) * dd + static_cast<std::size_t>(q[j - 2]) * d + q[j - 1]];
}

} // namespace glint::cuda::trace
