// FITS through loadFits (CFITSIO): headers, every BITPIX, BSCALE/BZERO/BLANK, cubes, extensions,
// tile-compressed images (RICE, GZIP, HCOMPRESS, PLIO) and the WCS read from the header.
#include "fuzz/FuzzSupport.h"

GLINT_FUZZ_LOADER("fits", [](const std::string& path) { (void)glint::loadFits(path, {}); })
