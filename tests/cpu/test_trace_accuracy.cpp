// Line trace accuracy on synthetic images with known geometry (drawn by TraceScenes with noise and
// clutter): ridge mode follows the centre of bright roads and dark rivers of widths 2-8 px, magnitude mode
// follows an edge (road sides, a curved boundary between two textures), both within 1.5 px on average.
#include "tests/support/TestSupport.h"

#include "cuda/Backends.h"
#include "core/algo/trace/TraceScenes.h"

#include <QtTest>

using namespace glint;

class TestTraceAccuracy : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { initBackends(); }

    void accuracy_data() {
        QTest::addColumn<int>("kind");
        QTest::addColumn<double>("width");
        QTest::addColumn<int>("score");
        QTest::addColumn<int>("polarity");
        QTest::addColumn<bool>("toCentre"); // distance to the centre line, else to the nearest true edge
        const int bright = static_cast<int>(TraceSceneKind::BrightRoad), dark = static_cast<int>(TraceSceneKind::DarkRiver),
                  boundary = static_cast<int>(TraceSceneKind::TexturedBoundary);
        const int ridge = static_cast<int>(TraceScore::Ridge), magnitude = static_cast<int>(TraceScore::Magnitude);
        for (double w : {2.0, 3.0, 5.0, 8.0}) {
            QTest::addRow("ridge bright road %g", w) << bright << w << ridge << static_cast<int>(TracePolarity::Bright) << true;
            QTest::addRow("ridge dark river %g", w) << dark << w << ridge << static_cast<int>(TracePolarity::Dark) << true;
            QTest::addRow("magnitude bright road %g", w) << bright << w << magnitude << 0 << false;
            QTest::addRow("magnitude dark river %g", w) << dark << w << magnitude << 0 << false;
        }
        for (double w : {4.0, 6.0}) {
            QTest::addRow("ridge both, road %g", w) << bright << w << ridge << static_cast<int>(TracePolarity::Both) << true;
            QTest::addRow("ridge both, river %g", w) << dark << w << ridge << static_cast<int>(TracePolarity::Both) << true;
        }
        QTest::addRow("magnitude textured boundary") << boundary << 0.0 << magnitude << 0 << false;
    }
    void accuracy() {
        QFETCH(int, kind);
        QFETCH(double, width);
        QFETCH(int, score);
        QFETCH(int, polarity);
        QFETCH(bool, toCentre);
        for (std::uint32_t seed : {11u, 12u}) {
            const TraceScene scene = makeTraceScene(static_cast<TraceSceneKind>(kind), width, seed);
            TraceFieldOptions options;
            options.score = static_cast<TraceScore>(score);
            options.polarity = static_cast<TracePolarity>(polarity);
            options.lineWidth = width > 0 ? width : 5.0;
            auto tracer = BackendRegistry<LineTracer>::create(Backend::Cpu);
            JobControl job;
            tracer->setField(TraceField::compute(scene.image, options), job);
            TraceParams params;
            params.guides = 8;
            const TraceLeg leg = tracer->trace(scene.from, scene.to, params, job);
            const double distance =
                meanDistanceToPolylines(leg.points, toCentre ? std::vector<std::vector<TracePoint>>{scene.centre} : scene.edges);
            QVERIFY2(distance <= 1.5, qPrintable(QString("%1, seed %2: mean distance %3 px")
                                                     .arg(QString::fromStdString(scene.name))
                                                     .arg(seed)
                                                     .arg(distance)));
        }
    }

    // The scenes are what they claim: the clicks lie on the centre line, and a straight trace is far off.
    void scenesAreNotTrivial() {
        const TraceScene scene = makeTraceScene(TraceSceneKind::BrightRoad, 5.0, 11);
        QVERIFY(meanDistanceToPolylines({scene.from}, {scene.centre}) < 0.5);
        QVERIFY(meanDistanceToPolylines({scene.to}, {scene.centre}) < 0.5);
        QVERIFY(meanDistanceToPolylines({scene.from, scene.to}, {scene.centre}) > 5.0);
        QCOMPARE(scene.image.width(), 480);
        QCOMPARE(scene.image.sampleType(), SampleType::UInt8);
    }
};

QTEST_GUILESS_MAIN(TestTraceAccuracy)
#include "test_trace_accuracy.moc"
