// brightest --mode overlap --max-box P (issue 14): the exact top K among the rectangles with both sides <= P,
// plain (the K largest sums of distinct rectangles, in the ranking order of kmax/Distinct.h) or under
// --distinct F. Every backend (reference, cpu, cuda: the cuda rows skip without a usable device, and run the
// CPU search on the host) against brute force on many small random inputs (sides 1-12, P in {1, 2, 3, 5, 13},
// F in {none, 0, 0.2, 0.99}, integers with ties, plateaus, doubles, blanks, exclusions); the cpu backend
// against the reference bit for bit on larger ones; a crowded star field where overlap + distinct lists the
// whole frame unbounded and one box per star with the bound; cancellation; the CLI.
#include "tests/support/OverlapChecks.h"
#include "tests/support/RegionChecks.h"
#include "tests/support/CrowdedField.h"
#include "tests/support/TestSupport.h"

#include "scenes/StarField.h"
#include "core/algo/kmax/Distinct.h"
#include "core/algo/kmax/KMax.h"
#include "core/algo/regions/WorkArray.h"
#include "core/util/Errors.h"
#include "cuda/Backends.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <optional>
#include <random>
#include <set>
#include <tuple>

using namespace glint;

namespace {

BrightestResult overlapRun(const Image& im, BrightestParams p, std::optional<double> f, int maxBox, Backend b) {
    p.mode = BrightestMode::Overlap;
    p.distinct = f;
    p.maxBox = searchBox(maxBox);
    return test::runBrightestOn(im, p, b);
}

QString rectText(const WorkRect& r) {
    return QString("(%1,%2 %3x%4 sum %5)").arg(r.row0).arg(r.col0).arg(r.rows).arg(r.cols).arg(r.sum, 0, 'g', 17);
}

void checkSameRects(const std::vector<WorkRect>& got, const std::vector<WorkRect>& want, const QString& what) {
    QVERIFY2(got.size() == want.size(), qPrintable(what + QString(": %1 vs %2 rectangles").arg(got.size()).arg(want.size())));
    for (std::size_t i = 0; i < got.size(); ++i) {
        const WorkRect &a = got[i], &b = want[i];
        QVERIFY2(a.row0 == b.row0 && a.rows == b.rows && a.col0 == b.col0 && a.cols == b.cols && a.sumInt == b.sumInt && a.sum == b.sum,
                 qPrintable(what + QString(": rank %1: %2 vs %3").arg(i + 1).arg(rectText(a), rectText(b))));
    }
}

// Both sides within the bound, and (with F) every pair of listed rectangles obeys the rule.
void checkListed(const std::vector<WorkRect>& got, std::optional<double> f, int P, const QString& what) {
    const kmax::DistinctCap cap(f.value_or(0.0));
    for (std::size_t i = 0; i < got.size(); ++i) {
        QVERIFY2(got[i].rows <= P && got[i].cols <= P, qPrintable(what + ": outside the bound: " + rectText(got[i])));
        for (std::size_t j = 0; j < i; ++j) {
            if (f) QVERIFY2(kmax::distinctAllowed(got[i], got[j], cap), qPrintable(what + QString(": %1 and %2 overlap").arg(j + 1).arg(i + 1)));
            else QVERIFY2(std::tie(got[i].row0, got[i].rows, got[i].col0, got[i].cols) != std::tie(got[j].row0, got[j].rows, got[j].col0, got[j].cols),
                          qPrintable(what + QString(": %1 listed twice").arg(i + 1)));
        }
    }
}

// The injected star whose centre a region holds (the brightest such), or -1.
int starIn(const BrightestRegion& g, const StarField& field) {
    for (std::size_t i = 0; i < field.stars.size(); ++i) {
        const TruthStar& s = field.stars[i];
        if (s.x >= g.x - 0.5 && s.x <= g.x + g.width - 0.5 && s.y >= g.y - 0.5 && s.y <= g.y + g.height - 0.5) return static_cast<int>(i);
    }
    return -1;
}

} // namespace

