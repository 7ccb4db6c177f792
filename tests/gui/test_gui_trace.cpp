// The Trace tool in the window, driven as a user drives it on the offscreen platform: clicks and mouse
// moves on the canvas over a synthetic bright road, the live trace under the cursor, fixing and chaining
// legs, Backspace, Esc, Enter and double-click, the results row, overlay and timing record, errors in the
// status bar, and live requests that merge instead of queueing while the UI thread stays free.
// Set GLINT_TRACE_SCREENSHOTS=DIR to keep the pictures of traces on the bundled samples.
#include "tests/gui/GuiTestSupport.h"
#include "tests/support/TestSupport.h"

#include "core/algo/trace/LineTrace.h"
#include "scenes/TraceScenes.h"
#include "ui/canvas/ImageCanvas.h"
#include "ui/docks/ParametersDock.h"
#include "ui/docks/ResultsDock.h"
#include "ui/docks/TimingDock.h"
#include "ui/jobs/LatestRequestRunner.h"
#include "ui/modules/TraceModule.h"
#include "ui/modules/TraceTool.h"
#include "ui/modules/TraceWorker.h"
#include "ui/results/TimingLog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QJsonArray>
#include <QJsonObject>
#include <QDir>
#include <QElapsedTimer>
#include <QMenuBar>
#include <QSpinBox>
#include <QStatusBar>
#include <QTimer>

#include <algorithm>
#include <cmath>
#include <random>

using namespace glint;
using namespace glint::ui;

namespace {

TraceModule* findTraceModule(MainWindow& window) {
    for (AnalysisModule* m : window.modules())
        if (auto* t = qobject_cast<TraceModule*>(m)) return t;
    return nullptr;
}

QPoint widgetAt(const ImageCanvas* canvas, QPointF image) { return canvas->view().imageToWidget(image).toPoint(); }
// Where a click at a widget pixel lands in the image: what the trace must start or end at.
QPointF imageAt(const ImageCanvas* canvas, QPoint widget) { return canvas->view().widgetToImage(QPointF(widget)); }

std::vector<TracePoint> tracePoints(const QPolygonF& p) {
    std::vector<TracePoint> out;
    for (const QPointF& q : p) out.push_back({q.x(), q.y()});
    return out;
}

// The centre-line point of a scene at column x (the centre polyline is sampled every half pixel).
QPointF centreAt(const TraceScene& scene, double x) {
    const auto it = std::min_element(scene.centre.begin(), scene.centre.end(),
                                     [x](TracePoint a, TracePoint b) { return std::fabs(a.x - x) < std::fabs(b.x - x); });
    return {it->x, it->y};
}

// The same trace computed here, straight through the core, on the CPU backend.
TraceLeg directTrace(const Image& image, const TraceFieldOptions& field, const TraceParams& params, QPointF a, QPointF b) {
    auto tracer = BackendRegistry<LineTracer>::create(Backend::Cpu);
    JobControl job;
    tracer->setField(TraceField::compute(image, field), job);
    return tracer->trace({a.x(), a.y()}, {b.x(), b.y()}, params, job);
}

QPolygonF polygonOf(const std::vector<TracePoint>& points) {
    QPolygonF out;
    for (const TracePoint& p : points) out.append(QPointF(p.x, p.y));
    return out;
}

bool samePolyline(const QPolygonF& a, const std::vector<TracePoint>& b) {
    if (a.size() != static_cast<qsizetype>(b.size())) return false;
    for (qsizetype i = 0; i < a.size(); ++i)
        if (a[i].x() != b[i].x || a[i].y() != b[i].y) return false;
    return true;
}

double polylineLength(const QPolygonF& p) {
    double length = 0.0;
    for (qsizetype i = 1; i < p.size(); ++i) length += std::hypot(p[i].x() - p[i - 1].x(), p[i].y() - p[i - 1].y());
    return length;
}

// The longest gap between ticks of a 5 ms timer on the UI thread: how long the event loop was held up.
class EventLoopProbe : public QObject {
public:
    EventLoopProbe() {
        timer_.setInterval(5);
        connect(&timer_, &QTimer::timeout, this, [this] {
            maxGapMs_ = std::max(maxGapMs_, clock_.restart());
            ++ticks_;
        });
        clock_.start();
        timer_.start();
    }
    qint64 maxGapMs() const { return maxGapMs_; }
    int ticks() const { return ticks_; }

private:
    QTimer timer_;
    QElapsedTimer clock_;
    qint64 maxGapMs_ = 0;
    int ticks_ = 0;
};

// Pixels of the trace colour along a polyline in a grab of the canvas: the overlay is really drawn there.
double traceColourFraction(const QImage& grab, const ImageCanvas* canvas, const QPolygonF& line, const QColor& colour) {
    int hits = 0, total = 0;
    for (qsizetype i = 1; i < line.size(); ++i) {
        for (double t = 0.1; t < 1.0; t += 0.2) {
            const QPoint w = widgetAt(canvas, line[i - 1] + t * (line[i] - line[i - 1]));
            if (!grab.rect().contains(w)) continue;
            ++total;
            bool found = false; // anti-aliasing: accept the colour within a pixel of the line
            for (int dy = -1; dy <= 1 && !found; ++dy)
                for (int dx = -1; dx <= 1 && !found; ++dx) {
                    const QColor c = grab.pixelColor(w + QPoint(dx, dy));
                    found = std::abs(c.red() - colour.red()) < 40 && std::abs(c.green() - colour.green()) < 40 &&
                            std::abs(c.blue() - colour.blue()) < 60;
                }
            hits += found;
        }
    }
    return total ? static_cast<double>(hits) / total : 0.0;
}

} // namespace

