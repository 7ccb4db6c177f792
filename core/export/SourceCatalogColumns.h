// The source catalogue's columns, with SExtractor's names, descriptions, units and display formats: one table
// that the FITS, FITS_LDAC, ASCII_HEAD and CSV writers (SourceCatalogFile) all follow.
#pragma once

#include "core/algo/sources/SourceCatalog.h"

#include <cstddef>
#include <string>
#include <vector>

namespace glint {

struct SourceColumn {
    enum class Type { Int16, Int32, Int64, Double };
    const char* name;        // SExtractor's: "X_IMAGE"
    const char* description; // SExtractor's ASCII_HEAD text and TTYPE comment
    const char* unit;        // "pixel", "count", "mag", "deg", "pixel**2", "pixel**(-2)" or ""
    char conversion;         // the ASCII format: 'd', 'f', 'g' or 'e' ...
    int width, precision;    // ... its width and precision (SExtractor's "%11.4f")
    bool sign;               // ... with '+' ("%+11.7f", DELTA_J2000)
    Type type;               // the FITS column's type (Double: TFORM D; integers: I, J or K)
    bool perAperture;        // one value per aperture (FLUX_APER ...): a vector column in FITS
    double (*value)(const SourceRecord& record, std::size_t aperture); // NaN where unknown

    // TDISPn: "F11.4", "G12.7", "I10", "E12.7".
    std::string tdisp() const;
    // The value as the ASCII_HEAD row writes it ("%11.4f"; NaN as "nan" in the field's width).
    std::string ascii(double v) const;
};

// Every column in the catalogue's order. The aperture columns are left out when the catalogue has no
// aperture.
std::vector<SourceColumn> sourceColumns(const SourceCatalog& catalog);

} // namespace glint
