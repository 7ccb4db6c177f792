// The width of the traced feature along a finished trace's path (issue 32, "width along the path (measured from
// the profile) reported"). The trace itself is not changed.
//
// Each leg's path is sampled every kTraceWidthStep px of arc length (at most kTraceWidthMaxSamples a leg, spread
// evenly). At each sample the cross profile is read across the path (bilinear, every 0.5 px, out to
// 2 kTraceWidthMaxHalf + 2 px each side), averaged over 2 kTraceWidthAlong + 1 lines 1 px apart along the path
// (texture and noise average out; the feature does not, it runs along the path). On that profile, signed so the
// feature is bright (the trace's polarity), a bar of half-width h centred within 2 px of the path is fitted by
// its contrast C(c, h) = mean over [c - h, c + h] minus the brighter of the means over the two flanks
// [c - 2h, c - h) and (c + h, c + 2h]: for an ideal bar of half-width a, C is largest at h = a. The chosen
// scale is the smallest local maximum of max_c C(c, h) over h holding at least half the largest contrast (a
// narrow road inside a broad bright field is the road, not the field; a texture blob inside a wide belt is
// weaker than the belt), and the width is then read at half contrast on the profile: between the points where
// it crosses the midpoint of the bar's peak and the flanks' level (the definition the real evaluation set's
// centre lines were made with, tests/data/trace-real/README.md). A sample whose profile leaves the image or
// meets blank pixels before the chosen flanks, or whose contrast is not positive, is skipped.
#pragma once

#include "core/algo/trace/LineTrace.h"

#include <optional>
#include <vector>

namespace glint {

constexpr double kTraceWidthStep = 4.0;    // px between samples along a leg
constexpr int kTraceWidthMaxSamples = 128; // per leg (a longer leg's samples are spread further apart)
constexpr double kTraceWidthMaxHalf = 40.0; // the widest half-width measured, px (an 80-px river)
constexpr int kTraceWidthAlong = 4;         // lines each side of the sample averaged into its profile

struct TraceWidthSample {
    double arc = 0.0;   // arc length along the leg from its start, px
    double x = 0.0, y = 0.0;
    std::optional<double> width; // px; none where the profile gave no width
    double contrast = 0.0;       // the bar's contrast in image units (0 when skipped)
};
struct TraceLegWidth {
    int samples = 0;                        // samples taken along the leg
    std::vector<TraceWidthSample> along;    // every sample, in order along the leg
    std::vector<double> widths;             // the widths found (px), in order; skipped samples left out
    std::optional<double> meanPx;           // of widths (none when no sample found the feature)
    std::optional<double> medianPx;
};
struct TraceWidth {
    TracePolarity polarity = TracePolarity::Bright; // the polarity measured (never Both)
    std::vector<TraceLegWidth> legs;                // one per leg of the result
    std::optional<double> meanPx;                   // over every leg's found widths
    std::optional<double> medianPx;
};

// The width at one point of a path running along unit direction (tx, ty): the half-contrast width of the bar
// fitted to the averaged cross profile (see above), or nullopt. `polarity` is Bright or Dark.
std::optional<TraceWidthSample> measureTraceWidthAt(const Image& image, TracePoint point, double tx, double ty,
                                                    TracePolarity polarity);

// The widths along `result`'s legs on `image` (the image traced). `polarity` Both is resolved by
// estimateTraceLinePolarity at the result's clicks. Throws InputError for an empty image.
TraceWidth measureTraceWidth(const Image& image, const TraceResult& result, TracePolarity polarity);

} // namespace glint
