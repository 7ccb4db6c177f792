// loadImage: the format detection by content (FITS, DICOM with and without preamble, PNG, PNM, TIFF,
// JPEG, BMP, JPEG 2000, text) and the dispatch to each loader, as glint-cli and the window call it.
#include "fuzz/FuzzSupport.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    glint::fuzz::setUp("detect");
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string& path = glint::fuzz::writeInput(data, size);
    glint::fuzz::runLoader([&] { (void)glint::loadImage(path); });
    return 0;
}
