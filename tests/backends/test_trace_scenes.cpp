// Line trace on synthetic scenes with known geometry: accuracy on every backend (reference, cpu, cuda; the
// cuda rows skip without a usable device; ridge mode follows the centre of bright roads and dark rivers of
// widths 2-8 px, magnitude mode an edge, both within 1.5 px on average), the scenes are not trivial, and
// issue 15's evaluation scenes' accuracy targets, confidence, snapping and the width's scale selection.
#include "tests/backends/test_trace_support.h"
#include "tests/support/TestSupport.h"

#include "cuda/Backends.h"
#include "scenes/TraceScenes.h"
#include "core/util/Errors.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <exception>
#include <vector>

using namespace glint;
using test::tracerFor;

class TestTraceScenes : public QObject {
    Q_OBJECT

private slots:
    // The evaluation scenes (TraceScenes.h) on a quick subset: ratio objective, --guides auto, ridge
    // field of the true width and polarity, clicks jittered by +-3 px. Targets of issue 15: mean distance to
    // the centre line <= 1.5 px on at least 95% of the cases, and no point of any trace beyond 5 px.
    // (glint-cli bench trace --sizes eval runs the full set: widths 2-16, 10 seeds, ratio vs sum vs
    // Intelligent Scissors.)
    void evaluationScenes_data() {
        QTest::addColumn<int>("kind");
        for (TraceEvalKind kind : kTraceEvalKinds) QTest::newRow(traceEvalKindName(kind)) << static_cast<int>(kind);
    }
    void evaluationScenes() {
        QFETCH(int, kind);
        int cases = 0, within = 0;
        double worstMax = 0.0;
        for (double width : {2.0, 5.0, 12.0})
            for (std::uint32_t seed : {1u, 2u, 3u}) {
                    const bool bright = seed != 2u;
                    const TraceEvalCase c{static_cast<TraceEvalKind>(kind), width, bright, seed};
                    TraceParams params;
                    params.autoGuides = true; // the window's default
                    const TraceEvalOutcome out = evaluateTraceCase(c, params, Backend::Cpu);
                    ++cases;
                    within += out.distance.mean <= 1.5 ? 1 : 0;
                    worstMax = std::max(worstMax, out.distance.max);
                    if (out.distance.mean > 1.5 || out.distance.max > 5.0)
                        qInfo("%s: mean %.2f max %.2f px, widened %d, refined %d, %d iterations",
                              traceEvalCaseName(c).c_str(), out.distance.mean, out.distance.max, out.leg.widened,
                              out.leg.refined, out.leg.iterations);
                }
        QVERIFY2(within >= 0.95 * cases, qPrintable(QString("%1 of %2 cases within 1.5 px").arg(within).arg(cases)));
        QVERIFY2(worstMax <= 5.0, qPrintable(QString("a trace reaches %1 px from the centre line").arg(worstMax)));
    }

    // Confidence: a leg on a clear road stands far above its background; one traced across clutter does not.
    void confidence_data() {
        QTest::addColumn<int>("kind");
        for (TraceEvalKind kind : kTraceEvalKinds) QTest::newRow(traceEvalKindName(kind)) << static_cast<int>(kind);
    }
    void confidence() {
        QFETCH(int, kind);
        for (std::uint32_t seed : {1u, 2u}) {
            const TraceEvalCase c{static_cast<TraceEvalKind>(kind), 5.0, seed == 1u, seed};
            const TraceScene scene = makeEvaluationScene(c);
            TraceFieldOptions options;
            options.score = TraceScore::Ridge;
            options.polarity = c.bright ? TracePolarity::Bright : TracePolarity::Dark;
            const auto field = TraceField::compute(scene.image, options);
            auto tracer = tracerFor(Backend::Cpu, field);
            JobControl j1, j2;
            const TraceLeg on = tracer->trace(scene.from, scene.to, TraceParams{}, j1);
            // Off the feature: clicks moved far across it, where only clutter and texture lie.
            const double shift = scene.from.y < 180 ? 150.0 : -150.0;
            TraceParams fixed;
            fixed.maxWidenings = 0;
            fixed.halfWidth = 10.0;
            const TracePoint a{scene.from.x, std::clamp(scene.from.y + shift, 0.0, 359.0)};
            const TracePoint b{scene.to.x, std::clamp(scene.to.y + shift, 0.0, 359.0)};
            TraceLeg off;
            try {
                off = tracer->trace(a, b, fixed, j2);
            } catch (const std::exception& e) {
                QFAIL(e.what());
            }
            qInfo("%s: on the feature %.2f (mean %.2f, background %.2f), off it %.2f (mean %.2f, background %.2f)",
                  traceEvalCaseName(c).c_str(), on.confidence, on.meanScore, on.backgroundScore, off.confidence,
                  off.meanScore, off.backgroundScore);
            TraceLeg copy = on;
            measureTraceLegConfidence(*field, copy);
            QCOMPARE(copy.confidence, on.confidence);
            QVERIFY(on.confidence >= 0.8 && on.confidence <= 1.0);
            if (c.kind != TraceEvalKind::StreetGrid) QVERIFY(off.confidence < 0.7); // (the grid has streets everywhere)
        }
    }

