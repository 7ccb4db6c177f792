#include "core/export/MaskOutline.h"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

namespace glint {

namespace {

// Directions in clockwise order on screen (y down), so that (d + 1) % 4 is a right turn.
enum Direction { East = 0, South = 1, West = 2, North = 3 };
constexpr int kDx[4] = {1, 0, -1, 0};
constexpr int kDy[4] = {0, 1, 0, -1};

struct Edge {
    long long start; // corner index y * (width + 1) + x
    int direction;
    bool used = false;
};

bool insidePolygon(double px, double py, const CornerRing& ring) {
    bool inside = false;
    for (std::size_t i = 0, j = ring.size() - 1; i < ring.size(); j = i++) {
        const double xi = ring[i].x, yi = ring[i].y, xj = ring[j].x, yj = ring[j].y;
        if ((yi > py) != (yj > py) && px < (xj - xi) * (py - yi) / (yj - yi) + xi) inside = !inside;
    }
    return inside;
}

} // namespace

long long ringDoubleArea(const CornerRing& ring) {
    long long twice = 0;
    for (std::size_t i = 0; i < ring.size(); ++i) {
        const GridCorner& a = ring[i];
        const GridCorner& b = ring[(i + 1) % ring.size()];
        twice += static_cast<long long>(a.x) * b.y - static_cast<long long>(b.x) * a.y;
    }
    return twice;
}

long long polygonPixelCount(const MaskPolygon& polygon) {
    long long twice = ringDoubleArea(polygon.outer);
    for (const auto& hole : polygon.holes) twice += ringDoubleArea(hole); // negative
    return twice / 2;
}

std::vector<MaskPolygon> traceMaskOutline(const std::vector<std::uint8_t>& mask, int width, int height) {
    if (width <= 0 || height <= 0 || mask.size() != static_cast<std::size_t>(width) * static_cast<std::size_t>(height))
        throw std::invalid_argument("traceMaskOutline: the mask does not match its size");
    const long long stride = width + 1;
    auto in = [&](int x, int y) {
        return x >= 0 && y >= 0 && x < width && y < height && mask[static_cast<std::size_t>(y) * width + x] != 0;
    };
    // Each side of an inside pixel that faces an outside pixel, walked with the inside on the right.
    std::vector<Edge> edges;
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            if (!in(x, y)) continue;
            if (!in(x, y - 1)) edges.push_back({y * stride + x, East});
            if (!in(x + 1, y)) edges.push_back({y * stride + x + 1, South});
            if (!in(x, y + 1)) edges.push_back({(y + 1) * stride + x + 1, West});
            if (!in(x - 1, y)) edges.push_back({(y + 1) * stride + x, North});
        }
    // Edges in scan order of their start corner: the first unused edge always starts a ring at the
    // top-left corner of a part (or of a hole), which fixes the order of the output.
    std::stable_sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) { return a.start < b.start; });
    auto findEdge = [&](long long corner, int direction) -> Edge* {
        auto it = std::lower_bound(edges.begin(), edges.end(), corner,
                                   [](const Edge& e, long long c) { return e.start < c; });
        for (; it != edges.end() && it->start == corner; ++it)
            if (it->direction == direction) return &*it;
        return nullptr;
    };

    std::vector<CornerRing> outers, holes;
    std::vector<GridCorner> holeProbe; // a pixel of each hole, its top-left corner
    for (Edge& first : edges) {
        if (first.used) continue;
        CornerRing ring;
        Edge* edge = &first;
        int previous = -1;
        long long corner = first.start;
        while (edge && !edge->used) {
            edge->used = true;
            if (edge->direction != previous)
                ring.push_back({static_cast<int>(corner % stride), static_cast<int>(corner / stride)});
            previous = edge->direction;
            corner += kDx[edge->direction] + kDy[edge->direction] * stride;
            // At a corner shared by two diagonal pixels both a right and a left turn are open: the right
            // turn keeps to the pixel just walked, so diagonal neighbours stay apart. The ring is closed
            // when the edge the rule picks has been walked (it is the ring's first edge).
            edge = findEdge(corner, (previous + 1) % 4);
            if (!edge) edge = findEdge(corner, previous);
            if (!edge) edge = findEdge(corner, (previous + 3) % 4);
        }
        // The ring started mid-side when its first edge continues the last one: drop that corner.
        if (ring.size() > 1 && previous == first.direction) ring.erase(ring.begin());
        const long long area = ringDoubleArea(ring);
        if (area > 0) {
            outers.push_back(std::move(ring));
        } else {
            // The hole's pixel beside its first edge (on the left of the walk).
            const int cx = static_cast<int>(first.start % stride), cy = static_cast<int>(first.start / stride);
            GridCorner probe{cx, cy};
            switch (first.direction) {
            case East: probe = {cx, cy - 1}; break;
            case South: probe = {cx, cy}; break;
            case West: probe = {cx - 1, cy}; break;
            case North: probe = {cx - 1, cy - 1}; break;
            }
            holes.push_back(std::move(ring));
            holeProbe.push_back(probe);
        }
    }

    std::vector<MaskPolygon> polygons(outers.size());
    for (std::size_t i = 0; i < outers.size(); ++i) polygons[i].outer = outers[i];
    for (std::size_t h = 0; h < holes.size(); ++h) {
        const double px = holeProbe[h].x + 0.5, py = holeProbe[h].y + 0.5;
        std::size_t best = outers.size();
        long long bestArea = 0;
        for (std::size_t i = 0; i < outers.size(); ++i) {
            if (!insidePolygon(px, py, outers[i])) continue;
            const long long area = ringDoubleArea(outers[i]);
            if (best == outers.size() || area < bestArea) {
                best = i;
                bestArea = area;
            }
        }
        if (best < outers.size()) polygons[best].holes.push_back(std::move(holes[h]));
    }
    return polygons;
}

} // namespace glint
