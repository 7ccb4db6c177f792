#include "core/io/Georef.h"

#include "core/util/Printable.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>

#include <sys/stat.h>

#if GLINT_WITH_GDAL
#include <cpl_conv.h>
#include <cpl_error.h>
#include <cpl_string.h>
#include <gdal.h>
#include <gdal_frmts.h>
#include <ogr_spatialref.h>
#endif

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

struct Georef::Transform {
#if GLINT_WITH_GDAL
    std::unique_ptr<OGRCoordinateTransformation> toWgs84;
#endif
    std::mutex mutex; // an OGRCoordinateTransformation is not to be used by two threads at once
};

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

#if !GLINT_WITH_GDAL

bool georefAvailable() { return false; }
std::shared_ptr<const Georef> Georef::fromFile(const std::string&) { return nullptr; }
std::shared_ptr<const Georef> Georef::create(const std::array<double, 6>&, const std::string&, std::string) { return nullptr; }
std::optional<LonLat> Georef::mapToLonLat(MapPoint) const { return std::nullopt; }
RasterGeoInfo readRasterGeoInfo(const std::string&) { return {}; }

#else

bool georefAvailable() { return true; }

namespace {

std::string upperAscii(std::string s) {
    for (char& c : s)
        if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    return s;
}

constexpr std::size_t kMaxSideFileBytes = 1 << 16;  // a world file is 6 lines, a .prj one WKT
constexpr std::size_t kMaxMetadataCards = 200;
constexpr std::size_t kMaxCardText = 1000;

// The drivers Glint lets GDAL use: those of the formats loadRaster() reads.
void registerDrivers() {
    static std::once_flag once;
    std::call_once(once, [] {
        GDALRegister_GTiff();
        GDALRegister_PNG();
        GDALRegister_JPEG();
        GDALRegister_BMP();
        GDALRegister_PNM();
    });
}

// While alive on this thread: GDAL/OGR/PROJ messages go nowhere (the caller reports its own), and PAM
// (.aux.xml side files, which GDAL may also write) is off.
class QuietGdal {
public:
    QuietGdal() {
        CPLPushErrorHandler(CPLQuietErrorHandler);
        if (const char* pam = CPLGetThreadLocalConfigOption("GDAL_PAM_ENABLED", nullptr)) savedPam_ = pam;
        CPLSetThreadLocalConfigOption("GDAL_PAM_ENABLED", "NO");
    }
    ~QuietGdal() {
        CPLSetThreadLocalConfigOption("GDAL_PAM_ENABLED", savedPam_ ? savedPam_->c_str() : nullptr);
        CPLErrorReset();
        CPLPopErrorHandler();
    }
    QuietGdal(const QuietGdal&) = delete;
    QuietGdal& operator=(const QuietGdal&) = delete;

private:
    std::optional<std::string> savedPam_;
};

bool isSmallRegularFile(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) <= kMaxSideFileBytes;
}

struct SideFiles {
    std::vector<std::string> names; // file names (no folder) GDAL may open: the world files that exist
    std::string prj;                // full path of a .prj beside the image, or ""
};

// The side files GDAL would look for (world files: first and last letter of the extension + "w", the
// extension + "w", "wld"; either case), kept only when they are small regular files. GDAL is given this
// list instead of reading the folder, so it opens nothing else (no FIFO, no .aux.xml, no .ovr).
SideFiles sideFilesOf(const std::string& path) {
    SideFiles out;
    const auto slash = path.find_last_of('/');
    const std::string folder = slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
    const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
    const auto dot = name.find_last_of('.');
    if (dot == std::string::npos || dot == 0 || dot + 1 >= name.size()) return out;
    const std::string stem = name.substr(0, dot), ext = lowerAscii(name.substr(dot + 1));
    std::vector<std::string> worldExts = {std::string{ext.front(), ext.back(), 'w'}, ext + "w", "wld"};
    for (const std::string& e : worldExts)
        for (const std::string& variant : {e, upperAscii(e)}) {
            const std::string candidate = stem + "." + variant;
            if (std::find(out.names.begin(), out.names.end(), candidate) == out.names.end() &&
                isSmallRegularFile(folder + candidate))
                out.names.push_back(candidate);
        }
    for (const char* e : {"prj", "PRJ"})
        if (out.prj.empty() && isSmallRegularFile(folder + stem + "." + e)) out.prj = folder + stem + "." + e;
    return out;
}

