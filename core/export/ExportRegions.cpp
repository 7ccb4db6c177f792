#include "core/export/ExportRegions.h"

#include "core/algo/brightest/Brightest.h"
#include "core/algo/commoncomponent/CommonComponent.h"
#include "core/algo/trace/LineTrace.h"
#include "core/export/CsvTable.h"
#include "core/export/Ds9Regions.h"
#include "core/export/GeoJsonRegions.h"
#include "core/export/OverlayImage.h"
#include "core/export/RegionCsv.h"
#include "core/io/Georef.h"
#include "core/io/Image.h"
#include "core/jobs/Backend.h"
#include "core/util/AtomicFile.h"
#include "core/util/EnumNames.h"
#include "core/util/Errors.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <numbers>
#include <cstdio>

namespace glint {

namespace {

// The colours of the CLI overlays, so that a region file and an overlay PNG of one run agree.
constexpr std::uint32_t kTraceColour = 0xFFEB3B;

// Labels are read by people: six significant digits, without exponents for sums up to 1e15.
std::string compactNumber(double v) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, std::fabs(v) >= 1e5 && std::fabs(v) < 1e15 ? "%.0f" : "%.6g", v);
    return buffer;
}

RegionValue exactValue(const std::string& name, std::int64_t v) {
    return {name, static_cast<double>(v), v};
}

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

} // namespace

namespace {
constexpr EnumName<RegionKind> kKindNames[] = {
    {RegionKind::Brightest, "brightest"}, {RegionKind::Trace, "trace"}, {RegionKind::Common, "common"},
    {RegionKind::Source, "source"}};
constexpr EnumName<RegionKind> kKindTitles[] = {{RegionKind::Brightest, "Brightest region"},
                                                {RegionKind::Trace, "Line trace"},
                                                {RegionKind::Common, "Common component"},
                                                {RegionKind::Source, "Source"}};
} // namespace

const char* regionKindName(RegionKind kind) { return enumName(kKindNames, kind); }
const char* regionKindTitle(RegionKind kind) { return enumName(kKindTitles, kind); }

std::optional<RegionKind> parseRegionKind(const std::string& nameOrTitle) {
    for (const auto& entry : kKindNames)
        if (nameOrTitle == entry.name) return entry.value;
    for (const auto& entry : kKindTitles)
        if (nameOrTitle == entry.name) return entry.value;
    return std::nullopt;
}

std::string RegionValue::text() const { return exact ? std::to_string(*exact) : formatNumber(value); }

const RegionValue* ExportRegion::value(const std::string& name) const {
    for (const auto& v : values)
        if (v.name == name) return &v;
    return nullptr;
}

const std::string* ExportRegion::text(const std::string& name) const {
    for (const auto& [key, value] : texts)
        if (key == name) return &value;
    return nullptr;
}

std::vector<std::pair<double, double>> ellipsePoints(const RegionEllipse& e, int n) {
    std::vector<std::pair<double, double>> out;
    const double t = e.thetaDeg * std::numbers::pi / 180.0, c = std::cos(t), s = std::sin(t);
    for (int i = 0; i < n; ++i) {
        const double u = 2.0 * std::numbers::pi * i / n, px = e.a * std::cos(u), py = e.b * std::sin(u);
        out.emplace_back(e.x + px * c - py * s, e.y + px * s + py * c);
    }
    return out;
}

std::pair<double, double> ExportRegion::centre() const {
    if (ellipse) return {ellipse->x, ellipse->y};
    if (kind == RegionKind::Trace && !points.empty()) return points[points.size() / 2];
    return {x + (width - 1) / 2.0, y + (height - 1) / 2.0};
}

void ExportRegion::updateBounds() {
    int x0 = INT_MAX, y0 = INT_MAX, x1 = INT_MIN, y1 = INT_MIN;
    if (!outline.empty()) {
        for (const MaskPolygon& p : outline)
            for (const GridCorner& c : p.outer) {
                x0 = std::min(x0, c.x);
                y0 = std::min(y0, c.y);
                x1 = std::max(x1, c.x - 1); // corner x + 1 closes pixel x
                y1 = std::max(y1, c.y - 1);
            }
    } else if (!points.empty()) {
        // The whole pixels the points fall in (pixel centres at integers).
        for (const auto& [px, py] : points) {
            const int ix = static_cast<int>(std::floor(px + 0.5)), iy = static_cast<int>(std::floor(py + 0.5));
            x0 = std::min(x0, ix);
            y0 = std::min(y0, iy);
            x1 = std::max(x1, ix);
            y1 = std::max(y1, iy);
        }
    } else {
        return;
    }
    x = x0;
    y = y0;
    width = x1 - x0 + 1;
    height = y1 - y0 + 1;
}

