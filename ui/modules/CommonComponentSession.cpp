// CommonComponentModule's exports and sessions: the shown component as a core region (and its mask for
// the mask PNG), and image B, the parameters, the view and the result (mask included) as JSON and back.
#include "ui/modules/CommonComponentModule.h"

#include "ui/AppContext.h"
#include "ui/canvas/ImageCanvas.h"
#include "core/export/CsvTable.h"
#include "ui/modules/CommonComponentLayers.h"
#include "core/algo/commoncomponent/CommonSpec.h"
#include "ui/modules/CommonComponentPanel.h"
#include "ui/overlay/LayerStack.h"
#include "ui/session/SessionJson.h"
#include "core/util/Errors.h"

#include <algorithm>

namespace glint::ui {

QVector<ExportableResults> CommonComponentModule::exportableResults() const {
    if (!result_) return {};
    ExportableResults set;
    set.title = tr("Common component #%1 (%2)").arg(runs_).arg(resultBackend_);
    set.description = "common component, tolerance " + glint::formatNumber(resultTolerance_) + ", image B " +
                      secondPath_.toStdString();
    set.regions = glint::regionsFromCommon(*result_, resultTolerance_);
    set.layers = {layerA_.data(), layerB_.data()};
    if (result_->found) set.component = result_;
    return {set};
}

QJsonObject CommonComponentModule::saveSession() const {
    glint::Json form = glint::commonSpec().write(params_);
    form.erase("preset");
    QJsonObject state{
        {QStringLiteral("form"), sessionjson::fromJson(form)}, // the common spec's keys
        {QStringLiteral("backend"), QLatin1String(glint::backendName(backend_))},
        {QStringLiteral("view"), view_ == View::Blend ? QStringLiteral("blend") : QStringLiteral("side-by-side")},
        {QStringLiteral("opacity"), blendOpacity_},
        {QStringLiteral("runs"), runs_}};
    if (second_) {
        const SessionInput input{secondPath_, loadOptionsOf(*second_)};
        state[QStringLiteral("second")] = QJsonObject{{QStringLiteral("path"), input.path},
                                                      {QStringLiteral("hdu"), input.options.hdu},
                                                      {QStringLiteral("plane"), input.options.plane},
                                                      {QStringLiteral("frame"), input.options.frame}};
    }
    if (result_) {
        if (savedResult_ != result_) { // a large mask is compressed once, not at every autosave
            savedResultJson_ = sessionjson::commonResult(*result_);
            savedResult_ = result_;
        }
        QJsonObject result = savedResultJson_;
        result[QStringLiteral("tolerance")] = resultTolerance_;
        result[QStringLiteral("backend")] = resultBackend_;
        state[QStringLiteral("result")] = result;
    }
    return state;
}

QHash<QString, SessionInput> CommonComponentModule::sessionInputs(const QJsonObject& state) const {
    using namespace sessionjson;
    if (!state.contains(QStringLiteral("second"))) return {};
    const QJsonObject o = object(state[QStringLiteral("second")], QStringLiteral("common.second"));
    SessionInput input;
    input.path = string(o[QStringLiteral("path")], QStringLiteral("common.second.path"));
    input.options.hdu = integer(o[QStringLiteral("hdu")], QStringLiteral("common.second.hdu"));
    input.options.plane = integer(o[QStringLiteral("plane")], QStringLiteral("common.second.plane"));
    input.options.frame = integer(o[QStringLiteral("frame")], QStringLiteral("common.second.frame"));
    return {{QStringLiteral("B"), input}};
}

std::function<void()> CommonComponentModule::prepareSession(const QJsonObject& state, const SessionImages& inputs) {
    using namespace sessionjson;
    const std::shared_ptr<const glint::Image> a = inputs.value(QString());
    const std::shared_ptr<const glint::Image> b = inputs.value(QStringLiteral("B"));
    // The parameters: this version's "form" (the common spec's keys) or an older session's "params" (max_shift -1 for
    // every offset; sessions written before normalisation matched raw values). Values the spec refuses are left as
    // the panel has them, with a message; the rest of the session still opens.
    glint::CommonComponentParams params = params_;
    QString problem;
    try {
        glint::Json form;
        if (state.contains(QStringLiteral("form"))) {
            form = toJson(object(state[QStringLiteral("form")], QStringLiteral("common.form")));
        } else {
            const QJsonObject p = object(state[QStringLiteral("params")], QStringLiteral("common.params"));
            const double shift = number(p[QStringLiteral("max_shift")], QStringLiteral("common.params.max_shift"));
            form = {{"tolerance", number(p[QStringLiteral("tolerance")], QStringLiteral("common.params.tolerance"))},
                    {"max_shift", shift < 0 ? glint::Json(nullptr) : glint::Json(static_cast<long long>(shift))},
                    {"normalize", p.contains(QStringLiteral("normalize"))
                                      ? string(p[QStringLiteral("normalize")], QStringLiteral("common.params.normalize")).toStdString()
                                      : std::string("none")}};
        }
        params = glint::commonSpec().read(form, "session");
    } catch (const glint::UsageError& e) {
        problem = QString::fromStdString(e.what());
    }
    const glint::Backend backend = readBackend(state[QStringLiteral("backend")], QStringLiteral("common.backend"));
    const QString viewName = string(state[QStringLiteral("view")], QStringLiteral("common.view"));
    const View view = viewName == QLatin1String("blend") ? View::Blend : View::SideBySide;
    const double opacity = number(state[QStringLiteral("opacity")], QStringLiteral("common.opacity"));
    const int runs = integer(state[QStringLiteral("runs")], QStringLiteral("common.runs"));

    std::shared_ptr<const glint::CommonComponentResult> result;
    std::shared_ptr<const ComponentShape> shape;
    double tolerance = 0.0;
    QString resultBackend;
    if (state.contains(QStringLiteral("result"))) {
        const QJsonObject r = object(state[QStringLiteral("result")], QStringLiteral("common.result"));
        if (!a || !b) throw glint::InputError("session file: a common component result without image B");
        auto read = std::make_shared<glint::CommonComponentResult>(readCommonResult(r));
        if (read->found && (read->maskWidth != a->width() || read->maskHeight != a->height()))
            throw glint::InputError("session file: the common component's mask is not the size of the image");
        tolerance = number(r[QStringLiteral("tolerance")], QStringLiteral("common.result.tolerance"));
        resultBackend = string(r[QStringLiteral("backend")], QStringLiteral("common.result.backend"));
        if (read->found)
            shape = std::make_shared<const ComponentShape>(
                ComponentShape::fromMask(read->maskWidth, read->maskHeight, read->mask,
                                         QRect(read->bboxX, read->bboxY, read->bboxWidth, read->bboxHeight)));
        result = std::move(read);
    }
    return [this, params, problem, backend, view, opacity, runs, b, result, shape, tolerance, resultBackend] {
        setParameters(params);
        if (!problem.isEmpty() && panel_)
            panel_->setSummary(tr("Session: the parameters were not restored (%1)").arg(problem), true);
        setBackend(backend);
        if (b) {
            showSecond(b, QString::fromStdString(b->meta.path));
        } else if (second_) { // the session had no image B: neither does the window now
            closeSecondImage();
        }
        if (result) {
            runs_ = std::max(0, runs - 1);
            presentResult(result, shape, resultBackend, tolerance, std::nullopt);
        }
        runs_ = std::max(runs_, runs);
        blendOpacity_ = std::clamp(opacity, 0.0, 1.0);
        setBlendOpacity(blendOpacity_);
        setView(view);
    };
}

} // namespace glint::ui
