// The width of the traced feature along a finished trace's path (issue 32, "width along the path (measured from
// the profile) reported"). The trace itself is not changed: its path is sampled every kTraceWidthStep px (at most
// kTraceWidthMaxSamples a leg, spread evenly) and at each sample the line-width estimator of --width auto
// (estimateTraceLineWidth's scale selection: the gamma-normalised Hessian line response of the trace's polarity,
// best sigma within a few px of the point, width 2 sigma*) measures the feature's cross profile there. A sample
// where nothing of that polarity responds is skipped.
#pragma once

#include "core/algo/trace/LineTrace.h"

#include <optional>
#include <vector>

namespace glint {

constexpr double kTraceWidthStep = 4.0;   // px between samples along a leg
constexpr int kTraceWidthMaxSamples = 48; // per leg (a longer leg's samples are spread further apart)
constexpr int kTraceWidthSearch = 3;      // px around a sample where the estimator looks for the line

struct TraceLegWidth {
    int samples = 0;                  // samples taken along the leg
    std::vector<double> widths;       // the widths found (px), in order along the leg; skipped samples left out
    std::optional<double> meanPx;     // of widths (none when no sample found the line)
    std::optional<double> medianPx;
};
struct TraceWidth {
    TracePolarity polarity = TracePolarity::Bright; // the polarity measured (never Both)
    std::vector<TraceLegWidth> legs;                // one per leg of the result
    std::optional<double> meanPx;                   // over every leg's found widths
    std::optional<double> medianPx;
};

// The line width found at one point: the estimator's weighted-median 2 sigma* for `polarity` (Bright or Dark)
// looking within `search` px of the point, or nullopt when nothing of that polarity responds there. Throws
// UsageError for a point outside the image (defined in TraceField.cpp beside the estimator).
struct TraceWidthSample {
    double width = 0.0;    // px
    double response = 0.0; // the estimator's response at that scale (> 0)
};
std::optional<TraceWidthSample> measureTraceLineWidthAt(const Image& image, TracePoint point, TracePolarity polarity, int search);

// The widths along `result`'s legs on `image` (the image traced). `polarity` Both is resolved by
// estimateTraceLinePolarity at the result's clicks. Throws InputError for an empty image.
TraceWidth measureTraceWidth(const Image& image, const TraceResult& result, TracePolarity polarity);

} // namespace glint
