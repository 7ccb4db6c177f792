#include "core/export/MaskPng.h"

#include "core/algo/commoncomponent/CommonComponent.h"
#include "core/io/Codecs.h"
#include "core/util/AtomicFile.h"
#include "core/util/Errors.h"

#include <opencv2/core.hpp>

namespace glint {

std::string maskPngBytes(const std::vector<std::uint8_t>& mask, int width, int height) {
    if (width <= 0 || height <= 0 || mask.size() != static_cast<std::size_t>(width) * static_cast<std::size_t>(height))
        throw OutputError("cannot write a mask PNG: the mask does not match its size");
#if !GLINT_WITH_IMGCODECS
    throw OutputError("this headless build of Glint writes no PNG files");
#else
    const Codecs* codecs = glint::codecs();
    if (!codecs) throw OutputError("writing PNG files needs Glint's codecs plugin: " + codecsError());
    cv::Mat image(height, width, CV_8UC1);
    for (int y = 0; y < height; ++y) {
        std::uint8_t* row = image.ptr<std::uint8_t>(y);
        const std::uint8_t* in = mask.data() + static_cast<std::size_t>(y) * width;
        for (int x = 0; x < width; ++x) row[x] = in[x] ? 255 : 0;
    }
    const std::vector<std::uint8_t> bytes = codecs->encodePng(image);
    if (bytes.empty()) throw OutputError("PNG encoding of the mask failed");
    return std::string(bytes.begin(), bytes.end());
#endif
}

void writeMaskPng(const std::string& path, const std::vector<std::uint8_t>& mask, int width, int height) {
    try {
        writeFileAtomically(path, maskPngBytes(mask, width, height));
    } catch (const OutputError& e) {
        const std::string what = e.what();
        if (what.rfind("cannot write '", 0) == 0) throw;
        throw OutputError("cannot write '" + path + "': " + what);
    }
}

void writeComponentMaskPng(const std::string& path, const CommonComponentResult& result, int widthA, int heightA) {
    if (result.found && !result.mask.empty()) {
        writeMaskPng(path, result.mask, result.maskWidth, result.maskHeight);
        return;
    }
    writeMaskPng(path, std::vector<std::uint8_t>(static_cast<std::size_t>(widthA) * heightA, 0), widthA, heightA);
}

} // namespace glint
