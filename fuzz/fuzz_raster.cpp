// PNG, PNM, TIFF, JPEG and BMP through loadRaster (OpenCV's imread, libpng, libtiff, libjpeg-turbo) and our
// JPEG end-of-image check. Inputs that the format detection would not send to loadRaster are skipped,
// since no user file can reach loadRaster with them.
#include "fuzz/FuzzSupport.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    glint::fuzz::setUp("raster");
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string& path = glint::fuzz::writeInput(data, size);
    glint::fuzz::runLoader([&] {
        const glint::FileFormat format = glint::detectFileFormat(path);
        switch (format) {
        case glint::FileFormat::Png:
        case glint::FileFormat::Pnm:
        case glint::FileFormat::Tiff:
        case glint::FileFormat::Jpeg:
        case glint::FileFormat::Bmp: (void)glint::loadRaster(path, format); break;
        default: break;
        }
    });
    return 0;
}
