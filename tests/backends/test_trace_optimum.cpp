// Line trace's optimum on every backend (reference, cpu, cuda; the cuda rows skip without a usable device):
// the exact optimum against a brute force over every path for both objectives (ratio by Dinkelbach, sum),
// widening (the exact optimum of the final guides; a meander is followed only with it), --guides auto, the
// interval form of the turn test, agreement with the reference (and on the device, with cpu at the paper's
// largest sizes and the 4096-point shared-memory path), buffer reuse across sizes and fields, chained legs.
#include "tests/backends/test_trace_support.h"
#include "tests/support/TestSupport.h"
#include "tests/support/TraceOracle.h"

#include "cuda/Backends.h"
#include "core/algo/trace/TraceGeometry.h"
#include "scenes/TraceScenes.h"
#include "core/util/Errors.h"

#include <QtTest>

using namespace glint;
using test::tracerFor;

namespace {

// Random image fields of the three modes (filtered from a random picture), or a random vector field.
std::shared_ptr<const TraceField> fieldForMode(int mode, int width, int height, std::mt19937& rng) {
    if (mode == 0) return test::randomField(width, height, rng);
    Image image = test::randomIntImage(width, height, 0, 255, rng);
    TraceFieldOptions options;
    options.score = mode == 1 ? TraceScore::Magnitude : mode == 2 ? TraceScore::Sine : TraceScore::Ridge;
    options.polarity = static_cast<TracePolarity>(rng() % 3);
    options.lineWidth = 2.0 + rng() % 5;
    return TraceField::compute(image, options);
}

// One trace problem: a field of the given mode and size from the seed, clicks at random points in it.
struct TraceCase {
    int guides = 0, points = 0;
    double angle = 0.0;
    int mode = 0;
    double halfWidth = 0.0;
    uint seed = 0;
    int width = 0, height = 0;
    TraceObjective objective = TraceObjective::Ratio;

    TraceParams params() const {
        TraceParams p;
        p.objective = objective;
        p.maxWidenings = 0; // the optimum on these guides (widening has its own test)
        p.guides = guides;
        p.points = points;
        p.maxAngleDeg = angle;
        p.halfWidth = halfWidth;
        return p;
    }
};

// The case's field and clicks, drawn from its seed.
struct TraceProblem {
    std::shared_ptr<const TraceField> field;
    TraceParams params;
    TracePoint a, b;
};

TraceProblem problemFor(const TraceCase& c) {
    std::mt19937 rng(c.seed);
    TraceProblem p;
    p.field = fieldForMode(c.mode, c.width, c.height, rng);
    p.params = c.params();
    p.a = test::randomPoint(c.width, c.height, rng);
    p.b = test::randomPoint(c.width, c.height, rng);
    return p;
}

bool close(double a, double b) { return std::fabs(a - b) <= 1e-4 * std::max(1.0, std::fabs(b)); }
// The objectives agree to 1e-4 relative (a ratio is a score per pixel: relative to itself, not to 1).
bool closeRelative(double a, double b) { return std::fabs(a - b) <= 1e-4 * std::fabs(b) + 1e-9; }

} // namespace

Q_DECLARE_METATYPE(TraceCase)

