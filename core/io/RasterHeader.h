// The size of a PNG/TIFF/JPEG/BMP/PNM image read from its header by Glint itself, so that the
// memory it would need is checked before a decoder allocates anything.
#pragma once

#include "core/io/Image.h"
#include "core/io/ImageLoader.h"
#include "core/util/ImageBudget.h"

#include <optional>
#include <string>

namespace glint {

class InputFile;

// Width, height, channels and bits a sample as OpenCV would decode the file (IMREAD_UNCHANGED: a
// palette becomes 3 or 4 channels, 1-bit samples 8 bits), and a TIFF's tile size. TIFF and JPEG headers
// are read as libtiff and libjpeg read them (any integer type of a TIFF size tag; a JPEG's markers past
// junk bytes), and one that cannot be read so is refused: InputError "<where>: <why>". For PNG, BMP and
// PNM, nothing when the header cannot be read: the decoder then has the last word (with OpenCV's own
// caps as a backstop).
std::optional<DecodedSize> rasterDecodedSize(const InputFile& file, FileFormat format, const std::string& where);

// A PNG's physical pixel size (its pHYs chunk, in pixels per metre), which GDAL's PNG driver does not report: the
// header card "PNG pHYs" = "X Y" (pixels per metre), for what reads a pixel's size (a mammogram's ranking). Only the
// chunks before the image data are read (at most 64); a pHYs in other units (an aspect ratio only), a zero, or a
// damaged chunk list gives none.
std::optional<HeaderCard> pngPhysicalPixelSize(const InputFile& file);

// A PGM/PPM's samples checked against its largest value (maxval): libnetpbm refuses a sample above it,
// OpenCV clamps it silently, so the file is refused here: InputError "<where>: the PGM file has a value
// of 300 above its largest value 255 (sample 12)". Reads the whole file once; P1/P4 bitmaps pass.
void checkPnmSamples(const InputFile& file, const std::string& where);

} // namespace glint
