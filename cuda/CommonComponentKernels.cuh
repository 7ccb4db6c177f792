// CUDA kernels of the common-component search: bit planes of the quantised codes, the code bound of
// every offset (a popcount "GEMM" over pairs of rows), candidate selection, exact match counts, patch
// seeds, and the batched labeller that runs StripLabeller.h's phases with one block per offset.
#pragma once

#include "core/algo/commoncomponent/CommonComponentCoding.h"
#include "core/algo/commoncomponent/StripLabeller.h"

#include <cstdint>
#include <cuda_runtime.h>

namespace glint::cuda::common {

using glint::common_component::agreeBits;
using glint::common_component::StripView;
constexpr unsigned kFullWarp = 0xFFFFFFFFu;

// Atomic shared-memory operations for the strip phases (host branches exist only to compile).
struct DeviceOps {
    __host__ __device__ static std::uint32_t load(const std::uint32_t* p) {
#if defined(__CUDA_ARCH__)
        return *reinterpret_cast<const volatile std::uint32_t*>(p);
#else
        return *p;
#endif
    }
    __host__ __device__ static std::uint32_t atomicMin(std::uint32_t* p, std::uint32_t v) {
#if defined(__CUDA_ARCH__)
        return ::atomicMin(p, v);
#else
        const std::uint32_t old = *p;
        if (v < old) *p = v;
        return old;
#endif
    }
    __host__ __device__ static void atomicAdd(std::uint32_t* p, std::uint32_t v) {
#if defined(__CUDA_ARCH__)
        ::atomicAdd(p, v);
#else
        *p += v;
#endif
    }
};

// The match relation on typed codes (T = uint8/16/32): code - lo <= span in T's modular arithmetic.
template <class T, bool Span>
struct MatchData {
    const T* lo = nullptr;   // per A pixel
    const T* span = nullptr; // per A pixel (Span only)
    const T* code = nullptr; // per B pixel
    int wA = 0, hA = 0, wB = 0, hB = 0;

