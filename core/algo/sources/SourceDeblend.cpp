// Step 3 of detection (SourceDetect.h): SExtractor's multi-threshold deblending of one footprint, and the
// assignment of every footprint pixel to one marker by the markers' Gaussian models.
#include "core/algo/sources/SourceDetect.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <vector>

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
    PixelValues detection;
    PixelValues noise;
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
        const std::int64_t peak = peakPixel(branch, detection);
        const double sigma = noise[static_cast<std::size_t>(peak)];
        return sigma > 0.0 && detection[static_cast<std::size_t>(peak)] - level >= params.deblendProminence * sigma;
    }

    // The leaves under a node that exists above level index `from` (-1: the footprint itself), each with its
    // branch (the node as it came in). A node that parts at some level from siblings significant by prominence
    // alone -- faint compact sources on it, like knots on a galaxy's halo -- and from no sibling significant by its
    // flux keeps the branch it came in with, less those siblings' own (`inherited`): its Gaussian model, which
    // shares out the footprint's pixels below the branches, stays the galaxy's extent, as SExtractor has it (for
    // which those knots are not sources), instead of shrinking to its core above the highest knot, which gave the
    // halo around the knots farther out to them (test_source_detect knotsLeaveTheGalaxyItsHalo).
    void split(std::vector<std::int64_t> node, int from, std::vector<std::vector<std::int64_t>>& leaves,
               std::vector<std::vector<std::int64_t>>& leafBranches, std::vector<std::int64_t> inherited = {}) {
        const std::vector<std::int64_t> branch = inherited.empty() ? node : std::move(inherited);
        for (int j = from + 1; j < static_cast<int>(levels.size()); ++j) {
            std::vector<std::int64_t> above;
            above.reserve(node.size());
            for (const std::int64_t p : node)
                if (detection[static_cast<std::size_t>(p)] > levels[j]) above.push_back(p);
            if (above.empty()) break;
            std::vector<std::vector<std::int64_t>> branches = grid.components(above);
            std::vector<std::vector<std::int64_t>> significant;
            std::vector<bool> byFlux;
            for (auto& b : branches) {
                if (static_cast<int>(b.size()) < params.minArea) continue;
                const bool bright = flux(b) > minFlux;
                if (!bright && !prominent(b, levels[j])) continue;
                significant.push_back(std::move(b));
                byFlux.push_back(bright);
            }
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
            const std::size_t bright = static_cast<std::size_t>(std::count(byFlux.begin(), byFlux.end(), true));
            std::vector<std::int64_t> kept; // the one bright node's branch: this one less the faint siblings'
            if (bright == 1) {
                std::vector<std::int64_t> faint;
                for (std::size_t k = 0; k < significant.size(); ++k)
                    if (!byFlux[k]) faint.insert(faint.end(), significant[k].begin(), significant[k].end());
                std::sort(faint.begin(), faint.end());
                std::set_difference(branch.begin(), branch.end(), faint.begin(), faint.end(), std::back_inserter(kept));
            }
            for (std::size_t k = 0; k < significant.size(); ++k)
                split(std::move(significant[k]), j, leaves, leafBranches, byFlux[k] && bright == 1 ? std::move(kept) : std::vector<std::int64_t>{});
            return;
        }
        leaves.push_back(std::move(node));
        leafBranches.push_back(branch);
    }
};

} // namespace

DeblendResult deblendFootprint(const std::vector<std::int64_t>& pixels, PixelValues detection, PixelValues noise,
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
        result.branches.push_back(pixels);
        return result;
    }
    SubsetComponents grid(pixels, width);
    Deblender d{detection, noise, params, grid, {}, params.deblendContrast * total};
    d.markers = 1;
    // Exponentially spaced: the branches of faint and bright sources alike are seen over several levels.
    for (int i = 1; i < n; ++i) d.levels.push_back(lo * std::pow(hi / lo, static_cast<double>(i) / n));
    d.split(pixels, -1, result.markers, result.branches);
    result.overflow = d.overflow;
    return result;
}