class TestTraceOptimum : public QObject {
    Q_OBJECT

private slots:
    // Every backend's optimum equals the brute force over all d^n paths, for both objectives and every kind
    // of angle limit, with guides that reach outside the image (37x29 and 41x33 fields).
    void bruteForce_data() {
        test::addBackendColumn();
        QTest::addColumn<TraceCase>("c");
        for (TraceObjective objective : {TraceObjective::Ratio, TraceObjective::Sum}) {
            for (Backend backend : test::allBackends) {
                const char* o = traceObjectiveName(objective);
                uint seed = 1;
                for (auto [n, d] : std::vector<std::pair<int, int>>{{1, 2}, {1, 9}, {2, 2}, {2, 7}, {3, 5}, {4, 4}, {5, 3}, {5, 5}, {6, 3}})
                    for (double angle : {0.5, 5.0, 20.0, 45.0, 60.0, 90.0, 135.0, 179.0, 180.0}) {
                        const int mode = static_cast<int>(seed % 4);
                        const double halfWidth = seed % 3 == 0 ? 0.0 : seed % 3 == 1 ? 3.5 : 19.0;
                        test::newBackendRow(backend, QString::asprintf("%s n%d d%d angle %g mode %d w %g", o, n, d, angle, mode, halfWidth))
                            << TraceCase{n, d, angle, mode, halfWidth, seed, 37, 29, objective};
                        ++seed;
                    }
                for (auto [n, d] : std::vector<std::pair<int, int>>{{1, 2}, {1, 7}, {2, 6}, {3, 5}, {4, 4}, {5, 4}, {6, 3}})
                    for (double angle : {0.5, 10.0, 45.0, 90.0, 150.0, 180.0}) {
                        const int mode = static_cast<int>(seed % 4);
                        const double halfWidth = seed % 2 ? 0.0 : 25.0;
                        test::newBackendRow(backend, QString::asprintf("%s n%d d%d angle %g mode %d w %g 41x33", o, n, d, angle, mode, halfWidth))
                            << TraceCase{n, d, angle, mode, halfWidth, seed, 41, 33, objective};
                        ++seed;
                    }
            }
        }
    }
    void bruteForce() {
        GLINT_FETCH_BACKEND(backend);
        QFETCH(TraceCase, c);
        const auto [field, params, a, b] = problemFor(c);
        const double best = test::bruteForceBest(*field, a, b, params);
        auto tracer = tracerFor(backend, field);
        JobControl job;
        if (!std::isfinite(best)) {
            QVERIFY_THROWS_EXCEPTION(UsageError, tracer->trace(a, b, params, job));
            return;
        }
        const TraceLeg leg = tracer->trace(a, b, params, job);
        test::verifyLeg(*field, leg, a, b, params);
        const double value = test::objectiveValue(leg, params);
        QVERIFY2(closeRelative(value, best),
                 qPrintable(QString("%1: %2 vs brute force %3").arg(backendName(backend)).arg(value).arg(best)));
        QVERIFY(close(leg.optimumScore, leg.score));
        QVERIFY(leg.iterations >= 1 && leg.iterations <= kMaxTraceIterations);
        if (params.objective == TraceObjective::Sum) QCOMPARE(leg.iterations, 1);
        if (backend == Backend::Cuda) {
            QVERIFY(job.timing().step("segment scores") > 0.0);
            QCOMPARE(QString::fromStdString(job.device()), QString::fromStdString(cudaDevice().name));
        }
    }

    // Widening: a leg whose optimum nears a guide's end or has a gap is solved again on wider guides and
    // more of them (x1.5, at most maxWidenings times, never beyond |ab|); the leg reported is the exact
    // optimum on its final guides. A meander far outside the default half-width is followed only with widening.
    void widening_data() {
        test::addBackendColumn();
        QTest::addColumn<TraceCase>("c");
        uint seed = 500;
        for (Backend backend : test::allBackends)
            for (auto [n, d] : std::vector<std::pair<int, int>>{{2, 5}, {3, 4}, {2, 4}, {1, 9}})
                for (TraceObjective objective : {TraceObjective::Ratio, TraceObjective::Sum}) {
                    test::newBackendRow(backend, QString::asprintf("%s n%d d%d", traceObjectiveName(objective), n, d))
                        << TraceCase{n, d, 60.0, static_cast<int>(seed % 4), 4.0, seed, 37, 29, objective};
                    ++seed;
                }
    }
    void widening() {
        GLINT_FETCH_BACKEND(backend);
        QFETCH(TraceCase, c);
        auto [field, params, a, b] = problemFor(c);
        params.maxWidenings = 2;
        JobControl job;
        TraceLeg leg;
        try {
            leg = tracerFor(backend, field)->trace(a, b, params, job);
        } catch (const UsageError&) {
            params.maxWidenings = 0;
            QVERIFY(!std::isfinite(test::bruteForceBest(*field, a, b, params)));
            return;
        }
        QVERIFY(leg.widened >= 0 && leg.widened <= 2);
        int guides = params.guides;
        for (int i = 0; i < leg.widened; ++i) guides = static_cast<int>(std::ceil(guides * kTraceWidenFactor));
        QCOMPARE(static_cast<int>(leg.guideIndices.size()), guides);
        const double widest = std::max(4.0, std::hypot(b.x - a.x, b.y - a.y));
        const double expected = std::min(widest, 4.0 * std::pow(kTraceWidenFactor, leg.widened));
        QVERIFY2(std::fabs(leg.halfWidth - expected) <= 1e-9 * expected || leg.halfWidth == widest,
                 qPrintable(QString("half-width %1 after %2 widenings").arg(leg.halfWidth).arg(leg.widened)));
        TraceParams final = params;
        final.halfWidth = leg.halfWidth;
        final.guides = guides;
        final.maxWidenings = 0;
        test::verifyLeg(*field, leg, a, b, final);
        QVERIFY(closeRelative(test::objectiveValue(leg, final), test::bruteForceBest(*field, a, b, final)));
        if (leg.widened == 0) {
            // Not widened: either it did not ask, or the wider optimum was no better.
            TraceParams fixed = params;
            fixed.maxWidenings = 0;
            JobControl j2;
            const TraceLeg narrow = tracerFor(backend, field)->trace(a, b, fixed, j2);
            QCOMPARE(narrow.guideIndices, leg.guideIndices);
        }
    }

