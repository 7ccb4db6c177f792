#include "ui/modules/TraceModule.h"
#include "ui/modules/TraceModuleParts.h"

#include "ui/AppContext.h"
#include "ui/canvas/ImageCanvas.h"
#include "ui/docks/ResultsDock.h"
#include "core/jobs/JobControl.h"
#include "ui/jobs/LatestRequestRunner.h"
#include "core/params/ImageKind.h"
#include "ui/modules/TraceLayer.h"
#include "ui/params/SpecForm.h"
#include "ui/modules/TraceTool.h"
#include "ui/modules/TraceWorker.h"
#include "ui/overlay/LayerStack.h"
#include "ui/results/ResultsModel.h"
#include "ui/results/TimingLog.h"
#include "ui/undo/UndoCommands.h"
#include "core/util/Errors.h"

#include <QAction>
#include <QMainWindow>
#include <QStatusBar>

#include <algorithm>
#include <cmath>
#include <utility>

namespace glint::ui {

using namespace trace_parts;

TraceModule::TraceModule(AppContext& context, QObject* parent)
    : AnalysisModule(context, parent), tool_(new TraceTool(this)), traceAction_(new QAction(tr("Trace Line"), this)),
      deleteAction_(new QAction(tr("Delete Selected Trace"), this)),
      exportAction_(new QAction(tr("Export Traces as GeoPackage/Shapefile…"), this)), runner_(std::make_unique<LatestRequestRunner>()) {
    deleteAction_->setStatusTip(tr("Deletes the trace selected on the image or in the results (Edit ▸ Undo brings it back)"));
    connect(deleteAction_, &QAction::triggered, this, &TraceModule::deleteSelectedTrace);
    exportAction_->setStatusTip(tr("Writes the finished traces as lines with their length, width and confidence "
                                   "(GeoPackage, Shapefile or GeoJSON; in the image's CRS when it is georeferenced)"));
    connect(exportAction_, &QAction::triggered, this, &TraceModule::exportNetworkDialog);
    // Editing the network while no trace is in progress: a press on a node of a finished trace drags it (a press
    // without a move is a click there, which starts a trace joined to it); Delete deletes the node under the mouse.
    tool_->grabNode = [this](QPointF p) {
        if (session_ || fixing_) return false;
        dragged_ = nodeAt(p);
        return dragged_.has_value();
    };
    tool_->deleteNode = [this] {
        if (session_ || !hoverIdle_) return false;
        const auto node = nodeAt(*hoverIdle_);
        if (!node) return false;
        deleteNode(node->traceId, node->node);
        return true;
    };
    connect(tool_, &TraceTool::nodeDragged, this, [this](QPointF p) {
        if (!dragged_) return;
        hoverIdle_ = p;
        updatePreview();
    });
    connect(tool_, &TraceTool::nodeDropped, this, [this](QPointF p) {
        const auto node = std::exchange(dragged_, std::nullopt);
        updatePreview();
        if (node) moveNode(node->traceId, node->node, p);
    });
    connect(tool_, &TraceTool::nodeDragCancelled, this, [this] {
        dragged_.reset();
        updatePreview();
    });
    traceAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_T));
    traceAction_->setStatusTip(tr("Click points on the image; the best trace between them follows the mouse"));
    connect(traceAction_, &QAction::triggered, this, &TraceModule::startTool);
    connect(tool_, &ClickTool::clicked, this, [this](QPointF p, Qt::MouseButton button, Qt::KeyboardModifiers) {
        if (button == Qt::LeftButton) click(p); // snapped as core snaps a click (resolveTrace)
    });
    connect(tool_, &ClickTool::hovered, this, &TraceModule::hover);
    connect(tool_, &ClickTool::finished, this, &TraceModule::finishTrace);
    connect(tool_, &ClickTool::cancelled, this, &TraceModule::cancelTrace);
    connect(tool_, &TraceTool::undoRequested, this, &TraceModule::removeLastPoint);
    // Another tool took the canvas (or the window is closing): drop the half-made trace without a word.
    connect(tool_, &TraceTool::toolDeactivated, this, &TraceModule::dropTrace);
    connect(runner_.get(), &LatestRequestRunner::failed, this, &TraceModule::onFailed);
    connect(&context, &AppContext::imageChanged, this, [this] {
        dropTrace();
        worker_.reset();
        snapField_.reset();
        hover_.reset();
        // The results dock deletes the old model later and the layer stack drops the old layer: the next
        // trace starts a new result set on the new image.
        layer_ = nullptr;
        model_ = nullptr;
        traces_.clear();
        count_ = 0;
        // The trace spec's preset for the new image's kind, in the fields the user has not changed.
        if (panel_ && this->context().hasImage()) {
            panel_->form()->setDefaults(glint::traceSpec().presetValues(glint::classifyImage(*this->context().image()).kind));
            settings_ = panel_->settings();
        }
    });
}

