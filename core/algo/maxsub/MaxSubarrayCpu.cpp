// The CPU backend: every core, and several strips per SIMD register (the tiles of
// core/algo/maxsub/StripTiles.h); the arithmetic per lane is the reference's, so the results agree bit
// for bit. For K regions each strip's best (its sum and the columns of its segment) is kept between rounds,
// and after a round removes a rectangle only the strips whose best segment it overlaps are computed again
// (NOTES.md, "Fast K", has the proof that the others keep their best bit for bit).
#include "core/algo/maxsub/MaxSubarray.h"
#include "core/algo/maxsub/CpuSearchRounds.h"
#include "core/algo/maxsub/StripTiles.h"

#include "core/util/Errors.h"
#include "core/util/Parallel.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <mutex>
#include <stdexcept>
#include <type_traits>
#include <vector>

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

// The bytes the cached search keeps per strip (its best's sum and columns), over the padded tiles.
template <class V>
std::size_t cachedBytes(int rows, const Geometry& g) {
    const std::size_t tiles = buildTiles(rows, g).size();
    return tiles * static_cast<std::size_t>(g.tops) * g.bottoms * (sizeof(V) + 2 * sizeof(std::int32_t));
}

// What both searches set up: the problem over the panels of prefix rows, the exclusions and the tiles; and
// the rectangle a chosen strip gives (its best segment by scanStrip, with the exact sum).
template <class V>
struct StripSearch {
    Problem<V> p;
    std::vector<V> panels;
    ExclusionIndex exclusions;
    std::vector<Tile> tiles;
    StripSearch(const WorkArray& work, const Geometry& g, JobControl& job)
        : exclusions(work.rows, work.cols, work.excluded), tiles(buildTiles(work.rows, g)) {
        p.rows = work.rows;
        p.cols = work.cols;
        p.bw = g.bottoms;
        panels = buildPanels(work, p, job);
        p.panels = panels.data();
    }
    StripSearch(const StripSearch&) = delete;
    StripSearch& operator=(const StripSearch&) = delete;
    StripBest<V> scan(int top, int bottom) const {
        return scanStrip(p.rowStart(top), p.rowStart(bottom + 1), p.bw, p.cols, bottom,
                         exclusions.any() ? exclusions.row(top) : nullptr);
    }
    static WorkRect rectOf(int top, int bottom, const StripBest<V>& s) {
        WorkRect rect = stripRect(top, bottom, s);
        if constexpr (std::is_same_v<V, std::int32_t>) rect.sumInt = s.sum; // exact: fitsInt32 holds
        return rect;
    }
};

