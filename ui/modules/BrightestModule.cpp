#include "ui/modules/BrightestModule.h"

#include "core/algo/brightest/BrightestSpec.h"
#include "core/algo/mammogram/AutoExclude.h"
#include "ui/params/SpecForm.h"
#include "ui/AppContext.h"
#include "ui/canvas/ImageCanvas.h"
#include "ui/canvas/ShapeTools.h"
#include "ui/docks/ResultsDock.h"
#include "ui/jobs/JobRunner.h"
#include "ui/jobs/LatestRequestRunner.h"
#include "ui/modules/BrightestPanel.h"
#include "ui/overlay/LayerStack.h"
#include "ui/overlay/ShapeLayer.h"
#include "ui/results/ResultsModel.h"
#include "ui/results/TimingLog.h"
#include "ui/undo/UndoCommands.h"

#include <QAction>
#include <QComboBox>
#include <QListWidget>
#include <QMainWindow>
#include <QPushButton>
#include <QSpinBox>
#include <QStatusBar>

#include <cmath>
#include <exception>
#include <iterator>
#include <limits>

namespace glint::ui {

namespace {

const QColor kRegionColour(255, 176, 0);

// One colour per pivot of a sweep, far apart in hue and all visible on grey images.
const QColor kSweepPalette[] = {QColor(255, 64, 64),  QColor(255, 210, 0),   QColor(0, 220, 90),   QColor(0, 170, 255),
                                QColor(230, 90, 255), QColor(255, 140, 0),   QColor(0, 235, 235),  QColor(255, 130, 190)};

QString number(double v) { return QString::number(v, 'g', 7); }

// Large sums in full rather than in exponent form ("3251375749", not "3.251376e+09"): easier to compare.
QString sumText(const glint::BrightestRegion& r) {
    if (r.exactInteger) return QString::number(static_cast<qlonglong>(r.sumInt));
    return std::abs(r.sum) >= 1e6 && std::abs(r.sum) < 1e15 ? QString::number(r.sum, 'f', 0) : number(r.sum);
}

QVariant sumValue(const glint::BrightestRegion& r) {
    return r.exactInteger ? QVariant(static_cast<qlonglong>(r.sumInt)) : QVariant(r.sum);
}

QString pivotText(const glint::BrightestResult& r) {
    const QString spec = QString::fromStdString(r.pivotSpec.text());
    return r.pivotSpec.kind == glint::PivotSpec::Kind::Number ? spec : QStringLiteral("%1 = %2").arg(spec, number(r.pivot));
}

// The search's own notes (core's BrightestResult::note: "found 3 of 10 regions: ..."), once each.
QString searchNotes(const std::vector<glint::BrightestResult>& results) {
    QStringList lines;
    for (const glint::BrightestResult& r : results) {
        const QString note = QString::fromStdString(r.note).trimmed();
        if (!note.isEmpty() && !lines.contains(note)) lines << note;
    }
    return lines.join(QLatin1Char(' '));
}


// The measurement columns appended after the existing ones (older sessions' regions have none: blank). A
// mammogram ranking (--rank contrast) shows its regions' contrast against the surrounding tissue where the sky
// search shows an SNR.
QStringList measurementColumns(bool sky, bool contrast) {
    QStringList columns{QObject::tr("flux"), contrast ? QObject::tr("contrast") : QObject::tr("SNR"), QObject::tr("centroid x"),
                        QObject::tr("centroid y")};
    if (sky) columns << QObject::tr("RA") << QObject::tr("Dec");
    columns << QObject::tr("flags");
    return columns;
}

QVariantList measurementValues(const glint::BrightestRegion& r, bool sky, bool contrast) {
    if (!r.measured) {
        QVariantList blank;
        for (int i = 0; i < (sky ? 7 : 5); ++i) blank << QVariant();
        return blank;
    }
    QVariantList values{r.flux, contrast ? r.contrast : r.snr, r.centroidX, r.centroidY};
    if (sky) {
        values << (r.hasSky ? QVariant(r.ra) : QVariant()) << (r.hasSky ? QVariant(r.dec) : QVariant());
    }
    values << r.flags;
    return values;
}

// RA and Dec (after flux, SNR, centroid x, y) with the decimals the image's pixel scale needs.
void setSkyColumns(ResultsModel* model, int firstMeasurement, bool sky, const AppContext& ctx) {
    if (!sky) return;
    const auto image = ctx.image();
    model->setSkyColumns(firstMeasurement + 4, firstMeasurement + 5,
                         image ? ResultsModel::pixelScaleDeg(*image) : std::numeric_limits<double>::quiet_NaN());
}

bool anyContrast(const std::vector<glint::BrightestResult>& results) {
    for (const glint::BrightestResult& result : results)
        for (const glint::BrightestRegion& r : result.regions)
            if (r.measured && !std::isnan(r.contrast)) return true;
    return false;
}

bool anySky(const std::vector<glint::BrightestResult>& results) {
    for (const glint::BrightestResult& result : results)
        for (const glint::BrightestRegion& r : result.regions)
            if (r.measured && r.hasSky) return true;
    return false;
}


} // namespace

BrightestModule::BrightestModule(AppContext& context, QObject* parent)
    : AnalysisModule(context, parent), roiTool_(new RectangleTool(this)), excludeRectTool_(new RectangleTool(this)),
      excludePolygonTool_(new PolygonTool(this)), brightestAction_(new QAction(tr("Brightest Region"), this)),
      kBrightestAction_(new QAction(tr("K Brightest Regions"), this)),
      sweepAction_(new QAction(tr("Brightest: Pivot Sweep"), this)),
      drawRoiAction_(new QAction(tr("Brightest: Draw ROI"), this)),
      excludeRectAction_(new QAction(tr("Brightest: Exclude Rectangle"), this)),
      excludePolygonAction_(new QAction(tr("Brightest: Exclude Polygon"), this)),
      autoRunner_(new LatestRequestRunner(this)) {
    connect(autoRunner_, &LatestRequestRunner::failed, this, [this](const QString& message) {
        autoExcludePending_ = false;
        pendingRunK_ = -1;
        pendingSweep_ = false;
        fail(tr("Auto-exclusion failed: %1").arg(message));
    });
    // Ctrl+B runs what the panel shows (its K, pivot and mode); the K = 1 search is one menu entry away.
    kBrightestAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_B));
    brightestAction_->setText(tr("Brightest Region (K = 1)"));
    brightestAction_->setStatusTip(tr("Only the rectangle with the largest sum of (value − pivot)"));
    showK(glint::brightestSpec().presetValues(glint::ImageKind::Other)["k"].get<int>());
    connect(brightestAction_, &QAction::triggered, this, [this] {
        emit panelRequested();
        run(1);
    });
    connect(kBrightestAction_, &QAction::triggered, this, [this] {
        emit panelRequested();
        run(0);
    });
    connect(sweepAction_, &QAction::triggered, this, [this] {
        emit panelRequested();
        runSweep();
    });
    const auto useTool = [this](CanvasTool* tool) {
        emit panelRequested();
        if (this->context().canvas() && this->context().hasImage()) this->context().canvas()->setTool(tool);
    };
    connect(drawRoiAction_, &QAction::triggered, this, [useTool, this] { useTool(roiTool_); });
    connect(excludeRectAction_, &QAction::triggered, this, [useTool, this] { useTool(excludeRectTool_); });
    connect(excludePolygonAction_, &QAction::triggered, this, [useTool, this] { useTool(excludePolygonTool_); });
    connect(roiTool_, &RectangleTool::rectangleDrawn, this, &BrightestModule::setRoi);
    connect(excludeRectTool_, &RectangleTool::rectangleDrawn, this, &BrightestModule::addExclusionRectangle);
    connect(excludePolygonTool_, &PolygonTool::polygonDrawn, this, &BrightestModule::addExclusionPolygon);
    connect(&context, &AppContext::imageChanged, this, &BrightestModule::onImageChanged);
}

