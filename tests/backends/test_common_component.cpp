// Common component of two images: the paper's example, brute force against the reference on hundreds of
// small random pairs, crops, blanks, tolerance, the strip labeller's carry, and the CLI contract.
#include "tests/support/TestSupport.h"
#include "tests/cpu/test_common_checks.h"

#include "cuda/Backends.h"
#include "core/algo/common/CommonComponent.h"
#include "core/algo/common/CommonComponentCases.h"
#include "core/algo/common/StripLabellerCpu.h"
#include "core/io/ImageLoader.h"
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

class TestCommonComponent : public QObject {
    Q_OBJECT

private:
    static QString writeCsv(const QString& name, const QByteArray& text) {
        const QString path = test::tempDir() + "/" + name;
        QFile f(path);
        f.open(QIODevice::WriteOnly);
        f.write(text);
        return path;
    }
    static QJsonObject runJson(const QStringList& args, int expectedExit = 0) {
        const auto r = test::runCli(args);
        if (r.exitCode != expectedExit) qWarning() << r.err;
        [&] { QCOMPARE(r.exitCode, expectedExit); }();
        const QJsonDocument doc = QJsonDocument::fromJson(r.out);
        [&] { QVERIFY(doc.isObject()); }();
        return doc.object();
    }
    // The paper's matrices as CSV (letters as numbers).
    static QString paperA() { return writeCsv("paper_a.csv", "1,1,8\n3,13,1\n4,6,20\n6,25,7\n5,25,2\n"); }
    static QString paperB() { return writeCsv("paper_b.csv", "13,18,14\n6,20,2\n5,7,2\n"); }

    static Image letters(int width, int height, const char* text) {
        std::vector<std::int32_t> v;
        for (const char* p = text; *p; ++p)
            if (*p != ' ') v.push_back(*p - 'A' + 1);
        return Image::fromSamples<std::int32_t>(width, height, v);
    }

private slots:
    void initTestCase() { initBackends(); }

