// The bounded search (issue 14, crowded fields): with --max-box P every round of the disjoint search finds
// the best rectangle among those with both sides <= P. The reference (brute force over the bounded strips and
// segments) against an independent oracle (every rectangle by 2-D prefix sums); the CPU and CUDA backends
// against the reference, bit for bit (same rectangles, order, sums, rounds, rejections), on many random
// inputs (sizes 1..60, P 1..12, K 1..20, ties of small integers, doubles, exclusions, ROI, blanks, filters);
// the kept strips (fast K) against a full search every round; and a synthetic crowded field where the
// unbounded search returns one frame-sized region and the bounded one returns star-sized regions on the
// injected stars. The CUDA rows skip without a device.
#include "tests/support/DisjointChecks.h"
#include "tests/support/CrowdedField.h"
#include "tests/support/TestSupport.h"

#include "cuda/Backends.h"
#include "core/algo/brightest/Brightest.h"
#include "core/algo/maxsub/MaxSubarray.h"
#include "scenes/StarField.h"
#include "core/algo/regions/WorkArray.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <random>

using namespace glint;
using glint::test::checkSameOutcome;
using glint::test::solveWith;

namespace {

// The random cases of this suite: sides 1..60.
test::RandomDisjointCase randomCase(std::mt19937& rng, int trial) { return test::randomDisjointCase(rng, trial, 60, 150); }

// The work array of `image` at the pivot 0, with `count` random excluded rectangles when `exclude` holds
// (test::excludeRandomRects, widths 1 + x / widthDivisor).
WorkArray zeroPivotWork(const Image& image, bool exclude, int count, int widthDivisor, std::mt19937& rng) {
    BrightestParams params = test::zeroPivotParams();
    if (exclude) test::excludeRandomRects(params, image.width(), image.height(), count, widthDivisor, rng);
    return prepareWorkArray(image, params);
}

// K regions with both sides <= P; with `rejecting`, `accept` rejects some of them, under a cap of capFor(K) rounds.
DisjointRule boundedRule(int k, int maxBox, bool rejecting, bool (*accept)(const WorkRect&)) {
    DisjointRule rule;
    rule.k = k;
    rule.maxBox = maxBox;
    if (rejecting) {
        rule.accept = accept;
        rule.maxRounds = DisjointRule::capFor(rule.k);
    }
    return rule;
}

// The independent oracle of the bounded greedy search on integer work arrays: every rectangle with both
// sides <= P and no excluded cell, by 2-D prefix sums in int64, ordered by the rule (largest sum, then the
// smallest top, bottom, last column, then the largest first column).
std::vector<WorkRect> oracleInteger(const WorkArray& work, int P, int k) {
    const int R = work.rows, C = work.cols;
    std::vector<std::int64_t> a(static_cast<std::size_t>(R) * C);
    std::vector<std::uint8_t> ex(static_cast<std::size_t>(R) * C, 0);
    for (int r = 0; r < R; ++r) {
        work.rowInteger(r, a.data() + static_cast<std::size_t>(r) * C);
        for (int c = 0; c < C; ++c) ex[static_cast<std::size_t>(r) * C + c] = work.isExcluded(r, c);
    }
    std::vector<WorkRect> found;
    for (int round = 0; round < k; ++round) {
        std::int64_t best = 0;
        int bt = -1, bb = 0, bf = 0, bl = 0;
        for (int t = 0; t < R; ++t)
            for (int b = t; b < R && b - t < P; ++b)
                for (int l = 0; l < C; ++l)
                    for (int f = l; f >= 0 && l - f < P; --f) {
                        std::int64_t s = 0;
                        bool blocked = false;
                        for (int r = t; r <= b && !blocked; ++r)
                            for (int c = f; c <= l; ++c) {
                                if (ex[static_cast<std::size_t>(r) * C + c]) {
                                    blocked = true;
                                    break;
                                }
                                s += a[static_cast<std::size_t>(r) * C + c];
                            }
                        if (blocked) break; // a wider segment holds the same blocked cell
                        if (s > best) {     // visited in the rule's order: strict improvement
                            best = s;
                            bt = t;
                            bb = b;
                            bf = f;
                            bl = l;
                        }
                    }
        if (bt < 0) break;
        found.push_back(makeWorkRect(bt, bb, bf, bl, best));
        for (int r = bt; r <= bb; ++r)
            for (int c = bf; c <= bl; ++c) ex[static_cast<std::size_t>(r) * C + c] = 1;
    }
    return found;
}

// The best bounded rectangle's sum in long double (first round, double work arrays).
long double oracleRealBest(const WorkArray& work, int P) {
    const int R = work.rows, C = work.cols;
    std::vector<double> row(static_cast<std::size_t>(C));
    std::vector<long double> a(static_cast<std::size_t>(R) * C);
    for (int r = 0; r < R; ++r) {
        work.rowReal(r, row.data());
        for (int c = 0; c < C; ++c) a[static_cast<std::size_t>(r) * C + c] = row[c];
    }
    long double best = 0;
    for (int t = 0; t < R; ++t)
        for (int b = t; b < R && b - t < P; ++b)
            for (int f = 0; f < C; ++f) {
                long double s = 0;
                for (int l = f; l < C && l - f < P; ++l) {
                    bool blocked = false;
                    for (int r = t; r <= b; ++r) {
                        if (work.isExcluded(r, l)) blocked = true;
                        s += a[static_cast<std::size_t>(r) * C + l];
                    }
                    if (blocked) break;
                    best = std::max(best, s);
                }
            }
    return best;
}

// Every rectangle fits the bound, holds no excluded cell, and none overlaps another.
void checkRectangles(const WorkArray& work, const std::vector<WorkRect>& found, int P, const QString& what) {
    std::vector<std::uint8_t> used(static_cast<std::size_t>(work.rows) * work.cols, 0);
    for (const WorkRect& r : found) {
        QVERIFY2(r.rows >= 1 && r.cols >= 1 && r.rows <= P && r.cols <= P, qPrintable(what + ": a rectangle exceeds the bound"));
        for (int y = r.row0; y < r.row0 + r.rows; ++y)
            for (int x = r.col0; x < r.col0 + r.cols; ++x) {
                QVERIFY2(!work.isExcluded(y, x), qPrintable(what + ": a rectangle holds an excluded cell"));
                QVERIFY2(!used[static_cast<std::size_t>(y) * work.cols + x], qPrintable(what + ": rectangles overlap"));
                used[static_cast<std::size_t>(y) * work.cols + x] = 1;
            }
    }
}

// The CPU backend's bounded search against the reference (whose rectangles are checked first) with the kept
// blocks, with a full scan of the bound's blocks every round (GLINT_MSP_CACHE_MB=0), and with each narrower
// kernel (AVX2 where the machine has it, and the 16-byte one).
void checkCpuVariants(const WorkArray& work, const DisjointRule& rule, const QString& what) {
    const DisjointOutcome ref = solveWith(Backend::Reference, work, rule);
    checkRectangles(work, ref.found, rule.maxBox, what);
    checkSameOutcome(solveWith(Backend::Cpu, work, rule), ref, what + " (kept blocks)");
    {
        test::CacheBudget off("0");
        checkSameOutcome(solveWith(Backend::Cpu, work, rule), ref, what + " (no kept blocks)");
    }
    for (const char* kernel : {"avx2", "base"}) {
        qputenv("GLINT_BOUNDED_KERNEL", kernel);
        checkSameOutcome(solveWith(Backend::Cpu, work, rule), ref, what + " (kernel " + kernel + ")");
        qunsetenv("GLINT_BOUNDED_KERNEL");
    }
}

} // namespace

