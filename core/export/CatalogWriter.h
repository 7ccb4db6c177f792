// The source catalogue of a brightest-regions search (--catalog OUT.fits|OUT.csv), with SExtractor-like
// columns: NUMBER, X_IMAGE, Y_IMAGE (the flux-weighted centroid, 1-based FITS pixels), FLUX (sum of
// I - background), SNR, FLUX_MAX (the peak of I - background), BACKGROUND (mean over the region), AREA
// (pixels), ALPHA_J2000, DELTA_J2000 (degrees, FK5 J2000; NaN in FITS and empty in CSV without a WCS),
// XMIN_IMAGE, YMIN_IMAGE, XMAX_IMAGE, YMAX_IMAGE (1-based, inclusive) and FLAGS (kRegionFlag* bits:
// 4 saturated, 8 touches the edge, 16 touches a blank or excluded pixel). The FITS form is a binary table
// (extension CATALOG) written through CFITSIO; both go through writeFileAtomically.
#pragma once

#include "core/algo/regions/RegionSearch.h"

#include <string>
#include <vector>

namespace glint {

enum class CatalogFormat { Fits, Csv };

// By the extension (.fits, .fit, .fts, .csv; any case); UsageError otherwise.
CatalogFormat catalogFormatForPath(const std::string& path);

const std::vector<std::string>& catalogColumns();

// The whole file's bytes (a FITS file with an empty primary HDU and the table; or CSV text with a header).
std::string catalogBytes(const BrightestResult& result, CatalogFormat format);
void writeCatalog(const BrightestResult& result, const std::string& path);

} // namespace glint