    __device__ bool match(std::size_t ia, std::size_t ib) const {
        const T c = code[ib], l = lo[ia];
        if constexpr (Span) return static_cast<T>(c - l) <= span[ia];
        else return c == l;
    }
};

struct Overlap {
    int x0, y0, width, height;
};
__device__ inline Overlap overlapOf(int wA, int hA, int wB, int hB, int dx, int dy) {
    Overlap o;
    o.x0 = dx < 0 ? -dx : 0;
    o.y0 = dy < 0 ? -dy : 0;
    const int x1 = min(wA, wB - dx), y1 = min(hA, hB - dy);
    o.width = max(0, x1 - o.x0);
    o.height = max(0, y1 - o.y0);
    return o;
}

__device__ inline bool cancelled(const volatile int* flag) { return flag && *flag != 0; }

// ---- bit planes ----------------------------------------------------------------------------------------
// planes[(y * words + j) * NP + p]: bit b = pixel 32j + b. NP = 4: bin bits 0-2 and the valid bit;
// NP = 8: bin bits 0-5, the valid bit, and a zero plane.
template <int NP>
__global__ void buildPlanesKernel(const std::uint8_t* bins, int w, int h, int words, std::uint32_t* planes) {
    const long long warp = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
    const int lane = threadIdx.x & 31;
    if (warp >= static_cast<long long>(h) * words) return;
    const int y = static_cast<int>(warp / words), j = static_cast<int>(warp % words), x = j * 32 + lane;
    const std::uint8_t v = x < w ? bins[static_cast<std::size_t>(y) * w + x] : 0;
    std::uint32_t* out = planes + (static_cast<std::size_t>(y) * words + j) * NP;
    constexpr int codePlanes = NP == 4 ? 3 : 6;
#pragma unroll
    for (int p = 0; p < codePlanes; ++p) {
        const std::uint32_t bits = __ballot_sync(kFullWarp, (v >> p) & 1);
        if (lane == 0) out[p] = bits;
    }
    const std::uint32_t valid = __ballot_sync(kFullWarp, (v >> 7) & 1);
    if (lane == 0) {
        out[codePlanes] = valid;
        if (NP == 8) out[7] = 0;
    }
}

// ---- the FFT match-count bound -----------------------------------------------------------------------
// core/algo/commoncomponent/CommonRegistration.h (MatchCountBound) on the device: B's codes cut into bins of equal
// population (binOf), "A covers bin k" and "B is in bin k" as 0/1 planes, their cyclic correlations
// summed over the bins in double precision (cuFFT), rounded up with the host's margin. An upper bound of
// the exact match count at every offset; offsets at or below the best are skipped without a look.
struct FftBound {
    const std::uint32_t* bound = nullptr; // [dy mod sizeY][dx mod sizeX]; null: none
    int sizeX = 1, sizeY = 1;
    __device__ bool beats(int dx, int dy, std::uint32_t best) const {
        if (!bound) return true;
        const int x = ((dx % sizeX) + sizeX) % sizeX, y = ((dy % sizeY) + sizeY) % sizeY;
        return bound[static_cast<std::size_t>(y) * sizeX + x] > best;
    }
};

// planes[2g] = A covers bin firstBin + g, planes[2g + 1] = B is in it (g < group), each sizeY x sizeX.
template <class T, bool Span>
__global__ void fftPlanesKernel(MatchData<T, Span> m, const std::uint8_t* binOf, std::uint32_t codeCount, int firstBin,
                                int group, int sizeX, int sizeY, double* planes) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= sizeX || y >= sizeY) return;
    const std::size_t plane = static_cast<std::size_t>(sizeX) * sizeY, at = static_cast<std::size_t>(y) * sizeX + x;
    int aLo = 1, aHi = 0, bBin = -1;
    if (x < m.wA && y < m.hA) {
        const std::size_t i = static_cast<std::size_t>(y) * m.wA + x;
        const std::uint32_t lo = m.lo[i];
        if (lo < codeCount) {
            std::uint32_t hi = lo + (Span ? static_cast<std::uint32_t>(m.span[i]) : 0u);
            if (hi > codeCount - 1) hi = codeCount - 1;
            aLo = binOf[lo], aHi = binOf[hi];
        }
    }
    if (x < m.wB && y < m.hB) {
        const std::uint32_t code = m.code[static_cast<std::size_t>(y) * m.wB + x];
        if (code < codeCount) bBin = binOf[code];
    }
    for (int g = 0; g < group; ++g) {
        const int bin = firstBin + g;
        planes[(2 * g) * plane + at] = aLo <= bin && bin <= aHi ? 1.0 : 0.0;
        planes[(2 * g + 1) * plane + at] = bBin == bin ? 1.0 : 0.0;
    }
}

// acc += sum over g of conj(F[2g]) F[2g + 1] (half spectra of n values each); first: acc = that sum.
__global__ void fftAccumulateKernel(const double2* spectra, int group, std::size_t n, double2* acc, bool first) {
    const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double re = first ? 0.0 : acc[i].x, im = first ? 0.0 : acc[i].y;
    for (int g = 0; g < group; ++g) {
        const double2 a = spectra[(2 * g) * n + i], b = spectra[(2 * g + 1) * n + i];
        re += a.x * b.x + a.y * b.y;
        im += a.x * b.y - a.y * b.x;
    }
    acc[i] = make_double2(re, im);
}

// bound = floor(max(0, counts / n) + margin): the unscaled inverse transform, scaled, rounded up.
__global__ void fftBoundKernel(const double* counts, std::size_t n, double scale, double margin, std::uint32_t* bound) {
    const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n) return;
    bound[i] = static_cast<std::uint32_t>(floor(fmax(0.0, counts[i] * scale) + margin));
}

// ---- the code bound ------------------------------------------------------------------------------------
// Block (dx, 64 consecutive dy): for every pair of an A row and a B row whose difference is one of the
// dy, the pixels whose quantised codes agree, summed per dy. Thread (ty, tdy, tw) pairs A rows
// ty*8 + i with dy tdy*8 + d (B row ty*8 + tdy*8 + i + d of the tile: 15 B rows serve 64 pairs) on
// words tw, tw + 4, ... of the word chunk. B rows are shifted to A's bit alignment when loaded.
constexpr int kBoundDy = 64, kBoundRows = 64, kBoundThreads = 256;

