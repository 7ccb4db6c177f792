// Fast K (issue 14): the CPU and CUDA backends keep each strip's best between the rounds of the greedy
// disjoint search and compute again only the strips whose best the last rectangle overlaps. The answers
// must be the reference's full loop, bit for bit: the same rectangles in the same order, the same sums,
// rounds, rejections and cap, on many random inputs (sizes, K, exclusions, ROI, ties of small integers,
// doubles, filters) and on the synthetic star field at K = 100. Also: the progress a search reports moves
// steadily (per block of strips within a round, and per round). The CUDA rows skip without a device.
#include "tests/support/RegionChecks.h"
#include "tests/support/TestSupport.h"

#include "cuda/Backends.h"
#include "core/algo/brightest/Brightest.h"
#include "core/algo/brightest/MaxSubarray.h"
#include "core/algo/brightest/StarField.h"
#include "core/algo/maxsub/WorkArray.h"

#include <QtTest>

#include <cmath>
#include <cstdlib>
#include <random>

using namespace glint;

namespace {

// The star field search of the bench: local pivot, threshold 3 RMS, min SNR 5, K = 100.
BrightestParams starFieldParams() {
    BrightestParams p;
    p.pivot = PivotSpec::parse("local");
    p.threshold = 3;
    p.minSnr = 5;
    p.k = 100;
    return p;
}

// Small integers make many equal sums: the tie-break decides.
Image tiesImage(int w, int h, std::mt19937& rng) {
    std::uniform_int_distribution<int> d(-2, 2);
    std::vector<std::int32_t> v(static_cast<std::size_t>(w) * h);
    for (auto& x : v) x = d(rng);
    return test::intImage(w, h, std::move(v));
}

// Gaussian blobs on negative noise (the shape of a star field after the local pivot), in doubles.
Image blobImage(int w, int h, std::mt19937& rng) {
    std::normal_distribution<double> noise(-1.0, 1.0);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<double> v(static_cast<std::size_t>(w) * h);
    for (auto& x : v) x = noise(rng);
    const int blobs = 3 + w * h / 200;
    for (int i = 0; i < blobs; ++i) {
        const double cx = u(rng) * w, cy = u(rng) * h, s = 0.8 + 2.0 * u(rng), a = 2.0 + 40.0 * u(rng) * u(rng);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                v[static_cast<std::size_t>(y) * w + x] += a * std::exp(-((x - cx) * (x - cx) + (y - cy) * (y - cy)) / (2 * s * s));
    }
    return Image::fromSamples(w, h, std::move(v));
}

void checkSameOutcome(const DisjointOutcome& a, const DisjointOutcome& b, const QString& what) {
    QVERIFY2(a.found.size() == b.found.size(), qPrintable(what + QString(": %1 vs %2 found").arg(a.found.size()).arg(b.found.size())));
    for (std::size_t i = 0; i < a.found.size(); ++i) {
        const WorkRect &p = a.found[i], &q = b.found[i];
        QVERIFY2(p.row0 == q.row0 && p.col0 == q.col0 && p.rows == q.rows && p.cols == q.cols,
                 qPrintable(what + QString(": rectangle %1 differs").arg(i)));
        QCOMPARE(p.sumInt, q.sumInt);
        QVERIFY2(p.sum == q.sum, qPrintable(what + ": sums differ (must agree bit for bit): " + test::sumsText(p.sum, q.sum)));
    }
    QCOMPARE(a.rounds, b.rounds);
    QCOMPARE(a.rejected, b.rejected);
    QCOMPARE(a.capped, b.capped);
}

DisjointOutcome solveWith(Backend backend, const WorkArray& work, const DisjointRule& rule) {
    JobControl job;
    return BackendRegistry<MaxSubarraySolver>::create(backend)->solveDisjoint(work, rule, job, {});
}

BrightestResult run(const Image& im, const BrightestParams& p, Backend b) {
    JobControl job;
    return runBrightest(im, p, b, job);
}

// Sets GLINT_MSP_CACHE_MB for the scope (0: the CPU backend searches every strip every round).
class CacheBudget {
public:
    explicit CacheBudget(const char* mb) { qputenv("GLINT_MSP_CACHE_MB", mb); }
    ~CacheBudget() { qunsetenv("GLINT_MSP_CACHE_MB"); }
    CacheBudget(const CacheBudget&) = delete;
    CacheBudget& operator=(const CacheBudget&) = delete;
};

// The progress values a search reports, counting those above every earlier one.
struct ProgressCount {
    int increasing = 0;
    int decreasing = 0;
    double last = -1.0;
};

} // namespace