#define WAIT_LIVE_AT(module, point)                                                                                    \
    QTRY_VERIFY_WITH_TIMEOUT(!(module)->livePolyline().isEmpty() && (module)->livePolyline().last() == (point), 20000)
#define WAIT_IDLE(module) QTRY_VERIFY_WITH_TIMEOUT(!(module)->runner()->isBusy() && !(module)->isFixing(), 20000)

class TestGuiTrace : public QObject {
    Q_OBJECT

    // A window showing `image`, the Trace tool picked from the Analyze menu with `settings`.
    struct Fixture {
        MainWindow window{{false, false}};
        TraceModule* module = nullptr;
        ImageCanvas* canvas = nullptr;
    };
    bool open(Fixture& f, Image image, const TraceSettings& settings) {
        f.window.resize(1280, 800);
        f.window.show();
        if (!QTest::qWaitForWindowExposed(&f.window)) return false;
        f.window.context().setImage(std::move(image), QStringLiteral("scene"));
        if (!QTest::qWaitFor([&] { return test::imageShown(f.window.context()); }, 30000)) return false;
        f.module = findTraceModule(f.window);
        f.canvas = f.window.canvas();
        if (!f.module) return false;
        f.module->setSettings(settings);
        f.module->actions().first()->trigger();
        return f.canvas->tool() == f.module->tool();
    }

    // Clicks the scene's start point on the canvas (a trace's first click): where, in widget pixels.
    static QPoint clickFrom(ImageCanvas* canvas, const TraceScene& scene) {
        const QPoint w = widgetAt(canvas, QPointF(scene.from.x, scene.from.y));
        QTest::mouseClick(canvas, Qt::LeftButton, Qt::NoModifier, w);
        return w;
    }

    static TraceSettings roadSettings() {
        TraceSettings s;
        s.field.score = TraceScore::Ridge;
        s.field.lineWidth = 5.0;
        s.backend = Backend::Cpu; // compared exactly with directTrace() below
        s.snap = false;           // the traces end exactly at the cursor
        s.autoWidth = false;      // the field of width 5, as directTrace() computes it
        return s;
    }

private slots:
    void registeredWithMenuAndPanel() {
        MainWindow window({false, false});
        TraceModule* module = findTraceModule(window);
        QVERIFY(test::moduleRegistered(window, module));
        // The panel edits the module's settings.
        auto* guides = window.parametersDock()->findChild<QSpinBox*>(QStringLiteral("guides"));
        auto* score = window.parametersDock()->findChild<QComboBox*>(QStringLiteral("score"));
        QVERIFY(guides && score);
        QCOMPARE(guides->value(), 6);
        QCOMPARE(module->settings().params.points, 256);
        // --guides adaptive is the window's default (the spec's preset: 6 guides, refined where the fit is poor);
        // live legs never refine.
        auto* guidesAuto = window.parametersDock()->findChild<QCheckBox*>(QStringLiteral("guides_auto"));
        QVERIFY(guidesAuto && guidesAuto->isChecked());
        QVERIFY(module->settings().params.autoGuides);
        QVERIFY(!module->settings().liveParams().autoGuides);
        guidesAuto->setChecked(false);
        QVERIFY(!module->settings().params.autoGuides);
        guidesAuto->setChecked(true);
        // The widenings have a box of their own (Advanced); a setting without a box (the sine threshold)
        // survives an edit in the panel.
        auto* widenings = window.parametersDock()->findChild<QSpinBox*>(QStringLiteral("widen"));
        QVERIFY(widenings);
        QCOMPARE(widenings->value(), TraceParams{}.maxWidenings);
        TraceSettings custom = module->settings();
        custom.field.sineThresholdFraction = 0.25;
        custom.params.maxWidenings = 2;
        module->setSettings(custom);
        QCOMPARE(widenings->value(), 2);
        widenings->setValue(1);
        QCOMPARE(module->settings().params.maxWidenings, 1);
        QCOMPARE(module->settings().field.sineThresholdFraction, 0.25);
        guidesAuto->setChecked(false);
        guides->setValue(8);
        score->setCurrentIndex(score->findData(QStringLiteral("ridge")));
        QCOMPARE(module->settings().params.guides, 8);
        QCOMPARE(module->settings().field.score, TraceScore::Ridge);
        // Without an image the tool does not start, and says why.
        module->actions().first()->trigger();
        QVERIFY(window.canvas()->tool() != module->tool());
        QVERIFY(window.statusBar()->currentMessage().contains(QStringLiteral("open an image")));
    }

