// Brightest region and K brightest (disjoint) regions: the 2-D maximum subarray of a = I - pivot over
// the included pixels. The job functions here are what the CLI, the window and the bench call.
#pragma once

#include "core/algo/maxsub/RegionSearch.h"
#include "core/jobs/Backend.h"
#include "core/jobs/JobControl.h"

#include <vector>

namespace glint {

// Validates the parameters (UsageError: K <= 0, ROI outside the image, NaN pivot),
// prepares the work array and runs the chosen backend. Records the steps in job.timing() and the
// device in job.device(); progress goes 0..1; throws Cancelled when job is cancelled.
BrightestResult runBrightest(const Image& image, const BrightestParams& params, Backend backend, JobControl& job);

// One run per pivot (the mammogram paper's figure: one rectangle per pivot, each in its own colour).
// The other parameters are shared; results are in the order of `pivots`.
std::vector<BrightestResult> runPivotSweep(const Image& image, const BrightestParams& params,
                                           const std::vector<PivotSpec>& pivots, Backend backend, JobControl& job);

// Registers the reference and CPU backends (called from registerCpuBackends()).
void registerBrightestCpuBackends();

} // namespace glint
