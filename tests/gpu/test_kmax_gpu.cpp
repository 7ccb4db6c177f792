// The CUDA K-MSP backends (1-D and overlap rectangles) against brute force on small inputs and against the
// CPU backends (bit-identical sums) on larger ones, on every number path (int32, int64, double), with
// blanks, exclusions, ties and degenerate inputs whose pair counts explode.
#include "tests/support/TestSupport.h"
#include "tests/cpu/test_kmax_checks.h"

#include "cuda/Backends.h"
#include "core/util/Errors.h"

#include <QtTest>

#include <chrono>

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

// The same multiset of sums, bit for bit (ties may list different segments).
void sameSums(const std::vector<KMaxSegment>& a, const std::vector<KMaxSegment>& b, bool integer, const QString& what) {
    QVERIFY2(a.size() == b.size(), qPrintable(what + QString(": %1 vs %2 segments").arg(a.size()).arg(b.size())));
    for (std::size_t i = 0; i < a.size(); ++i) {
        const bool same = integer ? a[i].sumInt == b[i].sumInt : a[i].sum == b[i].sum;
        QVERIFY2(same, qPrintable(what + QString(": rank %1: %2 vs %3").arg(i + 1).arg(a[i].sum, 0, 'g', 17).arg(b[i].sum, 0, 'g', 17)));
    }
}

void sameRegionSums(const BrightestResult& a, const BrightestResult& b, const QString& what) {
    QVERIFY2(a.regions.size() == b.regions.size(),
             qPrintable(what + QString(": %1 vs %2 regions").arg(a.regions.size()).arg(b.regions.size())));
    for (std::size_t i = 0; i < a.regions.size(); ++i)
        QVERIFY2(a.regions[i].sumInt == b.regions[i].sumInt && a.regions[i].sum == b.regions[i].sum,
                 qPrintable(what + QString(": rank %1: %2 vs %3").arg(i + 1).arg(a.regions[i].sum, 0, 'g', 17).arg(b.regions[i].sum, 0, 'g', 17)));
}

KMaxSequence kindSequence(const QString& kind, std::size_t n, std::mt19937& rng) {
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
        else x = std::ldexp(real(rng), static_cast<int>(rng() % 60) - 30);
    }
    if (kind == "big") {
        std::vector<std::int64_t> iv(n);
        for (auto& x : iv) x = static_cast<std::int64_t>(rng() % 2000001) * 1000000000LL - 1000000000000000LL;
        return KMaxSequence::fromInts(std::move(iv));
    }
    return KMaxSequence::fromValues(std::move(v));
}

} // namespace

