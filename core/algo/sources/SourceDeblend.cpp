// Step 3 of detection (SourceDetect.h): SExtractor's multi-threshold deblending of one footprint, and the watershed
// that gives every footprint pixel to one marker.
#include "core/algo/sources/SourceDetect.h"

#include <algorithm>
#include <cmath>
#include <queue>
#include <tuple>

namespace glint {

namespace {

// The 8-connected components of a subset of the footprint's pixels, on a grid over the footprint's bounding box
// that is reused between calls (a stamp marks the cells of the current subset, so nothing is cleared).
class SubsetComponents {
public:
    SubsetComponents(const std::vector<std::int64_t>& footprint, int width) : width_(width) {
        x0_ = width;
        y0_ = INT32_MAX;
        int x1 = -1, y1 = -1;
        for (const std::int64_t p : footprint) {
            const int x = static_cast<int>(p % width), y = static_cast<int>(p / width);
            x0_ = std::min(x0_, x);
            y0_ = std::min(y0_, y);
            x1 = std::max(x1, x);
            y1 = std::max(y1, y);
        }
        gw_ = x1 - x0_ + 1;
        gh_ = y1 - y0_ + 1;
        const std::size_t cells = static_cast<std::size_t>(gw_) * static_cast<std::size_t>(gh_);
        stamp_.assign(cells, 0);
        slot_.assign(cells, 0);
    }

    // The components of `subset` (increasing pixel indices), each in increasing index order, in the order of
    // their first pixel.
    std::vector<std::vector<std::int64_t>> components(const std::vector<std::int64_t>& subset) {
        ++current_;
        const std::size_t n = subset.size();
        parent_.resize(n);
        for (std::size_t i = 0; i < n; ++i) {
            parent_[i] = static_cast<std::int32_t>(i);
            const std::size_t c = cell(subset[i]);
            stamp_[c] = current_;
            slot_[c] = static_cast<std::int32_t>(i);
        }
        for (std::size_t i = 0; i < n; ++i) {
            const int gx = static_cast<int>(subset[i] % width_) - x0_, gy = static_cast<int>(subset[i] / width_) - y0_;
            // The neighbours before it in raster order: left, and the three above.
            const int nb[4][2] = {{-1, 0}, {-1, -1}, {0, -1}, {1, -1}};
            for (const auto& d : nb) {
                const int nx = gx + d[0], ny = gy + d[1];
                if (nx < 0 || ny < 0 || nx >= gw_) continue;
                const std::size_t c = static_cast<std::size_t>(ny) * gw_ + nx;
                if (stamp_[c] == current_) unite(static_cast<std::int32_t>(i), slot_[c]);
            }
        }
        std::vector<std::vector<std::int64_t>> out;
        std::vector<std::int32_t> rootIndex(n, -1);
        for (std::size_t i = 0; i < n; ++i) {
            const std::int32_t r = find(static_cast<std::int32_t>(i));
            if (rootIndex[r] < 0) {
                rootIndex[r] = static_cast<std::int32_t>(out.size());
                out.emplace_back();
            }
            out[rootIndex[r]].push_back(subset[i]);
        }
        return out;
    }

private:
    std::size_t cell(std::int64_t p) const {
        return static_cast<std::size_t>(p / width_ - y0_) * gw_ + static_cast<std::size_t>(p % width_ - x0_);
    }
    std::int32_t find(std::int32_t i) {
        while (parent_[i] != i) {
            parent_[i] = parent_[parent_[i]];
            i = parent_[i];
        }
        return i;
    }
    void unite(std::int32_t a, std::int32_t b) {
        a = find(a);
        b = find(b);
        if (a == b) return;
        if (a < b) parent_[b] = a;
        else parent_[a] = b;
    }

