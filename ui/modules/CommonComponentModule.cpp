#include "ui/modules/CommonComponentModule.h"

#include "ui/AppContext.h"
#include "ui/StatusReadout.h"
#include "ui/canvas/ImageCanvas.h"
#include "ui/display/DisplayPipeline.h"
#include "ui/docks/ResultsDock.h"
#include "core/io/ImageLoader.h"
#include "ui/jobs/JobRunner.h"
#include "ui/modules/CommonComponentLayers.h"
#include "core/algo/commoncomponent/CommonSpec.h"
#include "core/params/ImageKind.h"
#include "ui/modules/CommonComponentPanel.h"
#include "ui/params/SpecForm.h"
#include "ui/overlay/LayerStack.h"
#include "ui/results/ResultsModel.h"
#include "ui/results/TimingLog.h"
#include "ui/undo/UndoCommands.h"

#include <QAction>
#include <QActionGroup>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QMainWindow>
#include <QSpinBox>
#include <QStatusBar>

#include <algorithm>
#include <climits>
#include <cmath>
#include <optional>

namespace glint::ui {

namespace {
const QColor kComponentColour(0x00, 0xE5, 0xFF); // the CLI overlay's first palette colour
const QColor kSecondFrameColour(0xFF, 0xEA, 0x00);

// The gap between A and B side by side: the CLI overlay's, so that both pictures look alike.
int sideBySideGap(int widthA, int widthB) { return std::max(4, std::min(widthA, widthB) / 50); }
} // namespace

CommonComponentModule::CommonComponentModule(AppContext& context, QObject* parent)
    : AnalysisModule(context, parent), openSecondAction_(new QAction(tr("Open Second Image (Common Component)…"), this)),
      findAction_(new QAction(tr("Find Common Component"), this)),
      sideBySideAction_(new QAction(tr("Show A and B Side by Side"), this)),
      blendAction_(new QAction(tr("Show B Blended over A at the Offset"), this)), viewGroup_(new QActionGroup(this)),
      secondDisplay_(new DisplayPipeline(this)),
      params_(glint::commonSpec().read(glint::commonSpec().presetValues(glint::ImageKind::Other))) {
    // The window offers linear normalisation (a contrast change between A and B is common on real pairs);
    // the CLI keeps the paper's definition by default.
    params_.normalize = glint::CommonNormalize::Linear;
    // Panel buttons show the short icon texts; the menus the full ones.
    openSecondAction_->setIconText(tr("Open Image B…"));
    findAction_->setIconText(tr("Find Common Component"));
    sideBySideAction_->setIconText(tr("Side by side"));
    blendAction_->setIconText(tr("Blended"));
    findAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
    openSecondAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    sideBySideAction_->setCheckable(true);
    blendAction_->setCheckable(true);
    sideBySideAction_->setChecked(true);
    viewGroup_->addAction(sideBySideAction_);
    viewGroup_->addAction(blendAction_);

    connect(openSecondAction_, &QAction::triggered, this, [this] {
        emit panelRequested();
        chooseSecondFile();
    });
    connect(findAction_, &QAction::triggered, this, [this] {
        emit panelRequested();
        run();
    });
    connect(sideBySideAction_, &QAction::triggered, this, [this] { setView(View::SideBySide); });
    connect(blendAction_, &QAction::triggered, this, [this] { setView(View::Blend); });

    connect(secondDisplay_, &DisplayPipeline::frameReady, this, [this] {
        if (secondLayer_) secondLayer_->setFrame(secondDisplay_->frame());
    });
    connect(secondDisplay_, &DisplayPipeline::failed, this, [this](const QString& message) {
        if (panel_) panel_->setSummary(tr("Cannot display B: %1").arg(message), true);
    });
    // B is drawn with A's kind of display settings (scale, colormap, limits mode) and its own limits.
    connect(&context, &AppContext::displaySettingsChanged, this, &CommonComponentModule::renderSecond);
    connect(&context, &AppContext::imageChanged, this, &CommonComponentModule::onImageChanged);
    connect(context.layers(), &LayerStack::aboutToRemove, this, &CommonComponentModule::onLayerRemoved);
    if (ImageCanvas* canvas = context.canvas()) {
        connect(canvas, &ImageCanvas::cursorMoved, this, &CommonComponentModule::showCursor);
        connect(canvas, &ImageCanvas::cursorLeft, this, [this] {
            if (panel_) panel_->setCursorText({});
        });
    }
    connect(context.jobs(), &JobRunner::busyChanged, this, &CommonComponentModule::updateActions);
    // The panel says how a run ended when it shows no result (the window reports failures too).
    updateActions();
}

CommonComponentModule::~CommonComponentModule() = default;

SecondImageLayer* CommonComponentModule::secondLayer() const { return secondLayer_; }
ComponentLayer* CommonComponentModule::componentLayerA() const { return layerA_; }
ComponentLayer* CommonComponentModule::componentLayerB() const { return layerB_; }
ResultsModel* CommonComponentModule::model() const { return model_; }
CommonComponentPanel* CommonComponentModule::panel() const { return panel_; }

QList<QAction*> CommonComponentModule::actions() {
    return {findAction_, openSecondAction_, sideBySideAction_, blendAction_};
}

QList<QAction*> CommonComponentModule::fileActions() { return {openSecondAction_}; }

QWidget* CommonComponentModule::createPanel() {
    auto* panel = new CommonComponentPanel({openSecondAction_, findAction_, sideBySideAction_, blendAction_});
    panel_ = panel;
    panel->setParameters(params_);
    panel->backendBox()->setCurrentText(QString::fromLatin1(glint::backendName(backend_)));
    undoableChoice(context().undoStack(), panel->backendBox(), tr("Backend"));
    undoableSlider(context().undoStack(), panel->opacitySlider(), tr("B Opacity"));
    panel->opacitySlider()->setValue(static_cast<int>(std::lround(blendOpacity_ * 100)));
    panel->setSecondImageText(secondDescription());
    const auto readParameters = [this] {
        if (!panel_) return;
        params_ = panel_->parameters();
        backend_ = panel_->backend();
    };
    connect(panel->form(), &SpecForm::changed, this, readParameters);
    connect(panel->backendBox(), &QComboBox::currentTextChanged, this, readParameters);
    connect(panel, &CommonComponentPanel::opacityChanged, this, &CommonComponentModule::setBlendOpacity);
    connect(panel, &CommonComponentPanel::fileDropped, this, &CommonComponentModule::openSecondImage);
    return panel;
}

void CommonComponentModule::setParameters(const glint::CommonComponentParams& params) {
    params_ = params;
    if (!panel_) return;
    panel_->setParameters(params);
    params_ = params; // the widgets may have clamped what they show; the module keeps what it was given
}

void CommonComponentModule::setBackend(glint::Backend backend) {
    backend_ = backend;
    if (panel_) panel_->backendBox()->setCurrentText(QString::fromLatin1(glint::backendName(backend)));
}

// ---------------------------------------------------------------------------------------------------
// Image B

void CommonComponentModule::chooseSecondFile() {
    QWidget* parent = context().window();
    const QString start = secondPath_.isEmpty() ? QFileInfo(context().imagePath()).absolutePath()
                                                : QFileInfo(secondPath_).absolutePath();
    const QString path =
        QFileDialog::getOpenFileName(parent, tr("Open Second Image"), start, AppContext::imageFileFilter());
    if (!path.isEmpty()) openSecondImage(path);
}

void CommonComponentModule::openSecondImage(const QString& path) {
    takeOwner();
    if (panel_) panel_->setSummary(tr("Opening %1…").arg(QFileInfo(path).fileName()));
    struct Outcome {
        std::shared_ptr<const glint::Image> image;
        QString error;
    };
    loading_.start(
        this,
        [path]() -> Outcome {
            Outcome out;
            out.error = AppContext::loadError(
                path, [&] { out.image = std::make_shared<const glint::Image>(glint::loadImage(path.toStdString())); });
            return out;
        },
        [this, path](Outcome outcome) {
            if (outcome.image) return showSecond(std::move(outcome.image), path);
            if (panel_) panel_->setSummary(tr("Cannot open image B: %1").arg(outcome.error), true);
            if (auto* window = qobject_cast<QMainWindow*>(context().window()))
                window->statusBar()->showMessage(outcome.error, 10000);
            emit secondImageFailed(path, outcome.error);
        });
}

void CommonComponentModule::setSecondImage(glint::Image image, const QString& path) {
    loading_.drop();
    showSecond(std::make_shared<const glint::Image>(std::move(image)), path);
}

void CommonComponentModule::showSecond(std::shared_ptr<const glint::Image> image, const QString& path) {
    second_ = std::move(image);
    secondPath_ = path;
    takeOwner();
    dropResult(); // it was B's predecessor's
    if (panel_) {
        panel_->setSecondImageText(secondDescription());
        panel_->setSummary({});
    }
    ensureSecondLayer();
    secondLayer_->setFrame(nullptr);
    renderSecond();
    place();
    updateActions();
    emit secondImageChanged();
}

void CommonComponentModule::takeOwner() {
    owner_ = context().image();
    ownerSet_ = context().hasImage();
}

void CommonComponentModule::closeSecondImage() {
    loading_.drop(); // a B still loading is dropped when it arrives
    dropResult();
    const bool had = second_ != nullptr;
    second_.reset();
    secondPath_.clear();
    owner_.reset();
    ownerSet_ = false;
    if (OverlayLayer* layer = secondLayer_.data()) {
        secondLayer_ = nullptr; // so that onLayerRemoved() does not take it for the user's removal
        context().layers()->remove(layer);
    }
    if (panel_) {
        panel_->setSecondImageText({});
        panel_->setSummary({});
        panel_->setCursorText({});
    }
    place();
    updateActions();
    if (had) emit secondImageChanged();
}

void CommonComponentModule::onImageChanged() {
    result_.reset(); // its layers went with the old A
    if (panel_) panel_->setSummary({});
    if (second_ || isLoadingSecond()) {
        // A new A ends the analysis B was opened for; a B opened before any A is this A's.
        if (ownerSet_ && owner_.lock() != context().image()) {
            closeSecondImage();
            return;
        }
        takeOwner();
    }
    place();
    updateActions();
}

void CommonComponentModule::onLayerRemoved(OverlayLayer* layer) {
    // The user removed B or the component (Layers ▸ Remove): the analysis goes, B with it.
    if (!layer) return;
    if (layer == secondLayer_.data()) secondLayer_ = nullptr;
    else if (layer == layerA_.data()) layerA_ = nullptr;
    else if (layer == layerB_.data()) layerB_ = nullptr;
    else return;
    closeSecondImage();
}

bool CommonComponentModule::isSecondImageShown() const {
    const auto frame = secondDisplay_->frame();
    return second_ && !isLoadingSecond() && !secondDisplay_->isBusy() && frame && frame->image == second_ && secondLayer_ &&
           secondLayer_->frame() == frame;
}

void CommonComponentModule::renderSecond() {
    if (!second_) return;
    glint::DisplaySettings s = context().displaySettings();
    if (s.limits == glint::LimitsMode::Window) {
        const glint::DisplaySettings own = glint::defaultDisplaySettings(*second_);
        if (own.limits == glint::LimitsMode::Window) {
            s.low = own.low;
            s.high = own.high;
        } else {
            s.limits = glint::LimitsMode::Percentile; // B has no window of its own
        }
    }
    // Manual limits stay A's numbers: the two images hold the same kind of values (they are compared
    // value by value), so one mapping shows what matches as the same grey.
    secondDisplay_->request(second_, s);
}

QString CommonComponentModule::secondDescription() const {
    if (!second_) return {};
    return tr("%1 — %2 × %3").arg(QFileInfo(secondPath_).fileName()).arg(second_->width()).arg(second_->height());
}

void CommonComponentModule::ensureSecondLayer() {
    if (!secondLayer_) {
        secondLayer_ = new SecondImageLayer(tr("Image B"), kSecondFrameColour);
        if (second_ && secondDisplay_->frame() && secondDisplay_->frame()->image == second_)
            secondLayer_->setFrame(secondDisplay_->frame());
        context().layers()->add(secondLayer_);
    }
    // B lies under the component it shows (a layer re-created after a new A removed the old one goes down again).
    LayerStack* layers = context().layers();
    int lowest = layers->indexOf(secondLayer_);
    for (OverlayLayer* l : {static_cast<OverlayLayer*>(layerA_.data()), static_cast<OverlayLayer*>(layerB_.data())})
        if (l) lowest = std::min(lowest, layers->indexOf(l));
    if (lowest < layers->indexOf(secondLayer_)) layers->move(secondLayer_, lowest);
}

// ---------------------------------------------------------------------------------------------------
// Running

QString CommonComponentModule::parameterText() const {
    return QStringLiteral("tolerance=%1 max_shift=%2 normalize=%3 B=%4")
        .arg(params_.tolerance, 0, 'g', 17)
        .arg(params_.maxShift >= 0 ? QString::number(params_.maxShift) : QStringLiteral("none"))
        .arg(QLatin1String(glint::commonNormalizeName(params_.normalize)))
        .arg(secondPath_);
}

bool CommonComponentModule::run() {
    AppContext& ctx = context();
    if (!ctx.hasImage() || !second_) {
        if (panel_)
            panel_->setSummary(ctx.hasImage() ? tr("Open image B first (File ▸ Open Second Image, or drop it here).")
                                              : tr("Open image A first (File ▸ Open)."),
                               true);
        return false;
    }
    const std::shared_ptr<const glint::Image> a = ctx.image();
    const std::shared_ptr<const glint::Image> b = second_;
    const glint::CommonComponentParams params = params_;
    const glint::Backend requested = backend_;
    auto result = std::make_shared<glint::CommonComponentResult>();
    auto shape = std::make_shared<std::shared_ptr<const ComponentShape>>();
    JobRequest job;
    job.name = name();
    // The window runs what glint-cli common runs: the same request, resolved in core for A's kind.
    glint::Json request = glint::commonSpec().write(params, glint::imageKindName(glint::classifyImage(*a).kind));
    job.work = [a, b, request, requested, result, shape](glint::JobControl& control) {
        glint::CommonRun run = glint::runCommonRequest(*a, *b, request, requested, control);
        *result = std::move(run.result);
        // What the layers draw, prepared here so that a large component does not stall the window.
        if (result->found)
            *shape = std::make_shared<const ComponentShape>(ComponentShape::fromMask(
                result->maskWidth, result->maskHeight, result->mask,
                QRect(result->bboxX, result->bboxY, result->bboxWidth, result->bboxHeight)));
    };
    const QString parameters = parameterText();
    job.done = [this, a, b, result, shape, parameters, tolerance = params.tolerance](glint::JobControl& control) {
        AppContext& ctx = context();
        if (ctx.image() != a || second_ != b) return; // A or B changed meanwhile: the answer is for neither
        showResult(result, *shape, result->backend, tolerance, control);
        RunRecord record = RunRecord::fromJob(name(), result->backend, control, *a, parameters);
        if (record.imagePath.isEmpty()) record.imagePath = ctx.imagePath();
        ctx.timingLog()->add(record);
    };
    QPointer<CommonComponentModule> self(this);
    job.failed = [self](const QString& message) {
        if (self && self->panel_) self->panel_->setSummary(tr("The search failed: %1").arg(message), true);
    };
    job.cancelled = [self] {
        if (self && self->panel_) self->panel_->setSummary(tr("The search was cancelled."));
    };
    job.finished = [self] { // after the window's "done" message: why nothing was found replaces it
        if (!self || self->resultNote_.isEmpty()) return;
        if (auto* window = qobject_cast<QMainWindow*>(self->context().window()))
            window->statusBar()->showMessage(self->resultNote_, 30000);
    };
    if (panel_) panel_->setSummary(tr("Searching…"));
    const bool started = ctx.jobs()->start(std::move(job));
    if (!started && panel_) panel_->setSummary(tr("Another analysis is running: cancel it first."), true);
    return started;
}

void CommonComponentModule::dropResult() {
    result_.reset();
    resultNote_.clear();
    // The pointers are cleared first, so that onLayerRemoved() does not take this for the user's removal.
    for (QPointer<ComponentLayer>* pointer : {&layerA_, &layerB_})
        if (OverlayLayer* layer = pointer->data()) {
            *pointer = nullptr;
            context().layers()->remove(layer);
        }
}

void CommonComponentModule::showResult(const std::shared_ptr<const glint::CommonComponentResult>& result,
                                       const std::shared_ptr<const ComponentShape>& shape, glint::Backend resolved,
                                       double tolerance, const glint::JobControl& job) {
    presentResult(result, shape, QString::fromLatin1(glint::backendName(resolved)), tolerance, job.timing().total());
}

void CommonComponentModule::presentResult(const std::shared_ptr<const glint::CommonComponentResult>& result,
                                          const std::shared_ptr<const ComponentShape>& shape, const QString& backend,
                                          double tolerance, std::optional<double> ms) {
    AppContext& ctx = context();
    dropResult();
    result_ = result;
    resultTolerance_ = tolerance;
    resultBackend_ = backend;
    ++runs_;
    const glint::CommonComponentResult& r = *result;
    const glint::CommonComponentConfidence& c = r.confidence;
    // A component too small for the overlap is no registration of the two images: no speck is drawn.
    const bool reliable = r.found && c.reliable;
    const QString coverage = tr("coverage %1 % of the overlap").arg(100.0 * c.coverage, 0, 'f', 1);
    if (reliable && shape) {
        layerA_ = new ComponentLayer(tr("Common component on A"), kComponentColour);
        layerA_->setComponent(shape, QPoint(0, 0));
        layerB_ = new ComponentLayer(tr("Common component on B"), kComponentColour);
        layerB_->setComponent(shape, QPoint(0, 0)); // placed on B below
        ctx.layers()->add(layerA_);
        ctx.layers()->add(layerB_);
        // Selecting the component on B selects the row too (the dock follows layer A).
        connect(layerB_, &OverlayLayer::selectionChanged, this, [this](int item) {
            if (layerA_) layerA_->setSelected(item);
        });
        connect(layerA_, &OverlayLayer::selectionChanged, this, [this](int item) {
            if (layerB_) layerB_->setSelected(item);
        });
    }
    ensureSecondLayer();
    place();

    const QString placement = r.found ? QString::fromStdString(glint::commonPlacementSentence(r)) : QString();
    const QString runnerUp = c.hasRunnerUp ? tr("dx %1, dy %2: %3 px").arg(c.runnerUp.dx).arg(c.runnerUp.dy).arg(c.runnerUpSize)
                                           : tr("none");
    const QVariant peak = c.registered ? QVariant(c.registrationPeak) : QVariant();
    model_ = new ResultsModel({tr("result"), tr("offset dx"), tr("offset dy"), tr("size"), tr("bbox x"), tr("bbox y"),
                               tr("bbox width"), tr("bbox height"), tr("tolerance"), tr("backend"), tr("placement"),
                               tr("coverage (%)"), tr("overlap area"), tr("runner-up"), tr("registration peak")});
    if (r.found)
        model_->addRow({reliable ? tr("common component") : tr("no reliable common region"), r.dx, r.dy,
                        static_cast<qulonglong>(r.size), r.bboxX, r.bboxY, r.bboxWidth, r.bboxHeight, tolerance, backend,
                        placement, 100.0 * c.coverage, static_cast<qulonglong>(c.overlapArea), runnerUp, peak},
                       reliable ? 0 : -1);
    else
        model_->addRow({tr("no common pixel"), {}, {}, qulonglong(0), {}, {}, {}, {}, tolerance, backend, {}, {}, {},
                        runnerUp, peak},
                       -1);
    QString note;
    if (!r.found)
        note = tr("No common pixel: no pixel of A matches B within the tolerance %1 at any of the %2 offsets searched.")
                   .arg(tolerance, 0, 'g', 6)
                   .arg(r.stats.offsets);
    else if (!reliable)
        note = tr("No reliable common region (%1): the best component, %2 pixels at dx %3, dy %4, is too small to "
                  "register the images.")
                   .arg(coverage)
                   .arg(r.size)
                   .arg(r.dx)
                   .arg(r.dy);
    if (ctx.results())
        ctx.results()->addResultSet(tr("Common component #%1 (%2)").arg(runs_).arg(backend), model_, layerA_, note);
    resultNote_ = note;

    if (panel_) {
        const QString time = ms ? tr("%1 ms on %2").arg(*ms, 0, 'f', 1).arg(backend) : tr("restored from the session");
        const QString confidence =
            tr("runner-up %1 · phase-correlation peak %2")
                .arg(runnerUp)
                .arg(c.registered ? QString::number(c.registrationPeak, 'f', 3) : tr("none"));
        if (reliable)
            panel_->setSummary(tr("%1 · %2 pixels, %3 · box in A: x %4, y %5, %6 × %7 · %8 · %9")
                                   .arg(placement)
                                   .arg(r.size)
                                   .arg(coverage)
                                   .arg(r.bboxX)
                                   .arg(r.bboxY)
                                   .arg(r.bboxWidth)
                                   .arg(r.bboxHeight)
                                   .arg(confidence)
                                   .arg(time));
        else if (r.found)
            panel_->setSummary(tr("No reliable common region (%1) · best: %2 pixels; %3 · %4 · %5")
                                   .arg(coverage)
                                   .arg(r.size)
                                   .arg(placement)
                                   .arg(confidence)
                                   .arg(time));
        else
            panel_->setSummary(tr("No common pixel: no pixel of A matches B at any offset searched (%1 offsets) · %2")
                                   .arg(r.stats.offsets)
                                   .arg(time));
    }
    updateActions();
    emit resultShown();
    emit resultsChanged();
}

// ---------------------------------------------------------------------------------------------------
// The view

void CommonComponentModule::setView(View view) {
    view_ = view;
    (view == View::SideBySide ? sideBySideAction_ : blendAction_)->setChecked(true);
    place();
}

void CommonComponentModule::setBlendOpacity(double opacity) {
    blendOpacity_ = std::clamp(opacity, 0.0, 1.0);
    if (panel_ && panel_->opacitySlider()->value() != static_cast<int>(std::lround(blendOpacity_ * 100)))
        panel_->opacitySlider()->setValue(static_cast<int>(std::lround(blendOpacity_ * 100)));
    place();
}

QPoint CommonComponentModule::secondPlacement() const {
    const auto a = context().image();
    if (view_ == View::SideBySide) {
        const int widthA = a ? a->width() : 0;
        return {widthA + sideBySideGap(widthA, second_ ? second_->width() : 0), 0};
    }
    // Blended: B's pixel (x + dx, y + dy) lies on A's pixel (x, y).
    if (result_ && result_->found) return {-result_->dx, -result_->dy};
    return {0, 0};
}

void CommonComponentModule::place() {
    ImageCanvas* canvas = context().canvas();
    if (!second_) {
        if (canvas) canvas->setExtraContent({});
        return;
    }
    ensureSecondLayer();
    const QPoint placement = secondPlacement();
    secondLayer_->setPlacement(placement);
    secondLayer_->setOpacity(view_ == View::Blend ? blendOpacity_ : 1.0);
    if (layerA_) layerA_->setFrameOrigin({0, 0});
    if (result_ && result_->found && layerB_) {
        layerB_->setFrameOrigin(placement + QPoint(result_->dx, result_->dy));
        // Blended, B's component lies on A's: one tint, not two stacked into an opaque one.
        layerB_->setTintShown(view_ == View::SideBySide);
    }
    if (canvas) canvas->setExtraContent(ViewTransform::pixelArea(QRect(placement, QSize(second_->width(), second_->height()))));
}

void CommonComponentModule::showCursor(QPointF imagePoint) {
    if (!panel_ || !second_) return;
    const QPoint p = ViewTransform::pixelAt(imagePoint) - secondPlacement();
    const QString pixel = StatusReadout::formatPixel(*second_, p.x(), p.y());
    panel_->setCursorText(pixel.isEmpty() ? QString()
                                          : tr("B under the cursor: %1  %2").arg(pixel, StatusReadout::formatValue(*second_, p.x(), p.y())));
}

void CommonComponentModule::updateActions() {
    // Find stays available without B: run() then says what is missing.
    findAction_->setEnabled(!context().jobs()->isBusy());
}

} // namespace glint::ui