QList<QAction*> BrightestModule::actions() {
    return {brightestAction_, kBrightestAction_, sweepAction_, drawRoiAction_, excludeRectAction_, excludePolygonAction_};
}

QWidget* BrightestModule::createPanel() {
    if (panel_) return nullptr; // created once; the parameters dock owns it
    panel_ = new BrightestPanel;
    connect(panel_->runButton(), &QPushButton::clicked, kBrightestAction_, &QAction::trigger);
    connect(panel_, &BrightestPanel::runRequested, kBrightestAction_, &QAction::trigger);
    connect(panel_->sweepButton(), &QPushButton::clicked, sweepAction_, &QAction::trigger);
    connect(panel_, &BrightestPanel::sweepRequested, sweepAction_, &QAction::trigger);
    connect(panel_->kBox(), &QSpinBox::valueChanged, this, &BrightestModule::showK);
    showK(panel_->k());
    connect(panel_->drawRoiButton(), &QPushButton::clicked, drawRoiAction_, &QAction::trigger);
    connect(panel_->clearRoiButton(), &QPushButton::clicked, this, &BrightestModule::clearRoi);
    connect(panel_->excludeRectangleButton(), &QPushButton::clicked, excludeRectAction_, &QAction::trigger);
    connect(panel_->excludePolygonButton(), &QPushButton::clicked, excludePolygonAction_, &QAction::trigger);
    connect(panel_->clearExclusionsButton(), &QPushButton::clicked, this, &BrightestModule::clearExclusions);
    connect(panel_->autoExcludeButton(), &QPushButton::clicked, this, [this] {
        emit panelRequested();
        autoExclude();
    });
    QListWidget* list = panel_->exclusionList();
    connect(panel_->deleteExclusionButton(), &QPushButton::clicked, this, [this, list] { removeExclusion(list->currentRow()); });
    auto* deleteKey = new QAction(list);
    deleteKey->setShortcuts({QKeySequence::Delete, QKeySequence(Qt::Key_Backspace)});
    deleteKey->setShortcutContext(Qt::WidgetShortcut);
    list->addAction(deleteKey);
    connect(deleteKey, &QAction::triggered, this, [this, list] { removeExclusion(list->currentRow()); });
    connect(list, &QListWidget::currentRowChanged, this, [this](int row) {
        if (exclusionLayer_) exclusionLayer_->setSelected(row);
    });
    connect(context().jobs(), &JobRunner::busyChanged, panel_, [this](bool busy) { panel_->setRunEnabled(!busy); });
    undoableChoice(context().undoStack(), panel_->backendBox(), tr("Backend")); // the form's fields push their own
    undoableText(context().undoStack(), panel_->sweepEdit(), tr("Sweep"));
    connect(panel_->kindBox(), &QComboBox::currentIndexChanged, this, [this](int index) {
        const QString name = panel_->kindBox()->itemData(index).toString();
        if (name.isEmpty()) return;
        chooseKind(name == QLatin1String("auto") ? std::nullopt
                                                 : std::optional<glint::ImageKind>(glint::parseImageKind(name.toStdString())));
    });
    refreshExclusions();
    refreshRoi();
    refreshKindBox();
    applyImageDefaults();
    return panel_;
}

