#include "core/export/GeoJsonRegions.h"

#include "core/export/CsvTable.h"
#include "core/export/JsonOutput.h"
#include "core/io/Georef.h"
#include "core/util/Errors.h"

#include <algorithm>
#include <cmath>
#include <iterator>

namespace glint {

namespace {

// Where a position in the pixel frame above (= GDAL's pixel/line) is written: itself, or the map
// coordinates of it in the image's CRS or in WGS 84.
class Positions {
public:
    Positions(const Georef* georef, GeoJsonCrs crs) : georef_(georef), crs_(georef ? crs : GeoJsonCrs::Pixel) {}

    // Grid corners: integers in pixels ("[3,4]", as before georeferencing existed).
    Json operator()(int p, int l) const {
        if (crs_ == GeoJsonCrs::Pixel) return Json::array({p, l});
        return (*this)(static_cast<double>(p), static_cast<double>(l));
    }
    Json operator()(double p, double l) const {
        if (crs_ == GeoJsonCrs::Pixel) return Json::array({p, l});
        const MapPoint map = georef_->pixelLineToMap(p, l);
        if (crs_ == GeoJsonCrs::Image) return Json::array({map.x, map.y});
        const auto ll = georef_->mapToLonLat(map);
        if (!ll)
            throw OutputError("GeoJSON in WGS 84: pixel (" + formatNumber(p) + ", " + formatNumber(l) +
                              ") has no longitude/latitude (outside the CRS's area)");
        return Json::array({ll->lon, ll->lat});
    }

private:
    const Georef* georef_;
    GeoJsonCrs crs_;
};

Json ringJson(const CornerRing& ring, const Positions& at) {
    Json r = Json::array();
    for (const GridCorner& c : ring) r.push_back(at(c.x, c.y));
    if (!ring.empty()) r.push_back(at(ring.front().x, ring.front().y)); // GeoJSON rings are closed
    return r;
}

Json polygonJson(const MaskPolygon& p, const Positions& at) {
    Json rings = Json::array({ringJson(p.outer, at)});
    for (const auto& hole : p.holes) rings.push_back(ringJson(hole, at));
    return rings;
}

Json geometryJson(const ExportRegion& r, const Positions& at) {
    if (r.kind == RegionKind::Trace) {
        Json coords = Json::array();
        for (const auto& [x, y] : r.points) coords.push_back(at(x + 0.5, y + 0.5));
        return {{"type", "LineString"}, {"coordinates", coords}};
    }
    if (r.ellipse) {
        Json ring = Json::array();
        const auto points = ellipsePoints(*r.ellipse);
        for (const auto& [x, y] : points) ring.push_back(at(x + 0.5, y + 0.5));
        ring.push_back(ring.front()); // GeoJSON rings are closed
        return {{"type", "Polygon"}, {"coordinates", Json::array({ring})}};
    }
    if (!r.outline.empty()) {
        if (r.outline.size() == 1) return {{"type", "Polygon"}, {"coordinates", polygonJson(r.outline[0], at)}};
        Json polys = Json::array();
        for (const auto& p : r.outline) polys.push_back(polygonJson(p, at));
        return {{"type", "MultiPolygon"}, {"coordinates", polys}};
    }
    const CornerRing box = {{r.x, r.y}, {r.x + r.width, r.y}, {r.x + r.width, r.y + r.height}, {r.x, r.y + r.height}};
    return {{"type", "Polygon"}, {"coordinates", Json::array({ringJson(box, at)})}};
}

// Measurement names of the centre's coordinates: written for people and GIS, skipped when read back.
const char* const kCentreMeasurements[] = {"RA J2000", "Dec J2000", "Map X", "Map Y", "Longitude WGS 84", "Latitude WGS 84"};

Json valueJson(const RegionValue& v) { return v.exact ? Json(*v.exact) : Json(v.value); }

Json featureJson(const ExportRegion& r, const RegionDocument& document, GeoJsonCrs crs) {
    Json measurements = Json::array();
    for (const auto& v : r.values) measurements.push_back({{"name", v.name}, {"value", valueJson(v)}});
    const auto [cx, cy] = r.centre();
    if (document.pixelToSky) {
        if (const auto sky = document.pixelToSky(cx, cy)) {
            measurements.push_back({{"name", "RA J2000 (deg)"}, {"value", sky->ra}});
            measurements.push_back({{"name", "Dec J2000 (deg)"}, {"value", sky->dec}});
        }
    }
    if (const Georef* g = document.georef.get()) {
        const MapPoint map = g->pixelToMap(cx, cy);
        const std::string unit = g->unitSymbol().empty() ? std::string() : " (" + g->unitSymbol() + ")";
        measurements.push_back({{"name", "Map X" + unit}, {"value", map.x}});
        measurements.push_back({{"name", "Map Y" + unit}, {"value", map.y}});
        if (const auto ll = g->mapToLonLat(map)) {
            measurements.push_back({{"name", "Longitude WGS 84 (deg)"}, {"value", ll->lon}});
            measurements.push_back({{"name", "Latitude WGS 84 (deg)"}, {"value", ll->lat}});
        }
    }
    const Json colour = Json::array({(r.colour >> 16) & 0xFF, (r.colour >> 8) & 0xFF, r.colour & 0xFF});
    Json properties = Json::object();
    properties["objectType"] = "annotation";
    properties["name"] = r.label;
    properties["classification"] = {{"name", regionKindTitle(r.kind)}, {"color", colour}};
    properties["measurements"] = measurements;
    const Positions at(document.georef.get(), crs);
    if (crs != GeoJsonCrs::Pixel) properties["pixel_geometry"] = geometryJson(r, Positions(nullptr, GeoJsonCrs::Pixel));
    return {{"type", "Feature"}, {"geometry", geometryJson(r, at)}, {"properties", properties}};
}

[[noreturn]] void fail(const std::string& what) { throw InputError("GeoJSON regions: " + what); }

CornerRing ringFromJson(const Json& ring) {
    if (!ring.is_array() || ring.size() < 4) fail("a polygon ring needs four or more positions");
    CornerRing out;
    for (std::size_t i = 0; i + 1 < ring.size(); ++i) {
        const Json& p = ring[i];
        if (!p.is_array() || p.size() < 2 || !p[0].is_number() || !p[1].is_number()) fail("a position is not [x, y]");
        const double x = p[0].get<double>(), y = p[1].get<double>();
        if (x != std::round(x) || y != std::round(y)) fail("a polygon vertex that is not on the pixel grid");
        out.push_back({static_cast<int>(x), static_cast<int>(y)});
    }
    if (ring.front() != ring.back()) fail("a polygon ring that is not closed");
    return out;
}

MaskPolygon polygonFromJson(const Json& rings) {
    if (!rings.is_array() || rings.empty()) fail("a polygon without rings");
    MaskPolygon p;
    p.outer = ringFromJson(rings[0]);
    for (std::size_t i = 1; i < rings.size(); ++i) p.holes.push_back(ringFromJson(rings[i]));
    return p;
}

} // namespace

std::string geoJsonRegionText(const RegionDocument& document, GeoJsonCrs crs) {
    crs = resolveGeoJsonCrs(crs, document);
    // One feature per line: readable, and much smaller than fully indented JSON for long outlines.
    std::string out = "{\"type\": \"FeatureCollection\", ";
    if (crs != GeoJsonCrs::Pixel) {
        // The legacy (2008) "crs" member, which QGIS and GDAL read; RFC 7946 readers take WGS 84 anyway.
        const Georef& g = *document.georef;
        std::string name = "urn:ogc:def:crs:OGC:1.3:CRS84";
        if (crs == GeoJsonCrs::Image) name = g.epsg() ? "urn:ogc:def:crs:EPSG::" + std::to_string(*g.epsg()) : g.crsWkt();
        if (!name.empty())
            out += "\"crs\": " + Json({{"type", "name"}, {"properties", {{"name", name}}}}).dump() + ", ";
    }
    out += "\"features\": [";
    for (std::size_t i = 0; i < document.regions.size(); ++i)
        out += (i ? ",\n  " : "\n  ") + featureJson(document.regions[i], document, crs).dump();
    out += document.regions.empty() ? "]}\n" : "\n]}\n";
    return out;
}

namespace {
std::vector<ExportRegion> parseFeatures(const std::string& text);
} // namespace

std::vector<ExportRegion> regionsFromGeoJson(const std::string& text) {
    try {
        return parseFeatures(text);
    } catch (const Json::exception& e) {
        // A member of the wrong type (a string where a number belongs, ...).
        fail(std::string("unexpected content (") + e.what() + ")");
    }
}

namespace {
std::vector<ExportRegion> parseFeatures(const std::string& text) {
    Json doc;
    try {
        doc = Json::parse(text);
    } catch (const std::exception& e) {
        fail(std::string("not valid JSON (") + e.what() + ")");
    }
    if (!doc.is_object() || doc.value("type", "") != "FeatureCollection" || !doc.contains("features") ||
        !doc["features"].is_array())
        fail("not a FeatureCollection");
    std::vector<ExportRegion> out;
    for (const Json& f : doc["features"]) {
        if (!f.is_object() || !f.contains("geometry") || !f["geometry"].is_object()) fail("a feature without geometry");
        const Json props0 = f.value("properties", Json::object());
        // Map coordinates (a georeferenced export): the pixel geometry kept beside them.
        const Json& g = props0.is_object() && props0.contains("pixel_geometry") && props0["pixel_geometry"].is_object()
                            ? f["properties"]["pixel_geometry"]
                            : f["geometry"];
        const std::string type = g.value("type", "");
        const Json& coords = g.contains("coordinates") ? g["coordinates"] : Json();
        ExportRegion r;
        const Json props = f.value("properties", Json::object());
        r.label = props.value("name", "");
        if (props.contains("classification") && props["classification"].is_object()) {
            const Json& c = props["classification"];
            if (auto kind = parseRegionKind(c.value("name", ""))) r.kind = *kind;
            if (c.contains("color") && c["color"].is_array() && c["color"].size() == 3)
                r.colour = (c["color"][0].get<std::uint32_t>() << 16) | (c["color"][1].get<std::uint32_t>() << 8) |
                           c["color"][2].get<std::uint32_t>();
        }
        if (props.contains("measurements") && props["measurements"].is_array())
            for (const Json& m : props["measurements"]) {
                if (!m.is_object() || !m.contains("value") || !m["value"].is_number()) continue;
                RegionValue v{m.value("name", ""), m["value"].get<double>(), std::nullopt};
                if (m["value"].is_number_integer()) v.exact = m["value"].get<std::int64_t>();
                if (std::any_of(std::begin(kCentreMeasurements), std::end(kCentreMeasurements),
                                [&](const char* prefix) { return v.name.rfind(prefix, 0) == 0; }))
                    continue;
                r.values.push_back(v);
            }
        if (const RegionValue* rank = r.value("rank")) r.rank = static_cast<int>(rank->value);
        if (type == "LineString") {
            if (!coords.is_array() || coords.size() < 2) fail("a LineString needs two or more positions");
            for (const Json& p : coords) {
                if (!p.is_array() || p.size() < 2) fail("a position is not [x, y]");
                r.points.emplace_back(p[0].get<double>() - 0.5, p[1].get<double>() - 0.5);
            }
            if (!props.contains("classification")) r.kind = RegionKind::Trace;
        } else if (type == "Polygon" || type == "MultiPolygon") {
            std::vector<MaskPolygon> polys;
            if (type == "Polygon") polys.push_back(polygonFromJson(coords));
            else {
                if (!coords.is_array()) fail("a MultiPolygon without polygons");
                for (const Json& p : coords) polys.push_back(polygonFromJson(p));
            }
            r.outline = std::move(polys);
            r.updateBounds();
            // A brightest box is its rectangle, not an outline.
            if (r.kind == RegionKind::Brightest) r.outline.clear();
        } else {
            fail("unsupported geometry type '" + type + "'");
        }
        if (r.kind == RegionKind::Trace) r.updateBounds();
        out.push_back(std::move(r));
    }
    return out;
}

} // namespace

} // namespace glint