class TestKMaxGpu : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        if (!test::cudaUsable()) QSKIP("no usable CUDA device");
    }

    void paperExample() {
        const KMaxSequence s = KMaxSequence::fromInts({-3, 1, -2, 4, -1, 2, 1, -5, 3});
        const auto got = top1d(s, 1, Backend::Cuda);
        QCOMPARE(got.size(), std::size_t(1));
        QCOMPARE(got[0].sumInt, std::int64_t(6));
        QCOMPARE(got[0].first, std::int64_t(3));
        QCOMPARE(got[0].last, std::int64_t(6));
        test::checkSegments(s, top1d(s, 45, Backend::Cuda), 45, "paper, all");
        test::checkSegments(s, top1d(s, 100, Backend::Cuda), 100, "paper, K beyond the count");
    }

    void bruteForce1d_data() {
        QTest::addColumn<QString>("kind");
        for (const char* k : {"int", "negative", "zero", "repeated", "float", "blanks", "big", "scales"}) QTest::newRow(k) << k;
    }
    void bruteForce1d() {
        QFETCH(QString, kind);
        std::mt19937 rng(qHash(kind) + 11);
        int checked = 0;
        for (std::size_t n : {1, 2, 3, 7, 31, 32, 33, 64, 100, 1100}) {
            for (int trial = 0; trial < (n > 200 ? 1 : 4); ++trial) {
                const KMaxSequence s = kindSequence(kind, n, rng);
                if (segmentCount(s) == 0) continue;
                for (std::size_t k : {std::size_t(1), std::size_t(5), n, 4 * n, n * (n + 1) / 2 + 3}) {
                    if (n > 200 && k > 5000) continue;
                    test::checkSegments(s, top1d(s, k, Backend::Cuda), k, QString("%1 n=%2 k=%3").arg(kind).arg(n).arg(k));
                    if (QTest::currentTestFailed()) return;
                    ++checked;
                }
            }
        }
        QVERIFY(checked > 100);
    }

    // Long sequences on every number path against the CPU backend, bit for bit.
    void againstCpu1d_data() {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<int>("n");
        // Sizes around the integer scan's tiles of 4096 elements (n + 1 of them), and one with more tiles
        // than the block that scans the tiles' summaries has threads.
        for (const char* k : {"random", "wide", "float", "blanks"})
            for (int n : {4095, 4096, 8191, 12288, 100000, 1 << 20})
                QTest::newRow(qPrintable(QString("%1 %2").arg(k).arg(n))) << k << n;
        QTest::newRow("random 5000000") << "random" << 5000000;
        QTest::newRow("wide 4200000") << "wide" << 4200000;
    }
    void againstCpu1d() {
        QFETCH(QString, kind);
        QFETCH(int, n);
        std::mt19937 rng(n);
        KMaxSequence s;
        if (kind == "random") s = KMaxSequence::random(n, 42); // int32 path
        else if (kind == "wide") {                            // int64 path
            std::vector<std::int64_t> v(n);
            for (auto& x : v) x = static_cast<std::int64_t>(rng() % 2000000001u) - 1000000000;
            s = KMaxSequence::fromInts(std::move(v));
        }
        else if (kind == "blanks") {
            std::vector<double> v(n);
            for (auto& x : v) x = rng() % 50 == 0 ? std::nan("") : static_cast<double>(static_cast<int>(rng() % 2001) - 1000);
            s = KMaxSequence::fromValues(std::move(v));
        } else s = kindSequence(kind, n, rng);
        // One load, several searches: the resident path the bench times.
        auto cuda = BackendRegistry<KMax1dSolver>::create(Backend::Cuda);
        JobControl loadJob;
        cuda->load(s, loadJob);
        for (std::size_t k : {1, 50, 1000, 10000}) {
            JobControl job;
            const auto g = cuda->topK(k, job);
            const auto c = top1d(s, k, Backend::Cpu);
            sameSums(g, c, s.integer, QString("%1 n=%2 k=%3").arg(kind).arg(n).arg(k));
            if (QTest::currentTestFailed()) return;
            std::set<std::pair<std::int64_t, std::int64_t>> seen;
            for (const auto& x : g) QVERIFY(seen.insert({x.first, x.last}).second);
        }
    }

    // The same search again on the same solver is captured once as a CUDA graph and replayed: the
    // replays must give the same answer, also when the queued passes leave the work to the host.
    void repeatedSearchesReplay() {
        const std::vector<std::pair<QString, KMaxSequence>> cases = {
            {"random", KMaxSequence::random(1 << 18, 5)},
            {"zeros", KMaxSequence::fromInts(std::vector<std::int64_t>(1 << 16, 0))},
            {"float", KMaxSequence::fromValues([] {
                 std::vector<double> v(50000);
                 for (std::size_t i = 0; i < v.size(); ++i) v[i] = std::sin(i * 0.37) + 0.01 * std::cos(i * 1.3);
                 return v;
             }())}};
        for (const auto& [name, s] : cases) {
            auto cuda = BackendRegistry<KMax1dSolver>::create(Backend::Cuda);
            JobControl loadJob;
            cuda->load(s, loadJob);
            for (std::size_t k : {std::size_t(50), std::size_t(3000)}) {
                const auto want = top1d(s, k, Backend::Cpu);
                for (int round = 0; round < 4; ++round) {
                    JobControl job;
                    sameSums(cuda->topK(k, job), want, s.integer, QString("%1 k=%2 round %3").arg(name).arg(k).arg(round));
                    if (QTest::currentTestFailed()) return;
                }
            }
        }
    }

    // Every pair ties (or nearly): the counting passes stop at their cap and the bracket search takes
    // over; the answer must still be exact, in bounded time.
    void degenerate1d() {
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
        for (const auto& [name, s] : cases)
            for (std::size_t k : {1, 5000}) {
                const auto start = std::chrono::steady_clock::now();
                const auto g = top1d(s, k, Backend::Cuda);
                const double ms = msSince(start);
                qInfo("%s k=%zu: %.1f ms", qPrintable(name), k, ms);
                QVERIFY2(ms < 3000, qPrintable(QString("%1 took %2 ms").arg(name).arg(ms)));
                sameSums(g, top1d(s, k, Backend::Cpu), true, name);
                if (QTest::currentTestFailed()) return;
                std::set<std::pair<std::int64_t, std::int64_t>> seen;
                for (const auto& x : g) QVERIFY(seen.insert({x.first, x.last}).second);
            }
    }

    // Sums that tie at the threshold (a saturated frame with the pivot at its maximum, all-equal data at
    // its own value, a flat run then a spike): the GPU gives the cpu backend's sums and costs at most a
    // few times as much (here: 10x + 2 s, loose enough for any pair of machines).
    void tiesStayBounded_data() {
        QTest::addColumn<QString>("kind");
        QTest::newRow("saturated flat, p99") << QString("saturated");
        QTest::newRow("all equal") << QString("equal");
        QTest::newRow("flat then spike") << QString("spike");
        QTest::newRow("all below the pivot") << QString("negative");
    }
    void tiesStayBounded() {
        QFETCH(QString, kind);
        if (!test::cudaUsable()) QSKIP("no usable CUDA device");
        // The saturated frame at the size it was reported at (a 2148 x 2102 flat field).
        const int w = kind == "saturated" ? 2148 : 1100, h = kind == "saturated" ? 2102 : 1000;
        BrightestParams p;
        p.mode = BrightestMode::Overlap;
        p.k = 30;
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
            im = Image::fromSamples<std::int32_t>(w, h, std::vector<std::int32_t>(static_cast<std::size_t>(w) * h, 7));
            p.pivot = PivotSpec::parse("7");
            p.k = 1000;
        } else if (kind == "spike") {
            std::vector<std::int32_t> px(static_cast<std::size_t>(w) * h, 5);
            px.back() = 1000;
            im = Image::fromSamples<std::int32_t>(w, h, std::move(px));
            p.pivot = PivotSpec::parse("5");
            p.k = 100;
        } else {
            std::mt19937 rng(6);
            im = test::randomIntImage(600, 500, 0, 100, rng);
            p.pivot = PivotSpec::parse("101");
        }
        auto timed = [&](Backend b, BrightestResult& out) {
            const auto start = std::chrono::steady_clock::now();
            out = overlap(im, p, b);
            return msSince(start);
        };
        BrightestResult g, c;
        timed(Backend::Cuda, g); // warm-up
        const double gpuMs = timed(Backend::Cuda, g), cpuMs = timed(Backend::Cpu, c);
        qInfo("%s k=%d: cuda %.1f ms, cpu %.1f ms", qPrintable(kind), p.k, gpuMs, cpuMs);
        sameRegionSums(g, c, kind);
        if (QTest::currentTestFailed()) return;
        QVERIFY2(gpuMs < 10 * cpuMs + 2000, qPrintable(QString("cuda %1 ms, cpu %2 ms").arg(gpuMs).arg(cpuMs)));
        std::set<std::tuple<int, int, int, int>> seen;
        for (const auto& r : g.regions) QVERIFY(seen.insert({r.x, r.y, r.width, r.height}).second);
    }

    void bruteForce2d_data() {
        QTest::addColumn<QString>("kind");
        for (const char* k : {"int", "float", "negative", "equal", "blanks", "exclusions", "big"}) QTest::newRow(k) << k;
    }
    void bruteForce2d() {
        QFETCH(QString, kind);
        std::mt19937 rng(qHash(kind) + 12);
        const std::vector<std::pair<int, int>> shapes = {{1, 1}, {1, 6}, {6, 1}, {2, 3}, {5, 5}, {9, 4}, {4, 9}, {13, 11}};
        int checked = 0;
        for (int seed = 0; seed < 2; ++seed)
            for (const auto& [w, h] : shapes) {
                Image im;
                BrightestParams p;
                p.pivot = PivotSpec::parse("0");
                if (kind == "int") im = test::randomIntImage(w, h, -20, 20, rng);
                else if (kind == "float") im = test::randomFloatImage(w, h, -1.0, 1.0, rng);
                else if (kind == "negative") im = test::randomIntImage(w, h, -9, -1, rng);
                else if (kind == "equal") im = test::randomIntImage(w, h, 3, 3, rng);
                else if (kind == "blanks") im = test::randomIntImage(w, h, -10, 12, rng, 0.2);
                else if (kind == "big") im = test::randomIntImage(w, h, -1000000000, 1000000000, rng);
                else {
                    im = test::randomIntImage(w, h, -5, 6, rng);
                    p.excludeRects.push_back({w / 3, h / 3, 1 + w / 4, 1 + h / 4});
                }
                if (kind == "equal") p.pivot = PivotSpec::parse("3");
                const std::size_t rects = static_cast<std::size_t>(w) * (w + 1) / 2 * h * (h + 1) / 2;
                for (std::size_t k : {std::size_t(1), std::size_t(7), std::size_t(60), rects + 2}) {
                    p.k = static_cast<int>(k);
                    test::checkRegions(im, p, overlap(im, p, Backend::Cuda), QString("%1 %2x%3 k=%4").arg(kind).arg(w).arg(h).arg(k));
                    if (QTest::currentTestFailed()) return;
                    ++checked;
                }
            }
        QVERIFY(checked > 50);
    }

    // Larger images on each path of the strip kernel against the CPU backend, bit for bit.
    void againstCpu2d_data() {
        QTest::addColumn<QString>("kind");
        for (const char* k : {"u8", "u8 tall", "u8 exclusions", "big", "float", "float blanks", "flat"}) QTest::newRow(k) << k;
    }
    void againstCpu2d() {
        QFETCH(QString, kind);
        std::mt19937 rng(qHash(kind));
        Image im;
        BrightestParams p;
        p.k = 100;
        if (kind.startsWith("u8")) {
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
            const BrightestResult g = overlap(im, p, Backend::Cuda);
            qInfo("%s k=%d: %.1f ms", qPrintable(kind), k, msSince(start));
            sameRegionSums(g, overlap(im, p, Backend::Cpu), QString("%1 k=%2").arg(kind).arg(k));
            if (QTest::currentTestFailed()) return;
            std::set<std::tuple<int, int, int, int>> seen;
            for (const auto& r : g.regions) QVERIFY(seen.insert({r.x, r.y, r.width, r.height}).second);
        }
    }
};

QTEST_GUILESS_MAIN(TestKMaxGpu)
#include "test_kmax_gpu.moc"