    // --guides auto: a leg whose fit is poor is solved again on finer guides (or one widening step when its
    // confidence is low), at most kMaxTraceRefinements times; the leg reported is the exact optimum on its
    // final guides, and its objective is at least the fixed guides' (a finer solve is kept only when higher).
    void autoGuides_data() {
        test::addBackendColumn();
        QTest::addColumn<TraceCase>("c");
        uint seed = 900;
        for (Backend backend : test::allBackends)
            for (auto [n, d] : std::vector<std::pair<int, int>>{{1, 4}, {1, 5}, {1, 3}})
                for (TraceObjective objective : {TraceObjective::Ratio, TraceObjective::Sum})
                    for (double angle : {180.0, 60.0}) {
                        test::newBackendRow(backend, QString::asprintf("%s n%d d%d %g deg", traceObjectiveName(objective),
                                                                       n, d, angle))
                            << TraceCase{n, d, angle, static_cast<int>(seed % 4), 4.0, seed, 37, 29, objective};
                        ++seed;
                    }
    }
    void autoGuides() {
        GLINT_FETCH_BACKEND(backend);
        QFETCH(TraceCase, c);
        auto [field, params, a, b] = problemFor(c);
        JobControl j1, j2;
        TraceLeg fixed;
        try {
            fixed = tracerFor(backend, field)->trace(a, b, params, j1);
        } catch (const UsageError&) {
            QSKIP("no feasible path on these guides");
        }
        params.autoGuides = true;
        const TraceLeg leg = tracerFor(backend, field)->trace(a, b, params, j2);
        qInfo("refined %d of %d tries, %d guides, half-width %g", leg.refined, leg.refineTries,
              static_cast<int>(leg.guideIndices.size()), leg.halfWidth);
        QVERIFY(leg.refined >= 0 && leg.refined <= leg.refineTries && leg.refineTries <= kMaxTraceRefinements);
        QCOMPARE(leg.refineTries > 0, !leg.refineReasons.empty());
        if (leg.refineTries == 0) {
            QVERIFY(needsTraceRefinement(fixed, params).empty());
            QCOMPARE(leg.guideIndices, fixed.guideIndices);
        }
        QVERIFY(test::objectiveValue(leg, params) >= test::objectiveValue(fixed, params) * (1 - 1e-6));
        if (leg.refined == 0) QCOMPARE(leg.guideIndices, fixed.guideIndices);
        else QVERIFY(leg.guideIndices.size() > fixed.guideIndices.size());
        TraceParams final = params;
        final.autoGuides = false;
        final.guides = static_cast<int>(leg.guideIndices.size());
        final.halfWidth = leg.halfWidth;
        test::verifyLeg(*field, leg, a, b, final);
        QVERIFY(closeRelative(test::objectiveValue(leg, final), test::bruteForceBest(*field, a, b, final)));
    }

