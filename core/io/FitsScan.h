// A walk over a FITS file's headers by Glint itself, before CFITSIO reads them: CFITSIO trusts the
// keywords of tile-compressed images (ZIMAGE = T) and divides by ZTILEn and by the compression
// parameters (ZNAMEn/ZVALn), so a 0 there ends the process with SIGFPE.
#pragma once

#include <string>

namespace glint {

// Throws InputError naming the HDU and the keyword when a tile-compressed HDU has a ZBITPIX, ZNAXIS,
// ZNAXISn, ZTILEn, ZDITHER0 or compression parameter (RICE BLOCKSIZE/BYTEPIX; HCOMPRESS SCALE/SMOOTH must be numbers)
// that CFITSIO cannot decompress safely. Stops quietly where the file stops looking like FITS:
// CFITSIO then reports what is wrong.
void checkFitsCompressionKeywords(const std::string& path);

} // namespace glint
