// Line trace, reference and cpu backends: the exact optimum against a brute force over every path, the
// interval form of the turn test, points on their guides, chained legs, fields, cancel and bad input.
#include "tests/support/TestSupport.h"
#include "tests/cpu/test_trace_support.h"

#include "cuda/Backends.h"
#include "core/algo/trace/TraceGeometry.h"
#include "core/util/Errors.h"

#include <QtTest>

using namespace glint;

namespace {

std::unique_ptr<LineTracer> tracerFor(Backend backend, std::shared_ptr<const TraceField> field) {
    auto tracer = BackendRegistry<LineTracer>::create(backend);
    JobControl job;
    tracer->setField(std::move(field), job);
    return tracer;
}

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

} // namespace

class TestTrace : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { initBackends(); }

    // Every backend's optimum equals the brute force over all d^n paths, for every kind of angle limit.
    void bruteForce_data() {
        QTest::addColumn<int>("guides");
        QTest::addColumn<int>("points");
        QTest::addColumn<double>("angle");
        QTest::addColumn<int>("mode");
        QTest::addColumn<double>("halfWidth");
        QTest::addColumn<uint>("seed");
        const std::vector<std::pair<int, int>> shapes = {{1, 2}, {1, 9}, {2, 2}, {2, 7}, {3, 5}, {4, 4}, {5, 3}, {5, 5}, {6, 3}};
        const double angles[] = {0.5, 5, 20, 45, 60, 90, 135, 179, 180};
        uint seed = 1;
        for (auto [n, d] : shapes)
            for (double angle : angles) {
                const int mode = static_cast<int>(seed % 4);
                const double halfWidth = seed % 3 == 0 ? 0.0 : seed % 3 == 1 ? 3.5 : 19.0;
                QTest::addRow("n%d d%d angle %g mode %d w %g", n, d, angle, mode, halfWidth)
                    << n << d << angle << mode << halfWidth << seed;
                ++seed;
            }
    }
    void bruteForce() {
        QFETCH(int, guides);
        QFETCH(int, points);
        QFETCH(double, angle);
        QFETCH(int, mode);
        QFETCH(double, halfWidth);
        QFETCH(uint, seed);
        std::mt19937 rng(seed);
        const auto field = fieldForMode(mode, 37, 29, rng);
        TraceParams params;
        params.guides = guides;
        params.points = points;
        params.maxAngleDeg = angle;
        params.halfWidth = halfWidth;
        TracePoint a = test::randomPoint(37, 29, rng), b = test::randomPoint(37, 29, rng);
        const double best = test::bruteForceBest(*field, a, b, params);
        for (Backend backend : {Backend::Reference, Backend::Cpu}) {
            auto tracer = tracerFor(backend, field);
            JobControl job;
            if (!std::isfinite(best)) {
                QVERIFY_THROWS_EXCEPTION(UsageError, tracer->trace(a, b, params, job));
                continue;
            }
            const TraceLeg leg = tracer->trace(a, b, params, job);
            test::verifyLeg(*field, leg, a, b, params);
            QVERIFY2(std::fabs(leg.score - best) <= 1e-4 * std::max(1.0, std::fabs(best)),
                     qPrintable(QString("%1: %2 vs brute force %3").arg(backendName(backend)).arg(leg.score).arg(best)));
            QVERIFY(std::fabs(leg.optimumScore - leg.score) <= 1e-4 * std::max(1.0, std::fabs(leg.score)));
        }
    }

    // The claim behind the fast DPs: on a straight guide, the predecessors that the turn test accepts form
    // exactly the interval the geometry hands out (checked against the predicate for every triple).
    void turnIntervalsAreExact_data() {
        QTest::addColumn<double>("angle");
        QTest::addColumn<uint>("seed");
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

    // Larger cases: cpu (float, interval DP) against reference (double, cubic DP).
    void cpuMatchesReference_data() {
        QTest::addColumn<int>("guides");
        QTest::addColumn<int>("points");
        QTest::addColumn<double>("angle");
        QTest::addColumn<int>("mode");
        const int modes = 4;
        int row = 0;
        for (auto [n, d] : std::vector<std::pair<int, int>>{{1, 64}, {2, 33}, {3, 48}, {6, 40}, {8, 32}})
            for (double angle : {10.0, 45.0, 180.0}) {
                QTest::addRow("n%d d%d angle %g", n, d, angle) << n << d << angle << row % modes;
                ++row;
            }
    }
    void cpuMatchesReference() {
        QFETCH(int, guides);
        QFETCH(int, points);
        QFETCH(double, angle);
        QFETCH(int, mode);
        std::mt19937 rng(guides * 1000 + points);
        const auto field = fieldForMode(mode, 120, 90, rng);
        TraceParams params;
        params.guides = guides;
        params.points = points;
        params.maxAngleDeg = angle;
        const TracePoint a = test::randomPoint(120, 90, rng), b = test::randomPoint(120, 90, rng);
        JobControl j1, j2;
        const TraceLeg ref = tracerFor(Backend::Reference, field)->trace(a, b, params, j1);
        const TraceLeg cpu = tracerFor(Backend::Cpu, field)->trace(a, b, params, j2);
        test::verifyLeg(*field, cpu, a, b, params);
        QVERIFY2(std::fabs(ref.score - cpu.score) <= 1e-4 * std::max(1.0, ref.score),
                 qPrintable(QString("reference %1, cpu %2").arg(ref.score).arg(cpu.score)));
        QVERIFY(j2.timing().step("segment scores") > 0.0);
        QVERIFY(j2.timing().total() > 0.0);
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

    // Fields: the Sobel gradient of a ramp is its slope; a bright line's ridge field points across it and
    // peaks on its centre; blanks neither crash nor make edges.
    void fields() {
        std::vector<double> ramp(40 * 30);
        for (int y = 0; y < 30; ++y)
            for (int x = 0; x < 40; ++x) ramp[y * 40 + x] = 3.0 * x - 2.0 * y;
        const auto magnitude = TraceField::compute(Image::fromSamples<double>(40, 30, ramp), {});
        const float* g = magnitude->vectors() + 2 * (15 * 40 + 20);
        QVERIFY(std::fabs(g[0] - 3.0f) < 1e-5f && std::fabs(g[1] + 2.0f) < 1e-5f);

        std::vector<double> line(60 * 60, 10.0);
        for (int y = 0; y < 60; ++y)
            for (int x = 28; x <= 32; ++x) line[y * 60 + x] = 110.0; // vertical bright line, width 5, centre 30
        TraceFieldOptions ridge;
        ridge.score = TraceScore::Ridge;
        ridge.polarity = TracePolarity::Bright;
        const auto field = TraceField::compute(Image::fromSamples<double>(60, 60, line), ridge);
        auto strength = [&](int x) { return std::hypot(field->vectors()[2 * (30 * 60 + x)], field->vectors()[2 * (30 * 60 + x) + 1]); };
        QVERIFY(strength(30) > strength(27) && strength(30) > strength(33) && strength(30) > 10.0);
        QVERIFY(std::fabs(field->vectors()[2 * (30 * 60 + 30) + 1]) < 1e-3 * strength(30)); // normal along x
        ridge.polarity = TracePolarity::Dark;
        const auto dark = TraceField::compute(Image::fromSamples<double>(60, 60, line), ridge);
        QCOMPARE(dark->vectors()[2 * (30 * 60 + 30)], 0.0f);

        std::mt19937 rng(3);
        Image blanky = test::randomFloatImage(50, 40, 0.0, 100.0, rng, 0.05);
        for (TraceScore score : {TraceScore::Magnitude, TraceScore::Sine, TraceScore::Ridge}) {
            TraceFieldOptions options;
            options.score = score;
            const auto f = TraceField::compute(blanky, options);
            for (std::size_t i = 0; i < 2 * blanky.pixelCount(); ++i) QVERIFY(std::isfinite(f->vectors()[i]));
            for (std::size_t i = 0; i < blanky.pixelCount(); ++i)
                if (blanky.isBlank(i)) QCOMPARE(f->vectors()[2 * i], 0.0f);
            JobControl job;
            TraceParams params;
            params.points = 64;
            QVERIFY(tracerFor(Backend::Cpu, f)->trace({2, 3}, {45, 36}, params, job).score >= 0.0);
        }
        TraceFieldOptions sine;
        sine.score = TraceScore::Sine;
        const auto s = TraceField::compute(blanky, sine);
        QVERIFY(s->sineThreshold() > 0.0);
    }

    void cancel() {
        std::mt19937 rng(5);
        const auto field = test::randomField(200, 200, rng);
        TraceParams params;
        params.points = 128;
        for (Backend backend : {Backend::Reference, Backend::Cpu}) {
            JobControl job;
            job.requestCancel();
            QVERIFY_THROWS_EXCEPTION(Cancelled, tracerFor(backend, field)->trace({10, 10}, {190, 150}, params, job));
        }
    }

    void badInput() {
        std::mt19937 rng(9);
        const auto field = test::randomField(50, 40, rng);
        auto tracer = tracerFor(Backend::Cpu, field);
        auto expectUsage = [&](TracePoint a, TracePoint b, TraceParams p) {
            JobControl job;
            QVERIFY_THROWS_EXCEPTION(UsageError, tracer->trace(a, b, p, job));
        };
        const TraceParams ok;
        expectUsage({5, 5}, {5, 5}, ok);                  // equal points
        expectUsage({5, 5}, {50.0, 5}, ok);               // outside (x > W - 0.5)
        expectUsage({-0.6, 5}, {20, 5}, ok);
        expectUsage({5, std::nan("")}, {20, 5}, ok);
        TraceParams p = ok;
        p.points = 1;
        expectUsage({5, 5}, {20, 5}, p);
        p = ok;
        p.guides = 0;
        expectUsage({5, 5}, {20, 5}, p);
        for (double angle : {0.0, -5.0, 180.5, std::nan("")}) {
            p = ok;
            p.maxAngleDeg = angle;
            expectUsage({5, 5}, {20, 5}, p);
        }
        p = ok;
        p.halfWidth = -1;
        expectUsage({5, 5}, {20, 5}, p);
        p = ok;
        p.points = kMaxTracePoints + 1;
        expectUsage({5, 5}, {20, 5}, p);
        // Corners of the image are inside; a limit of exactly 180 degrees is valid.
        p = ok;
        p.maxAngleDeg = 180.0;
        p.points = 16;
        JobControl job;
        QVERIFY(tracer->trace({-0.5, -0.5}, {49.5, 39.5}, p, job).points.size() == 8);
        QVERIFY_THROWS_EXCEPTION(UsageError, parseTraceScore("edges"));
        QVERIFY_THROWS_EXCEPTION(UsageError, parseTracePolarity("light"));
        TraceFieldOptions options;
        options.lineWidth = 0.0;
        QVERIFY_THROWS_EXCEPTION(UsageError, validateTraceFieldOptions(options));
    }
};

QTEST_GUILESS_MAIN(TestTrace)
#include "test_trace.moc"