class TestBounded : public QObject {
    Q_OBJECT

private slots:
    // The reference against the independent oracle: integer work arrays exactly (rectangles and sums, every
    // round), double ones by the first round's best sum and the rectangles' shape.
    void referenceAgainstOracle() {
        std::mt19937 rng(1414);
        std::uniform_int_distribution<int> pd(1, 8), kd(1, 6);
        for (int trial = 0; trial < 120; ++trial) {
            test::RandomDisjointCase c = randomCase(rng, trial);
            // The oracle is O(R^2 C^2 P^2): keep these small.
            if (c.image.width() * c.image.height() > 600) continue;
            const WorkArray work = prepareWorkArray(c.image, c.params);
            if (work.includedCount == 0) continue;
            DisjointRule rule;
            rule.k = kd(rng);
            rule.maxBox = pd(rng);
            const QString what = c.what + QString(" P=%1 K=%2").arg(rule.maxBox).arg(rule.k);
            const DisjointOutcome ref = solveWith(Backend::Reference, work, rule);
            checkRectangles(work, ref.found, rule.maxBox, what);
            if (work.integer) {
                const std::vector<WorkRect> expect = oracleInteger(work, rule.maxBox, rule.k);
                QVERIFY2(expect.size() == ref.found.size(), qPrintable(what + ": count"));
                for (std::size_t i = 0; i < expect.size(); ++i) {
                    const WorkRect &p = expect[i], &q = ref.found[i];
                    QVERIFY2(p.row0 == q.row0 && p.col0 == q.col0 && p.rows == q.rows && p.cols == q.cols,
                             qPrintable(what + QString(": rectangle %1 differs from the oracle").arg(i)));
                    QCOMPARE(p.sumInt, q.sumInt);
                }
            } else if (!ref.found.empty()) {
                const long double best = oracleRealBest(work, rule.maxBox);
                QVERIFY2(std::fabs(static_cast<double>(best) - ref.found[0].sum) <= 1e-9 * (1.0 + std::fabs(ref.found[0].sum)),
                         qPrintable(what + ": first best " + test::sumsText(static_cast<double>(best), ref.found[0].sum)));
            } else {
                QVERIFY2(!(oracleRealBest(work, rule.maxBox) > 1e-12L), qPrintable(what + ": the reference found nothing"));
            }
            if (QTest::currentTestFailed()) return;
        }
    }