class TestOverlapBound : public QObject {
    Q_OBJECT

private slots:
    // Many random small inputs (sides 1..12) of every kind, P in {1, 2, 3, 5, 13}, F in {none, 0, 0.2, 0.99},
    // K from 1 to past the count: the backend's list equals brute force's, rectangle for rectangle, sums bit for
    // bit. Through the solver (every P, 13 included: the bounded search with a bound of no effect) and through
    // runBrightest (P >= both sides runs the unbounded search, whose plain list leaves ties in any order: sums
    // compared there).
    void bruteForce_data() {
        test::addBackendKindRows({Backend::Reference, Backend::Cpu, Backend::Cuda}, {"int", "ties", "plateaus", "float", "blanks", "exclusions", "equal"});
    }
    void bruteForce() {
        GLINT_FETCH_BACKEND(backend);
        QFETCH(QString, kind);
        std::mt19937 rng(qHash(kind) + 14);
        std::uniform_int_distribution<int> side(1, 12);
        const std::unique_ptr<KMaxRectSolver> solver = BackendRegistry<KMaxRectSolver>::create(backend);
        int checked = 0, multi = 0;
        const int trials = backend == Backend::Reference ? 8 : 14;
        for (int trial = 0; trial < trials; ++trial) {
            const int w = trial < 3 ? 1 + trial : side(rng), h = trial < 3 ? 3 - trial : side(rng);
            BrightestParams p;
            // This suite's "float" rows are the brute-force kind "pivot" (0..255, the mean or the median pivot).
            const Image im = test::randomSearchInput(kind == "float" ? QString("pivot") : kind, w, h, trial % 2, rng, p);
            const WorkArray work = test::overlapWork(im, p);
            const std::uint64_t available = work.includedCount == 0 ? 0 : rectangleCount(work);
            for (int P : {1, 2, 3, 5, 13})
                for (std::optional<double> f : {std::optional<double>{}, std::optional<double>{0.0}, std::optional<double>{0.2},
                                                std::optional<double>{0.99}})
                    for (int K : {1, 3, 10, 1000}) {
                        const QString what = QString("%1 %2x%3 P=%4 F=%5 K=%6 trial %7")
                                                 .arg(kind).arg(w).arg(h).arg(P).arg(f ? QString::number(*f) : "none").arg(K).arg(trial);
                        const std::size_t k = static_cast<std::size_t>(std::min<std::uint64_t>(K, available));
                        const std::vector<WorkRect> want = k == 0 ? std::vector<WorkRect>{} : test::bruteForceList(work, k, f, P);
                        JobControl job;
                        if (backend == Backend::Cuda) {
                            // No bounded K-MSP kernel: the device declines before any work, and the job function
                            // below runs the registry's fallback (cpu), which must give the same list.
                            bool declined = false;
                            try {
                                solver->topKBounded(work, std::max<std::size_t>(k, 1), f, P, job, {});
                            } catch (const BackendDeclined&) {
                                declined = true;
                            }
                            QVERIFY2(declined, qPrintable(what + ": the device ran a bounded search it has no kernel for"));
                        } else {
                            const std::vector<WorkRect> got = k == 0 ? std::vector<WorkRect>{} : solver->topKBounded(work, k, f, P, job, {});
                            checkSameRects(got, want, what);
                            if (QTest::currentTestFailed()) return;
                            checkListed(got, f, P, what);
                            if (QTest::currentTestFailed()) return;
                            if (got.size() > 2) ++multi;
                        }
                        // The job function: the same list (image coordinates), or the same sums where the bound has
                        // no effect and the list is plain.
                        p.k = K;
                        const BrightestResult run = overlapRun(im, p, f, P, backend);
                        const BrightestResult expect = test::resultOf(work, want);
                        if (!f && P >= std::max(work.rows, work.cols)) test::checkSameRegionSums(run, expect, what);
                        else test::checkSameRegions(run, expect, what);
                        if (QTest::currentTestFailed()) return;
                        // The device declines a search that is bounded (P under the longer side) or distinct, and the
                        // cpu fallback runs it; a bound that excludes nothing leaves the plain search, which it runs.
                        const bool plain = !f && P >= std::max(work.rows, work.cols);
                        if (backend == Backend::Cuda && k > 0)
                            QVERIFY2(run.backend == (plain ? Backend::Cuda : Backend::Cpu),
                                     qPrintable(what + (plain ? ": the device runs the plain search" : ": the fallback is the cpu backend")));
                        ++checked;
                        if (backend == Backend::Cuda && want.size() > 2) ++multi;
                    }
        }
        QVERIFY(checked >= 400);
        if (kind != "equal") QVERIFY(multi > 50);
    }

