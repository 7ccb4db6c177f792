#include "core/algo/trace/LineTrace.h"

#include "core/algo/trace/TraceGeometry.h"
#include "core/jobs/JobRunner.h"
#include "core/util/Errors.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <numbers>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>

namespace glint {

TraceParams liveTraceParams(const TraceParams& committed, int livePoints) {
    TraceParams p = committed;
    p.points = std::clamp(livePoints, 2, std::max(2, committed.points));
    return p;
}

namespace {

std::string pointText(TracePoint p) {
    std::ostringstream text;
    text << p.x << "," << p.y;
    return text.str();
}

std::string degreesText(double v) {
    std::ostringstream text;
    text << v;
    return text.str();
}

double objectiveValue(const TraceLeg& leg, TraceObjective objective) {
    return objective == TraceObjective::Sum ? leg.score : leg.meanScore;
}

} // namespace

bool wantsWiderGuides(const TraceLeg& leg, int points) {
    const int margin = traceWidenMargin(points);
    for (int i : leg.guideIndices)
        if (i <= margin || i >= points - 1 - margin) return true;
    // Interior segments only: a click may sit beside the feature, so the first and last are often weak.
    for (std::size_t k = 1; k + 1 < leg.segmentScores.size(); ++k) {
        const double length = std::hypot(leg.points[k + 1].x - leg.points[k].x, leg.points[k + 1].y - leg.points[k].y);
        if (leg.segmentScores[k] < kTraceGapFraction * leg.meanScore * length) return true;
    }
    return false;
}

const char* traceObjectiveName(TraceObjective objective) {
    return objective == TraceObjective::Sum ? "sum" : "ratio";
}

TraceObjective parseTraceObjective(std::string_view name) {
    if (name == "ratio") return TraceObjective::Ratio;
    if (name == "sum") return TraceObjective::Sum;
    throw UsageError("unknown objective '" + std::string(name) + "' (ratio or sum)");
}

void validateTraceParams(const TraceParams& params) {
    if (params.guides < 1) throw UsageError("the number of guides must be at least 1");
    if (params.guides > kMaxTraceGuides)
        throw UsageError("the number of guides must be at most " + std::to_string(kMaxTraceGuides));
    if (params.points < 2) throw UsageError("the number of points per guide must be at least 2");
    if (params.points > kMaxTracePoints)
        throw UsageError("the number of points per guide must be at most " + std::to_string(kMaxTracePoints));
    if (static_cast<long long>(params.guides) * params.points * params.points > kMaxTraceGuidePointPairs)
        throw UsageError("guides x points^2 must be at most " + std::to_string(kMaxTraceGuidePointPairs) +
                         " (fewer guides or points per guide)");
    if (!std::isfinite(params.maxAngleDeg) || params.maxAngleDeg <= 0.0 || params.maxAngleDeg > 180.0)
        throw UsageError("the maximum turning angle must be in (0, 180] degrees");
    if (!std::isfinite(params.halfWidth) || params.halfWidth < 0.0)
        throw UsageError("the half-width must be a positive number of pixels (0 = a quarter of the distance)");
    if (params.halfWidth > 1e6) throw UsageError("the half-width must be at most 1e6 pixels");
    if (params.maxWidenings < 0 || params.maxWidenings > kMaxTraceWidenings)
        throw UsageError("the number of widenings must be from 0 to " + std::to_string(kMaxTraceWidenings));
}

void validateTracePoints(const std::vector<TracePoint>& points, int width, int height) {
    if (points.size() < 2) throw UsageError("a trace needs at least two points");
    for (const TracePoint& p : points) {
        if (!std::isfinite(p.x) || !std::isfinite(p.y)) throw UsageError("trace points must be finite");
        if (p.x < -0.5 || p.y < -0.5 || p.x > width - 0.5 || p.y > height - 0.5)
            throw UsageError("trace point " + pointText(p) + " lies outside the image (" + std::to_string(width) +
                             " x " + std::to_string(height) + ")");
    }
    for (std::size_t i = 1; i < points.size(); ++i)
        if (points[i].x == points[i - 1].x && points[i].y == points[i - 1].y)
            throw UsageError("consecutive trace points are equal (" + pointText(points[i]) + ")");
}

double traceHalfWidth(TracePoint a, TracePoint b, const TraceParams& params) {
    if (params.halfWidth > 0.0) return params.halfWidth;
    return std::max(8.0, 0.25 * std::hypot(b.x - a.x, b.y - a.y));
}

double traceWidestHalfWidth(TracePoint a, TracePoint b, const TraceParams& params) {
    return std::max(traceHalfWidth(a, b, params), kTraceWidestFraction * std::hypot(b.x - a.x, b.y - a.y));
}

std::vector<TracePoint> TraceResult::polyline() const {
    std::vector<TracePoint> out;
    for (const TraceLeg& leg : legs)
        for (std::size_t i = out.empty() ? 0 : 1; i < leg.points.size(); ++i) out.push_back(leg.points[i]);
    return out;
}

std::vector<double> TraceResult::segmentScores() const {
    std::vector<double> out;
    for (const TraceLeg& leg : legs) out.insert(out.end(), leg.segmentScores.begin(), leg.segmentScores.end());
    return out;
}

void LineTracer::setField(std::shared_ptr<const TraceField> field, JobControl&) { field_ = std::move(field); }

TraceLeg LineTracer::trace(TracePoint a, TracePoint b, const TraceParams& params, JobControl& job) {
    const auto start = std::chrono::steady_clock::now();
    TraceLeg leg = traceLeg(a, b, params, job);
    job.timing().setTotal(msSince(start));
    return leg;
}

TraceLeg LineTracer::traceLeg(TracePoint a, TracePoint b, const TraceParams& params, JobControl& job) {
    if (!field_) throw std::logic_error("LineTracer::trace before setField");
    validateTraceParams(params);
    validateTracePoints({a, b}, field_->width(), field_->height());
    // Every backend's leg starts here: a job cancelled before it is not run (a small CUDA leg is one
    // launch with no cancel check inside).
    job.throwIfCancelled();
    job.setDevice(deviceNameFor(backend()));
    TraceLeg leg = solveWidening(a, b, params, job);
    if (!params.autoGuides) return leg;
    // Guides that adapt: a leg whose fit is poor is solved again on 2n + 1 guides (the old guides stay guides,
    // so the finer polyline can follow a bend that the chords of the coarse one cut), from the half-width the
    // leg reached. Kept only when its objective is higher; at most kMaxTraceRefinements rounds.
    std::vector<std::string> reasons = needsTraceRefinement(leg, params);
    const std::vector<std::string> firstReasons = reasons;
    int tries = 0, kept = 0;
    const long long pairs = static_cast<long long>(params.points) * params.points;
    const int mostGuides = static_cast<int>(std::min<long long>(kMaxTraceGuides, kMaxTraceGuidePointPairs / pairs));
    while (!reasons.empty() && tries < kMaxTraceRefinements) {
        const int current = static_cast<int>(leg.guideIndices.size());
        if (current >= mostGuides) break;
        TraceParams finer = params;
        const bool lowConfidence = std::find(reasons.begin(), reasons.end(), "low confidence") != reasons.end();
        const double widest = traceWidestHalfWidth(a, b, params);
        if (lowConfidence && leg.halfWidth < widest) {
            // A weak leg may have missed the feature altogether (a bend beyond the band that the optimum never
            // reached): one widening step, whether or not the optimum touched a guide's end.
            finer.guides = std::min(mostGuides, static_cast<int>(std::ceil(current * kTraceWidenFactor)));
            finer.halfWidth = std::min(widest, leg.halfWidth * kTraceWidenFactor);
        } else {
            finer.guides = std::min(mostGuides, 2 * current + 1);
            finer.halfWidth = leg.halfWidth;
        }
        finer.maxWidenings = std::max(0, params.maxWidenings - leg.widened);
        job.throwIfCancelled();
        ++tries;
        std::optional<TraceLeg> attempt;
        try {
            attempt = solveWidening(a, b, finer, job);
        } catch (const UsageError&) {
            break; // no feasible path on the finer guides (a tiny angle limit): keep the coarse optimum
        }
        if (objectiveValue(*attempt, params.objective) <= objectiveValue(leg, params.objective)) break;
        attempt->widened += leg.widened;
        leg = std::move(*attempt);
        ++kept;
        reasons = needsTraceRefinement(leg, params);
    }
    leg.refined = kept;
    leg.refineTries = tries;
    leg.refineReasons = tries ? firstReasons : std::vector<std::string>{};
    return leg;
}

TraceLeg LineTracer::solveWidening(TracePoint a, TracePoint b, const TraceParams& params, JobControl& job) {
    TraceParams current = params;
    current.halfWidth = traceHalfWidth(a, b, params);
    const double widest = traceWidestHalfWidth(a, b, params);
    std::optional<TraceLeg> leg;
    for (int widened = 0;; ++widened) {
        std::optional<TraceGeometry> geometry;
        {
            auto step = job.timing().scope("geometry");
            geometry.emplace(a, b, current, false); // the turns after the segments are scored (solveObjective)
        }
        std::optional<TraceLeg> attempt = solveObjective(*geometry, params.objective, job);
        if (!attempt) {
            if (leg) break; // a wider, coarser set of guides lost every feasible path: keep the narrower optimum
            throw UsageError("no path keeps every turn within " + degreesText(params.maxAngleDeg) +
                             " degrees (raise the maximum angle, or use more points per guide)");
        }
        // A wider search is kept only when it found a better path (its guides are coarser, so it may not).
        if (leg && objectiveValue(*attempt, params.objective) <= objectiveValue(*leg, params.objective)) break;
        attempt->widened = widened;
        leg = std::move(attempt);
        if (widened >= params.maxWidenings || current.halfWidth >= widest || !wantsWiderGuides(*leg, params.points))
            break;
        // Wider guides, and more of them: a feature that leaves the band bends, and the polyline through
        // n guides cuts a bend of amplitude A by about A (pi / (n + 1))^2 / 8. The segment samples stay
        // about d^2 |ab| whatever n is, so more guides cost little (the DP grows as n d^2).
        current.halfWidth = std::min(widest, current.halfWidth * kTraceWidenFactor);
        const int moreGuides = static_cast<int>(std::ceil(current.guides * kTraceWidenFactor));
        const long long pairs = static_cast<long long>(current.points) * current.points;
        current.guides = static_cast<int>(std::min<long long>(
            {static_cast<long long>(moreGuides), kMaxTraceGuides, kMaxTraceGuidePointPairs / pairs}));
        job.throwIfCancelled();
    }
    if (!leg->confidenceMeasured) {
        auto step = job.timing().scope("confidence");
        measureTraceLegConfidence(*field_, *leg);
    }
    return std::move(*leg);
}

std::vector<std::string> needsTraceRefinement(const TraceLeg& leg, const TraceParams& params) {
    std::vector<std::string> reasons;
    if (leg.confidence < kTraceRefineConfidence) reasons.push_back("low confidence");
    double sharpest = 0.0;
    for (std::size_t k = 1; k + 1 < leg.points.size(); ++k) {
        const TracePoint p = leg.points[k - 1], q = leg.points[k], r = leg.points[k + 1];
        const double ux = q.x - p.x, uy = q.y - p.y, vx = r.x - q.x, vy = r.y - q.y;
        sharpest = std::max(sharpest, std::fabs(std::atan2(ux * vy - uy * vx, ux * vx + uy * vy)));
    }
    if (sharpest * 180.0 / std::numbers::pi >= kTraceRefineTurnFraction * params.maxAngleDeg)
        reasons.push_back("sharp turn");
    if (wantsWiderGuides(leg, params.points)) reasons.push_back("guide end");
    return reasons;
}

TracePoint snapTracePoint(const TraceField& field, TracePoint point, double radius) {
    if (!std::isfinite(radius) || radius < 0.0) throw UsageError("the snap radius must be 0 or more pixels");
    if (radius == 0.0 || !std::isfinite(point.x) || !std::isfinite(point.y)) return point;
    const int x0 = std::max(0, static_cast<int>(std::floor(point.x - radius)));
    const int x1 = std::min(field.width() - 1, static_cast<int>(std::ceil(point.x + radius)));
    const int y0 = std::max(0, static_cast<int>(std::floor(point.y - radius)));
    const int y1 = std::min(field.height() - 1, static_cast<int>(std::ceil(point.y + radius)));
    double best = 0.0, bestDistance = 0.0;
    TracePoint out = point;
    for (int y = y0; y <= y1; ++y)
        for (int x = x0; x <= x1; ++x) {
            const double distance = std::hypot(x - point.x, y - point.y);
            if (distance > radius) continue;
            const float* g = field.vectors() + 2 * (static_cast<std::size_t>(y) * field.width() + x);
            const double strength = std::hypot(static_cast<double>(g[0]), static_cast<double>(g[1]));
            if (strength > best || (strength == best && strength > 0.0 && distance < bestDistance)) {
                best = strength;
                bestDistance = distance;
                out = {static_cast<double>(x), static_cast<double>(y)};
            }
        }
    return out;
}

void measureTraceLegConfidence(const TraceField& field, TraceLeg& leg) {
    const double dx = leg.to.x - leg.from.x, dy = leg.to.y - leg.from.y, length = std::hypot(dx, dy);
    if (leg.points.size() < 2 || length <= 0.0 || leg.length <= 0.0) return;
    const double px = -dy / length, py = dx / length;
    const double step = std::max(4.0, 1.5 * field.options().lineWidth);
    constexpr int copies = 8; // k = -4..-1, 1..4
    std::array<double, copies> scores{};
    const auto copyScore = [&](int copy) {
        const int k = copy < 4 ? copy - 4 : copy - 3;
        double score = 0.0;
        for (std::size_t i = 0; i + 1 < leg.points.size(); ++i) {
            const TracePoint p{leg.points[i].x + k * step * px, leg.points[i].y + k * step * py};
            const TracePoint q{leg.points[i + 1].x + k * step * px, leg.points[i + 1].y + k * step * py};
            score += segmentScoreExact(field, p, segmentShape(q.x - p.x, q.y - p.y));
        }
        scores[copy] = score;
    };
    // One thread: on the H100's 16-core host, threads for the copies (parallelFor starts them per call) cost
    // 0.7-1.0 ms against 0.2 ms sequential; on the GPU backend the measurement overlaps the last DP solve.
    for (int c = 0; c < copies; ++c) copyScore(c);
    double sum = 0.0;
    for (double score : scores) sum += score / leg.length; // each copy has the leg's length
    leg.backgroundScore = sum / copies;
    leg.confidence = leg.meanScore > 0.0 ? std::max(0.0, 1.0 - leg.backgroundScore / leg.meanScore) : 0.0;
    leg.confidenceMeasured = true;
}

std::optional<TraceLeg> LineTracer::solveObjective(TraceGeometry& g, TraceObjective objective, JobControl& job) {
    // The turn angles and intervals: a synchronous backend gets them first (it scores only the segments of
    // the first and last transitions that a feasible turn can use); an asynchronous one (the GPU) scores the
    // middle transitions meanwhile and those two once it has them (launchOptimize).
    const auto turns = [&] {
        auto step = job.timing().scope("geometry");
        g.computeTurns();
    };
    if (!optimizesAsynchronously()) turns();
    scoreSegments(g, job);
    turns();
    Optimum optimum = optimize(g, 0.0, job);
    if (optimum.indices.empty() || !std::isfinite(optimum.score)) return std::nullopt;
    std::optional<TraceLeg> best;
    {
        auto step = job.timing().scope("assemble");
        best = assembleLeg(*field_, g, optimum.indices, optimum.score);
    }
    best->iterations = 1;
    if (objective == TraceObjective::Sum) return best;
    // Dinkelbach: lambda_k = the best ratio found; the optimum of max S - lambda_k L is a path of a higher
    // ratio unless lambda_k is already the optimum (then that maximum is 0). Ratios are taken from the
    // double-precision scores of the paths, so every backend climbs the same sequence up to float rounding.
    for (int iteration = 2; iteration <= kMaxTraceIterations && best->meanScore > 0.0; ++iteration) {
        const double lambda = best->meanScore;
        if (optimizesAsynchronously()) {
            // While the device solves, measure the confidence of the best path so far: usually the optimum
            // (the last solve only confirms it), so the measurement then costs no time.
            launchOptimize(g, lambda, job);
            if (!best->confidenceMeasured) {
                auto step = job.timing().scope("confidence");
                measureTraceLegConfidence(*field_, *best);
            }
        }
        optimum = finishOptimize(g, lambda, job);
        best->iterations = iteration;
        if (optimum.indices.empty() || !std::isfinite(optimum.score)) break;
        // The same path again: lambda is its ratio, so it is optimal (max S - lambda L = 0).
        if (optimum.indices == best->guideIndices) break;
        auto step = job.timing().scope("assemble");
        TraceLeg candidate = assembleLeg(*field_, g, optimum.indices, optimum.score + lambda * pathLength(g, optimum.indices));
        const bool converged = optimum.score <= kTraceRatioTolerance * lambda * candidate.length;
        if (candidate.meanScore > best->meanScore) {
            candidate.iterations = iteration;
            best = std::move(candidate);
        } else {
            break; // no higher ratio: lambda is the optimum up to rounding
        }
        if (converged) break;
    }
    return best;
}

TraceResult LineTracer::traceChain(const std::vector<TracePoint>& clicks, const TraceParams& params,
                                   JobControl& job) {
    if (!field_) throw std::logic_error("LineTracer::traceChain before setField");
    validateTraceParams(params);
    validateTracePoints(clicks, field_->width(), field_->height());
    const auto start = std::chrono::steady_clock::now();
    TraceResult result;
    for (std::size_t i = 0; i + 1 < clicks.size(); ++i) {
        job.throwIfCancelled();
        result.legs.push_back(traceLeg(clicks[i], clicks[i + 1], params, job));
        result.score += result.legs.back().score;
        job.setProgress(static_cast<double>(i + 1) / static_cast<double>(clicks.size() - 1));
    }
    result.backend = backend();
    result.device = job.device();
    result.field = field_;
    job.timing().setTotal(msSince(start));
    return result;
}

double estimatedTraceCpuMs(const std::vector<TracePoint>& clicks, const TraceParams& params) {
    double samples = 0.0;
    for (std::size_t i = 1; i < clicks.size(); ++i)
        samples += static_cast<double>(params.points) * params.points * 1.2 *
                   std::hypot(clicks[i].x - clicks[i - 1].x, clicks[i].y - clicks[i - 1].y);
    return samples * 2.6e-6 / cpuThreadCount();
}

namespace {

// Binds the field to the job's tracer and traces the chain (the field step, when any, is the caller's).
template <class FieldSource>
TraceResult traceJob(FieldSource&& fieldSource, const std::vector<TracePoint>& clicks, const TraceParams& params,
                     Backend backend, JobControl& job) {
    return runJob<LineTracer>(backend, job, estimatedTraceCpuMs(clicks, params), [&](LineTracer& tracer, Backend) {
        tracer.setField(fieldSource(), job);
        return tracer.traceChain(clicks, params, job);
    });
}

} // namespace

TraceResult runTrace(const Image& image, const std::vector<TracePoint>& clicks, const TraceParams& params,
                     const TraceFieldOptions& fieldOptions, Backend backend, JobControl& job) {
    validateTraceParams(params);
    validateTraceFieldOptions(fieldOptions);
    validateTracePoints(clicks, image.width(), image.height());
    return traceJob(
        [&] {
            auto step = job.timing().scope("field");
            return TraceField::compute(image, fieldOptions);
        },
        clicks, params, backend, job);
}

TraceResult runTrace(std::shared_ptr<const TraceField> field, const std::vector<TracePoint>& clicks,
                     const TraceParams& params, Backend backend, JobControl& job) {
    if (!field) throw std::logic_error("runTrace without a field");
    validateTraceParams(params);
    validateTracePoints(clicks, field->width(), field->height());
    return traceJob([&] { return field; }, clicks, params, backend, job);
}

} // namespace glint
