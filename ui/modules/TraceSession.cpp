// TraceModule's exports and sessions: the finished traces as core regions, and the settings and traces
// (with their legs, so that nothing is traced again) as JSON and back.
#include "ui/modules/TraceModule.h"

#include "ui/AppContext.h"
#include "ui/session/SessionJson.h"
#include "core/params/ImageKind.h"
#include "core/util/Errors.h"

#include <cmath>

namespace glint::ui {

namespace {

// The window's settings: the trace spec's values (no clicks), and the window's own.
QJsonObject settingsJson(const TraceSettings& s) {
    glint::Json form = glint::traceSpec().write(s);
    for (const char* click : {"preset", "from", "to", "via"}) form.erase(click);
    return {{QStringLiteral("form"), sessionjson::fromJson(form)},
            {QStringLiteral("live_points"), s.livePoints},
            {QStringLiteral("backend"), QLatin1String(glint::backendName(s.backend))},
            {QStringLiteral("show_guides"), s.showGuides}};
}

// An older session's settings (before the trace spec) in the spec's keys.
glint::Json legacyForm(const QJsonObject& o, const QString& what) {
    using namespace sessionjson;
    const auto name = [&](const char* key) { return what + QLatin1Char('.') + QLatin1String(key); };
    glint::Json f = glint::Json::object();
    // Sessions written before issue 15 have no objective: the paper's objective, fixed guides and the typed width
    // reproduce what they traced; sessions before --guides auto traced on fixed guides.
    const bool older = !o.contains(QStringLiteral("objective"));
    const bool autoGuides = o.contains(QStringLiteral("guides_auto")) && boolean(o[QStringLiteral("guides_auto")], name("guides_auto"));
    f["guides"] = autoGuides ? glint::Json("adaptive") : glint::Json(integer(o[QStringLiteral("guides")], name("guides")));
    f["points"] = integer(o[QStringLiteral("points")], name("points"));
    const double halfWidth = number(o[QStringLiteral("half_width")], name("half_width"));
    f["half_width"] = halfWidth > 0.0 ? glint::Json(halfWidth) : glint::Json("quarter");
    f["max_angle"] = number(o[QStringLiteral("max_angle")], name("max_angle"));
    f["score"] = string(o[QStringLiteral("score")], name("score")).toStdString();
    const bool autoWidth = !older && boolean(o[QStringLiteral("width_auto")], name("width_auto"));
    f["width"] = autoWidth ? glint::Json("auto") : glint::Json(number(o[QStringLiteral("line_width")], name("line_width")));
    f["polarity"] = string(o[QStringLiteral("polarity")], name("polarity")).toStdString();
    f["sine_threshold"] = number(o[QStringLiteral("sine_threshold")], name("sine_threshold"));
    f["objective"] = older ? std::string("sum") : string(o[QStringLiteral("objective")], name("objective")).toStdString();
    f["widen"] = older ? 0 : integer(o[QStringLiteral("max_widenings")], name("max_widenings"));
    f["snap"] = (older || boolean(o[QStringLiteral("snap")], name("snap"))) ? 4.0 : 0.0;
    return f;
}

TraceSettings readSettings(const QJsonValue& value) {
    using namespace sessionjson;
    const QString what = QStringLiteral("trace.settings");
    const QJsonObject o = object(value, what);
    const glint::Json form = o.contains(QStringLiteral("form")) ? toJson(object(o[QStringLiteral("form")], what + QStringLiteral(".form")))
                                                                : legacyForm(o, what);
    TraceSettings s;
    try {
        s = TraceSettings(glint::traceSpec().read(form, "session"));
    } catch (const glint::UsageError& e) {
        throw glint::InputError(std::string("session file: ") + e.what());
    }
    s.livePoints = integer(o[QStringLiteral("live_points")], what + QStringLiteral(".live_points"));
    s.backend = readBackend(o[QStringLiteral("backend")], what + QStringLiteral(".backend"));
    s.showGuides = boolean(o[QStringLiteral("show_guides")], what + QStringLiteral(".show_guides"));
    glint::validateTraceFieldOptions(s.field);
    return s;
}

// A trace's geometry as a session holds it: each leg's path runs from its start to its end, the legs chain (leg
// i ends where leg i + 1 starts), and every point is finite and, with the image, on it. InputError naming the
// trace and what is wrong, so that a damaged session opens nothing and the traces on screen stay.
void checkTraceGeometry(const glint::TraceResult& result, const glint::Image* image, const QString& what) {
    const auto fail = [&](const QString& why) {
        throw glint::InputError(QStringLiteral("session file: %1: %2").arg(what, why).toStdString());
    };
    const double margin = 0.5 + 1e-9;
    const auto onImage = [&](const glint::TracePoint& p) {
        if (!std::isfinite(p.x) || !std::isfinite(p.y)) return false;
        return !image || (p.x >= -margin && p.y >= -margin && p.x <= image->width() - 1 + margin &&
                          p.y <= image->height() - 1 + margin);
    };
    const auto same = [](const glint::TracePoint& a, const glint::TracePoint& b) { return a.x == b.x && a.y == b.y; };
    for (std::size_t i = 0; i < result.legs.size(); ++i) {
        const glint::TraceLeg& leg = result.legs[i];
        if (leg.points.size() < 2) fail(QStringLiteral("leg %1 has a path of fewer than two points").arg(i + 1));
        if (!same(leg.points.front(), leg.from) || !same(leg.points.back(), leg.to))
            fail(QStringLiteral("the path of leg %1 does not run from its start to its end").arg(i + 1));
        if (i + 1 < result.legs.size() && !same(leg.to, result.legs[i + 1].from))
            fail(QStringLiteral("leg %1 does not end where leg %2 starts").arg(i + 1).arg(i + 2));
        for (const glint::TracePoint& p : leg.points)
            if (!onImage(p))
                fail(QStringLiteral("a point of leg %1 (%2, %3) is not on the image").arg(i + 1).arg(p.x).arg(p.y));
        if (!std::isfinite(leg.confidence) || leg.confidence < 0.0 || leg.confidence > 1.0)
            fail(QStringLiteral("leg %1 has a confidence outside [0, 1]").arg(i + 1));
    }
}

} // namespace

QVector<ExportableResults> TraceModule::exportableResults() const {
    if (!layer_ || traces_.empty()) return {};
    ExportableResults set;
    set.title = name();
    set.description = "line trace, " + std::to_string(traces_.size()) + " trace(s)";
    for (const FinishedTrace& t : traces_)
        set.regions.push_back(glint::regionFromTrace(t.result, t.id, t.mode.toStdString(), t.backend.toStdString(), t.widthPx));
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
                                      {QStringLiteral("description"), t.parameters},
                                      {QStringLiteral("parameters"), sessionjson::fromJson(t.request)},
                                      {QStringLiteral("result"), sessionjson::traceResult(t.result)}});
    }
    return {{QStringLiteral("settings"), settingsJson(settings_)},
            {QStringLiteral("count"), count_},
            {QStringLiteral("traces"), traces}};
}

