// The Trace tool's settings in the window on the offscreen platform: its registration with the Analyze menu
// and the panel, which edits its settings; issue 15 (the cursor snaps to the road, live legs keep their
// guides, a weak leg is named and drawn dashed); the objective and width auto, in the session too; traces on
// the bundled samples, grabbed from the window.
// Set GLINT_TRACE_SCREENSHOTS=DIR to keep the pictures of traces on the bundled samples.
#include "tests/gui/test_gui_trace_support.h"
#include "tests/gui/GuiTestSupport.h"
#include "tests/support/TestSupport.h"

#include "core/algo/trace/LineTrace.h"
#include "scenes/TraceScenes.h"
#include "ui/canvas/ImageCanvas.h"
#include "ui/docks/ParametersDock.h"
#include "ui/docks/ResultsDock.h"
#include "ui/docks/TimingDock.h"
#include "ui/modules/TraceModule.h"
#include "ui/modules/TraceTool.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QJsonArray>
#include <QJsonObject>
#include <QDir>
#include <QMenuBar>
#include <QSpinBox>
#include <QStatusBar>

#include <cmath>
#include <utility>
#include <random>

using namespace glint;
using namespace glint::ui;
using namespace glint::test::tracetool;

namespace {

// Pixels of the trace colour along a polyline in a grab of the canvas: the overlay is really drawn there.
// `reach`: how far from a sample the colour may be (1: anti-aliasing; a dashed line needs half its gap more).
double traceColourFraction(const QImage& grab, const ImageCanvas* canvas, const QPolygonF& line, const QColor& colour,
                           int reach = 1) {
    int hits = 0, total = 0;
    for (qsizetype i = 1; i < line.size(); ++i) {
        for (double t = 0.1; t < 1.0; t += 0.2) {
            const QPoint w = widgetAt(canvas, line[i - 1] + t * (line[i] - line[i - 1]));
            if (!grab.rect().contains(w)) continue;
            ++total;
            bool found = false; // anti-aliasing: accept the colour within a pixel of the line
            for (int dy = -reach; dy <= reach && !found; ++dy)
                for (int dx = -reach; dx <= reach && !found; ++dx) {
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

class TestGuiTraceSettings : public QObject {
    Q_OBJECT

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
        // Live = committed (issue 32): the preview adapts its guides as the committed trace does, on fewer points.
        QVERIFY(module->settings().liveParams().autoGuides);
        QVERIFY(module->settings().liveParams().points <= module->settings().params.points);
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

    // Issue 15 in the window: the cursor snaps to the road, live legs keep their guides (no widening), and a
    // leg across plain noise is weak: named in the status bar, drawn dashed, its confidence in the table.
    void snapConfidenceAndGuides() {
        const TraceScene scene = makeTraceScene(TraceSceneKind::BrightRoad, 5.0, 11);
        TraceSettings settings = roadSettings();
        settings.snap = 4.0; // the window's preset radius
        settings.showGuides = true;
        OPEN_TRACE_WINDOW(f, scene.image, settings);
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
        TraceSettings settings = roadSettings();
        settings.autoWidth = true;
        settings.field.lineWidth = 20.0; // far from the road's 6 px: the estimate replaces it
        OPEN_TRACE_WINDOW(f, scene.image, settings);
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
        test::columns<QString, int, double, QPolygonF, QPolygonF>(
            {"sample", "score", "width", "finished", "inProgress"});
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
        // The results dock takes its rows once the trace is listed (issue 34): the canvas settles before the next clicks.
        QSize settled;
        QTRY_VERIFY(std::exchange(settled, canvas->size()) == canvas->size());
        QTest::mouseClick(canvas, Qt::LeftButton, Qt::NoModifier, widgetAt(canvas, inProgress.first()));
        QTest::mouseMove(canvas, widgetAt(canvas, inProgress.last()));
        WAIT_LIVE_AT(m, imageAt(canvas, widgetAt(canvas, inProgress.last())));
        QVERIFY(!m->tool()->preview().guides.isEmpty());
        QCoreApplication::processEvents();

        const QImage grab = canvas->grab().toImage();
        const double finishedShown = traceColourFraction(grab, canvas, m->layer()->shape(0).points, TraceTool::traceColour());
        // A weak live trace is drawn dashed (Qt::DashLine of a 2-px pen: 8-px dashes, 4-px gaps), so a sample in a gap
        // is within 2 px of a dash (on the mammogram's skin line it is weak: 5 of its 35 samples fell in gaps).
        const double liveShown = traceColourFraction(grab, canvas, m->livePolyline(), TraceTool::liveColour(), 2);
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

GLINT_GUI_TEST_MAIN(TestGuiTraceSettings)
#include "test_gui_trace_settings.moc"