    void paperExample_data() {
        QTest::addColumn<QString>("backend");
        QTest::newRow("reference") << "reference";
        QTest::newRow("cpu") << "cpu";
    }
    void paperExample() {
        QFETCH(QString, backend);
        // Gao et al., figure 2: A is 5 rows of 3 letters, B 3 rows of 3; the answer is M/F T/G, size 4.
        const Image a = letters(3, 5, "AAH CMA DFT FYG EYB");
        const Image b = letters(3, 3, "MRN FTB EGB");
        const auto r = runCommon(a, b, {}, parseBackend(backend.toStdString()));
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
    // and without blanks and a maximum shift: the cpu backend finds the reference's size, and both
    // components are valid.
    void bruteForceAgainstReference_data() {
        QTest::addColumn<int>("seed");
        for (int s = 0; s < 6; ++s) QTest::newRow(qPrintable(QString("batch %1").arg(s))) << s;
    }
    void bruteForceAgainstReference() {
        QFETCH(int, seed);
        std::mt19937 rng(1234 + seed);
        std::uniform_int_distribution<int> side(1, 12), values(2, 4), coin(0, 3);
        for (int i = 0; i < 60; ++i) {
            const int v = values(rng);
            const double blanks = coin(rng) == 0 ? 0.15 : 0.0;
            Image a = test::randomIntImage(side(rng), side(rng), 0, v - 1, rng, blanks);
            Image b = test::randomIntImage(side(rng), side(rng), 0, v - 1, rng, blanks);
            CommonComponentParams p;
            p.tolerance = coin(rng) == 0 ? 1.0 : 0.0;
            if (coin(rng) == 0) p.maxShift = coin(rng) + coin(rng);
            const auto ref = runCommon(a, b, p, Backend::Reference);
            const auto cpu = runCommon(a, b, p, Backend::Cpu);
            checkComponent(a, b, p, ref);
            checkComponent(a, b, p, cpu);
            QCOMPARE(cpu.size, ref.size);
            QCOMPARE(cpu.stats.offsets, ref.stats.offsets);
            QCOMPARE(cpu.stats.prunedByArea + cpu.stats.prunedByBound + cpu.stats.prunedByCount + cpu.stats.labelled,
                     cpu.stats.offsets);
        }
    }

    void floatsWithTolerance_data() {
        QTest::addColumn<double>("tolerance");
        QTest::newRow("0") << 0.0;
        QTest::newRow("0.02") << 0.02;
        QTest::newRow("0.1") << 0.1;
        QTest::newRow("0.5") << 0.5;
    }
    void floatsWithTolerance() {
        QFETCH(double, tolerance);
        std::mt19937 rng(99);
        for (int i = 0; i < 20; ++i) {
            Image a = test::randomFloatImage(3 + i % 9, 4 + i % 7, -1.0, 1.0, rng, i % 3 == 0 ? 0.1 : 0.0);
            Image b = test::randomFloatImage(5 + i % 6, 2 + i % 11, -1.0, 1.0, rng);
            if (i % 4 == 0) b = a; // identical images with float values
            CommonComponentParams p;
            p.tolerance = tolerance;
            const auto ref = runCommon(a, b, p, Backend::Reference);
            const auto cpu = runCommon(a, b, p, Backend::Cpu);
            checkComponent(a, b, p, cpu);
            QCOMPARE(cpu.size, ref.size);
        }
    }

    void widerImagesAgainstReference() {
        // Several 64-bit words per row, odd widths, different shapes: exercises word alignment.
        std::mt19937 rng(7);
        const int shapes[][4] = {{70, 9, 65, 11}, {130, 5, 33, 7}, {31, 40, 97, 3}, {64, 6, 64, 6}};
        for (const auto& s : shapes) {
            for (int values : {2, 4}) {
                Image a = test::randomIntImage(s[0], s[1], 0, values - 1, rng, 0.05);
                Image b = test::randomIntImage(s[2], s[3], 0, values - 1, rng);
                for (double t : {0.0, 1.0}) {
                    CommonComponentParams p;
                    p.tolerance = t;
                    const auto ref = runCommon(a, b, p, Backend::Reference);
                    const auto cpu = runCommon(a, b, p, Backend::Cpu);
                    checkComponent(a, b, p, cpu);
                    QCOMPARE(cpu.size, ref.size);
                }
            }
        }
    }

    void identicalImages_data() {
        QTest::addColumn<QString>("backend");
        QTest::newRow("reference") << "reference";
        QTest::newRow("cpu") << "cpu";
    }
    void identicalImages() {
        QFETCH(QString, backend);
        std::mt19937 rng(5);
        const Image a = test::randomIntImage(30, 20, 0, 255, rng);
        const auto r = runCommon(a, a, {}, parseBackend(backend.toStdString()));
        checkComponent(a, a, {}, r);
        QCOMPARE(r.size, std::uint64_t(600));
        QCOMPARE(r.dx, 0);
        QCOMPARE(r.dy, 0);
    }

    void cropAndSource_data() {
        QTest::addColumn<QString>("backend");
        QTest::addColumn<bool>("cropFirst");
        QTest::newRow("reference, crop as A") << "reference" << true;
        QTest::newRow("cpu, crop as A") << "cpu" << true;
        QTest::newRow("cpu, crop as B") << "cpu" << false;
    }
    void cropAndSource() {
        QFETCH(QString, backend);
        QFETCH(bool, cropFirst);
        std::mt19937 rng(11);
        const Image source = test::randomIntImage(40, 30, 0, 255, rng);
        std::vector<std::int32_t> crop;
        for (int y = 5; y < 5 + 12; ++y)
            for (int x = 7; x < 7 + 15; ++x) crop.push_back(static_cast<std::int32_t>(source.value(x, y)));
        const Image c = Image::fromSamples<std::int32_t>(15, 12, crop);
        const Image& a = cropFirst ? c : source;
        const Image& b = cropFirst ? source : c;
        const auto r = runCommon(a, b, {}, parseBackend(backend.toStdString()));
        checkComponent(a, b, {}, r);
        QCOMPARE(r.size, std::uint64_t(15 * 12));
        QCOMPARE(r.dx, cropFirst ? 7 : -7);
        QCOMPARE(r.dy, cropFirst ? 5 : -5);
    }

    void blanksSplitTheComponent() {
        // Identical 20x10 images; a blank column at x = 6 in A cuts the overlap at offset 0 in two.
        std::mt19937 rng(3);
        Image a = test::randomIntImage(20, 10, 0, 1000, rng);
        Image b = a;
        std::vector<std::uint8_t> mask(200, 0);
        for (int y = 0; y < 10; ++y) mask[y * 20 + 6] = 1;
        a.setBlankMask(mask);
        for (Backend backend : {Backend::Reference, Backend::Cpu}) {
            const auto r = runCommon(a, b, {}, backend);
            checkComponent(a, b, {}, r);
            QCOMPARE(r.size, std::uint64_t(13 * 10));
            QCOMPARE(r.bboxX, 7);
            QCOMPARE(r.dx, 0);
        }
    }

    void noMatchAnywhere() {
        const Image a = Image::fromSamples<std::int32_t>(4, 3, std::vector<std::int32_t>(12, 1));
        const Image b = Image::fromSamples<std::int32_t>(5, 2, std::vector<std::int32_t>(10, 2));
        for (Backend backend : {Backend::Reference, Backend::Cpu}) {
            const auto r = runCommon(a, b, {}, backend);
            QVERIFY(!r.found);
            QCOMPARE(r.size, std::uint64_t(0));
            QVERIFY(r.mask.empty());
            CommonComponentParams p;
            p.tolerance = 1.0; // now every pixel matches: the larger overlap, all of B
            const auto t = runCommon(a, b, p, backend);
            QCOMPARE(t.size, std::uint64_t(8));
        }
    }

    void allBlank() {
        Image a = Image::fromSamples<std::int32_t>(3, 3, std::vector<std::int32_t>(9, 1));
        a.setBlankMask(std::vector<std::uint8_t>(9, 1));
        const Image b = Image::fromSamples<std::int32_t>(3, 3, std::vector<std::int32_t>(9, 1));
        for (Backend backend : {Backend::Reference, Backend::Cpu}) QVERIFY(!runCommon(a, b, {}, backend).found);
    }

    void sixteenBitAndNegativeValues() {
        std::mt19937 rng(21);
        for (int i = 0; i < 10; ++i) {
            std::uniform_int_distribution<int> v(-3, 2);
            std::vector<std::int16_t> sa(11 * 7), sb(9 * 8);
            for (auto& x : sa) x = static_cast<std::int16_t>(v(rng));
            for (auto& x : sb) x = static_cast<std::int16_t>(v(rng));
            const Image a = Image::fromSamples<std::int16_t>(11, 7, sa);
            const Image b = Image::fromSamples<std::int16_t>(9, 8, sb);
            CommonComponentParams p;
            p.tolerance = i % 2;
            const auto ref = runCommon(a, b, p, Backend::Reference);
            const auto cpu = runCommon(a, b, p, Backend::Cpu);
            checkComponent(a, b, p, cpu);
            QCOMPARE(cpu.size, ref.size);
        }
    }

    void invalidParameters() {
        const Image a = Image::fromSamples<std::int32_t>(2, 2, {1, 2, 3, 4});
        CommonComponentParams p;
        p.tolerance = -1.0;
        JobControl job;
        QVERIFY_THROWS_EXCEPTION(UsageError, findCommonComponent(a, a, p, Backend::Cpu, job));
        p.tolerance = std::numeric_limits<double>::quiet_NaN();
        QVERIFY_THROWS_EXCEPTION(UsageError, findCommonComponent(a, a, p, Backend::Reference, job));
    }

    void cancelStopsTheSearch() {
        std::mt19937 rng(1);
        const Image a = test::randomIntImage(60, 60, 0, 3, rng);
        for (Backend backend : {Backend::Reference, Backend::Cpu}) {
            JobControl job;
            job.requestCancel();
            QVERIFY_THROWS_EXCEPTION(Cancelled, findCommonComponent(a, a, {}, backend, job));
        }
    }

    // Cancelled from inside the run (see test_brightest): it must stop with Cancelled within a second.
    void cancelWhileRunning() {
        const auto [a, b] = common_component::randomValuePair(200, 4, 6);
        for (Backend backend : {Backend::Reference, Backend::Cpu}) {
            JobControl job;
            test::CancelInsideRun cancel(job);
            QVERIFY_THROWS_EXCEPTION(Cancelled, findCommonComponent(a, b, {}, backend, job));
            QVERIFY2(cancel.requested(), backendName(backend));
            const double latency = cancel.msSinceRequest();
            qInfo("%s: cancel latency %.2f ms", backendName(backend), latency);
            QVERIFY2(latency < 1000.0, qPrintable(QString("cancel took %1 ms").arg(latency)));
        }
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
        QTest::newRow("auto") << "auto";
        QTest::newRow("cpu") << "cpu";
        QTest::newRow("reference") << "reference";
    }
    void cliJson() {
        QFETCH(QString, backend);
        const QJsonObject j = runJson({"common", paperA(), paperB(), "--backend", backend, "--json", "-"});
        QCOMPARE(j["algorithm"].toString(), QString("common"));
        if (backend != "auto") QCOMPARE(j["backend"].toString(), backend);
        QVERIFY(!j["device"].toString().isEmpty());
        QVERIFY(j["timing_ms"].toObject().contains("total"));
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
        const QJsonObject j = runJson({"common", paperA(), paperB(), "--max-shift", "0", "--json", "-"});
        QCOMPARE(j["offset"].toObject()["dx"].toInt(), 0);
        QCOMPARE(j["offset"].toObject()["dy"].toInt(), 0);
        QCOMPARE(j["max_shift"].toInt(), 0);
        const QString a = writeCsv("tol_a.csv", "1.0,2.0\n3.0,4.0\n");
        const QString b = writeCsv("tol_b.csv", "1.4,2.4\n3.4,4.6\n");
        QCOMPARE(runJson({"common", a, b, "--json", "-"})["size"].toInt(), 0);
        const QJsonObject t = runJson({"common", a, b, "--tolerance", "0.5", "--json", "-"});
        QCOMPARE(t["size"].toInt(), 3);
        QCOMPARE(t["tolerance"].toDouble(), 0.5);
    }

    void cliNoMatch() {
        const QString a = writeCsv("ones.csv", "1,1,1\n1,1,1\n");
        const QString b = writeCsv("twos.csv", "2,2\n2,2\n");
        const QJsonObject j = runJson({"common", a, b, "--json", "-"});
        QVERIFY(j["offset"].isNull());
        QVERIFY(j["bbox"].isNull());
        QCOMPARE(j["size"].toInt(), 0);
        const auto text = test::runCli({"common", a, b});
        QCOMPARE(text.exitCode, 0);
        QVERIFY(text.out.contains("no common component"));
    }

    void cliBadInput_data() {
        QTest::addColumn<QStringList>("extra");
        QTest::addColumn<int>("exitCode");
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
        QCOMPARE(r.err.trimmed().count('\n') <= 1 || exitCode == 2, true); // one line (usage errors add the synopsis)
        QVERIFY(r.out.isEmpty());
    }

    void cliMissingImageAndGarbage() {
        QCOMPARE(test::runCli({"common", paperA()}).exitCode, 2);
        const QString junk = writeCsv("junk.bin", QByteArray("\x01\x02\x03\xff", 4));
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

    void resultThroughJobFunction() {
        const Image a = letters(3, 5, "AAH CMA DFT FYG EYB");
        const Image b = letters(3, 3, "MRN FTB EGB");
        JobControl job;
        Backend resolved = Backend::Auto;
        const auto r = findCommonComponent(a, b, {}, Backend::Cpu, job, &resolved);
        QCOMPARE(resolved, Backend::Cpu);
        QVERIFY(!job.device().empty());
        QVERIFY(job.timing().total() >= 0.0);
        QCOMPARE(job.progress(), 1.0);
        QCOMPARE(r.mask.size(), std::size_t(15));
    }
};

QTEST_GUILESS_MAIN(TestCommonComponent)
#include "test_common_component.moc"
