// Common component of two images on every backend (reference, cpu, cuda; the cuda rows skip without a
// usable device): the paper's example, brute force against the reference on hundreds of small random pairs
// of every shape, tolerance, blanks, maximum shift, 8-, 16- and 32-bit codes, crops, sizes where the
// labeller needs many strips and the bound prunes for real, cancel, the strip labeller's carry, and the
// CLI contract.
#include "tests/support/CommonChecks.h"
#include "tests/support/TestSupport.h"

#include "cuda/Backends.h"
#include "core/algo/commoncomponent/CommonComponent.h"
#include "scenes/CommonComponentCases.h"
#include "core/algo/commoncomponent/CommonRegistration.h"
#include "core/algo/commoncomponent/StripLabellerCpu.h"
#include "core/io/ImageLoader.h"
#include "core/util/Errors.h"

#include <QJsonObject>
#include <QtTest>

#include <algorithm>
#include <random>

using namespace glint;
using glint::test::checkAgainst;
using glint::test::checkComponent;
using glint::test::runCommon;

namespace {

// The paper's matrices as CSV (letters as numbers).
QString paperA() { return test::writeTempFile("paper_a.csv", "1,1,8\n3,13,1\n4,6,20\n6,25,7\n5,25,2\n"); }
QString paperB() { return test::writeTempFile("paper_b.csv", "13,18,14\n6,20,2\n5,7,2\n"); }

Image letters(int width, int height, const char* text) {
    std::vector<std::int32_t> v;
    for (const char* p = text; *p; ++p)
        if (*p != ' ') v.push_back(*p - 'A' + 1);
    return test::intImage(width, height, v);
}

Image filled(int width, int height, std::int32_t value) {
    return test::intImage(width, height, std::vector<std::int32_t>(static_cast<std::size_t>(width) * height, value));
}

} // namespace

class TestCommonComponent : public QObject {
    Q_OBJECT

private slots:
    void paperExample_data() { test::addBackendRows(); }
    void paperExample() {
        GLINT_FETCH_BACKEND(backend);
        // Gao et al., figure 2: A is 5 rows of 3 letters, B 3 rows of 3; the answer is M/F T/G, size 4.
        const Image a = letters(3, 5, "AAH CMA DFT FYG EYB");
        const Image b = letters(3, 3, "MRN FTB EGB");
        const auto r = runCommon(a, b, {}, backend);
        checkComponent(a, b, {}, r);
        QCOMPARE(r.size, std::uint64_t(4));
        QCOMPARE(r.dx, -1);
        QCOMPARE(r.dy, -1);
        QCOMPARE(r.bboxX, 1);
        QCOMPARE(r.bboxY, 1);
        QCOMPARE(r.bboxWidth, 2);
        QCOMPARE(r.bboxHeight, 3);
        QCOMPARE(r.stats.offsets, std::uint64_t(5 * 7));
    }

    // Hundreds of random pairs of every shape from 1x1 to 12x12, 2-4 values, tolerance 0 and > 0, with
    // and without blanks and a maximum shift: every backend finds the reference's size, searches the same
    // offsets, and reports a valid component.
    void bruteForceAgainstReference_data() {
        test::addBackendColumn();
        test::columns<int, int>({"seed", "pairs"});
        for (Backend b : test::allBackends) {
            for (int s = 0; s < 6; ++s) test::newBackendRow(b, QString("batch %1").arg(s)) << 1234 + s << 60;
            for (int s = 0; s < 8; ++s) test::newBackendRow(b, QString("batch %1").arg(6 + s)) << 777 + s << 50;
        }
    }
    void bruteForceAgainstReference() {
        GLINT_FETCH_BACKEND(backend);
        QFETCH(int, seed);
        QFETCH(int, pairs);
        std::mt19937 rng(seed);
        std::uniform_int_distribution<int> side(1, 12), values(2, 4), coin(0, 3);
        for (int i = 0; i < pairs; ++i) {
            const int v = values(rng);
            const double blanks = coin(rng) == 0 ? 0.15 : 0.0;
            const Image a = test::randomIntImage(side(rng), side(rng), 0, v - 1, rng, blanks);
            const Image b = test::randomIntImage(side(rng), side(rng), 0, v - 1, rng, blanks);
            CommonComponentParams p;
            p.tolerance = coin(rng) == 0 ? 1.0 : 0.0;
            if (coin(rng) == 0) p.maxShift = coin(rng) + coin(rng);
            checkAgainst(a, b, p, backend, Backend::Reference);
            if (QTest::currentTestFailed()) return;
        }
    }

