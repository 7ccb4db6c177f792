// glint_codecs.so: the plugin behind core/io/Codecs.h. OpenCV's imgcodecs decodes and encodes the
// pixels; GDAL reads georeferencing and tags. Everything a caller sees is checked and formatted by core;
// nothing thrown leaves this file.
#include "core/io/Codecs.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>

#include <csetjmp>
#include <cstdio>

#include <sys/stat.h>

#include <jpeglib.h>
#include <jerror.h>

#include <opencv2/imgcodecs.hpp>

#include <cpl_conv.h>
#include <cpl_error.h>
#include <cpl_string.h>
#include <gdal.h>
#include <gdal_frmts.h>
#include <ogr_api.h>
#include <ogr_spatialref.h>
#include <ogrsf_frmts.h>

#include <atomic>

namespace glint {

namespace {

// ---------------------------------------------------------------------------------------------- GDAL

constexpr std::size_t kMaxSideFileBytes = 1 << 16; // a world file is 6 lines, a .prj one WKT

std::string lowerAscii(std::string s) {
    for (char& c : s)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return s;
}

std::string upperAscii(std::string s) {
    for (char& c : s)
        if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    return s;
}

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

class OgrToWgs84 final : public CrsTransform {
public:
    explicit OgrToWgs84(OGRCoordinateTransformation* ct) : ct_(ct) {}
    bool toWgs84(double& x, double& y) const override {
        QuietGdal quiet;
        std::lock_guard lock(mutex_); // an OGRCoordinateTransformation is not to be used by two threads at once
        return ct_->Transform(1, &x, &y) != 0;
    }

private:
    std::unique_ptr<OGRCoordinateTransformation> ct_;
    mutable std::mutex mutex_;
};

// Must run inside a QuietGdal.
std::optional<CodecGeoref> buildGeoref(const std::array<double, 6>& gt, const OGRSpatialReference* crs) {
    CodecGeoref g;
    if (!invertible(gt, g.inverse)) return std::nullopt;
    g.geoTransform = gt;
    if (crs && !crs->IsEmpty()) {
        OGRSpatialReference src(*crs);
        src.SetAxisMappingStrategy(OAMS_TRADITIONAL_GIS_ORDER);
        char* wkt = nullptr;
        const char* const wktOptions[] = {"FORMAT=WKT2_2019", "MULTILINE=NO", nullptr};
        if (src.exportToWkt(&wkt, wktOptions) == OGRERR_NONE && wkt && *wkt) {
            g.crsWkt = wkt;
            const char* name = src.GetName();
            g.crsName = name ? name : "";
            g.epsg = epsgOf(src);
            g.geographic = src.IsGeographic() != 0;
            const char* unit = nullptr;
            if (g.geographic) src.GetAngularUnits(&unit);
            else src.GetLinearUnits(&unit);
            g.unitName = unit ? unit : "";
            OGRErr err = OGRERR_NONE;
            const double a = src.GetSemiMajor(&err);
            if (err == OGRERR_NONE && std::isfinite(a) && a > 0) {
                g.semiMajor = a;
                const double invF = src.GetInvFlattening(&err);
                g.inverseFlattening = err == OGRERR_NONE && std::isfinite(invF) && invF > 0 ? invF : 0.0;
            }
            OGRSpatialReference wgs84;
            wgs84.SetWellKnownGeogCS("WGS84");
            wgs84.SetAxisMappingStrategy(OAMS_TRADITIONAL_GIS_ORDER);
            if (OGRCoordinateTransformation* ct = OGRCreateCoordinateTransformation(&src, &wgs84))
                g.toWgs84 = std::make_unique<OgrToWgs84>(ct);
        }
        CPLFree(wkt);
    }
    return g;
}

// ---------------------------------------------------------------------------------------------- OGR

void registerVectorDrivers() {
    static std::once_flag once;
    std::call_once(once, [] {
        RegisterOGRGeoPackage();
        RegisterOGRShape();
        RegisterOGRGeoJSON();
    });
}

std::string lastGdalError(const char* fallback) {
    const char* m = CPLGetLastErrorMsg();
    return m && *m ? std::string(m) : std::string(fallback);
}

// Writes the layer under `folder` (in /vsimem/); "" or why not. Must run inside a QuietGdal.
std::string writeLayer(const CodecVectorLayer& layer, const std::string& folder) {
    GDALDriverH driver = GDALGetDriverByName(layer.driver.c_str());
    if (!driver) return "GDAL has no driver " + layer.driver;
    const std::string path = folder + "/" + layer.fileName;
    GDALDatasetH ds = GDALCreate(driver, path.c_str(), 0, 0, 0, GDT_Unknown, nullptr);
    if (!ds) return lastGdalError("the driver cannot create the file");
    std::unique_ptr<OGRSpatialReference> srs;
    if (!layer.crs.empty()) {
        srs = parseCrs(layer.crs);
        if (!srs) {
            GDALClose(ds);
            return "OGR cannot read the CRS";
        }
        srs->SetAxisMappingStrategy(OAMS_TRADITIONAL_GIS_ORDER);
    }
    std::vector<const char*> options;
    if (layer.driver == "GeoJSON") options.push_back("WRITE_NAME=NO");
    if (layer.driver == "ESRI Shapefile") options.push_back("ENCODING=UTF-8");
    options.push_back(nullptr);
    OGRLayerH l = GDALDatasetCreateLayer(ds, layer.layerName.c_str(), OGRSpatialReference::ToHandle(srs.get()),
                                         wkbLineString, const_cast<char**>(options.data()));
    std::string error;
    if (!l) error = lastGdalError("the driver cannot create the layer");
    for (std::size_t i = 0; error.empty() && i < layer.fields.size(); ++i) {
        const CodecVectorField& f = layer.fields[i];
        const OGRFieldType type = f.type == CodecVectorField::Type::Integer ? OFTInteger64
                                  : f.type == CodecVectorField::Type::Real  ? OFTReal
                                                                            : OFTString;
        OGRFieldDefnH defn = OGR_Fld_Create(f.name.c_str(), type);
        if (OGR_L_CreateField(l, defn, TRUE) != OGRERR_NONE) error = lastGdalError("the driver cannot add a field");
        OGR_Fld_Destroy(defn);
    }
    if (error.empty() && OGR_L_StartTransaction(l) != OGRERR_NONE) error = lastGdalError("cannot start a transaction");
    for (const CodecVectorFeature& feature : layer.features) {
        if (!error.empty()) break;
        OGRFeatureH f = OGR_F_Create(OGR_L_GetLayerDefn(l));
        OGRGeometryH line = OGR_G_CreateGeometry(wkbLineString);
        for (const auto& p : feature.line) OGR_G_AddPoint_2D(line, p[0], p[1]);
        OGR_F_SetGeometryDirectly(f, line);
        for (std::size_t i = 0; i < layer.fields.size() && i < feature.values.size(); ++i) {
            const CodecVectorValue& v = feature.values[i];
            const int index = static_cast<int>(i);
            if (v.null) OGR_F_SetFieldNull(f, index);
            else if (layer.fields[i].type == CodecVectorField::Type::Integer) OGR_F_SetFieldInteger64(f, index, v.integer);
            else if (layer.fields[i].type == CodecVectorField::Type::Real) OGR_F_SetFieldDouble(f, index, v.real);
            else OGR_F_SetFieldString(f, index, v.text.c_str());
        }
        if (OGR_L_CreateFeature(l, f) != OGRERR_NONE) error = lastGdalError("the driver cannot write a feature");
        OGR_F_Destroy(f);
    }
    if (error.empty() && OGR_L_CommitTransaction(l) != OGRERR_NONE) error = lastGdalError("cannot commit");
    CPLErrorReset();
    GDALClose(ds);
    if (error.empty() && CPLGetLastErrorType() >= CE_Failure) error = lastGdalError("closing the file failed");
    return error;
}

// ---------------------------------------------------------------------------------------------- codecs

// libjpeg's error manager for jpegDamage: errors jump back, warnings that data is missing are kept.
struct JpegCheck {
    jpeg_error_mgr mgr{};
    std::jmp_buf jump{};
    char damage[JMSG_LENGTH_MAX] = {};
};

[[noreturn]] void jpegCheckError(j_common_ptr c) {
    auto* check = reinterpret_cast<JpegCheck*>(c->err);
    c->err->format_message(c, check->damage);
    std::longjmp(check->jump, 1);
}

void jpegCheckMessage(j_common_ptr c, int level) {
    if (level != -1) return; // trace messages
    auto* check = reinterpret_cast<JpegCheck*>(c->err);
    const int code = c->err->msg_code;
    if (check->damage[0] == '\0' && (code == JWRN_HIT_MARKER || code == JWRN_JPEG_EOF || code == JWRN_MUST_RESYNC))
        c->err->format_message(c, check->damage);
}

// No C++ object with a destructor lives in this frame across setjmp.
void readJpegCoefficients(std::FILE* file, JpegCheck& check) {
    jpeg_decompress_struct info{};
    info.err = jpeg_std_error(&check.mgr);
    check.mgr.error_exit = jpegCheckError;
    check.mgr.emit_message = jpegCheckMessage;
    if (setjmp(check.jump)) {
        jpeg_destroy_decompress(&info);
        return;
    }
    jpeg_create_decompress(&info);
    jpeg_stdio_src(&info, file);
    jpeg_read_header(&info, TRUE);
    jpeg_read_coefficients(&info); // every scan entropy-decoded
    // A progressive file that ends (with its end-of-image marker) between scans decodes without a warning,
    // at a lower precision: every coefficient of every component must have been coded to its last bit.
    if (info.progressive_mode && check.damage[0] == '\0' && info.coef_bits) {
        bool whole = true;
        for (int c = 0; c < info.num_components; ++c)
            for (int k = 0; k < DCTSIZE2; ++k) whole = whole && info.coef_bits[c][k] == 0;
        if (!whole) std::snprintf(check.damage, sizeof check.damage, "the progressive scans end before the image is complete");
    }
    jpeg_finish_decompress(&info);
    jpeg_destroy_decompress(&info);
}

class CodecsImpl final : public Codecs {
public:
    cv::Mat read(const std::string& path) const override {
        try {
            return cv::imread(path, cv::IMREAD_UNCHANGED);
        } catch (...) {
            return {};
        }
    }