    void meanderNeedsWidening() {
        const TraceScene scene = makeEvaluationScene({TraceEvalKind::Meander, 5.0, true, 3u, 0.0});
        TraceFieldOptions options;
        options.score = TraceScore::Ridge;
        options.polarity = TracePolarity::Bright;
        auto tracer = tracerFor(Backend::Cpu, TraceField::compute(scene.image, options));
        TraceParams params;
        params.maxWidenings = 0;
        JobControl j1, j2;
        const TraceLeg fixed = tracer->trace(scene.from, scene.to, params, j1);
        params.maxWidenings = 3;
        const TraceLeg wide = tracer->trace(scene.from, scene.to, params, j2);
        QCOMPARE(fixed.widened, 0);
        QVERIFY(wide.widened >= 1);
        QVERIFY(wide.halfWidth > fixed.halfWidth);
        const double fixedMean = distanceToPolyline(fixed.points, scene.centre).mean;
        const double wideMean = distanceToPolyline(wide.points, scene.centre).mean;
        QVERIFY2(wideMean < 0.5 * fixedMean, qPrintable(QString("widened %1 px, fixed %2 px").arg(wideMean).arg(fixedMean)));
    }

    // The claim behind the fast DPs: on a straight guide, the predecessors that the turn test accepts form
    // exactly the interval the geometry hands out (checked against the predicate for every triple).
    void turnIntervalsAreExact_data() {
        test::columns<double, uint>({"angle", "seed"});
        for (double angle : {1.0, 10.0, 30.0, 45.0, 89.0, 90.0, 120.0, 180.0})
            for (uint seed : {1u, 2u}) QTest::addRow("angle %g seed %u", angle, seed) << angle << seed;
    }
    void turnIntervalsAreExact() {
        QFETCH(double, angle);
        QFETCH(uint, seed);
        std::mt19937 rng(seed);
        TraceParams params;
        params.guides = 4;
        params.points = 24 + static_cast<int>(rng() % 20);
        params.maxAngleDeg = angle;
        params.halfWidth = seed == 1 ? 0.0 : 60.0;
        const TraceGeometry g(test::randomPoint(200, 100, rng), test::randomPoint(200, 100, rng) , params);
        const int d = g.points();
        for (int c = 0; c < d; ++c) {
            for (int x = 0; x < d; ++x) {
                const IndexRange r = g.predecessors(c, x);
                for (int p = 0; p < d; ++p)
                    QCOMPARE(p >= r.lo && p <= r.hi, g.turnAllowed(g.interiorAngle(c - p), g.interiorAngle(x - c)));
            }
            const IndexRange next = g.firstTurnSuccessors(c), prev = g.lastTurnPredecessors(c);
            for (int j = 0; j < d; ++j) {
                QCOMPARE(j >= next.lo && j <= next.hi, g.turnAllowed(g.firstAngle(c), g.interiorAngle(j - c)));
                QCOMPARE(j >= prev.lo && j <= prev.hi, g.turnAllowed(g.interiorAngle(c - j), g.lastAngle(c)));
            }
        }
    }

    // Larger cases against the reference (double, cubic DP): cpu (float, interval DP) on 120x90 fields,
    // cuda on 300x200.
    void matchesReference_data() {
        test::addBackendColumn();
        QTest::addColumn<TraceCase>("c");
        int row = 0;
        for (TraceObjective objective : {TraceObjective::Ratio, TraceObjective::Sum}) {
            const char* o = traceObjectiveName(objective);
            row = 0;
            for (auto [n, d] : std::vector<std::pair<int, int>>{{1, 64}, {2, 33}, {3, 48}, {6, 40}, {8, 32}})
                for (double angle : {10.0, 45.0, 180.0}) {
                    test::newBackendRow(Backend::Cpu, QString::asprintf("%s n%d d%d angle %g", o, n, d, angle))
                        << TraceCase{n, d, angle, row++ % 4, 0.0, uint(n * 1000 + d), 120, 90, objective};
                }
            row = 0;
            for (auto [n, d] : std::vector<std::pair<int, int>>{{1, 256}, {2, 100}, {3, 64}, {5, 128}, {8, 96}, {12, 33}})
                for (double angle : {10.0, 45.0, 180.0}) {
                    test::newBackendRow(Backend::Cuda, QString::asprintf("%s n%d d%d angle %g", o, n, d, angle))
                        << TraceCase{n, d, angle, row++ % 4, 0.0, uint(n * 7 + d), 300, 200, objective};
                }
        }
    }
    void matchesReference() {
        GLINT_FETCH_BACKEND(backend);
        QFETCH(TraceCase, c);
        const auto [field, params, a, b] = problemFor(c);
        JobControl j1, j2;
        const TraceLeg ref = tracerFor(Backend::Reference, field)->trace(a, b, params, j1);
        const TraceLeg got = tracerFor(backend, field)->trace(a, b, params, j2);
        test::verifyLeg(*field, got, a, b, params);
        const double value = test::objectiveValue(got, params), expected = test::objectiveValue(ref, params);
        QVERIFY2(closeRelative(value, expected),
                 qPrintable(QString("%1 %2, reference %3").arg(backendName(backend)).arg(value).arg(expected)));
        QVERIFY(j2.timing().step("segment scores") > 0.0);
        QVERIFY(j2.timing().total() > 0.0);
    }