    void liveTraceFixChainUndoFinish() {
        const TraceScene scene = makeTraceScene(TraceSceneKind::BrightRoad, 5.0, 11);
        const TraceSettings settings = roadSettings();
        Fixture f;
        QVERIFY(open(f, scene.image, settings));
        TraceModule* m = f.module;
        ImageCanvas* canvas = f.canvas;

        // Start point: the field is prepared at once, on the worker.
        const QPoint w0 = clickFrom(canvas, scene);
        QVERIFY(m->isTracing());
        QCOMPARE(m->clickCount(), 1);
        const QPointF a = imageAt(canvas, w0);

        // Move along the road: the live trace follows the road's centre and ends at the cursor.
        const QPoint w1 = widgetAt(canvas, centreAt(scene, 0.5 * scene.image.width()));
        QTest::mouseMove(canvas, w1);
        const QPointF b = imageAt(canvas, w1);
        WAIT_LIVE_AT(m, b);
        QCOMPARE(m->livePolyline().first(), a);
        QCOMPARE(m->livePolyline().size(), qsizetype(settings.params.guides + 2));
        const double liveDistance = meanDistanceToPolylines(tracePoints(m->livePolyline()), {scene.centre});
        QVERIFY2(liveDistance <= 1.5, qPrintable(QString::number(liveDistance)));
        // Live traces use the panel's fewer points per guide: exactly the core's answer for those parameters.
        const TraceLeg liveExpected = directTrace(scene.image, settings.field, settings.liveParams(), a, b);
        QVERIFY(samePolyline(m->livePolyline(), liveExpected.points));
        QVERIFY(m->tool()->preview().fixed.isEmpty());

        // Click: the leg is fixed with the full parameters.
        QTest::mouseClick(canvas, Qt::LeftButton, Qt::NoModifier, w1);
        QTRY_COMPARE_WITH_TIMEOUT(m->fixedLegCount(), 1, 20000);
        const TraceLeg leg1 = directTrace(scene.image, settings.field, settings.params, a, b);
        QVERIFY(samePolyline(m->fixedPolyline(), leg1.points));

        // Chain a second leg to the far end of the road.
        const QPoint w2 = widgetAt(canvas, QPointF(scene.to.x, scene.to.y));
        QTest::mouseMove(canvas, w2);
        const QPointF c = imageAt(canvas, w2);
        WAIT_LIVE_AT(m, c);
        QCOMPARE(m->livePolyline().first(), b);
        QTest::mouseClick(canvas, Qt::LeftButton, Qt::NoModifier, w2);
        QTRY_COMPARE_WITH_TIMEOUT(m->fixedLegCount(), 2, 20000);
        const TraceLeg leg2 = directTrace(scene.image, settings.field, settings.params, b, c);
        QPolygonF both = polygonOf(leg1.points);
        for (std::size_t i = 1; i < leg2.points.size(); ++i) both.append(QPointF(leg2.points[i].x, leg2.points[i].y));
        QCOMPARE(m->fixedPolyline(), both);
        const double fixedDistance = meanDistanceToPolylines(tracePoints(both), {scene.centre});
        QVERIFY2(fixedDistance <= 1.5, qPrintable(QString::number(fixedDistance)));

        // Move on, then Backspace: the second leg goes and the live trace starts again from the first click.
        const QPoint w3 = widgetAt(canvas, centreAt(scene, 0.7 * scene.image.width()));
        QTest::mouseMove(canvas, w3);
        WAIT_LIVE_AT(m, imageAt(canvas, w3));
        QTest::keyClick(canvas, Qt::Key_Backspace);
        QCOMPARE(m->clickCount(), 2);
        QCOMPARE(m->fixedLegCount(), 1);
        QTRY_VERIFY_WITH_TIMEOUT(!m->livePolyline().isEmpty() && m->livePolyline().first() == b &&
                                     m->livePolyline().last() == imageAt(canvas, w3), 20000);

        // Enter finishes with the one fixed leg: overlay, results row, timing record; the tool stays.
        QTest::keyClick(canvas, Qt::Key_Return);
        QVERIFY(!m->isTracing());
        QVERIFY(m->tool()->preview().isEmpty());
        QCOMPARE(canvas->tool(), static_cast<CanvasTool*>(m->tool()));
        QVERIFY(m->layer() && m->model());
        QCOMPARE(m->layer()->itemCount(), 1);
        QCOMPARE(m->layer()->shape(0).kind, OverlayShape::Kind::Polyline);
        QVERIFY(samePolyline(m->layer()->shape(0).points, leg1.points));
        const ResultsModel* model = m->model();
        QCOMPARE(model->rowCount(), 1);
        QCOMPARE(model->value(0, 0).toInt(), 1);
        QCOMPARE(model->value(0, 1).toInt(), 1);
        QCOMPARE(model->value(0, 2).toDouble(), polylineLength(polygonOf(leg1.points)));
        QCOMPARE(model->value(0, 3).toDouble(), leg1.score);
        QCOMPARE(model->value(0, 4).toString(), QStringLiteral("ridge"));
        QCOMPARE(model->value(0, 5).toString(), QStringLiteral("cpu"));
        QCOMPARE(f.window.resultsDock()->currentModel(), model);
        QVERIFY(f.window.statusBar()->currentMessage().startsWith(QStringLiteral("Trace #1")));

        const TimingLog& log = *f.window.context().timingLog();
        const RunRecord* trace = nullptr;
        const RunRecord* field = nullptr;
        for (const RunRecord& r : log.records()) {
            if (r.algorithm == QLatin1String("trace")) trace = &r;
            if (r.algorithm == QLatin1String("trace field")) field = &r;
        }
        QVERIFY(trace && field);
        QCOMPARE(trace->backend, QStringLiteral("cpu"));
        QCOMPARE(trace->device, QString::fromStdString(cpuDeviceName()));
        QCOMPARE(trace->imageSize, QSize(scene.image.width(), scene.image.height()));
        QVERIFY2(trace->parameters.contains(QStringLiteral("points=256")), qPrintable(trace->parameters));
        QVERIFY2(trace->parameters.contains(QStringLiteral("score=ridge")) && trace->parameters.contains(QStringLiteral("width=5")),
                 qPrintable(trace->parameters));
        QStringList steps;
        for (const TimingStep& s : trace->steps) steps << QString::fromStdString(s.name);
        for (const char* name : {"geometry", "segment scores", "dp", "assemble"}) QVERIFY2(steps.contains(QLatin1String(name)), name);
        QVERIFY(trace->totalMs > 0.0);
        QCOMPARE(QString::fromStdString(field->steps.front().name), QStringLiteral("field"));

        // One field for the whole trace, bound to the backend once, however many traces ran on it.
        QVERIFY(m->liveTracesShown() >= 3);
        QCOMPARE(m->worker()->fieldsComputed(), 1);
        QCOMPARE(m->worker()->fieldsBound(), 1);
        // Another score mode needs its own field, computed once too.
        TraceSettings edges = settings;
        edges.field.score = TraceScore::Magnitude;
        m->setSettings(edges);
        QTest::mouseClick(canvas, Qt::LeftButton, Qt::NoModifier, w0);
        for (const QPoint& w : {w1, w2}) {
            QTest::mouseMove(canvas, w);
            WAIT_LIVE_AT(m, imageAt(canvas, w));
        }
        QCOMPARE(m->worker()->fieldsComputed(), 2);
        QCOMPARE(m->worker()->fieldsBound(), 2);
        QTest::keyClick(canvas, Qt::Key_Escape);
    }