glint::Json BrightestModule::currentRequest(int k) const {
    glint::Json request = panel_ ? panel_->request() : glint::Json::object();
    if (k > 0) request["k"] = k;
    if (roi_) request["roi"] = glint::Json::array({roi_->x(), roi_->y(), roi_->width(), roi_->height()});
    glint::Json rects = glint::Json::array(), polygons = glint::Json::array();
    for (const Exclusion& e : exclusions_) {
        if (!e.polygon) {
            rects.push_back(glint::Json::array({e.rect.x(), e.rect.y(), e.rect.width(), e.rect.height()}));
            continue;
        }
        glint::Json points = glint::Json::array();
        for (const QPointF& p : e.points) points.push_back(glint::Json::array({p.x(), p.y()}));
        polygons.push_back(std::move(points));
    }
    request["exclude"] = std::move(rects);
    request["exclude_polygon"] = std::move(polygons);
    // The image's auto-exclusions are already shapes of the list (added when it opened, editable).
    request["auto_exclude"] = "none";
    if (context().hasImage()) request["preset"] = glint::imageKindName(kind()); // found by content, or chosen
    return request;
}

glint::BrightestParams BrightestModule::currentParams(int k) const {
    const glint::ParamSpec<glint::BrightestParams>& spec = glint::brightestSpec();
    return spec.read(spec.applyPreset(currentRequest(k), context().image().get()));
}

