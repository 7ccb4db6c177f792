// Parallel rounds of the CPU bounded search (issue 31; proof in core/algo/maxsub/NOTES.md): each look of the
// search certifies every top's exact best that comes before, in the search's order, all that is left around
// it, excludes them together and reports them in their turn. The greedy's answer must not change: the parallel
// search (GLINT_BOUNDED_ROUNDS=parallel) against the sequential one (=sequential), region for region, bit
// for bit (rectangles, order, sums, rounds, rejections, cap), on random frames (integer and double work arrays,
// ties, blanks, exclusions, P from 1 to beyond the frame, K up to 200, filters and round caps), small ones also
// against the reference, and on real frames (HST 47 Tuc, NGC 1316) through the source finder with
// --max-box auto at K = 100 and 1000. The suites also check that the parallel search takes fewer looks.
#include "tests/support/DisjointChecks.h"
#include "tests/support/RegionChecks.h"
#include "tests/support/TestSupport.h"

#include "core/algo/brightest/Brightest.h"
#include "core/algo/maxsub/MaxSubarray.h"
#include "core/algo/regions/WorkArray.h"
#include "core/io/ImageLoader.h"
#include "cuda/Backends.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <random>

using namespace glint;
using glint::test::checkSameOutcome;
using glint::test::solveWith;

namespace {

// The rounds of the CPU bounded search while in scope: sequential (the default) or parallel.
class Rounds {
public:
    explicit Rounds(bool sequential) { qputenv("GLINT_BOUNDED_ROUNDS", sequential ? "sequential" : "parallel"); }
    ~Rounds() { qunsetenv("GLINT_BOUNDED_ROUNDS"); }
    Rounds(const Rounds&) = delete;
    Rounds& operator=(const Rounds&) = delete;
};

DisjointOutcome solveCpu(const WorkArray& work, const DisjointRule& rule, bool sequential) {
    JobControl job;
    Rounds rounds(sequential);
    return solveBoundedDisjointCpu(work, rule, job, {});
}

// A sky-like frame: a negative background with rare positive pixels and `sources` compact sources of random
// peaks (quarters in double frames: many equal sums).
Image skyFrame(int w, int h, int sources, bool real, std::mt19937& rng) {
    std::vector<double> v(static_cast<std::size_t>(w) * h);
    std::uniform_int_distribution<int> sky(-7, -1), rare(0, 199), x0(0, w - 1), y0(0, h - 1), side(1, 6), peak(5, 90);
    for (double& x : v) x = rare(rng) == 0 ? 2 + rare(rng) % 5 : sky(rng);
    for (int s = 0; s < sources; ++s) {
        const int cx = x0(rng), cy = y0(rng), r = side(rng), pk = peak(rng);
        for (int y = std::max(0, cy - r); y <= std::min(h - 1, cy + r); ++y)
            for (int x = std::max(0, cx - r); x <= std::min(w - 1, cx + r); ++x)
                v[static_cast<std::size_t>(y) * w + x] += std::max(0, pk - 6 * (std::abs(x - cx) + std::abs(y - cy)));
    }
    if (real)
        for (double& x : v) x = x + 0.25 * static_cast<double>(rare(rng) % 4) - 0.5;
    Image image = Image::fromSamples<double>(w, h, std::move(v));
    image.updateIntegerValued();
    return image;
}

} // namespace

class TestParallelRounds : public QObject {
    Q_OBJECT

private slots:
    // Random frames of every kind: the parallel search against the sequential one, and small frames against
    // the reference too.
    void randomFrames() {
        std::mt19937 rng(3131);
        const int bounds[] = {1, 2, 3, 5, 8, 11, 16, 17, 33, 64};
        std::uniform_int_distribution<int> kindD(0, 6), coin(0, 3), kd(1, 60);
        long long rounds = 0, passes = 0;
        int cases = 0;
        for (int trial = 0; trial < 260; ++trial) {
            const int P = bounds[trial % 10];
            const bool small = trial % 4 == 0;
            std::uniform_int_distribution<int> side(1, small ? 36 : 140);
            const int w = side(rng), h = side(rng), kind = kindD(rng);
            Image image = kind == 0   ? test::randomIntImage(w, h, -2, 2, rng)
                          : kind == 1 ? test::randomIntImage(w, h, -30, 31, rng, 0.05)
                          : kind == 2 ? test::randomFloatImage(w, h, -1.0, 1.05, rng, 0.03)
                          : kind == 3 ? test::randomIntImage(w, h, -2, 3, rng, 0.1)
                          : kind == 4 ? skyFrame(w, h, 1 + w * h / 300, false, rng)
                          : kind == 5 ? skyFrame(w, h, 1 + w * h / 300, true, rng)
                                      : test::randomIntImage(w, h, -200, 180, rng);
            BrightestParams params = test::zeroPivotParams();
            if (coin(rng) == 0) test::excludeRandomRects(params, w, h, 3, 4, rng);
            const WorkArray work = prepareWorkArray(image, params);
            if (work.includedCount == 0) continue;
            DisjointRule rule;
            rule.k = kd(rng) * (coin(rng) == 0 ? 3 : 1);
            rule.maxBox = P;
            test::addRandomFilter(rule, rng);
            const QString what = QString("trial %1: %2x%3 kind %4 P=%5 K=%6 cap %7%8")
                                     .arg(trial).arg(w).arg(h).arg(kind).arg(P).arg(rule.k).arg(rule.maxRounds)
                                     .arg(work.integer ? " int64" : " double");
            const DisjointOutcome par = solveCpu(work, rule, false);
            const DisjointOutcome seq = solveCpu(work, rule, true);
            checkSameOutcome(par, seq, what);
            if (QTest::currentTestFailed()) return;
            QVERIFY2(par.passes <= par.rounds && par.passes >= (par.rounds > 0 ? 1 : 0), qPrintable(what));
            QCOMPARE(seq.passes, seq.rounds);
            if (small) {
                checkSameOutcome(par, solveWith(Backend::Reference, work, rule), what + " (reference)");
                if (QTest::currentTestFailed()) return;
            }
            rounds += par.rounds;
            passes += par.passes;
            ++cases;
        }
        qInfo("random frames: %d cases, %lld rounds, %lld parallel passes", cases, rounds, passes);
        QVERIFY(cases >= 230);
        QVERIFY(passes < rounds);
    }