PixelToSky pixelToSkyOf(std::shared_ptr<const Wcs> wcs) {
    if (!wcs) return {};
    return [wcs](double x, double y) { return wcs->pixelToSky(x, y); };
}

RegionDocument regionDocumentFor(const Image& image) {
    RegionDocument doc;
    doc.imagePath = image.meta.path;
    doc.imageWidth = image.width();
    doc.imageHeight = image.height();
    doc.pixelToSky = pixelToSkyOf(image.meta.wcs);
    doc.georef = image.meta.georef;
    return doc;
}

std::vector<ExportRegion> regionsFromBrightest(const BrightestResult& result) {
    std::vector<ExportRegion> out;
    for (const BrightestRegion& r : result.regions) {
        ExportRegion e;
        e.kind = RegionKind::Brightest;
        e.rank = r.rank;
        e.x = r.x;
        e.y = r.y;
        e.width = r.width;
        e.height = r.height;
        e.colour = overlayPaletteColour(static_cast<std::size_t>(std::max(0, r.rank - 1)));
        const RegionValue sum = r.exactInteger ? exactValue("sum", r.sumInt) : RegionValue{"sum", r.sum, std::nullopt};
        std::string label(1, '#');
        // A region ranked by its contrast (a mammogram's finding) is labelled by it, as the window does.
        if (r.measured && !std::isnan(r.contrast)) {
            char text[48];
            std::snprintf(text, sizeof text, " contrast=%.1f", r.contrast); // the window's one decimal
            label.append(std::to_string(r.rank)).append(text);
        } else {
            label.append(std::to_string(r.rank)).append(" sum=");
            label.append(r.exactInteger ? std::to_string(r.sumInt) : compactNumber(r.sum));
        }
        e.label = std::move(label);
        e.values = {exactValue("rank", r.rank), sum, {"mean", result.regionMean(r), std::nullopt},
                    exactValue("pixels", r.pixels()), {"pivot", result.pivot, std::nullopt}};
        if (result.distinct) e.values.push_back({"distinct", *result.distinct, std::nullopt});
        if (r.measured) { // the measurements, named as in the CLI's JSON; ra/dec are the centroid's
            e.values.push_back({"flux", r.flux, std::nullopt});
            if (!std::isnan(r.snr)) e.values.push_back({"snr", r.snr, std::nullopt});
            if (!std::isnan(r.contrast)) e.values.push_back({"contrast", r.contrast, std::nullopt});
            e.values.push_back({"peak", r.peak, std::nullopt});
            e.values.push_back({"centroid_x", r.centroidX, std::nullopt});
            e.values.push_back({"centroid_y", r.centroidY, std::nullopt});
            if (r.hasSky) {
                e.values.push_back({"ra", r.ra, std::nullopt});
                e.values.push_back({"dec", r.dec, std::nullopt});
            }
            e.values.push_back({"mean_background", r.meanBackground, std::nullopt});
            e.values.push_back(exactValue("flags", r.flags));
        }
        out.push_back(std::move(e));
    }
    return out;
}

ExportRegion regionFromTrace(const TraceResult& result, int traceIndex, const std::string& mode, const std::string& backend,
                             std::optional<double> lineWidthPx) {
    ExportRegion e;
    e.kind = RegionKind::Trace;
    e.rank = traceIndex;
    e.colour = kTraceColour;
    for (const TracePoint& p : result.polyline()) e.points.emplace_back(p.x, p.y);
    double length = 0.0;
    for (std::size_t i = 1; i < e.points.size(); ++i)
        length += std::hypot(e.points[i].first - e.points[i - 1].first, e.points[i].second - e.points[i - 1].second);
    e.updateBounds();
    e.label = "trace " + std::to_string(traceIndex) + " score=" + compactNumber(result.score);
    e.values = {exactValue("rank", traceIndex), {"score", result.score, std::nullopt},
                {"length", length, std::nullopt}, exactValue("legs", static_cast<std::int64_t>(result.legs.size()))};
    // The weakest leg's confidence (the JSON's legs[].confidence), as the window's table shows it.
    double lowest = 1.0;
    for (const TraceLeg& leg : result.legs) lowest = std::min(lowest, leg.confidence);
    e.values.push_back({"min_confidence", lowest, std::nullopt});
    if (lineWidthPx) e.values.push_back({"line_width", *lineWidthPx, std::nullopt});
    if (!mode.empty()) e.texts.emplace_back("mode", mode);
    e.texts.emplace_back("backend", backend.empty() ? std::string(backendName(result.backend)) : backend);
    std::string confidences;
    for (const TraceLeg& leg : result.legs) {
        if (!confidences.empty()) confidences += ';';
        confidences += RegionValue{"", leg.confidence, std::nullopt}.text();
    }
    e.texts.emplace_back("leg_confidences", confidences);
    return e;
}