TraceModule::~TraceModule() {
    runner_.reset(); // waits for the running work before anything it reports to is gone
}

QWidget* TraceModule::createPanel() {
    panel_ = new TracePanel(settings_);
    connect(panel_, &TracePanel::changed, this, [this] { setSettings(panel_->settings()); });
    connect(panel_, &TracePanel::traceRequested, traceAction_, &QAction::trigger);
    undoableChoice(context().undoStack(), panel_->backendBox(), tr("Backend"));
    undoableChoice(context().undoStack(), panel_->showGuidesCheck(), tr("Show guides"));
    return panel_;
}

void TraceModule::setSettings(const TraceSettings& settings) {
    settings_ = settings;
    if (panel_) panel_->setSettings(settings);
    if (!session_) return;
    Session& s = *session_;
    if (s.legs.empty() && !fixing_) {
        // Nothing is fixed yet: the trace starts again from the first click with the new settings.
        const glint::TracePoint first = s.given.front();
        const bool joined = s.joined.front();
        session_.reset();
        runner_->cancelAll();
        startSession(first, joined);
    } else {
        s.settings.showGuides = settings.showGuides;
        s.settings.livePoints = settings.livePoints;
    }
    updatePreview();
}

int TraceModule::clickCount() const { return session_ ? static_cast<int>(session_->clicks.size()) : 0; }
int TraceModule::fixedLegCount() const { return session_ ? static_cast<int>(session_->legs.size()) : 0; }
QPolygonF TraceModule::livePolyline() const { return tool_->preview().live; }
QPolygonF TraceModule::fixedPolyline() const { return session_ ? legsPolyline(session_->legs) : QPolygonF(); }

void TraceModule::showMessage(const QString& message) {
    lastMessage_ = message;
    if (QMainWindow* window = context().window()) window->statusBar()->showMessage(message, 10000);
    emit messageShown(message);
}

bool TraceModule::insideImage(QPointF p) const {
    const auto image = context().image();
    return image && p.x() >= -0.5 && p.y() >= -0.5 && p.x() <= image->width() - 0.5 && p.y() <= image->height() - 0.5;
}

bool TraceModule::ensureWorker() {
    const auto image = context().image();
    if (!image) return false;
    if (worker_ && worker_->image() == image) return true;
    // The report comes from the worker thread; the timing log and status bar are the UI thread's.
    worker_ = std::make_shared<TraceWorker>(image, [this, image](const TraceWorker::FieldReport& report) {
        QMetaObject::invokeMethod(this, [this, image, report] {
            glint::JobControl job;
            for (const glint::TimingStep& s : report.steps) job.timing().add(s.name, s.ms);
            job.timing().setTotal(report.totalMs);
            job.setDevice(report.device);
            QString parameters = QStringLiteral("score=%1").arg(QLatin1String(glint::traceScoreName(report.options.score)));
            if (report.options.score == glint::TraceScore::Ridge)
                parameters += QStringLiteral(" width=%1 polarity=%2")
                                  .arg(report.options.lineWidth)
                                  .arg(QLatin1String(glint::tracePolarityName(report.options.polarity)));
            context().timingLog()->add(RunRecord::fromJob(QStringLiteral("trace field"), report.backend, job, *image, parameters));
        }, Qt::QueuedConnection);
    });
    return true;
}

void TraceModule::startTool() {
    emit panelRequested();
    if (!context().hasImage() || !context().canvas()) {
        showMessage(tr("Trace: open an image first"));
        return;
    }
    context().canvas()->setTool(tool_);
    showMessage(tr("Trace: click the start point"));
    if (!session_) requestPrepare();
}