void BrightestModule::showK(int k) {
    // The menu entry says which K it runs (the panel's), so that no run surprises.
    kBrightestAction_->setText(tr("K Brightest Regions (K = %1)").arg(k));
    kBrightestAction_->setIconText(tr("K Brightest Regions"));
    kBrightestAction_->setStatusTip(tr("The %1 brightest regions, with the panel's pivot and mode (K is set in the panel)").arg(k));
}

bool BrightestModule::run(int k) {
    if (autoExcludePending_ && context().hasImage()) {
        // The image's exclusions are being found: the run starts with them, as soon as they are in.
        pendingRunK_ = k;
        if (panel_) panel_->setStatus(tr("Finding the mammogram's exclusions; the search starts when they are in…"));
        return true;
    }
    return start({}, k);
}

bool BrightestModule::runSweep() {
    if (!panel_) return false;
    if (autoExcludePending_ && context().hasImage()) {
        pendingSweep_ = true;
        panel_->setStatus(tr("Finding the mammogram's exclusions; the sweep starts when they are in…"));
        return true;
    }
    try {
        return start(panel_->sweepPivots(), 1); // the paper's figure: one rectangle per pivot
    } catch (const std::exception& e) {
        fail(QString::fromStdString(e.what()));
        return false;
    }
}

bool BrightestModule::start(std::vector<glint::PivotSpec> sweep, int k) {
    AppContext& ctx = context();
    if (!panel_) return false;
    if (!ctx.hasImage()) {
        fail(tr("Open an image first."));
        return false;
    }
    glint::Json request;
    glint::Backend backend = glint::Backend::Auto;
    try {
        request = currentRequest(k > 0 ? k : panel_->k());
        glint::brightestSpec().checkEarly(request);
        backend = panel_->backend();
    } catch (const std::exception& e) {
        fail(QString::fromStdString(e.what()));
        return false;
    }
    const bool isSweep = !sweep.empty();
    const std::shared_ptr<const glint::Image> image = ctx.image();
    auto results = std::make_shared<std::vector<glint::BrightestResult>>();
    auto parameters = std::make_shared<glint::Json>();
    auto shown = std::make_shared<QString>();
    JobRequest job;
    job.name = isSweep ? tr("Brightest region: pivot sweep") : name();
    // The window runs what glint-cli runs: the same request, resolved and searched in core.
    job.work = [image, request, sweep, backend, results, parameters](glint::JobControl& control) {
        if (!sweep.empty()) {
            const glint::ParamSpec<glint::BrightestParams>& spec = glint::brightestSpec();
            const glint::Json full = spec.applyPreset(request, image.get());
            *results = glint::runPivotSweep(*image, spec.read(full), sweep, backend, control);
            *parameters = spec.write(spec.read(full), full["preset"].get<std::string>());
            return;
        }
        glint::BrightestRun run = glint::runBrightestRequest(*image, request, backend, control);
        results->push_back(std::move(run.result));
        *parameters = std::move(run.parameters);
    };
    job.done = [this, image, results, parameters, sweep, isSweep, shown, k = request["k"].get<int>()](glint::JobControl& control) {
        if (context().image() != image) return; // another image was opened meanwhile
        lastResults_ = *results;
        const QString note = searchNotes(*results);
        *shown = note;
        QString text = parametersText(*parameters, sweep);
        // The pivot core took instead of the one asked for (an integer image's percentile at its maximum).
        if (!isSweep && !results->empty() && glint::Json(results->front().pivotSpec.text()) != (*parameters)["pivot"] &&
            results->front().pivotSpec.kind == glint::PivotSpec::Kind::Number && !(*parameters)["pivot"].is_number())
            text += QStringLiteral(" pivot_used=%1").arg(QString::number(results->front().pivot, 'g', 17));
        if (isSweep) showSweep(*results, k, control, *image, text, note);
        else showSingle(results->front(), k, control, *image, text, note);
        if (!runs_.empty()) runs_.back().parameters = *parameters;
    };
    // This request's own outcome (the runner may run other modules' jobs before and after it).
    QPointer<BrightestModule> self(this);
    job.finished = [self, shown] {
        if (!self) return;
        self->showNote(*shown); // after the window's "done" message, which it replaces
        emit self->runFinished();
    };
    job.failed = [self](const QString& message) {
        if (self) self->fail(message);
    };
    job.cancelled = [self] {
        if (!self) return;
        if (self->panel_) self->panel_->setStatus(tr("Cancelled."));
        emit self->runCancelled();
    };
    if (!ctx.jobs()->start(std::move(job))) {
        fail(tr("%1 is still running: wait for it or cancel it.").arg(ctx.jobs()->currentName()));
        return false;
    }
    panel_->setStatus(isSweep ? tr("Running a sweep of %1 pivots…").arg(sweep.size()) : tr("Running…"));
    return true;
}

