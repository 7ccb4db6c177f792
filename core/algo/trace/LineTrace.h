// Line tracing between clicked points (DESIGN.md "Line trace"): the per-image score field, the parameters
// and result of a trace, and the backend interface that the reference, CPU and CUDA implementations share.
#pragma once

#include "core/io/Image.h"
#include "core/jobs/Backend.h"
#include "core/jobs/JobControl.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace glint {

class TraceGeometry;

enum class TraceScore { Magnitude, Sine, Ridge };
enum class TracePolarity { Bright, Dark, Both };
// What a path between two clicks maximises:
//   ratio: the mean score per pixel of length, S(P) / L(P) (the default: a detour through more scored pixels
//          wins only if it scores more per pixel). Exact by Dinkelbach's parametric method: each iteration is
//          the sum DP on segment score - lambda * segment length, lambda the best ratio found so far.
//   sum:   the total score S(P) (the paper's objective; rewards longer paths).
enum class TraceObjective { Ratio, Sum };

const char* traceScoreName(TraceScore score);
const char* tracePolarityName(TracePolarity polarity);
const char* traceObjectiveName(TraceObjective objective);
TraceScore parseTraceScore(std::string_view name);       // throws UsageError
TracePolarity parseTracePolarity(std::string_view name); // throws UsageError
TraceObjective parseTraceObjective(std::string_view name); // throws UsageError

struct TraceFieldOptions {
    TraceScore score = TraceScore::Magnitude;
    double lineWidth = 5.0;                      // ridge: width of the line in pixels; sigma = width / (2 sqrt 3)
    TracePolarity polarity = TracePolarity::Both; // ridge: bright lines, dark lines or both
    double sineThresholdFraction = 0.1;          // sine: of the 99th-percentile gradient magnitude
    // ridge: the strength at which the field saturates (0: none). --width auto (resolvedTraceField) sets it to
    // the clicked line's own strength at the first click (kTraceSaturationFactor x measureTraceLineStrength), so that a
    // stronger feature met on the way (a brighter road at a junction) scores no more per pixel than the clicked
    // one and the path along the clicked feature wins. Every vector longer than this is shortened to it.
    double saturation = 0.0;
};
// Throws UsageError for a non-positive or absurd line width or a threshold fraction outside [0, 1].
void validateTraceFieldOptions(const TraceFieldOptions& options);

// The per-pixel vector field G of a score mode. Every mode scores a sample point X on a segment of unit
// direction v as the bilinear interpolation, over the four pixels around X, of |G x v|:
//   magnitude: G = Sobel gradient (intensity per pixel)   -> |grad I| |sin(grad, v)|
//   sine:      G = gradient / |gradient| where |gradient| > threshold, else 0  -> |sin| (the paper's form)
//   ridge:     G = s * n, n the normal of the line (Hessian eigenvector), s Steger's line strength
//              -> s |cos(line direction, v)|
// Interpolating |G x v| rather than G keeps the sign-free ridge normal from cancelling between pixels.
// Computed once per image and mode; every trace on that image shares it (and the GPU uploads it once).
class TraceField {
public:
    static std::shared_ptr<const TraceField> compute(const Image& image, const TraceFieldOptions& options);
    // A field given directly as x,y pairs in storage order (tests and benches).
    static std::shared_ptr<const TraceField> fromVectors(int width, int height, std::vector<float> xy,
                                                         const TraceFieldOptions& options = {});

    int width() const { return width_; }
    int height() const { return height_; }
    const float* vectors() const { return xy_.data(); } // 2 floats a pixel, index 2*(y*width + x)
    const TraceFieldOptions& options() const { return options_; }
    double sineThreshold() const { return sineThreshold_; } // the magnitude threshold used (sine mode)
    std::uint64_t id() const { return id_; }                // unique per field, for device-side caches

private:
    TraceField(int width, int height, std::vector<float> xy, const TraceFieldOptions& options);
    int width_ = 0;
    int height_ = 0;
    std::vector<float> xy_;
    TraceFieldOptions options_;
    double sineThreshold_ = 0.0;
    std::uint64_t id_ = 0;
};

struct TracePoint {
    double x = 0.0;
    double y = 0.0;
};

// Snapping: the pixel centre within `radius` pixels of `point` (a disc) where the field is strongest (|G|:
// the ridge strength in ridge mode, the gradient magnitude in magnitude mode); the nearest of equals, and
// `point` itself when nothing within the radius scores. radius 0 returns the point. The window calls it
// as the cursor moves; glint-cli trace --snap R applies it to every click. Throws UsageError for a
// negative or non-finite radius.
TracePoint snapTracePoint(const TraceField& field, TracePoint point, double radius);

