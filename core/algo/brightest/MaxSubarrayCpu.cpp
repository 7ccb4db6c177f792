// The CPU backend: every core, and several strips per SIMD register (the tiles of
// core/algo/maxsub/StripTiles.h); the arithmetic per lane is the reference's, so the results agree bit
// for bit. For K regions the per-strip maxima are kept and only the strips that cross a removed region
// are computed again.
#include "core/algo/brightest/MaxSubarray.h"
#include "core/algo/maxsub/StripTiles.h"

#include "core/util/Errors.h"
#include "core/util/Parallel.h"

#include <algorithm>
#include <atomic>
#include <limits>
#include <mutex>

namespace glint {

namespace {

using namespace maxsub;

// Per-strip maxima of the strips top <= bottom, packed by top.
template <class V>
class StripTable {
public:
    explicit StripTable(int rows) : rows_(rows), values_(static_cast<std::size_t>(rows) * (rows + 1) / 2) {}
    std::size_t index(int top, int bottom) const { return StripMaxima::index(rows_, top, bottom); }
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
DisjointOutcome solve(const WorkArray& work, const DisjointRule& rule, JobControl& job, ProgressSpan span) {
    const int k = rule.k;
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
    const bool keepTable = rule.rounds() > 1 && StripTable<V>::bytesFor(rows) <= (std::size_t{1} << 30);
    std::unique_ptr<StripTable<V>> table = keepTable ? std::make_unique<StripTable<V>>(rows) : nullptr;
    int dirtyFirst = 0, dirtyLast = rows - 1; // rows whose strips must be computed again
    auto search = [&](const DisjointOutcome& soFar) -> std::optional<WorkRect> {
        auto step = job.timing().scope("search");
        const double round = static_cast<double>(soFar.found.size());
        const ProgressSpan roundSpan = span.part(round / k, (round + 1.0) / k);
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
        if (best.top < 0) return std::nullopt;
        const StripBest<V> s = scanStrip(p.rowStart(best.top), p.rowStart(best.bottom + 1), p.bw, cols, best.bottom,
                                         exclusions.any() ? exclusions.row(best.top) : nullptr);
        WorkRect rect = stripRect(best.top, best.bottom, s);
        if constexpr (std::is_same_v<V, std::int32_t>) rect.sumInt = s.sum; // exact: fitsInt32 holds
        return rect;
    };
    auto exclude = [&](const WorkRect& rect) {
        exclusions.exclude(rect);
        if (table) {
            dirtyFirst = rect.row0;
            dirtyLast = rect.row0 + rect.rows - 1;
        }
    };
    DisjointOutcome out = runDisjointRounds(rule, search, exclude);
    span.set(job, 1.0);
    return out;
}

class CpuSolver final : public MaxSubarraySolver {
public:
    DisjointOutcome solveDisjoint(const WorkArray& work, const DisjointRule& rule, JobControl& job,
                                  ProgressSpan span) override {
        if (work.includedCount == 0) return {};
        if (work.fitsInt32()) return solve<std::int32_t>(work, rule, job, span);
        if (work.integer) return solve<std::int64_t>(work, rule, job, span);
        return solve<double>(work, rule, job, span);
    }
};

} // namespace

std::unique_ptr<MaxSubarraySolver> makeCpuMaxSubarraySolver() { return std::make_unique<CpuSolver>(); }

} // namespace glint