    // Larger inputs: the backend against the reference, rectangle for rectangle, bit for bit.
    void agreesWithTheReference_data() { test::addAgreementRows(); }
    void agreesWithTheReference() {
        GLINT_FETCH_BACKEND(backend);
        QFETCH(QString, kind);
        std::mt19937 rng(qHash(kind) + 3);
        BrightestParams p;
        const Image im = test::agreementInput(kind, rng, p);
        for (int P : {4, 9, 17})
            for (std::optional<double> f : {std::optional<double>{}, std::optional<double>{0.0}, std::optional<double>{0.2},
                                            std::optional<double>{0.6}})
                for (int k : {1, 12, 40}) {
                    p.k = k;
                    const QString what = QString("%1 P=%2 F=%3 K=%4").arg(kind).arg(P).arg(f ? QString::number(*f) : "none").arg(k);
                    const BrightestResult got = overlapRun(im, p, f, P, backend);
                    test::checkSameRegions(got, overlapRun(im, p, f, P, Backend::Reference), what);
                    if (QTest::currentTestFailed()) return;
                    for (const auto& g : got.regions) QVERIFY(g.width <= P && g.height <= P);
                }
    }

    // The issue on a crowded field: overlap + --distinct 0.2 with the local pivot lists the whole frame (every
    // other rectangle lies inside it); with --max-box the listed boxes are stars, one per star.
    void starField_data() { test::addBackendRows({Backend::Cpu, Backend::Cuda}); }
    void starField() {
        GLINT_FETCH_BACKEND(backend);
        const int side = 256;
        const StarField field = test::crowdedField(side, 400, 47);
        BrightestParams p;
        p.pivot = PivotSpec::parse("local");
        p.threshold = 3;
        p.k = 30;
        const BrightestResult unbounded = overlapRun(field.image, p, 0.2, 0, backend);
        // Region 1 is the frame (and the note names the bound); the others are slivers of the border it leaves,
        // mostly without a star.
        QVERIFY(unbounded.regions[0].pixels() >= static_cast<std::int64_t>(side) * side * 8 / 10);
        QVERIFY2(QString::fromStdString(unbounded.note).contains("--max-box"), unbounded.note.c_str());
        int slivers = 0;
        for (const BrightestRegion& g : unbounded.regions)
            if (g.rank > 1 && std::min(g.width, g.height) <= 2 && starIn(g, field) < 0) ++slivers;
        QVERIFY2(slivers >= 15, qPrintable(QString("%1 slivers").arg(slivers)));
        const int P = 9;
        const BrightestResult bounded = overlapRun(field.image, p, 0.2, P, backend);
        QCOMPARE(bounded.regions.size(), std::size_t{30});
        // No note about the bound; on the device, only why it declined (no bounded or distinct K-MSP kernel).
        const QString note = QString::fromStdString(bounded.note);
        QVERIFY2(backend == Backend::Cuda ? note.startsWith("cuda declined") && !note.contains("--max-box") : note.isEmpty(),
                 qPrintable(note));
        std::set<int> stars;
        int onStar = 0;
        for (const BrightestRegion& g : bounded.regions) {
            QVERIFY(g.width <= P && g.height <= P);
            const int s = starIn(g, field);
            if (s >= 0) {
                ++onStar;
                stars.insert(s);
            }
        }
        qInfo("crowded 256^2, overlap, F = 0.2, K = 30: unbounded %dx%d; P = %d: %zu regions, %d on an injected star, %zu stars",
              unbounded.regions[0].width, unbounded.regions[0].height, P, bounded.regions.size(), onStar, stars.size());
        QVERIFY2(onStar >= 27, qPrintable(QString("%1 of 30 regions hold an injected star").arg(onStar)));
        // (A box may hold two stars and beat the brightest star's own box, and F = 0.2 lets a box share a fifth of
        // a listed one: a few stars come twice.)
        QVERIFY2(stars.size() >= 22, qPrintable(QString("%1 different stars in 30 regions").arg(stars.size())));
        // The ten brightest stars are all listed.
        for (int i = 0; i < 10; ++i) QVERIFY2(stars.count(i), qPrintable(QString("star %1 (flux %2) not listed").arg(i).arg(field.stars[i].flux)));
        // Plain overlap with the bound: the exact K best boxes, which are near-copies of the best one.
        const BrightestResult plain = overlapRun(field.image, p, std::nullopt, P, backend);
        QCOMPARE(plain.regions.size(), std::size_t{30});
        const BrightestRegion& best = plain.regions[0];
        QCOMPARE(best.x, bounded.regions[0].x);
        QCOMPARE(best.y, bounded.regions[0].y);
        int copies = 0;
        for (const BrightestRegion& g : plain.regions) {
            QVERIFY(g.width <= P && g.height <= P);
            if (std::abs(g.x - best.x) <= 3 && std::abs(g.y - best.y) <= 3) ++copies;
        }
        QVERIFY2(copies >= 25, qPrintable(QString("%1 near-copies of the best box").arg(copies)));
        for (std::size_t i = 1; i < plain.regions.size(); ++i) QVERIFY(plain.regions[i].sum <= plain.regions[i - 1].sum);
    }