std::string readSmallFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::string text(kMaxSideFileBytes, '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0)));
    return text;
}

std::string trimmed(const std::string& s) {
    const auto b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos) return {};
    const auto e = s.find_last_not_of(" \t\r\n");
    return s.substr(b, e - b + 1);
}

// Reads a CRS in any form OGR knows, never from a file or the network. Null when it cannot.
std::unique_ptr<OGRSpatialReference> parseCrs(const std::string& text) {
    const std::string t = trimmed(text);
    if (t.empty() || t.find('\0') != std::string::npos) return nullptr;
    auto srs = std::make_unique<OGRSpatialReference>();
    const char* const options[] = {"ALLOW_NETWORK_ACCESS=NO", "ALLOW_FILE_ACCESS=NO", nullptr};
    if (srs->SetFromUserInput(t.c_str(), options) != OGRERR_NONE || srs->IsEmpty()) return nullptr;
    return srs;
}

bool invertible(const std::array<double, 6>& gt, std::array<double, 6>& inverse) {
    for (double v : gt)
        if (!std::isfinite(v)) return false;
    // GDALInvGeoTransform refuses a singular transform (a world file of zeros, a zero pixel size).
    if (!GDALInvGeoTransform(const_cast<double*>(gt.data()), inverse.data())) return false;
    for (double v : inverse)
        if (!std::isfinite(v)) return false;
    return true;
}

std::optional<int> epsgOf(const OGRSpatialReference& srs) {
    const char* authority = srs.GetAuthorityName(nullptr);
    const char* code = srs.GetAuthorityCode(nullptr);
    if (authority && code && EQUAL(authority, "EPSG")) {
        const int n = std::atoi(code);
        if (n > 0) return n;
    }
    // A CRS spelled out (ESRI WKT of a .prj, WKT without AUTHORITY): the EPSG CRS it is, when PROJ finds
    // one with full confidence.
    int count = 0;
    int* confidence = nullptr;
    OGRSpatialReferenceH* matches = srs.FindMatches(nullptr, &count, &confidence);
    std::optional<int> out;
    for (int i = 0; i < count && !out; ++i) {
        const auto* m = OGRSpatialReference::FromHandle(matches[i]);
        const char* a = m->GetAuthorityName(nullptr);
        const char* c = m->GetAuthorityCode(nullptr);
        if (confidence[i] == 100 && a && c && EQUAL(a, "EPSG") && std::atoi(c) > 0) out = std::atoi(c);
    }
    OSRFreeSRSArray(matches);
    CPLFree(confidence);
    return out;
}

} // namespace

// Fills a new Georef (a friend of it). Must run inside a QuietGdal.
class GeorefBuilder {
public:
    static std::shared_ptr<const Georef> build(const std::array<double, 6>& gt, const OGRSpatialReference* crs,
                                               std::string source) {
        std::array<double, 6> inverse{};
        if (!invertible(gt, inverse)) return nullptr;
        std::shared_ptr<Georef> g(new Georef());
        g->gt_ = gt;
        g->inverse_ = inverse;
        g->source_ = std::move(source);
        if (crs && !crs->IsEmpty()) {
            OGRSpatialReference src(*crs);
            src.SetAxisMappingStrategy(OAMS_TRADITIONAL_GIS_ORDER);
            char* wkt = nullptr;
            const char* const wktOptions[] = {"FORMAT=WKT2_2019", "MULTILINE=NO", nullptr};
            if (src.exportToWkt(&wkt, wktOptions) == OGRERR_NONE && wkt && *wkt) {
                g->wkt_ = wkt;
                const char* name = src.GetName();
                g->crsName_ = name ? printableMessage(name, 200) : std::string();
                g->epsg_ = epsgOf(src);
                g->geographic_ = src.IsGeographic() != 0;
                const char* unit = nullptr;
                if (g->geographic_) src.GetAngularUnits(&unit);
                else src.GetLinearUnits(&unit);
                g->unit_ = unit ? printableMessage(unit, 80) : std::string();
                OGRSpatialReference wgs84;
                wgs84.SetWellKnownGeogCS("WGS84");
                wgs84.SetAxisMappingStrategy(OAMS_TRADITIONAL_GIS_ORDER);
                if (OGRCoordinateTransformation* ct = OGRCreateCoordinateTransformation(&src, &wgs84)) {
                    g->transform_ = std::make_unique<Georef::Transform>();
                    g->transform_->toWgs84.reset(ct);
                }
            }
            CPLFree(wkt);
        }
        return g;
    }
};