    // Snapping: a click a few pixels off a road moves onto its centre (ridge) or onto an edge (magnitude);
    // radius 0 and a field with nothing in reach leave it; a negative radius is refused.
    void snap() {
        const TraceScene scene = makeEvaluationScene({TraceEvalKind::RiverInlets, 6.0, false, 4u, 0.0});
        TraceFieldOptions ridge;
        ridge.score = TraceScore::Ridge;
        ridge.polarity = TracePolarity::Dark;
        ridge.lineWidth = 6.0;
        const auto field = TraceField::compute(scene.image, ridge);
        const TracePoint on = scene.trueFrom;
        for (double off : {-4.0, -2.0, 3.0, 4.5}) {
            const TracePoint click{on.x, on.y + off};
            const TracePoint snapped = snapTracePoint(*field, click, 6.0);
            const double distance = distanceToPolyline({snapped}, scene.centre).max;
            QVERIFY2(distance <= 1.0, qPrintable(QString("offset %1: snapped %2 px from the centre line").arg(off).arg(distance)));
            QVERIFY(std::hypot(snapped.x - click.x, snapped.y - click.y) <= 6.0);
            const TracePoint same = snapTracePoint(*field, click, 0.0);
            QCOMPARE(same.x, click.x);
            QCOMPARE(same.y, click.y);
        }
        const auto edges = TraceField::compute(scene.image, {});
        const TracePoint snapped = snapTracePoint(*edges, {on.x, on.y + 1.0}, 6.0);
        QVERIFY(distanceToPolyline({snapped}, scene.edges[0]).max <= 1.5 ||
                distanceToPolyline({snapped}, scene.edges[1]).max <= 1.5);
        const auto blank = TraceField::fromVectors(20, 10, std::vector<float>(400, 0.0f));
        QCOMPARE(snapTracePoint(*blank, {5.25, 4.5}, 3.0).x, 5.25);
        QVERIFY_THROWS_EXCEPTION(UsageError, snapTracePoint(*blank, {5, 5}, -1.0));
    }

    // --width auto: scale selection finds the width of bright and dark roads and rivers of 3 to 14 px within
    // the scale grid's resolution (x1.25). (Not yet on the faint track in texture: the texture's fine-scale
    // response outvotes the faint line, and the estimate falls to the smallest scale; see NOTES.md.)
    void autoWidth_data() {
        test::columns<double, bool>({"width", "bright"});
        for (double w : {3.0, 5.0, 8.0, 14.0})
            for (bool bright : {true, false}) QTest::addRow("%s %g", bright ? "bright" : "dark", w) << w << bright;
    }
    void autoWidth() {
        QFETCH(double, width);
        QFETCH(bool, bright);
        for (TraceEvalKind kind : {TraceEvalKind::ParallelRoads, TraceEvalKind::RiverInlets}) {
            const TraceEvalCase c{kind, width, bright, 5u};
            const TraceScene scene = makeEvaluationScene(c);
            const TracePolarity polarity = bright ? TracePolarity::Bright : TracePolarity::Dark;
            const double estimate = estimateTraceLineWidth(scene.image, {scene.from, scene.to}, polarity);
            QVERIFY2(estimate >= width / 1.4 && estimate <= width * 1.4,
                     qPrintable(QString("%1: estimated %2").arg(QString::fromStdString(traceEvalCaseName(c))).arg(estimate)));
        }
    }
    void accuracy_data() {
        test::addBackendColumn();
        // toCentre: distance to the centre line, else to the nearest true edge
        test::columns<int, double, int, int, bool>({"kind", "width", "score", "polarity", "toCentre"});
        const int bright = static_cast<int>(TraceSceneKind::BrightRoad), dark = static_cast<int>(TraceSceneKind::DarkRiver),
                  boundary = static_cast<int>(TraceSceneKind::TexturedBoundary);
        const int ridge = static_cast<int>(TraceScore::Ridge), magnitude = static_cast<int>(TraceScore::Magnitude);
        const int both = static_cast<int>(TracePolarity::Both);
        for (Backend b : {Backend::Cpu, Backend::Cuda}) {
            for (double w : {2.0, 3.0, 5.0, 8.0}) {
                test::newBackendRow(b, QString::asprintf("ridge bright road %g", w)) << bright << w << ridge << static_cast<int>(TracePolarity::Bright) << true;
                test::newBackendRow(b, QString::asprintf("ridge dark river %g", w)) << dark << w << ridge << static_cast<int>(TracePolarity::Dark) << true;
                test::newBackendRow(b, QString::asprintf("magnitude bright road %g", w)) << bright << w << magnitude << 0 << false;
                test::newBackendRow(b, QString::asprintf("magnitude dark river %g", w)) << dark << w << magnitude << 0 << false;
            }
            for (double w : {3.0, 4.0, 6.0}) {
                test::newBackendRow(b, QString::asprintf("ridge both, road %g", w)) << bright << w << ridge << both << true;
                test::newBackendRow(b, QString::asprintf("ridge both, river %g", w)) << dark << w << ridge << both << true;
            }
            test::newBackendRow(b, "magnitude textured boundary") << boundary << 0.0 << magnitude << 0 << false;
        }
    }
    void accuracy() {
        GLINT_FETCH_BACKEND(backend);
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
            auto tracer = tracerFor(backend, TraceField::compute(scene.image, options));
            JobControl job;
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

GLINT_BACKEND_TEST_MAIN(TestTraceScenes)
#include "test_trace_scenes.moc"
