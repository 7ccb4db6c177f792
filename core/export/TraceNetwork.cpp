#include "core/export/TraceNetwork.h"

#include "core/algo/trace/LineTrace.h"
#include "core/export/RegionCsv.h"
#include "core/io/Codecs.h"
#include "core/io/Georef.h"
#include "core/util/AtomicFile.h"
#include "core/util/Errors.h"
#include "core/util/Printable.h"

#include <algorithm>
#include <cmath>

#include <sys/stat.h>

namespace glint {

namespace {

std::string lowerExtension(const std::string& path) {
    const auto slash = path.find_last_of('/');
    const auto dot = path.find_last_of('.');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
    std::string ext = path.substr(dot);
    for (char& c : ext)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return ext;
}

CodecVectorValue real(double v) {
    CodecVectorValue out;
    out.null = !std::isfinite(v);
    out.real = v;
    return out;
}
CodecVectorValue optionalReal(std::optional<double> v) { return v ? real(*v) : CodecVectorValue{}; }
CodecVectorValue integer(long long v) {
    CodecVectorValue out;
    out.null = false;
    out.integer = v;
    return out;
}
CodecVectorValue text(std::string v) {
    CodecVectorValue out;
    out.null = false;
    out.text = std::move(v);
    return out;
}

double pixelLength(const std::vector<std::pair<double, double>>& p) {
    double length = 0.0;
    for (std::size_t i = 1; i < p.size(); ++i) length += std::hypot(p[i].first - p[i - 1].first, p[i].second - p[i - 1].second);
    return length;
}

} // namespace

NetworkFormat networkFormatForPath(const std::string& path) {
    const std::string ext = lowerExtension(path);
    if (ext == ".gpkg") return NetworkFormat::GeoPackage;
    if (ext == ".shp") return NetworkFormat::Shapefile;
    if (ext == ".geojson" || ext == ".json") return NetworkFormat::GeoJson;
    throw UsageError("'" + printableMessage(path, 200) +
                     "': a network is written as GeoPackage (.gpkg), Shapefile (.shp) or GeoJSON (.geojson, .json)");
}

const char* networkFormatName(NetworkFormat format) {
    switch (format) {
    case NetworkFormat::GeoPackage: return "GeoPackage";
    case NetworkFormat::Shapefile: return "Shapefile";
    case NetworkFormat::GeoJson: return "GeoJSON";
    }
    return "";
}

NetworkTrace networkTrace(const TraceResult& result, int id, std::optional<double> meanWidthPx) {
    NetworkTrace t;
    t.id = id;
    for (const TracePoint& p : result.polyline()) t.points.emplace_back(p.x, p.y);
    t.legs = static_cast<int>(result.legs.size());
    t.minConfidence = 1.0;
    for (const TraceLeg& leg : result.legs) t.minConfidence = std::min(t.minConfidence, leg.confidence);
    t.meanWidthPx = meanWidthPx;
    return t;
}

std::vector<std::pair<std::string, std::string>> traceNetworkFiles(const std::string& path,
                                                                   const std::vector<NetworkTrace>& traces,
                                                                   const Georef* georef) {
    const NetworkFormat format = networkFormatForPath(path);
    const Codecs* gdal = codecs();
    if (!gdal) throw OutputError("cannot write '" + printableMessage(path, 200) + "': this build of Glint has no GDAL (" +
                                 codecsError() + ")");
    const auto slash = path.find_last_of('/');
    const std::string fileName = slash == std::string::npos ? path : path.substr(slash + 1);
    struct stat st {};
    if (format == NetworkFormat::Shapefile && ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
        throw OutputError("cannot write '" + printableMessage(path, 200) +
                          "': a Shapefile is several files (.shp, .shx, .dbf, .prj) and is written to regular files only");
    const std::string stem = fileName.substr(0, fileName.find_last_of('.'));

    CodecVectorLayer layer;
    layer.driver = format == NetworkFormat::GeoPackage ? "GPKG" : format == NetworkFormat::Shapefile ? "ESRI Shapefile" : "GeoJSON";
    layer.fileName = fileName;
    layer.layerName = stem.empty() ? std::string("traces") : stem;
    layer.crs = georef && georef->hasCrs() ? georef->crsWkt() : std::string();
    using Type = CodecVectorField::Type;
    layer.fields = {{"id", Type::Integer},        {"length", Type::Real}, {"len_unit", Type::String},
                    {"length_px", Type::Real},    {"width", Type::Real},  {"width_px", Type::Real},
                    {"confidence", Type::Real},   {"legs", Type::Integer}, {"frame", Type::String}};
    const std::string frame = !georef ? "pixel" : georef->hasCrs() ? "map" : "map, no CRS";
    for (const NetworkTrace& t : traces) {
        if (t.points.size() < 2)
            throw InputError("trace " + std::to_string(t.id) + " has fewer than two points: it is no line");
        CodecVectorFeature feature;
        for (const auto& [x, y] : t.points) {
            if (!std::isfinite(x) || !std::isfinite(y))
                throw InputError("trace " + std::to_string(t.id) + " has a point that is not finite");
            if (georef) {
                const MapPoint m = georef->pixelToMap(x, y);
                feature.line.push_back({m.x, m.y});
            } else {
                feature.line.push_back({x, y});
            }
        }
        const double lengthPx = pixelLength(t.points);
        std::optional<MapLength> length;
        if (georef) length = mapLength(t.points, *georef);
        else length = MapLength{lengthPx, "pixel"};
        std::optional<double> width;
        if (t.meanWidthPx && length && lengthPx > 0.0) width = *t.meanWidthPx * length->value / lengthPx;
        feature.values = {integer(t.id),
                          length ? real(length->value) : CodecVectorValue{},
                          length ? text(length->unit) : CodecVectorValue{},
                          real(lengthPx),
                          optionalReal(width),
                          optionalReal(t.meanWidthPx),
                          real(t.minConfidence),
                          integer(t.legs),
                          text(frame)};
        layer.features.push_back(std::move(feature));
    }
    CodecVectorFiles written = gdal->writeVectorLines(layer);
    if (!written.error.empty())
        throw OutputError("cannot write '" + printableMessage(path, 200) + "': GDAL: " + printableMessage(written.error, 200));
    std::vector<std::pair<std::string, std::string>> files;
    for (auto& [name, bytes] : written.files) files.emplace_back(name, std::string(bytes.begin(), bytes.end()));
    // The main file last, so that its sidecars are in place when it appears.
    std::stable_partition(files.begin(), files.end(), [&](const auto& f) { return f.first != fileName; });
    return files;
}

void writeTraceNetwork(const std::string& path, const std::vector<NetworkTrace>& traces, const Georef* georef) {
    const auto files = traceNetworkFiles(path, traces, georef);
    const auto slash = path.find_last_of('/');
    const std::string folder = slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
    for (const auto& [name, bytes] : files) writeFileAtomically(folder + name, bytes);
}

} // namespace glint
