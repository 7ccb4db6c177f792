#include "core/export/RegionCsv.h"

#include "core/export/CsvTable.h"
#include "core/io/Georef.h"

namespace glint {

namespace {
// Value columns, filled from ExportRegion::values by name.
const std::vector<std::string> kValueColumns = {"pixels", "sum", "mean", "score", "length", "dx", "dy", "tolerance"};
// Appended after "points" (columns are only ever appended): brightest --distinct F.
const std::vector<std::string> kLaterValueColumns = {"distinct"};
} // namespace

const std::vector<std::string>& regionCsvColumns() {
    static const std::vector<std::string> columns = [] {
        std::vector<std::string> c = {"kind", "rank", "label", "x", "y", "width", "height", "center_x", "center_y",
                                      "ra", "dec"};
        c.insert(c.end(), kValueColumns.begin(), kValueColumns.end());
        c.push_back("points");
        c.insert(c.end(), kLaterValueColumns.begin(), kLaterValueColumns.end());
        return c;
    }();
    return columns;
}

const std::vector<std::string>& regionCsvGeorefColumns() {
    static const std::vector<std::string> columns = {"map_x", "map_y", "lon", "lat"};
    return columns;
}

std::vector<std::string> regionCsvRow(const ExportRegion& region, const PixelToSky& pixelToSky, const Georef* georef) {
    const auto [cx, cy] = region.centre();
    std::vector<std::string> row = {regionKindName(region.kind),     std::to_string(region.rank),
                                    region.label,                    std::to_string(region.x),
                                    std::to_string(region.y),        std::to_string(region.width),
                                    std::to_string(region.height),   formatNumber(cx),
                                    formatNumber(cy)};
    std::optional<SkyCoord> sky;
    if (pixelToSky) sky = pixelToSky(cx, cy);
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
    if (georef) {
        const MapPoint map = georef->pixelToMap(cx, cy);
        const auto lonLat = georef->mapToLonLat(map);
        row.push_back(formatNumber(map.x));
        row.push_back(formatNumber(map.y));
        row.push_back(lonLat ? formatNumber(lonLat->lon) : "");
        row.push_back(lonLat ? formatNumber(lonLat->lat) : "");
    }
    return row;
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