    // The paper's largest case and the 4096-point case (shared memory above 48 KB): cuda against cpu.
    void cudaLargeMatchesCpu_data() {
        test::columns<int, int, double>({"guides", "points", "angle"});
        QTest::newRow("n8 d1024 45") << 8 << 1024 << 45.0;
        QTest::newRow("n8 d1024 180") << 8 << 1024 << 180.0;
        QTest::newRow("n3 d4096 30") << 3 << 4096 << 30.0;
        QTest::newRow("n40 d512 60") << 40 << 512 << 60.0;
    }
    void cudaLargeMatchesCpu() {
        GLINT_REQUIRE_CUDA();
        QFETCH(int, guides);
        QFETCH(int, points);
        QFETCH(double, angle);
        const TraceScene scene = makeTraceScene(TraceSceneKind::BrightRoad, 5.0, 5, 2048, 2048);
        const auto field = TraceField::compute(scene.image, {});
        TraceParams params;
        params.guides = guides;
        params.points = points;
        params.maxAngleDeg = angle;
        params.halfWidth = 100.0;
        params.maxWidenings = 0; // the optimum on these guides first; the widened run below
        const TracePoint a{560.5, 900.25}, b{1420.75, 1160.5};
        JobControl j1, j2;
        const TraceLeg cpu = tracerFor(Backend::Cpu, field)->trace(a, b, params, j1);
        const TraceLeg gpu = tracerFor(Backend::Cuda, field)->trace(a, b, params, j2);
        test::verifyLeg(*field, gpu, a, b, params);
        QVERIFY2(closeRelative(gpu.meanScore, cpu.meanScore),
                 qPrintable(QString("cuda %1, cpu %2 (mean score)").arg(gpu.meanScore).arg(cpu.meanScore)));
        // With the default widening both backends widen the same way and reach the same optimum; with
        // --guides auto as well, the same refinements and the same optimum.
        TraceParams widening = params;
        widening.maxWidenings = TraceParams{}.maxWidenings;
        TraceParams adaptive = widening;
        adaptive.autoGuides = true;
        struct Agreement {
            const TraceParams& params;
            int TraceLeg::*count; // what both backends do as often: widen, refine
            const char* what;
        };
        for (const Agreement& c : {Agreement{widening, &TraceLeg::widened, "widened mean score"},
                                   Agreement{adaptive, &TraceLeg::refined, "guides auto"}}) {
            JobControl cpuJob, gpuJob;
            const TraceLeg cpuLeg = tracerFor(Backend::Cpu, field)->trace(a, b, c.params, cpuJob);
            const TraceLeg gpuLeg = tracerFor(Backend::Cuda, field)->trace(a, b, c.params, gpuJob);
            QCOMPARE(gpuLeg.*c.count, cpuLeg.*c.count);
            QCOMPARE(gpuLeg.guideIndices.size(), cpuLeg.guideIndices.size());
            QVERIFY2(closeRelative(gpuLeg.meanScore, cpuLeg.meanScore),
                     qPrintable(QString("cuda %1, cpu %2 (%3)").arg(gpuLeg.meanScore).arg(cpuLeg.meanScore).arg(c.what)));
        }
        params.objective = TraceObjective::Sum;
        JobControl j3, j4;
        const TraceLeg cpuSum = tracerFor(Backend::Cpu, field)->trace(a, b, params, j3);
        const TraceLeg gpuSum = tracerFor(Backend::Cuda, field)->trace(a, b, params, j4);
        QVERIFY2(close(gpuSum.score, cpuSum.score), qPrintable(QString("cuda %1, cpu %2").arg(gpuSum.score).arg(cpuSum.score)));
        qInfo("n%d d%d: cuda %.3f ms (segments %.3f, dp %.3f), cpu %.1f ms", guides, points, j2.timing().total(),
              j2.timing().step("segment scores"), j2.timing().step("dp"), j1.timing().total());
    }

