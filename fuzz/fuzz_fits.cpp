// FITS through loadFits (CFITSIO): headers, every BITPIX, BSCALE/BZERO/BLANK, cubes, extensions,
// tile-compressed images (RICE, GZIP, HCOMPRESS, PLIO) and the WCS read from the header. Glint's own
// header walk (FitsScan) runs first; an image that loads must hold no infinity (issue 35: infinities in
// the data and BSCALE/BZERO overflows are refused), or the target aborts: a finding.
#include "fuzz/FuzzSupport.h"

#include <cmath>
#include <cstdlib>

GLINT_FUZZ_LOADER("fits", [](const std::string& path) {
    const glint::Image image = glint::loadFits(path, {});
    for (std::size_t i = 0; i < image.pixelCount(); ++i)
        if (std::isinf(image.value(i))) std::abort();
})