    // Sky frames of many sources, where most rounds are certified in batches: 200 x 300, P 5 to 33, K up to 200.
    void manySources() {
        std::mt19937 rng(4242);
        const int bounds[] = {5, 8, 15, 16, 33};
        long long rounds = 0, passes = 0;
        for (int trial = 0; trial < 10; ++trial) {
            const Image image = skyFrame(300, 200, 150, trial % 2 == 1, rng);
            BrightestParams params = test::zeroPivotParams();
            if (trial % 3 == 0) test::excludeRandomRects(params, 300, 200, 4, 6, rng);
            const WorkArray work = prepareWorkArray(image, params);
            DisjointRule rule;
            rule.k = trial < 5 ? 200 : 60;
            rule.maxBox = bounds[trial % 5];
            if (trial % 4 == 1) {
                rule.accept = [](const WorkRect& r) { return r.rows * r.cols >= 4; };
                rule.maxRounds = DisjointRule::capFor(rule.k);
            }
            const QString what = QString("sky trial %1 P=%2 K=%3").arg(trial).arg(rule.maxBox).arg(rule.k);
            const DisjointOutcome par = solveCpu(work, rule, false);
            checkSameOutcome(par, solveCpu(work, rule, true), what);
            if (QTest::currentTestFailed()) return;
            rounds += par.rounds;
            passes += par.passes;
        }
        qInfo("sky frames: %lld rounds, %lld parallel passes", rounds, passes);
        QVERIFY(2 * passes < rounds);
    }

    // Real frames through the source finder with --max-box auto (K = 100 and 1000, with its min SNR 5 filter and
    // without): the same regions, rounds and rejections; the looks of the bare search (threshold 3, no filter).
    void realFrames_data() {
        test::columns<QString, int>({"name", "k"});
        for (const char* name : {"j8bt06nyq_flt.fits", "ngc1316o.fit"})
            for (int k : {100, 1000}) QTest::newRow(qPrintable(QString("%1 K=%2").arg(name).arg(k))) << QString(name) << k;
    }
    void realFrames() {
        QFETCH(QString, name);
        QFETCH(int, k);
        GLINT_REAL_FILE(path, name);
        const Image image = loadImage(path.toStdString(), LoadOptions{});
        for (bool filtered : {true, false}) {
            BrightestParams params = sourceFinderParams(k, AutoValue<int>::automatic());
            if (!filtered) params.minSnr = 0.0;
            BrightestResult par, seq;
            {
                Rounds parallel(false);
                par = test::runBrightestOn(image, params, Backend::Cpu);
            }
            {
                Rounds sequential(true);
                seq = test::runBrightestOn(image, params, Backend::Cpu);
            }
            const QString what = name + (filtered ? " (min SNR 5)" : " (no filter)");
            test::checkSameRegions(par, seq, what);
            if (QTest::currentTestFailed()) return;
            QCOMPARE(par.rounds, seq.rounds);
            QCOMPARE(par.rejected, seq.rejected);
            QVERIFY(!par.regions.empty());
            if (!filtered) {
                JobControl job;
                const ResolvedBrightest resolved = resolveBrightest(image, params, job);
                const int P = resolved.params.boundOrNone();
                QCOMPARE(P, par.maxBox);
                QVERIFY(P > 0);
                const WorkArray work = prepareWorkArray(image, resolved.params);
                DisjointRule rule;
                rule.k = k;
                rule.maxBox = P;
                const DisjointOutcome out = solveCpu(work, rule, false);
                QCOMPARE(static_cast<int>(out.found.size()), static_cast<int>(par.regions.size()));
                QCOMPARE(out.rounds, par.rounds);
                qInfo("%s K=%d P=%d: %d rounds, %d parallel passes", qPrintable(name), k, P, out.rounds, out.passes);
                QVERIFY(out.passes < out.rounds);
            }
        }
    }
};

GLINT_BACKEND_TEST_MAIN(TestParallelRounds)
#include "test_parallel_rounds.moc"
