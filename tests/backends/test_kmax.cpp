// K maximum subarrays (1-D segments and overlapping rectangles) on every backend (reference, cpu, cuda;
// the cuda rows skip without a usable device): brute force over every segment and rectangle on hundreds
// of random small inputs (negative, all-zero, repeated values, blanks, exclusions, K beyond the count),
// the paper's example, agreement with an oracle backend (bit-identical sums) on larger inputs and on every
// number path (int32, int64, double), solver reuse, ties and degenerate inputs whose pair counts explode,
// errors, cancel and the CLI.
#include "tests/support/KMaxChecks.h"
#include "tests/support/OverlapChecks.h"
#include "tests/support/RegionChecks.h"
#include "tests/support/TestSupport.h"

#include "cuda/Backends.h"
#include "core/util/Errors.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QtTest>

#include <chrono>
#include <set>
#include <tuple>

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

// The oracle a backend is compared with on inputs too large for brute force.
Backend oracleFor(Backend b) { return b == Backend::Cuda ? Backend::Cpu : Backend::Reference; }

// A random sequence of one of the test kinds.
KMaxSequence randomSequence(const QString& kind, std::size_t n, std::mt19937& rng) {
    std::vector<double> v(n);
    std::uniform_int_distribution<int> small(-20, 20), neg(-9, -1), tri(-1, 1);
    std::uniform_real_distribution<double> real(-1.0, 1.0);
    std::bernoulli_distribution blank(0.15);
    if (kind == "big 1e9") { // multiples of 1e9 up to 1e15: int64 sums
        std::vector<std::int64_t> iv(n);
        for (auto& x : iv) x = static_cast<std::int64_t>(rng() % 2000001) * 1000000000LL - 1000000000000000LL;
        return KMaxSequence::fromInts(std::move(iv));
    }
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

void checkDistinct(const std::vector<KMaxSegment>& segments) {
    std::set<std::pair<std::int64_t, std::int64_t>> seen;
    for (const auto& g : segments) QVERIFY(seen.insert({g.first, g.last}).second);
}

void checkDistinct(const BrightestResult& r) {
    std::set<std::tuple<int, int, int, int>> seen;
    for (const auto& g : r.regions) QVERIFY(seen.insert({g.x, g.y, g.width, g.height}).second);
}

} // namespace

class TestKMax : public QObject {
    Q_OBJECT

private slots:
    void paperExample_data() { test::addBackendRows(); }
    void paperExample() {
        GLINT_FETCH_BACKEND(backend);
        const KMaxSequence s = KMaxSequence::fromInts({-3, 1, -2, 4, -1, 2, 1, -5, 3});
        const auto one = top1d(s, 1, backend);
        QCOMPARE(one.size(), std::size_t(1));
        const auto got = top1d(s, 45, backend);
        QCOMPARE(got.size(), std::size_t(45)); // every one of the 9 * 10 / 2 segments
        for (const auto& best : {one[0], got[0]}) {
            QCOMPARE(best.sumInt, std::int64_t(6));
            QCOMPARE(best.first, std::int64_t(3)); // 4, -1, 2, 1
            QCOMPARE(best.last, std::int64_t(6));
        }
        test::checkSegments(s, got, 45, "paper");
        for (std::size_t k : {100, 1000}) test::checkSegments(s, top1d(s, k, backend), k, "paper, K beyond the count");
    }

    // Hundreds of random sequences of every kind against brute force, K from 1 past the segment count.
    // The device also gets lengths around its warp and a longer sequence.
    void bruteForce1d_data() {
        test::addBackendColumn();
        QTest::addColumn<QString>("kind");
        for (Backend b : test::allBackends)
            for (const char* k : {"int", "negative", "zero", "repeated", "float", "blanks", "big", "big 1e9", "scales"})
                if (!(b == Backend::Cuda && QString(k) == "big")) test::newBackendRow(b, k) << k;
    }
    void bruteForce1d() {
        GLINT_FETCH_BACKEND(backend);
        QFETCH(QString, kind);
        const bool device = backend == Backend::Cuda;
        std::mt19937 rng(qHash(kind) + (device ? 11 : 1));
        const std::vector<std::size_t> sizes = device ? std::vector<std::size_t>{1, 2, 3, 7, 31, 32, 33, 64, 100, 1100}
                                                      : std::vector<std::size_t>{1, 2, 3, 5, 8, 13, 31, 64, 100};
        int checked = 0;
        for (std::size_t n : sizes) {
            for (int trial = 0; trial < (n > 200 ? 1 : device ? 4 : 5); ++trial) {
                const KMaxSequence s = randomSequence(kind, n, rng);
                if (segmentCount(s) == 0) continue;
                const std::vector<std::size_t> ks = device ? std::vector<std::size_t>{1, 5, n, 4 * n, n * (n + 1) / 2 + 3}
                                                           : std::vector<std::size_t>{1, 2, 7, n, 3 * n, n * (n + 1) / 2 + 3};
                for (std::size_t k : ks) {
                    if (n > 200 && k > 5000) continue;
                    test::checkSegments(s, top1d(s, k, backend), k, QString("%1 n=%2 k=%3").arg(kind).arg(n).arg(k));
                    if (QTest::currentTestFailed()) return;
                    ++checked;
                }
            }
        }
        QVERIFY(checked > 100);
    }

