// The CPU backend: every core, and several strips per SIMD register. The column prefix sums are stored
// in panels of BW consecutive prefix rows, column after column ([row / BW][column][row % BW]), so that a
// vector holds consecutive bottoms and a tile streams its panel in order. Each tile covers a few tops
// times one panel of bottoms (register blocking); the arithmetic per lane is the reference's, so the
// results agree bit for bit. For K regions the per-strip maxima are kept and only the strips that
// cross a removed region are computed again.
#include "core/algo/brightest/MaxSubarray.h"

#include "core/util/Errors.h"
#include "core/util/Parallel.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <mutex>

namespace glint {

namespace {

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
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
        return {&tileAvx512<V, false>, &tileAvx512<V, true>, {4, 2 * 64 / s}};
    if (__builtin_cpu_supports("avx2")) return {&tileAvx2<V, false>, &tileAvx2<V, true>, {2, 2 * 32 / s}};
    return {&tileBase<V, false>, &tileBase<V, true>, {2, 2 * 16 / s}};
}

// Per-strip maxima of the strips top <= bottom, packed by top.
template <class V>
class StripTable {
public:
    explicit StripTable(int rows) : rows_(rows), values_(static_cast<std::size_t>(rows) * (rows + 1) / 2) {}
    std::size_t index(int top, int bottom) const {
        const std::size_t t = static_cast<std::size_t>(top);
        return t * rows_ - t * (t - 1) / 2 + static_cast<std::size_t>(bottom - top);
    }
    V& at(int top, int bottom) { return values_[index(top, bottom)]; }
    static std::size_t bytesFor(int rows) { return static_cast<std::size_t>(rows) * (rows + 1) / 2 * sizeof(V); }

private:
    int rows_;
    std::vector<V> values_;
};

// The best strip: largest value, then smallest (top, bottom).
template <class V>
struct BestStrip {
    V value = V(0);
    int top = -1;
    int bottom = -1;
    void offer(V v, int t, int b) {
        if (!(v > V(0))) return;
        if (top < 0 || v > value || (v == value && (t < top || (t == top && b < bottom)))) {
            value = v;
            top = t;
            bottom = b;
        }
    }
    void merge(const BestStrip& o) {
        if (o.top >= 0) offer(o.value, o.top, o.bottom);
    }
};

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

std::vector<Tile> buildTiles(int rows, const Geometry& g) {
    std::vector<Tile> tiles;
    for (int q0 = 0; q0 <= rows; q0 += g.bottoms)
        for (int t0 = 0; t0 < rows && t0 <= q0 + g.bottoms - 2; t0 += g.tops) tiles.push_back({t0, q0});
    return tiles;
}

template <class V>
std::vector<WorkRect> solve(const WorkArray& work, int k, JobControl& job, ProgressSpan span) {
    const int rows = work.rows;
    const int cols = work.cols;
    const TileChoice<V> tile = chooseTile<V>();
    const Geometry g = tile.geometry;
    Problem<V> p;
    p.rows = rows;
    p.cols = cols;
    p.bw = g.bottoms;
    const std::vector<V> panels = buildPanels(work, p, job);
    p.panels = panels.data();
    ExclusionIndex exclusions(rows, cols, work.excluded);
    const std::vector<Tile> tiles = buildTiles(rows, g);
    const bool keepTable = k > 1 && StripTable<V>::bytesFor(rows) <= (std::size_t{1} << 30);
    std::unique_ptr<StripTable<V>> table = keepTable ? std::make_unique<StripTable<V>>(rows) : nullptr;
    std::vector<WorkRect> found;
    int dirtyFirst = 0, dirtyLast = rows - 1; // rows whose strips must be computed again
    for (int round = 0; round < k; ++round) {
        auto step = job.timing().scope("search");
        const ProgressSpan roundSpan = span.part(static_cast<double>(round) / k, (round + 1.0) / k);
        p.exclusions = exclusions.any() ? &exclusions : nullptr;
        const TileFunction<V> kernel = exclusions.any() ? tile.blocked : tile.plain;
        BestStrip<V> best;
        std::mutex bestMutex;
        std::atomic<std::size_t> done{0};
        parallelFor(0, tiles.size(), 8, [&](std::size_t i0, std::size_t i1) {
            std::vector<V> out(static_cast<std::size_t>(g.tops) * g.bottoms);
            BestStrip<V> local;
            for (std::size_t i = i0; i < i1; ++i) {
                job.throwIfCancelled();
                const Tile t = tiles[i];
                const bool dirty = t.top <= dirtyLast && t.panel + g.bottoms - 2 >= dirtyFirst;
                if (dirty) kernel(p, t.top, t.panel, out.data());
                for (int a = 0; a < g.tops && t.top + a < rows; ++a)
                    for (int b = 0; b < g.bottoms && t.panel - 1 + b < rows; ++b) {
                        const int top = t.top + a, bottom = t.panel - 1 + b;
                        if (bottom < top) continue;
                        V v;
                        if (!table) v = out[static_cast<std::size_t>(a) * g.bottoms + b];
                        else if (dirty) v = table->at(top, bottom) = out[static_cast<std::size_t>(a) * g.bottoms + b];
                        else v = table->at(top, bottom);
                        local.offer(v, top, bottom);
                    }
            }
            {
                std::lock_guard lock(bestMutex);
                best.merge(local);
            }
            roundSpan.set(job, static_cast<double>(done += i1 - i0) / tiles.size());
        });
        if (best.top < 0) break;
        const StripBest<V> s = scanStrip(p.rowStart(best.top), p.rowStart(best.bottom + 1), p.bw, cols, best.bottom,
                                         exclusions.any() ? exclusions.row(best.top) : nullptr);
        WorkRect rect = stripRect(best.top, best.bottom, s);
        if constexpr (std::is_same_v<V, std::int32_t>) rect.sumInt = s.sum; // exact: fitsInt32 holds
        found.push_back(rect);
        exclusions.exclude(rect);
        if (table) {
            dirtyFirst = rect.row0;
            dirtyLast = rect.row0 + rect.rows - 1;
        }
    }
    span.set(job, 1.0);
    return found;
}

// Every strip's maximum into a table packed by top (StripMaxima::index).
template <class V>
void allStripMaxima(const WorkArray& work, JobControl& job, std::vector<V>& table) {
    const int rows = work.rows;
    const TileChoice<V> tile = chooseTile<V>();
    const Geometry g = tile.geometry;
    Problem<V> p;
    p.rows = rows;
    p.cols = work.cols;
    p.bw = g.bottoms;
    const std::vector<V> panels = buildPanels(work, p, job);
    p.panels = panels.data();
    ExclusionIndex exclusions(rows, work.cols, work.excluded);
    p.exclusions = exclusions.any() ? &exclusions : nullptr;
    const TileFunction<V> kernel = exclusions.any() ? tile.blocked : tile.plain;
    const std::vector<Tile> tiles = buildTiles(rows, g);
    table.assign(StripMaxima::index(rows, rows, rows), V(0));
    auto step = job.timing().scope("strip maxima");
    parallelFor(0, tiles.size(), 8, [&](std::size_t i0, std::size_t i1) {
        std::vector<V> out(static_cast<std::size_t>(g.tops) * g.bottoms);
        for (std::size_t i = i0; i < i1; ++i) {
            job.throwIfCancelled();
            const Tile t = tiles[i];
            kernel(p, t.top, t.panel, out.data());
            for (int a = 0; a < g.tops && t.top + a < rows; ++a)
                for (int b = 0; b < g.bottoms && t.panel - 1 + b < rows; ++b) {
                    const int top = t.top + a, bottom = t.panel - 1 + b;
                    if (bottom >= top) table[StripMaxima::index(rows, top, bottom)] = out[static_cast<std::size_t>(a) * g.bottoms + b];
                }
        }
    });
}

class CpuSolver final : public MaxSubarraySolver {
public:
    std::vector<WorkRect> solveDisjoint(const WorkArray& work, int k, JobControl& job, ProgressSpan span) override {
        if (work.includedCount == 0) return {};
        if (work.fitsInt32()) return solve<std::int32_t>(work, k, job, span);
        if (work.integer) return solve<std::int64_t>(work, k, job, span);
        return solve<double>(work, k, job, span);
    }
};

} // namespace

std::unique_ptr<MaxSubarraySolver> makeCpuMaxSubarraySolver() { return std::make_unique<CpuSolver>(); }

StripMaxima computeStripMaximaCpu(const WorkArray& work, JobControl& job) {
    StripMaxima m;
    m.rows = work.rows;
    m.integer = work.integer;
    if (work.fitsInt32()) {
        std::vector<std::int32_t> t;
        allStripMaxima(work, job, t);
        m.ints.assign(t.begin(), t.end());
    } else if (work.integer) {
        allStripMaxima(work, job, m.ints);
    } else {
        allStripMaxima(work, job, m.reals);
    }
    return m;
}

} // namespace glint
