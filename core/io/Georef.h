// Georeferencing of raster images (GeoTIFF tags, world files, a .prj beside the image) through GDAL:
// pixel -> map coordinates in the image's CRS, and -> WGS 84 longitude/latitude through OGR. Pixels are
// still decoded by OpenCV; only the georeferencing comes from GDAL. GDAL is in the codecs plugin
// (core/io/Codecs.h), loaded on first use; without it (the lean headless build, GLINT_WITH_IMGCODECS=OFF,
// where georefAvailable() is false, or a plugin that did not load) no image is georeferenced.
//
// Pixel convention. Glint's pixel (x, y) has its centre at the integers x, y and covers
// [x-0.5, x+0.5] x [y-0.5, y+0.5] (ViewTransform, Wcs). GDAL's geotransform GT maps its pixel/line
// coordinates (P, L), in which the first pixel's outer corner is (0, 0) and its centre (0.5, 0.5), as
//   X = GT[0] + P*GT[1] + L*GT[2],   Y = GT[3] + P*GT[4] + L*GT[5]
// (GeoTIFF "PixelIsPoint" files are shifted by GDAL so that GT always means this). So P = x + 0.5 and
// L = y + 0.5: the centre of Glint's pixel (x, y) is at GT[0] + (x+0.5)GT[1] + (y+0.5)GT[2], ... .
#pragma once

#include "core/io/Image.h"

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace glint {

class CrsTransform; // core/io/Codecs.h

// A position in the image's CRS, in its units (easting/northing in metres, or degrees for a geographic
// CRS), axis order as the geotransform gives it (x = easting or longitude).
struct MapPoint {
    double x = 0.0;
    double y = 0.0;
};

// WGS 84 (EPSG:4326) in GIS order: longitude first. Degrees.
struct LonLat {
    double lon = 0.0;
    double lat = 0.0;
};

// Whether this build reads georeferencing (GDAL comes with the raster codecs, in their plugin).
bool georefAvailable();

class Georef {
public:
    // The georeferencing of a PNG/TIFF/JPEG/BMP/PNM file: the GeoTIFF's own tags first, else a world file
    // beside it (.tfw .tifw .pgw .pngw .jgw .jpgw .jpegw .bpw .wld, as GDAL looks for them), with the CRS
    // of a .prj beside it when the file itself names none. Null when the file has no geotransform, when it
    // is unusable (not finite, singular), or without GDAL (no codecs plugin). Never throws and never
    // prints: GDAL's messages are caught; side files must be regular files of sane size (a FIFO named
    // a.pgw is ignored).
    static std::shared_ptr<const Georef> fromFile(const std::string& path);

    // From a GDAL geotransform and a CRS as OGR reads it ("EPSG:32633", WKT 1 or 2, ESRI WKT, PROJ
    // string; never a file or URL). An empty or unreadable crs gives a georef without CRS (map
    // coordinates, no longitude/latitude). Null for a non-finite or singular geotransform or without GDAL.
    static std::shared_ptr<const Georef> create(const std::array<double, 6>& geoTransform, const std::string& crs,
                                                std::string source = "geotransform");

    ~Georef();
    Georef(const Georef&) = delete;
    Georef& operator=(const Georef&) = delete;

    // The six numbers as GDAL gives them (corner convention above).
    const std::array<double, 6>& geoTransform() const { return gt_; }
    // Where it came from: "GeoTIFF", "world file a.pgw", "world file a.pgw, CRS from a.prj".
    const std::string& source() const { return source_; }

    bool hasCrs() const { return !wkt_.empty(); }
    const std::string& crsWkt() const { return wkt_; }        // WKT 2 (2019), one line; "" without CRS
    const std::string& crsName() const { return crsName_; }   // "WGS 84 / UTM zone 33N"
    std::optional<int> epsg() const { return epsg_; }         // when the CRS is (identified as) an EPSG one
    // "EPSG:32633" when there is an EPSG code, else the WKT; "" without CRS.
    std::string crsId() const;
    bool isGeographic() const { return geographic_; }         // map units are degrees
    const std::string& unitName() const { return unit_; }     // "metre", "degree", "US survey foot", ""
    // The CRS's ellipsoid: semi-major axis in metres and inverse flattening (0 for a sphere); 0, 0 when
    // unknown (no CRS).
    double semiMajor() const { return semiMajor_; }
    double inverseFlattening() const { return inverseFlattening_; }
    // Short unit for readouts: "m", "°", "ft", or the unit name.
    std::string unitSymbol() const;

    // Glint pixel (centres at integers) -> map coordinates.
    MapPoint pixelToMap(double x, double y) const;
    // GDAL pixel/line (corner of the first pixel at 0, 0; = Glint x + 0.5, y + 0.5) -> map coordinates.
    MapPoint pixelLineToMap(double pixel, double line) const;
    // Map -> Glint pixel.
    std::pair<double, double> mapToPixel(MapPoint map) const;
    // To WGS 84; nothing without a CRS or where the transformation fails (outside the projection's
    // domain). Thread-safe.
    std::optional<LonLat> mapToLonLat(MapPoint map) const;
    std::optional<LonLat> pixelToLonLat(double x, double y) const { return mapToLonLat(pixelToMap(x, y)); }
    bool hasLonLat() const { return transform_ != nullptr; }

    // Cards for the header view: GEOREF (source), CRS (name), EPSG, GEOTRANSFORM, PIXEL_SIZE, UNITS,
    // CRS_WKT.
    std::vector<HeaderCard> headerCards() const;

private:
    friend class GeorefBuilder;
    Georef() = default;
    std::array<double, 6> gt_{};
    std::array<double, 6> inverse_{};
    std::string source_;
    std::string wkt_;
    std::string crsName_;
    std::optional<int> epsg_;
    bool geographic_ = false;
    std::string unit_;
    double semiMajor_ = 0.0;
    double inverseFlattening_ = 0.0;
    std::unique_ptr<const CrsTransform> transform_; // the plugin's OGR transformation to WGS 84
};

// What GDAL reads of a raster file in one opening: its georeferencing (as Georef::fromFile) and its own
// metadata as header cards (TIFF tags such as TIFFTAG_SOFTWARE, AREA_OR_POINT, PNG text chunks; capped in
// number and length, made printable). Empty without GDAL or when GDAL cannot read the file. Never throws.
struct RasterGeoInfo {
    std::shared_ptr<const Georef> georef;
    std::vector<HeaderCard> metadata;
};
RasterGeoInfo readRasterGeoInfo(const std::string& path);

// The 6 numbers "a, b, c, d, e, f" with up to 17 significant digits, for cards and messages.
std::string geoTransformText(const std::array<double, 6>& gt);

} // namespace glint
