// K maximum subarrays (overlapping) on the reference and CPU backends: brute force over every segment and
// rectangle on hundreds of random small inputs (negative, all-zero, repeated values, blanks, exclusions,
// K beyond the count), the paper's example, degenerate inputs that must stay fast, errors and the CLI.
#include "tests/support/TestSupport.h"
#include "tests/cpu/test_kmax_checks.h"

#include "cuda/Backends.h"
#include "core/util/Errors.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <atomic>
#include <chrono>
#include <thread>

using namespace glint;

namespace {

std::vector<KMaxSegment> top1d(const KMaxSequence& s, std::size_t k, Backend b) {
    JobControl job;
    return runKMax1d(s, k, b, job).segments;
}

BrightestResult overlap(const Image& im, BrightestParams p, Backend b) {
    p.mode = BrightestMode::Overlap;
    JobControl job;
    return runBrightest(im, p, b, job);
}

// A random sequence of one of the test kinds.
KMaxSequence randomSequence(const QString& kind, std::size_t n, std::mt19937& rng) {
    std::vector<double> v(n);
    std::uniform_int_distribution<int> small(-20, 20), neg(-9, -1), tri(-1, 1);
    std::uniform_real_distribution<double> real(-1.0, 1.0);
    std::bernoulli_distribution blank(0.15);
    for (auto& x : v) {
        if (kind == "int") x = small(rng);
        else if (kind == "negative") x = neg(rng);
        else if (kind == "zero") x = 0;
        else if (kind == "repeated") x = tri(rng);
        else if (kind == "float") x = real(rng);
        else if (kind == "blanks") x = blank(rng) ? std::nan("") : small(rng);
        else if (kind == "big") x = static_cast<double>(rng() % 2000001) * 1.0e9 - 1.0e15; // sums beyond 2^53
        else x = std::ldexp(real(rng), static_cast<int>(rng() % 60) - 30); // "scales": wide exponents
    }
    if (kind == "big") {
        std::vector<std::int64_t> iv(n);
        for (std::size_t i = 0; i < n; ++i) iv[i] = static_cast<std::int64_t>(v[i]) * 1000 + static_cast<std::int64_t>(rng() % 1000);
        return KMaxSequence::fromInts(std::move(iv));
    }
    return KMaxSequence::fromValues(std::move(v));
}

Image fromInts(int w, int h, std::vector<std::int32_t> v) { return Image::fromSamples<std::int32_t>(w, h, std::move(v)); }

} // namespace

