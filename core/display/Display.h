// How samples become screen colours: display limits (minmax, zscale, percentile, DICOM window, manual),
// a stretch (linear, log, sqrt, asinh) and a colormap. Shared by the window and by the CLI's overlays.
#pragma once

#include "io/Image.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace glint {

enum class DisplayScale { Linear, Log, Sqrt, Asinh };
enum class LimitsMode { MinMax, ZScale, Percentile, Window, Manual };
enum class Colormap { Grey, InvertedGrey, Heat, Viridis, Cool, Rainbow };

struct DisplaySettings {
    DisplayScale scale = DisplayScale::Linear;
    LimitsMode limits = LimitsMode::Percentile;
    double percentile = 99.5;  // the central percentage kept (DS9's "99.5%"): cut (100-p)/2 on each side
    double low = 0.0;          // used when limits == Manual
    double high = 1.0;
    Colormap colormap = Colormap::Grey;
};

struct DisplayLimits {
    double low = 0.0;
    double high = 1.0;
};

// The default display of an image: DICOM with a window → its window; otherwise percentile 99.5%.
DisplaySettings defaultDisplaySettings(const Image& image);

DisplayLimits computeLimits(const Image& image, const DisplaySettings& settings);

// IRAF's zscale (as astropy's ZScaleInterval with its defaults: nsamples 1000, contrast 0.25,
// max_reject 0.5, min_npixels 5, krej 2.5, max_iterations 5).
DisplayLimits zscaleLimits(const Image& image, int samples = 1000, double contrast = 0.25);

// Maps a value to [0, 1] through limits and stretch.
double stretch(double value, const DisplayLimits& limits, DisplayScale scale);

// 256-entry colour table, 0xAARRGGBB (the layout of QImage::Format_ARGB32).
std::array<std::uint32_t, 256> colormapTable(Colormap colormap);

// The whole image as 0xAARRGGBB pixels in storage order (row 0 first). Blank pixels get blankColour.
std::vector<std::uint32_t> renderImage(const Image& image, const DisplaySettings& settings, const DisplayLimits& limits,
                                       std::uint32_t blankColour = 0xFF000000u);

const char* displayScaleName(DisplayScale scale);
const char* limitsModeName(LimitsMode mode);
const char* colormapName(Colormap colormap);
DisplayScale parseDisplayScale(const std::string& name);   // throws UsageError
LimitsMode parseLimitsMode(const std::string& name);
Colormap parseColormap(const std::string& name);

} // namespace glint