std::function<void()> TraceModule::prepareSession(const QJsonObject& state, const SessionImages& inputs) {
    using namespace sessionjson;
    const std::shared_ptr<const glint::Image> image = inputs.value(QString());
    // Settings the spec refuses are left as they are, with a message; the traces themselves still open.
    TraceSettings settings = settings_;
    QString problem;
    try {
        settings = readSettings(state[QStringLiteral("settings")]);
    } catch (const glint::InputError& e) {
        problem = QString::fromStdString(e.what());
    }
    const int count = integer(state[QStringLiteral("count")], QStringLiteral("trace.count"));
    const auto readTrace = [&](const QJsonObject& o, const QString& what) {
        FinishedTrace t;
        t.id = integer(o[QStringLiteral("id")], field(what, "id"));
        t.mode = string(o[QStringLiteral("mode")], field(what, "mode"));
        t.backend = string(o[QStringLiteral("backend")], field(what, "backend"));
        // "parameters": the spec's values (this version; "description" the text), or the text (older sessions).
        if (o[QStringLiteral("parameters")].isString()) {
            t.parameters = string(o[QStringLiteral("parameters")], field(what, "parameters"));
        } else {
            t.parameters = string(o[QStringLiteral("description")], field(what, "description"));
            t.request = toJson(object(o[QStringLiteral("parameters")], field(what, "parameters")));
        }
        t.result = readTraceResult(o[QStringLiteral("result")]);
        if (image) {
            std::vector<glint::TracePoint> clicks{t.result.legs.front().from};
            for (const glint::TraceLeg& leg : t.result.legs)
                clicks.push_back(leg.to);
            glint::validateTracePoints(clicks, image->width(), image->height()); // UsageError names the point
        }
        checkTraceGeometry(t.result, image.get(), what);
        return t;
    };
    const std::vector<FinishedTrace> traces =
        readObjects(state[QStringLiteral("traces")], QStringLiteral("trace.traces"), readTrace);
    return [this, settings, problem, count, traces] {
        setSettings(settings);
        if (!problem.isEmpty()) showMessage(tr("Session: the trace settings were not restored (%1)").arg(problem));
        for (const FinishedTrace& t : traces)
            presentTrace(t);
        count_ = std::max(count, count_);
    };
}

} // namespace glint::ui
