// The real trace cases of issue 32 (tests/data/trace-real/cases.json): features of a real aerial photograph
// with centre lines placed by hand, and clicks on them; the distance of a trace to a centre line; a trace of a
// case with a request as glint-cli trace resolves it. Used by `glint-cli bench trace --sizes real` and the
// regression test tests/cpu/test_trace_real.cpp.
#pragma once

#include "core/algo/trace/TraceSpec.h"
#include "core/io/Image.h"

#include <string>
#include <vector>

namespace glint {

struct TraceRealCase {
    std::string name;
    std::string feature;
    TracePolarity polarity = TracePolarity::Both; // the feature's (for reference; the defaults do not get it)
    std::vector<TracePoint> clicks;
    std::vector<TracePoint> truth;                // the feature's centre line
    double truthWidth = 0.0;                      // the feature's width, px, read by eye on crops (README.md)
};

struct TraceRealSet {
    std::string imagePath; // absolute
    std::vector<TraceRealCase> cases;
};

// Reads tests/data/trace-real/cases.json; `sourceDir` is the repository root (the image's path is relative to
// it). Throws InputError when the file cannot be read or is malformed.
TraceRealSet loadTraceRealSet(const std::string& sourceDir);

// A case's distance: `path` sampled every 0.25 px along its segments (its vertices included), each sample's
// distance to the polyline `truth`; the median of those samples (and their maximum).
struct TraceRealDistance {
    double median = 0.0;
    double max = 0.0;
};
TraceRealDistance traceRealDistance(const std::vector<TracePoint>& path, const std::vector<TracePoint>& truth);

// The request `--preset auto` gives on `image` (the window's defaults) and the CLI's bare defaults.
TraceRequest traceRequestPresetAuto(const Image& image);
TraceRequest traceRequestBare();

// A case traced as glint-cli trace traces it: the request with the case's clicks, resolved (resolveTrace) and
// traced on `backend`. The result's polyline is the trace; `resolvedPolarity`, when given, receives the field's
// polarity as resolved (what glint-cli trace measures the width along the path with).
TraceResult traceRealCase(const Image& image, const TraceRealCase& c, TraceRequest request, Backend backend,
                          TracePolarity* resolvedPolarity = nullptr);

// Median over cases of the case distances, the share of cases <= 2 px, the worst case.
struct TraceRealSummary {
    double median = 0.0;
    double shareWithin2 = 0.0;
    int within2 = 0;
    int cases = 0;
    double worst = 0.0;
    std::string worstCase;
};
TraceRealSummary summariseTraceReal(const std::vector<TraceRealCase>& cases, const std::vector<double>& distances);

// The width along the path (core/algo/trace/TraceWidth.h) on the real cases: per case the median of the widths
// measured along the --preset auto trace (as glint-cli trace reports width_px, with the field's resolved polarity)
// and along the hand-placed centre line (with the feature's polarity), against the feature's width read by eye.
// A width is "within" when it is within 25 % of the truth, or 1 px for features under 4 px (where the eye's
// reading is itself +-0.5 px).
struct TraceRealWidthCase {
    std::string name;
    double truth = 0.0;     // px
    double trace = 0.0;     // px, 0 when no sample found the feature
    double centreLine = 0.0;
    int samples = 0, found = 0; // along the trace
    double ms = 0.0;            // measuring the width along the trace
};
struct TraceRealWidths {
    std::vector<TraceRealWidthCase> cases;
    double medianError = 0.0, centreLineMedianError = 0.0; // relative
    int within = 0, centreLineWithin = 0;
    double worstError = 0.0;
    std::string worstCase;
};
bool traceRealWidthWithin(double width, double truth);
TraceRealWidths evaluateTraceRealWidths(const Image& image, const std::vector<TraceRealCase>& cases, Backend backend);

} // namespace glint
