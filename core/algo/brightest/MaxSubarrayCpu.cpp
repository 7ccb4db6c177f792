// The CPU backend: every core, and several strips per SIMD register. The column prefix sums are stored
// column-major so that the bottoms of one column are contiguous: a vector holds consecutive bottoms,
// each thread tile covers a few tops times a few vectors of bottoms (register blocking), and the
// arithmetic per lane is the reference's, so results agree bit for bit. For K regions the per-strip
// maxima are kept and only the strips that cross a removed region are computed again.
#include "algo/brightest/MaxSubarray.h"

#include "util/Errors.h"
#include "util/Parallel.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <mutex>

namespace glint {

namespace {

template <class V>
struct Problem {
    const V* PT = nullptr;   // PT[c * stride + r] = P[r][c]
    std::size_t stride = 0;  // >= rows + 1 + one tile of bottoms (zero padding)
    int rows = 0;
    int cols = 0;
    const ExclusionIndex* exclusions = nullptr; // null when nothing is excluded
};

// Lane index type of the same width as V, for the blocking masks.
template <class V>
using LaneInt = std::conditional_t<sizeof(V) == 4, std::int32_t, std::int64_t>;

// Per-strip maxima of tops t0..t0+TT-1 and bottoms b0..b0+L*NV-1 into out[i * L*NV + j].
template <class V, int Bytes, int TT, int NV, bool Blocked>
[[gnu::always_inline]] inline void tileKernel(const Problem<V>& p, int t0, int b0, V* out) {
    constexpr int L = Bytes / static_cast<int>(sizeof(V));
    typedef V vec __attribute__((vector_size(Bytes)));
    typedef LaneInt<V> ivec __attribute__((vector_size(Bytes)));
    const vec zero = {};
    vec run[TT][NV];
    vec best[TT][NV];
    ivec bottom[NV];
    for (int v = 0; v < NV; ++v) {
        for (int l = 0; l < L; ++l) bottom[v][l] = b0 + v * L + l;
        for (int i = 0; i < TT; ++i) run[i][v] = best[i][v] = zero;
    }
    for (int c = 0; c < p.cols; ++c) {
        const V* col = p.PT + static_cast<std::size_t>(c) * p.stride;
        vec pb[NV];
        for (int v = 0; v < NV; ++v) std::memcpy(&pb[v], col + b0 + 1 + v * L, sizeof(vec));
        for (int i = 0; i < TT; ++i) {
            const vec pt = zero + col[t0 + i];
            for (int v = 0; v < NV; ++v) {
                const vec s = pb[v] - pt;
                vec r = (run[i][v] > zero ? run[i][v] : zero) + s;
                if constexpr (Blocked) {
                    const ivec next = ivec{} + static_cast<LaneInt<V>>(p.exclusions->row(t0 + i)[c]);
                    r = next <= bottom[v] ? zero : r;
                }
                run[i][v] = r;
                best[i][v] = r > best[i][v] ? r : best[i][v];
            }
        }
    }
    for (int i = 0; i < TT; ++i)
        for (int v = 0; v < NV; ++v) std::memcpy(out + i * L * NV + v * L, &best[i][v], sizeof(vec));
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

template <class V>
std::vector<WorkRect> solve(const WorkArray& work, int k, JobControl& job, ProgressSpan span) {
    const int rows = work.rows;
    const int cols = work.cols;
    const TileChoice<V> tile = chooseTile<V>();
    const Geometry g = tile.geometry;
    Problem<V> p;
    p.rows = rows;
    p.cols = cols;
    p.stride = static_cast<std::size_t>(rows) + 1 + g.bottoms;
    std::vector<V> PT;
    {
        auto step = job.timing().scope("prefix sums");
        using Wide = std::conditional_t<std::is_floating_point_v<V>, double, std::int64_t>;
        std::vector<Wide> P;
        if constexpr (std::is_floating_point_v<V>) P = columnPrefixSumsReal(work);
        else P = columnPrefixSumsInteger(work);
        PT.assign(p.stride * cols, V(0));
        // Blocked transpose; the int32 narrowing is exact when fitsInt32() holds.
        parallelFor(0, static_cast<std::size_t>(cols), 64, [&](std::size_t c0, std::size_t c1) {
            for (std::size_t r0 = 0; r0 <= static_cast<std::size_t>(rows); r0 += 64)
                for (std::size_t c = c0; c < c1; ++c)
                    for (std::size_t r = r0; r < std::min<std::size_t>(r0 + 64, rows + 1); ++r)
                        PT[c * p.stride + r] = static_cast<V>(P[r * cols + c]);
        });
    }
    p.PT = PT.data();
    ExclusionIndex exclusions(rows, cols, work.excluded);

    // Tiles: a block of tops times a block of bottoms that holds at least one strip top <= bottom.
    struct Tile {
        int top;
        int bottom;
    };
    std::vector<Tile> tiles;
    for (int t0 = 0; t0 < rows; t0 += g.tops)
        for (int b0 = (t0 / g.bottoms) * g.bottoms; b0 < rows; b0 += g.bottoms) tiles.push_back({t0, b0});

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
                const bool dirty = t.top <= dirtyLast && t.bottom + g.bottoms - 1 >= dirtyFirst;
                if (dirty) kernel(p, t.top, t.bottom, out.data());
                for (int a = 0; a < g.tops && t.top + a < rows; ++a)
                    for (int b = 0; b < g.bottoms && t.bottom + b < rows; ++b) {
                        const int top = t.top + a, bottom = t.bottom + b;
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
        const StripBest<V> s = scanStrip(PT.data() + best.top, PT.data() + best.bottom + 1,
                                         static_cast<std::ptrdiff_t>(p.stride), cols, best.bottom,
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

} // namespace glint