    void bruteForce2d_data() {
        test::addBackendKindRows({Backend::Reference, Backend::Cpu, Backend::Cuda},
                                 {"int", "float", "negative", "equal", "blanks", "exclusions", "pivot", "big"});
    }
    void bruteForce2d() {
        GLINT_FETCH_BACKEND(backend);
        QFETCH(QString, kind);
        std::mt19937 rng(qHash(kind) + 2);
        const std::vector<std::pair<int, int>> shapes = {{1, 1}, {1, 6}, {6, 1}, {2, 3}, {4, 4}, {5, 5},
                                                         {7, 3}, {3, 9}, {9, 4}, {4, 9}, {9, 8}, {13, 11}};
        int checked = 0;
        for (int seed = 0; seed < 2; ++seed)
            for (const auto& [w, h] : shapes) {
                BrightestParams p;
                const Image im = test::randomSearchInput(kind, w, h, seed % 2, rng, p);
                const std::size_t rects = static_cast<std::size_t>(w) * (w + 1) / 2 * h * (h + 1) / 2;
                for (std::size_t k : {std::size_t(1), std::size_t(5), std::size_t(7), std::size_t(40), std::size_t(60), rects + 2}) {
                    p.k = static_cast<int>(k);
                    test::checkRegions(im, p, overlap(im, p, backend), QString("%1 %2x%3 k=%4").arg(kind).arg(w).arg(h).arg(k));
                    if (QTest::currentTestFailed()) return;
                    ++checked;
                }
            }
        QVERIFY(checked > 100);
    }

    // The overlap list starts with the brightest region, and (integer mode) agrees with it exactly, and
    // with the reference's list rank by rank.
    void overlapStartsWithTheBrightest_data() { test::addBackendRows({Backend::Reference, Backend::Cpu}); }
    void overlapStartsWithTheBrightest() {
        GLINT_FETCH_BACKEND(backend);
        std::mt19937 rng(21);
        for (int trial = 0; trial < 5; ++trial) {
            const Image im = test::randomIntImage(40 + trial, 30, 0, 255, rng, 0.01);
            BrightestParams p;
            p.pivot = PivotSpec::parse("p60");
            p.k = 1;
            JobControl job;
            const BrightestResult one = runBrightest(im, p, Backend::Cpu, job);
            p.k = 50;
            const BrightestResult many = overlap(im, p, backend);
            QCOMPARE(many.regions.size(), std::size_t(50));
            QCOMPARE(many.regions[0].sumInt, one.regions[0].sumInt);
            QCOMPARE(many.mode, BrightestMode::Overlap);
            const auto r = overlap(im, p, Backend::Reference);
            for (std::size_t i = 0; i < r.regions.size(); ++i) QCOMPARE(many.regions[i].sumInt, r.regions[i].sumInt);
        }
    }

