// The source catalogue (`glint-cli sources`, `batch --algo sources`, the window's Analyze > Sources): the
// background and noise model, the matched filter and the footprints, deblending, each source's brightest core
// (the exact brightest rectangle of its segment: the significance test), and SExtractor's measurements.
// Detection: SourceDetect.h; measurements: SourceMeasure.h; files: core/export/SourceCatalogFile.h.
#pragma once

#include "core/algo/sources/SourceCatalog.h"
#include "core/algo/sources/SourceDetect.h"
#include "core/algo/sources/SourcesSpec.h"
#include "core/export/ExportRegions.h"
#include "core/export/FitsHeaderContext.h"
#include "core/export/JsonOutput.h"
#include "core/params/ImageKind.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace glint {

class Image;
class JobControl;

struct SourcesResult {
    int width = 0, height = 0;
    SourceCatalog catalog;                   // brightest FLUX_AUTO first; NUMBER = rank
    std::vector<SourceCore> cores;           // per source, same order
    std::vector<std::int32_t> segmentation;  // width*height, 0 sky, n = catalogue NUMBER n
    std::vector<float> background, rms;      // width*height: the model the measurements used
    double globalBackground = 0.0, globalRms = 0.0;
    double filterFwhm = 0.0;                 // px, 0: none
    bool filterFromPsf = false;              // gauss:auto measured it on the image's stars
    int psfStars = 0;
    int footprints = 0, rejectedFootprints = 0, rejectedMarkers = 0;
    int cleaned = 0; // sources merged into a brighter one by CLEAN
    std::string note;                        // why the catalogue is empty, or what was decided
};

// Every automatic value decided and the catalogue made. Records the steps in job.timing(); throws Cancelled,
// UsageError (parameters that do not fit the image: an ROI outside, a mesh larger than the image) and InputError
// (a weight map that cannot be read, of another size, or with negative values).
SourcesResult runSources(const Image& image, SourcesParams& params, JobControl& job);

struct SourcesRun {
    SourcesResult result;
    Json parameters;                         // resolved: replayable with --params
    std::optional<ImageKindGuess> kind;      // --preset auto: what the image was recognised as
};
SourcesRun runSourcesRequest(const Image& image, const Json& request, JobControl& job);

// The result's fields in the one JSON form ("sources": [...], x and y 0-based).
Json sourcesResultJson(const SourcesResult& result);
// Its strict reader (sessions): InputError naming a missing or wrong field. The maps (segmentation, background,
// RMS) are not in the document: they come back empty. CXX/CYY/CXY come from A, B and THETA.
SourcesResult sourcesResultFromJson(const Json& json);

// Each source's Kron ellipse (KRON_RADIUS x A by KRON_RADIUS x B at THETA, centred on X_IMAGE, Y_IMAGE: the AUTO
// aperture FLUX_AUTO summed) as a region: --regions, the overlay and the window's File > Export Results.
std::vector<ExportRegion> regionsFromSources(const SourcesResult& result);
// The header the catalogue's files and maps carry: the image's (fitsHeaderContext) with SExtractor's SEXBKGND,
// SEXBKDEV and SEXTHLD of this run.
FitsHeaderContext sourcesHeaderContext(const Image& image, const SourcesResult& result, const Json& parameters);
// The region files' description line: "sources, threshold 3.5 sigma, 440 sources".
std::string sourcesDescription(const SourcesResult& result, const Json& parameters);

} // namespace glint