    void escapeDoubleClickAndLeaving() {
        const TraceScene scene = makeTraceScene(TraceSceneKind::BrightRoad, 4.0, 5);
        Fixture f;
        QVERIFY(open(f, scene.image, roadSettings()));
        TraceModule* m = f.module;
        ImageCanvas* canvas = f.canvas;
        const QPoint w0 = widgetAt(canvas, QPointF(scene.from.x, scene.from.y));
        const QPoint w1 = widgetAt(canvas, centreAt(scene, 0.45 * scene.image.width()));
        const QPoint w2 = widgetAt(canvas, QPointF(scene.to.x, scene.to.y));

        // Esc in the middle of a trace drops it: nothing is kept.
        QTest::mouseClick(canvas, Qt::LeftButton, Qt::NoModifier, w0);
        QTest::mouseMove(canvas, w1);
        WAIT_LIVE_AT(m, imageAt(canvas, w1));
        QTest::mouseClick(canvas, Qt::LeftButton, Qt::NoModifier, w1);
        QTest::keyClick(canvas, Qt::Key_Escape);
        QVERIFY(!m->isTracing());
        QVERIFY(m->tool()->preview().isEmpty());
        WAIT_IDLE(m);
        QVERIFY(!m->model());
        QCOMPARE(canvas->tool(), static_cast<CanvasTool*>(m->tool()));

        // Clicks chain legs; a double-click on the last point finishes even while its leg is still traced.
        QTest::mouseClick(canvas, Qt::LeftButton, Qt::NoModifier, w0);
        QTest::mouseClick(canvas, Qt::LeftButton, Qt::NoModifier, w1);
        QTest::mouseClick(canvas, Qt::LeftButton, Qt::NoModifier, w2);
        QTest::mouseDClick(canvas, Qt::LeftButton, Qt::NoModifier, w2);
        QTRY_VERIFY_WITH_TIMEOUT(m->model() && m->model()->rowCount() == 1, 20000);
        QVERIFY(!m->isTracing());
        QCOMPARE(m->model()->value(0, 1).toInt(), 2);
        const QPolygonF line = m->layer()->shape(0).points;
        QCOMPARE(line.first(), imageAt(canvas, w0));
        QCOMPARE(line.last(), imageAt(canvas, w2));
        QCOMPARE(line.size(), qsizetype(2 * (6 + 1) + 1));
        const double distance = meanDistanceToPolylines(tracePoints(line), {scene.centre});
        QVERIFY2(distance <= 1.5, qPrintable(QString::number(distance)));

        // Esc with no trace in progress leaves the tool.
        QTest::keyClick(canvas, Qt::Key_Escape);
        QCOMPARE(canvas->tool(), static_cast<CanvasTool*>(canvas->defaultTool()));

        // A new image drops the results and the trace in progress.
        m->actions().first()->trigger();
        QTest::mouseClick(canvas, Qt::LeftButton, Qt::NoModifier, w0);
        QVERIFY(m->isTracing());
        f.window.context().setImage(scene.image, QStringLiteral("again"));
        QVERIFY(!m->isTracing());
        QVERIFY(!m->layer() && !m->model());
    }

