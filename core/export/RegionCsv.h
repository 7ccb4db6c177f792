// Regions as CSV: one row per brightest region, trace or component, with columns that never change
// order (new columns are only ever appended). Geometry is in Glint's pixel frame, as in the CLI JSON.
#pragma once

#include "core/export/ExportRegions.h"

#include <string>
#include <vector>

namespace glint {

// kind, rank, label, x, y, width, height, center_x, center_y, ra, dec, pixels, sum, mean, score, length,
// dx, dy, tolerance, points ("x y;x y;..." for traces). ra/dec: J2000 degrees of the centre, when the
// image has a WCS. Empty where a column does not apply.
const std::vector<std::string>& regionCsvColumns();
// Appended after those when the document is georeferenced (GeoTIFF, world file): the centre's map
// coordinates in the image's CRS (map_x, map_y, in its units) and WGS 84 lon, lat in degrees (empty
// without a CRS).
const std::vector<std::string>& regionCsvGeorefColumns();
// The row under regionCsvColumns(), and with a georef the regionCsvGeorefColumns() after it.
std::vector<std::string> regionCsvRow(const ExportRegion& region, const PixelToSky& pixelToSky,
                                      const Georef* georef = nullptr);
std::string regionCsvText(const RegionDocument& document);

} // namespace glint