QString BrightestModule::parametersText(const glint::Json& parameters, const std::vector<glint::PivotSpec>& sweep) const {
    // The values that differ from the spec's defaults, key=value; the shapes as a count and a digest, so that runs
    // with the same shapes (and only those) are compared in the timing dock.
    const glint::Json defaults = glint::brightestSpec().defaults();
    QStringList parts;
    if (!sweep.empty()) {
        QStringList pivots;
        for (const glint::PivotSpec& p : sweep) pivots << QString::fromStdString(p.text());
        parts << QStringLiteral("pivots=%1").arg(pivots.join(QLatin1Char(',')));
    }
    for (const auto& [key, value] : parameters.items()) {
        if ((!sweep.empty() && key == "pivot") || (defaults.contains(key) && defaults[key] == value && key != "k")) continue;
        if (value.is_array()) {
            if (value.empty()) continue;
            parts << QStringLiteral("%1=%2[%3]")
                         .arg(QString::fromStdString(key))
                         .arg(value.size())
                         .arg(qHash(QString::fromStdString(value.dump())) & 0xffffff, 6, 16, QLatin1Char('0'));
            continue;
        }
        parts << QStringLiteral("%1=%2").arg(QString::fromStdString(key),
                                             QString::fromStdString(value.is_string() ? value.get<std::string>() : value.dump()));
    }
    return parts.join(QLatin1Char(' '));
}

void BrightestModule::retirePreviousRun() {
    // Older runs stay in the Layers dock (tick them to compare), hidden so that the picture stays readable.
    for (const QPointer<OverlayLayer>& layer : runLayers_)
        if (layer) layer->setVisible(false);
    runLayers_.clear();
}

void BrightestModule::showNote(const QString& note) {
    if (note.isEmpty()) return;
    if (auto* window = qobject_cast<QMainWindow*>(context().window())) window->statusBar()->showMessage(note, 30000);
}

