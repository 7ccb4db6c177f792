#include "ui/modules/SourcesModule.h"

#include "core/algo/sources/SourcesSpec.h"
#include "core/params/ImageKind.h"
#include "ui/canvas/ImageCanvas.h"
#include "ui/canvas/ShapeTools.h"
#include "ui/docks/ResultsDock.h"
#include "ui/jobs/JobRunner.h"
#include "ui/modules/SourcesPanel.h"
#include "ui/overlay/LayerStack.h"
#include "ui/params/SpecForm.h"
#include "ui/results/ResultsModel.h"
#include "ui/results/TimingLog.h"

#include <QAction>
#include <QCheckBox>
#include <QFileInfo>
#include <QMainWindow>
#include <QPushButton>
#include <QStatusBar>

#include <cmath>
#include <exception>
#include <limits>

namespace glint::ui {

namespace {

const QColor kEllipseColour(90, 255, 140);
constexpr int kLabelledSources = 30; // the brightest get "#n" on the canvas; the table lists all

QVariant value(double v) { return std::isfinite(v) ? QVariant(v) : QVariant(std::nan("")); }

} // namespace

SourcesModule::SourcesModule(AppContext& context, QObject* parent)
    : AnalysisModule(context, parent), findAction_(new QAction(tr("Find Sources"), this)),
      segmentationAction_(new QAction(tr("Sources: Show Segmentation"), this)),
      backgroundAction_(new QAction(tr("Sources: Show Background Map"), this)),
      rmsAction_(new QAction(tr("Sources: Show RMS Map"), this)),
      imageAction_(new QAction(tr("Sources: Back to Image"), this)),
      saveAction_(new QAction(tr("Save Source &Catalogue…"), this)),
      drawRoiAction_(new QAction(tr("Sources: Draw ROI"), this)),
      excludeRectAction_(new QAction(tr("Sources: Exclude Rectangle"), this)),
      excludePolygonAction_(new QAction(tr("Sources: Exclude Polygon"), this)),
      clearShapesAction_(new QAction(tr("Sources: Clear ROI and Exclusions"), this)), roiTool_(new RectangleTool(this)),
      excludeRectTool_(new RectangleTool(this)), excludePolygonTool_(new PolygonTool(this)) {
    findAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
    findAction_->setStatusTip(tr("A source catalogue of the image: the run of glint-cli sources"));
    segmentationAction_->setCheckable(true);
    connect(findAction_, &QAction::triggered, this, [this] {
        emit panelRequested();
        run();
    });
    connect(segmentationAction_, &QAction::toggled, this, &SourcesModule::setSegmentationShown);
    connect(backgroundAction_, &QAction::triggered, this, [this] { showMap(Map::Background); });
    connect(rmsAction_, &QAction::triggered, this, [this] { showMap(Map::Rms); });
    connect(imageAction_, &QAction::triggered, this, &SourcesModule::showImage);
    connect(saveAction_, &QAction::triggered, this, &SourcesModule::saveCatalogueDialog);
    const auto useTool = [this](CanvasTool* tool) {
        emit panelRequested();
        if (this->context().canvas() && this->context().hasImage() && !showingMap_) this->context().canvas()->setTool(tool);
    };
    connect(drawRoiAction_, &QAction::triggered, this, [useTool, this] { useTool(roiTool_); });
    connect(excludeRectAction_, &QAction::triggered, this, [useTool, this] { useTool(excludeRectTool_); });
    connect(excludePolygonAction_, &QAction::triggered, this, [useTool, this] { useTool(excludePolygonTool_); });
    connect(clearShapesAction_, &QAction::triggered, this, [this] {
        if (roi_ || !exclusions_.isEmpty()) editShapes(tr("Clear ROI and exclusions"), std::nullopt, {});
    });
    connect(roiTool_, &RectangleTool::rectangleDrawn, this, &SourcesModule::setRoi);
    connect(excludeRectTool_, &RectangleTool::rectangleDrawn, this, &SourcesModule::addExclusionRectangle);
    connect(excludePolygonTool_, &PolygonTool::polygonDrawn, this, &SourcesModule::addExclusionPolygon);
    connect(&context, &AppContext::imageChanged, this, &SourcesModule::onImageChanged);
    updateButtons();
}

SourcesModule::~SourcesModule() = default;

QList<QAction*> SourcesModule::actions() {
    return {findAction_,  segmentationAction_,  backgroundAction_,    rmsAction_,
            imageAction_, drawRoiAction_,       excludeRectAction_,   excludePolygonAction_, clearShapesAction_};
}

QList<QAction*> SourcesModule::fileActions() { return {saveAction_}; }

QWidget* SourcesModule::createPanel() {
    if (panel_) return nullptr; // created once; the parameters dock owns it
    panel_ = new SourcesPanel;
    connect(panel_->runButton(), &QPushButton::clicked, findAction_, &QAction::trigger);
    connect(panel_, &SourcesPanel::runRequested, findAction_, &QAction::trigger);
    connect(panel_->segmentationCheck(), &QCheckBox::toggled, segmentationAction_, &QAction::setChecked);
    connect(panel_->backgroundButton(), &QPushButton::clicked, backgroundAction_, &QAction::trigger);
    connect(panel_->rmsButton(), &QPushButton::clicked, rmsAction_, &QAction::trigger);
    connect(panel_->imageButton(), &QPushButton::clicked, imageAction_, &QAction::trigger);
    connect(panel_->saveCatalogueButton(), &QPushButton::clicked, saveAction_, &QAction::trigger);
    connect(panel_->drawRoiButton(), &QPushButton::clicked, drawRoiAction_, &QAction::trigger);
    connect(panel_->clearRoiButton(), &QPushButton::clicked, this, &SourcesModule::clearRoi);
    connect(panel_->excludeRectangleButton(), &QPushButton::clicked, excludeRectAction_, &QAction::trigger);
    connect(panel_->excludePolygonButton(), &QPushButton::clicked, excludePolygonAction_, &QAction::trigger);
    connect(panel_->clearExclusionsButton(), &QPushButton::clicked, this, &SourcesModule::clearExclusions);
    connect(context().jobs(), &JobRunner::busyChanged, panel_, [this](bool busy) { panel_->setRunEnabled(!busy); });
    onImageChanged();
    return panel_;
}

glint::Json SourcesModule::currentRequest() const {
    glint::Json request = panel_ ? panel_->request() : glint::Json::object();
    // The image's kind as the preset, as --preset auto decides it: the window's first answer is the CLI's.
    if (context().hasImage()) request["preset"] = glint::imageKindName(glint::classifyImage(*context().image()).kind);
    addShapesTo(request);
    return request;
}

bool SourcesModule::run() {
    AppContext& ctx = context();
    if (!panel_) return false;
    if (!ctx.hasImage()) {
        fail(tr("Open an image first."));
        return false;
    }
    if (showingMap_) {
        fail(tr("A map is shown: go back to the image (Back to Image) to find its sources."));
        return false;
    }
    glint::Json request;
    try {
        request = currentRequest();
        glint::sourcesSpec().checkEarly(request);
    } catch (const std::exception& e) {
        fail(QString::fromStdString(e.what()));
        return false;
    }
    const LoadedImage loaded = ctx.loaded();
    auto out = std::make_shared<glint::SourcesRun>();
    auto status = std::make_shared<QString>();
    JobRequest job;
    job.name = name();
    // The window runs what glint-cli sources runs: the same request, resolved and measured in core.
    job.work = [image = loaded.image, request, out](glint::JobControl& control) {
        control.setDevice("cpu");
        *out = glint::runSourcesRequest(*image, request, control);
    };
    job.done = [this, loaded, out, status](glint::JobControl& control) {
        if (context().image() != loaded.image) return; // another image was opened meanwhile
        Catalogue c;
        c.result = std::make_shared<const glint::SourcesResult>(std::move(out->result));
        c.parameters = std::move(out->parameters);
        c.document = glint::sourcesResultJson(*c.result);
        c.document["image"] = {{"path", loaded.path.toStdString()}, {"width", c.result->width}, {"height", c.result->height}};
        if (out->kind)
            c.document["image"]["kind"] = {{"kind", glint::imageKindName(out->kind->kind)}, {"reason", out->kind->reason}};
        c.image = loaded;
        c.hasMaps = true;
        c.number = ++runCount_;
        c.title = tr("Sources #%1: %2 sources").arg(c.number).arg(c.result->catalog.sources.size());
        *status = summary(c) + QLatin1Char(' ') + tr("CPU, %1 ms.").arg(control.timing().total(), 0, 'f', 1);
        present(c, *status);
        QStringList changed;
        const glint::Json defaults = glint::sourcesSpec().defaults();
        for (const auto& [key, v] : c.parameters.items())
            if (!defaults.contains(key) || defaults[key] != v)
                changed << QStringLiteral("%1=%2").arg(QString::fromStdString(key),
                                                       QString::fromStdString(v.is_string() ? v.get<std::string>() : v.dump()));
        context().timingLog()->add(RunRecord::fromJob(name(), glint::Backend::Cpu, control, *loaded.image, changed.join(QLatin1Char(' '))));
    };
    QPointer<SourcesModule> self(this);
    job.finished = [self, status] {
        if (!self) return;
        const QString note = self->catalogue_ ? QString::fromStdString(self->catalogue_->result->note) : QString();
        if (!note.isEmpty())
            if (auto* window = qobject_cast<QMainWindow*>(self->context().window())) window->statusBar()->showMessage(note, 30000);
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
    panel_->setStatus(tr("Finding sources…"));
    return true;
}

QString SourcesModule::summary(const Catalogue& c) const {
    const glint::SourcesResult& r = *c.result;
    QString text = tr("%1 sources (%2 footprints); background %3, RMS %4; filter %5.")
                       .arg(r.catalog.sources.size())
                       .arg(r.footprints)
                       .arg(r.globalBackground, 0, 'g', 6)
                       .arg(r.globalRms, 0, 'g', 6)
                       .arg(r.filterFwhm > 0 ? tr("gauss %1 px").arg(r.filterFwhm, 0, 'f', 2) : tr("none"));
    if (!r.note.empty()) text += QLatin1Char(' ') + QString::fromStdString(r.note);
    return text;
}

void SourcesModule::present(const Catalogue& c, const QString& status) {
    AppContext& ctx = context();
    for (OverlayLayer* old : {static_cast<OverlayLayer*>(ellipses_.data()), static_cast<OverlayLayer*>(segmentation_.data())})
        if (old) ctx.layers()->remove(old);
    catalogue_ = c;
    const glint::SourcesResult& r = *c.result;
    if (c.hasMaps && !r.segmentation.empty()) {
        segmentation_ = new SegmentationLayer(tr("%1: segmentation").arg(c.title));
        segmentation_->setSegmentation(r.width, r.height, std::shared_ptr<const std::vector<std::int32_t>>(c.result, &r.segmentation));
        segmentation_->setVisible(segmentationAction_->isChecked());
        connect(segmentation_, &OverlayLayer::propertiesChanged, this, [this] {
            if (segmentation_) segmentationAction_->setChecked(segmentation_->isVisible()); // the Layers dock's tick
        });
        ctx.layers()->add(segmentation_);
    }
    // One closed polygon per Kron ellipse (core's regions: the AUTO aperture FLUX_AUTO summed).
    const std::vector<glint::ExportRegion> regions = glint::regionsFromSources(r);
    QHash<int, int> itemOf; // NUMBER -> ellipse item
    QVector<OverlayShape> shapes;
    for (const glint::ExportRegion& e : regions) {
        QPolygonF points;
        for (const auto& [x, y] : e.points) points << QPointF(x, y);
        itemOf.insert(e.rank, static_cast<int>(shapes.size()));
        shapes.append(OverlayShape::polygon(points, QStringLiteral("#%1").arg(e.rank)));
    }
    ellipses_ = new SourceEllipseLayer(tr("%1: Kron ellipses").arg(c.title), kEllipseColour);
    ellipses_->setShapes(std::move(shapes));
    ellipses_->setLabelledCount(kLabelledSources);
    ctx.layers()->add(ellipses_);

    auto* model = new ResultsModel({tr("NUMBER"), tr("x"), tr("y"), tr("FLUX_AUTO"), tr("MAG_AUTO"), tr("SNR"), tr("A"), tr("B"),
                                    tr("THETA"), tr("FWHM"), tr("FLAGS"), tr("RA"), tr("Dec")});
    const auto shownImage = ctx.image();
    model->setSkyColumns(11, 12, shownImage ? ResultsModel::pixelScaleDeg(*shownImage) : std::numeric_limits<double>::quiet_NaN());
    for (const glint::SourceRecord& s : r.catalog.sources) {
        // x, y as the CLI's JSON gives them (0-based; the windowed centroid where there is one).
        const bool win = std::isfinite(s.xWin) && std::isfinite(s.yWin);
        model->addRow({s.number, value(win ? s.xWin : s.x), value(win ? s.yWin : s.y), value(s.fluxAuto), value(s.magAuto),
                       value(s.snr), value(s.a), value(s.b), value(s.theta), value(s.fwhm), s.flags, value(s.ra), value(s.dec)},
                      itemOf.value(s.number, -1));
    }
    model_ = model;
    QString note = QString::fromStdString(r.note);
    if (note.isEmpty() && r.catalog.sources.empty()) note = tr("No source above the threshold.");
    if (ctx.results()) ctx.results()->addResultSet(c.title, model, ellipses_, note);
    else model->deleteLater();
    if (panel_) panel_->setStatus(status);
    updateButtons();
    emit resultsChanged();
}

void SourcesModule::setSegmentationShown(bool shown) {
    if (segmentationAction_->isChecked() != shown) segmentationAction_->setChecked(shown);
    if (panel_ && panel_->segmentationCheck()->isChecked() != shown) panel_->segmentationCheck()->setChecked(shown);
    if (segmentation_ && segmentation_->isVisible() != shown) segmentation_->setVisible(shown);
}

bool SourcesModule::showMap(Map map) {
    if (!catalogue_ || !catalogue_->hasMaps) {
        fail(tr("Find the sources first: the maps belong to a run (a session keeps the catalogue, not its maps)."));
        return false;
    }
    const glint::SourcesResult& r = *catalogue_->result;
    std::vector<float> values = map == Map::Background ? r.background : r.rms;
    std::vector<std::uint8_t> blank(values.size());
    bool anyBlank = false;
    for (std::size_t i = 0; i < values.size(); ++i)
        if (!std::isfinite(values[i])) {
            blank[i] = 1;
            anyBlank = true;
        }
    glint::Image image = glint::Image::fromSamples<float>(r.width, r.height, std::move(values));
    if (anyBlank) image.setBlankMask(std::move(blank));
    const glint::Image& source = *catalogue_->image.image;
    // The map lies on the image's pixels: the same orientation and sky coordinates.
    image.meta.format = source.meta.format;
    image.meta.wcs = source.meta.wcs;
    image.meta.georef = source.meta.georef;
    image.meta.displayYUp = source.meta.displayYUp;
    image.updateIntegerValued();
    const QString what = map == Map::Background ? tr("background map") : tr("RMS map");
    const QString title = tr("%1 — %2 (%3)").arg(catalogue_->image.path, what, catalogue_->title);
    switching_ = true;
    showingMap_ = map;
    context().setImage(std::move(image), title);
    switching_ = false;
    if (panel_) panel_->setStatus(tr("Showing the %1 of %2. Back to Image shows the image and its catalogue again.")
                                      .arg(what, catalogue_->title));
    updateButtons();
    return true;
}

bool SourcesModule::showImage() {
    if (!showingMap_ || !catalogue_) return false;
    const Catalogue c = *catalogue_;
    switching_ = true;
    showingMap_.reset();
    context().showPrepared(c.image);
    switching_ = false;
    refreshShapes();
    present(c, summary(c));
    return true;
}

void SourcesModule::onImageChanged() {
    if (switching_) return; // a map, or back to the image: the catalogue stays
    // A new image: the catalogue's layers went with the old one.
    catalogue_.reset();
    showingMap_.reset();
    roi_.reset();
    exclusions_.clear();
    refreshShapes();
    updateButtons();
    if (!panel_) return;
    panel_->setStatus({});
    // The image kind's preset in the fields the user has not changed (as --preset auto).
    if (!context().hasImage()) return;
    const glint::ImageKind kind = glint::classifyImage(*context().image()).kind;
    panel_->form()->setDefaults(glint::sourcesSpec().presetValues(kind));
    // A FITS sky frame's first analysis is its source catalogue: its page comes forward.
    if (kind == glint::ImageKind::Sky && context().image()->meta.format == "FITS") emit panelRequested();
}

void SourcesModule::updateButtons() {
    const bool catalogue = catalogue_.has_value();
    const bool maps = catalogue && catalogue_->hasMaps;
    segmentationAction_->setEnabled(maps && !showingMap_);
    backgroundAction_->setEnabled(maps);
    rmsAction_->setEnabled(maps);
    imageAction_->setEnabled(showingMap_.has_value());
    for (QAction* a : {drawRoiAction_, excludeRectAction_, excludePolygonAction_, clearShapesAction_})
        a->setEnabled(!showingMap_); // shapes belong to the analysed image
    saveAction_->setEnabled(catalogue);
    if (panel_) panel_->setResultState(catalogue, maps, showingMap_.has_value());
}

void SourcesModule::fail(const QString& message) {
    if (panel_) panel_->setStatus(message, true);
    emit runFailed(message);
}

} // namespace glint::ui