    // The solvers alone against the reference's loop: random inputs, P 1..12, K 1..20, round caps and filters.
    void randomAgainstReference_data() { test::addBackendRows({Backend::Cpu, Backend::Cuda}); }
    void randomAgainstReference() {
        GLINT_FETCH_BACKEND(backend);
        std::mt19937 rng(2014);
        std::uniform_int_distribution<int> pd(1, 12), kd(1, 20);
        for (int trial = 0; trial < 220; ++trial) {
            test::RandomDisjointCase c = randomCase(rng, trial);
            const WorkArray work = prepareWorkArray(c.image, c.params);
            DisjointRule rule;
            rule.k = kd(rng);
            rule.maxBox = pd(rng);
            const int filter = test::addRandomFilter(rule, rng);
            const QString what = c.what + QString(" P=%1 K=%2 filter %3").arg(rule.maxBox).arg(rule.k).arg(filter);
            if (work.includedCount == 0) continue;
            const DisjointOutcome ref = solveWith(Backend::Reference, work, rule);
            checkRectangles(work, ref.found, rule.maxBox, what);
            checkSameOutcome(solveWith(backend, work, rule), ref, what);
            if (QTest::currentTestFailed()) return;
        }
    }

    // The CPU's lane kernel (BoundedTiles.h) on the shapes the small cases above miss: rows wider than a cache
    // block of 64 columns (bests kept per block, rescans from the S checkpoints), P of 1, 2, 63, 64, 65 and
    // beyond the rows or the columns, narrow images, int64 and double data (ties of small integers, doubles
    // with equal sums, positive-biased fields whose segments fill the bound), blanks and excluded rectangles
    // (blocked lanes in the first round). Bit for bit against the reference, with the kept blocks, with a full
    // scan every round (GLINT_MSP_CACHE_MB=0), and with each narrower kernel (GLINT_BOUNDED_KERNEL).
    void wideAgainstReference() {
        std::mt19937 rng(6464);
        std::uniform_int_distribution<int> kd(1, 10), coin(0, 3), kindD(0, 5);
        int cases = 0;
        const int bounds[] = {1, 2, 3, 7, 15, 63, 64, 65, 130, 400};
        for (int trial = 0; trial < 60; ++trial) {
            const int P = bounds[trial % 10];
            const bool narrow = trial % 7 == 3;
            std::uniform_int_distribution<int> rowsD(1, P > 20 ? 16 : 28), colsD(P > 20 ? 60 : 100, P > 20 ? 260 : 330),
                narrowD(1, 4);
            int w = narrow ? narrowD(rng) : colsD(rng), h = narrow ? colsD(rng) : rowsD(rng);
            const int kind = kindD(rng);
            Image image = kind == 0   ? test::randomIntImage(w, h, -2, 2, rng)
                          : kind == 1 ? test::randomIntImage(w, h, -30, 31, rng, 0.03)
                          : kind == 2 ? test::randomFloatImage(w, h, -1.0, 1.05, rng, 0.02)
                          : kind == 3 ? test::randomIntImage(w, h, -2, 3, rng) // positive bias: long segments
                          : kind == 4 ? test::randomFloatImage(w, h, -0.9, 1.0, rng)
                                      : test::randomIntImage(w, h, -200, 180, rng);
            if (kind == 4) { // doubles with many equal sums: multiples of 1/4 plus a few odd ones
                std::vector<double> v = image.toDoubles();
                for (std::size_t i = 0; i < v.size(); ++i)
                    if (i % 11 != 0) v[i] = std::round(v[i] * 4.0) / 4.0;
                image = Image::fromSamples<double>(w, h, std::move(v));
                image.updateIntegerValued();
            }
            const WorkArray work = zeroPivotWork(image, coin(rng) <= 1, 3, 4, rng);
            if (work.includedCount == 0) continue;
            const int k = kd(rng);
            const DisjointRule rule = boundedRule(k, P, coin(rng) == 0, [](const WorkRect& r) { return r.cols != 2; });
            const QString what = QString("wide trial %1: %2x%3 kind %4 P=%5 K=%6 work %7x%8%9")
                                     .arg(trial).arg(w).arg(h).arg(kind).arg(P).arg(rule.k).arg(work.rows).arg(work.cols)
                                     .arg(work.integer ? " int64" : " double");
            checkCpuVariants(work, rule, what);
            if (QTest::currentTestFailed()) return;
            ++cases;
        }
        QVERIFY(cases >= 50);
    }