    // Long sequences against the oracle backend (cpu: the reference; cuda: cpu), bit for bit, through one
    // load and several searches (the resident path the bench times). On the device: sizes around the
    // integer scan's tiles of 4096 elements (n + 1 of them), and one with more tiles than the block that
    // scans the tiles' summaries has threads, on every number path.
    void agreesOnLongSequences_data() {
        test::addBackendColumn();
        test::columns<QString, int, int>({"kind", "n", "seed"});
        for (int trial = 0; trial < 3; ++trial)
            test::newBackendRow(Backend::Cpu, QString("random %1").arg(20000 + 777 * trial)) << "random" << 20000 + 777 * trial << 100 + trial;
        for (const char* k : {"random", "wide", "float", "blanks"})
            for (int n : {4095, 4096, 8191, 12288, 100000, 1 << 20})
                test::newBackendRow(Backend::Cuda, QString("%1 %2").arg(k).arg(n)) << k << n << 42;
        test::newBackendRow(Backend::Cuda, "random 5000000") << "random" << 5000000 << 42;
        test::newBackendRow(Backend::Cuda, "wide 4200000") << "wide" << 4200000 << 42;
    }
    void agreesOnLongSequences() {
        GLINT_FETCH_BACKEND(backend);
        QFETCH(QString, kind);
        QFETCH(int, n);
        QFETCH(int, seed);
        std::mt19937 rng(n);
        KMaxSequence s;
        if (kind == "random") s = KMaxSequence::random(n, seed); // int32 path
        else if (kind == "wide") {                              // int64 path
            std::vector<std::int64_t> v(n);
            for (auto& x : v) x = static_cast<std::int64_t>(rng() % 2000000001u) - 1000000000;
            s = KMaxSequence::fromInts(std::move(v));
        } else if (kind == "blanks") {
            std::vector<double> v(n);
            for (auto& x : v) x = rng() % 50 == 0 ? std::nan("") : static_cast<double>(static_cast<int>(rng() % 2001) - 1000);
            s = KMaxSequence::fromValues(std::move(v));
        } else s = randomSequence(kind, n, rng);
        auto solver = BackendRegistry<KMax1dSolver>::create(backend);
        JobControl loadJob;
        solver->load(s, loadJob);
        const std::vector<std::size_t> ks = backend == Backend::Cuda ? std::vector<std::size_t>{1, 50, 1000, 10000}
                                                                     : std::vector<std::size_t>{1, 50, 3000};
        for (std::size_t k : ks) {
            JobControl job;
            const auto got = solver->topK(k, job);
            test::checkSameSegmentSums(got, top1d(s, k, oracleFor(backend)), s.integer, QString("%1 n=%2 k=%3").arg(kind).arg(n).arg(k));
            if (QTest::currentTestFailed()) return;
            checkDistinct(got);
        }
    }

    // The same search again on the same solver (captured once as a CUDA graph and replayed on the device)
    // gives the same answer, also when the queued passes leave the work to the host.
    void repeatedSearchesAgree_data() { test::addBackendRows({Backend::Cpu, Backend::Cuda}); }
    void repeatedSearchesAgree() {
        GLINT_FETCH_BACKEND(backend);
        const std::vector<std::pair<QString, KMaxSequence>> cases = {
            {"random", KMaxSequence::random(1 << 18, 5)},
            {"zeros", KMaxSequence::fromInts(std::vector<std::int64_t>(1 << 16, 0))},
            {"float", KMaxSequence::fromValues([] {
                 std::vector<double> v(50000);
                 for (std::size_t i = 0; i < v.size(); ++i) v[i] = std::sin(i * 0.37) + 0.01 * std::cos(i * 1.3);
                 return v;
             }())}};
        for (const auto& [name, s] : cases) {
            auto solver = BackendRegistry<KMax1dSolver>::create(backend);
            JobControl loadJob;
            solver->load(s, loadJob);
            for (std::size_t k : {std::size_t(50), std::size_t(3000)}) {
                const auto want = top1d(s, k, Backend::Cpu);
                for (int round = 0; round < 4; ++round) {
                    JobControl job;
                    test::checkSameSegmentSums(solver->topK(k, job), want, s.integer,
                                               QString("%1 k=%2 round %3").arg(name).arg(k).arg(round));
                    if (QTest::currentTestFailed()) return;
                }
            }
        }
    }

