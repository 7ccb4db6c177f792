// A pixel mask as an 8-bit PNG (255 inside, 0 outside) at the image's full size, so that the common
// component can be used as a selection in other tools; written atomically.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace glint {

struct CommonComponentResult;

// PNG bytes of the mask (width * height bytes, nonzero = inside). Throws OutputError when this build has
// no PNG encoder (GLINT_WITH_IMGCODECS off).
std::string maskPngBytes(const std::vector<std::uint8_t>& mask, int width, int height);
void writeMaskPng(const std::string& path, const std::vector<std::uint8_t>& mask, int width, int height);
// The component's mask in A's frame; all black when nothing was found (width and height of A given).
void writeComponentMaskPng(const std::string& path, const CommonComponentResult& result, int widthA, int heightA);

} // namespace glint
