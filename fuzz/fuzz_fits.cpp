// FITS through loadFits (CFITSIO): headers, every BITPIX, BSCALE/BZERO/BLANK, cubes, extensions,
// tile-compressed images (RICE, GZIP, HCOMPRESS, PLIO) and the WCS read from the header.
#include "fuzz/FuzzSupport.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    glint::fuzz::setUp("fits");
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string& path = glint::fuzz::writeInput(data, size);
    glint::fuzz::runLoader([&] { (void)glint::loadFits(path, {}); });
    return 0;
}