    // The CPU search's lazy scans (boundedTopBounds, BoundedSearchCpu.cpp) where they prune: sky-like frames, a
    // negative background with rare positive pixels and a few compact sources, so that most cache blocks are
    // never scanned, groups are first scanned at a block far right of their last checkpoint (the S chain in
    // between), and exclusions stale blocks that were scanned while others stay unscanned. Rows wider than
    // several cache blocks, P below, at and above the lane count, int64 and double data (double sources with
    // equal sums), exclusions and rejecting rules. Bit for bit against the reference, with each kernel width,
    // with kept blocks and with a scan of the bound's blocks every round (GLINT_MSP_CACHE_MB=0).
    void sparseSourcesAgainstReference() {
        std::mt19937 rng(9090);
        std::uniform_int_distribution<int> kd(1, 30), coin(0, 3), srcD(0, 12);
        const int bounds[] = {3, 8, 16, 17, 33, 64, 70};
        int cases = 0;
        for (int trial = 0; trial < 42; ++trial) {
            const int P = bounds[trial % 7];
            std::uniform_int_distribution<int> rowsD(P > 20 ? 20 : 8, P > 20 ? 48 : 40), colsD(130, 330);
            const int w = colsD(rng), h = rowsD(rng);
            const bool real = trial % 3 == 1;
            std::vector<double> v(static_cast<std::size_t>(w) * h);
            std::uniform_int_distribution<int> sky(-7, -1), rare(0, 199), x0(0, w - 1), y0(0, h - 1), side(1, 7), peak(5, 60);
            for (double& x : v) x = rare(rng) == 0 ? 2 + rare(rng) % 5 : sky(rng);
            const int sources = srcD(rng);
            for (int s = 0; s < sources; ++s) {
                const int cx = x0(rng), cy = y0(rng), r = side(rng), pk = peak(rng);
                for (int y = std::max(0, cy - r); y <= std::min(h - 1, cy + r); ++y)
                    for (int x = std::max(0, cx - r); x <= std::min(w - 1, cx + r); ++x) {
                        const int d = std::abs(x - cx) + std::abs(y - cy);
                        v[static_cast<std::size_t>(y) * w + x] += std::max(0, pk - 8 * d);
                    }
            }
            if (real) // quarters: doubles with many equal sums
                for (double& x : v) x = x + 0.25 * static_cast<double>(rare(rng) % 4) - 0.5;
            Image image = Image::fromSamples<double>(w, h, std::move(v));
            image.updateIntegerValued();
            const WorkArray work = zeroPivotWork(image, coin(rng) == 0, 2, 5, rng);
            if (work.includedCount == 0) continue;
            const int k = kd(rng);
            const DisjointRule rule = boundedRule(k, P, coin(rng) == 0, [](const WorkRect& r) { return r.rows != 1; });
            const QString what = QString("sparse trial %1: %2x%3 P=%4 K=%5 sources %6%7")
                                     .arg(trial).arg(w).arg(h).arg(P).arg(rule.k).arg(sources)
                                     .arg(work.integer ? " int64" : " double");
            checkCpuVariants(work, rule, what);
            if (QTest::currentTestFailed()) return;
            ++cases;
        }
        QVERIFY(cases >= 40);
    }

