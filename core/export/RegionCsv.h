// Regions as CSV: one row per brightest region, trace or component, with columns that never change
// order (new columns are only ever appended). Geometry is in Glint's pixel frame, as in the CLI JSON.
#pragma once

#include "core/export/ExportRegions.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace glint {

// kind, rank, label, x, y, width, height, center_x, center_y, ra, dec, pixels, sum, mean, score, length,
// dx, dy, tolerance, points ("x y;x y;..." for traces), distinct, then the measurements as the CLI's JSON
// names them: flux, snr, peak, centroid_x, centroid_y, mean_background, flags, legs, flux_auto, mag_auto, a,
// b, theta, fwhm, a trace's min_confidence (its weakest leg's) and a brightest region's pivot (the value), then
// a trace's text columns: mode, backend and leg_confidences (each leg's, ';' between legs). ra/dec: J2000 degrees of the measured position (a brightest region's flux-weighted
// centroid, a source's centroid) where there is one, else of the centre, when the image has a WCS. Numbers
// are written with all their digits (shortest round-trip). Empty where a column does not apply.
const std::vector<std::string>& regionCsvColumns();
// Appended after those when the document is georeferenced (GeoTIFF, world file): the centre's map
// coordinates in the image's CRS (map_x, map_y, in its units), WGS 84 lon, lat in degrees (empty
// without a CRS), and a trace's length on the map (map_length, map_length_unit: see mapLength).
const std::vector<std::string>& regionCsvGeorefColumns();
// The row under regionCsvColumns(), and with a georef the regionCsvGeorefColumns() after it.
std::vector<std::string> regionCsvRow(const ExportRegion& region, const PixelToSky& pixelToSky,
                                      const Georef* georef = nullptr);
std::string regionCsvText(const RegionDocument& document);

// The length of a polyline (pixel frame) on the map: in the CRS's linear unit for a projected CRS ("metre",
// "US survey foot"), in metres along geodesics on the CRS's ellipsoid for a geographic one (geodesicDistance), in "map unit" without a CRS.
// Nothing for fewer than two points.
struct MapLength {
    double value = 0.0;
    std::string unit;
};
std::optional<MapLength> mapLength(const std::vector<std::pair<double, double>>& points, const Georef& georef);

} // namespace glint
