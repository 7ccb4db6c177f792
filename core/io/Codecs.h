// The raster codecs (OpenCV's imgcodecs: PNG, TIFF, JPEG, BMP, PNM) and GDAL (georeferencing, a raster's
// own tags) live in a plugin, glint_codecs.so (codecs/), that is opened with dlopen the first time a
// program reads or writes a raster. A run on FITS, DICOM or CSV never loads them, so glint-cli starts in
// half the time (no relocations of libgdal and its ~70 dependencies).
//
// The plugin is looked for, in order: the file named by GLINT_CODECS_PLUGIN (only there, when set); beside
// the program's folder where an install puts it (bin/../lib/glint/; the build tree has the same layout:
// build/app/glint-cli finds build/lib/glint/); the program's own folder; the build tree it was built in.
// A build without codecs (GLINT_WITH_IMGCODECS=OFF) has no plugin.
//
// This header is the whole interface between core and the plugin: plain data and OpenCV's cv::Mat (both
// sides share libopencv_core). The plugin does no policy (size checks, printable text, messages): it
// decodes, encodes and reads what GDAL reads, and returns raw results; core checks and formats them.
// Nothing thrown crosses the boundary: each call reports failure in its result.
#pragma once

#include <opencv2/core.hpp>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace glint {

// Map coordinates of one CRS -> WGS 84 longitude/latitude (GIS order), as OGR transforms them.
// Thread-safe.
class CrsTransform {
public:
    virtual ~CrsTransform() = default;
    // x, y in the CRS's units in, longitude, latitude out; false where the transformation fails.
    virtual bool toWgs84(double& x, double& y) const = 0;
};

// A geotransform and a CRS as GDAL/OGR read them (text as the library gives it, not yet made printable).
struct CodecGeoref {
    std::array<double, 6> geoTransform{};
    std::array<double, 6> inverse{};   // GDALInvGeoTransform's
    std::string crsWkt;                // WKT 2 (2019), one line; "" without CRS
    std::string crsName;
    std::optional<int> epsg;
    bool geographic = false;
    std::string unitName;
    // The CRS's ellipsoid (metres, 1/f; 0 for a sphere), for lengths on the ellipsoid; 0, 0 without a CRS.
    double semiMajor = 0.0;
    double inverseFlattening = 0.0;
    std::unique_ptr<const CrsTransform> toWgs84; // null without CRS or where OGR has no transformation
};

// One metadata item of a raster as GDAL reads it.
struct CodecTag {
    std::string key;
    std::string value;
    std::string domain; // "" for the default domain, else e.g. "IMAGE_STRUCTURE"
};

// What GDAL reads of a raster file in one opening (see readRasterGeoInfo in core/io/Georef.h).
struct CodecRasterGeo {
    std::vector<CodecTag> tags;        // at most kMaxTags
    std::optional<CodecGeoref> georef; // when the file or a world file beside it has a usable geotransform
    std::string driver;                // GDAL's short name of the driver ("GTiff", "PNG")
    std::string worldFile;             // the world file the geotransform came from (name only), or ""
    std::string prjFile;               // the .prj the CRS came from (name only), or ""

    static constexpr std::size_t kMaxTags = 200;
};

// A layer of line strings with attributes for OGR to write (core/export/TraceNetwork.h).
struct CodecVectorField {
    enum class Type { Integer, Real, String };
    std::string name;
    Type type = Type::Real;
};
// One attribute value: null, or the member of the field's type.
struct CodecVectorValue {
    bool null = true;
    long long integer = 0;
    double real = 0.0;
    std::string text;
};
struct CodecVectorFeature {
    std::vector<std::array<double, 2>> line; // x, y in the layer's CRS (GIS order)
    std::vector<CodecVectorValue> values;    // one per field
};
struct CodecVectorLayer {
    std::string driver;   // OGR's short name: "GPKG", "ESRI Shapefile", "GeoJSON"
    std::string fileName; // the main file's name, no folder ("roads.shp"); sidecars take its stem
    std::string layerName;
    std::string crs;      // any form OGR reads (WKT 2); "" for none
    std::vector<CodecVectorField> fields;
    std::vector<CodecVectorFeature> features;
};
// The files OGR wrote (in memory, never on disk): name (the main file's and its sidecars': .shx, .dbf,
// .prj, .cpg) and bytes; or why it could not (GDAL's last message).
struct CodecVectorFiles {
    std::vector<std::pair<std::string, std::vector<std::uint8_t>>> files;
    std::string error;
};

class Codecs {
public:
    virtual ~Codecs() = default;

    // cv::imread(path, IMREAD_UNCHANGED), with OpenCV's limits as the environment sets them. Empty when
    // the file cannot be decoded.
    virtual cv::Mat read(const std::string& path) const = 0;
    // PNG of an 8- or 16-bit image of 1, 3 (BGR) or 4 (BGRA) channels; compression 0-9, or -1 for
    // OpenCV's default. Empty when encoding failed.
    virtual std::vector<std::uint8_t> encodePng(const cv::Mat& image, int compression = -1) const = 0;
    // Baseline JPEG of an 8-bit image, quality 0-100. Empty when encoding failed.
    virtual std::vector<std::uint8_t> encodeJpeg(const cv::Mat& image, int quality) const = 0;
    // What libjpeg finds wrong with a JPEG's entropy-coded data, read through every scan (coefficients only,
    // no inverse DCT): the text of its first warning that data is missing ("Corrupt JPEG data: premature
    // end of data segment", "Premature end of JPEG file", a lost restart marker) or of its error; "" for a
    // whole file. libjpeg fills what is missing with grey and calls it a warning, so a cut file, even one
    // given a fake end-of-image marker, would otherwise decode.
    virtual std::string jpegDamage(const std::string& path) const = 0;
    // Any encoded picture decoded to 8-bit grey (cv::imdecode, IMREAD_GRAYSCALE). Empty when it cannot.
    virtual cv::Mat decodeGrey(const std::vector<std::uint8_t>& bytes) const = 0;

    // GDAL's georeferencing of a geotransform and a CRS in any form OGR reads (never a file or a URL);
    // an empty or unreadable crs gives one without CRS. Nothing for a non-finite or singular geotransform.
    virtual std::optional<CodecGeoref> georef(const std::array<double, 6>& geoTransform, const std::string& crs) const = 0;
    // The tags and georeferencing of a PNG/TIFF/JPEG/BMP/PNM file (world files and a .prj beside it: only
    // small regular files). Empty when GDAL cannot read it.
    virtual CodecRasterGeo readRasterGeo(const std::string& path) const = 0;
    // The layer written by OGR's driver into memory (/vsimem/); the caller writes the files where they go.
    virtual CodecVectorFiles writeVectorLines(const CodecVectorLayer& layer) const = 0;
};

// The plugin's one entry point (C linkage; the number is the version of this interface: change it with
// any change to this header). Returns the plugin's one instance, which lives as long as the process.
#define GLINT_CODECS_FACTORY glint_codecs_factory_v3
#define GLINT_CODECS_FACTORY_NAME "glint_codecs_factory_v3"
using CodecsFactory = const Codecs* (*)();

// The codecs, loaded on first use (thread-safe; the plugin is never unloaded). Null without them: in a
// build without codecs, or when the plugin is missing or fails to load; codecsError() then says why.
const Codecs* codecs();
// Why codecs() is null, in one printable line ("cannot load the codecs plugin '…': …"); "" when loaded.
std::string codecsError();

} // namespace glint
