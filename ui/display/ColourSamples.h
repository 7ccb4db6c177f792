// Colour images are analysed by their luminance (core/io converts them on load, as OpenCV and ImageJ do)
// but drawn in colour: the window reads the colour samples of such a file once more, checks that they are
// the very pixels the luminance came from, and keeps them beside the image for as long as it lives. The
// display maps each channel through the same limits and stretch as the luminance (grey colormaps only: a
// chosen colormap draws the luminance, as for any other image).
#pragma once

#include "core/display/Display.h"
#include "core/io/Image.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace glint::ui {

struct ColourSamples {
    int width = 0;
    int height = 0;
    bool sixteenBit = false;
    std::vector<std::uint8_t> rgb8;   // 8-bit files: R, G, B interleaved, row 0 first
    std::vector<std::uint16_t> rgb16; // 16-bit files

    // R, G, B of pixel index i (y * width + x) in the file's units.
    std::uint32_t channel(std::size_t i, int c) const { return sixteenBit ? rgb16[3 * i + c] : rgb8[3 * i + c]; }
};

// The colour samples of an image loaded from a colour PNG, TIFF, JPEG or BMP file (meta.wasColour; 8 or
// 16 bits a channel), read on the first call and cached while the image lives; null for every other
// image, and when the file no longer holds the pixels the image was loaded from. Thread-safe; the first
// call for an image reads the file, so call it off the UI thread.
std::shared_ptr<const ColourSamples> colourSamplesOf(const std::shared_ptr<const glint::Image>& image);

// The same, without reading: null until colourSamplesOf() has read them (for the UI thread).
std::shared_ptr<const ColourSamples> cachedColourSamplesOf(const std::shared_ptr<const glint::Image>& image);

// Whether a colormap draws colour images in colour (grey and inverted grey) rather than their luminance.
bool colormapShowsColour(glint::Colormap colormap);

// Draws colour samples through a renderer's limits and stretch, channel by channel (the renderer must be
// the image's, with a grey colormap). Blank pixels of the image get blankColour.
class ColourRenderer {
public:
    ColourRenderer(const ColourSamples& samples, const glint::Image& image, const glint::DisplayRenderer& renderer,
                   std::uint32_t blankColour);
    void renderRow(int y, std::uint32_t* out) const; // width() pixels, 0xAARRGGBB

private:
    const ColourSamples& samples_;
    const glint::Image& image_;
    std::uint32_t blank_;
    std::vector<std::uint8_t> level_; // channel value -> display level
};

} // namespace glint::ui
