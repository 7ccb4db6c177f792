#include "core/algo/trace/TraceSpec.h"

#include "core/params/GeometryCodecs.h"
#include "core/util/Errors.h"

#include <limits>

namespace glint {

std::vector<TracePoint> TraceRequest::clicks() const {
    std::vector<TracePoint> out;
    if (from) out.push_back(*from);
    out.insert(out.end(), via.begin(), via.end());
    if (to) out.push_back(*to);
    return out;
}

namespace {

using P = TraceRequest;
constexpr double kNoLimit = std::numeric_limits<double>::max();

void everyKind(ParamField& f, const Json& v) {
    for (ImageKind kind : {ImageKind::Sky, ImageKind::Mammogram, ImageKind::Aerial, ImageKind::Other}) f.setPreset(kind, v);
}

ParamSpec<P> makeSpec() {
    ParamSpec<P> s("trace");
    // The clicks: drawn on the canvas in the window.
    s.add({"from", "--from", "X,Y", "From", "the first point (pixel frame, real-valued)"}, OptionalCodec<PointCodec<TracePoint>>{},
          [](P& p) -> std::optional<TracePoint>& { return p.from; });
    s.add({"to", "--to", "X,Y", "To", "the last point"}, OptionalCodec<PointCodec<TracePoint>>{},
          [](P& p) -> std::optional<TracePoint>& { return p.to; });
    s.add({"via", "--via", "X,Y", "Via", "a point between, in order (a vertex: the turn there is free)"},
          ListCodec<PointCodec<TracePoint>>{}, [](P& p) -> std::vector<TracePoint>& { return p.via; });

    {
        FieldInfo info{"score", "--score", "magnitude|sine|ridge", "Score",
                       "magnitude: edges (gradient across the path); sine: the paper's form; ridge: the centre line of a "
                       "road, river or vessel",
                       "Trace", FieldWidget::Choice};
        s.add(info,
              ChoiceCodec<TraceScore>{{{TraceScore::Magnitude, "magnitude", "edge (magnitude)"},
                                       {TraceScore::Sine, "sine", "edge (sine)"},
                                       {TraceScore::Ridge, "ridge", "ridge (line centre)"}},
                                      "score"},
              [](P& p) -> TraceScore& { return p.field.score; });
    }
    {
        FieldInfo info{"guides", "--guides", "N|adaptive", "Guides",
                       "guides between two clicks; adaptive: 6, then a leg whose fit is poor (low confidence, a sharp turn, "
                       "the trace at a guide's end) is solved again on finer guides, kept when it scores higher",
                       "Trace", FieldWidget::AutoNumber};
        everyKind(s.add(info,
                        AutoCodec<IntegerCodec, int>{{1, kMaxTraceGuides}, false, true, false, "adaptive", "auto"},
                        getSet([](const P& p) { return p.params.autoGuides ? AutoValue<int>::automatic() : AutoValue<int>::value(p.params.guides); },
                               [](P& p, AutoValue<int> v) {
                                   p.params.autoGuides = v.isAuto();
                                   p.params.guides = v.isAuto() ? TraceParams{}.guides : v.get();
                               })),
                  "adaptive");
    }
    s.add({"points", "--points", "D", "Points", "points per guide", "Trace", FieldWidget::Integer},
          IntegerCodec{2, kMaxTracePoints}, [](P& p) -> int& { return p.params.points; });
    {
        FieldInfo info{"max_angle", "--max-angle", "DEG", "Max turn", "the largest turn at a guide, in degrees (180: any)",
                       "Trace", FieldWidget::Number};
        info.decimals = 1;
        info.suffix = "°";
        info.minimum = 1;
        info.maximum = 180;
        s.add(info, NumberCodec{0.0, 180.0, true}, [](P& p) -> double& { return p.params.maxAngleDeg; });
    }
    {
        FieldInfo info{"snap", "--snap", "R", "Snap", "move each click to the strongest line or edge within R pixels (0: off)",
                       "Trace", FieldWidget::Number};
        info.decimals = 1;
        info.suffix = " px";
        info.specialText = "off";
        info.maximum = 1000;
        everyKind(s.add(info, NumberCodec{0.0, 1000.0}, [](P& p) -> double& { return p.snap; }), 4.0);
    }
    {
        FieldInfo info{"width", "--width", "PX|auto", "Width",
                       "ridge: the line's width in pixels; auto: measured at the first leg's clicks", "Ridge line",
                       FieldWidget::AutoNumber};
        info.decimals = 1;
        info.suffix = " px";
        info.minimum = 0.5;
        info.maximum = 1000;
        info.onlyWhenKey = "score";
        info.onlyWhenValues = {"ridge"};
        everyKind(s.add(info, AutoCodec<NumberCodec>{{0.0, 1000.0, true}, false, true},
                        getSet([](const P& p) { return p.autoWidth ? AutoValue<double>::automatic() : AutoValue<double>::value(p.field.lineWidth); },
                               [](P& p, AutoValue<double> v) {
                                   p.autoWidth = v.isAuto();
                                   p.field.lineWidth = v.isAuto() ? TraceFieldOptions{}.lineWidth : v.get();
                               })),
                  "auto");
    }
    {
        FieldInfo info{"polarity", "--polarity", "bright|dark|both", "Polarity", "ridge: bright lines, dark lines or both",
                       "Ridge line", FieldWidget::Choice};
        info.onlyWhenKey = "score";
        info.onlyWhenValues = {"ridge"};
        s.add(info,
              ChoiceCodec<TracePolarity>{{{TracePolarity::Both, "both", "both"},
                                          {TracePolarity::Bright, "bright", "bright"},
                                          {TracePolarity::Dark, "dark", "dark"}},
                                         "polarity"},
              [](P& p) -> TracePolarity& { return p.field.polarity; });
    }
    {
        FieldInfo info{"sine_threshold", "--sine-threshold", "F", "Sine threshold",
                       "sine: gradients below this fraction of the 99th-percentile magnitude do not count", "Advanced",
                       FieldWidget::Hidden}; // the command line's: the window's panel keeps to its rows at 1280 x 800
        info.decimals = 3;
        info.step = 0.01;
        info.onlyWhenKey = "score";
        info.onlyWhenValues = {"sine"};
        s.add(info, NumberCodec{0.0, 1.0}, [](P& p) -> double& { return p.field.sineThresholdFraction; });
    }
    s.add({"objective", "--objective", "ratio|sum", "Objective",
           "ratio: the best mean score per unit length (no detours); sum: the largest total score (the paper's form)",
           "Advanced", FieldWidget::Choice},
          ChoiceCodec<TraceObjective>{{{TraceObjective::Ratio, "ratio", "ratio (mean score)"}, {TraceObjective::Sum, "sum", "sum (paper)"}},
                                      "objective"},
          [](P& p) -> TraceObjective& { return p.params.objective; });
    {
        FieldInfo info{"widen", "--widen", "N", "Widenings",
                       "times a leg's guides may grow when its optimum reaches a guide's end (0: fixed)", "Advanced",
                       FieldWidget::Integer};
        s.add(info, IntegerCodec{0, kMaxTraceWidenings}, [](P& p) -> int& { return p.params.maxWidenings; });
    }
    {
        FieldInfo info{"half_width", "--half-width", "W|quarter", "Half-width",
                       "how far each guide reaches either side of the line between two clicks; quarter: a quarter of "
                       "their distance, at least 8 px",
                       "Advanced", FieldWidget::AutoNumber};
        info.decimals = 1;
        info.suffix = " px";
        info.minimum = 0.5;
        info.maximum = 1e6;
        s.add(info, AutoCodec<NumberCodec>{{0.0, 1e6, true}, false, true, false, "quarter"},
              getSet([](const P& p) { return p.params.halfWidth > 0.0 ? AutoValue<double>::value(p.params.halfWidth) : AutoValue<double>::automatic(); },
                     [](P& p, AutoValue<double> v) { p.params.halfWidth = v.isAuto() ? 0.0 : v.get(); }));
    }
    s.addRule([](const P& p) { validateTraceParams(p.params); });
    return s;
}

} // namespace

const ParamSpec<TraceRequest>& traceSpec() {
    static const ParamSpec<TraceRequest> spec = makeSpec();
    return spec;
}

double resolvedTraceWidth(const Image& image, const TraceRequest& request, TracePoint first) {
    if (!request.autoWidth || request.field.score != TraceScore::Ridge) return request.field.lineWidth;
    return estimateTraceLineWidth(image, {first}, request.field.polarity);
}

ResolvedTrace resolveTrace(const Image& image, const TraceRequest& request, JobControl& job) {
    traceSpec().validate(request);
    ResolvedTrace r;
    r.request = request;
    const std::vector<TracePoint> given = request.clicks();
    validateTracePoints(given, image.width(), image.height());
    if (request.autoWidth) {
        auto step = job.timing().scope("width");
        r.request.field.lineWidth = resolvedTraceWidth(image, request, given.front());
        r.request.autoWidth = false;
    }
    validateTraceFieldOptions(r.request.field);
    {
        auto step = job.timing().scope("field");
        r.field = TraceField::compute(image, r.request.field);
    }
    r.clicks = given;
    if (request.snap > 0.0) {
        auto step = job.timing().scope("snap");
        for (TracePoint& c : r.clicks) c = snapTracePoint(*r.field, c, request.snap);
    }
    validateTracePoints(r.clicks, image.width(), image.height()); // snapping may bring two clicks together
    return r;
}

} // namespace glint
