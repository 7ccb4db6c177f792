// Device kernels of the CUDA maximum-subarray backend: column prefix sums, the blocking index of
// excluded cells, the strip kernel (every pair of rows in parallel, per-strip maxima only), and the
// reductions, candidate selection and exact recheck that turn per-strip maxima into the answer.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace glint::cuda::maxsub {
// Unnamed: the kernels are defined in this header, once in every .cu file that includes it.
namespace {

constexpr int kChunk = 32;   // columns staged in shared memory per step (pitch is a multiple of it)
constexpr int kThreads = 256; // strip kernel: 16 x 16 threads, each T tops x B bottoms

// ---------------------------------------------------------------------------------------------
// Prefix sums: one thread per column walks down the rows in order (the reference's order, so double
// sums agree bit for bit). Loads run ahead of the additions to keep memory busy.

template <class S, class Exact>
__device__ __forceinline__ Exact workValue(S v, Exact pivot) {
    if constexpr (sizeof(Exact) == 8 && Exact(1) / 2 == 0) { // int64: wrapping, |a| < 2^62 is guaranteed
        long long iv;
        if constexpr (sizeof(S) >= 4 && S(1) / 2 != 0) iv = llrint(static_cast<double>(v)); // integer-valued floats
        else iv = static_cast<long long>(v);
        return static_cast<Exact>(static_cast<unsigned long long>(iv) - static_cast<unsigned long long>(pivot));
    } else {
        return static_cast<double>(v) - pivot;
    }
}

struct PrefixArgs {
    const void* samples;      // the ROI, row-major, roiWidth per row
    int roiWidth;
    bool transposed;          // work (r, c) = ROI (x = r, y = c)
    const std::uint8_t* mask; // rows x cols in work coordinates, or null
    int rows, cols, pitch;
    void* exact;              // (rows+1) x pitch, int64 or double, or null
    int* p32;                 // (rows+1) x pitch, or null
    float* pf;                // (rows+1) x pitch, or null
    unsigned* pmaxBits;       // max |P| over everything (float bits, rounded up), or null
};

template <class S, class Exact>
__global__ void prefixKernel(PrefixArgs a, Exact pivot) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= a.pitch) return;
    const S* samples = static_cast<const S*>(a.samples);
    Exact* exact = static_cast<Exact*>(a.exact);
    const bool live = c < a.cols;
    Exact acc = Exact(0);
    double amax = 0.0;
    auto store = [&](int r) {
        const std::size_t i = static_cast<std::size_t>(r) * a.pitch + c;
        if (exact) exact[i] = acc;
        if (a.p32) a.p32[i] = static_cast<int>(acc);
        if (a.pf) a.pf[i] = static_cast<float>(acc);
    };
    store(0);
    constexpr int kAhead = 16;
    for (int r0 = 0; r0 < a.rows; r0 += kAhead) {
        S v[kAhead];
        bool in[kAhead];
#pragma unroll
        for (int k = 0; k < kAhead; ++k) {
            const int r = r0 + k;
            in[k] = live && r < a.rows && !(a.mask && a.mask[static_cast<std::size_t>(r) * a.cols + c]);
            v[k] = in[k] ? samples[a.transposed ? static_cast<std::size_t>(c) * a.roiWidth + r
                                                : static_cast<std::size_t>(r) * a.roiWidth + c]
                         : S(0);
        }
#pragma unroll
        for (int k = 0; k < kAhead; ++k) {
            if (r0 + k >= a.rows) break;
            acc = acc + (in[k] ? workValue<S, Exact>(v[k], pivot) : Exact(0));
            amax = fmax(amax, fabs(static_cast<double>(acc)));
            store(r0 + k + 1);
        }
    }
    if (a.pmaxBits) {
        // Rounded up, so that it bounds the exact |P| as well as the float one.
        const float bound = __double2float_ru(amax * (1.0 + 1e-6));
        atomicMax(a.pmaxBits, __float_as_uint(bound));
    }
}