    // The CUDA kernels' edges (segments of 32 columns, deques of P + 1 starts, the rows r0 - P + 1..r1 a round
    // revisits): P about the segment width, at 64 and 65, and beyond the short side; narrow, wide and square
    // frames; blanks and exclusions; integer ties and doubles; K up to 200 with rejections. Small frames against
    // the reference, larger ones against the CPU backend (itself checked against the reference above).
    void kernelEdges_data() { test::addBackendRows({Backend::Cpu, Backend::Cuda}); }
    void kernelEdges() {
        GLINT_FETCH_BACKEND(backend);
        std::mt19937 rng(3232);
        const int bounds[] = {1, 2, 31, 32, 33, 64, 65};
        std::uniform_int_distribution<int> pick(0, 6), thin(1, 4), kindD(0, 4), coin(0, 3);
        for (int trial = 0; trial < 160; ++trial) {
            const bool small = trial % 2 == 0;
            std::uniform_int_distribution<int> side(1, small ? 40 : 170);
            int w = side(rng), h = side(rng);
            const int shape = (trial / 2) % 4; // 0, 1: any; 2: narrow; 3: wide
            if (shape == 2) w = thin(rng);
            if (shape == 3) h = thin(rng);
            const int kind = kindD(rng);
            const Image im = kind == 0   ? test::randomIntImage(w, h, -2, 2, rng)
                             : kind == 1 ? test::randomIntImage(w, h, -30, 31, rng, 0.05)
                             : kind == 2 ? test::randomFloatImage(w, h, -1.0, 1.05, rng, 0.03)
                             : kind == 3 ? test::randomIntImage(w, h, -1, 1, rng, 0.1)
                                         : test::randomFloatImage(w, h, -2.0, 2.2, rng);
            const WorkArray work = zeroPivotWork(im, coin(rng) <= 1, 3, 3, rng);
            if (work.includedCount == 0) continue;
            DisjointRule rule;
            rule.maxBox = coin(rng) == 0 ? work.rows + 1 + coin(rng) : bounds[pick(rng)]; // P > rows: every height
            rule.k = std::uniform_int_distribution<int>(1, small ? 30 : 200)(rng);
            const int filter = test::addRandomFilter(rule, rng);
            const QString what = QString("trial %1: %2x%3 kind %4 P=%5 K=%6 filter %7")
                                     .arg(trial).arg(w).arg(h).arg(kind).arg(rule.maxBox).arg(rule.k).arg(filter);
            if (!small && backend == Backend::Cpu) continue; // the CPU row: the small frames, against the reference
            const Backend oracle = small ? Backend::Reference : Backend::Cpu;
            const DisjointOutcome expect = solveWith(oracle, work, rule);
            checkRectangles(work, expect.found, rule.maxBox, what);
            checkSameOutcome(solveWith(backend, work, rule), expect, what);
            if (QTest::currentTestFailed()) return;
        }
    }