    void errorsInTheStatusBar() {
        const TraceScene scene = makeTraceScene(TraceSceneKind::BrightRoad, 5.0, 3);
        Fixture f;
        QVERIFY(open(f, scene.image, roadSettings()));
        TraceModule* m = f.module;
        ImageCanvas* canvas = f.canvas;
        QStatusBar* status = f.window.statusBar();

        // Outside the image (the margin left of it in the fitted view).
        const QPoint outside = widgetAt(canvas, QPointF(-3.0, scene.image.height() / 2.0));
        QVERIFY(canvas->rect().contains(outside));
        QTest::mouseClick(canvas, Qt::LeftButton, Qt::NoModifier, outside);
        QVERIFY(!m->isTracing());
        QVERIFY2(status->currentMessage().contains(QStringLiteral("inside the image")), qPrintable(status->currentMessage()));

        // The same point twice.
        const QPoint w0 = clickFrom(canvas, scene);
        QTest::mouseClick(canvas, Qt::LeftButton, Qt::NoModifier, w0);
        QCOMPARE(m->clickCount(), 1);
        QVERIFY2(status->currentMessage().contains(QStringLiteral("equals the previous click")), qPrintable(status->currentMessage()));
        QTest::keyClick(canvas, Qt::Key_Escape);
        WAIT_IDLE(m);

        // No feasible path: with an even number of points no guide point lies on the axis, so a 0.1° limit
        // cannot be met. The leg's click is taken back and the reason shown.
        TraceSettings settings = roadSettings();
        settings.params.maxAngleDeg = 0.1;
        m->setSettings(settings);
        QTest::mouseClick(canvas, Qt::LeftButton, Qt::NoModifier, w0);
        const QPoint w1 = widgetAt(canvas, QPointF(scene.to.x, scene.to.y));
        QTest::mouseClick(canvas, Qt::LeftButton, Qt::NoModifier, w1);
        QTRY_VERIFY_WITH_TIMEOUT(status->currentMessage().contains(QStringLiteral("no path keeps every turn")), 20000);
        WAIT_IDLE(m);
        QCOMPARE(m->clickCount(), 1);
        QCOMPARE(m->fixedLegCount(), 0);
        QTest::keyClick(canvas, Qt::Key_Return); // nothing to finish: says so, keeps the start point
        QVERIFY(m->isTracing());
        QTest::keyClick(canvas, Qt::Key_Escape);

        // A backend that cannot run here is named, not crashed on.
        if (!cudaDevice().usable) {
            settings = roadSettings();
            settings.backend = Backend::Cuda;
            m->setSettings(settings);
            QTest::mouseClick(canvas, Qt::LeftButton, Qt::NoModifier, w0);
            QTRY_VERIFY_WITH_TIMEOUT(status->currentMessage().contains(QStringLiteral("CUDA")), 20000);
            QTest::keyClick(canvas, Qt::Key_Escape);
        }
        WAIT_IDLE(m);
        QVERIFY(!m->model());
    }

    void rapidMovesMergeAndTheWindowStaysResponsive() {
        const TraceScene scene = makeTraceScene(TraceSceneKind::BrightRoad, 5.0, 21);
        TraceSettings settings = roadSettings();
        Fixture f;
        QVERIFY(open(f, scene.image, settings));
        TraceModule* m = f.module;
        ImageCanvas* canvas = f.canvas;
        clickFrom(canvas, scene);
        const QPoint first = widgetAt(canvas, centreAt(scene, 0.4 * scene.image.width()));
        QTest::mouseMove(canvas, first);
        WAIT_LIVE_AT(m, imageAt(canvas, first));
        WAIT_IDLE(m);

        // 40 moves delivered back to back, as a fast mouse does: each costs the UI thread next to nothing,
        // the previous trace stays on screen, and only the newest position is traced after the running one.
        const QPolygonF before = m->livePolyline();
        const int started = m->runner()->startedCount();
        const int superseded = m->runner()->supersededCount();
        qint64 slowestMs = 0;
        QPoint last;
        for (int i = 0; i < 40; ++i) {
            last = widgetAt(canvas, centreAt(scene, (0.45 + 0.01 * i) * scene.image.width()));
            QMouseEvent move(QEvent::MouseMove, QPointF(last), canvas->mapToGlobal(QPointF(last)), Qt::NoButton, Qt::NoButton,
                             Qt::NoModifier);
            QElapsedTimer clock;
            clock.start();
            QApplication::sendEvent(canvas, &move);
            slowestMs = std::max(slowestMs, clock.elapsed());
            QCOMPARE(m->livePolyline(), before);
        }
        // Generous (machines and loads differ 10x): a move that traced on the UI thread would block for the
        // whole trace; the live latency itself is a bench row (glint-cli bench trace).
        QVERIFY2(slowestMs < 1000, qPrintable(QString::number(slowestMs)));
        WAIT_LIVE_AT(m, imageAt(canvas, last));
        WAIT_IDLE(m);
        qInfo("live trace (%d guides x %d points, |ab| = %.0f px): %.1f ms", settings.params.guides,
              settings.liveParams().points, std::hypot(m->livePolyline().last().x() - m->livePolyline().first().x(),
                                                       m->livePolyline().last().y() - m->livePolyline().first().y()),
              m->lastLiveMs());
        // The first move starts at once (the runner was idle); the other 39 replace one another while it
        // runs, and only the 40th is started: 38 replaced while waiting plus the cancelled first one.
        QCOMPARE(m->runner()->startedCount() - started, 2);
        QCOMPARE(m->runner()->supersededCount() - superseded, 39);

        // A heavy click (1024 points per guide) is traced off the UI thread: the event loop keeps ticking.
        settings.params.points = 1024;
        settings.params.guides = 8;
        m->setSettings(settings);
        EventLoopProbe probe;
        QTest::mouseClick(canvas, Qt::LeftButton, Qt::NoModifier, last);
        QVERIFY(m->isFixing());
        QElapsedTimer fixing;
        fixing.start();
        QTRY_COMPARE_WITH_TIMEOUT(m->fixedLegCount(), 1, 60000);
        qInfo("heavy leg traced in %lld ms; longest event-loop gap %lld ms over %d ticks", fixing.elapsed(),
              probe.maxGapMs(), probe.ticks());
        // The event loop kept ticking while the leg was traced (a gap as long as the trace would mean the
        // UI thread did the work); generous, since a loaded machine can stall any thread for a while.
        QVERIFY2(probe.maxGapMs() < 1000, qPrintable(QString::number(probe.maxGapMs())));
        QCOMPARE(m->worker()->fieldsComputed(), 1);
    }

