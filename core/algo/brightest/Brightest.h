// Brightest region and K brightest regions: the 2-D maximum subarray of a = I - pivot over the included pixels.
// A run is resolved first (every automatic value decided from the image: resolveBrightest), then a backend is
// chosen for the resolved parameters and runs. The job functions here are what the CLI, batch, the window and
// the bench call.
#pragma once

#include "core/algo/mammogram/AutoExclude.h"
#include "core/algo/regions/RegionSearch.h"
#include "core/algo/sources/PsfWidth.h"
#include "core/export/JsonOutput.h"
#include "core/jobs/Backend.h"
#include "core/jobs/JobControl.h"
#include "core/params/ImageKind.h"

#include <memory>
#include <optional>
#include <vector>

namespace glint {

class BackgroundMap;

// Parameters with every automatic value decided, and what deciding them measured (reused by the search, so
// nothing is computed twice).
struct ResolvedBrightest {
    BrightestParams params;                      // maxBox a value or none; the auto-exclusions' shapes appended
    SearchBound bound;                           // how the search bound was decided
    std::shared_ptr<const BackgroundMap> model;  // the background model, when resolving needed it
    std::optional<MammogramExclusions> autoExclusions; // --auto-exclude mammogram: what it found
    double autoExclusionMs = 0.0;
};

// Decides every automatic value of `params` for `image` before any backend is chosen: --auto-exclude mammogram
// becomes exclusion shapes (step "auto-exclude"); --max-box auto becomes 5 PSF FWHM measured on the image's stars
// with its background model (steps "background model", "psf width"), the mesh when too few stars. Validates the
// parameters (UsageError); throws Cancelled.
ResolvedBrightest resolveBrightest(const Image& image, const BrightestParams& params, JobControl& job);

// Resolves `params` (resolveBrightest), chooses the backend for the resolved search and runs it. Records the steps
// in job.timing() (its total: resolution and search) and the device in job.device(); progress goes 0..1; throws
// Cancelled. An integer image whose percentile or median pivot is its maximum has no pixel above the pivot: the
// search runs again with the largest value below the maximum as the pivot, and the result's note says so; an
// empty result's note says why it is empty.
BrightestResult runBrightest(const Image& image, const BrightestParams& params, Backend backend, JobControl& job);
BrightestResult runResolvedBrightest(const Image& image, const ResolvedBrightest& resolved, Backend backend, JobControl& job);

// A run from a request (the parameters a user gave, as JSON: the command line, batch, --params, the window):
// the brightest spec's preset for the image's kind under the keys given, then runBrightest. `parameters` is
// what an output records: the resolved values, replayable with --params.
struct BrightestRun {
    BrightestResult result;
    ResolvedBrightest resolved;
    Json parameters;
    std::optional<ImageKindGuess> kind; // --preset auto: what the image was recognised as
};
BrightestRun runBrightestRequest(const Image& image, const Json& request, Backend backend, JobControl& job);

// One run per pivot (the mammogram paper's figure: one rectangle per pivot, each in its own colour).
// The other parameters are shared and resolved once; results are in the order of `pivots`.
std::vector<BrightestResult> runPivotSweep(const Image& image, const BrightestParams& params,
                                           const std::vector<PivotSpec>& pivots, Backend backend, JobControl& job);

// Registers the reference and CPU backends (called from registerCpuBackends()).
void registerBrightestCpuBackends();

} // namespace glint
