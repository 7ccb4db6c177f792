// Results as exportable regions (brightest rectangles, traces, component outlines) with their values,
// and the one call that writes them as DS9 .reg, GeoJSON (QuPath) or CSV, chosen by the file name.
#pragma once

#include "core/export/MaskOutline.h"
#include "core/io/Wcs.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace glint {

class Georef;
class Image;
struct BrightestResult;
struct CommonComponentResult;
struct TraceResult;

enum class RegionKind { Brightest, Trace, Common, Source };
const char* regionKindName(RegionKind kind);          // "brightest", "trace", "common", "source"
const char* regionKindTitle(RegionKind kind);         // "Brightest region", "Line trace", "Common component"
std::optional<RegionKind> parseRegionKind(const std::string& nameOrTitle);

// A named number; integers beyond 2^53 (exact brightest sums) keep their exact value.
struct RegionValue {
    std::string name;
    double value = 0.0;
    std::optional<std::int64_t> exact;
    std::string text() const; // the exact integer, or the shortest round-trip text of value
};

// A source's Kron ellipse: centre (pixel frame), semi-axes in px, angle in degrees counter-clockwise from +x.
struct RegionEllipse {
    double x = 0.0, y = 0.0, a = 0.0, b = 0.0, thetaDeg = 0.0;
};
// n points on the ellipse, counter-clockwise from its major axis.
std::vector<std::pair<double, double>> ellipsePoints(const RegionEllipse& e, int n = 36);

// One exported shape in Glint's pixel frame (x = column, y = row, pixel centres at integers).
struct ExportRegion {
    RegionKind kind = RegionKind::Brightest;
    int rank = 1;
    std::string label;           // shown by DS9 and QuPath: "#1 sum=12345"
    std::uint32_t colour = 0;    // 0xRRGGBB
    // Brightest: the rectangle; trace: the pixels its points fall in; common: the bounding box.
    int x = 0, y = 0, width = 0, height = 0;
    std::vector<std::pair<double, double>> points; // trace: the polyline through pixel centres
    std::vector<MaskPolygon> outline;              // common: the component's outline on pixel corners
    std::optional<RegionEllipse> ellipse;          // source: its Kron ellipse (points hold it as a polygon)
    std::vector<RegionValue> values;               // in display order
    // Text columns (name, text): a trace's score mode, backend and every leg's confidence (leg_confidences).
    std::vector<std::pair<std::string, std::string>> texts;

    const RegionValue* value(const std::string& name) const;
    const std::string* text(const std::string& name) const; // null when the region has no such text
    // Sets x, y, width, height to the pixels the outline covers, or that the trace points fall in.
    void updateBounds();
    // Where a readout or an RA/Dec column refers to: the box centre, or the trace's middle point.
    std::pair<double, double> centre() const;
};

// Pixel -> FK5 J2000 (degrees). Built from an image's Wcs, or given directly (tests).
using PixelToSky = std::function<std::optional<SkyCoord>(double x, double y)>;
PixelToSky pixelToSkyOf(std::shared_ptr<const Wcs> wcs); // empty function for a null wcs

// What an export file describes: the image and its regions.
struct RegionDocument {
    std::string imagePath;
    int imageWidth = 0;
    int imageHeight = 0;
    std::string description;  // one line: "brightest, pivot 120 (mean), k 3"
    PixelToSky pixelToSky;    // empty when the image has no WCS
    std::shared_ptr<const Georef> georef; // null when the image is not georeferenced (GeoTIFF, world file)
    std::vector<ExportRegion> regions;
};

// A document for the image (path, size, WCS, georeferencing); append results to it with the functions below.
RegionDocument regionDocumentFor(const Image& image);

std::vector<ExportRegion> regionsFromBrightest(const BrightestResult& result);
// One region for the whole chain of legs (a "trace" row), rank = traceIndex. Its texts: mode (the field's score,
// as the window's table shows it; left out when empty), backend (`backend`, or the result's when empty) and
// leg_confidences (each leg's confidence with all its digits, ';' between legs). `lineWidthPx`: the feature's
// width along the path (core/algo/trace/TraceWidth.h, the median), value line_width when known.
ExportRegion regionFromTrace(const TraceResult& result, int traceIndex = 1, const std::string& mode = {},
                             const std::string& backend = {}, std::optional<double> lineWidthPx = std::nullopt);
// No region when nothing was found. tolerance is recorded with the values.
std::vector<ExportRegion> regionsFromCommon(const CommonComponentResult& result, double tolerance);

enum class RegionFormat { Ds9, GeoJson, Csv };
// By extension (case-insensitive): .reg -> DS9, .geojson/.json -> GeoJSON, .csv -> CSV.
// Throws UsageError naming the supported extensions otherwise.
RegionFormat regionFormatForPath(const std::string& path);

// DS9 coordinates: image, fk5 (J2000, needs pixelToSky) or fk5 when the document has a WCS.
enum class Ds9System { Auto, Image, Fk5 };

// GeoJSON coordinates: pixels (QuPath's frame, see GeoJsonRegions.h), the image's map CRS, or WGS 84
// longitude/latitude (RFC 7946). Auto: the image's CRS when the image is georeferenced, pixels otherwise.
enum class GeoJsonCrs { Auto, Pixel, Image, Wgs84 };
// "auto", "pixel", "image", "wgs84" (as the CLI option --geojson-crs takes them).
std::optional<GeoJsonCrs> parseGeoJsonCrs(const std::string& name);
const char* geoJsonCrsName(GeoJsonCrs crs);
// Auto resolved for the document. Throws UsageError when Image or Wgs84 is asked of a document that is
// not georeferenced, or Wgs84 of one whose CRS is unknown (a world file without .prj).
GeoJsonCrs resolveGeoJsonCrs(GeoJsonCrs crs, const RegionDocument& document);

struct RegionWriteOptions {
    Ds9System ds9System = Ds9System::Auto;
    GeoJsonCrs geoJsonCrs = GeoJsonCrs::Auto;
};

// The file's text in the chosen format (no file written).
std::string regionFileText(const RegionDocument& document, RegionFormat format, const RegionWriteOptions& options = {});
// Writes atomically; throws UsageError (extension), OutputError (cannot write).
void writeRegionFile(const std::string& path, const RegionDocument& document, const RegionWriteOptions& options = {});

} // namespace glint
