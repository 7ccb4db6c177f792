// Regions as a GeoJSON FeatureCollection that QuPath imports (File > Import objects): pixel units, origin
// at the top-left corner of the image, pixel (x, y) spanning [x, x+1] x [y, y+1]; or, for a georeferenced
// image, that QGIS places on a map: the same corners in the image's CRS or in WGS 84; and a reader for it.
#pragma once

#include "core/export/ExportRegions.h"

#include <string>
#include <vector>

namespace glint {

// One Feature per region: brightest boxes and component outlines as Polygon (MultiPolygon when a mask
// has several parts; holes as inner rings), traces as LineString through the pixel centres (x + 0.5).
// properties: objectType "annotation", name (the label), classification {name, color [r, g, b]},
// measurements [{name, value}] (the form every QuPath version reads), and, with a WCS, the centre's
// RA/Dec J2000 as measurements too; with georeferencing, the centre's map x/y and WGS 84 lon/lat.
//
// crs Image / Wgs84 (the document must be georeferenced): every position (x, y) above goes through the
// image's geotransform (GDAL's pixel/line frame is this one: x = P, y = L), and for Wgs84 on to
// longitude, latitude. The collection says its CRS in the legacy "crs" member QGIS and GDAL read
// ({"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG::32633"}}, the WKT when the CRS has
// no EPSG code, "urn:ogc:def:crs:OGC:1.3:CRS84" for WGS 84) and each feature keeps its pixel geometry
// in properties.pixel_geometry, which the reader uses. Auto: resolveGeoJsonCrs().
std::string geoJsonRegionText(const RegionDocument& document, GeoJsonCrs crs = GeoJsonCrs::Auto);

// Reads a FeatureCollection written above (or by QuPath, for the geometry types above) back into
// regions (from properties.pixel_geometry where a feature has it). Throws InputError for invalid JSON, a
// missing FeatureCollection or unknown geometry.
std::vector<ExportRegion> regionsFromGeoJson(const std::string& text);

} // namespace glint
