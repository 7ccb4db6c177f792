// TraceModule's exports and sessions: the finished traces as core regions, and the settings and traces
// (with their legs, so that nothing is traced again) as JSON and back.
#include "ui/modules/TraceModule.h"

#include "ui/AppContext.h"
#include "ui/session/SessionJson.h"
#include "core/util/Errors.h"

namespace glint::ui {

namespace {

QJsonObject settingsJson(const TraceSettings& s) {
    return {{QStringLiteral("guides"), s.params.guides},
            {QStringLiteral("points"), s.params.points},
            {QStringLiteral("half_width"), s.params.halfWidth},
            {QStringLiteral("max_angle"), s.params.maxAngleDeg},
            {QStringLiteral("live_points"), s.livePoints},
            {QStringLiteral("score"), QLatin1String(glint::traceScoreName(s.field.score))},
            {QStringLiteral("line_width"), s.field.lineWidth},
            {QStringLiteral("polarity"), QLatin1String(glint::tracePolarityName(s.field.polarity))},
            {QStringLiteral("sine_threshold"), s.field.sineThresholdFraction},
            {QStringLiteral("backend"), QLatin1String(glint::backendName(s.backend))},
            {QStringLiteral("show_guides"), s.showGuides},
            {QStringLiteral("objective"), QLatin1String(glint::traceObjectiveName(s.params.objective))},
            {QStringLiteral("max_widenings"), s.params.maxWidenings},
            {QStringLiteral("guides_auto"), s.params.autoGuides},
            {QStringLiteral("width_auto"), s.autoWidth},
            {QStringLiteral("snap"), s.snap}};
}

TraceSettings readSettings(const QJsonValue& value) {
    using namespace sessionjson;
    const QJsonObject o = object(value, QStringLiteral("trace.settings"));
    const auto name = [](const char* key) { return QStringLiteral("trace.settings.") + QLatin1String(key); };
    TraceSettings s;
    s.params.guides = integer(o[QStringLiteral("guides")], name("guides"));
    s.params.points = integer(o[QStringLiteral("points")], name("points"));
    s.params.halfWidth = number(o[QStringLiteral("half_width")], name("half_width"));
    s.params.maxAngleDeg = number(o[QStringLiteral("max_angle")], name("max_angle"));
    s.livePoints = integer(o[QStringLiteral("live_points")], name("live_points"));
    s.field.score = glint::parseTraceScore(string(o[QStringLiteral("score")], name("score")).toStdString());
    s.field.lineWidth = number(o[QStringLiteral("line_width")], name("line_width"));
    s.field.polarity = glint::parseTracePolarity(string(o[QStringLiteral("polarity")], name("polarity")).toStdString());
    s.field.sineThresholdFraction = number(o[QStringLiteral("sine_threshold")], name("sine_threshold"));
    s.backend = readBackend(o[QStringLiteral("backend")], name("backend"));
    s.showGuides = boolean(o[QStringLiteral("show_guides")], name("show_guides"));
    // Sessions written before issue 15 have none of these: the paper's objective, fixed guides and the
    // typed width reproduce what they traced.
    const bool older = !o.contains(QStringLiteral("objective"));
    s.params.objective = older ? glint::TraceObjective::Sum
                               : glint::parseTraceObjective(string(o[QStringLiteral("objective")], name("objective")).toStdString());
    s.params.maxWidenings = older ? 0 : integer(o[QStringLiteral("max_widenings")], name("max_widenings"));
    s.autoWidth = older ? false : boolean(o[QStringLiteral("width_auto")], name("width_auto"));
    s.snap = older ? true : boolean(o[QStringLiteral("snap")], name("snap"));
    // Sessions written before --guides auto traced on fixed guides.
    s.params.autoGuides = o.contains(QStringLiteral("guides_auto")) &&
                          boolean(o[QStringLiteral("guides_auto")], name("guides_auto"));
    glint::validateTraceParams(s.params);
    glint::validateTraceFieldOptions(s.field);
    return s;
}

} // namespace

QVector<ExportableResults> TraceModule::exportableResults() const {
    if (!layer_ || traces_.empty()) return {};
    ExportableResults set;
    set.title = name();
    set.description = "line trace, " + std::to_string(traces_.size()) + " trace(s)";
    for (const FinishedTrace& t : traces_)
        set.regions.push_back(glint::regionFromTrace(t.result, t.id));
    set.layers = {layer_.data()};
    return {set};
}

QJsonObject TraceModule::saveSession() const {
    QJsonArray traces;
    if (layer_) {
        for (const FinishedTrace& t : traces_)
            traces.append(QJsonObject{{QStringLiteral("id"), t.id},
                                      {QStringLiteral("mode"), t.mode},
                                      {QStringLiteral("backend"), t.backend},
                                      {QStringLiteral("parameters"), t.parameters},
                                      {QStringLiteral("result"), sessionjson::traceResult(t.result)}});
    }
    return {{QStringLiteral("settings"), settingsJson(settings_)},
            {QStringLiteral("count"), count_},
            {QStringLiteral("traces"), traces}};
}

std::function<void()> TraceModule::prepareSession(const QJsonObject& state, const SessionImages& inputs) {
    using namespace sessionjson;
    const std::shared_ptr<const glint::Image> image = inputs.value(QString());
    const TraceSettings settings = readSettings(state[QStringLiteral("settings")]);
    const int count = integer(state[QStringLiteral("count")], QStringLiteral("trace.count"));
    const auto readTrace = [&](const QJsonObject& o, const QString& what) {
        FinishedTrace t;
        t.id = integer(o[QStringLiteral("id")], field(what, "id"));
        t.mode = string(o[QStringLiteral("mode")], field(what, "mode"));
        t.backend = string(o[QStringLiteral("backend")], field(what, "backend"));
        t.parameters = string(o[QStringLiteral("parameters")], field(what, "parameters"));
        t.result = readTraceResult(o[QStringLiteral("result")]);
        if (image) {
            std::vector<glint::TracePoint> clicks{t.result.legs.front().from};
            for (const glint::TraceLeg& leg : t.result.legs)
                clicks.push_back(leg.to);
            glint::validateTracePoints(clicks, image->width(), image->height()); // UsageError names the point
        }
        return t;
    };
    const std::vector<FinishedTrace> traces =
        readObjects(state[QStringLiteral("traces")], QStringLiteral("trace.traces"), readTrace);
    return [this, settings, count, traces] {
        setSettings(settings);
        for (const FinishedTrace& t : traces)
            presentTrace(t);
        count_ = std::max(count, count_);
    };
}

} // namespace glint::ui
