// glint-cli bench trace: the paper's table (5-8 guides x 128-1024 points, no angle limit, |ab| = 900 px,
// half-width 100 px on a 2048 x 2048 image) with the paper's own times beside ours, the default-angle
// target case, the live CPU case, and accuracy on synthetic scenes against OpenCV's Intelligent Scissors.
#include "core/algo/trace/LineTrace.h"
#include "core/algo/trace/TraceGeometry.h"
#include "scenes/TraceRealCases.h"
#include "scenes/TraceScenes.h"
#include "core/io/ImageLoader.h"
#include "bench/Bench.h"
#include "core/util/Errors.h"

#include <opencv2/imgproc/segmentation.hpp>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <string>

namespace glint {

namespace {

// Seredin (2016), table 2: the CUDA DP on a GTX 750 Ti, ms; table 1: brute force on 8 cores of an
// i7-4770K (as printed; "-" = not given).
struct PaperFigures {
    double gpuMs;
    const char* cpuBruteForce;
};
const std::map<std::pair<int, int>, PaperFigures>& paperTable() {
    static const std::map<std::pair<int, int>, PaperFigures> table = {
        {{5, 128}, {1.9, "0.3 s"}},     {{5, 256}, {7.5, "1.9 s"}},     {{5, 512}, {53.1, "13.6 s"}},
        {{5, 1024}, {460.9, "114 s"}},  {{6, 128}, {2.5, "30 s"}},      {{6, 256}, {11.4, "~7.5 min"}},
        {{6, 512}, {88.5, "~1 h 50 min"}}, {{6, 1024}, {787.8, "~29 h"}}, {{7, 128}, {3.6, "~53 min"}},
        {{7, 256}, {14.8, "~30 h"}},    {{7, 512}, {108.1, "~36 days"}}, {{7, 1024}, {1004.4, "-"}},
        {{8, 128}, {5.4, "~91 h"}},     {{8, 256}, {22.0, "~284 days"}}, {{8, 512}, {157.0, "-"}},
        {{8, 1024}, {1397.8, "-"}}};
    return table;
}

// Samples of one trace (the segments a DP can use: the fast backends score no others), for the floor.
double totalSamples(const TraceGeometry& g) {
    double samples = g.usedInteriorSamples();
    for (int i = 0; i < g.points(); ++i) samples += g.firstShape(i).samples + g.lastShape(i).samples;
    return samples;
}

// The GPU floor: a sample is about 32 instructions (two coordinate floors and conversions, two 16-byte
// loads, four cross products, the bilinear weights), four of them conversions that run at 16 a clock per
// SM: both the issue rate (128 lanes a clock) and the conversion rate give 0.25 clock per sample per SM.
// The clock is taken as 1.98 GHz (H100 SXM and H200 boost); the field's bytes (a few MB, L2-resident) and
// the DP's d^2 log d work are far below this.
double gpuFloorMs(double samples) {
    const int sms = std::max(1, cudaDevice().multiprocessors);
    return samples * 0.25 / (sms * 1.98e9) * 1e3;
}

double stepOf(const BenchRow& row, const std::string& name) {
    for (const auto& s : row.steps)
        if (s.name == name) return s.ms;
    return 0.0;
}

struct Case {
    std::string name;
    TracePoint a, b;
    TraceParams params;
};

void log(const BenchOptions& options, const std::string& text) {
    if (options.log) *options.log << text << std::endl;
}

// --sizes may name row sets instead of (or beside) points per guide: "live", "accuracy", "eval".
bool isRowSetName(const std::string& s) { return s == "live" || s == "accuracy" || s == "eval" || s == "real"; }

// Which row sets run: timing, live and accuracy when --sizes names none, else those named (numbers select
// timing cases); the evaluation scenes (eval, minutes on a CPU) only when named.
bool wantsRowSet(const BenchOptions& options, const std::string& set) {
    bool named = false, numbers = false;
    for (const auto& s : options.sizes) {
        if (isRowSetName(s)) {
            named = true;
            if (s == set) return true;
        } else {
            numbers = true;
        }
    }
    if (set == "timing") return !named || numbers;
    if (set == "eval" || set == "real") return false; // only when named
    return !named;
}

std::vector<BenchRow> timingCases(const BenchOptions& options) {
    std::vector<BenchRow> rows;
    const TraceScene scene = makeTraceScene(TraceSceneKind::BrightRoad, 5.0, 2016, 2048, 2048);
    const auto field = TraceField::compute(scene.image, {});
    // a on the road, b 900 px away towards the road 900 px further on.
    auto nearestOnCentre = [&](double x) {
        return *std::min_element(scene.centre.begin(), scene.centre.end(),
                                 [&](TracePoint p, TracePoint q) { return std::fabs(p.x - x) < std::fabs(q.x - x); });
    };
    const TracePoint a = nearestOnCentre(574.0), towards = nearestOnCentre(1474.0);
    const double len = std::hypot(towards.x - a.x, towards.y - a.y);
    const TracePoint b{a.x + 900.0 * (towards.x - a.x) / len, a.y + 900.0 * (towards.y - a.y) / len};

    std::vector<int> sizes = {128, 256, 512, 1024};
    if (!options.sizes.empty()) {
        sizes.clear();
        for (const auto& s : options.sizes) {
            if (isRowSetName(s)) continue;
            // Points per guide, the whole item, as validateTraceParams allows them.
            int d = 0;
            const char* last = s.data() + s.size();
            const auto [end, ec] = std::from_chars(s.data(), last, d);
            if (s.empty() || ec != std::errc() || end != last || d < 2 || d > kMaxTracePoints)
                throw UsageError("bench trace takes points per guide from 2 to " + std::to_string(kMaxTracePoints) +
                                 " (got '" + s + "')");
            sizes.push_back(d);
        }
    }
    std::vector<Case> cases;
    for (int n : {5, 6, 7, 8})
        for (int d : sizes) {
            TraceParams p;
            p.guides = n;
            p.points = d;
            p.halfWidth = 100.0;
            p.maxAngleDeg = 180.0;
            p.objective = TraceObjective::Sum; // the paper's objective, like for like with its times
            p.maxWidenings = 0;
            cases.push_back({"paper n" + std::to_string(n) + " d" + std::to_string(d) + " no angle limit", a, b, p});
        }
    TraceParams target;
    target.guides = 8;
    target.points = 1024;
    target.halfWidth = 100.0;
    target.maxWidenings = 0;
    cases.push_back({"target n8 d1024 45 deg", a, b, target}); // ratio objective (the default)

    std::map<Backend, std::unique_ptr<LineTracer>> tracers;
    for (Backend backend : {Backend::Reference, Backend::Cpu, Backend::Cuda}) {
        if (!options.wants(backend) || !BackendRegistry<LineTracer>::has(backend)) continue;
        if (backend == Backend::Cuda && !cudaDevice().usable) continue;
        tracers[backend] = BackendRegistry<LineTracer>::create(backend);
        JobControl job;
        tracers[backend]->setField(field, job);
    }
    std::map<std::pair<int, int>, double> referenceMs; // (n, d) -> measured reference time, for extrapolation
    for (const Case& c : cases) {
        const TraceGeometry geometry(c.a, c.b, c.params);
        const double samples = totalSamples(geometry);
        const auto paper = paperTable().find({c.params.guides, c.params.points});
        // The oracle of this case: reference where it runs in seconds, else cpu (itself checked against the
        // reference and a brute force in the tests).
        std::optional<double> oracle;
        for (auto& [backend, tracer] : tracers) {
            const int d = c.params.points, n = c.params.guides;
            if (backend == Backend::Reference && d > 256) {
                // O(n d^3): extrapolate from d = 256 of the same n (cubic DP, segment part by samples).
                const auto base = referenceMs.find({n, 256});
                if (base == referenceMs.end()) continue;
                BenchRow row;
                row.algorithm = "trace";
                row.caseName = c.name;
                row.backend = "reference";
                row.device = deviceNameFor(Backend::Reference);
                row.totalMs = base->second * std::pow(d / 256.0, 3.0);
                row.minMs = row.totalMs;
                row.extrapolated = true;
                row.note = "from d=256 times (d/256)^3";
                row.params = {{"guides", n}, {"points", d}, {"samples", samples}};
                rows.push_back(row);
                continue;
            }
            log(options, "  trace " + c.name + " on " + backendName(backend));
            JobControl check;
            const TraceLeg leg = tracer->trace(c.a, c.b, c.params, check);
            // Slow CPU rows are timed fewer times: their spread is small next to their length.
            const int repeat = backend == Backend::Cuda ? options.repeat
                               : samples > 2e8 || backend == Backend::Reference ? std::min(options.repeat, 2)
                                                                                : options.repeat;
            BenchRow row = measure(
                "trace", c.name, backend, repeat,
                [&](JobControl& job) { tracer->trace(c.a, c.b, c.params, job); });
            row.params = {{"guides", n}, {"points", d}, {"half_width", c.params.halfWidth},
                          {"max_angle", c.params.maxAngleDeg}, {"ab", 900}, {"samples", samples}};
            row.extra["score"] = leg.score;
            row.extra["mean_score"] = leg.meanScore;
            row.extra["iterations"] = leg.iterations;
            row.extra["objective"] = traceObjectiveName(c.params.objective);
            const double value = c.params.objective == TraceObjective::Sum ? leg.score : leg.meanScore;
            if (!oracle) oracle = value;
            row.verified = std::fabs(value - *oracle) <= 1e-4 * std::fabs(*oracle);
            row.note = row.verified ? "" : "score differs from the oracle! ";
            if (backend == Backend::Reference) referenceMs[{n, d}] = row.totalMs;
            if (backend == Backend::Cuda) {
                row.kernelMs = stepOf(row, "segment scores") + stepOf(row, "dp");
                row.floorMs = gpuFloorMs(samples);
            }
            if (paper != paperTable().end()) {
                row.extra["paper_gtx750ti_ms"] = paper->second.gpuMs;
                row.extra["paper_cpu_brute_force_8_cores"] = paper->second.cpuBruteForce;
                if (backend != Backend::Reference)
                    row.note += "paper: GTX 750 Ti " + std::to_string(paper->second.gpuMs).substr(0, 6) +
                                " ms, brute force " + paper->second.cpuBruteForce;
            }
            rows.push_back(row);
        }
    }
    return rows;
}

// The live case without a GPU: |ab| = 400 px, 6 guides x 128 points, default angle and half-width.
std::vector<BenchRow> liveCase(const BenchOptions& options) {
    std::vector<BenchRow> rows;
    const TraceScene scene = makeTraceScene(TraceSceneKind::BrightRoad, 5.0, 7, 1024, 768);
    const auto field = TraceField::compute(scene.image, {});
    const TracePoint a{300.25, 380.5}, b{700.25, 380.5};
    TraceParams params;
    params.guides = 6;
    params.points = 128;
    std::optional<double> oracle;
    for (Backend backend : {Backend::Reference, Backend::Cpu, Backend::Cuda}) {
        if (!options.wants(backend) || !BackendRegistry<LineTracer>::has(backend)) continue;
        if (backend == Backend::Cuda && !cudaDevice().usable) continue;
        log(options, std::string("  live case on ") + backendName(backend));
        auto tracer = BackendRegistry<LineTracer>::create(backend);
        JobControl setup;
        tracer->setField(field, setup);
        const TraceLeg leg = tracer->trace(a, b, params, setup);
        if (!oracle) oracle = leg.meanScore;
        const int repeat = backend == Backend::Reference ? std::min(options.repeat, 3) : std::max(options.repeat, 9);
        BenchRow row = measure("trace", "live |ab|=400 n6 d128 45 deg", backend, repeat,
                               [&](JobControl& job) { tracer->trace(a, b, params, job); });
        row.params = {{"guides", 6}, {"points", 128}, {"ab", 400}, {"samples", totalSamples(TraceGeometry(a, b, params))}};
        row.verified = std::fabs(leg.meanScore - *oracle) <= 1e-4 * *oracle;
        row.extra["iterations"] = leg.iterations;
        row.extra["widened"] = leg.widened;
        row.extra["objective"] = traceObjectiveName(params.objective);
        if (backend == Backend::Cpu)
            row.note = "target <= 20 ms per update on the 2-core workstation (ratio objective, " +
                       std::to_string(leg.iterations) + " DP solves)";
        if (backend == Backend::Cuda) row.kernelMs = stepOf(row, "segment scores") + stepOf(row, "dp");
        rows.push_back(row);
    }
    // The window's live preview with its defaults (issue 32): --preset auto resolved at the first click (ridge, width,
    // polarity and saturation measured there), the live parameters (liveTraceParams: the committed ones at 128
    // points a guide, adaptive guides and widening included), |ab| = 512.
    {
        // Clicks on the road's centre line, 512 px apart (the first one near x = 256).
        const std::vector<TracePoint>& centre = scene.centre;
        std::size_t first = 0;
        while (first + 1 < centre.size() && centre[first].x < 256.0) ++first;
        std::size_t last = first;
        while (last + 1 < centre.size() &&
               std::hypot(centre[last].x - centre[first].x, centre[last].y - centre[first].y) < 512.0)
            ++last;
        const TracePoint from = centre[first], to = centre[last];
        TraceRequest request = traceSpec().read(traceSpec().applyPreset(Json{{"preset", "auto"}}, &scene.image));
        request.from = from;
        request.to = to;
        JobControl resolveJob;
        const ResolvedTrace resolved = resolveTrace(scene.image, request, resolveJob);
        const TraceParams live = liveTraceParams(resolved.request.params, 128);
        const TracePoint a2 = resolved.clicks.front(), b2 = resolved.clicks.back();
        std::optional<double> liveOracle;
        for (Backend backend : {Backend::Cpu, Backend::Cuda}) {
            if (!options.wants(backend) || !BackendRegistry<LineTracer>::has(backend)) continue;
            if (backend == Backend::Cuda && !cudaDevice().usable) continue;
            log(options, std::string("  live preset auto case on ") + backendName(backend));
            auto tracer = BackendRegistry<LineTracer>::create(backend);
            JobControl setup;
            tracer->setField(resolved.field, setup);
            const TraceLeg leg = tracer->trace(a2, b2, live, setup);
            if (!liveOracle) liveOracle = leg.meanScore;
            BenchRow row = measure("trace", "live preset auto |ab|=512 d128", backend, std::max(options.repeat, 9),
                                   [&](JobControl& job) { tracer->trace(a2, b2, live, job); });
            row.params = {{"preset", "auto"}, {"points", live.points}, {"ab", std::hypot(to.x - from.x, to.y - from.y)},
                          {"width", resolved.request.field.lineWidth},
                          {"polarity", tracePolarityName(resolved.request.field.polarity)},
                          {"saturation", resolved.request.field.saturation}};
            row.verified = std::fabs(leg.meanScore - *liveOracle) <= 1e-4 * *liveOracle;
            row.extra["iterations"] = leg.iterations;
            row.extra["widened"] = leg.widened;
            row.extra["refined"] = leg.refined;
            row.extra["guides"] = static_cast<int>(leg.guideIndices.size());
            row.extra["half_width"] = leg.halfWidth;
            row.extra["confidence"] = leg.confidence;
            row.extra["refine_reasons"] = leg.refineReasons;
            if (backend == Backend::Cpu)
                row.note = "the window's live update with its defaults; target <= 20 ms median on 2 cores (" +
                           std::to_string(leg.guideIndices.size()) + " guides, " + std::to_string(leg.refineTries) +
                           " refinements tried)";
            if (backend == Backend::Cuda) row.kernelMs = stepOf(row, "segment scores") + stepOf(row, "dp");
            rows.push_back(row);
        }
    }
    return rows;
}

// The one backend the scene cases run on: cuda where it is wanted and usable, else cpu.
Backend sceneBackend(const BenchOptions& options) {
    return options.wants(Backend::Cuda) && cudaDevice().usable && BackendRegistry<LineTracer>::has(Backend::Cuda)
               ? Backend::Cuda
               : Backend::Cpu;
}

// Accuracy on synthetic scenes: our trace (ridge and magnitude) against Intelligent Scissors, same clicks.
std::vector<BenchRow> accuracyCases(const BenchOptions& options) {
    std::vector<BenchRow> rows;
    const Backend backend = sceneBackend(options);
    struct Scene {
        TraceSceneKind kind;
        double width;
    };
    const Scene scenes[] = {{TraceSceneKind::BrightRoad, 2}, {TraceSceneKind::BrightRoad, 5}, {TraceSceneKind::BrightRoad, 8},
                            {TraceSceneKind::DarkRiver, 2},  {TraceSceneKind::DarkRiver, 5},  {TraceSceneKind::DarkRiver, 8},
                            {TraceSceneKind::TexturedBoundary, 0}};
    for (const Scene& s : scenes) {
        const TraceScene scene = makeTraceScene(s.kind, s.width, 31);
        log(options, "  accuracy: " + scene.name);
        std::vector<std::pair<TraceScore, TracePolarity>> modes = {{TraceScore::Magnitude, TracePolarity::Both}};
        if (s.kind != TraceSceneKind::TexturedBoundary)
            modes.insert(modes.begin(), {TraceScore::Ridge, s.kind == TraceSceneKind::BrightRoad ? TracePolarity::Bright
                                                                                                : TracePolarity::Dark});
        for (auto [score, polarity] : modes) {
            TraceFieldOptions fo;
            fo.score = score;
            fo.polarity = polarity;
            fo.lineWidth = s.width > 0 ? s.width : 5.0;
            const auto start = std::chrono::steady_clock::now();
            const auto field = TraceField::compute(scene.image, fo);
            const double fieldMs = msSince(start);
            auto tracer = BackendRegistry<LineTracer>::create(backend);
            JobControl setup;
            tracer->setField(field, setup);
            TraceParams params;
            params.guides = 8;
            TraceLeg leg;
            BenchRow row = measure("trace-accuracy", scene.name + ", " + traceScoreName(score), backend, options.repeat,
                                   [&](JobControl& job) { leg = tracer->trace(scene.from, scene.to, params, job); });
            const double toCentre = meanDistanceToPolylines(leg.points, {scene.centre});
            const double toEdge = meanDistanceToPolylines(leg.points, scene.edges);
            const bool ridge = score == TraceScore::Ridge;
            row.verified = (ridge ? toCentre : toEdge) <= 1.5;
            row.params = {{"guides", 8}, {"points", 256}, {"score", traceScoreName(score)}, {"width", s.width}};
            row.extra = {{"mean_distance_to_centre_px", toCentre}, {"mean_distance_to_edge_px", toEdge},
                         {"field_ms", fieldMs}};
            char text[160];
            std::snprintf(text, sizeof text, "%s: mean distance %.2f px to the %s (goal <= 1.5); field %.1f ms",
                          traceScoreName(score), ridge ? toCentre : toEdge, ridge ? "centre line" : "nearest edge",
                          fieldMs);
            row.note = text;
            rows.push_back(row);
        }

        // OpenCV's Intelligent Scissors on the same image and clicks (its documented example settings).
        cv::Mat image(scene.image.height(), scene.image.width(), CV_8U,
                      const_cast<std::uint8_t*>(scene.image.samples<std::uint8_t>()));
        cv::segmentation::IntelligentScissorsMB tool;
        tool.setEdgeFeatureCannyParameters(32, 100).setGradientMagnitudeMaxLimit(200);
        const auto applyStart = std::chrono::steady_clock::now();
        tool.applyImage(image);
        const double applyMs = msSince(applyStart);
        const cv::Point from(static_cast<int>(std::lround(scene.from.x)), static_cast<int>(std::lround(scene.from.y)));
        const cv::Point to(static_cast<int>(std::lround(scene.to.x)), static_cast<int>(std::lround(scene.to.y)));
        std::vector<cv::Point> contour;
        BenchRow row = measure("trace-accuracy", scene.name + ", intelligent scissors", Backend::Cpu,
                               std::min(options.repeat, 3),
                               [&](JobControl& job) {
                                   {
                                       auto step = job.timing().scope("build map");
                                       tool.buildMap(from);
                                   }
                                   auto step = job.timing().scope("contour");
                                   tool.getContour(to, contour);
                               });
        row.backend = "opencv-is";
        row.device = "CPU, OpenCV";
        std::vector<TracePoint> path;
        for (const cv::Point& p : contour) path.push_back({static_cast<double>(p.x), static_cast<double>(p.y)});
        const double toCentre = meanDistanceToPolylines(path, {scene.centre});
        const double toEdge = meanDistanceToPolylines(path, scene.edges);
        row.verified = true;
        row.extra = {{"mean_distance_to_centre_px", toCentre}, {"mean_distance_to_edge_px", toEdge},
                     {"apply_image_ms", applyMs}, {"contour_points", contour.size()}};
        char text[160];
        std::snprintf(text, sizeof text, "IntelligentScissorsMB: %.2f px to centre, %.2f px to nearest edge; applyImage %.1f ms",
                      toCentre, toEdge, applyMs);
        row.note = text;
        rows.push_back(row);
    }
    return rows;
}

// The evaluation scenes of issue 15 (TraceScenes.h): five kinds, widths 2-16 px, bright and dark, 10 seeds
// of +-3 px click jitter each; ridge field of the true width and polarity, default parameters (6 guides x
// 256 points). One row per kind and method: the ratio objective (6 guides, and --guides auto), the sum
// objective and Intelligent Scissors, with the share of cases within 1.5 px mean distance, the worst max distance and the time per click.
std::vector<BenchRow> evaluationCases(const BenchOptions& options) {
    std::vector<BenchRow> rows;
    const Backend backend = sceneBackend(options);
    const double widths[] = {2.0, 4.0, 8.0, 16.0};
    const int seeds = 10;
    for (TraceEvalKind kind : kTraceEvalKinds) {
        log(options, std::string("  evaluation: ") + traceEvalKindName(kind));
        struct Tally {
            int cases = 0, within = 0, beyond5 = 0, refined = 0, refineTries = 0;
            double sumMean = 0.0, worstMean = 0.0, worstMax = 0.0;
            std::vector<double> ms;
            std::string worstCase;
            void add(const TraceDistance& d, double clickMs, const std::string& name) {
                ++cases;
                within += d.mean <= 1.5 ? 1 : 0;
                beyond5 += d.max > 5.0 ? 1 : 0;
                sumMean += d.mean;
                if (d.mean > worstMean) {
                    worstMean = d.mean;
                    worstCase = name;
                }
                worstMax = std::max(worstMax, d.max);
                ms.push_back(clickMs);
            }
        };
        std::map<std::string, Tally> tallies;
        for (double width : widths)
            for (bool bright : {true, false})
                for (int seed = 1; seed <= seeds; ++seed) {
                    const TraceEvalCase c{kind, width, bright, static_cast<std::uint32_t>(seed)};
                    const TraceScene scene = makeEvaluationScene(c);
                    TraceFieldOptions fo;
                    fo.score = TraceScore::Ridge;
                    fo.lineWidth = width;
                    fo.polarity = bright ? TracePolarity::Bright : TracePolarity::Dark;
                    const auto field = TraceField::compute(scene.image, fo);
                    auto tracer = BackendRegistry<LineTracer>::create(backend);
                    JobControl setup;
                    tracer->setField(field, setup);
                    for (const char* method : {"ratio", "ratio, guides auto", "sum"}) {
                        TraceParams params;
                        params.objective = std::string(method) == "sum" ? TraceObjective::Sum : TraceObjective::Ratio;
                        params.autoGuides = std::string(method) == "ratio, guides auto";
                        JobControl job;
                        const auto start = std::chrono::steady_clock::now();
                        const TraceLeg leg = tracer->trace(scene.from, scene.to, params, job);
                        const double ms = msSince(start);
                        Tally& tally = tallies[method];
                        tally.add(distanceToPolyline(leg.points, scene.centre), ms, traceEvalCaseName(c));
                        tally.refined += leg.refined > 0 ? 1 : 0;
                        tally.refineTries += leg.refineTries > 0 ? 1 : 0;
                    }
                    // Intelligent Scissors, its documented example settings, the same jittered clicks.
                    cv::Mat image(scene.image.height(), scene.image.width(), CV_8U,
                                  const_cast<std::uint8_t*>(scene.image.samples<std::uint8_t>()));
                    cv::segmentation::IntelligentScissorsMB tool;
                    tool.setEdgeFeatureCannyParameters(32, 100).setGradientMagnitudeMaxLimit(200);
                    tool.applyImage(image);
                    const auto start = std::chrono::steady_clock::now();
                    tool.buildMap(cv::Point(static_cast<int>(std::lround(scene.from.x)), static_cast<int>(std::lround(scene.from.y))));
                    std::vector<cv::Point> contour;
                    tool.getContour(cv::Point(static_cast<int>(std::lround(scene.to.x)), static_cast<int>(std::lround(scene.to.y))),
                                    contour);
                    const double ms = msSince(start);
                    std::vector<TracePoint> path;
                    for (const cv::Point& p : contour) path.push_back({static_cast<double>(p.x), static_cast<double>(p.y)});
                    tallies["intelligent scissors"].add(distanceToPolyline(path, scene.centre), ms, traceEvalCaseName(c));
                }
        for (const char* method : {"ratio", "ratio, guides auto", "sum", "intelligent scissors"}) {
            Tally& t = tallies[method];
            std::sort(t.ms.begin(), t.ms.end());
            BenchRow row;
            row.algorithm = "trace-eval";
            row.caseName = std::string(traceEvalKindName(kind)) + ", " + method;
            const bool ours = std::string(method) != "intelligent scissors";
            row.backend = ours ? backendName(backend) : "opencv-is";
            row.device = ours ? deviceNameFor(backend) : "CPU, OpenCV";
            row.repeats = 1;
            row.totalMs = t.ms.empty() ? 0.0 : t.ms[t.ms.size() / 2];
            row.minMs = t.ms.empty() ? 0.0 : t.ms.front();
            row.verified = true;
            row.params = {{"kind", traceEvalKindName(kind)}, {"method", method}, {"cases", t.cases},
                          {"widths", "2,4,8,16"}, {"polarity", "bright,dark"}, {"jitter_px", 3}, {"seeds", seeds}};
            const double share = t.cases ? 100.0 * t.within / t.cases : 0.0;
            row.extra = {{"mean_distance_px", t.cases ? t.sumMean / t.cases : 0.0},
                         {"share_mean_within_1_5_px", share},
                         {"cases_max_beyond_5_px", t.beyond5},
                         {"worst_mean_px", t.worstMean},
                         {"worst_max_px", t.worstMax},
                         {"worst_case", t.worstCase}};
            if (std::string(method) == "ratio, guides auto") {
                row.extra["cases_refined"] = t.refined;         // a finer solve was kept
                row.extra["cases_refine_tried"] = t.refineTries; // a finer solve was tried
            }
            char text[240];
            std::snprintf(text, sizeof text,
                          "%s: mean %.2f px, %.0f%% of %d cases <= 1.5 px, %d beyond 5 px (worst mean %.2f: %s), "
                          "median %.1f ms a click",
                          method, t.cases ? t.sumMean / t.cases : 0.0, share, t.cases, t.beyond5, t.worstMean,
                          t.worstCase.c_str(), row.totalMs);
            row.note = text;
            log(options, "    " + row.note);
            rows.push_back(row);
        }
    }
    return rows;
}

// The width along the path (TraceWidth.h) on the real cases (scenes/TraceRealCases.h, evaluateTraceRealWidths):
// one row with the median relative error over cases of the width along the --preset auto trace, the share within
// 25 % (1 px under 4 px), the worst case, and the same along the hand-placed centre lines.
BenchRow realWidths(const BenchOptions& options, const TraceRealSet& set, const Image& image, Backend backend) {
    const TraceRealWidths w = evaluateTraceRealWidths(image, set.cases, backend);
    Json perCase = Json::array();
    std::vector<double> ms;
    for (const TraceRealWidthCase& c : w.cases) {
        perCase.push_back({{"case", c.name}, {"truth_px", c.truth}, {"trace_px", c.trace}, {"centre_line_px", c.centreLine},
                           {"found", c.found}, {"samples", c.samples}});
        ms.push_back(c.ms);
        char line[200];
        std::snprintf(line, sizeof line, "    width %-28s truth %5.1f px: along the trace %6.2f px, along the centre line %6.2f px",
                      c.name.c_str(), c.truth, c.trace, c.centreLine);
        log(options, line);
    }
    BenchRow row;
    row.algorithm = "trace-real";
    row.caseName = "width along the path";
    row.backend = "cpu";
    row.device = "CPU";
    row.repeats = 1;
    std::sort(ms.begin(), ms.end());
    row.totalMs = ms.empty() ? 0.0 : ms[ms.size() / 2];
    row.minMs = ms.empty() ? 0.0 : ms.front();
    row.verified = true;
    const int n = static_cast<int>(w.cases.size());
    row.params = {{"method", "width along the path"}, {"cases", n}, {"image", "resources/samples/aero.png"}};
    row.extra = {{"median_relative_error", w.medianError}, {"within", w.within},
                 {"centre_line_median_relative_error", w.centreLineMedianError}, {"centre_line_within", w.centreLineWithin},
                 {"worst_relative_error", w.worstError}, {"worst_case", w.worstCase}, {"cases", perCase}};
    char text[300];
    std::snprintf(text, sizeof text,
                  "width along the path: median error %.0f %%, %d/%d within 25 %% (1 px under 4 px), worst %.0f %% (%s); "
                  "along the centre lines %.0f %%, %d/%d; median %.2f ms a trace",
                  100 * w.medianError, w.within, n, 100 * w.worstError, w.worstCase.c_str(), 100 * w.centreLineMedianError,
                  w.centreLineWithin, n, row.totalMs);
    row.note = text;
    log(options, "  " + row.note);
    return row;
}

// The real cases of issue 32 (tests/data/trace-real, scenes/TraceRealCases.h): per method one row with the median
// over cases of the case distance (median distance of the trace's 0.25-px samples to the hand-placed centre line),
// the share of cases <= 2 px and the worst case; methods: --preset auto (the window's defaults), the CLI's bare
// defaults and OpenCV's IntelligentScissorsMB on the same clicks. The repository is found at $GLINT_SOURCE_DIR,
// else the current directory.
std::vector<BenchRow> realCases(const BenchOptions& options) {
    std::vector<BenchRow> rows;
    const char* env = std::getenv("GLINT_SOURCE_DIR");
    const TraceRealSet set = loadTraceRealSet(env && *env ? env : ".");
    const Image image = loadImage(set.imagePath);
    const Backend backend = sceneBackend(options);
    struct Method {
        std::string name;
        std::function<std::vector<TracePoint>(const TraceRealCase&)> trace;
    };
    // aero.png is 8-bit grey: Intelligent Scissors gets its pixels as they are.
    const cv::Mat gray(image.height(), image.width(), CV_8U, const_cast<std::uint8_t*>(image.samples<std::uint8_t>()));
    cv::segmentation::IntelligentScissorsMB tool;
    tool.setEdgeFeatureCannyParameters(32, 100).setGradientMagnitudeMaxLimit(200);
    tool.applyImage(gray);
    const std::vector<Method> methods = {
        {"preset auto", [&](const TraceRealCase& c) { return traceRealCase(image, c, traceRequestPresetAuto(image), backend).polyline(); }},
        {"bare defaults", [&](const TraceRealCase& c) { return traceRealCase(image, c, traceRequestBare(), backend).polyline(); }},
        {"intelligent scissors", [&](const TraceRealCase& c) {
             std::vector<TracePoint> path;
             for (std::size_t i = 0; i + 1 < c.clicks.size(); ++i) {
                 tool.buildMap(cv::Point(static_cast<int>(std::lround(c.clicks[i].x)), static_cast<int>(std::lround(c.clicks[i].y))));
                 std::vector<cv::Point> contour;
                 tool.getContour(cv::Point(static_cast<int>(std::lround(c.clicks[i + 1].x)),
                                           static_cast<int>(std::lround(c.clicks[i + 1].y))), contour);
                 // getContour lists the points from the target back to the source.
                 std::reverse(contour.begin(), contour.end());
                 for (const cv::Point& p : contour) path.push_back({static_cast<double>(p.x), static_cast<double>(p.y)});
             }
             return path;
         }}};
    for (const Method& m : methods) {
        std::vector<double> distances, ms;
        Json perCase = Json::array();
        for (const TraceRealCase& c : set.cases) {
            const auto start = std::chrono::steady_clock::now();
            const std::vector<TracePoint> path = m.trace(c);
            ms.push_back(msSince(start));
            const TraceRealDistance d = traceRealDistance(path, c.truth);
            distances.push_back(d.median);
            perCase.push_back({{"case", c.name}, {"median_px", d.median}, {"max_px", d.max}});
            char line[160];
            std::snprintf(line, sizeof line, "    %-22s %-28s median %6.2f px, max %6.2f px", m.name.c_str(), c.name.c_str(),
                          d.median, d.max);
            log(options, line);
        }
        const TraceRealSummary s = summariseTraceReal(set.cases, distances);
        std::sort(ms.begin(), ms.end());
        BenchRow row;
        row.algorithm = "trace-real";
        row.caseName = m.name;
        const bool ours = m.name != "intelligent scissors";
        row.backend = ours ? backendName(backend) : "opencv-is";
        row.device = ours ? deviceNameFor(backend) : "CPU, OpenCV";
        row.repeats = 1;
        row.totalMs = ms.empty() ? 0.0 : ms[ms.size() / 2];
        row.minMs = ms.empty() ? 0.0 : ms.front();
        row.verified = true;
        row.params = {{"method", m.name}, {"cases", s.cases}, {"image", "resources/samples/aero.png"}};
        row.extra = {{"median_px", s.median}, {"share_within_2_px", s.shareWithin2}, {"worst_px", s.worst},
                     {"worst_case", s.worstCase}, {"cases", perCase}};
        char text[200];
        std::snprintf(text, sizeof text, "%s: median %.2f px, %d/%d cases <= 2 px, worst %.2f px (%s), median %.1f ms a case",
                      m.name.c_str(), s.median, s.within2, s.cases, s.worst, s.worstCase.c_str(), row.totalMs);
        row.note = text;
        log(options, "  " + row.note);
        rows.push_back(row);
    }
    rows.push_back(realWidths(options, set, image, backend));
    return rows;
}

} // namespace

void registerTraceBench() {
    // --sizes live|accuracy|eval (or points per guide) runs only those row sets; eval runs only when named.
    registerBench("trace", [](const BenchOptions& options) {
        std::vector<BenchRow> rows;
        if (wantsRowSet(options, "timing")) rows = timingCases(options);
        if (wantsRowSet(options, "live"))
            for (auto& r : liveCase(options)) rows.push_back(std::move(r));
        if (wantsRowSet(options, "accuracy"))
            for (auto& r : accuracyCases(options)) rows.push_back(std::move(r));
        if (wantsRowSet(options, "eval"))
            for (auto& r : evaluationCases(options)) rows.push_back(std::move(r));
        if (wantsRowSet(options, "real"))
            for (auto& r : realCases(options)) rows.push_back(std::move(r));
        return rows;
    });
}

} // namespace glint
