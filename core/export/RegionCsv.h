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
std::vector<std::string> regionCsvRow(const ExportRegion& region, const PixelToSky& pixelToSky);
std::string regionCsvText(const RegionDocument& document);

} // namespace glint