    // Float images (identical ones among them), with and without blanks, at several tolerances.
    void floatsWithTolerance_data() {
        test::addBackendColumn();
        QTest::addColumn<double>("tolerance");
        for (Backend b : {Backend::Cpu, Backend::Cuda})
            for (double t : {0.0, 0.02, 0.05, 0.1, 0.15, 0.5}) test::newBackendRow(b, QString::number(t)) << t;
    }
    void floatsWithTolerance() {
        GLINT_FETCH_BACKEND(backend);
        QFETCH(double, tolerance);
        std::mt19937 rng(99);
        CommonComponentParams p;
        p.tolerance = tolerance;
        for (int i = 0; i < 20; ++i) {
            Image a = test::randomFloatImage(3 + i % 9, 4 + i % 7, -1.0, 1.0, rng, i % 3 == 0 ? 0.1 : 0.0);
            Image b = test::randomFloatImage(5 + i % 6, 2 + i % 11, -1.0, 1.0, rng);
            if (i % 4 == 0) b = a; // identical images with float values
            checkAgainst(a, b, p, backend, Backend::Reference);
        }
        for (int i = 0; i < 12; ++i) {
            const Image a = test::randomFloatImage(5 + i, 4 + i % 5, -1.0, 1.0, rng, i % 3 == 0 ? 0.1 : 0.0);
            const Image b = test::randomFloatImage(7 + i % 4, 3 + i, -1.0, 1.0, rng);
            checkAgainst(a, b, p, backend, Backend::Reference);
        }
    }

    // Several words per row, odd widths, widths on both sides of multiples of 32 and 64, different
    // shapes: exercises word alignment (B shifted by every bit position).
    void widerImagesAgainstReference_data() { test::addBackendRows({Backend::Cpu, Backend::Cuda}); }
    void widerImagesAgainstReference() {
        GLINT_FETCH_BACKEND(backend);
        std::mt19937 rng(7);
        const int shapes[][4] = {{70, 9, 65, 11}, {130, 5, 33, 7}, {31, 40, 97, 3}, {64, 6, 64, 6}, {31, 9, 33, 7},
                                 {33, 6, 31, 8},  {65, 5, 64, 6},  {97, 4, 40, 9}, {130, 3, 70, 5}};
        for (const auto& s : shapes)
            for (int values : {2, 3, 4}) {
                const Image a = test::randomIntImage(s[0], s[1], 0, values - 1, rng, 0.05);
                const Image b = test::randomIntImage(s[2], s[3], 0, values - 1, rng);
                for (double t : {0.0, 1.0}) {
                    CommonComponentParams p;
                    p.tolerance = t;
                    checkAgainst(a, b, p, backend, Backend::Reference);
                    if (QTest::currentTestFailed()) return;
                }
            }
    }

    void identicalImages_data() { test::addBackendRows(); }
    void identicalImages() {
        GLINT_FETCH_BACKEND(backend);
        std::mt19937 rng(5);
        for (const auto& [w, h, values] : {std::tuple{30, 20, 256}, std::tuple{70, 50, 10}}) {
            const Image a = test::randomIntImage(w, h, 0, values - 1, rng);
            const auto r = runCommon(a, a, {}, backend);
            checkComponent(a, a, {}, r);
            QCOMPARE(r.size, std::uint64_t(w * h));
            QCOMPARE(r.dx, 0);
            QCOMPARE(r.dy, 0);
        }
    }

    void cropAndSource_data() {
        test::addBackendColumn();
        QTest::addColumn<bool>("cropFirst");
        test::newBackendRow(Backend::Reference, "crop as A") << true;
        for (Backend b : {Backend::Cpu, Backend::Cuda}) {
            test::newBackendRow(b, "crop as A") << true;
            test::newBackendRow(b, "crop as B") << false;
        }
    }
    void cropAndSource() {
        GLINT_FETCH_BACKEND(backend);
        QFETCH(bool, cropFirst);
        const Image source = test::randomIntImage(40, 30, 0, 255, test::Seed{11});
        std::vector<std::int32_t> crop;
        for (int y = 5; y < 5 + 12; ++y)
            for (int x = 7; x < 7 + 15; ++x) crop.push_back(static_cast<std::int32_t>(source.value(x, y)));
        const Image c = test::intImage(15, 12, crop);
        const Image& a = cropFirst ? c : source;
        const Image& b = cropFirst ? source : c;
        const auto r = runCommon(a, b, {}, backend);
        checkComponent(a, b, {}, r);
        QCOMPARE(r.size, std::uint64_t(15 * 12));
        QCOMPARE(r.dx, cropFirst ? 7 : -7);
        QCOMPARE(r.dy, cropFirst ? 5 : -5);
    }