    // A crowded 512^2 field through runBrightest at K = 100 with P = 15 and 64 (the product default): the CUDA
    // backend against the CPU backend, region for region.
    void crowded512AgainstCpu_data() { test::addBackendRows({Backend::Cuda}); }
    void crowded512AgainstCpu() {
        GLINT_FETCH_BACKEND(backend);
        const StarField field = test::crowdedField(512, 1600, 5);
        for (const int P : {15, 64}) {
            const BrightestParams p = sourceFinderParams(100, searchBox(P));
            const BrightestResult cpu = test::runBrightestOn(field.image, p, Backend::Cpu);
            const BrightestResult got = test::runBrightestOn(field.image, p, backend);
            QCOMPARE(cpu.regions.size(), std::size_t{100});
            test::checkSameRegions(cpu, got, QString("crowded 512^2 P=%1").arg(P));
            QCOMPARE(got.rounds, cpu.rounds);
            QCOMPARE(got.rejected, cpu.rejected);
        }
    }

    // The crowded 512^2 field on the CPU at K = 100 with the mesh bound and the auto bound: all 100 regions come
    // back. (The slope rule, a rectangle rejected when its brightest pixel has a brighter neighbour outside,
    // holds only with the auto bound: applied to 64 px boxes, which hold several stars and cut others at their
    // edges, it rejected 714 of 777 rectangles here and 63 regions came back.)
    void crowdedFieldKeepsItsRegions() {
        const StarField field = test::crowdedField(512, 1600, 5);
        for (const AutoValue<int> P : {searchBox(64), AutoValue<int>::automatic()}) {
            const BrightestResult r = test::runBrightestOn(field.image, sourceFinderParams(100, P), Backend::Cpu);
            QVERIFY2(r.regions.size() == 100, qPrintable(QString("max box %1: %2 regions, %3 rejected").arg(P.isAuto() ? QString("auto") : QString::number(P.get())).arg(r.regions.size()).arg(r.rejected)));
            if (P.isAuto()) QVERIFY(r.psfStars >= 5);
        }
    }

    // Whole searches through runBrightest (local pivot, threshold, min SNR, the fragment rule) with the bound.
    void sourcesAgainstReference_data() { test::addBackendRows({Backend::Cpu, Backend::Cuda}); }
    void sourcesAgainstReference() {
        GLINT_FETCH_BACKEND(backend);
        const StarField field = test::crowdedField(96, 56, 7);
        for (const int P : {5, 9, 14}) {
            BrightestParams p = sourceFinderParams(100, searchBox(P));
            p.k = 25;
            const BrightestResult ref = test::runBrightestOn(field.image, p, Backend::Reference);
            const BrightestResult got = test::runBrightestOn(field.image, p, backend);
            QVERIFY(!ref.regions.empty());
            test::checkSameRegions(ref, got, QString("crowded 96^2 P=%1").arg(P));
            QCOMPARE(got.rounds, ref.rounds);
            QCOMPARE(got.rejected, ref.rejected);
            for (const BrightestRegion& g : got.regions) QVERIFY(g.width <= P && g.height <= P);
        }
    }

    // The kept strips (fast K) against every strip searched every round, at K = 100 on a 512^2 crowded field.
    void keptStripsAgainstFullSearch() {
        const StarField field = test::crowdedField(512, 1600, 3);
        const BrightestParams p = sourceFinderParams(100, searchBox(15));
        const BrightestResult kept = test::checkKeptAgainstFullSearch(field.image, p, "crowded 512^2 K=100 P=15");
        QCOMPARE(kept.regions.size(), std::size_t{100});
    }