template <int NP>
struct BoundTraits {
    static constexpr int kWordsPerChunk = NP == 4 ? 8 : 4;
};

struct BoundArgs {
    const std::uint32_t* planesA;
    const std::uint32_t* planesB;
    int wA, hA, wB, hB, wordsA, wordsB;
    int dxLo, dyLo, dyCount; // the band: dx = dxLo + blockIdx.x (+ dxFirst), dy = dyLo + index
    int dxFirst;             // first band column of this launch
    std::uint32_t best;      // offsets whose overlap cannot exceed it are skipped
    std::uint32_t* bound;    // [band dx][dyCount]
    const volatile int* cancel;
    FftBound fft;            // and those whose FFT match-count bound cannot (when it was built)
};

// Shared-memory slot of (row, word): rows 8 apart land in different banks.
template <int NP>
__device__ __forceinline__ int boundSlot(int row, int word) {
    constexpr int wc = BoundTraits<NP>::kWordsPerChunk;
    if constexpr (NP == 4) return (row * wc + (word ^ (((row >> 3) & 1) << 2))) * NP;
    else return (row * wc + word) * NP;
}
// NP = 8: the two 16-byte halves of a word swap on alternate row groups instead.
template <int NP>
__device__ __forceinline__ int boundHalf(int row, int half) {
    if constexpr (NP == 8) return (half ^ ((row >> 3) & 1)) * 4;
    else return half * 4;
}

// The NP planes of (row, word) from a tile, 16 bytes at a time.
template <int NP>
__device__ __forceinline__ void loadWord(const std::uint32_t* tile, int row, int word, std::uint32_t* out) {
#pragma unroll
    for (int h = 0; h < NP / 4; ++h) {
        const uint4 v = *reinterpret_cast<const uint4*>(tile + boundSlot<NP>(row, word) + boundHalf<NP>(row, h));
        out[4 * h] = v.x;
        out[4 * h + 1] = v.y;
        out[4 * h + 2] = v.z;
        out[4 * h + 3] = v.w;
    }
}