    // More than 65533 distinct values (32-bit codes on the device); A is a crop of B.
    void thirtyTwoBitCodesCrop_data() { test::addBackendRows({Backend::Cpu, Backend::Cuda}); }
    void thirtyTwoBitCodesCrop() {
        GLINT_FETCH_BACKEND(backend);
        const Image source = test::randomFloatImage(320, 240, 0.0, 1.0, test::Seed{12});
        std::vector<double> crop;
        for (int y = 77; y < 77 + 40; ++y)
            for (int x = 123; x < 123 + 50; ++x) crop.push_back(source.value(x, y));
        const Image a = Image::fromSamples<double>(50, 40, crop);
        const auto r = runCommon(a, source, {}, backend);
        checkComponent(a, source, {}, r);
        QCOMPARE(r.size, std::uint64_t(2000));
        QCOMPARE(r.dx, 123);
        QCOMPARE(r.dy, 77);
        CommonComponentParams p;
        p.tolerance = 0.01;
        const auto t = runCommon(a, source, p, backend);
        checkComponent(a, source, p, t);
        QVERIFY(t.size >= 2000);
        if (backend != Backend::Cpu) QCOMPARE(t.size, runCommon(a, source, p, Backend::Cpu).size);
    }

    void blanksSplitTheComponent_data() { test::addBackendRows(); }
    void blanksSplitTheComponent() {
        GLINT_FETCH_BACKEND(backend);
        // Identical 20x10 images; a blank column at x = 6 in A cuts the overlap at offset 0 in two.
        Image a = test::randomIntImage(20, 10, 0, 1000, test::Seed{3});
        Image b = a;
        std::vector<std::uint8_t> mask(200, 0);
        for (int y = 0; y < 10; ++y) mask[y * 20 + 6] = 1;
        a.setBlankMask(mask);
        const auto r = runCommon(a, b, {}, backend);
        checkComponent(a, b, {}, r);
        QCOMPARE(r.size, std::uint64_t(13 * 10));
        QCOMPARE(r.bboxX, 7);
        QCOMPARE(r.dx, 0);
    }

    void noMatchAnywhere_data() { test::addBackendRows(); }
    void noMatchAnywhere() {
        GLINT_FETCH_BACKEND(backend);
        for (const auto& [a, b] : {std::pair{filled(4, 3, 1), filled(5, 2, 2)}, std::pair{filled(9, 9, 1), filled(7, 9, 2)}}) {
            const auto r = runCommon(a, b, {}, backend);
            QVERIFY(!r.found);
            QCOMPARE(r.size, std::uint64_t(0));
            QVERIFY(r.mask.empty());
        }
        CommonComponentParams p;
        p.tolerance = 1.0; // now every pixel matches: the larger overlap, all of B
        QCOMPARE(runCommon(filled(4, 3, 1), filled(5, 2, 2), p, backend).size, std::uint64_t(8));
    }

    void allBlank_data() { test::addBackendRows(); }
    void allBlank() {
        GLINT_FETCH_BACKEND(backend);
        for (int side : {3, 9}) {
            Image a = filled(side, side, 1);
            a.setBlankMask(std::vector<std::uint8_t>(a.pixelCount(), 1));
            QVERIFY(!runCommon(a, filled(side, side, 1), {}, backend).found);
        }
    }

