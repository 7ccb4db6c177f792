#include "core/export/RegionCsv.h"

#include "core/export/CsvTable.h"
#include "core/export/Geodesic.h"
#include "core/io/Georef.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace glint {

namespace {
// Value columns, filled from ExportRegion::values by name.
const std::vector<std::string> kValueColumns = {"pixels", "sum", "mean", "score", "length", "dx", "dy", "tolerance"};
// Appended after "points" (columns are only ever appended): brightest --distinct F.
// Then the measurements that the window's table shows (and a brightest region's pivot value, which a pivot
// sweep's table shows), named as in the CLI's JSON (brightest: flux ... flags;
// trace: legs and the weakest leg's confidence; sources: flux_auto ... fwhm with centroid_x/y, snr and flags).
const std::vector<std::string> kLaterValueColumns = {"distinct", "flux", "snr",  "peak",     "centroid_x", "centroid_y",
                                                     "mean_background", "flags", "legs", "flux_auto", "mag_auto",
                                                     "a", "b", "theta", "fwhm", "min_confidence", "pivot"};
// Text columns after those (a trace's score mode, backend and every leg's confidence, as the window's table shows
// them), filled from ExportRegion::texts by name.
const std::vector<std::string> kTextColumns = {"mode", "backend", "leg_confidences"};
// Then a mammogram finding's local contrast against the surrounding tissue (its ranking; such a region has no snr),
// and a trace's feature width along its path (px, the median; "width" is the box's).
const std::vector<std::string> kLastValueColumns = {"contrast", "line_width"};
// The Earth's mean radius (IUGG), for lengths over a geographic CRS whose ellipsoid is not known.
constexpr double kEarthRadiusM = 6371008.8;
} // namespace

const std::vector<std::string>& regionCsvColumns() {
    static const std::vector<std::string> columns = [] {
        std::vector<std::string> c = {"kind", "rank", "label", "x", "y", "width", "height", "center_x", "center_y",
                                      "ra", "dec"};
        c.insert(c.end(), kValueColumns.begin(), kValueColumns.end());
        c.push_back("points");
        c.insert(c.end(), kLaterValueColumns.begin(), kLaterValueColumns.end());
        c.insert(c.end(), kTextColumns.begin(), kTextColumns.end());
        c.insert(c.end(), kLastValueColumns.begin(), kLastValueColumns.end());
        return c;
    }();
    return columns;
}

const std::vector<std::string>& regionCsvGeorefColumns() {
    static const std::vector<std::string> columns = {"map_x", "map_y", "lon", "lat", "map_length", "map_length_unit"};
    return columns;
}

std::vector<std::string> regionCsvRow(const ExportRegion& region, const PixelToSky& pixelToSky, const Georef* georef) {
    const auto [cx, cy] = region.centre();
    std::vector<std::string> row = {regionKindName(region.kind),     std::to_string(region.rank),
                                    region.label,                    std::to_string(region.x),
                                    std::to_string(region.y),        std::to_string(region.width),
                                    std::to_string(region.height),   formatNumber(cx),
                                    formatNumber(cy)};
    // RA/Dec: the measured position where the result has one (a brightest region's flux-weighted centroid, a
    // source's), as the JSON's ra, dec and the window's table give it; else the centre's.
    std::optional<SkyCoord> sky;
    const RegionValue* ra = region.value("ra");
    const RegionValue* dec = region.value("dec");
    if (ra && dec) sky = SkyCoord{ra->value, dec->value};
    else if (pixelToSky) sky = pixelToSky(cx, cy);
    row.push_back(sky ? formatNumber(sky->ra) : "");
    row.push_back(sky ? formatNumber(sky->dec) : "");
    for (const auto& name : kValueColumns) {
        const RegionValue* v = region.value(name);
        row.push_back(v ? v->text() : "");
    }
    std::string points;
    for (const auto& [px, py] : region.points) {
        if (!points.empty()) points += ';';
        points += formatNumber(px);
        points += ' ';
        points += formatNumber(py);
    }
    row.push_back(points);
    for (const auto& name : kLaterValueColumns) {
        const RegionValue* v = region.value(name);
        row.push_back(v ? v->text() : "");
    }
    for (const auto& name : kTextColumns) {
        const std::string* text = region.text(name);
        row.push_back(text ? *text : "");
    }
    for (const auto& name : kLastValueColumns) {
        const RegionValue* v = region.value(name);
        row.push_back(v ? v->text() : "");
    }
    if (georef) {
        const MapPoint map = georef->pixelToMap(cx, cy);
        const auto lonLat = georef->mapToLonLat(map);
        row.push_back(formatNumber(map.x));
        row.push_back(formatNumber(map.y));
        row.push_back(lonLat ? formatNumber(lonLat->lon) : "");
        row.push_back(lonLat ? formatNumber(lonLat->lat) : "");
        const std::optional<MapLength> length =
            region.kind == RegionKind::Trace ? mapLength(region.points, *georef) : std::nullopt;
        row.push_back(length ? formatNumber(length->value) : "");
        row.push_back(length ? length->unit : "");
    }
    return row;
}

std::optional<MapLength> mapLength(const std::vector<std::pair<double, double>>& points, const Georef& georef) {
    if (points.size() < 2) return std::nullopt;
    double length = 0.0;
    MapPoint last = georef.pixelToMap(points.front().first, points.front().second);
    for (std::size_t i = 1; i < points.size(); ++i) {
        const MapPoint next = georef.pixelToMap(points[i].first, points[i].second);
        if (georef.isGeographic()) { // x = longitude, y = latitude, degrees: the geodesic on the CRS's ellipsoid
            const double a = georef.semiMajor() > 0.0 ? georef.semiMajor() : kEarthRadiusM;
            length += geodesicDistance(last.x, last.y, next.x, next.y, a, georef.semiMajor() > 0.0 ? georef.inverseFlattening() : 0.0);
        } else {
            length += std::hypot(next.x - last.x, next.y - last.y);
        }
        last = next;
    }
    if (!std::isfinite(length)) return std::nullopt;
    if (georef.isGeographic()) return MapLength{length, "metre"};
    return MapLength{length, georef.unitName().empty() ? std::string("map unit") : georef.unitName()};
}

std::string regionCsvText(const RegionDocument& document) {
    std::vector<std::string> columns = regionCsvColumns();
    if (document.georef) columns.insert(columns.end(), regionCsvGeorefColumns().begin(), regionCsvGeorefColumns().end());
    CsvTable table(columns);
    for (const auto& region : document.regions)
        table.addRow(regionCsvRow(region, document.pixelToSky, document.georef.get()));
    return table.text();
}

} // namespace glint