    // Issue 15 in the window: the cursor snaps to the road, live legs keep their guides (no widening), and a
    // leg across plain noise is weak: named in the status bar, drawn dashed, its confidence in the table.
    void snapConfidenceAndGuides() {
        const TraceScene scene = makeTraceScene(TraceSceneKind::BrightRoad, 5.0, 11);
        TraceSettings settings = roadSettings();
        settings.snap = 4.0; // the window's preset radius
        settings.showGuides = true;
        Fixture f;
        QVERIFY(open(f, scene.image, settings));
        TraceModule* m = f.module;
        ImageCanvas* canvas = f.canvas;
        QTRY_VERIFY_WITH_TIMEOUT(m->canSnap(), 20000);

        // 3 px beside the road's centre: the marker and the click land on the line.
        const QPointF centre = centreAt(scene, 0.25 * scene.image.width());
        const QPoint beside = widgetAt(canvas, centre + QPointF(0.0, 3.0));
        QTest::mouseMove(canvas, beside);
        QTRY_VERIFY(m->tool()->preview().snap.has_value());
        const QPointF marker = *m->tool()->preview().snap;
        QVERIFY(marker != imageAt(canvas, beside));
        QTest::mouseClick(canvas, Qt::LeftButton, Qt::NoModifier, beside);
        QCOMPARE(m->clickCount(), 1);
        // The click is snapped as core snaps it, once the first click's field is in (resolveTrace).
        QTRY_VERIFY_WITH_TIMEOUT(!m->isFixing(), 20000);
        const QPointF first = m->tool()->preview().clicks.first();
        const double off = meanDistanceToPolylines({TracePoint{first.x(), first.y()}}, {scene.centre});
        QVERIFY2(off <= 1.0, qPrintable(QString::number(off)));

        // The live leg is traced without widening and draws its own guides.
        const QPoint far = widgetAt(canvas, centreAt(scene, 0.6 * scene.image.width()));
        QTest::mouseMove(canvas, far);
        QTRY_VERIFY_WITH_TIMEOUT(!m->livePolyline().isEmpty() && m->livePolyline().first() == first, 20000);
        QCOMPARE(m->tool()->preview().guides.size(), qsizetype(settings.params.guides));
        QCOMPARE(m->livePolyline().size(), qsizetype(settings.params.guides + 2));
        QVERIFY(!m->tool()->preview().liveWeak);
        QTest::keyClick(canvas, Qt::Key_Escape);

        // Plain noise: no feature, so the leg's confidence is low.
        std::mt19937 random(7);
        std::vector<std::uint8_t> noise(400 * 300);
        for (std::uint8_t& v : noise) v = static_cast<std::uint8_t>(random() % 200);
        f.window.context().setImage(Image::fromSamples<std::uint8_t>(400, 300, std::move(noise)), QStringLiteral("noise"));
        QTRY_VERIFY_WITH_TIMEOUT(test::imageShown(f.window.context()), 30000);
        TraceSettings plain = roadSettings();
        plain.field.score = TraceScore::Magnitude;
        m->setSettings(plain);
        m->actions().first()->trigger();
        QTest::mouseClick(canvas, Qt::LeftButton, Qt::NoModifier, widgetAt(canvas, QPointF(40, 150)));
        QTest::mouseClick(canvas, Qt::LeftButton, Qt::NoModifier, widgetAt(canvas, QPointF(360, 140)));
        QTRY_COMPARE_WITH_TIMEOUT(m->fixedLegCount(), 1, 20000);
        QCOMPARE(m->tool()->preview().weak.size(), qsizetype(1));
        QVERIFY2(m->lastMessage().contains(QStringLiteral("weak leg: confidence")), qPrintable(m->lastMessage()));
        QTest::keyClick(canvas, Qt::Key_Return);
        QTRY_VERIFY_WITH_TIMEOUT(m->model() && m->model()->rowCount() == 1, 20000);
        QCOMPARE(m->layer()->weakLegs(0).size(), qsizetype(1));
        const double confidence = m->model()->value(0, 6).toDouble();
        QVERIFY2(confidence < TraceSettings::kWeakConfidence, qPrintable(QString::number(confidence)));
        QCOMPARE(TraceTool::legStyle(confidence), Qt::DashLine);
        QCOMPARE(TraceTool::legStyle(0.9), Qt::SolidLine);
        QVERIFY(f.window.statusBar()->currentMessage().contains(QStringLiteral("weak leg")));
    }