std::vector<ExportRegion> regionsFromCommon(const CommonComponentResult& result, double tolerance) {
    if (!result.found || result.mask.empty()) return {};
    ExportRegion e;
    e.kind = RegionKind::Common;
    e.rank = 1;
    e.colour = overlayPaletteColour(0);
    e.x = result.bboxX;
    e.y = result.bboxY;
    e.width = result.bboxWidth;
    e.height = result.bboxHeight;
    e.outline = traceMaskOutline(result.mask, result.maskWidth, result.maskHeight);
    e.label = "common component " + std::to_string(result.size) + " px dx=" + std::to_string(result.dx) +
              " dy=" + std::to_string(result.dy);
    e.values = {exactValue("rank", 1), exactValue("pixels", static_cast<std::int64_t>(result.size)),
                exactValue("dx", result.dx), exactValue("dy", result.dy), {"tolerance", tolerance, std::nullopt}};
    return {std::move(e)};
}

std::optional<GeoJsonCrs> parseGeoJsonCrs(const std::string& name) {
    for (GeoJsonCrs c : {GeoJsonCrs::Auto, GeoJsonCrs::Pixel, GeoJsonCrs::Image, GeoJsonCrs::Wgs84})
        if (lower(name) == geoJsonCrsName(c)) return c;
    return std::nullopt;
}

const char* geoJsonCrsName(GeoJsonCrs crs) {
    switch (crs) {
    case GeoJsonCrs::Auto: return "auto";
    case GeoJsonCrs::Pixel: return "pixel";
    case GeoJsonCrs::Image: return "image";
    case GeoJsonCrs::Wgs84: return "wgs84";
    }
    return "auto";
}

GeoJsonCrs resolveGeoJsonCrs(GeoJsonCrs crs, const RegionDocument& document) {
    if (crs == GeoJsonCrs::Auto) return document.georef ? GeoJsonCrs::Image : GeoJsonCrs::Pixel;
    if (crs != GeoJsonCrs::Pixel && !document.georef)
        throw UsageError(std::string("GeoJSON in ") + (crs == GeoJsonCrs::Image ? "the image's CRS" : "WGS 84") +
                         " needs a georeferenced image (a GeoTIFF, or a world file beside the image)");
    if (crs == GeoJsonCrs::Wgs84 && !document.georef->hasLonLat())
        throw UsageError("GeoJSON in WGS 84 needs the image's CRS" +
                         std::string(document.georef->hasCrs() ? " to be one that converts to WGS 84"
                                                               : " (a world file needs a .prj beside it)"));
    return crs;
}

RegionFormat regionFormatForPath(const std::string& path) {
    const auto slash = path.find_last_of('/');
    const std::string name = lower(slash == std::string::npos ? path : path.substr(slash + 1));
    auto endsWith = [&](const std::string& ext) {
        return name.size() > ext.size() && name.compare(name.size() - ext.size(), ext.size(), ext) == 0;
    };
    if (endsWith(".reg")) return RegionFormat::Ds9;
    if (endsWith(".geojson") || endsWith(".json")) return RegionFormat::GeoJson;
    if (endsWith(".csv")) return RegionFormat::Csv;
    throw UsageError("region file '" + path + "' must end in .reg (DS9), .geojson (QuPath) or .csv");
}

std::string regionFileText(const RegionDocument& document, RegionFormat format, const RegionWriteOptions& options) {
    switch (format) {
    case RegionFormat::Ds9: {
        Ds9System system = options.ds9System;
        if (system == Ds9System::Auto) system = document.pixelToSky ? Ds9System::Fk5 : Ds9System::Image;
        if (system == Ds9System::Fk5 && !document.pixelToSky)
            throw UsageError("fk5 region files need an image with a celestial WCS");
        return ds9RegionText(document, system == Ds9System::Fk5);
    }
    case RegionFormat::GeoJson: return geoJsonRegionText(document, resolveGeoJsonCrs(options.geoJsonCrs, document));
    case RegionFormat::Csv: return regionCsvText(document);
    }
    return {};
}

void writeRegionFile(const std::string& path, const RegionDocument& document, const RegionWriteOptions& options) {
    writeFileAtomically(path, regionFileText(document, regionFormatForPath(path), options));
}

} // namespace glint
