// Brightest region's pivots and inputs: the mean, median, percentile and numeric pivots (8-bit samples by
// the histogram path), percentile pivots of float images bit for bit against their definition, the pivot
// sweep, usage errors and the CLI.
#include "tests/backends/test_brightest_support.h"
#include "tests/support/RegionChecks.h"
#include "tests/support/TestSupport.h"

#include "cuda/Backends.h"
#include "core/algo/brightest/Brightest.h"
#include "core/io/ImageStats.h"
#include "core/util/Errors.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QtTest>

#include <array>
#include <cmath>
#include <string>

using namespace glint;
using namespace glint::test::brightestsearch;

class TestBrightestPivots : public QObject {
    Q_OBJECT

private slots:
    void pivots() {
        std::mt19937 rng(11);
        for (bool floating : {false, true}) {
            Image im = floating ? test::randomFloatImage(37, 23, -5, 50, rng, 0.1) : test::randomIntImage(37, 23, 0, 200, rng, 0.1);
            BrightestParams p;
            p.excludeRects.push_back({3, 3, 5, 5});
            const auto mask = exclusionMask(im, p);
            std::vector<double> values;
            long double sum = 0;
            for (std::size_t i = 0; i < im.pixelCount(); ++i)
                if (!mask[i]) {
                    values.push_back(im.value(i));
                    sum += im.value(i);
                }
            QCOMPARE(computePivot(im, p), static_cast<double>(sum / values.size()));
            p.pivot = PivotSpec::parse("median");
            auto v = values;
            QCOMPARE(computePivot(im, p), percentileOf(v, 50));
            p.pivot = PivotSpec::parse("p90");
            v = values;
            QCOMPARE(computePivot(im, p), percentileOf(v, 90));
            p.pivot = PivotSpec::parse("-7.5");
            QCOMPARE(computePivot(im, p), -7.5);
        }
        // 8-bit samples take the histogram path: same values as the general one.
        std::vector<std::uint8_t> bytes(29 * 31);
        for (auto& b : bytes) b = static_cast<std::uint8_t>(rng() % 256);
        const Image u8 = Image::fromSamples<std::uint8_t>(29, 31, bytes);
        for (const char* spec : {"mean", "median", "p0", "p33.3", "p100"}) {
            BrightestParams p;
            p.pivot = PivotSpec::parse(spec);
            std::vector<double> values(bytes.begin(), bytes.end());
            const double expected = std::string(spec) == "mean" ? computeStats(u8).mean
                                                                : percentileOf(values, std::string(spec) == "median" ? 50 : std::stod(spec + 1));
            QCOMPARE(computePivot(u8, p), expected);
        }
    }

    void usageErrors() {
        const Image im = test::randomIntImage(10, 10, -5, 5, test::Seed{5});
        BrightestParams p;
        p.k = 0;
        QVERIFY_THROWS_EXCEPTION(UsageError, run(im, p, Backend::Cpu));
        p.k = 1;
        p.roi = PixelRect{5, 5, 6, 2};
        QVERIFY_THROWS_EXCEPTION(UsageError, run(im, p, Backend::Reference));
        p.roi = PixelRect{-1, 0, 3, 3};
        QVERIFY_THROWS_EXCEPTION(UsageError, run(im, p, Backend::Reference));
        QVERIFY_THROWS_EXCEPTION(UsageError, PivotSpec::parse("nan"));
        QVERIFY_THROWS_EXCEPTION(UsageError, PivotSpec::parse("p101"));
        QVERIFY_THROWS_EXCEPTION(UsageError, PivotSpec::parse("bright"));
        QCOMPARE(PivotSpec::parse("p99.5").value, 99.5);
    }

    // Percentile pivots of float images (selected in parallel by radix passes) equal NumPy's definition as
    // percentileOf computes it, bit for bit: negative values, +-0, heavy ties, blanks, tiny and wide ranges.
    void percentilePivotsMatchTheDefinition() {
        std::mt19937 rng(21);
        for (int trial = 0; trial < 60; ++trial) {
            const int w = 1 + static_cast<int>(rng() % 300), h = 1 + static_cast<int>(rng() % 200);
            Image im;
            switch (trial % 4) {
            case 0: im = test::randomFloatImage(w, h, -1e6, 1e6, rng, 0.05); break;
            case 1: im = test::randomFloatImage(w, h, 200.0, 200.5, rng); break;
            case 2: { // heavy ties, both zeros
                std::vector<double> v(static_cast<std::size_t>(w) * h);
                for (auto& x : v) x = std::array<double, 4>{-0.0, 0.0, 3.5, -2.0}[rng() % 4];
                im = Image::fromSamples<double>(w, h, std::move(v));
                break;
            }
            default: { // wide dynamic range
                std::vector<float> v(static_cast<std::size_t>(w) * h);
                std::uniform_real_distribution<double> e(-30, 30);
                for (auto& x : v) x = static_cast<float>((rng() % 2 ? 1 : -1) * std::pow(10.0, e(rng)));
                im = Image::fromSamples<float>(w, h, std::move(v));
            }
            }
            std::vector<double> values = nonBlankValues(im);
            if (values.empty()) continue;
            for (const char* spec : {"p0", "p1", "median", "p37.5", "p99", "p99.9", "p100"}) {
                BrightestParams params;
                params.pivot = PivotSpec::parse(spec);
                std::vector<double> copy = values;
                const double expected = percentileOf(copy, params.pivot.kind == PivotSpec::Kind::Median ? 50.0 : params.pivot.value);
                const double got = computePivot(im, params);
                QVERIFY2(got == expected, qPrintable(QString("trial %1 %2: %3 vs %4").arg(trial).arg(spec).arg(got, 0, 'g', 17).arg(expected, 0, 'g', 17)));
            }
        }
    }