    std::vector<std::uint8_t> encodePng(const cv::Mat& image, int compression) const override {
        std::vector<int> params;
        if (compression >= 0) params = {cv::IMWRITE_PNG_COMPRESSION, compression};
        return encode(".png", image, params);
    }

    std::vector<std::uint8_t> encodeJpeg(const cv::Mat& image, int quality) const override {
        return encode(".jpg", image, {cv::IMWRITE_JPEG_QUALITY, quality});
    }

    std::string jpegDamage(const std::string& path) const override {
        std::FILE* file = std::fopen(path.c_str(), "rb");
        if (!file) return "it cannot be opened";
        JpegCheck check;
        readJpegCoefficients(file, check);
        std::fclose(file);
        return check.damage;
    }

    cv::Mat decodeGrey(const std::vector<std::uint8_t>& bytes) const override {
        try {
            return cv::imdecode(bytes, cv::IMREAD_GRAYSCALE);
        } catch (...) {
            return {};
        }
    }

    std::optional<CodecGeoref> georef(const std::array<double, 6>& geoTransform, const std::string& crs) const override {
        try {
            registerDrivers();
            QuietGdal quiet;
            const auto srs = parseCrs(crs);
            return buildGeoref(geoTransform, srs.get());
        } catch (...) {
            return std::nullopt;
        }
    }