    // 16-bit samples with negative values, and codes of many distinct values, against the reference.
    void manyValuesAndNegatives_data() { test::addBackendRows({Backend::Cpu, Backend::Cuda}); }
    void manyValuesAndNegatives() {
        GLINT_FETCH_BACKEND(backend);
        std::mt19937 rng(21);
        for (int i = 0; i < 10; ++i) {
            std::uniform_int_distribution<int> v(-3, 2);
            std::vector<std::int16_t> sa(11 * 7), sb(9 * 8);
            for (auto& x : sa) x = static_cast<std::int16_t>(v(rng));
            for (auto& x : sb) x = static_cast<std::int16_t>(v(rng));
            CommonComponentParams p;
            p.tolerance = i % 2;
            checkAgainst(Image::fromSamples<std::int16_t>(11, 7, sa), Image::fromSamples<std::int16_t>(9, 8, sb), p, backend,
                         Backend::Reference);
        }
        const Image a = test::randomIntImage(40, 30, 0, 999, rng, 0.05);
        const Image b = test::randomIntImage(35, 33, 0, 999, rng);
        for (double t : {0.0, 2.5, 40.0}) {
            CommonComponentParams p;
            p.tolerance = t;
            checkAgainst(a, b, p, backend, Backend::Reference);
        }
    }

    // Overlaps hundreds of pixels wide or tall: the device's labeller carries components across strips.
    // (Binary values match half the pixels at every offset, so nothing prunes: too slow for the cpu CI.)
    void cudaManyStrips() {
        GLINT_REQUIRE_CUDA();
        std::mt19937 rng(9);
        const Image a = test::randomIntImage(600, 40, 0, 1, rng);
        const Image b = test::randomIntImage(620, 36, 0, 1, rng);
        checkAgainst(a, b, {}, Backend::Cuda, Backend::Cpu);
        const Image tallA = test::randomIntImage(24, 700, 0, 1, rng, 0.02);
        const Image tallB = test::randomIntImage(20, 650, 0, 1, rng);
        checkAgainst(tallA, tallB, {}, Backend::Cuda, Backend::Cpu);
        CommonComponentParams p;
        p.tolerance = 1.0;
        const Image c = test::randomIntImage(300, 50, 0, 4, rng);
        const Image d = test::randomIntImage(280, 60, 0, 4, rng);
        checkAgainst(c, d, p, Backend::Cuda, Backend::Cpu);
    }

    // Known crops where the bound prunes almost every offset, and random values.
    void largerImages_data() { test::addBackendRows({Backend::Cpu, Backend::Cuda}); }
    void largerImages() {
        GLINT_FETCH_BACKEND(backend);
        const Backend oracle = Backend::Cpu; // sizes too large for the reference
        const auto [cropA, cropB] = common_component::overlappingCrops(192);
        const auto r = runCommon(cropA, cropB, {}, backend);
        checkComponent(cropA, cropB, {}, r);
        QCOMPARE(r.size, std::uint64_t(96 * 96));
        QCOMPARE(r.dx, -96);
        QCOMPARE(r.dy, -96);
        if (backend != oracle) QCOMPARE(r.size, runCommon(cropA, cropB, {}, oracle).size);
        QVERIFY(r.stats.labelled < r.stats.offsets / 100); // the bound prunes almost everything

        const auto [va, vb] = common_component::randomValuePair(96, 4, 3);
        checkAgainst(va, vb, {}, backend, oracle);
        const auto [vc, vd] = common_component::randomValuePair(48, 2, 4);
        checkAgainst(vc, vd, {}, backend, Backend::Reference);
    }

    void invalidParameters() {
        const Image a = Image::fromSamples<std::int32_t>(2, 2, {1, 2, 3, 4});
        CommonComponentParams p;
        p.tolerance = -1.0;
        JobControl job;
        QVERIFY_THROWS_EXCEPTION(UsageError, runCommon(a, a, p, Backend::Cpu, job));
        p.tolerance = std::numeric_limits<double>::quiet_NaN();
        QVERIFY_THROWS_EXCEPTION(UsageError, runCommon(a, a, p, Backend::Reference, job));
    }

    void cancelStopsTheSearch_data() { test::addBackendRows(); }
    void cancelStopsTheSearch() {
        GLINT_FETCH_BACKEND(backend);
        const Image square = test::randomIntImage(60, 60, 0, 3, test::Seed{1});
        const auto [a, b] = common_component::randomValuePair(128, 4, 5);
        for (const auto& [x, y] : {std::pair{&square, &square}, std::pair{&a, &b}}) {
            JobControl job;
            job.requestCancel();
            QVERIFY_THROWS_EXCEPTION(Cancelled, runCommon(*x, *y, {}, backend, job));
        }
    }