// The field is computed as soon as the tool is picked, so that the first trace under the mouse is quick.
void TraceModule::requestPrepare() {
    if (!ensureWorker()) return;
    newest_ = Request::Prepare;
    auto field = std::make_shared<std::shared_ptr<const glint::TraceField>>();
    runner_->request([worker = worker_, s = settings_, field](glint::JobControl&) { *field = worker->tracer(s.field, s.backend).field(); },
                     [this, worker = worker_, field] {
                         if (worker == worker_ && *field) snapField_ = *field;
                     });
}

bool TraceModule::canSnap() const {
    const TraceSettings& s = session_ ? session_->settings : settings_;
    return s.snap > 0.0 && snapField_ && worker_ && worker_->image() == context().image() &&
           snapField_->options().score == s.field.score;
}

QPointF TraceModule::snapped(QPointF p) const {
    if (!canSnap() || !insideImage(p)) return p;
    const TraceSettings& s = session_ ? session_->settings : settings_;
    const glint::TracePoint q = glint::snapTracePoint(*snapField_, tracePoint(p), s.snap);
    return qpoint(q);
}

void TraceModule::click(QPointF p) {
    if (!context().hasImage()) {
        showMessage(tr("Trace: open an image first"));
        return;
    }
    if (!insideImage(p)) {
        showMessage(tr("Trace: click inside the image (%1 × %2 pixels)").arg(context().image()->width()).arg(context().image()->height()));
        return;
    }
    // Within a few screen pixels of an earlier trace's vertex: the click is that vertex (a junction), unsnapped.
    const std::optional<QPointF> junction = junctionAt(p);
    if (junction) p = *junction;
    if (!session_) {
        try {
            glint::traceSpec().validate(settings_);
            glint::validateTraceFieldOptions(settings_.field);
        } catch (const std::exception& e) {
            showMessage(tr("Trace: %1").arg(QString::fromStdString(e.what())));
            return;
        }
        startSession(tracePoint(p), junction.has_value());
        return;
    }
    Session& s = *session_;
    const glint::TracePoint given = tracePoint(p);
    const glint::TracePoint q = s.resolved && !junction ? snapClick(given) : given;
    if (samePoint(q, s.clicks.back())) {
        showMessage(tr("Trace: the point equals the previous click"));
        return;
    }
    s.given.push_back(given);
    s.joined.push_back(junction.has_value());
    s.clicks.push_back(q);
    if (s.resolved && !fixing_) requestFixed();
    updatePreview();
}

// A click after the first, moved as resolveTrace moves it: to the strongest pixel of the session's field within the
// snap radius.
glint::TracePoint TraceModule::snapClick(glint::TracePoint p) const {
    const Session& s = *session_;
    if (!(s.settings.snap > 0.0) || !snapField_) return p;
    return glint::snapTracePoint(*snapField_, p, s.settings.snap);
}

// The first click: its session's settings are resolved as core resolves a trace (width auto measured at the click,
// the field of that width, the click snapped on it) before any leg is traced, so that the live trace, the fixed
// legs and glint-cli trace with the same clicks use one field.
void TraceModule::startSession(glint::TracePoint first, bool joined) {
    ensureWorker();
    session_ = std::make_unique<Session>();
    Session& s = *session_;
    s.image = context().image();
    s.worker = worker_;
    s.settings = settings_;
    s.given.push_back(first);
    s.joined.push_back(joined);
    s.clicks.push_back(first);
    ++generation_;
    tool_->setTracing(true);
    fixing_ = true; // as while a leg is fixed: clicks wait, live traces wait, a finish waits
    auto outcome = std::make_shared<FirstClick>();
    newest_ = Request::Resolve;
    runner_->request(
        [worker = s.worker, settings = s.settings, first, joined, outcome](glint::JobControl&) {
            const glint::TraceFieldOptions field = glint::resolvedTraceField(*worker->image(), settings, first);
            outcome->width = field.lineWidth;
            outcome->polarity = field.polarity;
            outcome->saturation = field.saturation;
            outcome->field = worker->tracer(field, settings.backend).field();
            outcome->snapped = settings.snap > 0.0 && !joined ? glint::snapTracePoint(*outcome->field, first, settings.snap) : first;
        },
        [this, generation = generation_, outcome] { onFirstClickResolved(generation, *outcome); });
    updatePreview();
    showMessage(tr("Trace: move to where the line goes and click; Enter or a double-click finishes"));
}