    CodecRasterGeo readRasterGeo(const std::string& path) const override {
        try {
            return rasterGeo(path);
        } catch (...) {
            return {};
        }
    }

    CodecVectorFiles writeVectorLines(const CodecVectorLayer& layer) const override {
        CodecVectorFiles out;
        static std::atomic<unsigned long> counter{0};
        const std::string folder = "/vsimem/glint-vector-" + std::to_string(counter++);
        try {
            registerVectorDrivers();
            QuietGdal quiet;
            VSIMkdir(folder.c_str(), 0755);
            out.error = writeLayer(layer, folder);
            if (out.error.empty()) {
                char** names = VSIReadDir(folder.c_str());
                for (int i = 0; names && names[i]; ++i) {
                    const std::string name = names[i];
                    if (name == "." || name == "..") continue;
                    vsi_l_offset size = 0;
                    GByte* data = VSIGetMemFileBuffer((folder + "/" + name).c_str(), &size, FALSE);
                    out.files.push_back({name, std::vector<std::uint8_t>(data, data + size)});
                }
                CSLDestroy(names);
                if (out.files.empty()) out.error = "the driver wrote no file";
            }
        } catch (const std::exception& e) {
            out.files.clear();
            out.error = e.what();
        } catch (...) {
            out.files.clear();
            out.error = "GDAL failed";
        }
        VSIRmdirRecursive(folder.c_str());
        return out;
    }

private:
    static std::vector<std::uint8_t> encode(const char* ext, const cv::Mat& image, const std::vector<int>& params) {
        std::vector<std::uint8_t> bytes;
        try {
            if (!cv::imencode(ext, image, bytes, params)) bytes.clear();
        } catch (...) {
            bytes.clear();
        }
        return bytes;
    }