    // Cancelled from inside the run (see test_brightest_search::cancelActsQuickly): it must stop with Cancelled within a second,
    // whatever the device's speed (the 100 ms target is a bench row: glint-cli bench cancel). The
    // workspace is fine afterwards.
    void cancelWhileRunning_data() {
        test::addBackendColumn();
        QTest::addColumn<int>("size");
        test::newBackendRow(Backend::Reference) << 200;
        test::newBackendRow(Backend::Cpu) << 200;
        test::newBackendRow(Backend::Cuda) << 448;
    }
    void cancelWhileRunning() {
        GLINT_FETCH_BACKEND(backend);
        QFETCH(int, size);
        const auto [a, b] = common_component::randomValuePair(size, 4, 6);
        test::checkCancelInsideRun([&](JobControl& job) { runCommon(a, b, {}, backend, job); }, backendName(backend));
        const auto [c, d] = common_component::randomValuePair(40, 3, 7);
        checkAgainst(c, d, {}, backend, Backend::Reference);
    }

    // The strip labeller alone, on random masks, with strips as thin as one row: the carry between
    // strips must give the same largest component as a breadth-first search.
    void stripLabellerCarry() {
        std::mt19937 rng(17);
        std::uniform_int_distribution<int> side(1, 100), rows(1, 5);
        std::uniform_real_distribution<double> density(0.3, 0.75), unit(0.0, 1.0);
        common_component::CpuStripLabeller labeller;
        for (int i = 0; i < 300; ++i) {
            const int w = side(rng), h = side(rng) % 60 + 1;
            const double d = density(rng);
            std::vector<std::uint8_t> mask(static_cast<std::size_t>(w) * h);
            for (auto& m : mask) m = unit(rng) < d;
            const auto sizes = test::componentSizes(mask, w, h);
            std::uint64_t largest = 0;
            for (auto s : sizes) largest = std::max<std::uint64_t>(largest, s);
            for (int strip : {1, 2, rows(rng), h}) {
                const auto out = labeller.label(w, h, strip, [&](int y, std::uint32_t* words) {
                    for (int k = 0; k * 32 < w; ++k) {
                        std::uint32_t bits = 0;
                        for (int b = 0; b < 32 && k * 32 + b < w; ++b)
                            bits |= static_cast<std::uint32_t>(mask[static_cast<std::size_t>(y) * w + k * 32 + b]) << b;
                        words[k] = bits;
                    }
                });
                QCOMPARE(out.size, largest);
                if (largest) QCOMPARE(sizes[static_cast<std::size_t>(out.y) * w + out.x], largest);
            }
        }
    }

    void cliJson_data() {
        QTest::addColumn<QString>("backend");
        for (const char* b : {"auto", "cpu", "reference", "cuda"}) QTest::newRow(b) << b;
    }
    void cliJson() {
        QFETCH(QString, backend);
        if (backend == "cuda") {
            GLINT_REQUIRE_CUDA();
        }
        const QJsonObject j = test::runCliJson({"common", paperA(), paperB(), "--backend", backend, "--json", "-"});
        QCOMPARE(j["algorithm"].toString(), QString("common"));
        if (backend != "auto") QCOMPARE(j["backend"].toString(), backend);
        QVERIFY(!j["device"].toString().isEmpty());
        QVERIFY(j["timing_ms"].toObject().contains("total"));
        if (backend == "cuda") QVERIFY(j["timing_ms"].toObject()["steps"].toObject().contains("kernel"));
        QCOMPARE(j["size"].toInt(), 4);
        QCOMPARE(j["offset"].toObject()["dx"].toInt(), -1);
        QCOMPARE(j["offset"].toObject()["dy"].toInt(), -1);
        const QJsonObject box = j["bbox"].toObject();
        QCOMPARE(box["x"].toInt(), 1);
        QCOMPARE(box["y"].toInt(), 1);
        QCOMPARE(box["width"].toInt(), 2);
        QCOMPARE(box["height"].toInt(), 3);
        QCOMPARE(j["tolerance"].toDouble(), 0.0);
        QCOMPARE(j["offsets"].toObject()["searched"].toInt(), 35);
        QCOMPARE(j["images"].toObject()["a"].toObject()["height"].toInt(), 5);
    }

