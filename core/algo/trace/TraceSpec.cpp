#include "core/algo/trace/TraceSpec.h"

#include "core/params/GeometryCodecs.h"
#include "core/util/Errors.h"

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

ParamSpec<P> makeSpec() {
    ParamSpec<P> s("trace");
    const Json ridge = "ridge", sine = "sine";
    // The clicks: drawn on the canvas in the window.
    s.add({.key = "from", .option = "--from", .valueName = "X,Y", .label = "From", .help = "the first point (pixel frame, real-valued)"},
          OptionalCodec<PointCodec<TracePoint>>{}, [](P& p) -> std::optional<TracePoint>& { return p.from; });
    s.add({.key = "to", .option = "--to", .valueName = "X,Y", .label = "To", .help = "the last point"},
          OptionalCodec<PointCodec<TracePoint>>{}, [](P& p) -> std::optional<TracePoint>& { return p.to; });
    s.add({.key = "via", .option = "--via", .valueName = "X,Y", .label = "Via",
           .help = "a point between, in order (a vertex: the turn there is free)"},
          ListCodec<PointCodec<TracePoint>>{}, [](P& p) -> std::vector<TracePoint>& { return p.via; });

    s.add({.key = "score", .option = "--score", .valueName = "magnitude|sine|ridge", .label = "Score",
           .help = "magnitude: edges (gradient across the path); sine: the paper's form; ridge: the centre line of a "
                   "road, river or vessel",
           .group = "Trace", .widget = FieldWidget::Choice},
          ChoiceCodec<TraceScore>{{{TraceScore::Magnitude, "magnitude", "edge (magnitude)"},
                                   {TraceScore::Sine, "sine", "edge (sine)"},
                                   {TraceScore::Ridge, "ridge", "ridge (line centre)"}},
                                  "score"},
          [](P& p) -> TraceScore& { return p.field.score; })
        .presetForEveryKind("ridge");
    s.add({.key = "guides", .option = "--guides", .valueName = "N|adaptive", .label = "Guides",
           .help = "guides between two clicks; adaptive: 6, then a leg whose fit is poor (low confidence, a sharp turn, "
                   "the trace at a guide's end) is solved again on finer guides, kept when it scores higher",
           .group = "Trace", .widget = FieldWidget::AutoNumber},
          AutoCodec<IntegerCodec, int>{{1, kMaxTraceGuides}, false, true, false, "adaptive", "auto"},
          getSet([](const P& p) { return p.params.autoGuides ? AutoValue<int>::automatic() : AutoValue<int>::value(p.params.guides); },
                 [](P& p, AutoValue<int> v) {
                     p.params.autoGuides = v.isAuto();
                     p.params.guides = v.isAuto() ? TraceParams{}.guides : v.get();
                 }))
        .presetForEveryKind("adaptive");
    s.add({.key = "points", .option = "--points", .valueName = "D", .label = "Points", .help = "points per guide",
           .group = "Trace", .widget = FieldWidget::Integer},
          IntegerCodec{2, kMaxTracePoints}, [](P& p) -> int& { return p.params.points; });
    s.add({.key = "max_angle", .option = "--max-angle", .valueName = "DEG", .label = "Max turn",
           .help = "the largest turn at a guide, in degrees (180: any)", .group = "Trace", .widget = FieldWidget::Number,
           .minimum = 1, .maximum = 180, .decimals = 1, .suffix = "°"},
          NumberCodec{0.0, 180.0, true}, [](P& p) -> double& { return p.params.maxAngleDeg; });
    s.add({.key = "snap", .option = "--snap", .valueName = "R", .label = "Snap",
           .help = "move each click to the strongest line or edge within R pixels (0: off)", .group = "Trace",
           .widget = FieldWidget::Number, .maximum = 1000, .decimals = 1, .suffix = " px", .specialText = "off"},
          NumberCodec{0.0, 1000.0}, [](P& p) -> double& { return p.snap; })
        .presetForEveryKind(4.0);
    s.add({.key = "width", .option = "--width", .valueName = "PX|auto", .label = "Width",
           .help = "ridge: the line's width in pixels; auto: measured at the first click (with polarity both, the polarity too), "
                   "and no pixel scores above the clicked line's strength there", .group = "Ridge line",
           .widget = FieldWidget::AutoNumber, .minimum = 0.5, .maximum = 1000, .decimals = 1, .suffix = " px",
           .onlyWhenKey = "score", .onlyWhenValues = {ridge}},
          AutoCodec<NumberCodec>{{0.0, 1000.0, true}, false, true},
          getSet([](const P& p) { return p.autoWidth ? AutoValue<double>::automatic() : AutoValue<double>::value(p.field.lineWidth); },
                 [](P& p, AutoValue<double> v) {
                     p.autoWidth = v.isAuto();
                     p.field.lineWidth = v.isAuto() ? TraceFieldOptions{}.lineWidth : v.get();
                 }))
        .presetForEveryKind("auto");
    s.add({.key = "saturation", .option = "--saturation", .valueName = "S",
           .help = "ridge: no pixel's score above S (0: none); with --width auto, the clicked line's strength, measured "
                   "(recorded so that --params replays the same field)",
           .group = "Ridge line", .widget = FieldWidget::Hidden, .onlyWhenKey = "score", .onlyWhenValues = {ridge}},
          NumberCodec{0.0, NumberCodec::kNoLimit}, [](P& p) -> double& { return p.field.saturation; });
    s.add({.key = "polarity", .option = "--polarity", .valueName = "bright|dark|both", .label = "Polarity",
           .help = "ridge: bright lines, dark lines or both", .group = "Ridge line", .widget = FieldWidget::Choice,
           .onlyWhenKey = "score", .onlyWhenValues = {ridge}},
          ChoiceCodec<TracePolarity>{{{TracePolarity::Both, "both", "both"},
                                      {TracePolarity::Bright, "bright", "bright"},
                                      {TracePolarity::Dark, "dark", "dark"}},
                                     "polarity"},
          [](P& p) -> TracePolarity& { return p.field.polarity; });
    // The command line's: the window's panel keeps to its rows at 1280 x 800.
    s.add({.key = "sine_threshold", .option = "--sine-threshold", .valueName = "F", .label = "Sine threshold",
           .help = "sine: gradients below this fraction of the 99th-percentile magnitude do not count",
           .group = "Advanced", .onlyWhenKey = "score", .onlyWhenValues = {sine}},
          NumberCodec{0.0, 1.0}, [](P& p) -> double& { return p.field.sineThresholdFraction; });
    s.add({.key = "objective", .option = "--objective", .valueName = "ratio|sum", .label = "Objective",
           .help = "ratio: the best mean score per unit length (no detours); sum: the largest total score (the paper's form)",
           .group = "Advanced", .widget = FieldWidget::Choice},
          ChoiceCodec<TraceObjective>{{{TraceObjective::Ratio, "ratio", "ratio (mean score)"}, {TraceObjective::Sum, "sum", "sum (paper)"}},
                                      "objective"},
          [](P& p) -> TraceObjective& { return p.params.objective; });
    s.add({.key = "widen", .option = "--widen", .valueName = "N", .label = "Widenings",
           .help = "times a leg's guides may grow when its optimum reaches a guide's end (0: fixed)", .group = "Advanced",
           .widget = FieldWidget::Integer},
          IntegerCodec{0, kMaxTraceWidenings}, [](P& p) -> int& { return p.params.maxWidenings; });
    s.add({.key = "half_width", .option = "--half-width", .valueName = "W|quarter", .label = "Half-width",
           .help = "how far each guide reaches either side of the line between two clicks; quarter: a quarter of their "
                   "distance, at least 8 px",
           .group = "Advanced", .widget = FieldWidget::AutoNumber, .minimum = 0.5, .maximum = 1e6, .decimals = 1, .suffix = " px"},
          AutoCodec<NumberCodec>{{0.0, 1e6, true}, false, true, false, "quarter"},
          getSet([](const P& p) { return p.params.halfWidth > 0.0 ? AutoValue<double>::value(p.params.halfWidth) : AutoValue<double>::automatic(); },
                 [](P& p, AutoValue<double> v) { p.params.halfWidth = v.isAuto() ? 0.0 : v.get(); }));
    s.addRule([](const P& p) { validateTraceParams(p.params); });
    return s;
}

} // namespace

