// Fast K (issue 14): the CPU and CUDA backends keep each strip's best between the rounds of the greedy
// disjoint search and compute again only the strips whose best the last rectangle overlaps. The answers
// must be the reference's full loop, bit for bit: the same rectangles in the same order, the same sums,
// rounds, rejections and cap, on many random inputs (sizes, K, exclusions, ROI, ties of small integers,
// doubles, filters) and on the synthetic star field at K = 100. Also: the progress a search reports moves
// steadily (per block of strips within a round, and per round). The CUDA rows skip without a device.
#include "tests/support/DisjointChecks.h"
#include "tests/support/TestSupport.h"

#include "cuda/Backends.h"
#include "core/algo/brightest/Brightest.h"
#include "core/algo/maxsub/MaxSubarray.h"
#include "scenes/StarField.h"
#include "core/algo/regions/WorkArray.h"

#include <QtTest>

#include <cmath>
#include <cstdlib>
#include <random>

using namespace glint;
using glint::test::checkSameOutcome;
using glint::test::solveWith;

namespace {

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
        std::uniform_int_distribution<int> kd(1, 40);
        for (int trial = 0; trial < 160; ++trial) {
            const test::RandomDisjointCase c = test::randomDisjointCase(rng, trial, 70, 200);
            const WorkArray work = prepareWorkArray(c.image, c.params);
            DisjointRule rule;
            rule.k = kd(rng);
            const int filter = test::addRandomFilter(rule, rng);
            const QString what = c.what + QString(" K=%1 filter %2").arg(rule.k).arg(filter);
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
        const StarField field =
            makeStarField({.width = 256, .height = 224, .stars = 60, .saturatedStars = 1, .blankBorder = 6, .seed = 14});
        const BrightestParams p = sourceFinderParams(100, searchBox(0)); // unbounded: the fast K of the strip search
        const BrightestResult ref = test::runBrightestOn(field.image, p, Backend::Reference);
        const BrightestResult got = test::runBrightestOn(field.image, p, backend);
        QVERIFY(ref.regions.size() >= 20);
        test::checkSameRegions(ref, got, "star field K=100");
        QCOMPARE(got.rounds, ref.rounds);
        QCOMPARE(got.rejected, ref.rejected);
        // Without filters: K = 100 plain greedy rounds.
        BrightestParams plain;
        plain.pivot = PivotSpec::parse("p99");
        plain.k = 100;
        test::checkSameRegions(test::runBrightestOn(field.image, plain, Backend::Reference), test::runBrightestOn(field.image, plain, backend), "p99 K=100");
    }

    // The 1024^2 star field at K = 100 (the bench's scene): the cached search against the CPU backend
    // searching every strip every round (the reference's loop over the same tiles; the reference itself
    // takes minutes here).
    void starField1024AgainstFullSearch() {
        const StarField field = makeStarField(StarFieldOptions{});
        const BrightestParams p = sourceFinderParams(100, searchBox(0)); // unbounded: the fast K of the strip search
        const BrightestResult cached = test::checkKeptAgainstFullSearch(field.image, p, "star field 1024^2 K=100");
        QCOMPARE(cached.regions.size(), std::size_t{100});
    }

    // Progress moves on within a round (K = 1: per block of strips) and with every round (K = 20), and
    // never back. Counted, not timed.
    void progressMovesSteadily_data() {
        test::addBackendColumn();
        test::columns<int, int>({"k", "atLeast"});
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
        const Image im = test::randomIntImage(1024, 1024, 0, 255, test::Seed{17});
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