template <int NP>
__global__ void __launch_bounds__(kBoundThreads) boundKernel(BoundArgs args) {
    constexpr int wc = BoundTraits<NP>::kWordsPerChunk;
    constexpr int bRows = kBoundRows + kBoundDy - 1;
    __shared__ __align__(16) std::uint32_t tileA[kBoundRows * wc * NP];
    __shared__ __align__(16) std::uint32_t tileB[bRows * wc * NP];
    __shared__ std::uint32_t sums[kBoundDy];

    if (__syncthreads_or(cancelled(args.cancel))) return; // the flag may flip: decide for the whole block
    const int tid = threadIdx.x;
    const int dxIndex = args.dxFirst + blockIdx.x;
    const int dx = args.dxLo + dxIndex;
    const int dy0 = args.dyLo + blockIdx.y * kBoundDy;
    const int dyEnd = min(dy0 + kBoundDy, args.dyLo + args.dyCount);
    const int xa0 = max(0, -dx), xa1 = min(args.wA, args.wB - dx);
    const int ow = xa1 - xa0;
    // Skip the tile when no offset in it has an overlap larger than the best.
    bool useful = false;
    if (tid < dyEnd - dy0 && ow > 0) {
        const int dy = dy0 + tid;
        const int oh = min(args.hA, args.hB - dy) - max(0, -dy);
        useful = oh > 0 && static_cast<unsigned long long>(ow) * oh > args.best && args.fft.beats(dx, dy, args.best);
    }
    if (!__syncthreads_or(useful)) return;
    if (tid < kBoundDy) sums[tid] = 0;

    const int tw = tid & 3, tdy = (tid >> 2) & 7, ty = tid >> 5;
    const int j0 = xa0 >> 5, j1 = (xa1 + 31) >> 5;
    const int yLo = max(0, -(dyEnd - 1)), yHi = min(args.hA, args.hB - dy0);
    std::uint32_t acc[8];
#pragma unroll
    for (int d = 0; d < 8; ++d) acc[d] = 0;

    for (int y = yLo; y < yHi; y += kBoundRows) {
        for (int jc = j0; jc < j1; jc += wc) {
            __syncthreads();
            // One (row, word) per step: its NP planes move as 16-byte vectors; B's are shifted to A's
            // bit alignment (bit b of A's word j faces B column 32j + dx + b) with funnel shifts.
            for (int e = tid; e < kBoundRows * wc; e += kBoundThreads) {
                const int k = e % wc, r = e / wc, ya = y + r, j = jc + k;
                const bool inside = ya < args.hA && j < j1;
                const uint4* src = reinterpret_cast<const uint4*>(args.planesA + (static_cast<std::size_t>(inside ? ya : 0) * args.wordsA + (inside ? j : 0)) * NP);
#pragma unroll
                for (int h = 0; h < NP / 4; ++h)
                    *reinterpret_cast<uint4*>(tileA + boundSlot<NP>(r, k) + boundHalf<NP>(r, h)) =
                        inside ? src[h] : make_uint4(0, 0, 0, 0);
            }
            for (int e = tid; e < bRows * wc; e += kBoundThreads) {
                const int k = e % wc, r = e / wc, yb = y + dy0 + r, j = jc + k;
                const int start = 32 * j + dx;
                const int q = start >= 0 ? start / 32 : -((31 - start) / 32);
                const int s = start - 32 * q;
                const bool rowInside = yb >= 0 && yb < args.hB && j < j1;
                const bool loInside = rowInside && q >= 0 && q < args.wordsB;
                const bool hiInside = rowInside && q + 1 >= 0 && q + 1 < args.wordsB;
                const uint4* row = reinterpret_cast<const uint4*>(args.planesB + static_cast<std::size_t>(rowInside ? yb : 0) * args.wordsB * NP);
#pragma unroll
                for (int h = 0; h < NP / 4; ++h) {
                    const uint4 lo = loInside ? row[q * (NP / 4) + h] : make_uint4(0, 0, 0, 0);
                    const uint4 hi = hiInside ? row[(q + 1) * (NP / 4) + h] : make_uint4(0, 0, 0, 0);
                    *reinterpret_cast<uint4*>(tileB + boundSlot<NP>(r, k) + boundHalf<NP>(r, h)) =
                        make_uint4(__funnelshift_r(lo.x, hi.x, s), __funnelshift_r(lo.y, hi.y, s),
                                   __funnelshift_r(lo.z, hi.z, s), __funnelshift_r(lo.w, hi.w, s));
                }
            }
            __syncthreads();
            for (int k = tw; k < wc; k += 4) {
                std::uint32_t a[8][NP];
#pragma unroll
                for (int i = 0; i < 8; ++i) loadWord<NP>(tileA, ty * 8 + i, k, a[i]);
#pragma unroll
                for (int rr = 0; rr < 15; ++rr) {
                    const int r = ty * 8 + tdy * 8 + rr;
                    std::uint32_t b[NP];
                    loadWord<NP>(tileB, r, k, b);
#pragma unroll
                    for (int i = 0; i < 8; ++i) {
                        const int d = rr - i;
                        if (d >= 0 && d < 8) acc[d] += __popc(agreeBits<NP>(a[i], b));
                    }
                }
            }
        }
    }
#pragma unroll
    for (int d = 0; d < 8; ++d)
        if (acc[d]) atomicAdd(&sums[tdy * 8 + d], acc[d]);
    __syncthreads();
    if (tid < dyEnd - dy0)
        args.bound[static_cast<std::size_t>(dxIndex) * args.dyCount + (dy0 - args.dyLo) + tid] = sums[tid];
}

// ---- candidates ----------------------------------------------------------------------------------------
struct SelectArgs {
    const std::uint32_t* bound;
    std::uint32_t n; // offsets in the band
    int wA, hA, wB, hB, dxLo, dyLo, dyCount;
    std::uint32_t best;
    std::uint32_t* keys;
    std::uint32_t* values;
    std::uint32_t* counters; // [0] candidates, [1] pruned by area, [2] pruned by bound
    FftBound fft;
};