    // Every pair ties, or nearly every one: the search must stay linear in n + K, not in the pair count
    // (on the device the counting passes stop at their cap and the bracket search takes over); the
    // answer must still be exact and agree with the cpu backend.
    void degenerateInputsStayFast_data() { test::addBackendRows(); }
    void degenerateInputsStayFast() {
        GLINT_FETCH_BACKEND(backend);
        const std::size_t n = 1 << 20;
        std::vector<std::pair<QString, KMaxSequence>> cases;
        cases.emplace_back("zeros", KMaxSequence::fromInts(std::vector<std::int64_t>(n, 0)));
        cases.emplace_back("ones", KMaxSequence::fromInts(std::vector<std::int64_t>(n, 1)));
        cases.emplace_back("minus ones", KMaxSequence::fromInts(std::vector<std::int64_t>(n, -1)));
        std::vector<std::int64_t> spike(n, 0);
        spike.back() = 1000;
        cases.emplace_back("spike", KMaxSequence::fromInts(spike));
        std::vector<std::int64_t> steps(n);
        for (std::size_t i = 0; i < n; ++i) steps[i] = (i / 4096) % 2 ? 1 : -1;
        cases.emplace_back("steps", KMaxSequence::fromInts(steps));
        const double limitMs = backend == Backend::Cuda ? 3000 : 30000;
        for (const auto& [name, s] : cases)
            for (std::size_t k : {1, 5000}) {
                const auto start = std::chrono::steady_clock::now();
                const auto got = top1d(s, k, backend);
                const double ms = msSince(start);
                qInfo("%s k=%zu: %.1f ms", qPrintable(name), k, ms);
                QCOMPARE(got.size(), k);
                QVERIFY2(ms < limitMs, qPrintable(QString("%1 on %2 took %3 ms").arg(name, backendName(backend)).arg(ms)));
                if (backend != Backend::Cpu) test::checkSameSegmentSums(got, top1d(s, k, Backend::Cpu), true, name);
                if (QTest::currentTestFailed()) return;
                checkDistinct(got);
            }
    }