// --width auto: scale selection for the ridge mode. At the clicks and at three points between each pair,
// the gamma-normalised (gamma = 2) Hessian line strength of `polarity`, less the edge-suppression term the
// field uses, is taken at the best pixel within 6 px for each sigma of a geometric scale (0.8 to 20, x1.25);
// each point votes for its best sigma with the weight of its response, and the weighted median sigma* gives
// the width 2 sigma* (the response of a bar of width W peaks at sigma = W / 2). One click or more, inside the
// image (UsageError otherwise); --width auto measures at the first click alone (core/algo/trace/TraceSpec.h).
double estimateTraceLineWidth(const Image& image, const std::vector<TracePoint>& clicks, TracePolarity polarity);
// --width auto with --polarity both (ridge): which polarity the clicked line has. The width estimate above is run
// for bright and for dark lines, each point's best pixel looked for within kTracePolaritySearch px (a click lies
// on the line; 6 px also reached the dark shoulders beside a bright road), and the polarity whose votes respond
// more in total wins (bright on a tie). On the real cases (tests/data/trace-real) a "both" field lets a wide
// strip's neighbour of the other polarity (a bright strip beside a dark one) pull the trace off; measured
// polarity fixed that (core/algo/trace/NOTES.md).
TracePolarity estimateTraceLinePolarity(const Image& image, const std::vector<TracePoint>& clicks);
constexpr int kTracePolaritySearch = 3;
// The clicked line's strength: the largest |G| of the ridge field of `options` (its saturation ignored) within
// `radius` pixels of `point` (computed on a patch around it; 0 when nothing there is line-like).
double measureTraceLineStrength(const Image& image, TracePoint point, const TraceFieldOptions& options, double radius);
// The field's saturation: this multiple of the strength measured within kTraceSaturationRadius px of the first
// click (real cases: 0.75-1.25 all meet the targets, 1 is best on the tuning features; NOTES.md).
constexpr double kTraceSaturationFactor = 1.0;
constexpr double kTraceSaturationRadius = 3.0;

struct TraceParams {
    int guides = 6;            // n
    int points = 256;          // d, points per guide
    double halfWidth = 0.0;    // w; 0 = a quarter of |ab|, at least 8 px
    double maxAngleDeg = 45.0; // theta, in (0, 180]; 180 = unconstrained
    TraceObjective objective = TraceObjective::Ratio;
    // When the optimum comes near the end of a guide or has a gap (wantsWiderGuides), the half-width and
    // the number of guides grow by kTraceWidenFactor and the leg is solved again, at most this many times
    // (0: the guides are fixed), the half-width never beyond traceWidestHalfWidth; the wider optimum is kept only
    // if its objective is higher. A leg reports its final half-width and guides (guideIndices.size()).
    int maxWidenings = 3;
    // --guides auto (the window's default): guides that adapt to the feature. `guides` is the first solve's
    // count; a leg whose fit is poor (needsTraceRefinement: low confidence, a sharp turn at a guide, the
    // optimum at a guide's end) is solved again with 2n + 1 guides (every old guide stays a guide: a finer
    // polyline can follow a bend the coarse one cut), widening as above, at most kMaxTraceRefinements times;
    // a finer optimum is kept only if its objective is higher. Every solve is exact on its guides.
    bool autoGuides = false;
};
constexpr int kMaxTraceRefinements = 2;
// The parameters of the window's live preview (issue 32, live = committed): the committed trace's, widenings and
// adaptive guides included, with at most `livePoints` points per guide (at least 2). The preview is then the same
// objective on the same guides' layout, only sampled more coarsely across; tests/cpu/test_trace_real.cpp checks
// that it stays within 1 px of the committed trace on the real cases.
TraceParams liveTraceParams(const TraceParams& committed, int livePoints);
// A leg is refined (autoGuides) when its confidence is below this (good legs on the evaluation scenes score
// 0.8-0.97; legs across clutter 0.4-0.7) ...
constexpr double kTraceRefineConfidence = 0.8;
// ... or when it turns at some guide by at least this fraction of the angle limit (the feature bends between
// the guides, and their chords cut it).
constexpr double kTraceRefineTurnFraction = 0.5;
constexpr double kTraceWidenFactor = 1.5;
// "Near a guide's end": points 0..margin and d-1-margin..d-1, the outer eighth of the half-width on each side.
constexpr int traceWidenMargin(int points) { return points / 16; }
constexpr int kMaxTraceWidenings = 10;
// A segment whose score per pixel is below this fraction of the leg's mean is a gap (the feature was lost).
constexpr double kTraceGapFraction = 0.25;

// Dinkelbach's iterations stop when the parametric optimum max S - lambda L is at most this fraction of
// lambda L (the ratio is then optimal up to float rounding), or after kMaxTraceIterations.
constexpr double kTraceRatioTolerance = 1e-6;
constexpr int kMaxTraceIterations = 30;

