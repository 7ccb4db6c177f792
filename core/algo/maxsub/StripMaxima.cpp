// Every strip's maximum on the CPU (the K-MSP search starts from the best strips): the SIMD tiles of
// StripTiles.h over all tops and bottoms at once.
#include "core/algo/maxsub/MaxSubarrayBase.h"
#include "core/algo/maxsub/StripTiles.h"

#include "core/util/Parallel.h"

namespace glint {

namespace {

using namespace maxsub;

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

} // namespace

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