__global__ void selectKernel(SelectArgs args) {
    const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    int byArea = 0, byBound = 0;
    if (i < args.n) {
        const int dx = args.dxLo + static_cast<int>(i / args.dyCount), dy = args.dyLo + static_cast<int>(i % args.dyCount);
        const Overlap o = overlapOf(args.wA, args.hA, args.wB, args.hB, dx, dy);
        const unsigned long long area = static_cast<unsigned long long>(o.width) * o.height;
        if (area <= args.best) byArea = 1;
        else if (args.bound[i] <= args.best || !args.fft.beats(dx, dy, args.best)) byBound = 1;
        else {
            const std::uint32_t k = atomicAdd(&args.counters[0], 1u);
            args.keys[k] = args.bound[i];
            args.values[k] = i;
        }
    }
    const int area = __syncthreads_count(byArea), bound = __syncthreads_count(byBound);
    if (threadIdx.x == 0) {
        if (area) atomicAdd(&args.counters[1], static_cast<std::uint32_t>(area));
        if (bound) atomicAdd(&args.counters[2], static_cast<std::uint32_t>(bound));
    }
}

// ---- exact match counts (one block per offset) ---------------------------------------------------------
template <class T, bool Span>
__global__ void countKernel(MatchData<T, Span> m, const int2* offsets, std::uint32_t count, std::uint32_t* out,
                            const volatile int* cancel) {
    __shared__ std::uint32_t total;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    for (std::uint32_t it = blockIdx.x; it < count; it += gridDim.x) {
        if (__syncthreads_or(cancelled(cancel))) return;
        const int2 off = offsets[it];
        const Overlap o = overlapOf(m.wA, m.hA, m.wB, m.hB, off.x, off.y);
        if (threadIdx.x == 0) total = 0;
        __syncthreads();
        std::uint32_t c = 0;
        for (int y = warp; y < o.height; y += warps) {
            const std::size_t ia = static_cast<std::size_t>(o.y0 + y) * m.wA + o.x0;
            const std::size_t ib = static_cast<std::size_t>(o.y0 + y + off.y) * m.wB + (o.x0 + off.x);
            for (int x = lane; x < o.width; x += 32) c += m.match(ia + x, ib + x);
        }
#if __CUDA_ARCH__ >= 800
        c = __reduce_add_sync(kFullWarp, c);
#else
        for (int step = 16; step > 0; step /= 2) c += __shfl_xor_sync(kFullWarp, c, step);
#endif
        if (lane == 0 && c) atomicAdd(&total, c);
        __syncthreads();
        if (threadIdx.x == 0) out[it] = total;
        __syncthreads();
    }
}

// ---- patch seeds ---------------------------------------------------------------------------------------
constexpr int kSeedPatch = 8, kMaxSeedPatches = 64;

template <class T, bool Span>
__global__ void seedKernel(MatchData<T, Span> m, const int2* patches, int patchCount, int2* hits,
                           std::uint32_t* hitCount, std::uint32_t cap) {
    __shared__ T lo[kMaxSeedPatches * kSeedPatch * kSeedPatch];
    __shared__ T span[kMaxSeedPatches * kSeedPatch * kSeedPatch];
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    for (int e = tid; e < patchCount * kSeedPatch * kSeedPatch; e += blockDim.x * blockDim.y) {
        const int p = e / (kSeedPatch * kSeedPatch), i = e % (kSeedPatch * kSeedPatch);
        const std::size_t ia = static_cast<std::size_t>(patches[p].y + i / kSeedPatch) * m.wA + patches[p].x + i % kSeedPatch;
        lo[e] = m.lo[ia];
        span[e] = Span ? m.span[ia] : T(0);
    }
    __syncthreads();
    const int bx = blockIdx.x * blockDim.x + threadIdx.x, by = blockIdx.y * blockDim.y + threadIdx.y;
    if (bx + kSeedPatch > m.wB || by + kSeedPatch > m.hB) return;
    for (int p = 0; p < patchCount; ++p) {
        bool all = true;
        for (int i = 0; i < kSeedPatch * kSeedPatch && all; ++i) {
            const T c = m.code[static_cast<std::size_t>(by + i / kSeedPatch) * m.wB + bx + i % kSeedPatch];
            const int e = p * kSeedPatch * kSeedPatch + i;
            all = static_cast<T>(c - lo[e]) <= span[e];
        }
        if (!all) continue;
        const std::uint32_t k = atomicAdd(hitCount, 1u);
        if (k < cap) hits[k] = make_int2(bx - patches[p].x, by - patches[p].y);
    }
}