// next[r][c]: the first excluded row >= r in column c (rows when none); nextMin[r][chunk]: its
// minimum over the chunk's columns, so that a strip tile can skip the blocking test. Both can be
// rebuilt for a range of columns and the rows 0..rowLast only (what removing a region changes).
__global__ void nextExcludedKernel(const std::uint8_t* mask, int rows, int cols, int pitch, int* next, int colBegin,
                                   int colEnd, int rowLast) {
    const int c = colBegin + blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= colEnd) return;
    if (rowLast == rows - 1) next[static_cast<std::size_t>(rows) * pitch + c] = rows;
    int n = next[static_cast<std::size_t>(rowLast + 1) * pitch + c];
    constexpr int kAhead = 16;
    for (int r0 = rowLast; r0 >= 0; r0 -= kAhead) {
        bool m[kAhead];
#pragma unroll
        for (int k = 0; k < kAhead; ++k)
            m[k] = r0 - k >= 0 && c < cols && mask[static_cast<std::size_t>(r0 - k) * cols + c];
#pragma unroll
        for (int k = 0; k < kAhead; ++k) {
            if (r0 - k < 0) break;
            if (m[k]) n = r0 - k;
            next[static_cast<std::size_t>(r0 - k) * pitch + c] = n;
        }
    }
}

__global__ void nextMinKernel(const int* next, int pitch, int rowCount, int chunkBegin, int chunkEnd, int* nextMin) {
    const int chunks = pitch / kChunk, span = chunkEnd - chunkBegin;
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= static_cast<long long>(rowCount) * span) return;
    const int r = static_cast<int>(i / span), ch = chunkBegin + static_cast<int>(i % span);
    const int* p = next + static_cast<std::size_t>(r) * pitch + ch * kChunk;
    int m = p[0];
    for (int k = 1; k < kChunk; ++k) m = min(m, p[k]);
    nextMin[static_cast<std::size_t>(r) * chunks + ch] = m;
}

__global__ void markRectKernel(std::uint8_t* mask, int cols, int row0, int nrows, int col0, int ncols) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nrows * ncols) return;
    mask[static_cast<std::size_t>(row0 + i / ncols) * cols + col0 + i % ncols] = 1;
}

// ---------------------------------------------------------------------------------------------
// The strip kernel. A block owns a tile of 16*T tops x 16*B bottoms; thread (ti, bj) the tops
// t0 + ti*T + i and the bottoms b0 + bj + 16*j. Prefix rows of the tile are staged kChunk columns
// at a time (cp.async, double-buffered; rows padded by 16 bytes so that a warp's 16-byte reads of
// 16 bottom rows hit distinct banks). Per cell: s = P[b+1][x] - P[t][x], run = max(run + s, s),
// and the strip maximum folds two cells per 3-input max. Only the maxima leave the kernel.

struct StripArgs {
    const void* P;         // (rows+1) x pitch: int (exact path) or float (screen path)
    int rows, cols, pitch;
    const int2* tiles;     // (top tile, bottom tile)
    int tileBegin;
    void* stripBest;       // rows x rows, [top * rows + bottom]
    const int* next;       // blocking index ((rows+1) x pitch), or null
    const int* nextMin;    // (rows+1) x (pitch / kChunk), or null
    // Tracking kernels (fast K): per strip [top * rows + bottom] the chunks (kChunk columns) that hold its
    // best segment, packed (first chunk << 16) | last chunk; see stripMaxKernel.
    int* stripSpan = nullptr;
};

// cp.async exists from sm_80 on. Older devices (sm_75, through the PTX we ship) copy synchronously:
// the kernel's wait + __syncthreads pairs then order ordinary stores just as well.
__device__ __forceinline__ void cpAsync16(void* smem, const void* gmem) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem));
#else
    *static_cast<int4*>(smem) = *static_cast<const int4*>(gmem);
#endif
}
__device__ __forceinline__ void cpAsyncCommit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::);
#endif
}
template <int N>
__device__ __forceinline__ void cpAsyncWait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
#endif
}

// One Kadane step on int32 (DPX: max(a + b, c) in one instruction on Hopper) or float.
__device__ __forceinline__ int kadaneStep(int run, int s) { return __viaddmax_s32(run, s, s); }
__device__ __forceinline__ float kadaneStep(float run, float s) { return fmaxf(run + s, s); }
// best = max(best, r0, r1). Floats compare as their bit patterns: best >= +0 and a negative run has
// a negative pattern, so the integer 3-input max gives the float maximum.
__device__ __forceinline__ int bestOf(int best, int r0, int r1) { return __vimax3_s32(best, r0, r1); }
__device__ __forceinline__ int bestOf(int best, float r0, float r1) {
    return __vimax3_s32(best, __float_as_int(r0), __float_as_int(r1));
}
// low = min(low, r0, r1) as int bits (fast K's restart test low <= 0 holds for float runs <= 0 too).
__device__ __forceinline__ int lowOf(int low, int r0, int r1) { return __vimin3_s32(low, r0, r1); }
__device__ __forceinline__ int lowOf(int low, float r0, float r1) {
    return __vimin3_s32(low, __float_as_int(r0), __float_as_int(r1));
}