std::int64_t peakPixel(const std::vector<std::int64_t>& pixels, PixelValues detection) {
    std::int64_t peak = pixels.front();
    for (const std::int64_t p : pixels)
        if (detection[static_cast<std::size_t>(p)] > detection[static_cast<std::size_t>(peak)]) peak = p;
    return peak;
}

DetectionMoments detectionMoments(const std::vector<std::int64_t>& pixels, PixelValues detection, int width) {
    DetectionMoments m;
    double sx = 0.0, sy = 0.0;
    for (const std::int64_t p : pixels) {
        const double v = std::max(0.0, static_cast<double>(detection[static_cast<std::size_t>(p)]));
        m.flux += v;
        sx += v * static_cast<double>(p % width);
        sy += v * static_cast<double>(p / width);
    }
    if (!(m.flux > 0.0)) return m;
    m.cx = sx / m.flux;
    m.cy = sy / m.flux;
    double xx = 0.0, yy = 0.0, xy = 0.0;
    for (const std::int64_t p : pixels) {
        const double v = std::max(0.0, static_cast<double>(detection[static_cast<std::size_t>(p)]));
        const double dx = static_cast<double>(p % width) - m.cx, dy = static_cast<double>(p / width) - m.cy;
        xx += v * dx * dx;
        yy += v * dy * dy;
        xy += v * dx * dy;
    }
    m.x2 = xx / m.flux;
    m.y2 = yy / m.flux;
    m.xy = xy / m.flux;
    return m;
}