    // The panel's objective (mean per length by default) and width auto: the first click measures the width (as
    // glint-cli trace --width auto does), the trace keeps it; both travel in the session, and an older session
    // (without them) reads as the paper's objective with the typed width.
    void objectiveAndWidthAuto() {
        const TraceScene scene = makeTraceScene(TraceSceneKind::BrightRoad, 6.0, 5);
        Fixture f;
        TraceSettings settings = roadSettings();
        settings.autoWidth = true;
        settings.field.lineWidth = 20.0; // far from the road's 6 px: the estimate replaces it
        QVERIFY(open(f, scene.image, settings));
        TraceModule* m = f.module;
        f.window.parametersDock()->showPanel(m->name());
        auto* objective = f.window.parametersDock()->findChild<QComboBox*>(QStringLiteral("objective"));
        auto* autoWidth = f.window.parametersDock()->findChild<QCheckBox*>(QStringLiteral("width_auto"));
        auto* snap = f.window.parametersDock()->findChild<QDoubleSpinBox*>(QStringLiteral("snap"));
        QVERIFY(objective && autoWidth && snap);
        QCOMPARE(TraceSettings().params.objective, TraceObjective::Ratio);
        QVERIFY(TraceSettings().autoWidth && TraceSettings().snap == 4.0);
        QCOMPARE(objective->currentData().toString(), QStringLiteral("ratio"));
        QVERIFY(autoWidth->isChecked() && snap->value() == 0.0);

        clickFrom(f.canvas, scene);
        QTest::mouseClick(f.canvas, Qt::LeftButton, Qt::NoModifier, widgetAt(f.canvas, centreAt(scene, 0.6 * scene.image.width())));
        QTRY_COMPARE_WITH_TIMEOUT(m->fixedLegCount(), 1, 20000);
        QTest::keyClick(f.canvas, Qt::Key_Return);
        QTRY_VERIFY_WITH_TIMEOUT(m->model() && m->model()->rowCount() == 1, 20000);
        const QString parameters = m->traces().front().parameters;
        QVERIFY2(parameters.contains(QStringLiteral("objective=ratio")), qPrintable(parameters));
        const qsizetype at = parameters.indexOf(QStringLiteral(" width="));
        QVERIFY(at >= 0);
        const double width = parameters.mid(at + 7).section(QLatin1Char(' '), 0, 0).toDouble();
        QVERIFY2(width >= 6.0 / 1.5 && width <= 6.0 * 1.5, qPrintable(parameters));

        objective->setCurrentIndex(objective->findData(QStringLiteral("sum")));
        QCOMPARE(m->settings().params.objective, TraceObjective::Sum);
        QJsonObject state = m->saveSession();
        const QJsonObject form = state[QStringLiteral("settings")].toObject()[QStringLiteral("form")].toObject();
        QCOMPARE(form[QStringLiteral("objective")].toString(), QStringLiteral("sum"));
        QCOMPARE(form[QStringLiteral("width")].toString(), QStringLiteral("auto"));
        QCOMPARE(form[QStringLiteral("guides")].toString(), QStringLiteral("adaptive"));
        // The finished trace records what glint-cli trace --params replays: the width it measured, the clicks.
        const QJsonObject recorded = state[QStringLiteral("traces")].toArray().first().toObject()[QStringLiteral("parameters")].toObject();
        QCOMPARE(recorded[QStringLiteral("width")].toDouble(), width);
        QVERIFY(recorded[QStringLiteral("from")].isArray() && recorded[QStringLiteral("to")].isArray());
        m->setSettings(roadSettings());
        m->prepareSession(state, {})();
        QCOMPARE(m->settings().params.objective, TraceObjective::Sum);
        QVERIFY(m->settings().autoWidth);
        QVERIFY(m->settings().params.autoGuides);
        // A session of an older version: the settings' own keys, without the objective, the widenings, width
        // auto, snapping and adaptive guides.
        const QJsonObject saved{{QStringLiteral("guides"), 6}, {QStringLiteral("points"), 256}, {QStringLiteral("half_width"), 0.0},
                                {QStringLiteral("max_angle"), 45.0}, {QStringLiteral("live_points"), 128},
                                {QStringLiteral("score"), QStringLiteral("ridge")}, {QStringLiteral("line_width"), 6.0},
                                {QStringLiteral("polarity"), QStringLiteral("both")}, {QStringLiteral("sine_threshold"), 0.1},
                                {QStringLiteral("backend"), QStringLiteral("cpu")}, {QStringLiteral("show_guides"), false}};
        state[QStringLiteral("settings")] = saved;
        m->prepareSession(state, {})();
        QCOMPARE(m->settings().params.objective, TraceObjective::Sum);
        QCOMPARE(m->settings().params.maxWidenings, 0);
        QVERIFY(!m->settings().autoWidth);
        QVERIFY(!m->settings().params.autoGuides); // an older session traced on fixed guides
    }