// The K-round search with each strip's best kept between rounds. A strip's best (sum B, segment
// first..last, as scanStrip reports it) stays exactly what scanStrip would report after a rectangle R is
// excluded when R misses the strip's rows or first..last: blocking cells only lowers every run of the scan
// (rounding is monotone, so this holds for doubles too), the runs before `last` stay below B, and the run
// that reaches B at `last` is untouched. So after each round only the tiles holding a strip whose positive
// best overlaps R are computed again; the best over the per-tile bests (largest sum, then smallest top,
// bottom) is the full search's.
template <class V>
DisjointOutcome solveCached(const WorkArray& work, const DisjointRule& rule, JobControl& job, ProgressSpan span) {
    const int rows = work.rows;
    const TrackedTileChoice<V> tile = chooseTrackedTile<V>();
    const Geometry g = tile.geometry;
    const int perTile = g.tops * g.bottoms;
    StripSearch<V> setup(work, g, job);
    Problem<V>& p = setup.p;
    ExclusionIndex& exclusions = setup.exclusions;
    const std::vector<Tile>& tiles = setup.tiles;
    const std::size_t cells = tiles.size() * static_cast<std::size_t>(perTile);
    std::vector<V> value(cells, V(0));
    std::vector<std::int32_t> first(cells, 0), last(cells, -1);
    // Per tile: its best strip, and the columns every positive best of its strips lies in.
    struct TileBest {
        BestStrip<V> best;
        int firstCol = 0;
        int lastCol = -1;
    };
    std::vector<TileBest> tileBest(tiles.size());
    std::vector<std::uint32_t> dirty(tiles.size());
    for (std::size_t i = 0; i < tiles.size(); ++i) dirty[i] = static_cast<std::uint32_t>(i);
    MonotoneProgress progress(job, span);
    // The first round computes every strip (half the bar; the rounds after it share the other half).
    const double firstShare = rule.rounds() > 1 ? 0.5 : 1.0;
    auto recompute = [&](const DisjointOutcome& soFar) {
        p.exclusions = exclusions.any() ? &exclusions : nullptr;
        const TrackedTileFunction<V> kernel = exclusions.any() ? tile.blocked : tile.plain;
        const bool firstRound = soFar.rounds == 0;
        const double from = firstRound ? 0.0 : firstShare + (1.0 - firstShare) * roundsFraction(rule, soFar.found.size(), soFar.rounds);
        const double to = firstRound ? firstShare
                                     : firstShare + (1.0 - firstShare) * roundsFraction(rule, soFar.found.size() + 1, soFar.rounds + 1);
        std::atomic<std::size_t> done{0};
        parallelFor(0, dirty.size(), firstRound ? 8 : 4, [&](std::size_t i0, std::size_t i1) {
            for (std::size_t d = i0; d < i1; ++d) {
                job.throwIfCancelled();
                const std::size_t i = dirty[d];
                const Tile t = tiles[i];
                const std::size_t base = i * static_cast<std::size_t>(perTile);
                kernel(p, t.top, t.panel, value.data() + base, first.data() + base, last.data() + base);
                TileBest tb;
                for (int a = 0; a < g.tops; ++a)
                    for (int b = 0; b < g.bottoms; ++b) {
                        const std::size_t j = base + static_cast<std::size_t>(a) * g.bottoms + b;
                        const int top = t.top + a, bottom = t.panel - 1 + b;
                        if (top >= rows || bottom >= rows || bottom < top || !(value[j] > V(0))) {
                            value[j] = V(0); // outside the triangle, or nothing positive: never a candidate
                            first[j] = 0;
                            last[j] = -1;
                            continue;
                        }
                        tb.best.offer(value[j], top, bottom);
                        if (tb.lastCol < tb.firstCol) {
                            tb.firstCol = first[j];
                            tb.lastCol = last[j];
                        } else {
                            tb.firstCol = std::min(tb.firstCol, first[j]);
                            tb.lastCol = std::max(tb.lastCol, last[j]);
                        }
                    }
                tileBest[i] = tb;
            }
            progress.set(from + (to - from) * static_cast<double>(done += i1 - i0) / static_cast<double>(dirty.size()));
        });
    };
    auto search = [&](const DisjointOutcome& soFar) -> std::optional<WorkRect> {
        // Step "search": the first round, every strip; step "update": the strips computed again after it.
        auto step = job.timing().scope(soFar.rounds == 0 ? "search" : "update");
        recompute(soFar);
        BestStrip<V> best;
        for (const TileBest& tb : tileBest) best.merge(tb.best);
        if (best.top < 0) return std::nullopt;
        const StripBest<V> s = setup.scan(best.top, best.bottom);
        if (!(s.sum == best.value)) throw std::logic_error("brightest (cpu): the kept strip maximum disagrees with its scan");
        return StripSearch<V>::rectOf(best.top, best.bottom, s);
    };
    auto exclude = [&](const WorkRect& rect) {
        auto step = job.timing().scope("exclude");
        exclusions.exclude(rect);
        const int r0 = rect.row0, r1 = rect.row0 + rect.rows - 1, c0 = rect.col0, c1 = rect.col0 + rect.cols - 1;
        dirty.clear();
        for (std::size_t i = 0; i < tiles.size(); ++i) {
            const Tile t = tiles[i];
            const TileBest& tb = tileBest[i];
            // The tile's strips cross rows r0..r1, and some positive best may overlap columns c0..c1.
            if (t.top > r1 || t.panel - 1 + g.bottoms - 1 < r0 || tb.best.top < 0 || tb.lastCol < c0 || tb.firstCol > c1)
                continue;
            const std::size_t base = i * static_cast<std::size_t>(perTile);
            bool hit = false;
            for (int a = 0; a < g.tops && !hit; ++a) {
                const int top = t.top + a;
                if (top > r1) break;
                for (int b = 0; b < g.bottoms; ++b) {
                    const std::size_t j = base + static_cast<std::size_t>(a) * g.bottoms + b;
                    const int bottom = t.panel - 1 + b;
                    if (bottom >= r0 && last[j] >= c0 && first[j] <= c1 && last[j] >= first[j]) {
                        hit = true;
                        break;
                    }
                }
            }
            if (hit) dirty.push_back(static_cast<std::uint32_t>(i));
        }
    };
    return runCpuRounds(rule, search, exclude, job, span);
}