template <class V, int T, int B>
constexpr int stripSharedBytes(bool excl) {
    return (2 * 16 * (T + B) * (kChunk + 4) * 4) + (excl ? 2 * 16 * T * (kChunk + 4) * 4 : 0);
}

// Track (fast K, MaxSubarrayCuda.cu): each strip also records chunks Fc..Lc whose columns hold the segment
// that reaches its maximum, conservatively: Lc is the last chunk where the maximum grew, Fc the last chunk
// before Lc where some run was <= 0 (a run starts after it), 0 when none. Every step max(run + s, s) is
// monotone in run and a blocked cell gives 0, so excluding cells outside columns Fc*kChunk..Lc*kChunk+kChunk-1
// leaves the strip's maximum (and this span) exactly as they are.
// Tracking takes four more registers a strip: fewer blocks an SM, so that nothing spills.
template <bool Track, int T, int B>
constexpr int stripBlocksPerSm() {
    return Track ? (T * B <= 4 ? 4 : T * B <= 8 ? 2 : 1) : (T * B <= 8 ? 4 : 2);
}

template <class V, int T, int B, bool Excl, bool Track = false>
__global__ void __launch_bounds__(kThreads, stripBlocksPerSm<Track, T, B>()) stripMaxKernel(StripArgs a) {
    constexpr int kTops = 16 * T, kBots = 16 * B, kRow = kChunk + 4, kPieces = kChunk / 4;
    extern __shared__ __align__(16) unsigned char smemRaw[];
    V* sTop = reinterpret_cast<V*>(smemRaw);           // [2][kTops][kRow]
    V* sBot = sTop + 2 * kTops * kRow;                  // [2][kBots][kRow]
    int* sNext = reinterpret_cast<int*>(sBot + 2 * kBots * kRow); // [2][kTops][kRow] when Excl

    const int tid = threadIdx.x, ti = tid >> 4, bj = tid & 15;
    const int2 tile = a.tiles[a.tileBegin + blockIdx.x];
    const int t0 = tile.x * kTops, b0 = tile.y * kBots;
    const V* P = static_cast<const V*>(a.P);

    auto stage = [&](int buf, int x0) {
        for (int q = tid; q < (kTops + kBots) * kPieces; q += kThreads) {
            const int row = q / kPieces, piece = q % kPieces;
            const bool top = row < kTops;
            const int prow = top ? min(t0 + row, a.rows) : min(b0 + (row - kTops) + 1, a.rows);
            V* dst = top ? sTop + (buf * kTops + row) * kRow : sBot + (buf * kBots + row - kTops) * kRow;
            cpAsync16(dst + piece * 4, P + static_cast<std::size_t>(prow) * a.pitch + x0 + piece * 4);
        }
        if constexpr (Excl) {
            for (int q = tid; q < kTops * kPieces; q += kThreads) {
                const int row = q / kPieces, piece = q % kPieces;
                const int prow = min(t0 + row, a.rows);
                cpAsync16(sNext + (buf * kTops + row) * kRow + piece * 4,
                          a.next + static_cast<std::size_t>(prow) * a.pitch + x0 + piece * 4);
            }
        }
        cpAsyncCommit();
    };

    V run[T][B];
    int best[T][B];
    // Tracking only: the smallest run of this chunk (as int bits: a float run <= 0 has bits <= 0), the best
    // at the chunk's start, and (last chunk with a run <= 0) << 16 | (its value at the maximum's last growth).
    int low[T][B], bestBefore[T][B], span[T][B], restart[T][B];
#pragma unroll
    for (int i = 0; i < T; ++i)
#pragma unroll
        for (int j = 0; j < B; ++j) {
            run[i][j] = V(0);
            best[i][j] = 0;
            if constexpr (Track) {
                low[i][j] = 0x7fffffff;
                bestBefore[i][j] = 0;
                span[i][j] = 0;
                restart[i][j] = 0;
            }
        }
    const int bMax = b0 + bj + 16 * (B - 1);
    const int chunks = a.pitch / kChunk;
    stage(0, 0);
    for (int ch = 0; ch < chunks; ++ch) {
        if (ch + 1 < chunks) {
            stage((ch + 1) & 1, (ch + 1) * kChunk);
            cpAsyncWait<1>();
        } else {
            cpAsyncWait<0>();
        }
        __syncthreads();
        const V* tRows = sTop + ((ch & 1) * kTops + ti * T) * kRow;
        const V* bRows = sBot + ((ch & 1) * kBots + bj) * kRow;
        bool slow = false;
        if constexpr (Excl) {
#pragma unroll
            for (int i = 0; i < T; ++i)
                slow |= a.nextMin[static_cast<std::size_t>(min(t0 + ti * T + i, a.rows)) * chunks + ch] <= bMax;
        }
        if (!slow) {
#pragma unroll
            for (int x = 0; x < kChunk; x += 4) {
                V tv[T][4], bv[B][4];
#pragma unroll
                for (int i = 0; i < T; ++i) *reinterpret_cast<int4*>(tv[i]) = *reinterpret_cast<const int4*>(tRows + i * kRow + x);
#pragma unroll
                for (int j = 0; j < B; ++j)
                    *reinterpret_cast<int4*>(bv[j]) = *reinterpret_cast<const int4*>(bRows + 16 * j * kRow + x);
#pragma unroll
                for (int k = 0; k < 4; k += 2)
#pragma unroll
                    for (int i = 0; i < T; ++i)
#pragma unroll
                        for (int j = 0; j < B; ++j) {
                            const V r0 = kadaneStep(run[i][j], bv[j][k] - tv[i][k]);
                            const V r1 = kadaneStep(r0, bv[j][k + 1] - tv[i][k + 1]);
                            best[i][j] = bestOf(best[i][j], r0, r1);
                            if constexpr (Track) low[i][j] = lowOf(low[i][j], r0, r1);
                            run[i][j] = r1;
                        }
            }
        } else if constexpr (Excl) {
            const int* nRows = sNext + ((ch & 1) * kTops + ti * T) * kRow;
            for (int x = 0; x < kChunk; ++x) {
#pragma unroll
                for (int i = 0; i < T; ++i) {
                    const V tv = tRows[i * kRow + x];
                    const int n = nRows[i * kRow + x];
#pragma unroll
                    for (int j = 0; j < B; ++j) {
                        const V r = n <= b0 + bj + 16 * j ? V(0) : kadaneStep(run[i][j], bRows[16 * j * kRow + x] - tv);
                        best[i][j] = bestOf(best[i][j], r, r);
                        if constexpr (Track) low[i][j] = lowOf(low[i][j], r, r);
                        run[i][j] = r;
                    }
                }
            }
        }
        if constexpr (Track) {
#pragma unroll
            for (int i = 0; i < T; ++i)
#pragma unroll
                for (int j = 0; j < B; ++j) {
                    if (best[i][j] != bestBefore[i][j]) span[i][j] = (restart[i][j] << 16) | ch;
                    if (low[i][j] <= 0) restart[i][j] = ch;
                    low[i][j] = 0x7fffffff;
                    bestBefore[i][j] = best[i][j];
                }
        }
        __syncthreads();
    }
    int* out = static_cast<int*>(a.stripBest);
#pragma unroll
    for (int i = 0; i < T; ++i)
#pragma unroll
        for (int j = 0; j < B; ++j) {
            const int t = t0 + ti * T + i, b = b0 + bj + 16 * j;
            if (t <= b && b < a.rows) {
                out[static_cast<std::size_t>(t) * a.rows + b] = best[i][j];
                if constexpr (Track) a.stripSpan[static_cast<std::size_t>(t) * a.rows + b] = span[i][j];
            }
        }
}

