// FITS layouts written with CFITSIO by the tests and by the fuzz seeds (fuzz/make_seeds.cpp): no Qt here.
#pragma once

#include <fitsio.h>

namespace glint::test {

// The start of a multi-extension file as surveys write them: an empty primary HDU, then a binary table
// "CATALOG" (one float column FLUX, two rows; the current HDU on return) before the image the caller adds.
// CFITSIO's status convention: nothing is done once `status` is set.
inline void writeEmptyPrimaryAndCatalog(fitsfile* f, int& status) {
    fits_create_img(f, 8, 0, nullptr, &status);
    const char* ttype[] = {"FLUX"};
    const char* tform[] = {"1E"};
    fits_create_tbl(f, BINARY_TBL, 2, 1, const_cast<char**>(ttype), const_cast<char**>(tform), nullptr, "CATALOG",
                    &status);
}

} // namespace glint::test