    // The crowded field: the unbounded search fails the way 47 Tuc does (one frame-sized region), the bounded
    // one returns star-sized regions, most on an injected star.
    void crowdedField_data() { test::addBackendRows({Backend::Cpu, Backend::Cuda}); }
    void crowdedField() {
        GLINT_FETCH_BACKEND(backend);
        const int side = 256;
        const StarField field = test::crowdedField(side, 400, 47);
        const BrightestResult unbounded = test::runBrightestOn(field.image, sourceFinderParams(100, searchBox(0)), backend);
        QCOMPARE(unbounded.regions.size(), std::size_t{1});
        const BrightestRegion& whole = unbounded.regions[0];
        QVERIFY2(whole.pixels() >= static_cast<std::int64_t>(side) * side * 8 / 10,
                 qPrintable(QString("unbounded: %1x%2").arg(whole.width).arg(whole.height)));
        // ... and its note tells the user what bounds it (CLI stderr, the window's status bar).
        QVERIFY2(QString::fromStdString(unbounded.note).contains("--max-box"), unbounded.note.c_str());
        // --max-size keeps DESIGN.md's meaning, a filter: the frame-sized maximum is rejected and excludes all it
        // covers, so on this field it finds nothing inside it (only slivers of the border it left).
        BrightestParams filtered = sourceFinderParams(100, searchBox(0));
        filtered.maxSize = 15;
        const BrightestResult rejected = test::runBrightestOn(field.image, filtered, backend);
        QVERIFY(rejected.rejected >= 1);
        for (const BrightestRegion& g : rejected.regions)
            QVERIFY2(g.x + g.width <= whole.x || whole.x + whole.width <= g.x || g.y + g.height <= whole.y ||
                         whole.y + whole.height <= g.y,
                     qPrintable(QString("max size 15: region at %1,%2 inside the rejected frame").arg(g.x).arg(g.y)));
        const int P = 15;
        const BrightestResult bounded = test::runBrightestOn(field.image, sourceFinderParams(100, searchBox(P)), backend);
        QVERIFY2(bounded.regions.size() >= 80, qPrintable(QString("%1 regions").arg(bounded.regions.size())));
        int onStar = 0;
        for (const BrightestRegion& g : bounded.regions) {
            QVERIFY(g.width <= P && g.height <= P);
            for (const TruthStar& s : field.stars)
                if (s.x >= g.x - 0.5 && s.x <= g.x + g.width - 0.5 && s.y >= g.y - 0.5 && s.y <= g.y + g.height - 0.5 &&
                    s.snr >= 10) {
                    ++onStar;
                    break;
                }
        }
        QVERIFY2(onStar * 10 >= static_cast<int>(bounded.regions.size()) * 9,
                 qPrintable(QString("%1 of %2 regions hold an injected star").arg(onStar).arg(bounded.regions.size())));
        // The brightest injected stars are found: every star among the 20 of largest flux lies in a region.
        std::vector<TruthStar> stars = field.stars;
        std::sort(stars.begin(), stars.end(), [](const TruthStar& a, const TruthStar& b) { return a.flux > b.flux; });
        int brightFound = 0;
        for (int i = 0; i < 20; ++i)
            for (const BrightestRegion& g : bounded.regions)
                if (stars[i].x >= g.x - 0.5 && stars[i].x <= g.x + g.width - 0.5 && stars[i].y >= g.y - 0.5 &&
                    stars[i].y <= g.y + g.height - 0.5) {
                    ++brightFound;
                    break;
                }
        qInfo("crowded 256^2: unbounded %dx%d; bounded P=%d: %zu regions (%d rounds, %d rejected), %d on an injected star, "
              "%d of the 20 brightest found", whole.width, whole.height, P, bounded.regions.size(), bounded.rounds,
              bounded.rejected, onStar, brightFound);
        QVERIFY2(brightFound >= 18, qPrintable(QString("%1 of the 20 brightest stars found").arg(brightFound)));
    }

    // glint-cli: --max-box bounds the search on a crowded FITS frame (JSON regions all within the bound; the
    // parameter keeps its name), and without it the frame comes back as one region.
    void cli() {
        const StarField field = test::crowdedField(256, 400, 47);
        const QString path = test::tempDir() + "/crowded.fits";
        writeStarFieldFits(field, path.toStdString());
        const QStringList common = {"brightest", path, "--pivot", "local", "--threshold", "3", "--min-snr", "5",
                                    "--k", "20", "--backend", "cpu", "--json", "-"};
        const QJsonObject whole = test::runCliJson(common);
        QCOMPARE(whole["regions"].toArray().size(), 1);
        const QJsonObject bounded = test::runCliJson(common + QStringList{"--max-box", "9"});
        const QJsonArray regions = bounded["regions"].toArray();
        QVERIFY(regions.size() >= 10);
        for (const auto& v : regions) {
            const QJsonObject g = v.toObject();
            QVERIFY(g["width"].toInt() <= 9 && g["height"].toInt() <= 9);
        }
    }
};

GLINT_BACKEND_TEST_MAIN(TestBounded)
#include "test_bounded.moc"