class TestFastK : public QObject {
    Q_OBJECT

private slots:
    // The solver alone on random work arrays, with random K, round caps and filters (deterministic functions
    // of the rectangle, as the significance filters are), against the reference's loop.
    void randomAgainstReference_data() { test::addBackendRows({Backend::Cpu, Backend::Cuda}); }
    void randomAgainstReference() {
        GLINT_FETCH_BACKEND(backend);
        std::mt19937 rng(1405);
        std::uniform_int_distribution<int> size(1, 70), kd(1, 40), kindD(0, 4), coin(0, 3);
        for (int trial = 0; trial < 160; ++trial) {
            const int w = size(rng), h = size(rng);
            const int kind = kindD(rng);
            Image im = kind == 0   ? tiesImage(w, h, rng)
                       : kind == 1 ? test::randomIntImage(w, h, -30, 31, rng, 0.05)
                       : kind == 2 ? test::randomFloatImage(w, h, -1.0, 1.05, rng, 0.03)
                       : kind == 3 ? blobImage(w, h, rng)
                                   : test::randomIntImage(w, h, -200, 180, rng);
            BrightestParams params;
            params.pivot = PivotSpec::parse("0");
            if (coin(rng) == 0 && w > 3 && h > 3) {
                params.hasRoi = true;
                params.roi = {1, 1, w - 2, h - 3};
            }
            if (coin(rng) <= 1) {
                std::uniform_int_distribution<int> x(0, w - 1), y(0, h - 1);
                for (int e = 0; e < 3; ++e) params.excludeRects.push_back({x(rng), y(rng), 1 + x(rng) / 3, 1 + y(rng) / 3});
            }
            const WorkArray work = prepareWorkArray(im, params);
            DisjointRule rule;
            rule.k = kd(rng);
            const int filter = coin(rng);
            if (filter == 1) rule.accept = [](const WorkRect& r) { return r.rows * r.cols >= 2; };
            if (filter == 2) rule.accept = [](const WorkRect& r) { return (r.row0 + 3 * r.col0 + r.rows) % 3 != 0; };
            if (filter == 3) rule.accept = [](const WorkRect& r) { return r.cols <= 3 && r.rows <= 4; };
            if (filter != 0) rule.maxRounds = coin(rng) == 0 ? rule.k + 2 : DisjointRule::capFor(rule.k);
            const QString what = QString("trial %1: %2x%3 kind %4 K=%5 filter %6").arg(trial).arg(w).arg(h).arg(kind).arg(rule.k).arg(filter);
            if (work.includedCount == 0) continue;
            checkSameOutcome(solveWith(backend, work, rule), solveWith(Backend::Reference, work, rule), what);
            if (QTest::currentTestFailed()) return;
        }
    }

    // Whole searches (local pivot, threshold, the significance filters and the fragment rule of
    // runBrightest) on the synthetic star field at K = 100, against the reference.
    void starFieldAgainstReference_data() { test::addBackendRows({Backend::Cpu, Backend::Cuda}); }
    void starFieldAgainstReference() {
        GLINT_FETCH_BACKEND(backend);
        StarFieldOptions o;
        o.width = 256;
        o.height = 224;
        o.stars = 60;
        o.saturatedStars = 1;
        o.blankBorder = 6;
        o.seed = 14;
        const StarField field = makeStarField(o);
        const BrightestParams p = starFieldParams();
        const BrightestResult ref = run(field.image, p, Backend::Reference);
        const BrightestResult got = run(field.image, p, backend);
        QVERIFY(ref.regions.size() >= 20);
        test::checkSameRegions(ref, got, "star field K=100");
        QCOMPARE(got.rounds, ref.rounds);
        QCOMPARE(got.rejected, ref.rejected);
        // Without filters: K = 100 plain greedy rounds.
        BrightestParams plain;
        plain.pivot = PivotSpec::parse("p99");
        plain.k = 100;
        test::checkSameRegions(run(field.image, plain, Backend::Reference), run(field.image, plain, backend), "p99 K=100");
    }

    // The 1024^2 star field at K = 100 (the bench's scene): the cached search against the CPU backend
    // searching every strip every round (the reference's loop over the same tiles; the reference itself
    // takes minutes here).
    void starField1024AgainstFullSearch() {
        const StarField field = makeStarField(StarFieldOptions{});
        const BrightestParams p = starFieldParams();
        const BrightestResult cached = run(field.image, p, Backend::Cpu);
        BrightestResult full;
        {
            CacheBudget off("0");
            full = run(field.image, p, Backend::Cpu);
        }
        QCOMPARE(cached.regions.size(), std::size_t{100});
        test::checkSameRegions(full, cached, "star field 1024^2 K=100");
        QCOMPARE(cached.rounds, full.rounds);
        QCOMPARE(cached.rejected, full.rejected);
    }

    // Progress moves on within a round (K = 1: per block of strips) and with every round (K = 20), and
    // never back. Counted, not timed.
    void progressMovesSteadily_data() {
        test::addBackendColumn();
        QTest::addColumn<int>("k");
        QTest::addColumn<int>("atLeast");
        // A CUDA round at 1024^2 takes a fraction of a millisecond in one launch: there K = 1 reports once
        // before the end, and every round after.
        test::newBackendRow(Backend::Cpu, "K=1") << 1 << 10;
        test::newBackendRow(Backend::Cpu, "K=20") << 20 << 20;
        test::newBackendRow(Backend::Cuda, "K=1") << 1 << 1;
        test::newBackendRow(Backend::Cuda, "K=20") << 20 << 20;
    }
    void progressMovesSteadily() {
        GLINT_FETCH_BACKEND(backend);
        QFETCH(int, k);
        QFETCH(int, atLeast);
        std::mt19937 rng(17);
        const Image im = test::randomIntImage(1024, 1024, 0, 255, rng);
        BrightestParams p;
        p.pivot = PivotSpec::parse("p90");
        p.k = k;
        ProgressCount count;
        JobControl job;
        job.setProgressObserver([&count](JobControl&, double f) {
            if (f > count.last) ++count.increasing;
            else if (f < count.last) ++count.decreasing;
            count.last = f;
        });
        const BrightestResult r = runBrightest(im, p, backend, job);
        QCOMPARE(static_cast<int>(r.regions.size()), k);
        QVERIFY2(count.increasing >= atLeast, qPrintable(QString("%1 increasing progress values").arg(count.increasing)));
        QCOMPARE(count.decreasing, 0);
    }
};

GLINT_BACKEND_TEST_MAIN(TestFastK)
#include "test_fast_k.moc"
