// The cuda backend of the common component against the reference (small pairs of every shape, tolerance,
// blanks, maximum shift, 8-, 16- and 32-bit codes) and against the cpu backend on sizes where the GPU
// labeller needs many strips and the bound prunes for real.
#include "tests/support/TestSupport.h"
#include "tests/cpu/test_common_checks.h"

#include "cuda/Backends.h"
#include "core/algo/common/CommonComponent.h"
#include "core/algo/common/CommonComponentCases.h"
#include "core/util/Errors.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <chrono>
#include <random>
#include <thread>

using namespace glint;
using glint::test::checkComponent;
using glint::test::runCommon;

class TestCommonComponentCuda : public QObject {
    Q_OBJECT

private:
    // cuda against the reference (small) or the cpu backend (larger), and a valid component.
    static void compare(const Image& a, const Image& b, const CommonComponentParams& p, Backend oracle) {
        const auto expected = runCommon(a, b, p, oracle);
        const auto got = runCommon(a, b, p, Backend::Cuda);
        checkComponent(a, b, p, got);
        if (got.size != expected.size)
            qWarning("A %dx%d, B %dx%d, t %g, shift %lld: cuda %llu, %s %llu", a.width(), a.height(), b.width(),
                     b.height(), p.tolerance, p.maxShift, static_cast<unsigned long long>(got.size),
                     backendName(oracle), static_cast<unsigned long long>(expected.size));
        QCOMPARE(got.size, expected.size);
        QCOMPARE(got.stats.offsets, expected.stats.offsets);
        QCOMPARE(got.stats.prunedByArea + got.stats.prunedByBound + got.stats.prunedByCount + got.stats.labelled,
                 got.stats.offsets);
    }

private slots:
    void initTestCase() {
        if (!test::cudaUsable()) QSKIP("no usable CUDA device");
    }

    void paperExample() {
        std::vector<std::int32_t> a = {1, 1, 8, 3, 13, 1, 4, 6, 20, 6, 25, 7, 5, 25, 2};
        std::vector<std::int32_t> b = {13, 18, 14, 6, 20, 2, 5, 7, 2};
        const Image ia = Image::fromSamples<std::int32_t>(3, 5, a), ib = Image::fromSamples<std::int32_t>(3, 3, b);
        const auto r = runCommon(ia, ib, {}, Backend::Cuda);
        checkComponent(ia, ib, {}, r);
        QCOMPARE(r.size, std::uint64_t(4));
        QCOMPARE(r.dx, -1);
        QCOMPARE(r.dy, -1);
    }

    void bruteForceAgainstReference_data() {
        QTest::addColumn<int>("seed");
        for (int s = 0; s < 8; ++s) QTest::newRow(qPrintable(QString("batch %1").arg(s))) << s;
    }
    void bruteForceAgainstReference() {
        QFETCH(int, seed);
        std::mt19937 rng(777 + seed);
        std::uniform_int_distribution<int> side(1, 12), values(2, 4), coin(0, 3);
        for (int i = 0; i < 50; ++i) {
            const int v = values(rng);
            const double blanks = coin(rng) == 0 ? 0.15 : 0.0;
            const Image a = test::randomIntImage(side(rng), side(rng), 0, v - 1, rng, blanks);
            const Image b = test::randomIntImage(side(rng), side(rng), 0, v - 1, rng, blanks);
            CommonComponentParams p;
            p.tolerance = coin(rng) == 0 ? 1.0 : 0.0;
            if (coin(rng) == 0) p.maxShift = coin(rng) + coin(rng);
            compare(a, b, p, Backend::Reference);
            if (QTest::currentTestFailed()) return;
        }
    }

    void widerShapesAgainstReference() {
        // Words of 32 pixels: widths on both sides of multiples of 32, B shifted by every bit position.
        std::mt19937 rng(8);
        const int shapes[][4] = {{31, 9, 33, 7}, {33, 6, 31, 8}, {65, 5, 64, 6}, {97, 4, 40, 9}, {130, 3, 70, 5}};
        for (const auto& s : shapes)
            for (int values : {2, 3})
                for (double t : {0.0, 1.0}) {
                    const Image a = test::randomIntImage(s[0], s[1], 0, values - 1, rng, 0.03);
                    const Image b = test::randomIntImage(s[2], s[3], 0, values - 1, rng);
                    CommonComponentParams p;
                    p.tolerance = t;
                    compare(a, b, p, Backend::Reference);
                    if (QTest::currentTestFailed()) return;
                }
    }

    void manyStrips() {
        // Overlaps hundreds of pixels wide or tall: the GPU labeller carries components across strips.
        std::mt19937 rng(9);
        const Image a = test::randomIntImage(600, 40, 0, 1, rng);
        const Image b = test::randomIntImage(620, 36, 0, 1, rng);
        compare(a, b, {}, Backend::Cpu);
        const Image tallA = test::randomIntImage(24, 700, 0, 1, rng, 0.02);
        const Image tallB = test::randomIntImage(20, 650, 0, 1, rng);
        compare(tallA, tallB, {}, Backend::Cpu);
        CommonComponentParams p;
        p.tolerance = 1.0;
        const Image c = test::randomIntImage(300, 50, 0, 4, rng);
        const Image d = test::randomIntImage(280, 60, 0, 4, rng);
        compare(c, d, p, Backend::Cpu);
    }

    void sixteenBitCodes() {
        std::mt19937 rng(10);
        const Image a = test::randomIntImage(40, 30, 0, 999, rng, 0.05);
        Image b = test::randomIntImage(35, 33, 0, 999, rng);
        for (double t : {0.0, 2.5, 40.0}) {
            CommonComponentParams p;
            p.tolerance = t;
            compare(a, b, p, Backend::Reference);
        }
    }

