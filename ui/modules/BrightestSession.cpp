// BrightestModule's exports and sessions: its runs as core regions, and its panel, ROI, exclusions and
// runs (with their results) as JSON and back.
#include "ui/modules/BrightestModule.h"

#include "ui/AppContext.h"
#include "core/algo/brightest/BrightestAlgorithm.h"
#include "core/export/CsvTable.h"
#include "core/algo/brightest/BrightestSpec.h"
#include "ui/modules/BrightestPanel.h"
#include "ui/params/SpecForm.h"
#include "ui/results/ResultsModel.h"
#include "ui/session/SessionJson.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QSpinBox>

#include <algorithm>
#include <stdexcept>

namespace glint::ui {

namespace {

bool anyLayer(const BrightestModule::Run& run) {
    return std::any_of(run.layers.cbegin(), run.layers.cend(),
                       [](const QPointer<OverlayLayer>& l) { return !l.isNull(); });
}

// An older session's panel (k, mode, pivot_kind / percentile / number, threshold, min_snr, min_area, max_size,
// max_box with -1 for auto and 0 for none, distinct_on / distinct, mesh) as the brightest spec's JSON.
glint::Json legacyPanelForm(const QJsonObject& panel) {
    glint::Json form = glint::Json::object();
    for (const char* key : {"k", "min_area", "max_size", "mesh"})
        if (panel.contains(QLatin1String(key))) form[key] = panel[QLatin1String(key)].toInt();
    for (const char* key : {"threshold", "min_snr"})
        if (panel.contains(QLatin1String(key))) form[key] = panel[QLatin1String(key)].toDouble();
    if (panel.contains(QStringLiteral("mode"))) form["mode"] = panel[QStringLiteral("mode")].toString().toStdString();
    const QString kind = panel[QStringLiteral("pivot_kind")].toString();
    if (kind == QLatin1String("percentile"))
        form["pivot"] = glint::PivotSpec{glint::PivotSpec::Kind::Percentile, panel[QStringLiteral("percentile")].toDouble()}.text();
    else if (kind == QLatin1String("number") && !panel[QStringLiteral("number")].toString().trimmed().isEmpty())
        form["pivot"] = panel[QStringLiteral("number")].toString().trimmed().toStdString();
    else if (!kind.isEmpty() && kind != QLatin1String("number"))
        form["pivot"] = kind.toStdString();
    if (panel.contains(QStringLiteral("max_box"))) {
        const int box = panel[QStringLiteral("max_box")].toInt();
        form["max_box"] = box < 0 ? glint::Json("auto") : box == 0 ? glint::Json("none") : glint::Json(box);
    }
    if (panel.contains(QStringLiteral("distinct")))
        form["distinct"] = panel[QStringLiteral("distinct_on")].toBool(true) ? glint::Json(panel[QStringLiteral("distinct")].toDouble())
                                                                                : glint::Json(nullptr);
    return form;
}

std::uint32_t rgb(const QColor& c) {
    return static_cast<std::uint32_t>(c.rgb() & 0xFFFFFF);
}

} // namespace

QVector<ExportableResults> BrightestModule::exportableResults() const {
    QVector<ExportableResults> out;
    for (const Run& run : runs_) {
        if (!anyLayer(run)) continue;
        if (!run.sweep) {
            out.append({run.title, glint::brightestDescription(run.results.front(), run.k),
                        glint::regionsFromBrightest(run.results.front()), run.layers, nullptr});
            continue;
        }
        // A sweep: one set per pivot, its regions labelled with the pivot and drawn in the pivot's colour.
        for (std::size_t i = 0; i < run.results.size() && i < static_cast<std::size_t>(run.layers.size()); ++i) {
            const QPointer<OverlayLayer>& layer = run.layers[static_cast<qsizetype>(i)];
            if (!layer) continue;
            const glint::BrightestResult& result = run.results[i];
            std::vector<glint::ExportRegion> regions = glint::regionsFromBrightest(result);
            for (glint::ExportRegion& r : regions) {
                r.label = "pivot " + result.pivotSpec.text() + " " + r.label;
                r.colour = rgb(layer->colour());
            }
            out.append({layer->name(), glint::brightestDescription(result, run.k), std::move(regions), {layer}, nullptr});
        }
    }
    return out;
}

QJsonObject BrightestModule::saveSession() const {
    QJsonObject state;
    if (panel_) {
        // The form as the brightest spec's JSON (every field, applying or not), and the panel's own settings.
        state[QStringLiteral("form")] = sessionjson::fromJson(panel_->form()->allValues());
        state[QStringLiteral("backend")] = panel_->backendBox()->currentText();
        state[QStringLiteral("sweep")] = panel_->sweepEdit()->text();
    }
    if (roi_) state[QStringLiteral("roi")] = sessionjson::rect(*roi_);
    QJsonArray exclusions;
    for (const Exclusion& e : exclusions_)
        exclusions.append(e.polygon ? QJsonObject{{QStringLiteral("polygon"), sessionjson::points(e.points)}}
                                    : QJsonObject{{QStringLiteral("rect"), sessionjson::rect(e.rect)}});
    state[QStringLiteral("exclusions")] = exclusions;
    QJsonArray runs;
    for (const Run& run : runs_) {
        if (!anyLayer(run)) continue;
        QJsonArray results;
        for (const glint::BrightestResult& r : run.results)
            results.append(sessionjson::brightestResult(r));
        QJsonObject saved{{QStringLiteral("number"), run.number},
                          {QStringLiteral("sweep"), run.sweep},
                          {QStringLiteral("k"), run.k},
                          {QStringLiteral("results"), results}};
        if (!run.parameters.is_null()) saved[QStringLiteral("parameters")] = sessionjson::fromJson(run.parameters);
        runs.append(saved);
    }
    state[QStringLiteral("runs")] = runs;
    return state;
}

std::function<void()> BrightestModule::prepareSession(const QJsonObject& state, const SessionImages& inputs) {
    using namespace sessionjson;
    const std::shared_ptr<const glint::Image> image = inputs.value(QString());
    const QRect bounds = image ? QRect(0, 0, image->width(), image->height()) : QRect();
    // The form: this version's "form" (the spec's JSON), or an older session's "panel" fields in the same keys. A
    // form the spec refuses is left as it is, with a message; the rest of the session still opens.
    glint::Json form = glint::Json::object();
    QString formProblem;
    if (state.contains(QStringLiteral("form"))) form = sessionjson::toJson(object(state[QStringLiteral("form")], QStringLiteral("brightest.form")));
    else if (state.contains(QStringLiteral("panel"))) form = legacyPanelForm(object(state[QStringLiteral("panel")], QStringLiteral("brightest.panel")));
    try {
        glint::brightestSpec().checkRequest(form, "session");
    } catch (const glint::UsageError& e) {
        formProblem = QString::fromStdString(e.what());
        form = glint::Json::object();
    }
    const QJsonObject panelState = state.contains(QStringLiteral("panel")) ? state[QStringLiteral("panel")].toObject() : state;
    std::optional<QRect> roi;
    if (state.contains(QStringLiteral("roi"))) {
        roi = readRect(state[QStringLiteral("roi")], QStringLiteral("brightest.roi"));
        if (!bounds.contains(*roi)) throw glint::InputError("session file: the brightest ROI lies outside the image");
    }
    QVector<Exclusion> exclusions;
    for (const QJsonValue& v : array(state[QStringLiteral("exclusions")], QStringLiteral("brightest.exclusions"))) {
        const QJsonObject e = object(v, QStringLiteral("brightest.exclusions[]"));
        if (e.contains(QStringLiteral("polygon")))
            exclusions.append(
                {true, {}, readPoints(e[QStringLiteral("polygon")], QStringLiteral("brightest.exclusions[].polygon"))});
        else
            exclusions.append(
                {false, readRect(e[QStringLiteral("rect")], QStringLiteral("brightest.exclusions[].rect")), {}});
    }
    const auto readRun = [&](const QJsonObject& o, const QString& what) {
        Run run;
        run.number = integer(o[QStringLiteral("number")], field(what, "number"));
        run.sweep = boolean(o[QStringLiteral("sweep")], field(what, "sweep"));
        run.k = integer(o[QStringLiteral("k")], field(what, "k"));
        for (const QJsonValue& r : array(o[QStringLiteral("results")], field(what, "results"))) {
            glint::BrightestResult result = readBrightestResult(r);
            if (!image || result.imageWidth != image->width() || result.imageHeight != image->height())
                throw glint::InputError("session file: a brightest result is for an image of another size");
            run.results.push_back(std::move(result));
        }
        if (run.results.empty() || (!run.sweep && run.results.size() != 1))
            throw glint::InputError("session file: a brightest run has no result");
        if (o.contains(QStringLiteral("parameters"))) {
            run.parameters = sessionjson::toJson(object(o[QStringLiteral("parameters")], field(what, "parameters")));
            try {
                glint::brightestSpec().checkRequest(run.parameters, "session");
            } catch (const glint::UsageError&) {
                run.parameters = nullptr; // a record only: the results themselves were read
            }
        }
        return run;
    };
    const std::vector<Run> runs = readObjects(state[QStringLiteral("runs")], QStringLiteral("brightest.runs"), readRun);
    return [this, form, formProblem, panelState, roi, exclusions, runs] {
        cancelAutoExclusion(); // the session's exclusions replace those the opened image would get
        if (panel_) {
            panel_->form()->setValues(form);
            const int backend = panel_->backendBox()->findText(panelState[QStringLiteral("backend")].toString());
            if (backend >= 0) panel_->backendBox()->setCurrentIndex(backend);
            panel_->sweepEdit()->setText(panelState[QStringLiteral("sweep")].toString(panel_->sweepEdit()->text()));
        }
        roi_ = roi;
        exclusions_ = exclusions;
        refreshRoi();
        refreshExclusions();
        for (const Run& run : runs) {
            runCount_ = run.number - 1; // the titles (and so the layer names) are the saved ones
            if (run.sweep)
                presentSweep(run.results, run.k);
            else
                presentSingle(run.results.front(), run.k);
            runs_.back().parameters = run.parameters;
        }
        for (const Run& run : runs)
            runCount_ = std::max(runCount_, run.number);
        if (panel_ && !runs.empty()) panel_->setStatus(runs.size() == 1 ? tr("1 run restored from the session.") : tr("%1 runs restored from the session.").arg(runs.size()));
        if (!formProblem.isEmpty()) {
            const QString message = tr("Session: the brightest parameters were not restored (%1); the panel keeps its values.").arg(formProblem);
            if (panel_) panel_->setStatus(message, true);
            showNote(message);
        }
    };
}

} // namespace glint::ui
