// Line trace, cuda backend: the optimum against the brute force over every path and against the reference
// and cpu backends, from tiny to the paper's largest sizes (and the 4096-point shared-memory path), buffer
// reuse across sizes and fields, cancel, accuracy scenes and the CLI. Skipped without a usable device.
#include "tests/support/TestSupport.h"
#include "tests/cpu/test_trace_support.h"

#include "cuda/Backends.h"
#include "core/algo/trace/TraceScenes.h"
#include "core/util/Errors.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace glint;

namespace {

std::unique_ptr<LineTracer> tracerFor(Backend backend, std::shared_ptr<const TraceField> field) {
    auto tracer = BackendRegistry<LineTracer>::create(backend);
    JobControl job;
    tracer->setField(std::move(field), job);
    return tracer;
}

std::shared_ptr<const TraceField> fieldForMode(int mode, int width, int height, std::mt19937& rng) {
    if (mode == 0) return test::randomField(width, height, rng);
    Image image = test::randomIntImage(width, height, 0, 255, rng);
    TraceFieldOptions options;
    options.score = mode == 1 ? TraceScore::Magnitude : mode == 2 ? TraceScore::Sine : TraceScore::Ridge;
    options.polarity = static_cast<TracePolarity>(rng() % 3);
    return TraceField::compute(image, options);
}

bool close(double a, double b) { return std::fabs(a - b) <= 1e-4 * std::max(1.0, std::fabs(b)); }

} // namespace