// Largest sizes accepted: d fits the 16-bit back-pointers and the GPU's shared memory; guides * points^2
// bounds the memory of the DP tables (about 6 bytes per entry).
constexpr int kMaxTracePoints = 4096;
constexpr int kMaxTraceGuides = 1024;
constexpr long long kMaxTraceGuidePointPairs = 1LL << 26;

// Throws UsageError: n < 1, d < 2, angle outside (0, 180], negative or non-finite half-width, sizes too large,
// widenings outside [0, kMaxTraceWidenings].
void validateTraceParams(const TraceParams& params);
// Throws UsageError when a point lies outside the image ([-0.5, W-0.5] x [-0.5, H-0.5]), is not finite,
// or two consecutive points are equal.
void validateTracePoints(const std::vector<TracePoint>& points, int width, int height);
// The half-width a leg a -> b uses: params.halfWidth, or max(8, |ab| / 4).
double traceHalfWidth(TracePoint a, TracePoint b, const TraceParams& params);
// The most a leg's half-width may grow to (widening, --guides auto): max(its first half-width,
// kTraceWidestFraction x |ab|). A bound tied to the click distance: the guides never reach into features half
// a leg's length away (issue 32: a street's band grew to 230 px and the trace wandered into the next blocks).
constexpr double kTraceWidestFraction = 0.5;
double traceWidestHalfWidth(TracePoint a, TracePoint b, const TraceParams& params);

struct TraceLeg;
// Whether a leg asks for wider guides: a point near a guide's end (traceWidenMargin), or a gap (an interior
// segment, q_k -> q_k+1, scoring under kTraceGapFraction of the leg's mean per pixel: the feature may lie
// outside; the first and last segments are not counted, a click may sit beside the feature).
bool wantsWiderGuides(const TraceLeg& leg, int points);

// Why a leg asks for finer guides (autoGuides), empty when it does not: any of "low confidence" (below
// kTraceRefineConfidence), "sharp turn" (a turn at a guide of at least kTraceRefineTurnFraction x the angle
// limit), "guide end" (the optimum still touches a guide's end or has a gap: wantsWiderGuides). The leg's
// confidence must be measured.
std::vector<std::string> needsTraceRefinement(const TraceLeg& leg, const TraceParams& params);

// One leg a -> b: the optimum path a, q_1..q_n, b.
struct TraceLeg {
    TracePoint from;
    TracePoint to;
    double halfWidth = 0.0;
    std::vector<int> guideIndices;      // q_k is point guideIndices[k-1] (0..d-1) of guide k
    std::vector<TracePoint> points;     // a, q_1..q_n, b
    std::vector<double> segmentScores;  // n + 1, each segment's score evaluated in double precision
    double score = 0.0;                 // sum of segmentScores
    double optimumScore = 0.0;          // the path's total score as the backend's DP found it (float on cpu/cuda)
    double length = 0.0;                // of the path, pixels
    double meanScore = 0.0;             // score / length: what the ratio objective maximises
    int iterations = 1;                 // DP solves of the final half-width (ratio: Dinkelbach's iterations)
    int widened = 0;                    // times the guides grew (wantsWiderGuides)
    int refined = 0;                    // autoGuides: refinements kept (each 2n + 1 guides)
    int refineTries = 0;                // autoGuides: refinements solved (kept or not)
    std::vector<std::string> refineReasons; // autoGuides: why the first refinement was tried (needsTraceRefinement)
    double backgroundScore = 0.0;       // mean score per pixel of the leg moved sideways (traceLegBackground)
    double confidence = 1.0;            // max(0, 1 - background / mean score): 0 = no better than beside it
    bool confidenceMeasured = false;    // measureTraceLegConfidence ran on this path (not in the JSON)
};

// The local background of a leg: the mean, over copies of its polyline moved perpendicular to a -> b by
// +-1..4 steps of max(4, 1.5 x line width) pixels, of their score per pixel (each copy scored like the leg,
// segment by segment, in double precision). Sets leg.backgroundScore and leg.confidence. A weak leg (a
// likely detour or a feature that is not there) has a confidence under about 0.5.
void measureTraceLegConfidence(const TraceField& field, TraceLeg& leg);

// Chained legs through clicks p0 -> p1 -> ... -> pm.
struct TraceResult {
    std::vector<TraceLeg> legs;
    double score = 0.0;
    Backend backend = Backend::Reference;     // the backend that ran (auto resolved)
    std::string device;
    std::shared_ptr<const TraceField> field; // the field traced on (runTrace computes it; a caller may keep it)
    std::vector<TracePoint> polyline() const;        // every leg's points, shared click points once
    std::vector<double> segmentScores() const;       // every leg's segment scores, in order
};