void BrightestModule::presentSingle(const glint::BrightestResult& result, int k, const QString& givenNote) {
    AppContext& ctx = context();
    retirePreviousRun();
    ++runCount_;
    const QString pivot = QString::fromStdString(result.pivotSpec.text());
    const QString title = k == 1 ? tr("Brightest #%1: pivot %2").arg(runCount_).arg(pivot)
                                 : tr("Brightest #%1: K=%2 %3, pivot %4")
                                       .arg(runCount_)
                                       .arg(k)
                                       .arg(QString::fromLatin1(glint::brightestModeName(result.mode)), pivot);
    QVector<RegionMark> marks;
    const bool sky = anySky({result});
    const bool contrast = anyContrast({result});
    auto* model = new ResultsModel(QStringList{tr("rank"), tr("x"), tr("y"), tr("width"), tr("height"), tr("sum"), tr("mean")} +
                                   measurementColumns(sky, contrast));
    setSkyColumns(model, 7, sky, ctx);
    for (const glint::BrightestRegion& r : result.regions) {
        // A mammogram finding is labelled by what ranked it: its contrast against the surrounding tissue.
        const QString value = std::isnan(r.contrast) ? sumText(r) : tr("contrast %1").arg(r.contrast, 0, 'f', 1);
        marks.append({r.rank, QRect(r.x, r.y, r.width, r.height), QStringLiteral("#%1  %2").arg(r.rank).arg(value)});
        model->addRow(QVariantList{r.rank, r.x, r.y, r.width, r.height, sumValue(r), result.regionMean(r)} + measurementValues(r, sky, contrast),
                      static_cast<int>(marks.size()) - 1);
    }
    auto* layer = new BrightestRegionLayer(title, kRegionColour);
    layer->setRegions(std::move(marks));
    layer->setFadeWithRank(result.mode == glint::BrightestMode::Overlap);
    ctx.layers()->add(layer);
    runLayers_ = {layer};
    regionLayer_ = layer;
    sweepLayer_ = nullptr;
    model_ = model;
    const QString note = givenNote.isEmpty() ? searchNotes({result}) : givenNote;
    if (ctx.results()) ctx.results()->addResultSet(title, model, layer, note);
    else model->deleteLater();
    runs_.push_back({runCount_, false, k, {result}, {layer}, title});
    lastResults_ = {result};
    emit resultsChanged();
}

void BrightestModule::showSingle(const glint::BrightestResult& result, int k, const glint::JobControl& job,
                                 const glint::Image& image, const QString& parameters, const QString& note) {
    presentSingle(result, k, note);
    context().timingLog()->add(RunRecord::fromJob(name(), result.backend, job, image, parameters));

    // The search's note ends a sentence before the figures follow it.
    QString text = note.isEmpty() ? tr("Pivot %1.").arg(pivotText(result))
                                  : note.endsWith(QLatin1Char('.')) ? note : note + QLatin1Char('.');
    if (result.regions.size() == 1)
        text += QLatin1Char(' ') + tr("Sum %1 over %2 × %3 pixels.").arg(sumText(result.regions.front()))
                                       .arg(result.regions.front().width)
                                       .arg(result.regions.front().height);
    else if (result.regions.size() > 1)
        text += QLatin1Char(' ') + tr("%1 regions, sums %2 … %3.")
                                       .arg(result.regions.size())
                                       .arg(sumText(result.regions.front()), sumText(result.regions.back()));
    if (result.maxBoxAuto) text += QLatin1Char(' ') + QString::fromStdString(glint::searchBoundText(result)) + QLatin1Char('.');
    text += QLatin1Char(' ') + tr("%1 on %2, %3 ms.")
                                   .arg(QString::fromLatin1(glint::backendName(result.backend)),
                                        QString::fromStdString(result.device))
                                   .arg(job.timing().total(), 0, 'f', 1);
    panel_->setStatus(text);
}