    // Sums that tie at the threshold (a saturated frame with the pivot at its maximum, all-equal data at
    // its own value, a flat run then a spike): every rectangle distinct, all-equal data all at sum 0; the
    // device gives the cpu backend's sums and costs at most a few times as much (here: 10x + 2 s, loose
    // enough for any pair of machines).
    void tiesStayBounded_data() {
        test::addSizedCaseColumns();
        test::newBackendRow(Backend::Cpu, "all equal 400x300") << "equal" << 400 << 300 << 2000;
        // The saturated frame at the size it was reported at (a 2148 x 2102 flat field).
        test::newBackendRow(Backend::Cuda, "saturated flat, p99") << "saturated" << 2148 << 2102 << 30;
        test::newBackendRow(Backend::Cuda, "all equal") << "equal" << 1100 << 1000 << 1000;
        test::newBackendRow(Backend::Cuda, "flat then spike") << "spike" << 1100 << 1000 << 100;
        test::newBackendRow(Backend::Cuda, "all below the pivot") << "negative" << 600 << 500 << 30;
    }
    void tiesStayBounded() {
        GLINT_FETCH_BACKEND(backend);
        const auto [kind, w, h, k] = test::fetchSizedCase();
        BrightestParams p;
        p.mode = BrightestMode::Overlap;
        p.k = k;
        Image im;
        if (kind == "saturated") {
            std::mt19937 rng(4);
            std::normal_distribution<double> noise(0.0, 150.0);
            std::vector<std::uint16_t> px(static_cast<std::size_t>(w) * h);
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) {
                    const double dx = (x - 0.5 * w) / w, dy = (y - 0.5 * h) / h;
                    px[static_cast<std::size_t>(y) * w + x] = static_cast<std::uint16_t>(
                        std::clamp(69000.0 * (1.0 - 2.2 * (dx * dx + dy * dy)) + noise(rng), 0.0, 65535.0));
                }
            im = Image::fromSamples<std::uint16_t>(w, h, std::move(px));
            p.pivot = PivotSpec::parse("p99");
        } else if (kind == "equal") {
            im = test::intImage(w, h, std::vector<std::int32_t>(static_cast<std::size_t>(w) * h, 7));
            p.pivot = PivotSpec::parse("7");
        } else if (kind == "spike") {
            std::vector<std::int32_t> px(static_cast<std::size_t>(w) * h, 5);
            px.back() = 1000;
            im = test::intImage(w, h, std::move(px));
            p.pivot = PivotSpec::parse("5");
        } else {
            std::mt19937 rng(6);
            im = test::randomIntImage(w, h, 0, 100, rng);
            p.pivot = PivotSpec::parse("101");
        }
        auto timed = [&](Backend b, BrightestResult& out) {
            const auto start = std::chrono::steady_clock::now();
            out = overlap(im, p, b);
            return msSince(start);
        };
        BrightestResult got, cpu;
        if (backend == Backend::Cpu) {
            QVERIFY2(timed(Backend::Cpu, got) < 60000, "the ties took too long");
        } else {
            timed(backend, got); // warm-up
            const double ms = timed(backend, got), cpuMs = timed(Backend::Cpu, cpu);
            qInfo("%s k=%d: %s %.1f ms, cpu %.1f ms", qPrintable(kind), p.k, backendName(backend), ms, cpuMs);
            test::checkSameRegionSums(got, cpu, kind);
            if (QTest::currentTestFailed()) return;
            QVERIFY2(ms < 10 * cpuMs + 2000, qPrintable(QString("%1 %2 ms, cpu %3 ms").arg(backendName(backend)).arg(ms).arg(cpuMs)));
        }
        checkDistinct(got);
        if (kind == "equal") {
            QCOMPARE(got.regions.size(), std::size_t(k));
            for (const auto& g : got.regions) QCOMPARE(g.sumInt, std::int64_t(0));
        }
    }

    // Larger images against the oracle backend (cpu: the reference; cuda: cpu, on each path of its strip
    // kernel), bit for bit.
    void agreesOnLargerImages_data() {
        test::addBackendColumn();
        QTest::addColumn<QString>("kind");
        for (const char* k : {"noise u8", "noise float"}) test::newBackendRow(Backend::Cpu, k) << k;
        for (const char* k : {"u8", "u8 tall", "u8 exclusions", "big", "float", "float blanks", "flat"})
            test::newBackendRow(Backend::Cuda, k) << k;
    }
    void agreesOnLargerImages() {
        GLINT_FETCH_BACKEND(backend);
        QFETCH(QString, kind);
        std::mt19937 rng(qHash(kind));
        Image im;
        BrightestParams p;
        p.k = 100;
        if (kind.startsWith("noise")) {
            im = kind == "noise u8" ? test::randomIntImage(90, 70, 0, 255, rng, 0.01) : test::randomFloatImage(70, 90, -3, 3.2, rng, 0.02);
            p.pivot = PivotSpec::parse(kind == "noise u8" ? "p55" : "mean");
            p.k = 300;
            p.excludePolygons.push_back({{{10, 10}, {40.5, 15}, {30, 50.2}}});
        } else if (kind.startsWith("u8")) {
            im = test::randomIntImage(kind == "u8 tall" ? 90 : 300, kind == "u8 tall" ? 260 : 200, 0, 255, rng);
            p.pivot = PivotSpec::parse("p52");
            if (kind == "u8 exclusions") {
                p.excludeRects.push_back({40, 30, 50, 20});
                p.excludePolygons.push_back({{{100, 100}, {180.5, 120}, {140, 190.2}}});
            }
        } else if (kind == "big") {
            im = test::randomIntImage(200, 150, 0, 2000000000, rng);
            p.pivot = PivotSpec::parse("1000000000");
        } else if (kind == "flat") {
            im = test::randomIntImage(300, 200, 7, 7, rng);
            p.pivot = PivotSpec::parse("7");
            p.k = 3000;
        } else {
            im = test::randomFloatImage(260, 180, -3, 3.3, rng, kind == "float blanks" ? 0.01 : 0.0);
            p.pivot = PivotSpec::parse("mean");
        }
        for (int k : {1, p.k}) {
            p.k = k;
            const auto start = std::chrono::steady_clock::now();
            const BrightestResult got = overlap(im, p, backend);
            qInfo("%s k=%d: %.1f ms", qPrintable(kind), k, msSince(start));
            test::checkSameRegionSums(got, overlap(im, p, oracleFor(backend)), QString("%1 k=%2").arg(kind).arg(k));
            if (QTest::currentTestFailed()) return;
            checkDistinct(got);
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
        const Image im = test::randomIntImage(5, 5, -3, 3, test::Seed{1});
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
    void cancelActsQuickly_data() { test::addBackendRows({Backend::Reference, Backend::Cpu}); }
    void cancelActsQuickly() {
        GLINT_FETCH_BACKEND(backend);
        const Image im = test::randomIntImage(700, 700, 0, 255, test::Seed{2});
        BrightestParams p;
        p.k = 100;
        p.mode = BrightestMode::Overlap;
        test::checkCancelInsideRun([&](JobControl& job) { runBrightest(im, p, backend, job); }, backendName(backend));
    }

    void cli() {
        const QString dir = test::tempDir();
        const auto write = test::writeTempFile;
        const auto json = test::jsonOf;
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
        const QString m = write("m.csv", test::brightestPaperCsv());
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

GLINT_BACKEND_TEST_MAIN(TestKMax)
#include "test_kmax.moc"