    int width_, x0_, y0_, gw_ = 0, gh_ = 0;
    std::uint32_t current_ = 0;
    std::vector<std::uint32_t> stamp_;
    std::vector<std::int32_t> slot_, parent_;
};

struct Deblender {
    const float* detection;
    const float* noise;
    const DetectParams& params;
    SubsetComponents& grid;
    std::vector<double> levels; // t_1 .. t_{N-1}
    double minFlux = 0.0;       // contrast x the footprint's flux
    std::size_t markers = 0;    // leaves so far (the bound)
    bool overflow = false;

    double flux(const std::vector<std::int64_t>& pixels) const {
        double s = 0.0;
        for (const std::int64_t p : pixels) s += detection[static_cast<std::size_t>(p)];
        return s;
    }

    // A branch that rises at least deblendProminence sigma_D above the level where it parted from the others: a
    // source of its own however faint beside the footprint's total (a star in a globular cluster's core).
    bool prominent(const std::vector<std::int64_t>& branch, double level) const {
        if (!(params.deblendProminence > 0.0)) return false;
        std::int64_t peak = branch.front();
        for (const std::int64_t p : branch)
            if (detection[static_cast<std::size_t>(p)] > detection[static_cast<std::size_t>(peak)]) peak = p;
        const double sigma = noise[static_cast<std::size_t>(peak)];
        return sigma > 0.0 && detection[static_cast<std::size_t>(peak)] - level >= params.deblendProminence * sigma;
    }

