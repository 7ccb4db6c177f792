// PNG, PNM, TIFF, JPEG and BMP through loadRaster (OpenCV's imread, libpng, libtiff, libjpeg-turbo), our
// JPEG checks (the end-of-image walk, libjpeg's scans) and, first, the header size check on every input as
// TIFF, JPEG and PNM whatever its magic: the readers of RasterHeader must refuse or size any bytes (typed
// sizes, tiles, BigTIFF, junk between JPEG markers, samples above a PGM's largest value) without a crash.
// Inputs that the format detection would not send to loadRaster are not decoded, since no user file can
// reach loadRaster with them.
#include "fuzz/FuzzSupport.h"

#include "core/io/RasterHeader.h"
#include "core/util/ImageBudget.h"
#include "core/util/InputFile.h"

GLINT_FUZZ_LOADER("raster", [](const std::string& path) {
    // A budget far below libFuzzer's -rss_limit_mb, so that what the size check lets through fits.
    glint::setMaxImageBytes(256ULL << 20);
    {
        const glint::InputFile file(path);
        for (const glint::FileFormat f : {glint::FileFormat::Tiff, glint::FileFormat::Jpeg, glint::FileFormat::Pnm}) {
            try {
                if (const auto size = glint::rasterDecodedSize(file, f, "fuzz")) glint::checkImageBudget(*size, "fuzz");
                if (f == glint::FileFormat::Pnm) glint::checkPnmSamples(file, "fuzz");
            } catch (const glint::InputError&) {
            }
        }
    }
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
