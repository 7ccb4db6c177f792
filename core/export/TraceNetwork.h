// A network of traces as a GIS layer (issue 32): GeoPackage (.gpkg), Shapefile (.shp with its .shx, .dbf,
// .prj, .cpg) or GeoJSON (.geojson, .json), written by GDAL/OGR (the codecs plugin, core/io/Codecs.h).
//
// One LineString per trace (all its legs, the shared clicks once), in the image's map coordinates and CRS when
// the image is georeferenced, else in Glint's pixel frame (x right, y down, pixel centres at integers) with no
// CRS; the field "frame" says which ("map", "map, no CRS", "pixel"). Attributes:
//   id          the trace's number (as in the window's results and the CLI)
//   length      on the map: mapLength() — metres along geodesics for a geographic CRS, the CRS's unit for a
//               projected one; in pixels when not georeferenced
//   len_unit    "metre", "US survey foot", "map unit" or "pixel"
//   length_px   in pixels
//   width       mean width of the feature in the unit of length, when the trace measured one (else null);
//               converted with the trace's own map/pixel length ratio (square pixels)
//   width_px    the same in pixels (null when not measured)
//   confidence  the weakest leg's
//   legs        number of legs
//   frame       see above
// Every file goes through writeFileAtomically (a temporary beside it, renamed; in a CLI run staged in its
// OutputTransaction), so no half-written layer is left; a Shapefile's sidecars go the same way.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace glint {

class Georef;
struct TraceResult;

enum class NetworkFormat { GeoPackage, Shapefile, GeoJson };
// By extension (any case): .gpkg, .shp, .geojson/.json. UsageError naming them otherwise.
NetworkFormat networkFormatForPath(const std::string& path);
const char* networkFormatName(NetworkFormat format); // "GeoPackage", "Shapefile", "GeoJSON"

struct NetworkTrace {
    int id = 0;
    std::vector<std::pair<double, double>> points; // pixel frame, at least two
    double minConfidence = 1.0;
    int legs = 1;
    std::optional<double> meanWidthPx;
};
// A trace's line, weakest leg and leg count.
NetworkTrace networkTrace(const TraceResult& result, int id, std::optional<double> meanWidthPx = std::nullopt);

// The files of the layer as OGR writes them: name -> bytes (names take the stem of `path`'s file name).
// Throws OutputError when this build has no GDAL, or when OGR fails; UsageError for a bad extension;
// InputError for a trace with fewer than two points or a coordinate that is not finite.
std::vector<std::pair<std::string, std::string>> traceNetworkFiles(const std::string& path,
                                                                   const std::vector<NetworkTrace>& traces,
                                                                   const Georef* georef);
// Writes them beside `path` (the main file at `path`), each atomically. Throws as above.
void writeTraceNetwork(const std::string& path, const std::vector<NetworkTrace>& traces, const Georef* georef);

} // namespace glint