void TraceModule::onFirstClickResolved(quint64 generation, const FirstClick& outcome) {
    if (generation != generation_ || !session_) return;
    Session& s = *session_;
    const bool measured = s.settings.autoWidth && s.settings.field.score == glint::TraceScore::Ridge;
    s.settings.field.lineWidth = outcome.width;
    s.settings.field.polarity = outcome.polarity;
    s.settings.field.saturation = outcome.saturation;
    s.settings.autoWidth = false;
    s.resolved = true;
    fixing_ = false;
    if (worker_ == s.worker) snapField_ = outcome.field;
    s.clicks.front() = outcome.snapped;
    // Clicks made meanwhile are snapped now, as they would have been; one that lands on the one before goes.
    for (std::size_t i = 1; i < s.given.size(); ++i) s.clicks[i] = s.joined[i] ? s.given[i] : snapClick(s.given[i]);
    for (std::size_t i = 1; i < s.clicks.size();)
        if (samePoint(s.clicks[i], s.clicks[i - 1])) {
            s.clicks.erase(s.clicks.begin() + static_cast<std::ptrdiff_t>(i));
            s.given.erase(s.given.begin() + static_cast<std::ptrdiff_t>(i));
            s.joined.erase(s.joined.begin() + static_cast<std::ptrdiff_t>(i));
        } else {
            ++i;
        }
    if (measured) showMessage(tr("Trace: width auto: %1 px at the first click").arg(outcome.width, 0, 'f', 1));
    if (s.clicks.size() > 1) {
        requestFixed();
    } else {
        if (std::exchange(s.finishRequested, false)) showMessage(tr("Trace: click the end point first (Esc cancels)"));
        if (hover_) requestLive(*hover_);
    }
    updatePreview();
}

void TraceModule::hover(QPointF cursor) {
    hoverIdle_ = cursor;
    const QPointF p = snapped(cursor);
    const bool showSnap = canSnap() && insideImage(cursor);
    hover_ = p;
    if (showSnap || snapShown_) {
        snapShown_ = showSnap;
        updatePreview(); // the marker follows the cursor
    }
    if (session_ && !fixing_) requestLive(p);
}

void TraceModule::requestLive(QPointF p) {
    Session& s = *session_;
    const glint::TracePoint a = s.clicks.back(), b = tracePoint(p);
    if (!s.resolved || !insideImage(p) || samePoint(a, b)) return; // the previous trace stays until the cursor is back
    auto outcome = std::make_shared<LegOutcome>();
    newest_ = Request::Live;
    runner_->request(
        [worker = s.worker, settings = s.settings, a, b, outcome](glint::JobControl& job) {
            glint::LineTracer& tracer = worker->tracer(settings.field, settings.backend);
            outcome->leg = tracer.trace(a, b, settings.liveParams(), job);
            outcome->timing = job.timing();
            outcome->field = tracer.field();
        },
        [this, generation = generation_, outcome] { onLive(generation, *outcome); });
}

void TraceModule::onLive(quint64 generation, const LegOutcome& outcome) {
    if (generation != generation_ || !session_ || !samePoint(outcome.leg.from, session_->clicks.back())) return;
    session_->live = outcome.leg;
    if (outcome.field && worker_ == session_->worker) snapField_ = outcome.field;
    ++liveShown_;
    lastLiveMs_ = outcome.timing.total();
    updatePreview();
    emit liveTraceShown();
}

// A click's leg, always with the full parameters. Live requests wait while it runs (they would cancel it);
// the mouse position is remembered and traced as soon as the leg is in.
void TraceModule::requestFixed() {
    Session& s = *session_;
    const std::size_t i = s.legs.size();
    const glint::TracePoint a = s.clicks[i], b = s.clicks[i + 1];
    auto outcome = std::make_shared<LegOutcome>();
    fixing_ = true;
    newest_ = Request::Fixed;
    runner_->request(
        [worker = s.worker, settings = s.settings, a, b, outcome](glint::JobControl& job) {
            glint::LineTracer& tracer = worker->tracer(settings.field, settings.backend);
            outcome->leg = tracer.trace(a, b, settings.params, job);
            outcome->field = tracer.field();
            outcome->timing = job.timing();
            outcome->device = job.device();
            outcome->backend = worker->resolvedBackend();
        },
        [this, generation = generation_, outcome] { onLegFixed(generation, *outcome); });
}

