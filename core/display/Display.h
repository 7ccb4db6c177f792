// How samples become screen colours: display limits (minmax, zscale, percentile, DICOM window, manual),
// a stretch (linear, log, sqrt, asinh) and a colormap. Shared by the window and by the CLI's overlays.
#pragma once

#include "core/io/Image.h"

#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
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
    // limits == Window on a DICOM image with a VOI (core/io/DicomVoi.h): which of its choices (VOI LUTs,
    // then the header's windows, then CT presets) maps values to grey, through the VOI LUT Function and the
    // presentation polarity; low/high are then that choice's range, for the histogram.
    int voiChoice = 0;
};

struct DisplayLimits {
    double low = 0.0;
    double high = 1.0;
};

// The default display of an image: DICOM with a window → its window; otherwise percentile 99.5%.
DisplaySettings defaultDisplaySettings(const Image& image);

// The display of a DICOM image through choice `choice` of its VOI (limits Window, low/high its range);
// the plain default when the image has no VOI choices.
DisplaySettings dicomVoiSettings(const Image& image, int choice, DisplaySettings base);

DisplayLimits computeLimits(const Image& image, const DisplaySettings& settings);

// IRAF's zscale (as astropy's ZScaleInterval with its defaults: nsamples 1000, contrast 0.25,
// max_reject 0.5, min_npixels 5, krej 2.5, max_iterations 5).
DisplayLimits zscaleLimits(const Image& image, int samples = 1000, double contrast = 0.25);

// (value − low) / (high − low), also where a difference overflows double (values and limits near
// ±1.7e308, which every loader accepts): then it is taken on halves, which cannot overflow.
inline double unitFraction(double value, double low, double high) {
    const double span = high - low, offset = value - low;
    if (std::isfinite(span) && std::isfinite(offset)) return offset / span;
    return (0.5 * value - 0.5 * low) / (0.5 * high - 0.5 * low);
}

// Maps a value to [0, 1] through limits and stretch.
double stretch(double value, const DisplayLimits& limits, DisplayScale scale);

// 256-entry colour table, 0xAARRGGBB (the layout of QImage::Format_ARGB32).
std::array<std::uint32_t, 256> colormapTable(Colormap colormap);

// Renders rows of an image through limits, stretch and colormap into buffers the caller owns (a QImage's
// scan lines, say), so that a window can render in chunks it may cancel between and flip rows as it
// likes. Built once per settings change; renderRows may be called from several threads at once.
class DisplayRenderer {
public:
    DisplayRenderer(const Image& image, const DisplaySettings& settings, const DisplayLimits& limits,
                    std::uint32_t blankColour = 0xFF000000u);
    // Rows [firstRow, endRow) of the image, each written to rowOut(y) (width() pixels), on all CPU threads.
    void renderRows(int firstRow, int endRow, const std::function<std::uint32_t*(int y)>& rowOut) const;
    // The colour of one value: the same mapping renderRows applies (NaN gives the blank colour).
    std::uint32_t colourOf(double value) const;

private:
    int level(double value) const;
    void renderRow(int y, std::uint32_t* out) const;

    const Image& image_;
    DisplayLimits limits_;
    DisplayScale scale_;
    const DicomVoi* voi_ = nullptr; // rendering through the DICOM VOI (settings.limits == Window)
    int voiChoice_ = 0;
    std::uint32_t blank_;
    std::array<std::uint32_t, 256> table_{};
    std::vector<std::uint32_t> lut_;     // 8- and 16-bit integer samples: one colour per possible value
    std::array<double, 257> thresholds_{}; // thresholds_[k]: the least normalised value shown at level >= k
    std::vector<std::uint8_t> coarse_;   // the level at the start of each of coarse_.size() equal bins of [0, 1)
};

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