    void thirtyTwoBitCodesCrop() {
        // More than 65533 distinct values: 32-bit codes. A is a crop of B.
        std::mt19937 rng(12);
        const Image source = test::randomFloatImage(320, 240, 0.0, 1.0, rng);
        std::vector<double> crop;
        for (int y = 77; y < 77 + 40; ++y)
            for (int x = 123; x < 123 + 50; ++x) crop.push_back(source.value(x, y));
        const Image a = Image::fromSamples<double>(50, 40, crop);
        const auto r = runCommon(a, source, {}, Backend::Cuda);
        checkComponent(a, source, {}, r);
        QCOMPARE(r.size, std::uint64_t(2000));
        QCOMPARE(r.dx, 123);
        QCOMPARE(r.dy, 77);
        CommonComponentParams p;
        p.tolerance = 0.01;
        const auto t = runCommon(a, source, p, Backend::Cuda);
        checkComponent(a, source, p, t);
        QVERIFY(t.size >= 2000);
        QCOMPARE(t.size, runCommon(a, source, p, Backend::Cpu).size);
    }

    void floatsWithTolerance() {
        std::mt19937 rng(13);
        for (int i = 0; i < 12; ++i) {
            const Image a = test::randomFloatImage(5 + i, 4 + i % 5, -1.0, 1.0, rng, i % 3 == 0 ? 0.1 : 0.0);
            const Image b = test::randomFloatImage(7 + i % 4, 3 + i, -1.0, 1.0, rng);
            CommonComponentParams p;
            p.tolerance = 0.05 * (i % 4);
            compare(a, b, p, Backend::Reference);
        }
    }

    void cropsKnownAnswer() {
        const auto [a, b] = common_component::overlappingCrops(192);
        const auto r = runCommon(a, b, {}, Backend::Cuda);
        checkComponent(a, b, {}, r);
        QCOMPARE(r.size, std::uint64_t(96 * 96));
        QCOMPARE(r.dx, -96);
        QCOMPARE(r.dy, -96);
        QCOMPARE(r.size, runCommon(a, b, {}, Backend::Cpu).size);
        QVERIFY(r.stats.labelled < r.stats.offsets / 100); // the bound prunes almost everything
    }

    void randomValuesAgainstCpu() {
        const auto [a, b] = common_component::randomValuePair(96, 4, 3);
        compare(a, b, {}, Backend::Cpu);
        const auto [c, d] = common_component::randomValuePair(48, 2, 4);
        compare(c, d, {}, Backend::Reference);
    }

    void identicalAndNoMatch() {
        std::mt19937 rng(14);
        const Image a = test::randomIntImage(70, 50, 0, 9, rng);
        const auto r = runCommon(a, a, {}, Backend::Cuda);
        QCOMPARE(r.size, std::uint64_t(3500));
        QCOMPARE(r.dx, 0);
        QCOMPARE(r.dy, 0);
        const Image ones = Image::fromSamples<std::int32_t>(9, 9, std::vector<std::int32_t>(81, 1));
        const Image twos = Image::fromSamples<std::int32_t>(7, 9, std::vector<std::int32_t>(63, 2));
        const auto none = runCommon(ones, twos, {}, Backend::Cuda);
        QVERIFY(!none.found);
        QCOMPARE(none.size, std::uint64_t(0));
        Image blank = ones;
        blank.setBlankMask(std::vector<std::uint8_t>(81, 1));
        QVERIFY(!runCommon(blank, ones, {}, Backend::Cuda).found);
    }

    void cancelStopsTheSearch() {
        const auto [a, b] = common_component::randomValuePair(128, 4, 5);
        JobControl job;
        job.requestCancel();
        QVERIFY_THROWS_EXCEPTION(Cancelled, findCommonComponent(a, b, {}, Backend::Cuda, job));
    }

    void cancelWhileRunning() {
        // Cancel requested inside the run (its first progress report): the search must stop with Cancelled,
        // whatever the device's speed; the 100 ms target is a bench row (glint-cli bench cancel).
        const auto [a, b] = common_component::randomValuePair(448, 4, 6);
        JobControl job;
        test::CancelInsideRun cancel(job);
        QVERIFY_THROWS_EXCEPTION(Cancelled, findCommonComponent(a, b, {}, Backend::Cuda, job));
        QVERIFY(cancel.requested());
        const double latency = cancel.msSinceRequest();
        qInfo("cancel latency %.2f ms", latency);
        QVERIFY(latency < 1000.0);
        // The workspace is fine afterwards.
        const auto [c, d] = common_component::randomValuePair(40, 3, 7);
        compare(c, d, {}, Backend::Reference);
    }

    void cliWithCuda() {
        const QString a = test::tempDir() + "/gpu_a.csv", b = test::tempDir() + "/gpu_b.csv";
        for (const auto& [path, text] : {std::pair{a, QByteArray("1,1,8\n3,13,1\n4,6,20\n6,25,7\n5,25,2\n")},
                                         std::pair{b, QByteArray("13,18,14\n6,20,2\n5,7,2\n")}}) {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(text);
        }
        const auto r = test::runCli({"common", a, b, "--backend", "cuda", "--json", "-"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject j = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(j["backend"].toString(), QString("cuda"));
        QCOMPARE(j["size"].toInt(), 4);
        QCOMPARE(j["offset"].toObject()["dx"].toInt(), -1);
        QVERIFY(j["timing_ms"].toObject()["steps"].toObject().contains("kernel"));
    }
};

QTEST_GUILESS_MAIN(TestCommonComponentCuda)
#include "test_common_component_cuda.moc"