    // One cuda tracer, many traces: buffers grow and shrink, the field changes, results stay cpu's.
    void cudaReuseAcrossSizesAndFields() {
        GLINT_REQUIRE_CUDA();
        std::mt19937 rng(21);
        const auto f1 = fieldForMode(1, 256, 256, rng), f2 = fieldForMode(3, 200, 300, rng);
        auto gpu = BackendRegistry<LineTracer>::create(Backend::Cuda);
        auto cpu = BackendRegistry<LineTracer>::create(Backend::Cpu);
        for (int i = 0; i < 12; ++i) {
            const auto& f = i % 3 == 2 ? f2 : f1;
            JobControl setup;
            gpu->setField(f, setup);
            cpu->setField(f, setup);
            TraceParams params;
            params.guides = 1 + static_cast<int>(rng() % 9);
            params.points = 2 + static_cast<int>(rng() % 400);
            params.maxAngleDeg = 5.0 + rng() % 176;
            params.objective = i % 2 ? TraceObjective::Sum : TraceObjective::Ratio;
            const TracePoint a = test::randomPoint(f->width(), f->height(), rng);
            const TracePoint b = test::randomPoint(f->width(), f->height(), rng);
            JobControl j1, j2;
            try {
                const TraceLeg c = cpu->trace(a, b, params, j1);
                const TraceLeg g = gpu->trace(a, b, params, j2);
                QVERIFY2(closeRelative(test::objectiveValue(g, params), test::objectiveValue(c, params)),
                         qPrintable(QString("trace %1: cuda %2, cpu %3").arg(i).arg(g.score).arg(c.score)));
            } catch (const UsageError&) {
                QVERIFY_THROWS_EXCEPTION(UsageError, gpu->trace(a, b, params, j2)); // infeasible on both
            }
        }
    }

    // --via: each leg is the optimum between its own clicks; the polyline shares the click points.
    void chainedLegs() {
        std::mt19937 rng(7);
        const auto field = fieldForMode(1, 150, 100, rng);
        const std::vector<TracePoint> clicks = {{10.25, 20.5}, {70.0, 80.75}, {140.5, 15.0}, {100.0, 95.5}};
        TraceParams params;
        params.guides = 4;
        params.points = 32;
        auto tracer = tracerFor(Backend::Cpu, field);
        JobControl job;
        const TraceResult chain = tracer->traceChain(clicks, params, job);
        QCOMPARE(chain.legs.size(), std::size_t(3));
        const auto line = chain.polyline();
        QCOMPARE(static_cast<int>(line.size()), 3 * (params.guides + 1) + 1);
        QCOMPARE(static_cast<int>(chain.segmentScores().size()), 3 * (params.guides + 1));
        double total = 0.0;
        for (std::size_t i = 0; i < chain.legs.size(); ++i) {
            JobControl single;
            const TraceLeg alone = tracer->trace(clicks[i], clicks[i + 1], params, single);
            QCOMPARE(chain.legs[i].score, alone.score);
            QCOMPARE(chain.legs[i].points.front().x, clicks[i].x);
            QCOMPARE(chain.legs[i].points.back().y, clicks[i + 1].y);
            total += alone.score;
        }
        QCOMPARE(chain.score, total);
        QCOMPARE(line[params.guides + 1].x, clicks[1].x);
        QCOMPARE(job.progress(), 1.0);
    }
};

GLINT_BACKEND_TEST_MAIN(TestTraceOptimum)
#include "test_trace_optimum.moc"