    static CodecRasterGeo rasterGeo(const std::string& path) {
        CodecRasterGeo info;
        struct stat st {};
        if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return info;
        registerDrivers();
        QuietGdal quiet;
        const SideFiles side = sideFilesOf(path);
        // The list starts with the image's own name: GDAL takes an empty list for no list at all and would
        // then look in the folder itself (and open a FIFO named like a world file).
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
            for (int i = 0; items && items[i] && info.tags.size() < CodecRasterGeo::kMaxTags; ++i) {
                char* key = nullptr;
                const char* value = CPLParseNameValue(items[i], &key);
                if (key && value) info.tags.push_back({key, value, domain ? domain : ""});
                CPLFree(key);
            }
        }

        info.driver = GDALGetDriverShortName(GDALGetDatasetDriver(ds));
        std::array<double, 6> gt{};
        if (GDALGetGeoTransform(ds, gt.data()) == CE_None) {
            // Which file the geotransform came from: a world file GDAL read shows in its file list.
            if (char** files = GDALGetFileList(ds)) {
                for (int i = 0; files[i] && info.worldFile.empty(); ++i) {
                    const char* s = std::strrchr(files[i], '/');
                    const std::string name = s ? s + 1 : files[i];
                    if (std::find(side.names.begin(), side.names.end(), name) != side.names.end()) info.worldFile = name;
                }
                CSLDestroy(files);
            }
            const OGRSpatialReference* crs = OGRSpatialReference::FromHandle(GDALGetSpatialRef(ds));
            std::unique_ptr<OGRSpatialReference> fromPrj;
            if ((!crs || crs->IsEmpty()) && !side.prj.empty()) {
                fromPrj = parseCrs(readSmallFile(side.prj));
                if (fromPrj) {
                    crs = fromPrj.get();
                    info.prjFile = side.prj.substr(side.prj.find_last_of('/') + 1);
                }
            }
            info.georef = buildGeoref(gt, crs);
        }
        GDALClose(ds);
        return info;
    }
};

} // namespace

} // namespace glint

extern "C" __attribute__((visibility("default"))) const glint::Codecs* GLINT_CODECS_FACTORY() {
    static const glint::CodecsImpl instance;
    return &instance;
}