std::shared_ptr<const Georef> Georef::create(const std::array<double, 6>& geoTransform, const std::string& crs,
                                             std::string source) {
    registerDrivers();
    QuietGdal quiet;
    const auto srs = parseCrs(crs);
    return GeorefBuilder::build(geoTransform, srs.get(), std::move(source));
}

std::optional<LonLat> Georef::mapToLonLat(MapPoint map) const {
    if (!transform_) return std::nullopt;
    double x = map.x, y = map.y;
    int ok = 0;
    {
        QuietGdal quiet;
        std::lock_guard lock(transform_->mutex);
        ok = transform_->toWgs84->Transform(1, &x, &y);
    }
    if (!ok || !std::isfinite(x) || !std::isfinite(y) || std::fabs(y) > 90.0) return std::nullopt;
    return LonLat{x, y};
}

std::shared_ptr<const Georef> Georef::fromFile(const std::string& path) { return readRasterGeoInfo(path).georef; }

RasterGeoInfo readRasterGeoInfo(const std::string& path) {
    RasterGeoInfo info;
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return info;
    registerDrivers();
    QuietGdal quiet;
    const SideFiles side = sideFilesOf(path);
    // The list starts with the image's own name: GDAL takes an empty list for no list at all and would then
    // look in the folder itself (and open a FIFO named like a world file).
    const auto slash = path.find_last_of('/');
    const std::string ownName = slash == std::string::npos ? path : path.substr(slash + 1);
    std::vector<const char*> siblings = {ownName.c_str()};
    for (const auto& n : side.names) siblings.push_back(n.c_str());
    siblings.push_back(nullptr);
    const char* const drivers[] = {"GTiff", "PNG", "JPEG", "BMP", "PNM", nullptr};
    GDALDatasetH ds = GDALOpenEx(path.c_str(), GDAL_OF_RASTER | GDAL_OF_READONLY, drivers, nullptr, siblings.data());
    if (!ds) return info;

    for (const char* domain : {static_cast<const char*>(nullptr), "IMAGE_STRUCTURE"}) {
        char** items = GDALGetMetadata(ds, domain);
        for (int i = 0; items && items[i] && info.metadata.size() < kMaxMetadataCards; ++i) {
            char* key = nullptr;
            const char* value = CPLParseNameValue(items[i], &key);
            if (key && value)
                info.metadata.push_back({printableMessage(key, 80), printableMessage(value, kMaxCardText),
                                         domain ? std::string("GDAL ") + domain : std::string("GDAL metadata")});
            CPLFree(key);
        }
    }

    std::array<double, 6> gt{};
    if (GDALGetGeoTransform(ds, gt.data()) == CE_None) {
        // Which file the geotransform came from: a world file GDAL read shows in its file list.
        std::string worldFile;
        if (char** files = GDALGetFileList(ds)) {
            for (int i = 0; files[i] && worldFile.empty(); ++i) {
                const char* slash = std::strrchr(files[i], '/');
                const std::string name = slash ? slash + 1 : files[i];
                if (std::find(side.names.begin(), side.names.end(), name) != side.names.end()) worldFile = name;
            }
            CSLDestroy(files);
        }
        std::string source = worldFile.empty() ? std::string(GDALGetDriverShortName(GDALGetDatasetDriver(ds)))
                                                : "world file " + printableMessage(worldFile, 200);
        if (source == "GTiff") source = "GeoTIFF";
        const OGRSpatialReference* crs = OGRSpatialReference::FromHandle(GDALGetSpatialRef(ds));
        std::unique_ptr<OGRSpatialReference> fromPrj;
        if ((!crs || crs->IsEmpty()) && !side.prj.empty()) {
            fromPrj = parseCrs(readSmallFile(side.prj));
            if (fromPrj) {
                crs = fromPrj.get();
                source += ", CRS from " + printableMessage(side.prj.substr(side.prj.find_last_of('/') + 1), 200);
            }
        }
        info.georef = GeorefBuilder::build(gt, crs, std::move(source));
    }
    GDALClose(ds);
    return info;
}

#endif

} // namespace glint