    void cliMaxShiftAndTolerance() {
        const QJsonObject j = test::runCliJson({"common", paperA(), paperB(), "--max-shift", "0", "--json", "-"});
        QCOMPARE(j["offset"].toObject()["dx"].toInt(), 0);
        QCOMPARE(j["offset"].toObject()["dy"].toInt(), 0);
        QCOMPARE(j["max_shift"].toInt(), 0);
        const QString a = test::writeTempFile("tol_a.csv", "1.0,2.0\n3.0,4.0\n");
        const QString b = test::writeTempFile("tol_b.csv", "1.4,2.4\n3.4,4.6\n");
        QCOMPARE(test::runCliJson({"common", a, b, "--json", "-"})["size"].toInt(), 0);
        const QJsonObject t = test::runCliJson({"common", a, b, "--tolerance", "0.5", "--json", "-"});
        QCOMPARE(t["size"].toInt(), 3);
        QCOMPARE(t["tolerance"].toDouble(), 0.5);
    }

    void cliNoMatch() {
        const QString a = test::writeTempFile("ones.csv", "1,1,1\n1,1,1\n");
        const QString b = test::writeTempFile("twos.csv", "2,2\n2,2\n");
        const QJsonObject j = test::runCliJson({"common", a, b, "--json", "-"});
        QVERIFY(j["offset"].isNull());
        QVERIFY(j["bbox"].isNull());
        QCOMPARE(j["size"].toInt(), 0);
        const auto text = test::runCli({"common", a, b});
        QCOMPARE(text.exitCode, 0);
        QVERIFY(text.out.contains("no common component"));
    }

    void cliBadInput_data() {
        test::columns<QStringList, int>({"extra", "exitCode"});
        QTest::newRow("negative tolerance") << QStringList{"--tolerance", "-1"} << 2;
        QTest::newRow("tolerance not a number") << QStringList{"--tolerance", "abc"} << 2;
        QTest::newRow("negative max shift") << QStringList{"--max-shift", "-3"} << 2;
        QTest::newRow("unknown option") << QStringList{"--frobnicate", "1"} << 2;
        QTest::newRow("unknown backend") << QStringList{"--backend", "gpu"} << 2;
        QTest::newRow("unreadable image") << QStringList{"/nonexistent/image.png"} << 3;
    }
    void cliBadInput() {
        QFETCH(QStringList, extra);
        QFETCH(int, exitCode);
        QStringList args = {"common", paperA()};
        if (!extra.first().startsWith("/")) args << paperB();
        args << extra;
        const auto r = test::runCli(args);
        QCOMPARE(r.exitCode, exitCode);
        QVERIFY(!r.err.isEmpty());
        QCOMPARE(r.err.trimmed().count('\n'), 0); // one line, usage errors too
        QVERIFY(r.out.isEmpty());
    }

    void cliMissingImageAndGarbage() {
        QCOMPARE(test::runCli({"common", paperA()}).exitCode, 2);
        const QString junk = test::writeTempFile("junk.bin", QByteArray("\x01\x02\x03\xff", 4));
        const auto r = test::runCli({"common", paperA(), junk});
        QCOMPARE(r.exitCode, 3);
        QCOMPARE(r.err.trimmed().count('\n'), 0);
    }

    void cliWritesMaskAndOverlay() {
#if !GLINT_WITH_IMGCODECS
        QSKIP("this build writes no PNG files");
#endif
        const QString mask = test::tempDir() + "/mask.png", overlay = test::tempDir() + "/overlay.png";
        const auto r = test::runCli({"common", paperA(), paperB(), "--mask", mask, "--overlay", overlay});
        QCOMPARE(r.exitCode, 0);
        const Image m = loadImage(mask.toStdString());
        QCOMPARE(m.width(), 3);
        QCOMPARE(m.height(), 5);
        int on = 0;
        for (int y = 0; y < 5; ++y)
            for (int x = 0; x < 3; ++x) on += m.value(x, y) == 255.0;
        QCOMPARE(on, 4);
        QCOMPARE(m.value(1, 1), 255.0); // M
        QCOMPARE(m.value(1, 3), 0.0);
        const Image o = loadImage(overlay.toStdString());
        QVERIFY(o.width() > 3 + 3);
        QCOMPARE(o.height(), 5);
        // An output that cannot be written: exit 3, and nothing half-written is left.
        const auto bad = test::runCli({"common", paperA(), paperB(), "--mask", "/nonexistent/dir/mask.png"});
        QCOMPARE(bad.exitCode, 3);
    }