void BrightestModule::presentSweep(const std::vector<glint::BrightestResult>& results, int k, const QString& givenNote) {
    AppContext& ctx = context();
    retirePreviousRun();
    ++runCount_;
    const QString title = tr("Brightest #%1: pivot sweep").arg(runCount_);
    auto* legend = new BrightestSweepLayer(tr("%1 (legend, labels)").arg(title));
    const bool sky = anySky(results);
    const bool contrast = anyContrast(results);
    auto* model = new ResultsModel(QStringList{tr("#"), tr("pivot"), tr("pivot value"), tr("rank"), tr("x"), tr("y"), tr("width"),
                                               tr("height"), tr("sum"), tr("mean")} +
                                   measurementColumns(sky, contrast));
    setSkyColumns(model, 10, sky, ctx);
    int item = 0;
    for (std::size_t i = 0; i < results.size(); ++i) {
        const glint::BrightestResult& result = results[i];
        const QString pivot = QString::fromStdString(result.pivotSpec.text());
        const bool several = result.regions.size() > 1;
        QVector<RegionMark> marks;
        for (const glint::BrightestRegion& r : result.regions) {
            const QString label = several ? QStringLiteral("%1 #%2  %3").arg(pivot).arg(r.rank).arg(sumText(r))
                                          : QStringLiteral("%1  %2").arg(pivot, sumText(r));
            marks.append({r.rank, QRect(r.x, r.y, r.width, r.height), label});
            model->addRow(QVariantList{static_cast<int>(i) + 1, pivot, result.pivot, r.rank, r.x, r.y, r.width, r.height,
                                       sumValue(r), result.regionMean(r)} +
                              measurementValues(r, sky, contrast),
                          item++);
        }
        auto* layer = new BrightestRegionLayer(tr("%1: pivot %2").arg(title, pivot),
                                               kSweepPalette[i % std::size(kSweepPalette)]);
        layer->setRegions(std::move(marks));
        layer->setFadeWithRank(result.mode == glint::BrightestMode::Overlap);
        layer->setShowLabels(false); // the legend layer places every pivot's labels together
        ctx.layers()->add(layer);
        runLayers_.append(layer);
        legend->addPivot(layer, result.regions.empty() ? tr("%1 — no region").arg(pivotText(result)) : pivotText(result));
        // Without the legend layer (removed in the Layers dock: detached while its step is on the stack, then
        // deleted) each pivot labels its own regions again; undo of the removal gives the labels back to the legend.
        connect(legend, &QObject::destroyed, layer, [layer] { layer->setShowLabels(true); });
        connect(ctx.layers(), &LayerStack::layersChanged, layer, [layer, stack = ctx.layers(), kept = QPointer<OverlayLayer>(legend)] {
            if (kept) layer->setShowLabels(stack->indexOf(kept) < 0);
        });
    }
    ctx.layers()->add(legend); // on top of its pivots
    runLayers_.append(legend);
    regionLayer_ = nullptr;
    sweepLayer_ = legend;
    model_ = model;
    const QString note = givenNote.isEmpty() ? searchNotes(results) : givenNote;
    if (ctx.results()) ctx.results()->addResultSet(title, model, legend, note);
    else model->deleteLater();
    runs_.push_back({runCount_, true, k, results, runLayers_, title});
    lastResults_ = results;
    emit resultsChanged();
}

void BrightestModule::showSweep(const std::vector<glint::BrightestResult>& results, int k, const glint::JobControl& job,
                                const glint::Image& image, const QString& parameters, const QString& note) {
    AppContext& ctx = context();
    presentSweep(results, k, note);
    std::size_t rectangles = 0;
    for (const glint::BrightestResult& r : results) rectangles += r.regions.size();
    RunRecord record = RunRecord::fromJob(tr("Brightest region (pivot sweep)"), results.front().backend, job, image, parameters);
    ctx.timingLog()->add(record);
    panel_->setStatus(tr("Pivot sweep of %1 pivots: %2 rectangles. %3 on %4, %5 ms.%6")
                          .arg(results.size())
                          .arg(rectangles)
                          .arg(QString::fromLatin1(glint::backendName(results.front().backend)),
                               QString::fromStdString(results.front().device))
                          .arg(job.timing().total(), 0, 'f', 1)
                          .arg(note.isEmpty() ? QString() : QLatin1Char(' ') + note));
}

void BrightestModule::fail(const QString& message) {
    if (panel_) panel_->setStatus(message, true);
    emit runFailed(message);
}

} // namespace glint::ui