// Fast K: the tiles holding a strip whose positive maximum may use a cell of the excluded rectangle (rows
// r0..r1, chunks ch0..ch1), appended to `out` (count in *count); one block per tile.
struct DirtyArgs {
    const int2* tiles;
    int tileCount;
    int tops, bottoms; // strips a tile: tops x bottoms
    int rows;
    int r0, r1, ch0, ch1;
    const int* stripBest;
    const int* stripSpan;
    int2* out;
    unsigned* count;
};

__global__ void dirtyTilesKernel(DirtyArgs a) {
    const int2 tile = a.tiles[blockIdx.x];
    const int t0 = tile.x * a.tops, b0 = tile.y * a.bottoms;
    if (t0 > a.r1 || b0 + a.bottoms - 1 < a.r0) return;
    __shared__ int hit;
    if (threadIdx.x == 0) hit = 0;
    __syncthreads();
    for (int q = threadIdx.x; q < a.tops * a.bottoms; q += blockDim.x) {
        const int t = t0 + q / a.bottoms, b = b0 + q % a.bottoms;
        if (t > b || b >= a.rows || t > a.r1 || b < a.r0) continue;
        const std::size_t idx = static_cast<std::size_t>(t) * a.rows + b;
        if (a.stripBest[idx] <= 0) continue; // nothing positive: stays so
        const int span = a.stripSpan[idx];
        if ((span & 0xffff) < a.ch0 || (span >> 16) > a.ch1) continue;
        hit = 1;
        break;
    }
    __syncthreads();
    if (threadIdx.x == 0 && hit) a.out[atomicAdd(a.count, 1u)] = tile;
}