    // Traces on the bundled samples: the aerial photograph's bright road (ridge) and the mammogram's skin
    // line (magnitude), one finished and one in progress with its guides, grabbed from the window.
    void screenshotsOnSamples_data() {
        QTest::addColumn<QString>("sample");
        QTest::addColumn<int>("score");
        QTest::addColumn<double>("width");
        QTest::addColumn<QPolygonF>("finished");
        QTest::addColumn<QPolygonF>("inProgress");
        QTest::newRow("aero road") << QStringLiteral("aero.png") << static_cast<int>(TraceScore::Ridge) << 6.0
                                   << QPolygonF{{4, 431}, {150, 453}, {300, 506}}
                                   << QPolygonF{{330, 458}, {505, 447}};
        QTest::newRow("mammogram skin line") << QStringLiteral("synthetic-mammogram.png")
                                             << static_cast<int>(TraceScore::Magnitude) << 5.0
                                             << QPolygonF{{385, 6}, {640, 190}, {688, 500}, {610, 770}}
                                             << QPolygonF{{290, 8}, {160, 330}};
    }
    void screenshotsOnSamples() {
        QFETCH(QString, sample);
        QFETCH(int, score);
        QFETCH(double, width);
        QFETCH(QPolygonF, finished);
        QFETCH(QPolygonF, inProgress);
        MainWindow window({false, false});
        window.resize(1280, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.openFile(test::samplePath(sample));
        GLINT_WAIT_FOR_IMAGE(window);
        TraceModule* m = findTraceModule(window);
        TraceSettings settings;
        settings.field.score = static_cast<TraceScore>(score);
        settings.field.lineWidth = width;
        settings.showGuides = true;
        settings.snap = false; // the live trace ends at the cursor
        settings.autoWidth = false;
        m->setSettings(settings);
        m->actions().first()->trigger();
        ImageCanvas* canvas = window.canvas();

        for (const QPointF& p : finished) QTest::mouseClick(canvas, Qt::LeftButton, Qt::NoModifier, widgetAt(canvas, p));
        QTest::keyClick(canvas, Qt::Key_Return);
        QTRY_VERIFY_WITH_TIMEOUT(m->model() && m->model()->rowCount() == 1, 60000);
        QTest::mouseClick(canvas, Qt::LeftButton, Qt::NoModifier, widgetAt(canvas, inProgress.first()));
        QTest::mouseMove(canvas, widgetAt(canvas, inProgress.last()));
        WAIT_LIVE_AT(m, imageAt(canvas, widgetAt(canvas, inProgress.last())));
        QVERIFY(!m->tool()->preview().guides.isEmpty());
        QCoreApplication::processEvents();

        const QImage grab = canvas->grab().toImage();
        const double finishedShown = traceColourFraction(grab, canvas, m->layer()->shape(0).points, TraceTool::traceColour());
        const double liveShown = traceColourFraction(grab, canvas, m->livePolyline(), TraceTool::liveColour());
        QVERIFY2(finishedShown > 0.9, qPrintable(QString::number(finishedShown)));
        QVERIFY2(liveShown > 0.9, qPrintable(QString::number(liveShown)));
        const QString dir = qEnvironmentVariable("GLINT_TRACE_SCREENSHOTS");
        if (!dir.isEmpty()) {
            QDir().mkpath(dir);
            const QString name = QFileInfo(sample).completeBaseName();
            QVERIFY(window.grab().save(QDir(dir).filePath(QStringLiteral("trace-%1-window.png").arg(name))));
            QVERIFY(grab.save(QDir(dir).filePath(QStringLiteral("trace-%1-canvas.png").arg(name))));
            window.timingDock()->show();
            window.timingDock()->raise();
            QCoreApplication::processEvents();
            QVERIFY(window.grab().save(QDir(dir).filePath(QStringLiteral("trace-%1-timing.png").arg(name))));
            // Close-ups at 2.5x, to judge whether the lines sit on the features.
            const QList<std::pair<QString, QRectF>> closeUps{{QStringLiteral("finished"), m->layer()->itemBounds(0)},
                                                              {QStringLiteral("live"), m->livePolyline().boundingRect()}};
            for (const auto& [what, bounds] : closeUps) {
                canvas->setScaleAt(2.5, QPointF(0, 0));
                canvas->centerOn(bounds.center());
                QCoreApplication::processEvents();
                QVERIFY(canvas->grab().save(QDir(dir).filePath(QStringLiteral("trace-%1-%2-zoom.png").arg(name, what))));
            }
        }
    }
};

GLINT_GUI_TEST_MAIN(TestGuiTrace)
#include "test_gui_trace.moc"
