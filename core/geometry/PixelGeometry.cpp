#include "core/geometry/PixelGeometry.h"

#include "core/util/Errors.h"

#include <algorithm>
#include <cmath>

namespace glint {

void rasterizePolygon(const PixelPolygon& polygon, int width, int height, std::vector<std::uint8_t>& mask) {
    const auto& pts = polygon.points;
    if (pts.size() < 3) throw UsageError("an exclusion polygon needs at least three points");
    for (const auto& [x, y] : pts)
        if (!std::isfinite(x) || !std::isfinite(y)) throw UsageError("an exclusion polygon has a non-finite point");
    double ymin = pts[0].second, ymax = pts[0].second;
    for (const auto& pt : pts) {
        ymin = std::min(ymin, pt.second);
        ymax = std::max(ymax, pt.second);
    }
    const int y0 = std::max(0, static_cast<int>(std::floor(ymin)));
    const int y1 = std::min(height - 1, static_cast<int>(std::ceil(ymax)));
    std::vector<double> cross;
    for (int y = y0; y <= y1; ++y) {
        const double yc = y;
        cross.clear();
        // PNPOLY's test: an edge counts when it straddles the row, half-open at its upper end.
        for (std::size_t i = 0, j = pts.size() - 1; i < pts.size(); j = i++) {
            const auto [xi, yi] = pts[i];
            const auto [xj, yj] = pts[j];
            if ((yi > yc) != (yj > yc)) cross.push_back((xj - xi) * (yc - yi) / (yj - yi) + xi);
        }
        std::sort(cross.begin(), cross.end());
        // Centre x is inside when an odd number of crossings lie strictly right of it: c[2k] <= x < c[2k+1].
        for (std::size_t k = 0; k + 1 < cross.size(); k += 2) {
            const double lo = std::max(std::ceil(cross[k]), 0.0);
            const double hi = std::min(std::ceil(cross[k + 1]) - 1.0, static_cast<double>(width - 1));
            for (long long x = static_cast<long long>(lo); x <= static_cast<long long>(hi); ++x)
                mask[static_cast<std::size_t>(y) * width + static_cast<std::size_t>(x)] = 1;
        }
    }
}

} // namespace glint
