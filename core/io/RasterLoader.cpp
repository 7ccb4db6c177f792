// PNG/PGM/TIFF/JPEG/BMP through OpenCV, 8 and 16 bit (and TIFF's 32-bit and float samples), colour
// converted to luminance the way ImageJ and OpenCV do (rounded to the native depth); georeferencing and
// the file's tags through GDAL (core/io/Georef). Both come from the codecs plugin (core/io/Codecs.h).
#include "core/io/Codecs.h"
#include "core/io/Georef.h"
#include "core/io/ImageLoader.h"
#include "core/io/JpegMarkers.h"
#include "core/io/RasterHeader.h"
#include "core/util/Errors.h"
#include "core/util/ImageBudget.h"
#include "core/util/InputFile.h"
#include "core/util/Printable.h"
#include "core/util/StderrSilencer.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include <opencv2/imgproc.hpp>

namespace glint {

namespace {

template <class T>
Image imageFromMat(const cv::Mat& mat) {
    std::vector<T> samples(static_cast<std::size_t>(mat.rows) * mat.cols);
    for (int y = 0; y < mat.rows; ++y) {
        const T* row = mat.ptr<T>(y);
        std::copy(row, row + mat.cols, samples.begin() + static_cast<std::ptrdiff_t>(y) * mat.cols);
    }
    return Image::fromSamples<T>(mat.cols, mat.rows, std::move(samples));
}

#if GLINT_WITH_IMGCODECS
// Entropy-coded data cannot hold the end-of-image marker, so a whole file has one after its first scan;
// a file cut short has none. (A cut file given a fake end-of-image marker is caught by the codecs'
// jpegDamage, which reads every scan.) The scan is found as libjpeg finds it (JpegMarkers.h).
bool jpegIsComplete(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    const std::vector<unsigned char> b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto byteAt = [&b](std::uint64_t i) { return i < b.size() ? static_cast<int>(b[i]) : -1; };
    std::uint64_t at = 2;
    while (const auto m = nextJpegMarker(byteAt, at)) {
        if (m->code == 0xD9) return false; // an end before any scan
        if (jpegMarkerStandsAlone(m->code)) {
            at = m->after;
            continue;
        }
        if (m->after + 2 > b.size()) return false;
        const std::uint64_t next = m->after + (static_cast<std::uint64_t>(b[m->after]) << 8 | b[m->after + 1]);
        if (m->code == 0xDA) {
            for (std::uint64_t k = next; k + 1 < b.size(); ++k)
                if (b[k] == 0xFF && b[k + 1] == 0xD9) return true;
            return false;
        }
        at = next;
    }
    return false; // the file ends inside its headers
}
#endif

} // namespace

Image loadRaster(const std::string& path, FileFormat format) {
    cv::Mat mat;
#if !GLINT_WITH_IMGCODECS
    throw InputError("cannot open '" + path + "': this headless build of Glint reads FITS, DICOM and CSV, not " + std::string(fileFormatName(format)));
#else
    std::optional<HeaderCard> physicalPixelSize; // a PNG's pHYs, which GDAL does not report
    {
        // The size the header declares, checked before the decoder allocates for it.
        const InputFile file(path);
        if (format == FileFormat::Png) physicalPixelSize = pngPhysicalPixelSize(file);
        if (const auto size = rasterDecodedSize(file, format, "cannot open '" + path + "'")) {
            checkImageDimensions(size->width, size->height, "'" + path + "'");
            checkImageBudget(*size, "cannot open '" + path + "'");
        }
        // Values above a PGM's largest value, which OpenCV would clamp.
        if (format == FileFormat::Pnm) checkPnmSamples(file, "cannot open '" + path + "'");
    }
    const Codecs* codecs = glint::codecs();
    if (!codecs)
        throw InputError("cannot open '" + path + "': reading " + std::string(fileFormatName(format)) +
                         " files needs Glint's codecs plugin: " + codecsError());
    if (format == FileFormat::Jpeg) {
        // A scan cut short (a truncated file, even one given a fake end-of-image marker), read before the
        // decoder fills it with grey.
        std::string damage;
        {
            StderrSilencer quiet;
            damage = codecs->jpegDamage(path);
        }
        if (!damage.empty())
            throw InputError("cannot open '" + path + "': the JPEG file is damaged or truncated (libjpeg: " +
                             printableMessage(damage) + ")");
    }
    {
        // libpng/libjpeg print their own warnings for damaged files; the user gets our one line instead.
        StderrSilencer quiet;
        mat = codecs->read(path);
    }
    if (mat.empty())
        throw InputError("cannot open '" + path + "': the " + std::string(fileFormatName(format)) +
                         " file is corrupt, truncated or of an unsupported kind");
    if (format == FileFormat::Jpeg && !jpegIsComplete(path))
        throw InputError("cannot open '" + path + "': the JPEG file is truncated (it has no end-of-image marker)");
    checkImageDimensions(mat.cols, mat.rows, "'" + path + "'");

    bool colour = false;
    if (mat.channels() == 3 || mat.channels() == 4) {
        cv::Mat grey;
        cv::cvtColor(mat, grey, mat.channels() == 3 ? cv::COLOR_BGR2GRAY : cv::COLOR_BGRA2GRAY);
        mat = grey;
        colour = true;
    } else if (mat.channels() == 2) { // grey + alpha
        cv::Mat planes[2];
        cv::split(mat, planes);
        mat = planes[0];
    } else if (mat.channels() != 1) {
        throw InputError("cannot open '" + path + "': " + std::to_string(mat.channels()) + " channels are not supported");
    }

    Image image;
    switch (mat.depth()) {
    case CV_8U: image = imageFromMat<std::uint8_t>(mat); break;
    case CV_8S: image = imageFromMat<std::int8_t>(mat); break;
    case CV_16U: image = imageFromMat<std::uint16_t>(mat); break;
    case CV_16S: image = imageFromMat<std::int16_t>(mat); break;
    case CV_32S: image = imageFromMat<std::int32_t>(mat); break;
    case CV_32F: image = imageFromMat<float>(mat); break;
    case CV_64F: image = imageFromMat<double>(mat); break;
    default: throw InputError("cannot open '" + path + "': unsupported sample depth");
    }
    image.meta.format = fileFormatName(format);
    image.meta.wasColour = colour;
    if (image.sampleType() == SampleType::Float32 || image.sampleType() == SampleType::Float64) {
        std::vector<std::uint8_t> blank(image.pixelCount());
        image.visit([&](const auto* p) {
            for (std::size_t i = 0; i < blank.size(); ++i) blank[i] = (p[i] != p[i]) ? 1 : 0; // NaN
        });
        image.setBlankMask(std::move(blank));
        image.updateIntegerValued();
    }
    // Georeferencing and the file's own tags through GDAL (the pixels above stay OpenCV's). A file GDAL
    // cannot read, or side files it cannot use, simply give none.
    RasterGeoInfo geo = readRasterGeoInfo(path);
    image.meta.header = std::move(geo.metadata);
    if (physicalPixelSize) image.meta.header.push_back(std::move(*physicalPixelSize));
    if (geo.georef) {
        for (HeaderCard& card : geo.georef->headerCards()) image.meta.header.push_back(std::move(card));
        image.meta.georef = std::move(geo.georef);
    }
    return image;
#endif
}

} // namespace glint
