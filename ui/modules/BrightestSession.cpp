// BrightestModule's exports and sessions: its runs as core regions, and its panel, ROI, exclusions and
// runs (with their results) as JSON and back.
#include "ui/modules/BrightestModule.h"

#include "ui/AppContext.h"
#include "core/algo/brightest/BrightestAlgorithm.h"
#include "core/export/CsvTable.h"
#include "ui/modules/BrightestPanel.h"
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
        state[QStringLiteral("panel")] =
            QJsonObject{{QStringLiteral("k"), panel_->kBox()->value()},
                        {QStringLiteral("mode"), panel_->modeBox()->currentData().toString()},
                        {QStringLiteral("pivot_kind"), panel_->pivotBox()->currentData().toString()},
                        {QStringLiteral("percentile"), panel_->percentileBox()->value()},
                        {QStringLiteral("number"), panel_->numberEdit()->text()},
                        {QStringLiteral("backend"), panel_->backendBox()->currentText()},
                        {QStringLiteral("sweep"), panel_->sweepEdit()->text()},
                        {QStringLiteral("threshold"), panel_->thresholdBox()->value()},
                        {QStringLiteral("min_snr"), panel_->minSnrBox()->value()},
                        {QStringLiteral("min_area"), panel_->minAreaBox()->value()},
                        {QStringLiteral("max_size"), panel_->maxSizeBox()->value()},
                        {QStringLiteral("max_box"), panel_->maxBoxBox()->value()},
                        {QStringLiteral("distinct_on"), panel_->distinctCheck()->isChecked()},
                        {QStringLiteral("distinct"), panel_->distinctBox()->value()},
                        {QStringLiteral("mesh"), panel_->meshBox()->value()}};
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
        runs.append(QJsonObject{{QStringLiteral("number"), run.number},
                                {QStringLiteral("sweep"), run.sweep},
                                {QStringLiteral("k"), run.k},
                                {QStringLiteral("results"), results}});
    }
    state[QStringLiteral("runs")] = runs;
    return state;
}

std::function<void()> BrightestModule::prepareSession(const QJsonObject& state, const SessionImages& inputs) {
    using namespace sessionjson;
    const std::shared_ptr<const glint::Image> image = inputs.value(QString());
    const QRect bounds = image ? QRect(0, 0, image->width(), image->height()) : QRect();
    const QJsonObject panelState = state.contains(QStringLiteral("panel"))
                                       ? object(state[QStringLiteral("panel")], QStringLiteral("brightest.panel"))
                                       : QJsonObject();
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
        return run;
    };
    const std::vector<Run> runs = readObjects(state[QStringLiteral("runs")], QStringLiteral("brightest.runs"), readRun);
    return [this, panelState, roi, exclusions, runs] {
        cancelAutoExclusion(); // the session's exclusions replace those the opened image would get
        if (panel_ && !panelState.isEmpty()) panel_->withoutMarkingUser([&] {
            panel_->kBox()->setValue(panelState[QStringLiteral("k")].toInt(panel_->kBox()->value()));
            const int mode = panel_->modeBox()->findData(panelState[QStringLiteral("mode")].toString());
            if (mode >= 0) panel_->modeBox()->setCurrentIndex(mode);
            const int kind = panel_->pivotBox()->findData(panelState[QStringLiteral("pivot_kind")].toString());
            if (kind >= 0) panel_->pivotBox()->setCurrentIndex(kind);
            panel_->percentileBox()->setValue(
                panelState[QStringLiteral("percentile")].toDouble(panel_->percentileBox()->value()));
            panel_->numberEdit()->setText(panelState[QStringLiteral("number")].toString());
            const int backend = panel_->backendBox()->findText(panelState[QStringLiteral("backend")].toString());
            if (backend >= 0) panel_->backendBox()->setCurrentIndex(backend);
            panel_->sweepEdit()->setText(panelState[QStringLiteral("sweep")].toString(panel_->sweepEdit()->text()));
            // Sessions older than the source finder's fields keep the values the image's defaults gave.
            panel_->thresholdBox()->setValue(panelState[QStringLiteral("threshold")].toDouble(panel_->thresholdBox()->value()));
            panel_->minSnrBox()->setValue(panelState[QStringLiteral("min_snr")].toDouble(panel_->minSnrBox()->value()));
            panel_->minAreaBox()->setValue(panelState[QStringLiteral("min_area")].toInt(panel_->minAreaBox()->value()));
            panel_->maxSizeBox()->setValue(panelState[QStringLiteral("max_size")].toInt(panel_->maxSizeBox()->value()));
            panel_->maxBoxBox()->setValue(panelState[QStringLiteral("max_box")].toInt(panel_->maxBoxBox()->value()));
            // Sessions older than Distinct keep the panel's setting.
            panel_->distinctCheck()->setChecked(panelState[QStringLiteral("distinct_on")].toBool(panel_->distinctCheck()->isChecked()));
            panel_->distinctBox()->setValue(panelState[QStringLiteral("distinct")].toDouble(panel_->distinctBox()->value()));
            panel_->meshBox()->setValue(panelState[QStringLiteral("mesh")].toInt(panel_->meshBox()->value()));
        });
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
        }
        for (const Run& run : runs)
            runCount_ = std::max(runCount_, run.number);
        if (panel_ && !runs.empty()) panel_->setStatus(runs.size() == 1 ? tr("1 run restored from the session.") : tr("%1 runs restored from the session.").arg(runs.size()));
    };
}

} // namespace glint::ui
