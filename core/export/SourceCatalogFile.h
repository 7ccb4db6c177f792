// The source catalogue's files (`sources --catalog OUT --catalog-format fits|ldac|ascii|csv`), with SExtractor's
// column names, units and display formats (SourceCatalogColumns):
//   fits   an empty primary HDU and a binary table "SOURCES"; aperture columns (FLUX_APER ...) are vectors of
//          one value per aperture; unknown values NaN. TDISPn as SExtractor's formats; TTYPEn's comment is the
//          column's description; SEXMGZPT and SEXAPEDn (aperture diameters, pixels) in the table's header.
//   ldac   FITS_LDAC as SCAMP and PSFEx read it: an empty primary HDU; LDAC_IMHEAD, a one-row table whose
//          column "Field Header Card" (TFORM (80 n)A, TDIM1 '(80, n)') holds the image's header (n cards, END
//          included; SEXMGZPT and SEXAPEDn added); LDAC_OBJECTS, the columns as in fits.
//   ascii  SExtractor's ASCII_HEAD: "#   1 NUMBER                 Running object number" lines (units in
//          brackets; a vector column's number then skips its length, as SExtractor numbers them), then one
//          line a source in SExtractor's printf formats (an unknown value: "nan" in the field's width).
//   csv    a header row, then one row a source; a vector column is one column per aperture, named as astropy
//          names ASCII_HEAD's (FLUX_APER, FLUX_APER_1, FLUX_APER_2 ...); numbers in full precision (they read
//          back to the same double); an unknown value is an empty field.
// Positions are SExtractor's, 1-based (X_IMAGE = SourceRecord::x + 1). Every file is written whole through
// writeFileAtomically (never a partial file; inside an OutputTransaction, at its commit).
#pragma once

#include "core/algo/sources/SourceCatalog.h"
#include "core/export/FitsHeaderContext.h"

#include <string>

namespace glint {

enum class SourceCatalogFormat { Fits, Ldac, Ascii, Csv };

// formatOption: "fits", "ldac", "ascii" or "csv" (--catalog-format), or "" for the path's extension (any
// case): .fits/.fit/.fts fits, .ldac ldac, .cat/.txt ascii, .csv csv. UsageError naming --catalog-format
// otherwise.
SourceCatalogFormat sourceCatalogFormat(const std::string& path, const std::string& formatOption);
const char* sourceCatalogFormatName(SourceCatalogFormat format);

// The whole file's bytes. imageHeader: the image's header (fitsHeaderContext(image)); ldac needs it
// (std::invalid_argument without), the other formats ignore it.
std::string sourceCatalogBytes(const SourceCatalog& catalog, SourceCatalogFormat format,
                               const FitsHeaderContext* imageHeader);
// Writes the file atomically; OutputError with one line naming the path when it cannot.
void writeSourceCatalog(const SourceCatalog& catalog, const std::string& path, SourceCatalogFormat format,
                        const FitsHeaderContext* imageHeader);

} // namespace glint
