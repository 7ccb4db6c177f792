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
// traced on `backend`. The result's polyline is the trace.
TraceResult traceRealCase(const Image& image, const TraceRealCase& c, TraceRequest request, Backend backend);

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

} // namespace glint