    // The leaves under a node that exists above level index `from` (-1: the footprint itself).
    void split(std::vector<std::int64_t> node, int from, std::vector<std::vector<std::int64_t>>& leaves) {
        for (int j = from + 1; j < static_cast<int>(levels.size()); ++j) {
            std::vector<std::int64_t> above;
            above.reserve(node.size());
            for (const std::int64_t p : node)
                if (detection[static_cast<std::size_t>(p)] > levels[j]) above.push_back(p);
            if (above.empty()) break;
            std::vector<std::vector<std::int64_t>> branches = grid.components(above);
            std::vector<std::vector<std::int64_t>> significant;
            for (auto& b : branches)
                if (static_cast<int>(b.size()) >= params.minArea && (flux(b) > minFlux || prominent(b, levels[j])))
                    significant.push_back(std::move(b));
            if (significant.empty()) break;
            if (significant.size() == 1) {
                node = std::move(significant.front());
                continue;
            }
            if (markers + significant.size() > static_cast<std::size_t>(params.maxMarkers)) {
                overflow = true;
                break;
            }
            markers += significant.size() - 1;
            for (auto& b : significant) split(std::move(b), j, leaves);
            return;
        }
        leaves.push_back(std::move(node));
    }
};

} // namespace

DeblendResult deblendFootprint(const std::vector<std::int64_t>& pixels, const float* detection, const float* noise,
                               int width, const DetectParams& params) {
    DeblendResult result;
    if (pixels.empty()) return result;
    const int n = params.deblendLevels;
    double lo = INFINITY, hi = -INFINITY, total = 0.0, floor = INFINITY;
    for (const std::int64_t p : pixels) {
        const double d = detection[static_cast<std::size_t>(p)];
        lo = std::min(lo, d);
        hi = std::max(hi, d);
        total += d;
        if (noise[static_cast<std::size_t>(p)] > 0.0f) floor = std::min(floor, params.threshold * noise[static_cast<std::size_t>(p)]);
    }
    // Under a narrower filter than the footprints' some pixels may lie below the threshold: the levels start at it.
    lo = std::max(lo, std::isfinite(floor) ? floor : lo);
    if (n <= 1 || !(lo > 0.0) || !(hi > lo) || static_cast<int>(pixels.size()) < 2 * params.minArea) {
        result.markers.push_back(pixels);
        return result;
    }
    SubsetComponents grid(pixels, width);
    Deblender d{detection, noise, params, grid, {}, params.deblendContrast * total};
    d.markers = 1;
    // Exponentially spaced: the branches of faint and bright sources alike are seen over several levels.
    for (int i = 1; i < n; ++i) d.levels.push_back(lo * std::pow(hi / lo, static_cast<double>(i) / n));
    d.split(pixels, -1, result.markers);
    result.overflow = d.overflow;
    return result;
}

std::vector<std::int32_t> watershedFootprint(const std::vector<std::int64_t>& pixels,
                                             const std::vector<std::vector<std::int64_t>>& markers,
                                             const float* detection, int width) {
    const std::size_t n = pixels.size();
    std::vector<std::int32_t> labels(n, 0);
    if (markers.size() == 1) {
        std::fill(labels.begin(), labels.end(), 1);
        return labels;
    }
    // Positions by pixel: a grid over the footprint's bounding box (-1: not in the footprint).
    int bx0 = width, by0 = INT32_MAX, bx1 = -1, by1 = -1;
    for (const std::int64_t p : pixels) {
        const int x = static_cast<int>(p % width), y = static_cast<int>(p / width);
        bx0 = std::min(bx0, x);
        bx1 = std::max(bx1, x);
        by0 = std::min(by0, y);
        by1 = std::max(by1, y);
    }
    const std::size_t gw = static_cast<std::size_t>(bx1 - bx0 + 1), gh = static_cast<std::size_t>(by1 - by0 + 1);
    std::vector<std::int32_t> grid(gw * gh, -1);
    for (std::size_t i = 0; i < n; ++i)
        grid[static_cast<std::size_t>(pixels[i] / width - by0) * gw + static_cast<std::size_t>(pixels[i] % width - bx0)] =
            static_cast<std::int32_t>(i);
    auto position = [&](std::int64_t p) -> std::int64_t {
        return grid[static_cast<std::size_t>(p / width - by0) * gw + static_cast<std::size_t>(p % width - bx0)];
    };
    // Highest D first, then the lower pixel index, then the lower label: one order on every machine.
    using Entry = std::tuple<float, std::int64_t, std::int32_t>; // D, -index, -label
    std::priority_queue<Entry> queue;
    std::vector<std::int32_t> queued(n, INT32_MAX); // the lowest label queued for each pixel
    auto pushNeighbours = [&](std::int64_t p, std::int32_t label) {
        const int x = static_cast<int>(p % width), y = static_cast<int>(p / width);
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
                if (dx == 0 && dy == 0) continue;
                const int nx = x + dx, ny = y + dy;
                if (nx < bx0 || nx > bx1 || ny < by0 || ny > by1) continue; // outside the footprint's box
                const std::int32_t i = grid[static_cast<std::size_t>(ny - by0) * gw + static_cast<std::size_t>(nx - bx0)];
                const std::int64_t q = static_cast<std::int64_t>(ny) * width + nx;
                // A pixel's entries share its D and index, so the first one out carries the lowest label queued
                // for it: an entry whose label is no lower than one already queued changes nothing.
                if (i >= 0 && labels[static_cast<std::size_t>(i)] == 0 && label < queued[static_cast<std::size_t>(i)]) {
                    queued[static_cast<std::size_t>(i)] = label;
                    queue.emplace(detection[static_cast<std::size_t>(q)], -q, -label);
                }
            }
    };
    for (std::size_t m = 0; m < markers.size(); ++m)
        for (const std::int64_t p : markers[m]) labels[static_cast<std::size_t>(position(p))] = static_cast<std::int32_t>(m + 1);
    for (std::size_t m = 0; m < markers.size(); ++m)
        for (const std::int64_t p : markers[m]) pushNeighbours(p, static_cast<std::int32_t>(m + 1));
    while (!queue.empty()) {
        const auto [value, negIndex, negLabel] = queue.top();
        queue.pop();
        const std::int64_t p = -negIndex;
        const std::size_t i = static_cast<std::size_t>(position(p));
        if (labels[i] != 0) continue;
        labels[i] = -negLabel;
        pushNeighbours(p, -negLabel);
    }
    return labels;
}

} // namespace glint