    // A smaller crowded field: the cpu (and cuda, host) search against the reference, bit for bit.
    void starFieldAgainstReference_data() { test::addBackendRows({Backend::Cpu, Backend::Cuda}); }
    void starFieldAgainstReference() {
        GLINT_FETCH_BACKEND(backend);
        const StarField field = test::crowdedField(64, 30, 5);
        BrightestParams p;
        p.pivot = PivotSpec::parse("local");
        p.threshold = 3;
        p.mesh = 16;
        p.k = 12;
        for (std::optional<double> f : {std::optional<double>{}, std::optional<double>{0.2}})
            for (int P : {5, 9}) {
                const QString what = QString("field P=%1 F=%2").arg(P).arg(f ? QString::number(*f) : "none");
                test::checkSameRegions(overlapRun(field.image, p, f, P, backend), overlapRun(field.image, p, f, P, Backend::Reference), what);
                if (QTest::currentTestFailed()) return;
            }
    }

    // A bound of no effect (at least both sides) runs the unbounded search; fewer rectangles than K fit: all of
    // them, with a note naming the bound.
    void boundOfNoEffectAndFewerThanK() {
        const Image im = test::randomIntImage(7, 5, -4, 6, test::Seed{9});
        BrightestParams p = test::zeroPivotParams(8);
        for (std::optional<double> f : {std::optional<double>{}, std::optional<double>{0.3}}) {
            const BrightestResult none = overlapRun(im, p, f, 0, Backend::Cpu);
            test::checkSameRegionSums(overlapRun(im, p, f, 7, Backend::Cpu), none, "P = 7");
            test::checkSameRegionSums(overlapRun(im, p, f, 1 << 20, Backend::Cpu), none, "P = 2^20");
        }
        p.k = 100;
        const BrightestResult ones = overlapRun(im, p, std::nullopt, 1, Backend::Cpu); // 35 single pixels
        QCOMPARE(ones.regions.size(), std::size_t{35});
        QVERIFY2(QString::fromStdString(ones.note).contains("sides <= 1 px"), ones.note.c_str());
        const BrightestResult apart = overlapRun(im, p, 0.0, 2, Backend::Cpu);
        QVERIFY(apart.regions.size() < 35);
        QVERIFY2(QString::fromStdString(apart.note).contains("overlaps") && QString::fromStdString(apart.note).contains("sides <= 2 px"),
                 apart.note.c_str());
    }

    void errors() {
        const Image im = test::randomIntImage(5, 5, -3, 3, test::Seed{1});
        BrightestParams p;
        p.k = 3;
        QVERIFY_THROWS_EXCEPTION(UsageError, overlapRun(im, p, 0.2, -2, Backend::Cpu));
        // The disjoint search's filters stay refused in overlap mode, bound or not.
        p.minSnr = 5;
        QVERIFY_THROWS_EXCEPTION(UsageError, overlapRun(im, p, 0.2, 3, Backend::Cpu));
        p.minSnr = 0;
        p.maxSize = 4;
        QVERIFY_THROWS_EXCEPTION(UsageError, overlapRun(im, p, std::nullopt, 3, Backend::Cpu));
    }