const ParamSpec<TraceRequest>& traceSpec() {
    static const ParamSpec<TraceRequest> spec = makeSpec();
    return spec;
}

TraceFieldOptions resolvedTraceField(const Image& image, const TraceRequest& request, TracePoint first) {
    TraceFieldOptions field = request.field;
    if (!request.autoWidth || field.score != TraceScore::Ridge) return field;
    if (field.polarity == TracePolarity::Both) field.polarity = estimateTraceLinePolarity(image, {first});
    field.lineWidth = estimateTraceLineWidth(image, {first}, field.polarity);
    // The clicked line's profile: the field saturates at its strength there, so that a stronger feature met on
    // the way (a brighter road at a junction) scores no more per pixel than the clicked one.
    field.saturation = kTraceSaturationFactor * measureTraceLineStrength(image, first, field, kTraceSaturationRadius);
    return field;
}

ResolvedTrace resolveTrace(const Image& image, const TraceRequest& request, JobControl& job) {
    traceSpec().validate(request);
    ResolvedTrace r;
    r.request = request;
    const std::vector<TracePoint> given = request.clicks();
    validateTracePoints(given, image.width(), image.height());
    if (request.autoWidth) {
        auto step = job.timing().scope("width");
        r.request.field = resolvedTraceField(image, request, given.front());
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
