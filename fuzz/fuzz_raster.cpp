// PNG, PNM, TIFF, JPEG and BMP through loadRaster (OpenCV's imread, libpng, libtiff, libjpeg-turbo) and our
// JPEG end-of-image check. Inputs that the format detection would not send to loadRaster are skipped,
// since no user file can reach loadRaster with them.
#include "fuzz/FuzzSupport.h"

GLINT_FUZZ_LOADER("raster", [](const std::string& path) {
    const glint::FileFormat format = glint::detectFileFormat(path);
    switch (format) {
    case glint::FileFormat::Png:
    case glint::FileFormat::Pnm:
    case glint::FileFormat::Tiff:
    case glint::FileFormat::Jpeg:
    case glint::FileFormat::Bmp: (void)glint::loadRaster(path, format); break;
    default: break;
    }
})