    void cancelActsQuickly_data() { test::addBackendRows({Backend::Reference, Backend::Cpu}); }
    void cancelActsQuickly() {
        GLINT_FETCH_BACKEND(backend);
        std::mt19937 rng(2);
        const int side = backend == Backend::Reference ? 100 : 500;
        const Image im = test::randomIntImage(side, side, 0, 255, rng);
        BrightestParams p;
        p.k = 400;
        p.mode = BrightestMode::Overlap;
        p.pivot = PivotSpec::parse("p40");
        p.distinct = 0.1;
        p.maxBox = searchBox(40);
        test::checkCancelInsideRun([&](JobControl& job) { runBrightest(im, p, backend, job); }, backendName(backend));
    }

    void cli() {
        const StarField field = test::crowdedField(128, 100, 47);
        const QString path = test::tempDir() + "/crowded-overlap.fits";
        writeStarFieldFits(field, path.toStdString());
        const QString dir = test::tempDir();
        const QStringList common = {"brightest", path, "--pivot", "local", "--threshold", "3", "--mode", "overlap",
                                    "--distinct", "0.2", "--k", "10", "--backend", "cpu", "--json", "-"};
        // Unbounded, region 1 is (nearly) the frame.
        const QJsonObject whole = test::runCliJson(common)["regions"].toArray()[0].toObject();
        QVERIFY(whole["width"].toInt() * whole["height"].toInt() >= 128 * 128 * 8 / 10);
        const QJsonObject bounded = test::runCliJson(common + QStringList{"--max-box", "9", "--regions", dir + "/bounded.csv"});
        const QJsonArray regions = bounded["regions"].toArray();
        QCOMPARE(regions.size(), 10);
        QCOMPARE(bounded["mode"].toString(), QString("overlap"));
        QCOMPARE(bounded["distinct"].toDouble(), 0.2);
        for (const auto& v : regions) QVERIFY(v.toObject()["width"].toInt() <= 9 && v.toObject()["height"].toInt() <= 9);
        QFile csv(dir + "/bounded.csv");
        QVERIFY(csv.open(QIODevice::ReadOnly));
        QCOMPARE(csv.readAll().count('\n'), 11); // the header and ten regions
        // Plain overlap takes the bound too; one larger than the image is the unbounded search.
        QCOMPARE(test::runCliJson({"brightest", path, "--pivot", "local", "--threshold", "3", "--mode", "overlap", "--k", "5",
                                   "--max-box", "4", "--backend", "cpu", "--json", "-"})["regions"].toArray().size(), 5);
        const QJsonObject huge = test::runCliJson(common + QStringList{"--max-box", "100000"});
        QCOMPARE(huge["regions"].toArray()[0].toObject(), whole);
        // The usage text names it for both modes.
        const auto usage = test::runCli({"brightest", "--help"});
        QVERIFY((usage.out + usage.err).contains("--max-box P"));
        // Bad values, and the disjoint search's filters: exit 2, one line on stderr naming the option.
        for (const QStringList& bad : {QStringList{"--max-box", "-1"}, QStringList{"--max-box", "x"}, QStringList{"--max-box", "2.5"},
                                       QStringList{"--max-box"}, QStringList{"--max-box", "9", "--min-snr", "5"},
                                       QStringList{"--max-box", "9", "--min-area", "4"}, QStringList{"--max-box", "9", "--max-size", "4"}}) {
            const auto e = test::runCli(common + bad);
            QVERIFY2(e.exitCode == 2, qPrintable(bad.join(' ') + ": exit " + QString::number(e.exitCode)));
            const QByteArray first = e.err.split('\n').value(0);
            QVERIFY2(first.startsWith("glint-cli: ") && (first.contains("--max-box") || first.contains("--min-snr") ||
                                                         first.contains("--min-area") || first.contains("--max-size")),
                     e.err.constData());
        }
    }
};

GLINT_BACKEND_TEST_MAIN(TestOverlapBound)
#include "test_overlap_bound.moc"