void TraceModule::onLegFixed(quint64 generation, const LegOutcome& outcome) {
    if (generation != generation_ || !session_) return;
    fixing_ = false;
    Session& s = *session_;
    s.legs.push_back(outcome.leg);
    s.legTimings.push_back(outcome.timing);
    s.device = outcome.device;
    s.backend = outcome.backend;
    if (outcome.field && worker_ == s.worker) snapField_ = outcome.field;
    if (weak(outcome.leg)) showMessage(tr("Trace: leg %1: %2").arg(s.legs.size()).arg(weakLegText(outcome.leg)));
    emit legFixed(static_cast<int>(s.legs.size()));
    if (s.legs.size() + 1 < s.clicks.size()) requestFixed();
    else if (s.finishRequested) return completeTrace();
    else if (hover_) requestLive(*hover_);
    updatePreview();
}

void TraceModule::onFailed(const QString& message) {
    switch (std::exchange(newest_, Request::None)) {
    case Request::Fixed:
        if (session_) {
            // The leg cannot be traced (no path within the angle, backend missing): its click goes, and so do
            // clicks made after it, whose legs would have started there.
            Session& s = *session_;
            fixing_ = false;
            s.clicks.resize(s.legs.size() + 1);
            s.given.resize(s.legs.size() + 1);
            s.joined.resize(s.legs.size() + 1);
            showMessage(tr("Trace: %1 — the click was taken back").arg(message));
            if (std::exchange(s.finishRequested, false) && !s.legs.empty()) return completeTrace();
            if (hover_) requestLive(*hover_);
            updatePreview();
            return;
        }
        break;
    case Request::Resolve:
        fixing_ = false;
        if (session_) {
            // The first click cannot be resolved (its width, its field): the trace does not start.
            session_.reset();
            tool_->setTracing(false);
            updatePreview();
        }
        break;
    case Request::Edit:
        editPending_ = false;
        showMessage(tr("Trace: the edit cannot be traced: %1 — the trace stays as it was").arg(message));
        return;
    case Request::Live:
        if (session_) {
            session_->live.reset();
            updatePreview();
        }
        break;
    default: break;
    }
    showMessage(tr("Trace: %1").arg(message));
}

void TraceModule::removeLastPoint() {
    if (!session_) return;
    Session& s = *session_;
    if (s.clicks.size() == 1) return cancelTrace();
    const std::size_t removed = s.clicks.size() - 1;
    s.clicks.pop_back();
    s.given.pop_back();
    s.joined.pop_back();
    s.finishRequested = false;
    if (s.legs.size() > removed - 1) {
        s.legs.pop_back();
        s.legTimings.pop_back();
    }
    if (fixing_ && removed == s.legs.size() + 1) {
        // The leg being traced ends at the removed point: nothing it returns is wanted any more.
        runner_->cancelAll();
        fixing_ = false;
        ++generation_;
    }
    if (hover_ && !fixing_) requestLive(*hover_);
    updatePreview();
    showMessage(tr("Trace: last point removed (%1 left)").arg(s.clicks.size()));
}

void TraceModule::cancelTrace() {
    if (!session_) return;
    dropTrace();
    showMessage(tr("Trace cancelled"));
}

void TraceModule::dropTrace() {
    if (!session_ && !fixing_) return;
    runner_->cancelAll();
    fixing_ = false;
    ++generation_;
    session_.reset();
    tool_->setTracing(false);
    updatePreview();
}

void TraceModule::finishTrace() {
    if (!session_) return;
    if (fixing_) {
        session_->finishRequested = true; // the leg being traced is part of the trace: finish when it is in
        return;
    }
    if (session_->legs.empty()) {
        showMessage(tr("Trace: click the end point first (Esc cancels)"));
        return;
    }
    completeTrace();
}

} // namespace glint::ui
