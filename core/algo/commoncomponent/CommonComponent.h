// Common component of two images (2-D longest common substring): the offset and the largest 4-connected
// set of pixels where image A matches image B shifted by that offset. Interface, result and job function.
#pragma once

#include "core/io/Image.h"
#include "core/jobs/Backend.h"
#include "core/jobs/JobControl.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace glint {

namespace common_component {
struct OffsetRange;
struct Registration;
} // namespace common_component

struct CommonOffset {
    int dx = 0; // A(x, y) <-> B(x + dx, y + dy)
    int dy = 0;
    friend bool operator==(const CommonOffset&, const CommonOffset&) = default;
};

// How B's values are mapped onto A's before matching (findCommonComponent does it; the backends match
// the images they are given). None: the paper's definition. Linear: B' = gain * B + bias, a robust fit
// (medians and median absolute deviations) on the overlap at the registered offset. Rank: B' = A's value
// at B's quantile (histogram matching) on that overlap.
enum class CommonNormalize { None, Linear, Rank };
const char* commonNormalizeName(CommonNormalize n);
// "none", "linear", "rank"; anything else is a UsageError.
CommonNormalize parseCommonNormalize(const std::string& text);

struct CommonComponentParams {
    // A(x, y) matches B(x + dx, y + dy) when both exist, neither is blank and |A - B| <= tolerance
    // (after normalising B).
    double tolerance = 0.0;
    // Only offsets with |dx|, |dy| <= maxShift are searched; negative = every offset with any overlap.
    long long maxShift = -1;
    CommonNormalize normalize = CommonNormalize::None;
    // Offsets the fast backends label first (findCommonComponent fills it from phase correlation): a
    // strong component found early lets the exact search skip more. A hint only: never changes the answer.
    std::vector<CommonOffset> candidates;
};

// How far to trust the answer (findCommonComponent fills it; a backend's run() leaves it empty).
struct CommonComponentConfidence {
    std::uint64_t overlapArea = 0; // pixels of A that B covers at the offset
    double coverage = 0.0;         // size / overlapArea (0 when nothing was found)
    bool reliable = false;         // coverage >= kCommonReliableCoverage
    bool registered = false;       // phase correlation ran and found a peak
    double registrationPeak = 0.0; // highest value of the phase-correlation surface (1 = pure translation)
    bool hasRunnerUp = false;      // another registration candidate had a component
    CommonOffset runnerUp;         // the largest component at another candidate offset of the registration
    std::uint64_t runnerUpSize = 0;
    // The normalisation applied: B' = gain * B + bias (linear; gain 1, bias 0 otherwise).
    double gain = 1.0;
    double bias = 0.0;
};
// Below this coverage the component is not a reliable registration of the two images.
constexpr double kCommonReliableCoverage = 0.05;

// How much of the offset space each stage settled: the GUI and the CLI JSON show these.
struct CommonComponentStats {
    std::uint64_t offsets = 0;        // offsets searched (with overlap, within the maximum shift)
    std::uint64_t prunedByArea = 0;   // overlap area no larger than the best component already found
    std::uint64_t prunedByBound = 0;  // quantised-code match count no larger than the best
    std::uint64_t prunedByCount = 0;  // exact match count no larger than the best
    std::uint64_t labelled = 0;       // offsets whose match mask was labelled
    std::uint64_t seedCandidates = 0; // offsets proposed before the search (registration, patch matching)
};

// The largest component at one of the registration's candidate offsets (what the runner-up is taken from).
struct CommonCandidateSize {
    CommonOffset offset;
    std::uint64_t size = 0;
};

struct CommonComponentResult {
    bool found = false;            // false: no pixel of A matches B at any offset (size 0, no offset)
    int dx = 0;                    // A(x, y) <-> B(x + dx, y + dy)
    int dy = 0;
    std::uint64_t size = 0;        // pixels in the component
    int bboxX = 0;                 // bounding box of the component in A's frame
    int bboxY = 0;
    int bboxWidth = 0;
    int bboxHeight = 0;
    int maskWidth = 0;             // = width of A
    int maskHeight = 0;            // = height of A
    std::vector<std::uint8_t> mask; // maskWidth * maskHeight bytes, 1 = in the component; empty when !found
    CommonComponentStats stats;
    CommonComponentConfidence confidence;
    // The fast backends label the first candidates of params.candidates before the search and report the
    // largest component at each here (findCommonComponent takes the runner-up from them, without
    // labelling those offsets again); empty from the reference.
    std::vector<CommonCandidateSize> candidateSizes;
    Backend backend = Backend::Reference; // the backend that ran (auto resolved; set by findCommonComponent)
    std::string device;
};

class CommonComponentAlgorithm {
public:
    virtual ~CommonComponentAlgorithm() = default;
    // Throws UsageError for invalid parameters, Cancelled when job is cancelled, BackendUnavailable when
    // the device cannot run it.
    virtual CommonComponentResult run(const Image& a, const Image& b, const CommonComponentParams& params,
                                      JobControl& job) = 0;
    // Phase correlation of a and b on the backend's device (findCommonComponent's registration step):
    // false when the backend has none, and the host's registerByPhaseCorrelation() runs instead. Either
    // gives candidates only (hints), so the answer of the search does not depend on which ran.
    virtual bool registerImages(const Image& a, const Image& b, const common_component::OffsetRange& range, int peaks,
                                common_component::Registration& out, JobControl& job) {
        (void)a, (void)b, (void)range, (void)peaks, (void)out, (void)job;
        return false;
    }
};

// How many of params.candidates the fast backends label first whatever their match count, so that the
// runner-up (the largest component at up to 4 candidates other than the answer) needs no labelling after.
constexpr std::size_t kCommonLabelledCandidates = 5;

using CommonComponentRegistry = BackendRegistry<CommonComponentAlgorithm>;

// The job function the CLI and the window call: registers B against A (phase correlation: the candidate
// offsets), normalises B (params.normalize), picks the backend, records the device and the total time in
// job, and returns the result with the backend that ran, its device and the confidence.
CommonComponentResult findCommonComponent(const Image& a, const Image& b, const CommonComponentParams& params,
                                          Backend backend, JobControl& job);

// Throws UsageError for a negative or non-finite tolerance.
void validateCommonComponentParams(const CommonComponentParams& params);
// What every backend's run() does first (it may be called without findCommonComponent): validates the
// parameters and records the backend's device in job.
void beginCommonComponentRun(const CommonComponentParams& params, Backend backend, JobControl& job);
// The largest |dx| or |dy| at which images of these sizes still overlap; a maxShift beyond it (it would
// search nothing more) is a UsageError naming the valid range. Negative = every offset, always valid.
// glint-cli checks it; findCommonComponent() does not (the window's spin box keeps its value across images).
long long maxUsefulShift(int wA, int hA, int wB, int hB);
void validateMaxShift(long long maxShift, int wA, int hA, int wB, int hB);

// "B's top-left sits at (423, 19) in A" (or where A's top-left sits in B when B's corner lies outside A):
// the offset in words for the CLI's text and the window.
std::string commonPlacementSentence(const CommonComponentResult& result);

// The match relation every backend implements (blank and non-finite samples never match).
inline bool samplesMatch(double a, double b, double tolerance) {
    const double d = a - b;
    return (d < 0 ? -d : d) <= tolerance;
}

// Registers the reference and cpu backends (called from registerCpuBackends()).
void registerCommonComponentCpuBackends();

} // namespace glint
