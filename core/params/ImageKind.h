// What kind of image a file holds, for `--preset auto` and the window's first answer: a sky frame, a
// mammogram, an aerial or satellite photograph, or something else. Decided from the image itself (its
// format, its metadata and, where those say nothing, its content), in core, so that the command line, batch
// and the window agree.
#pragma once

#include <string>
#include <string_view>

namespace glint {

class Image;

enum class ImageKind { Sky, Mammogram, Aerial, Other };

const char* imageKindName(ImageKind kind);               // "sky", "mammogram", "aerial", "other"
ImageKind parseImageKind(std::string_view name);          // throws UsageError

struct ImageKindGuess {
    ImageKind kind = ImageKind::Other;
    std::string reason; // "FITS image", "DICOM Modality MG", ...
};

// The kind of `image`: a FITS image is a sky frame; a mammogram by its metadata (DICOM Modality MG, a
// mammography SOP class or body part, a text tag that says so); a georeferenced raster, or a colour
// photograph, is aerial; a greyscale film whose content is a breast against one side is a mammogram
// (core/algo/mammogram/FilmKind.h); anything else is other.
ImageKindGuess classifyImage(const Image& image);

} // namespace glint