    void pivotSweep() {
        const Image im = test::randomIntImage(30, 20, 0, 100, test::Seed{9});
        const std::vector<PivotSpec> pivots = {PivotSpec::parse("mean"), PivotSpec::parse("p75"), PivotSpec::parse("90")};
        JobControl job;
        const auto sweep = runPivotSweep(im, BrightestParams{}, pivots, Backend::Cpu, job);
        QCOMPARE(sweep.size(), pivots.size());
        for (std::size_t i = 0; i < pivots.size(); ++i) {
            BrightestParams p;
            p.pivot = pivots[i];
            test::checkSameRegions(sweep[i], run(im, p, Backend::Reference));
        }
        QCOMPARE(job.progress(), 1.0);
    }

    void cli() {
        const QString dir = test::tempDir();
        const QString csv = test::writeTempFile("m.csv", test::brightestPaperCsv());
        const auto json = test::jsonOf;
        auto r = test::runCli({"brightest", csv, "--pivot", "0", "--json", "-", "--backend", "cpu"});
        QCOMPARE(r.exitCode, 0);
        QJsonObject doc = json(r);
        QCOMPARE(doc["algorithm"].toString(), QString("brightest"));
        QCOMPARE(doc["mode"].toString(), QString("disjoint"));
        QVERIFY(doc.contains("timing_ms") && doc.contains("device") && doc.contains("backend"));
        QCOMPARE(doc["image"].toObject()["width"].toInt(), 8);
        QCOMPARE(doc["regions"].toArray()[0].toObject()["sum"].toInteger(), 15);

        // --exclude and --exclude-polygon keep every region off those pixels.
        r = test::runCli({"brightest", csv, "--pivot", "0", "--k", "5", "--json", "-", "--exclude", "4,2,1,1",
                          "--exclude-polygon", "1.5,1.5,3.4,1.5,3.4,3.4"});
        QCOMPARE(r.exitCode, 0);
        const QJsonArray regions = json(r)["regions"].toArray();
        QVERIFY(!regions.isEmpty());
        for (const auto& v : regions) {
            const QJsonObject g = v.toObject();
            const int x = g["x"].toInt(), y = g["y"].toInt(), w = g["width"].toInt(), h = g["height"].toInt();
            QVERIFY(!(x <= 4 && 4 < x + w && y <= 2 && 2 < y + h));
            for (const auto& [px, py] : {std::pair{2, 2}, std::pair{3, 2}, std::pair{3, 3}})
                QVERIFY(!(x <= px && px < x + w && y <= py && py < y + h));
        }

        QCOMPARE(test::runCli({"brightest", csv, "--k", "0"}).exitCode, 2);
        QCOMPARE(test::runCli({"brightest", csv, "--k", "-3"}).exitCode, 2);
        QCOMPARE(test::runCli({"brightest", csv, "--pivot", "nan"}).exitCode, 2);
        QCOMPARE(test::runCli({"brightest", csv, "--roi", "6,0,5,2"}).exitCode, 2);
        QCOMPARE(test::runCli({"brightest", csv, "--mode", "sideways"}).exitCode, 2);
        QCOMPARE(test::runCli({"brightest", dir + "/missing.fits"}).exitCode, 3);
        r = test::runCli({"brightest", csv, "--pivot", "100", "--json", "-"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(json(r)["regions"].toArray().isEmpty());
        r = test::runCli({"brightest", csv, "--exclude", "0,0,8,4", "--json", "-"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(json(r)["regions"].toArray().isEmpty());
#if GLINT_WITH_IMGCODECS
        const QString png = dir + "/overlay.png";
        QCOMPARE(test::runCli({"brightest", csv, "--pivot", "0", "--k", "2", "--overlay", png}).exitCode, 0);
        QFile f(png);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY(f.read(8).startsWith("\x89PNG"));
#endif
    }
};

GLINT_BACKEND_TEST_MAIN(TestBrightestPivots)
#include "test_brightest_pivots.moc"
