// Regions as a GeoJSON FeatureCollection that QuPath imports (File > Import objects): pixel units, origin
// at the top-left corner of the image, pixel (x, y) spanning [x, x+1] x [y, y+1]; and a reader for it.
#pragma once

#include "core/export/ExportRegions.h"

#include <string>
#include <vector>

namespace glint {

// One Feature per region: brightest boxes and component outlines as Polygon (MultiPolygon when a mask
// has several parts; holes as inner rings), traces as LineString through the pixel centres (x + 0.5).
// properties: objectType "annotation", name (the label), classification {name, color [r, g, b]},
// measurements [{name, value}] (the form every QuPath version reads), and, with a WCS, the centre's
// RA/Dec J2000 as measurements too.
std::string geoJsonRegionText(const RegionDocument& document);

// Reads a FeatureCollection written above (or by QuPath, for the geometry types above) back into
// regions. Throws InputError for invalid JSON, a missing FeatureCollection or unknown geometry.
std::vector<ExportRegion> regionsFromGeoJson(const std::string& text);

} // namespace glint