// ---------------------------------------------------------------------------------------------
// Selection. Exact path: the largest maximum, then the smallest (top, bottom), packed in one 64-bit
// key for atomicMax. Screen path: the largest float maximum, then every strip whose bound reaches it.

__device__ __forceinline__ unsigned long long warpMax(unsigned long long v) {
    for (int o = 16; o > 0; o >>= 1) v = max(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

// One block per top; stripBest holds int32 maxima (exact path) or float bits (screen path).
__global__ void reduceStripsKernel(const int* stripBest, int rows, int tBegin, unsigned long long* key, bool packIndex) {
    const int t = tBegin + blockIdx.x;
    unsigned long long local = 0;
    for (int b = t + threadIdx.x; b < rows; b += blockDim.x) {
        const std::size_t idx = static_cast<std::size_t>(t) * rows + b;
        const int v = stripBest[idx];
        if (v <= 0) continue;
        const unsigned long long k = packIndex ? (static_cast<unsigned long long>(v) << 32) |
                                                     (0xffffffffull - static_cast<unsigned long long>(idx))
                                               : static_cast<unsigned long long>(v);
        local = max(local, k);
    }
    local = warpMax(local);
    if ((threadIdx.x & 31) == 0 && local) atomicMax(key, local);
}

// Strips whose float maximum f, widened by its error bound alpha + beta * max(f, gamma), reaches the
// threshold (the best float maximum narrowed by its own bound): the exact best strip is among them.
// The bound, with u = 2^-24, W columns and Pmax >= every |P| (exact or float):
//  - P rounded to float is off by <= u|P|, and s = fl(Pb - Pt) by <= u(|Pb| + |Pt|)(2 + u) <= 4.02 u Pmax;
//  - run = max(fl(run + s), s): the error grows per column by at most that of s plus u |run + s|, and
//    |run + s| <= max(f, 4.1 Pmax) (it is at most the strip maximum f when positive, and at least
//    2 min s when negative); a blocked column resets run to 0 exactly.
//  So |f - exact| <= W u (4.02 Pmax + 1.01 max(f, 4.1 Pmax)), times 1.001 for the double rounding of
//  the exact (reference) arithmetic itself.
struct CandidateArgs {
    const float* stripBest;
    int rows, tBegin;
    double alpha, beta, gamma, threshold;
    int2* out;
    unsigned* count;
    unsigned capacity;
};

__global__ void candidatesKernel(CandidateArgs a) {
    const int t = a.tBegin + blockIdx.x;
    for (int b = t + threadIdx.x; b < a.rows; b += blockDim.x) {
        const double f = a.stripBest[static_cast<std::size_t>(t) * a.rows + b];
        if (f + a.alpha + a.beta * fmax(f, a.gamma) < a.threshold) continue;
        const unsigned i = atomicAdd(a.count, 1u);
        if (i < a.capacity) a.out[i] = make_int2(t, b);
    }
}

// The exact maximum of each candidate strip, one thread per strip, in the reference's arithmetic.
template <class Exact>
__global__ void recheckKernel(const Exact* P, int cols, int pitch, const int* next, const int2* strips, unsigned n,
                              Exact* out) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int t = strips[i].x, b = strips[i].y;
    const Exact* pt = P + static_cast<std::size_t>(t) * pitch;
    const Exact* pb = P + static_cast<std::size_t>(b + 1) * pitch;
    const int* nr = next ? next + static_cast<std::size_t>(t) * pitch : nullptr;
    Exact run = Exact(0), best = Exact(0);
#pragma unroll 8
    for (int c = 0; c < cols; ++c) {
        const Exact s = pb[c] - pt[c];
        run = run > Exact(0) ? run + s : s;
        if (nr && nr[c] <= b) run = Exact(0);
        best = run > best ? run : best;
    }
    out[i] = best;
}

// The best of n rechecked candidates (largest positive value, then smallest top, bottom), one per block
// into outStrips/outValues[blockIdx.x] ((-1, -1) and 0 when none): run once over the candidates and once, in
// one block, over the blocks' results. Only one strip then goes back to the host.
template <class Exact>
__device__ __forceinline__ bool candidateBetter(Exact v, int2 s, Exact bestV, int2 best) {
    return best.x < 0 || v > bestV || (v == bestV && (s.x < best.x || (s.x == best.x && s.y < best.y)));
}

constexpr int kBestThreads = 512;

template <class Exact>
__global__ void __launch_bounds__(kBestThreads) bestCandidateKernel(const int2* strips, const Exact* values, unsigned n,
                                                                    int2* outStrips, Exact* outValues) {
    __shared__ Exact sv[kBestThreads];
    __shared__ int2 ss[kBestThreads];
    const int tid = threadIdx.x;
    Exact bv = Exact(0);
    int2 bs = make_int2(-1, -1);
    for (unsigned i = blockIdx.x * kBestThreads + tid; i < n; i += gridDim.x * kBestThreads) {
        const Exact v = values[i];
        if (!(v > Exact(0))) continue;
        const int2 s = strips[i];
        if (candidateBetter(v, s, bv, bs)) {
            bv = v;
            bs = s;
        }
    }
    sv[tid] = bv;
    ss[tid] = bs;
    __syncthreads();
    for (int half = kBestThreads / 2; half > 0; half >>= 1) {
        if (tid < half && ss[tid + half].x >= 0 && candidateBetter(sv[tid + half], ss[tid + half], sv[tid], ss[tid])) {
            sv[tid] = sv[tid + half];
            ss[tid] = ss[tid + half];
        }
        __syncthreads();
    }
    if (tid == 0) {
        outStrips[blockIdx.x] = ss[0];
        outValues[blockIdx.x] = sv[0];
    }
}

// Fast K on the screen path: the recheck above with each strip's exact maximum kept between rounds.
// span[t * rows + b] = first << 16 | last of the segment the exact scan reports (1 << 16 when nothing is
// positive), or kNoExact when the strip must be scanned again; a strip scanned here stores its maximum in
// cache. The exact scan's steps are monotone too, so a kept maximum stays exact while no removed rectangle
// meets its rows and columns first..last (invalidateExactKernel).
constexpr int kNoExact = -1;

template <class Exact>
__global__ void recheckCachedKernel(const Exact* P, int rows, int cols, int pitch, const int* next, const int2* strips,
                                    unsigned n, Exact* out, Exact* cache, int* span) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int t = strips[i].x, b = strips[i].y;
    const std::size_t idx = static_cast<std::size_t>(t) * rows + b;
    if (span[idx] != kNoExact) {
        out[i] = cache[idx];
        return;
    }
    const Exact* pt = P + static_cast<std::size_t>(t) * pitch;
    const Exact* pb = P + static_cast<std::size_t>(b + 1) * pitch;
    const int* nr = next ? next + static_cast<std::size_t>(t) * pitch : nullptr;
    Exact run = Exact(0), best = Exact(0);
    int start = 0, first = 1, last = 0;
    for (int c = 0; c < cols; ++c) {
        const Exact s = pb[c] - pt[c];
        if (run > Exact(0)) {
            run = run + s;
        } else {
            run = s;
            start = c;
        }
        if (nr && nr[c] <= b) run = Exact(0);
        if (run > best) {
            best = run;
            first = start;
            last = c;
        }
    }
    cache[idx] = best;
    span[idx] = static_cast<int>((static_cast<unsigned>(first) << 16) | static_cast<unsigned>(last));
    out[i] = best;
}

// After a rectangle (rows r0..r1, columns c0..c1) is removed: the kept exact maxima it may change are
// scanned again. One thread per strip top <= r1, bottom >= r0.
__global__ void invalidateExactKernel(int* span, int rows, int r0, int r1, int c0, int c1) {
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    const long long bottoms = rows - r0;
    if (i >= static_cast<long long>(r1 + 1) * bottoms) return;
    const int t = static_cast<int>(i / bottoms), b = r0 + static_cast<int>(i % bottoms);
    if (b < t) return;
    const std::size_t idx = static_cast<std::size_t>(t) * rows + b;
    const int s = span[idx];
    if (s == kNoExact) return;
    const int first = static_cast<int>(static_cast<unsigned>(s) >> 16), last = s & 0xffff;
    if (last >= first && last >= c0 && first <= c1) span[idx] = kNoExact;
}

} // namespace
} // namespace glint::cuda::maxsub
