// The size of a PNG/TIFF/JPEG/BMP/PNM image read from its header by Glint itself, so that the
// memory it would need is checked before a decoder allocates anything.
#pragma once

#include "core/io/ImageLoader.h"
#include "core/util/ImageBudget.h"

#include <optional>

namespace glint {

class InputFile;

// Width, height, channels and bits a sample as OpenCV would decode the file (IMREAD_UNCHANGED: a
// palette becomes 3 or 4 channels, 1-bit samples 8 bits). Nothing when the header cannot be read:
// the decoder then has the last word (with OpenCV's own caps as a backstop).
std::optional<DecodedSize> rasterDecodedSize(const InputFile& file, FileFormat format);

} // namespace glint