    // Progress moves once per band of offsets (cpu: 32 bands, cuda: 8), never backwards, and ends at 1:
    // counted through the progress observer, no timing.
    void progressMovesPerBand_data() { test::addBackendRows({Backend::Cpu, Backend::Cuda}); }
    void progressMovesPerBand() {
        GLINT_FETCH_BACKEND(backend);
        const auto [a, b] = common_component::overlappingCrops(96);
        JobControl job;
        std::vector<double> seen;
        job.setProgressObserver([&](JobControl&, double f) { seen.push_back(f); });
        const auto r = runCommon(a, b, {}, backend, job);
        QCOMPARE(r.size, std::uint64_t(48 * 48));
        QVERIFY(!seen.empty());
        QCOMPARE(seen.back(), 1.0);
        QVERIFY(std::is_sorted(seen.begin(), seen.end()));
        std::vector<double> search;
        for (double f : seen)
            if (f > 0.05 && f < 1.0) search.push_back(f);
        const std::size_t bands = backend == Backend::Cuda ? 8 : 32;
        QVERIFY2(search.size() + 1 >= bands, qPrintable(QString::number(search.size())));
        // No step larger than a band (191 columns in bands of 24 or 6) of the search's 95 %.
        double last = 0.05;
        for (double f : search) {
            QVERIFY2(f - last <= 0.95 / static_cast<double>(bands) * 1.1, qPrintable(QString::number(f - last)));
            last = f;
        }
    }

    // The GPU's phase correlation is the host's: the same strongest candidate, the same candidates, the
    // same peak (single precision on both); end to end, cuda and cpu agree with linear normalisation.
    void deviceRegistrationIsTheHosts() {
        GLINT_REQUIRE_CUDA();
        using namespace common_component;
        const Image scene = fractalNoiseImage(420, 300, 6);
        std::vector<std::pair<Image, Image>> pairs = {overlappingCrops(256), {cropImage(scene, 0, 0, 300, 200),
                                                                             cropImage(scene, 70, 33, 300, 200)}};
        Image changed = pairs.back().second;
        changeImage(changed, 0.8, 10, 1.1, 2, 90, 5);
        pairs.push_back({pairs.back().first, changed});
        const auto cuda = CommonComponentRegistry::create(Backend::Cuda);
        for (const auto& [a, b] : pairs) {
            JobControl job;
            const auto range = offsetRange(a.width(), a.height(), b.width(), b.height(), -1);
            Registration device;
            QVERIFY(cuda->registerImages(a, b, range, 4, device, job));
            const Registration host = registerByPhaseCorrelation(a, b, range, job);
            QVERIFY(!device.candidates.empty());
            QCOMPARE(device.candidates.front(), host.candidates.front());
            QVERIFY2(std::abs(device.peak - host.peak) < 1e-4, qPrintable(QString("%1 %2").arg(device.peak).arg(host.peak)));
            auto sorted = [](std::vector<CommonOffset> v) {
                std::sort(v.begin(), v.end(), [](CommonOffset x, CommonOffset y) { return x.dx != y.dx ? x.dx < y.dx : x.dy < y.dy; });
                return v;
            };
            QVERIFY(sorted(device.candidates) == sorted(host.candidates));
            CommonComponentParams p;
            p.normalize = CommonNormalize::Linear;
            p.tolerance = 2;
            const auto onGpu = runCommon(a, b, p, Backend::Cuda);
            const auto onCpu = runCommon(a, b, p, Backend::Cpu);
            QCOMPARE(onGpu.size, onCpu.size);
            QCOMPARE(onGpu.dx, onCpu.dx);
            QCOMPARE(onGpu.dy, onCpu.dy);
            QCOMPARE(onGpu.confidence.gain, onCpu.confidence.gain);
            QCOMPARE(onGpu.confidence.runnerUpSize, onCpu.confidence.runnerUpSize);
        }
    }

    void resultThroughJobFunction() {
        const Image a = letters(3, 5, "AAH CMA DFT FYG EYB");
        const Image b = letters(3, 3, "MRN FTB EGB");
        JobControl job;
        const auto r = findCommonComponent(a, b, {}, Backend::Cpu, job);
        QCOMPARE(r.backend, Backend::Cpu);
        QCOMPARE(r.device, job.device());
        QVERIFY(!job.device().empty());
        QVERIFY(job.timing().total() >= 0.0);
        QCOMPARE(job.progress(), 1.0);
        QCOMPARE(r.mask.size(), std::size_t(15));
    }
};

GLINT_BACKEND_TEST_MAIN(TestCommonComponent)
#include "test_common_component.moc"
