// Line trace's fields and inputs: the fields (a ramp's gradient, a line's ridge, blanks), a cancelled job
// on every backend (reference, cpu, cuda; the cuda rows skip without a usable device), bad input, and the
// CLI's backend choice.
#include "tests/backends/test_trace_support.h"
#include "tests/support/TestSupport.h"
#include "tests/support/TraceOracle.h"

#include "cuda/Backends.h"
#include "core/util/Errors.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QtTest>

#include <cmath>
#include <random>
#include <vector>

using namespace glint;
using test::tracerFor;

class TestTraceInputs : public QObject {
    Q_OBJECT

private slots:
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

        Image blanky = test::randomFloatImage(50, 40, 0.0, 100.0, test::Seed{3}, 0.05);
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

    // A job cancelled before it starts throws Cancelled, for a single leg and for a chain.
    void cancel_data() { test::addBackendRows(); }
    void cancel() {
        GLINT_FETCH_BACKEND(backend);
        std::mt19937 rng(5);
        TraceParams params;
        params.points = 128;
        {
            JobControl job;
            job.requestCancel();
            QVERIFY_THROWS_EXCEPTION(Cancelled, tracerFor(backend, test::randomField(200, 200, rng))->trace({10, 10}, {190, 150}, params, job));
        }
        params.guides = 8;
        params.points = 512;
        JobControl job;
        job.requestCancel();
        QVERIFY_THROWS_EXCEPTION(Cancelled,
                                 tracerFor(backend, test::randomField(512, 512, rng))->traceChain({{10, 10}, {500, 400}}, params, job));
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

    // glint-cli trace --backend: the named backend runs, and the JSON says so.
    void cliBackend_data() { test::addBackendRows(); }
    void cliBackend() {
        GLINT_FETCH_BACKEND(backend);
        QByteArray text;
        for (int y = 0; y < 50; ++y) {
            QStringList row;
            for (int x = 0; x < 70; ++x) row << QString::number((x * 13 + y * 7) % 17 + (std::abs(y - 25) < 2 ? 100 : 0));
            text += row.join(',').toUtf8() + "\n";
        }
        const QString path = test::writeTempFile("m.csv", text);
        const QJsonObject doc =
            test::runCliJson({"trace", path, "--from", "3,25", "--to", "66,25", "--backend", backendName(backend), "--json", "-"});
        QCOMPARE(doc["backend"].toString(), QString(backendName(backend)));
        QCOMPARE(doc["points"].toArray().size(), 8);
    }
};

GLINT_BACKEND_TEST_MAIN(TestTraceInputs)
#include "test_trace_inputs.moc"