// ---- the batched labeller ------------------------------------------------------------------------------
constexpr int kLabelMaxThreads = 512;

struct LabelArgs {
    const int2* offsets;
    std::uint32_t count;
    const std::uint32_t* counts; // exact match counts, or null
    std::uint32_t minCount;      // offsets with count <= minCount are skipped
    std::uint32_t* work;         // next item (atomic)
    std::uint32_t* outSize;
    int2* outSeed;               // in A's frame
    unsigned long long* bestKey; // (size << 32) | item, atomicMax
    std::uint32_t* labelled;
    std::uint32_t* scratch;      // scratchStride words per block (tmpRoot)
    int scratchStride;
    int nodeCap, maskCap, rowsCap;
    const volatile int* cancel;
};

__device__ inline void warpRunEntry(const StripView& s, int r, int lane) {
    int carry = -1;
    for (int base = 0; base < s.words; base += 32) {
        const int w = base + lane;
        int z = -1;
        if (w < s.words) {
            const std::uint32_t zeros = ~s.word(r, w);
            if (zeros) z = w * 32 + 31 - __clz(zeros);
        }
        int v = z;
#pragma unroll
        for (int off = 1; off < 32; off <<= 1) {
            const int t = __shfl_up_sync(kFullWarp, v, off);
            if (lane >= off) v = max(v, t);
        }
        int before = __shfl_up_sync(kFullWarp, v, 1);
        if (lane == 0) before = -1;
        if (w < s.words) s.runEntry[r * s.words + w] = static_cast<std::uint32_t>(max(carry, before) + 1);
        carry = max(carry, __shfl_sync(kFullWarp, v, 31));
    }
}