// One backend of the trace. Bind it to an image's field once (setField), then call trace() for each
// pair of points: the prepared state (the field on the GPU, scratch buffers) is reused, so live tracing
// under the mouse costs only the trace itself. One trace at a time per tracer object.
class LineTracer {
public:
    virtual ~LineTracer() = default;
    virtual Backend backend() const = 0;
    // Binds the field (the CUDA backend uploads it here, timed as "upload field" in job).
    virtual void setField(std::shared_ptr<const TraceField> field, JobControl& job);
    const std::shared_ptr<const TraceField>& field() const { return field_; }
    // The best path from a to b. Throws UsageError for invalid points or parameters, or when no path keeps
    // every turn within the angle limit (possible only for tiny limits); Cancelled when cancelled. Records
    // the steps in job.timing() and sets its total to the call's wall time.
    TraceLeg trace(TracePoint a, TracePoint b, const TraceParams& params, JobControl& job);
    // Legs through clicks p0 -> p1 -> ... -> pm, each traced on its own: a click is a vertex the user
    // placed, so the turn at a --via point is not limited (a road's corner is where one clicks), and a leg
    // already fixed in the window never changes when the next one is traced.
    TraceResult traceChain(const std::vector<TracePoint>& clicks, const TraceParams& params, JobControl& job);

protected:
    // The backend's optimum: the guide indices of q_1..q_n and its DP value (-inf when none is feasible).
    struct Optimum {
        std::vector<int> indices;
        double score = 0.0;
    };
    // Scores every segment of the geometry (kept for the optimize() calls that follow on the same geometry).
    virtual void scoreSegments(const TraceGeometry& geometry, JobControl& job) = 0;
    // The DP over the scored segments with edge weight score - lambda * length (lambda = 0: the sum).
    virtual Optimum optimize(const TraceGeometry& geometry, double lambda, JobControl& job) = 0;
    // The same in two halves, for a backend that computes elsewhere (the GPU): launch the DP, let the caller
    // work on the host meanwhile, then wait for the optimum. By default the work is done in finish.
    virtual void launchOptimize(const TraceGeometry&, double, JobControl&) {}
    virtual Optimum finishOptimize(const TraceGeometry& geometry, double lambda, JobControl& job) {
        return optimize(geometry, lambda, job);
    }
    // Whether launchOptimize() returns before the DP is done (host work between the halves is then free).
    virtual bool optimizesAsynchronously() const { return false; }
    std::shared_ptr<const TraceField> field_;

private:
    // The optimum of the objective on one geometry (nullopt when no path is feasible).
    // The geometry's turns are computed here, after scoreSegments() (which needs only its shapes).
    std::optional<TraceLeg> solveObjective(TraceGeometry& geometry, TraceObjective objective, JobControl& job);
    // The leg on `params`' guides, widened while it wants wider guides (params.maxWidenings); its confidence
    // measured. `widest` bounds the half-width.
    TraceLeg solveWidening(TracePoint a, TracePoint b, const TraceParams& params, JobControl& job);
    TraceLeg traceLeg(TracePoint a, TracePoint b, const TraceParams& params, JobControl& job);
};

// The CPU backend's expected time for a chain through clicks, ms (what `auto` weighs): ~2.6 ns of CPU time
// a field sample, and a leg samples about points^2 x 1.2 |ab| (core/algo/trace/NOTES.md).
double estimatedTraceCpuMs(const std::vector<TracePoint>& clicks, const TraceParams& params);

// The job function of a trace (glint-cli trace, batch): validates the parameters, the field options and
// the clicks (UsageError), resolves the backend (auto weighs estimatedTraceCpuMs; a GPU run reports the
// device's set-up as device_init, apart from the total), computes the field as step "field", binds it
// ("upload field" on the GPU) and traces the chain. Records the steps, the device and the total (field,
// binding and trace) in job; progress goes 0..1; throws Cancelled.
TraceResult runTrace(const Image& image, const std::vector<TracePoint>& clicks, const TraceParams& params,
                     const TraceFieldOptions& fieldOptions, Backend backend, JobControl& job);
// The same on a field the caller computed earlier and keeps between requests: no "field" step.
TraceResult runTrace(std::shared_ptr<const TraceField> field, const std::vector<TracePoint>& clicks,
                     const TraceParams& params, Backend backend, JobControl& job);

std::unique_ptr<LineTracer> makeLineTracerReference();
std::unique_ptr<LineTracer> makeLineTracerCpu();
// Registers reference and cpu with BackendRegistry<LineTracer> (called from registerCpuBackends()).
void registerLineTraceCpuBackends();

} // namespace glint