class TestKMax : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { initBackends(); }

    void paperExample_data() {
        QTest::addColumn<int>("backend");
        QTest::newRow("reference") << static_cast<int>(Backend::Reference);
        QTest::newRow("cpu") << static_cast<int>(Backend::Cpu);
    }
    void paperExample() {
        QFETCH(int, backend);
        const KMaxSequence s = KMaxSequence::fromInts({-3, 1, -2, 4, -1, 2, 1, -5, 3});
        const auto got = top1d(s, 45, static_cast<Backend>(backend));
        QCOMPARE(got.size(), std::size_t(45)); // every one of the 9 * 10 / 2 segments
        QCOMPARE(got[0].sumInt, std::int64_t(6));
        QCOMPARE(got[0].first, std::int64_t(3)); // 4, -1, 2, 1
        QCOMPARE(got[0].last, std::int64_t(6));
        test::checkSegments(s, got, 45, "paper");
        test::checkSegments(s, top1d(s, 1000, static_cast<Backend>(backend)), 1000, "paper, K beyond the count");
    }

    // Hundreds of random sequences of every kind against brute force, K from 1 past the segment count.
    void bruteForce1d_data() {
        QTest::addColumn<QString>("kind");
        for (const char* k : {"int", "negative", "zero", "repeated", "float", "blanks", "big", "scales"})
            QTest::newRow(k) << k;
    }
    void bruteForce1d() {
        QFETCH(QString, kind);
        std::mt19937 rng(qHash(kind) + 1);
        int checked = 0;
        for (std::size_t n : {1, 2, 3, 5, 8, 13, 31, 64, 100}) {
            for (int trial = 0; trial < 5; ++trial) {
                const KMaxSequence s = randomSequence(kind, n, rng);
                if (segmentCount(s) == 0) continue;
                for (std::size_t k : {std::size_t(1), std::size_t(2), std::size_t(7), n, 3 * n, n * (n + 1) / 2 + 3}) {
                    for (Backend b : {Backend::Reference, Backend::Cpu}) {
                        test::checkSegments(s, top1d(s, k, b), k,
                                            QString("%1 n=%2 k=%3 %4").arg(kind).arg(n).arg(k).arg(backendName(b)));
                        if (QTest::currentTestFailed()) return;
                        ++checked;
                    }
                }
            }
        }
        QVERIFY(checked > 300);
    }

    void bruteForce2d_data() {
        QTest::addColumn<QString>("kind");
        for (const char* k : {"int", "float", "negative", "equal", "blanks", "exclusions", "pivot"}) QTest::newRow(k) << k;
    }
    void bruteForce2d() {
        QFETCH(QString, kind);
        std::mt19937 rng(qHash(kind) + 2);
        const std::vector<std::pair<int, int>> shapes = {{1, 1}, {1, 6}, {6, 1}, {2, 3}, {4, 4}, {7, 3}, {3, 9}, {9, 8}};
        int checked = 0;
        for (int seed = 0; seed < 3; ++seed)
            for (const auto& [w, h] : shapes) {
                Image im;
                BrightestParams p;
                p.pivot = PivotSpec::parse("0");
                if (kind == "int") im = test::randomIntImage(w, h, -20, 20, rng);
                else if (kind == "float") im = test::randomFloatImage(w, h, -1.0, 1.0, rng);
                else if (kind == "negative") im = test::randomIntImage(w, h, -9, -1, rng);
                else if (kind == "equal") im = test::randomIntImage(w, h, 3, 3, rng);
                else if (kind == "blanks") im = test::randomIntImage(w, h, -10, 12, rng, 0.2);
                else if (kind == "exclusions") {
                    im = test::randomIntImage(w, h, -5, 6, rng);
                    p.excludeRects.push_back({w / 3, h / 3, 1 + w / 4, 1 + h / 4});
                } else {
                    im = test::randomFloatImage(w, h, 0.0, 255.0, rng);
                    p.pivot = PivotSpec::parse(seed % 2 ? "mean" : "median");
                }
                if (kind == "equal") p.pivot = PivotSpec::parse(seed % 2 ? "3" : "2");
                const std::size_t rects = static_cast<std::size_t>(w) * (w + 1) / 2 * h * (h + 1) / 2;
                for (std::size_t k : {std::size_t(1), std::size_t(5), std::size_t(40), rects + 2}) {
                    p.k = static_cast<int>(k);
                    for (Backend b : {Backend::Reference, Backend::Cpu}) {
                        test::checkRegions(im, p, overlap(im, p, b),
                                           QString("%1 %2x%3 k=%4 %5").arg(kind).arg(w).arg(h).arg(k).arg(backendName(b)));
                        if (QTest::currentTestFailed()) return;
                        ++checked;
                    }
                }
            }
        QVERIFY(checked > 150);
    }

    // The overlap list starts with the brightest region, and (integer mode) agrees with it exactly.
    void overlapStartsWithTheBrightest() {
        std::mt19937 rng(21);
        for (int trial = 0; trial < 5; ++trial) {
            const Image im = test::randomIntImage(40 + trial, 30, 0, 255, rng, 0.01);
            BrightestParams p;
            p.pivot = PivotSpec::parse("p60");
            p.k = 1;
            JobControl job;
            const BrightestResult one = runBrightest(im, p, Backend::Cpu, job);
            p.k = 50;
            for (Backend b : {Backend::Reference, Backend::Cpu}) {
                const BrightestResult many = overlap(im, p, b);
                QCOMPARE(many.regions.size(), std::size_t(50));
                QCOMPARE(many.regions[0].sumInt, one.regions[0].sumInt);
                QCOMPARE(many.mode, BrightestMode::Overlap);
            }
            const auto r = overlap(im, p, Backend::Reference), c = overlap(im, p, Backend::Cpu);
            for (std::size_t i = 0; i < r.regions.size(); ++i) QCOMPARE(r.regions[i].sumInt, c.regions[i].sumInt);
        }
    }

    void cpuAgreesWithReferenceOnLargerInputs() {
        std::mt19937 rng(5);
        for (int trial = 0; trial < 3; ++trial) {
            const KMaxSequence s = KMaxSequence::random(20000 + 777 * trial, 100 + trial);
            for (std::size_t k : {1, 50, 3000}) {
                const auto a = top1d(s, k, Backend::Reference), b = top1d(s, k, Backend::Cpu);
                QCOMPARE(a.size(), b.size());
                for (std::size_t i = 0; i < a.size(); ++i) QCOMPARE(a[i].sumInt, b[i].sumInt);
            }
        }
        for (const char* kind : {"u8", "float"}) {
            Image im = std::string(kind) == "u8" ? test::randomIntImage(90, 70, 0, 255, rng, 0.01)
                                                 : test::randomFloatImage(70, 90, -3, 3.2, rng, 0.02);
            BrightestParams p;
            p.pivot = PivotSpec::parse(std::string(kind) == "u8" ? "p55" : "mean");
            p.k = 300;
            p.excludePolygons.push_back({{{10, 10}, {40.5, 15}, {30, 50.2}}});
            const auto a = overlap(im, p, Backend::Reference), b = overlap(im, p, Backend::Cpu);
            QCOMPARE(a.regions.size(), b.regions.size());
            for (std::size_t i = 0; i < a.regions.size(); ++i) {
                QCOMPARE(a.regions[i].sumInt, b.regions[i].sumInt);
                QVERIFY(a.regions[i].sum == b.regions[i].sum);
            }
        }
    }

    // Every pair ties, or nearly every one: the search must stay linear in n + K, not in the pair count.
    void degenerateInputsStayFast() {
        const std::size_t n = 1 << 20;
        const std::vector<std::pair<QString, KMaxSequence>> cases = {
            {"zeros", KMaxSequence::fromInts(std::vector<std::int64_t>(n, 0))},
            {"ones", KMaxSequence::fromInts(std::vector<std::int64_t>(n, 1))},
            {"minus ones", KMaxSequence::fromInts(std::vector<std::int64_t>(n, -1))},
            {"spike", [&] {
                 std::vector<std::int64_t> v(n, 0);
                 v.back() = 1000;
                 return KMaxSequence::fromInts(std::move(v));
             }()}};
        for (const auto& [name, s] : cases)
            for (Backend b : {Backend::Reference, Backend::Cpu}) {
                const auto start = std::chrono::steady_clock::now();
                const auto got = top1d(s, 5000, b);
                const double ms = msSince(start);
                QCOMPARE(got.size(), std::size_t(5000));
                QVERIFY2(ms < 30000, qPrintable(QString("%1 on %2 took %3 ms").arg(name, backendName(b)).arg(ms)));
                std::set<std::pair<std::int64_t, std::int64_t>> seen;
                for (const auto& g : got) QVERIFY(seen.insert({g.first, g.last}).second);
            }
        // All-equal image at its own value: every rectangle sums to 0.
        std::vector<std::int32_t> flat(400 * 300, 7);
        const Image im = fromInts(400, 300, flat);
        BrightestParams p;
        p.pivot = PivotSpec::parse("7");
        p.k = 2000;
        for (Backend b : {Backend::Cpu}) {
            const auto start = std::chrono::steady_clock::now();
            const auto r = overlap(im, p, b);
            QVERIFY2(msSince(start) < 60000, "all-equal image took too long");
            QCOMPARE(r.regions.size(), std::size_t(2000));
            for (const auto& g : r.regions) QCOMPARE(g.sumInt, std::int64_t(0));
        }
    }

    void errors() {
        JobControl job;
        QVERIFY_THROWS_EXCEPTION(UsageError, runKMax1d(KMaxSequence::fromInts({1, 2}), 0, Backend::Cpu, job));
        QVERIFY_THROWS_EXCEPTION(InputError, runKMax1d(KMaxSequence::fromInts({}), 3, Backend::Cpu, job));
        QVERIFY_THROWS_EXCEPTION(InputError, runKMax1d(KMaxSequence::fromValues({std::nan(""), std::nan("")}), 3,
                                                       Backend::Reference, job));
        QVERIFY_THROWS_EXCEPTION(UsageError,
                                 runKMax1d(KMaxSequence::random(100000, 1), kMaxKMaxResults + 1, Backend::Cpu, job));
        std::mt19937 rng(1);
        const Image im = test::randomIntImage(5, 5, -3, 3, rng);
        BrightestParams p;
        p.k = 0;
        QVERIFY_THROWS_EXCEPTION(UsageError, overlap(im, p, Backend::Cpu));
        // Fewer rectangles than K: all of them, no error.
        p.k = 1000;
        QCOMPARE(overlap(im, p, Backend::Cpu).regions.size(), std::size_t(225));
        // Everything excluded: an empty list.
        p.excludeRects.push_back({0, 0, 5, 5});
        QVERIFY(overlap(im, p, Backend::Reference).regions.empty());
    }

    // Cancelled from inside the run (see test_brightest): it must stop, whatever the machine's speed.
    void cancelActsQuickly() {
        std::mt19937 rng(2);
        const Image im = test::randomIntImage(700, 700, 0, 255, rng);
        for (Backend b : {Backend::Reference, Backend::Cpu}) {
            JobControl job;
            test::CancelInsideRun cancel(job);
            BrightestParams p;
            p.k = 100;
            p.mode = BrightestMode::Overlap;
            bool cancelled = false;
            try {
                runBrightest(im, p, b, job);
            } catch (const Cancelled&) {
                cancelled = true;
            }
            QVERIFY2(cancel.requested(), backendName(b));
            QVERIFY2(cancelled, backendName(b));
            QVERIFY2(cancel.msSinceRequest() < 1000,
                     qPrintable(QString("cancel took %1 ms").arg(cancel.msSinceRequest())));
        }
    }

    void cli() {
        const QString dir = test::tempDir();
        auto write = [&](const QString& name, const QByteArray& text) {
            QFile f(dir + "/" + name);
            f.open(QIODevice::WriteOnly);
            f.write(text);
            return dir + "/" + name;
        };
        auto json = [](const test::CliResult& r) { return QJsonDocument::fromJson(r.out).object(); };
        const QString paper = write("paper.csv", "-3, 1, -2, 4, -1\n2, 1, -5, 3, 0\n");
        auto r = test::runCli({"kmax1d", paper, "--k", "3", "--json", "-", "--backend", "reference"});
        QCOMPARE(r.exitCode, 0);
        QJsonObject doc = json(r);
        QCOMPARE(doc["algorithm"].toString(), QString("kmax1d"));
        QVERIFY(doc.contains("timing_ms") && doc.contains("device") && doc.contains("backend"));
        QCOMPARE(doc["k"].toInt(), 3);
        const QJsonArray segs = doc["segments"].toArray();
        QCOMPARE(segs.size(), 3);
        const QJsonObject best = segs[0].toObject();
        QCOMPARE(best["rank"].toInt(), 1);
        QCOMPARE(best["first"].toInt(), 3);
        QCOMPARE(best["last"].toInt(), 6);
        QCOMPARE(best["sum"].toInteger(), 6);
        r = test::runCli({"kmax1d", "--random", "5000", "--seed", "7", "--k", "20", "--json", "-"});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(json(r)["segments"].toArray().size(), 20);
        // Text output and the same answer from every CPU backend.
        QCOMPARE(test::runCli({"kmax1d", paper, "--k", "2"}).exitCode, 0);

        QCOMPARE(test::runCli({"kmax1d", paper, "--k", "0"}).exitCode, 2);
        QCOMPARE(test::runCli({"kmax1d", paper, "--k", "-1"}).exitCode, 2);
        QCOMPARE(test::runCli({"kmax1d", paper}).exitCode, 2);
        QCOMPARE(test::runCli({"kmax1d", "--k", "3"}).exitCode, 2);
        QCOMPARE(test::runCli({"kmax1d", paper, "--random", "5", "--k", "3"}).exitCode, 2);
        QCOMPARE(test::runCli({"kmax1d", "--random", "0", "--k", "3"}).exitCode, 2);
        QCOMPARE(test::runCli({"kmax1d", paper, "--k", "3", "--backend", "gpu"}).exitCode, 2);
        QCOMPARE(test::runCli({"kmax1d", write("empty.csv", ""), "--k", "3"}).exitCode, 3);
        QCOMPARE(test::runCli({"kmax1d", write("words.csv", "1, 2, three\n"), "--k", "3"}).exitCode, 3);
        QCOMPARE(test::runCli({"kmax1d", dir + "/missing.csv", "--k", "3"}).exitCode, 3);
        if (!test::cudaUsable()) QCOMPARE(test::runCli({"kmax1d", paper, "--k", "3", "--backend", "cuda"}).exitCode, 4);

        // brightest --mode overlap: the K largest rectangles, which may nest.
        const QString m = write("m.csv", "-1,2,-3,5,-4,-8,3,-3\n2,-4,-6,-8,2,-5,4,1\n3,-2,9,-9,3,6,-5,2\n1,-3,5,-7,8,-2,2,-6\n");
        r = test::runCli({"brightest", m, "--pivot", "0", "--mode", "overlap", "--k", "4", "--json", "-", "--backend", "cpu"});
        QCOMPARE(r.exitCode, 0);
        doc = json(r);
        QCOMPARE(doc["mode"].toString(), QString("overlap"));
        const QJsonArray regions = doc["regions"].toArray();
        QCOMPARE(regions.size(), 4);
        QCOMPARE(regions[0].toObject()["sum"].toInteger(), 15);
        for (int i = 1; i < 4; ++i)
            QVERIFY(regions[i].toObject()["sum"].toInteger() <= regions[i - 1].toObject()["sum"].toInteger());
        QCOMPARE(test::runCli({"brightest", m, "--mode", "overlap", "--k", "0"}).exitCode, 2);
        QCOMPARE(test::runCli({"brightest", m, "--mode", "sideways"}).exitCode, 2);
    }
};

QTEST_GUILESS_MAIN(TestKMax)
#include "test_kmax.moc"