template <class T, bool Span>
__global__ void __launch_bounds__(kLabelMaxThreads) labelKernel(MatchData<T, Span> m, LabelArgs args) {
    namespace cc = glint::common_component;
    extern __shared__ __align__(16) std::uint32_t shared[];
    __shared__ std::uint32_t item;
    __shared__ unsigned long long best;
    std::uint32_t* node = shared;
    std::uint32_t* mask = node + args.nodeCap;
    std::uint32_t* runEntry = mask + args.maskCap;
    std::uint32_t* tmpRoot = args.scratch + static_cast<std::size_t>(blockIdx.x) * args.scratchStride;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, warps = blockDim.x >> 5;

    for (;;) {
        if (tid == 0) item = cancelled(args.cancel) ? args.count : atomicAdd(args.work, 1u);
        __syncthreads();
        const std::uint32_t it = item;
        __syncthreads();
        if (it >= args.count) return;
        if (args.counts && args.counts[it] <= args.minCount) {
            if (tid == 0) args.outSize[it] = 0;
            continue;
        }
        const int2 off = args.offsets[it];
        const Overlap o = overlapOf(m.wA, m.hA, m.wB, m.hB, off.x, off.y);
        StripView s;
        s.width = o.width;
        s.words = (o.width + 31) / 32;
        s.mask = mask;
        s.runEntry = runEntry;
        s.node = node;
        const int stripRows = max(1, min(min(o.height, args.rowsCap - 1), args.nodeCap / (o.width + 1) - 1));
        if (tid == 0) {
            best = 0;
            atomicAdd(args.labelled, 1u);
        }
        for (int w = tid; w < s.words; w += blockDim.x) mask[w] = 0;
        __syncthreads();

        for (int y0 = 0; y0 < o.height; y0 += stripRows) {
            const int fresh = min(stripRows, o.height - y0);
            s.rows = fresh + 1;
            const int words = s.words;
            // Mask rows 1..fresh: one lane per pixel, four words per warp at a time so that their loads overlap.
            for (int e0 = warp * 4; e0 < fresh * words; e0 += warps * 4) {
                bool bit[4];
#pragma unroll
                for (int u = 0; u < 4; ++u) {
                    const int e = e0 + u, r = 1 + e / words, x = (e % words) * 32 + lane;
                    bit[u] = false;
                    if (e < fresh * words && x < o.width) {
                        const int ya = o.y0 + y0 + r - 1;
                        bit[u] = m.match(static_cast<std::size_t>(ya) * m.wA + o.x0 + x,
                                         static_cast<std::size_t>(ya + off.y) * m.wB + o.x0 + x + off.x);
                    }
                }
#pragma unroll
                for (int u = 0; u < 4; ++u) {
                    const std::uint32_t bits = __ballot_sync(kFullWarp, bit[u]);
                    if (lane == 0 && e0 + u < fresh * words) mask[words + e0 + u] = bits;
                }
            }
            __syncthreads();
            for (int r = warp; r <= fresh; r += warps) warpRunEntry(s, r, lane);
            __syncthreads();
            const int newWords = fresh * words, allWords = (fresh + 1) * words;
            for (int e = tid; e < newWords; e += blockDim.x) cc::initWord(s, 1 + e / words, e % words);
            __syncthreads();
            for (int e = tid; e < newWords; e += blockDim.x) cc::unionWord<DeviceOps>(s, 1 + e / words, e % words);
            __syncthreads();
            for (int e = tid; e < allWords; e += blockDim.x) cc::flattenAndSizeWord<DeviceOps>(s, e / words, e % words);
            __syncthreads();
            unsigned long long local = 0;
            for (int e = tid; e < allWords; e += blockDim.x) {
                const unsigned long long key = cc::largestRootInWord(s, e / words, e % words);
                if (key == 0) continue;
                const std::uint32_t i = static_cast<std::uint32_t>(key);
                const int r = static_cast<int>(i / static_cast<std::uint32_t>(o.width + 1));
                const int c = static_cast<int>(i % static_cast<std::uint32_t>(o.width + 1));
                // Re-key by the pixel's index in the overlap, which stays valid after this strip.
                const unsigned long long pixel = static_cast<unsigned long long>(y0 + r - 1) * o.width + c;
                const unsigned long long k = ((key >> 32) << 32) | pixel;
                if (k > local) local = k;
            }
            if (local) atomicMax(&best, local);
            if (y0 + fresh >= o.height) break;
            for (int w = tid; w < words; w += blockDim.x) cc::carryRootsWord(s, w, tmpRoot);
            __syncthreads();
            for (int w = tid; w < words; w += blockDim.x) cc::carryClearWord(s, w, tmpRoot);
            __syncthreads();
            for (int w = tid; w < words; w += blockDim.x) cc::carryMinWord<DeviceOps>(s, w, tmpRoot);
            __syncthreads();
            for (int w = tid; w < words; w += blockDim.x) cc::carryCanonicalWord(s, w, tmpRoot);
            __syncthreads();
            for (int w = tid; w < words; w += blockDim.x) cc::carryWriteWord(s, w, tmpRoot);
            if (__syncthreads_or(cancelled(args.cancel))) break;
        }
        __syncthreads();
        if (tid == 0) {
            const std::uint32_t size = static_cast<std::uint32_t>(best >> 32);
            const std::uint32_t pixel = static_cast<std::uint32_t>(best);
            args.outSize[it] = size;
            args.outSeed[it] = make_int2(o.x0 + static_cast<int>(pixel % o.width), o.y0 + static_cast<int>(pixel / o.width));
            if (size) atomicMax(args.bestKey, (static_cast<unsigned long long>(size) << 32) | it);
        }
    }
}

} // namespace glint::cuda::common
