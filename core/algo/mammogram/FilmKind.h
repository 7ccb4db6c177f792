// A mammogram recognised by its content, without metadata (issue 33: mini-MIAS's PGM films carry none): one
// breast, brighter than a dark, flat background, that meets exactly one side of the image (left or right, the
// chest wall) along a long stretch, reaches part-way across, narrows away from that side and fills its bounding
// box as a half-ellipse does. classifyImage (core/params/ImageKind.h) asks it for greyscale images with no
// other mark, so --preset auto, `glint-cli info` and the window's defaults agree.
#pragma once

#include <string>

namespace glint {

class Image;

struct FilmKindTest {
    bool mammogram = false;
    std::string reason; // why (or why not), one phrase: "breast against the left side, 48 % of the film"
};

// Deterministic; analyses a copy reduced to at most 256 px a side. Greyscale images only (the caller's part).
FilmKindTest mammogramByContent(const Image& image);

} // namespace glint