class TestTraceCuda : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        if (!test::cudaUsable()) QSKIP("no usable CUDA device");
    }

    void bruteForce_data() {
        QTest::addColumn<int>("guides");
        QTest::addColumn<int>("points");
        QTest::addColumn<double>("angle");
        uint row = 0;
        for (auto [n, d] : std::vector<std::pair<int, int>>{{1, 2}, {1, 7}, {2, 6}, {3, 5}, {4, 4}, {5, 4}, {6, 3}})
            for (double angle : {0.5, 10.0, 45.0, 90.0, 150.0, 180.0}) {
                QTest::addRow("n%d d%d angle %g", n, d, angle) << n << d << angle;
                ++row;
            }
    }
    void bruteForce() {
        QFETCH(int, guides);
        QFETCH(int, points);
        QFETCH(double, angle);
        std::mt19937 rng(guides * 100 + points + static_cast<int>(angle));
        const auto field = fieldForMode(static_cast<int>(rng() % 4), 41, 33, rng);
        TraceParams params;
        params.guides = guides;
        params.points = points;
        params.maxAngleDeg = angle;
        params.halfWidth = rng() % 2 ? 0.0 : 25.0; // some guides reach outside the image
        const TracePoint a = test::randomPoint(41, 33, rng), b = test::randomPoint(41, 33, rng);
        const double best = test::bruteForceBest(*field, a, b, params);
        auto tracer = tracerFor(Backend::Cuda, field);
        JobControl job;
        if (!std::isfinite(best)) {
            QVERIFY_THROWS_EXCEPTION(UsageError, tracer->trace(a, b, params, job));
            return;
        }
        const TraceLeg leg = tracer->trace(a, b, params, job);
        test::verifyLeg(*field, leg, a, b, params);
        QVERIFY2(close(leg.score, best), qPrintable(QString("cuda %1, brute force %2").arg(leg.score).arg(best)));
        QVERIFY(close(leg.optimumScore, leg.score));
        QVERIFY(job.timing().step("segment scores") > 0.0);
        QCOMPARE(QString::fromStdString(job.device()), QString::fromStdString(cudaDevice().name));
    }

    void matchesReference_data() {
        QTest::addColumn<int>("guides");
        QTest::addColumn<int>("points");
        QTest::addColumn<double>("angle");
        QTest::addColumn<int>("mode");
        int row = 0;
        for (auto [n, d] : std::vector<std::pair<int, int>>{{1, 256}, {2, 100}, {3, 64}, {5, 128}, {8, 96}, {12, 33}})
            for (double angle : {10.0, 45.0, 180.0}) {
                QTest::addRow("n%d d%d angle %g", n, d, angle) << n << d << angle << row % 4;
                ++row;
            }
    }
    void matchesReference() {
        QFETCH(int, guides);
        QFETCH(int, points);
        QFETCH(double, angle);
        QFETCH(int, mode);
        std::mt19937 rng(guides * 7 + points);
        const auto field = fieldForMode(mode, 300, 200, rng);
        TraceParams params;
        params.guides = guides;
        params.points = points;
        params.maxAngleDeg = angle;
        const TracePoint a = test::randomPoint(300, 200, rng), b = test::randomPoint(300, 200, rng);
        JobControl j1, j2;
        const TraceLeg ref = tracerFor(Backend::Reference, field)->trace(a, b, params, j1);
        const TraceLeg gpu = tracerFor(Backend::Cuda, field)->trace(a, b, params, j2);
        test::verifyLeg(*field, gpu, a, b, params);
        QVERIFY2(close(gpu.score, ref.score), qPrintable(QString("cuda %1, reference %2").arg(gpu.score).arg(ref.score)));
    }

    // The paper's largest case and the 4096-point case (shared memory above 48 KB), against cpu.
    void largeMatchesCpu_data() {
        QTest::addColumn<int>("guides");
        QTest::addColumn<int>("points");
        QTest::addColumn<double>("angle");
        QTest::newRow("n8 d1024 45") << 8 << 1024 << 45.0;
        QTest::newRow("n8 d1024 180") << 8 << 1024 << 180.0;
        QTest::newRow("n3 d4096 30") << 3 << 4096 << 30.0;
        QTest::newRow("n40 d512 60") << 40 << 512 << 60.0;
    }
    void largeMatchesCpu() {
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
        const TracePoint a{560.5, 900.25}, b{1420.75, 1160.5};
        JobControl j1, j2;
        const TraceLeg cpu = tracerFor(Backend::Cpu, field)->trace(a, b, params, j1);
        const TraceLeg gpu = tracerFor(Backend::Cuda, field)->trace(a, b, params, j2);
        test::verifyLeg(*field, gpu, a, b, params);
        QVERIFY2(close(gpu.score, cpu.score), qPrintable(QString("cuda %1, cpu %2").arg(gpu.score).arg(cpu.score)));
        qInfo("n%d d%d: cuda %.3f ms (segments %.3f, dp %.3f), cpu %.1f ms", guides, points, j2.timing().total(),
              j2.timing().step("segment scores"), j2.timing().step("dp"), j1.timing().total());
    }

    // One tracer, many traces: buffers grow and shrink, the field changes, results stay right.
    void reuseAcrossSizesAndFields() {
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
            const TracePoint a = test::randomPoint(f->width(), f->height(), rng);
            const TracePoint b = test::randomPoint(f->width(), f->height(), rng);
            JobControl j1, j2;
            try {
                const TraceLeg c = cpu->trace(a, b, params, j1);
                const TraceLeg g = gpu->trace(a, b, params, j2);
                QVERIFY2(close(g.score, c.score), qPrintable(QString("trace %1: cuda %2, cpu %3").arg(i).arg(g.score).arg(c.score)));
            } catch (const UsageError&) {
                QVERIFY_THROWS_EXCEPTION(UsageError, gpu->trace(a, b, params, j2)); // infeasible on both
            }
        }
    }

    void cancel() {
        std::mt19937 rng(2);
        auto tracer = tracerFor(Backend::Cuda, test::randomField(512, 512, rng));
        JobControl job;
        job.requestCancel();
        TraceParams params;
        params.guides = 8;
        params.points = 512;
        QVERIFY_THROWS_EXCEPTION(Cancelled, tracer->traceChain({{10, 10}, {500, 400}}, params, job));
    }

    void accuracy() {
        for (auto [kind, width] : std::vector<std::pair<TraceSceneKind, double>>{
                 {TraceSceneKind::BrightRoad, 3}, {TraceSceneKind::DarkRiver, 6}, {TraceSceneKind::TexturedBoundary, 0}}) {
            const TraceScene scene = makeTraceScene(kind, width, 11);
            TraceFieldOptions options;
            options.score = kind == TraceSceneKind::TexturedBoundary ? TraceScore::Magnitude : TraceScore::Ridge;
            options.lineWidth = width > 0 ? width : 5.0;
            auto tracer = tracerFor(Backend::Cuda, TraceField::compute(scene.image, options));
            JobControl job;
            TraceParams params;
            params.guides = 8;
            const TraceLeg leg = tracer->trace(scene.from, scene.to, params, job);
            const double distance = meanDistanceToPolylines(
                leg.points, options.score == TraceScore::Ridge ? std::vector<std::vector<TracePoint>>{scene.centre} : scene.edges);
            QVERIFY2(distance <= 1.5, qPrintable(QString::fromStdString(scene.name) + QString(": %1 px").arg(distance)));
        }
    }

    void cli() {
        const QString path = test::tempDir() + "/m.csv";
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            for (int y = 0; y < 50; ++y) {
                QStringList row;
                for (int x = 0; x < 70; ++x) row << QString::number((x * 13 + y * 7) % 17 + (std::abs(y - 25) < 2 ? 100 : 0));
                f.write(row.join(',').toUtf8() + "\n");
            }
        }
        const auto r = test::runCli({"trace", path, "--from", "3,25", "--to", "66,25", "--backend", "cuda", "--json", "-"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject doc = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(doc["backend"].toString(), QString("cuda"));
        QCOMPARE(doc["points"].toArray().size(), 8);
    }
};

QTEST_GUILESS_MAIN(TestTraceCuda)
#include "test_trace_cuda.moc"
