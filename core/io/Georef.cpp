#include "core/io/Georef.h"

#include "core/io/Codecs.h"
#include "core/util/Printable.h"

#include <charconv>
#include <cmath>

namespace glint {

namespace {

// The shortest text that reads back as v, without an exponent for map-sized numbers ("500000", "0.1").
std::string shortest(double v) {
    char buffer[400];
    const double a = std::fabs(v);
    const bool plain = a == 0.0 || (a >= 1e-6 && a < 1e16);
    const auto r = plain ? std::to_chars(buffer, buffer + sizeof buffer, v, std::chars_format::fixed)
                         : std::to_chars(buffer, buffer + sizeof buffer, v);
    return std::string(buffer, r.ptr);
}

std::string lowerAscii(std::string s) {
    for (char& c : s)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return s;
}

} // namespace

std::string geoTransformText(const std::array<double, 6>& gt) {
    std::string out;
    for (std::size_t i = 0; i < gt.size(); ++i) out += (i ? ", " : "") + shortest(gt[i]);
    return out;
}

Georef::~Georef() = default;

std::string Georef::crsId() const {
    if (epsg_) return "EPSG:" + std::to_string(*epsg_);
    return wkt_;
}

std::string Georef::unitSymbol() const {
    const std::string u = lowerAscii(unit_);
    if (u == "metre" || u == "meter" || u == "m") return "m";
    if (u == "degree" || u == "degrees") return "°";
    if (u == "foot" || u == "us survey foot" || u == "foot_us" || u == "ft") return "ft";
    return unit_;
}

MapPoint Georef::pixelLineToMap(double pixel, double line) const {
    return {gt_[0] + pixel * gt_[1] + line * gt_[2], gt_[3] + pixel * gt_[4] + line * gt_[5]};
}

MapPoint Georef::pixelToMap(double x, double y) const { return pixelLineToMap(x + 0.5, y + 0.5); }

std::pair<double, double> Georef::mapToPixel(MapPoint map) const {
    // GDAL's inverse geotransform: P = I0 + X*I1 + Y*I2, L = I3 + X*I4 + Y*I5.
    const double pixel = inverse_[0] + map.x * inverse_[1] + map.y * inverse_[2];
    const double line = inverse_[3] + map.x * inverse_[4] + map.y * inverse_[5];
    return {pixel - 0.5, line - 0.5};
}

std::vector<HeaderCard> Georef::headerCards() const {
    std::vector<HeaderCard> cards;
    cards.push_back({"GEOREF", source_, "georeferencing read through GDAL"});
    if (hasCrs()) {
        cards.push_back({"CRS", crsName_.empty() ? std::string("(unnamed)") : crsName_, "coordinate reference system"});
        if (epsg_) cards.push_back({"EPSG", std::to_string(*epsg_), "EPSG code of the CRS"});
    } else {
        cards.push_back({"CRS", "(none)", "no CRS: map coordinates only, no longitude/latitude"});
    }
    cards.push_back({"GEOTRANSFORM", geoTransformText(gt_), "GDAL geotransform: X = GT0 + P*GT1 + L*GT2, Y = GT3 + P*GT4 + L*GT5"});
    cards.push_back({"PIXEL_SIZE", shortest(std::hypot(gt_[1], gt_[4])) + " x " + shortest(std::hypot(gt_[2], gt_[5])),
                     unit_.empty() ? std::string("map units") : unit_});
    const MapPoint origin = pixelLineToMap(0.0, 0.0);
    cards.push_back({"ORIGIN", shortest(origin.x) + ", " + shortest(origin.y), "map coordinates of the first pixel's outer corner"});
    if (!unit_.empty()) cards.push_back({"UNITS", unit_, "map units"});
    if (hasCrs()) cards.push_back({"CRS_WKT", wkt_, "WKT 2 (2019)"});
    return cards;
}

#if GLINT_WITH_GDAL
bool georefAvailable() { return true; }
#else
bool georefAvailable() { return false; }
#endif

// Fills a new Georef (a friend of it) from what the plugin read; its text is made printable here.
class GeorefBuilder {
public:
    static std::shared_ptr<const Georef> build(std::optional<CodecGeoref> parts, std::string source) {
        if (!parts) return nullptr;
        std::shared_ptr<Georef> g(new Georef());
        g->gt_ = parts->geoTransform;
        g->inverse_ = parts->inverse;
        g->source_ = std::move(source);
        g->wkt_ = std::move(parts->crsWkt);
        if (!g->wkt_.empty()) {
            g->crsName_ = printableMessage(parts->crsName, 200);
            g->epsg_ = parts->epsg;
            g->geographic_ = parts->geographic;
            g->unit_ = printableMessage(parts->unitName, 80);
            g->semiMajor_ = parts->semiMajor;
            g->inverseFlattening_ = parts->inverseFlattening;
            g->transform_ = std::move(parts->toWgs84);
        }
        return g;
    }
};

std::shared_ptr<const Georef> Georef::create(const std::array<double, 6>& geoTransform, const std::string& crs,
                                             std::string source) {
    const Codecs* codecs = glint::codecs();
    if (!codecs) return nullptr;
    return GeorefBuilder::build(codecs->georef(geoTransform, crs), std::move(source));
}

std::optional<LonLat> Georef::mapToLonLat(MapPoint map) const {
    if (!transform_) return std::nullopt;
    double x = map.x, y = map.y;
    const bool ok = transform_->toWgs84(x, y);
    if (!ok || !std::isfinite(x) || !std::isfinite(y) || std::fabs(y) > 90.0) return std::nullopt;
    return LonLat{x, y};
}

std::shared_ptr<const Georef> Georef::fromFile(const std::string& path) { return readRasterGeoInfo(path).georef; }

RasterGeoInfo readRasterGeoInfo(const std::string& path) {
    constexpr std::size_t kMaxCardText = 1000;
    RasterGeoInfo info;
    const Codecs* codecs = glint::codecs();
    if (!codecs) return info;
    CodecRasterGeo geo = codecs->readRasterGeo(path);
    for (const CodecTag& tag : geo.tags)
        info.metadata.push_back({printableMessage(tag.key, 80), printableMessage(tag.value, kMaxCardText),
                                 tag.domain.empty() ? std::string("GDAL metadata") : "GDAL " + tag.domain});
    if (geo.georef) {
        std::string source = !geo.worldFile.empty() ? "world file " + printableMessage(geo.worldFile, 200)
                             : geo.driver == "GTiff" ? std::string("GeoTIFF")
                                                     : geo.driver;
        if (!geo.prjFile.empty()) source += ", CRS from " + printableMessage(geo.prjFile, 200);
        info.georef = GeorefBuilder::build(std::move(geo.georef), std::move(source));
    }
    return info;
}

} // namespace glint