std::vector<std::int32_t> modelAssignFootprint(const std::vector<std::int64_t>& pixels,
                                               const std::vector<std::vector<std::int64_t>>& branches,
                                               PixelValues detection, int width) {
    const std::size_t n = pixels.size();
    std::vector<std::int32_t> labels(n, 0);
    if (branches.size() == 1) {
        std::fill(labels.begin(), labels.end(), 1);
        return labels;
    }
    struct Model {
        double flux = 0.0, cx = 0.0, cy = 0.0, ixx = 0.0, iyy = 0.0, ixy = 0.0, logNorm = 0.0;
    };
    std::vector<Model> models(branches.size());
    for (std::size_t m = 0; m < branches.size(); ++m) {
        Model& g = models[m];
        const DetectionMoments d = detectionMoments(branches[m], detection, width);
        if (!(d.flux > 0.0)) continue; // no model: its own branch only
        g.flux = d.flux;
        g.cx = d.cx;
        g.cy = d.cy;
        const double x2 = d.x2 + 1.0 / 12.0, y2 = d.y2 + 1.0 / 12.0, c = d.xy;
        const double det = std::max(x2 * y2 - c * c, 1e-6);
        g.ixx = y2 / det;
        g.iyy = x2 / det;
        g.ixy = -c / det;
        g.logNorm = std::log(g.flux / (2.0 * M_PI * std::sqrt(det)));
    }
    // The branches' pixels, by position in `pixels` (both increasing: one merge a branch).
    for (std::size_t m = 0; m < branches.size(); ++m) {
        std::size_t i = 0;
        for (const std::int64_t p : branches[m]) {
            while (i < n && pixels[i] < p) ++i;
            if (i < n && pixels[i] == p) labels[i] = static_cast<std::int32_t>(m + 1);
        }
    }
    auto modelAt = [&](std::size_t m, double x, double y) -> double {
        const Model& g = models[m];
        if (!(g.flux > 0.0)) return -INFINITY;
        const double dx = x - g.cx, dy = y - g.cy;
        return g.logNorm - 0.5 * (g.ixx * dx * dx + g.iyy * dy * dy + 2.0 * g.ixy * dx * dy);
    };
    // Every other pixel to the marker whose model is largest there (ties: the lower label), as SExtractor's
    // deblending gives the pixels below the branches (a segment may so hold pixels apart from its branch). A
    // faint source on a galaxy's halo keeps its own branch; the halo goes to the galaxy, whose model is the wider
    // (a watershed gave it to whatever lay uphill of it: stars on NGC 1316's halo had segments of 2000 px).
    // A model's value at distance d from its centre is at most logNorm - d^2 / (2 lambda), lambda the larger
    // eigenvalue of its covariance. Per cell of 16 x 16 px over the footprint's box, the models in decreasing order
    // of that bound over the cell (d its nearest point to the centre); a pixel tries them in that order, the last
    // pixel's winner first, and stops at the first whose bound is below the best value found: the same winner as
    // trying them all (a crowded cluster's footprint holds hundreds of markers).
    std::vector<double> lambdaMax(models.size(), 0.0);
    for (std::size_t m = 0; m < models.size(); ++m) {
        const Model& g = models[m];
        if (!(g.flux > 0.0)) continue;
        // The covariance's larger eigenvalue is 1 / (the inverse's smaller one).
        const double tr = g.ixx + g.iyy, det = g.ixx * g.iyy - g.ixy * g.ixy;
        const double small = 0.5 * tr - std::sqrt(std::max(0.0, 0.25 * tr * tr - det));
        lambdaMax[m] = small > 0.0 ? 1.0 / small : INFINITY;
    }
    int bx0 = width, by0 = INT32_MAX, bx1 = -1, by1 = -1;
    for (const std::int64_t p : pixels) {
        bx0 = std::min(bx0, static_cast<int>(p % width));
        bx1 = std::max(bx1, static_cast<int>(p % width));
        by0 = std::min(by0, static_cast<int>(p / width));
        by1 = std::max(by1, static_cast<int>(p / width));
    }
    constexpr int kCell = 16;
    const int cw = (bx1 - bx0) / kCell + 1, ch = (by1 - by0) / kCell + 1;
    std::vector<std::vector<std::pair<double, std::size_t>>> candidates(static_cast<std::size_t>(cw) * ch);
    std::vector<std::uint8_t> built(candidates.size(), 0);
    auto cellModels = [&](int cx, int cy) -> const std::vector<std::pair<double, std::size_t>>& {
        const std::size_t c = static_cast<std::size_t>(cy) * cw + cx;
        if (built[c]) return candidates[c];
        built[c] = 1;
        const double x0 = bx0 + cx * kCell, y0 = by0 + cy * kCell, x1 = x0 + kCell - 1, y1 = y0 + kCell - 1;
        std::vector<std::pair<double, std::size_t>>& list = candidates[c];
        for (std::size_t m = 0; m < models.size(); ++m) {
            const Model& g = models[m];
            if (!(g.flux > 0.0)) continue;
            const double dx = std::max({0.0, x0 - g.cx, g.cx - x1}), dy = std::max({0.0, y0 - g.cy, g.cy - y1});
            const double bound = std::isfinite(lambdaMax[m]) ? g.logNorm - 0.5 * (dx * dx + dy * dy) / lambdaMax[m] : g.logNorm;
            list.emplace_back(bound, m);
        }
        std::stable_sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
        return list;
    };
    std::size_t previous = 0;
    bool havePrevious = false;
    for (std::size_t i = 0; i < n; ++i) {
        if (labels[i] != 0) continue;
        const int px = static_cast<int>(pixels[i] % width), py = static_cast<int>(pixels[i] / width);
        const double x = px, y = py;
        const auto& list = cellModels((px - bx0) / kCell, (py - by0) / kCell);
        double best = -INFINITY;
        std::size_t winner = list.empty() ? 0 : list.front().second;
        if (havePrevious) {
            best = modelAt(previous, x, y);
            winner = previous;
        }
        for (const auto& [bound, m] : list) {
            if (bound < best) break;
            const double v = modelAt(m, x, y);
            if (v > best || (v == best && m < winner)) {
                best = v;
                winner = m;
            }
        }
        if (!(best > -INFINITY)) winner = 0; // no model at all: the first marker
        labels[i] = static_cast<std::int32_t>(winner + 1);
        previous = winner;
        havePrevious = best > -INFINITY;
    }
    return labels;
}

} // namespace glint
