// The CPU tiles of the strip search shared by the brightest-region CPU backend and the K-MSP strip
// maxima (StripMaxima.cpp): every core, and several strips per SIMD register. The column prefix sums are
// stored in panels of BW consecutive prefix rows, column after column ([row / BW][column][row % BW]), so
// that a vector holds consecutive bottoms and a tile streams its panel in order. Each tile covers a few
// tops times one panel of bottoms (register blocking); the arithmetic per lane is the reference's
// (scanStrip), so the results agree bit for bit. Internal to the CPU backends.
#pragma once

#include "core/util/CpuFeatures.h"

#include "core/algo/maxsub/MaxSubarrayBase.h"
#include "core/util/Parallel.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

namespace glint::maxsub {

template <class V>
struct Problem {
    const V* panels = nullptr; // P[r][c] at ((r / bw) * cols + c) * bw + r % bw
    int bw = 0;                // prefix rows per panel (the tile's bottoms)
    int rows = 0;
    int cols = 0;
    const ExclusionIndex* exclusions = nullptr; // null when nothing is excluded
    const V* rowStart(int r) const {
        return panels + (static_cast<std::size_t>(r / bw) * cols) * bw + r % bw;
    }
};

// Lane index type of the same width as V, for the blocking masks.
template <class V>
using LaneInt = std::conditional_t<sizeof(V) == 4, std::int32_t, std::int64_t>;

// Per-strip maxima of tops t0..t0+TT-1 and the bottoms q0-1..q0+L*NV-2 (prefix rows q0.., one panel)
// into out[i * L*NV + j].
template <class V, int Bytes, int TT, int NV, bool Blocked>
[[gnu::always_inline]] inline void tileKernel(const Problem<V>& p, int t0, int q0, V* out) {
    constexpr int L = Bytes / static_cast<int>(sizeof(V));
    constexpr int BW = L * NV;
    typedef V vec __attribute__((vector_size(Bytes)));
    typedef LaneInt<V> ivec __attribute__((vector_size(Bytes)));
    const vec zero = {};
    vec run[TT][NV];
    vec best[TT][NV];
    ivec bottom[NV];
    for (int v = 0; v < NV; ++v) {
        for (int l = 0; l < L; ++l) bottom[v][l] = q0 - 1 + v * L + l;
        for (int i = 0; i < TT; ++i) run[i][v] = best[i][v] = zero;
    }
    const V* panel = p.panels + static_cast<std::size_t>(q0 / BW) * p.cols * BW;
    const V* tops[TT];
    for (int i = 0; i < TT; ++i) tops[i] = p.rowStart(std::min(t0 + i, p.rows));
    for (int c = 0; c < p.cols; ++c) {
        vec pb[NV];
        for (int v = 0; v < NV; ++v) std::memcpy(&pb[v], panel + static_cast<std::size_t>(c) * BW + v * L, sizeof(vec));
        for (int i = 0; i < TT; ++i) {
            const vec pt = zero + tops[i][static_cast<std::size_t>(c) * BW];
            ivec next{};
            if constexpr (Blocked) next = next + static_cast<LaneInt<V>>(p.exclusions->row(std::min(t0 + i, p.rows - 1))[c]);
            for (int v = 0; v < NV; ++v) {
                const vec s = pb[v] - pt;
                vec r = (run[i][v] > zero ? run[i][v] : zero) + s;
                if constexpr (Blocked) r = next <= bottom[v] ? zero : r;
                run[i][v] = r;
                best[i][v] = r > best[i][v] ? r : best[i][v];
            }
        }
    }
    for (int i = 0; i < TT; ++i)
        for (int v = 0; v < NV; ++v) std::memcpy(out + i * BW + v * L, &best[i][v], sizeof(vec));
}

template <class V>
using TileFunction = void (*)(const Problem<V>&, int, int, V*);

struct Geometry {
    int tops;    // TT
    int bottoms; // L * NV
};

#define GLINT_TILE_VARIANTS(ATTR, NAME, BYTES, TT, NV)                                                         \
    template <class V, bool Blocked>                                                                          \
    ATTR void NAME(const Problem<V>& p, int t0, int b0, V* out) {                                             \
        tileKernel<V, BYTES, TT, NV, Blocked>(p, t0, b0, out);                                                \
    }
GLINT_TILE_VARIANTS(__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl"))), tileAvx512, 64, 4, 2)
GLINT_TILE_VARIANTS(__attribute__((target("avx2"))), tileAvx2, 32, 2, 2)
GLINT_TILE_VARIANTS(, tileBase, 16, 2, 2)
#undef GLINT_TILE_VARIANTS

template <class V>
struct TileChoice {
    TileFunction<V> plain;
    TileFunction<V> blocked;
    Geometry geometry;
};

template <class V>
TileChoice<V> chooseTile() {
    constexpr int s = static_cast<int>(sizeof(V));
    if (cpuHasAvx512())
        return {&tileAvx512<V, false>, &tileAvx512<V, true>, {4, 2 * 64 / s}};
    if (cpuHasAvx2()) return {&tileAvx2<V, false>, &tileAvx2<V, true>, {2, 2 * 32 / s}};
    return {&tileBase<V, false>, &tileBase<V, true>, {2, 2 * 16 / s}};
}

// The tile above that also keeps, per strip, the columns first..last of the segment its scan reports
// (scanStrip's: the run restarts when not positive, the best is replaced only by a larger sum), for the
// K-round search that keeps each strip's best between rounds (MaxSubarrayCpu.cpp). out/first/last[i * BW + j];
// a strip with nothing positive gets 0 and last < first.
template <class V, int Bytes, int TT, int NV, bool Blocked>
[[gnu::always_inline]] inline void trackedTileKernel(const Problem<V>& p, int t0, int q0, V* out, std::int32_t* first,
                                                     std::int32_t* last) {
    constexpr int L = Bytes / static_cast<int>(sizeof(V));
    constexpr int BW = L * NV;
    using I = LaneInt<V>;
    typedef V vec __attribute__((vector_size(Bytes)));
    typedef I ivec __attribute__((vector_size(Bytes)));
    const vec zero = {};
    const ivec izero = {};
    vec run[TT][NV];
    vec best[TT][NV];
    ivec start[TT][NV];
    ivec bestFirst[TT][NV];
    ivec bestLast[TT][NV];
    ivec bottom[NV];
    for (int v = 0; v < NV; ++v) {
        for (int l = 0; l < L; ++l) bottom[v][l] = q0 - 1 + v * L + l;
        for (int i = 0; i < TT; ++i) {
            run[i][v] = best[i][v] = zero;
            start[i][v] = bestFirst[i][v] = izero;
            bestLast[i][v] = izero - I(1);
        }
    }
    const V* panel = p.panels + static_cast<std::size_t>(q0 / BW) * p.cols * BW;
    const V* tops[TT];
    for (int i = 0; i < TT; ++i) tops[i] = p.rowStart(std::min(t0 + i, p.rows));
    for (int c = 0; c < p.cols; ++c) {
        const ivec column = izero + static_cast<I>(c);
        vec pb[NV];
        for (int v = 0; v < NV; ++v) std::memcpy(&pb[v], panel + static_cast<std::size_t>(c) * BW + v * L, sizeof(vec));
        for (int i = 0; i < TT; ++i) {
            const vec pt = zero + tops[i][static_cast<std::size_t>(c) * BW];
            ivec next{};
            if constexpr (Blocked) next = next + static_cast<I>(p.exclusions->row(std::min(t0 + i, p.rows - 1))[c]);
            for (int v = 0; v < NV; ++v) {
                const vec s = pb[v] - pt;
                const ivec going = run[i][v] > zero;
                start[i][v] = going ? start[i][v] : column;
                vec r = (going ? run[i][v] : zero) + s;
                if constexpr (Blocked) r = next <= bottom[v] ? zero : r;
                run[i][v] = r;
                const ivec better = r > best[i][v];
                best[i][v] = better ? r : best[i][v];
                bestFirst[i][v] = better ? start[i][v] : bestFirst[i][v];
                bestLast[i][v] = better ? column : bestLast[i][v];
            }
        }
    }
    for (int i = 0; i < TT; ++i)
        for (int v = 0; v < NV; ++v) {
            std::memcpy(out + i * BW + v * L, &best[i][v], sizeof(vec));
            for (int l = 0; l < L; ++l) {
                first[i * BW + v * L + l] = static_cast<std::int32_t>(bestFirst[i][v][l]);
                last[i * BW + v * L + l] = static_cast<std::int32_t>(bestLast[i][v][l]);
            }
        }
}

template <class V>
using TrackedTileFunction = void (*)(const Problem<V>&, int, int, V*, std::int32_t*, std::int32_t*);

#define GLINT_TRACKED_VARIANTS(ATTR, NAME, BYTES, TT, NV)                                                      \
    template <class V, bool Blocked>                                                                          \
    ATTR void NAME(const Problem<V>& p, int t0, int b0, V* out, std::int32_t* first, std::int32_t* last) {    \
        trackedTileKernel<V, BYTES, TT, NV, Blocked>(p, t0, b0, out, first, last);                            \
    }
GLINT_TRACKED_VARIANTS(__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl"))), trackedAvx512, 64, 2, 2)
GLINT_TRACKED_VARIANTS(__attribute__((target("avx2"))), trackedAvx2, 32, 1, 2)
GLINT_TRACKED_VARIANTS(, trackedBase, 16, 1, 2)
#undef GLINT_TRACKED_VARIANTS

template <class V>
struct TrackedTileChoice {
    TrackedTileFunction<V> plain;
    TrackedTileFunction<V> blocked;
    Geometry geometry;
};

// Fewer tops a tile than chooseTile's: the columns of the best take registers too.
template <class V>
TrackedTileChoice<V> chooseTrackedTile() {
    constexpr int s = static_cast<int>(sizeof(V));
    if (cpuHasAvx512())
        return {&trackedAvx512<V, false>, &trackedAvx512<V, true>, {2, 2 * 64 / s}};
    if (cpuHasAvx2()) return {&trackedAvx2<V, false>, &trackedAvx2<V, true>, {1, 2 * 32 / s}};
    return {&trackedBase<V, false>, &trackedBase<V, true>, {1, 2 * 16 / s}};
}

// The column prefix sums in panels of p.bw prefix rows (see the top of this file).
template <class V>
std::vector<V> buildPanels(const WorkArray& work, const Problem<V>& p, JobControl& job) {
    const int rows = work.rows;
    const int cols = work.cols;
    std::vector<V> panels;
    {
        auto step = job.timing().scope("prefix sums");
        using Wide = std::conditional_t<std::is_floating_point_v<V>, double, std::int64_t>;
        const std::size_t panelCount = static_cast<std::size_t>(rows + 1 + p.bw) / p.bw + 1;
        panels.assign(panelCount * cols * p.bw, V(0));
        // Column blocks walk down the rows, adding in the reference's order; the int32 narrowing is
        // exact when fitsInt32() holds. Row 0 of P is the zeros already there.
        parallelFor(0, static_cast<std::size_t>(cols), 64, [&](std::size_t c0, std::size_t c1) {
            const int n = static_cast<int>(c1 - c0);
            std::vector<Wide> acc(n, Wide(0)), a(n);
            for (int r = 0; r < rows; ++r) {
                if constexpr (std::is_floating_point_v<V>) work.rowReal(r, a.data(), static_cast<int>(c0), static_cast<int>(c1));
                else work.rowInteger(r, a.data(), static_cast<int>(c0), static_cast<int>(c1));
                V* dst = panels.data() + (static_cast<std::size_t>((r + 1) / p.bw) * cols + c0) * p.bw + (r + 1) % p.bw;
                for (int c = 0; c < n; ++c) {
                    acc[c] = acc[c] + a[c];
                    dst[static_cast<std::size_t>(c) * p.bw] = static_cast<V>(acc[c]);
                }
            }
        });
    }
    return panels;
}

// Tiles: a block of tops times a panel of bottoms that holds at least one strip top <= bottom.
// Panel-major order, so that consecutive tiles share their panel in the cache.
struct Tile {
    int top;
    int panel; // first prefix row q0; bottoms q0-1 .. q0+bw-2
};

inline std::vector<Tile> buildTiles(int rows, const Geometry& g) {
    std::vector<Tile> tiles;
    for (int q0 = 0; q0 <= rows; q0 += g.bottoms)
        for (int t0 = 0; t0 < rows && t0 <= q0 + g.bottoms - 2; t0 += g.tops) tiles.push_back({t0, q0});
    return tiles;
}

} // namespace glint::maxsub
