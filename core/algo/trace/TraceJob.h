// The trace's job function: field, backend, chain, timing — what the CLI, batch and the window call.
#pragma once

#include "core/algo/trace/LineTrace.h"

namespace glint {

struct TraceRun {
    TraceResult result;
    Backend backend = Backend::Reference; // the backend that ran (auto resolved)
    std::string device;
    double sineThreshold = 0.0; // the magnitude threshold the sine score used
};

// The CPU backend's expected time for a chain, ms (what `auto` weighs: ~2.6 ns of CPU time a field
// sample, and a leg samples about points^2 x 1.2 |ab|; core/algo/trace/NOTES.md).
double estimatedTraceCpuMs(const std::vector<TracePoint>& clicks, const TraceParams& params);

// Computes the field (timing step "field"), resolves the backend, traces the chain through the clicks.
// The total covers all of it; the GPU's one-time set-up is reported apart (device_init). Throws
// UsageError for bad parameters or points outside the image, Cancelled when cancelled.
TraceRun runTrace(const Image& image, const std::vector<TracePoint>& clicks, const TraceParams& params,
                  const TraceFieldOptions& fieldOptions, Backend backend, JobControl& job);

} // namespace glint