template <class V>
DisjointOutcome solve(const WorkArray& work, const DisjointRule& rule, JobControl& job, ProgressSpan span) {
    const int rows = work.rows;
    const TileChoice<V> tile = chooseTile<V>();
    const Geometry g = tile.geometry;
    StripSearch<V> setup(work, g, job);
    Problem<V>& p = setup.p;
    ExclusionIndex& exclusions = setup.exclusions;
    const std::vector<Tile>& tiles = setup.tiles;
    const bool keepTable = rule.rounds() > 1 && StripTable<V>::bytesFor(rows) <= (std::size_t{1} << 30);
    std::unique_ptr<StripTable<V>> table = keepTable ? std::make_unique<StripTable<V>>(rows) : nullptr;
    int dirtyFirst = 0, dirtyLast = rows - 1; // rows whose strips must be computed again
    MonotoneProgress progress(job, span);
    auto search = [&](const DisjointOutcome& soFar) -> std::optional<WorkRect> {
        auto step = job.timing().scope("search");
        const double from = roundsFraction(rule, soFar.found.size(), soFar.rounds);
        const double to = roundsFraction(rule, soFar.found.size() + 1, soFar.rounds + 1);
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
            progress.set(from + (to - from) * static_cast<double>(done += i1 - i0) / static_cast<double>(tiles.size()));
        });
        if (best.top < 0) return std::nullopt;
        return StripSearch<V>::rectOf(best.top, best.bottom, setup.scan(best.top, best.bottom));
    };
    auto exclude = [&](const WorkRect& rect) {
        exclusions.exclude(rect);
        if (table) {
            dirtyFirst = rect.row0;
            dirtyLast = rect.row0 + rect.rows - 1;
        }
    };
    return runCpuRounds(rule, search, exclude, job, span);
}

class CpuSolver final : public MaxSubarraySolver {
public:
    DisjointOutcome solveDisjoint(const WorkArray& work, const DisjointRule& rule, JobControl& job,
                                  ProgressSpan span) override {
        if (work.includedCount == 0) return {};
        if (rule.maxBox > 0) return solveBoundedDisjointCpu(work, rule, job, span);
        if (work.fitsInt32()) return dispatch<std::int32_t>(work, rule, job, span);
        if (work.integer) return dispatch<std::int64_t>(work, rule, job, span);
        return dispatch<double>(work, rule, job, span);
    }

private:
    // More than one round within the memory budget: the cached search; otherwise a full search a round.
    template <class V>
    static DisjointOutcome dispatch(const WorkArray& work, const DisjointRule& rule, JobControl& job, ProgressSpan span) {
        if (rule.rounds() > 1 && cachedBytes<V>(work.rows, chooseTrackedTile<V>().geometry) <= cachedBudget())
            return solveCached<V>(work, rule, job, span);
        return solve<V>(work, rule, job, span);
    }
};

} // namespace

std::unique_ptr<MaxSubarraySolver> makeCpuMaxSubarraySolver() { return std::make_unique<CpuSolver>(); }

} // namespace glint
