// Brightest region and K brightest disjoint regions on every backend (reference, cpu, cuda; the cuda rows
// skip without a usable device): the paper's example, brute force on hundreds of random matrices, K rounds,
// agreement with the reference on images of many shapes and kinds (the CUDA backend's exact int32 path and
// float screen with int64 or double recheck), integer exactness at 4096^2, exclusion polygons, the local
// pivot with its filters, ROI and empty results, and cancel.
#include "tests/backends/test_brightest_support.h"
#include "tests/support/RegionChecks.h"
#include "tests/support/TestSupport.h"

#include "cuda/Backends.h"
#include "core/algo/brightest/Brightest.h"
#include "core/algo/sources/Background.h"
#include "core/algo/regions/WorkArray.h"
#include "core/util/Errors.h"

#include <QtTest>

#include <algorithm>
#include <cmath>

using namespace glint;
using namespace glint::test::brightestsearch;

class TestBrightestSearch : public QObject {
    Q_OBJECT

private slots:
    void paperExample_data() { test::addBackendRows(); }
    void paperExample() {
        GLINT_FETCH_BACKEND(backend);
        const Image im = test::brightestPaperImage();
        const BrightestParams p = test::zeroPivotParams();
        const auto r = run(im, p, backend);
        QCOMPARE(r.backend, backend);
        QCOMPARE(r.regions.size(), std::size_t(1));
        const auto& g = r.regions[0];
        QVERIFY(g.exactInteger);
        QCOMPARE(g.sumInt, std::int64_t(15));
        // The paper's corners (3,5) and (4,6), 1-based (row, column).
        QCOMPARE(g.x, 4);
        QCOMPARE(g.y, 2);
        QCOMPARE(g.width, 2);
        QCOMPARE(g.height, 2);
    }

    // Hundreds of random matrices of many shapes and kinds against brute force.
    // Each backend's answer is the reference's (bit for bit) and the brute force's.
    void bruteForce_data() {
        test::addBackendColumn();
        QTest::addColumn<QString>("kind");
        for (Backend b : {Backend::Reference, Backend::Cpu})
            for (const char* k : {"int", "float", "negative", "equal", "blanks", "shapes", "nan"}) test::newBackendRow(b, k) << k;
    }
    void bruteForce() {
        GLINT_FETCH_BACKEND(backend);
        QFETCH(QString, kind);
        std::mt19937 rng(qHash(kind));
        const std::vector<std::pair<int, int>> shapes = {{1, 1}, {1, 7}, {7, 1}, {2, 2}, {3, 5}, {5, 3}, {9, 4},
                                                         {4, 9}, {11, 13}, {16, 16}, {17, 6}, {1, 33}, {33, 1}};
        int checked = 0;
        for (int seed = 0; seed < 4; ++seed)
            for (const auto& [w, h] : shapes) {
                Image im;
                BrightestParams p = test::zeroPivotParams();
                if (kind == "nan") {
                    im = test::randomFloatImage(w, h, -1.0, 1.2, rng);
                    im.mutableSamples<double>()[rng() % im.pixelCount()] = std::nan("");
                } else if (kind == "shapes") {
                    im = test::randomIntImage(w, h, 0, 255, rng);
                    p.pivot = PivotSpec::parse(seed % 2 ? "mean" : "median");
                    if (w > 2 && h > 2) p.excludeRects.push_back({w / 3, h / 3, 1 + w / 3, 1 + h / 3});
                } else {
                    im = test::randomImageOfKind(kind, w, h, rng);
                }
                if (kind == "equal" && seed % 2) p.pivot = PivotSpec::parse("2");
                const double pivot = computePivot(im, p);
                const auto mask = exclusionMask(im, p);
                const Brute brute = bruteSearch(im, pivot, mask);
                const auto got = run(im, p, backend);
                if (backend != Backend::Reference) test::checkSameRegions(run(im, p, Backend::Reference), got, kind);
                if (brute.best <= 0) {
                    QVERIFY2(got.regions.empty(), "a region where no rectangle has a positive sum");
                    continue;
                }
                QCOMPARE(got.regions.size(), std::size_t(1));
                const auto& g = got.regions[0];
                QVERIFY(!touches(g, mask, w));
                const long double direct = directSum(im, g, pivot);
                if (got.exactInteger) {
                    QCOMPARE(static_cast<long double>(g.sumInt), brute.best);
                    QCOMPARE(static_cast<long double>(g.sumInt), direct);
                } else {
                    QVERIFY(std::fabs(static_cast<double>(g.sum - brute.best)) <= 1e-9 * (1 + std::fabs(g.sum)));
                    QVERIFY(std::fabs(static_cast<double>(g.sum - direct)) <= 1e-9 * (1 + std::fabs(g.sum)));
                }
                ++checked;
            }
        QVERIFY(kind == "negative" || checked > 0);
    }

    // K disjoint: pairwise disjoint, non-increasing, each the best of what was left.
    void disjointRounds_data() {
        test::addBackendColumn();
        QTest::addColumn<bool>("floating");
        for (Backend b : {Backend::Reference, Backend::Cpu})
            for (bool floating : {false, true}) test::newBackendRow(b, floating ? "float" : "int") << floating;
    }
    void disjointRounds() {
        GLINT_FETCH_BACKEND(backend);
        QFETCH(bool, floating);
        std::mt19937 rng(floating ? 7 : 8);
        for (int seed = 0; seed < 6; ++seed) {
            const int w = 5 + seed * 3, h = 4 + seed * 2;
            Image im = floating ? test::randomFloatImage(w, h, -1, 1.1, rng) : test::randomIntImage(w, h, -9, 10, rng, 0.05);
            const BrightestParams p = test::zeroPivotParams(6);
            const auto got = run(im, p, backend);
            if (backend != Backend::Reference) test::checkSameRegions(run(im, p, Backend::Reference), got);
            auto mask = exclusionMask(im, p);
            double previous = INFINITY;
            for (const auto& r : got.regions) {
                QVERIFY(r.sum > 0);
                QVERIFY(r.sum <= previous);
                previous = r.sum;
                QVERIFY(!touches(r, mask, w)); // disjoint from the earlier ones and the blanks
                const Brute b = bruteSearch(im, 0.0, mask);
                QVERIFY(std::fabs(static_cast<double>(b.best - r.sum)) <= 1e-9 * (1 + std::fabs(r.sum)));
                for (int y = r.y; y < r.y + r.height; ++y)
                    for (int x = r.x; x < r.x + r.width; ++x) mask[y * w + x] = 1;
            }
            if (got.regions.size() < 6) QVERIFY(bruteSearch(im, 0.0, mask).best <= 0); // stopped: nothing left
        }
    }

    // The same rectangles and bit-identical sums as the reference on larger images of many shapes and
    // kinds: noise with a polygon excluded (cpu), and on the cuda backend both of its paths (exact int32;
    // float screen with int64 or double recheck) from 1x1 to 1024^2, ties, exclusions, ROI, K rounds.
    void agreesWithReference_data() {
        test::addSizedCaseColumns();
        test::newBackendRow(Backend::Cpu, "noise u8 160") << "noise u8" << 160 << 160 << 3;
        test::newBackendRow(Backend::Cpu, "noise big sums 150") << "noise big" << 150 << 150 << 3;
        test::newBackendRow(Backend::Cpu, "noise float 140x90") << "noise float" << 140 << 90 << 3;
        test::newBackendRow(Backend::Cpu, "noise tall u8 70x200") << "noise u8 tall" << 70 << 200 << 3;
        const std::vector<std::pair<int, int>> shapes = {{1, 1},   {1, 300},  {300, 1},  {33, 17},  {17, 33},
                                                         {64, 64}, {65, 63},  {257, 129}, {100, 700}, {512, 512}};
        for (const char* kind : {"u8", "float", "big", "ties", "excluded", "roi"})
            for (const auto& [w, h] : shapes)
                test::newBackendRow(Backend::Cuda, QString("%1 %2x%3").arg(kind).arg(w).arg(h)) << kind << w << h << 1;
        test::newBackendRow(Backend::Cuda, "u8 1024x1024") << "u8" << 1024 << 1024 << 1;
        test::newBackendRow(Backend::Cuda, "float 1024x1024") << "float" << 1024 << 1024 << 1;
        test::newBackendRow(Backend::Cuda, "big 1024x1024") << "big" << 1024 << 1024 << 1;
        test::newBackendRow(Backend::Cuda, "u8 K=6 300x200") << "excluded" << 300 << 200 << 6;
        test::newBackendRow(Backend::Cuda, "float K=5 200x260") << "float" << 200 << 260 << 5;
        test::newBackendRow(Backend::Cuda, "big K=4 250x250") << "big" << 250 << 250 << 4;
        test::newBackendRow(Backend::Cuda, "ties K=5 120x90") << "ties" << 120 << 90 << 5;
    }
    void agreesWithReference() {
        GLINT_FETCH_BACKEND(backend);
        const auto [kind, width, height, k] = test::fetchSizedCase();
        std::mt19937 rng(static_cast<unsigned>(width * 7919 + height + k));
        Image im;
        BrightestParams p;
        p.k = k;
        if (kind.startsWith("noise")) {
            if (kind == "noise u8") im = test::randomIntImage(width, height, 0, 255, rng, 0.01);
            else if (kind == "noise big") im = test::randomIntImage(width, height, 0, 1000000, rng);
            else if (kind == "noise float") im = test::randomFloatImage(width, height, -3, 3.1, rng, 0.02);
            else im = test::randomIntImage(width, height, 0, 255, rng);
            p.pivot = PivotSpec::parse(kind == "noise big" ? "200000" : kind == "noise float" ? "mean" : "p60");
            p.excludePolygons.push_back({{{10, 10}, {60.5, 15}, {30, 70.2}}});
        } else if (kind == "u8" || kind == "excluded" || kind == "roi") {
            im = smoothU8Image(width, height, rng);
            p.pivot = PivotSpec::parse("96");
        } else if (kind == "float") {
            im = bumpFloatImage(width, height, rng, 0.01);
            p.pivot = PivotSpec::parse("mean");
        } else if (kind == "big") {
            im = test::randomIntImage(width, height, 0, 2000000, rng, 0.01); // sums beyond int32
            p.pivot = PivotSpec::parse("999999");
        } else {
            im = test::randomIntImage(width, height, 0, 2, rng);
            p.pivot = PivotSpec::parse("1");
        }
        if (kind == "excluded") {
            p.excludeRects.push_back({width / 4, height / 3, width / 3 + 1, height / 4 + 1});
            p.excludePolygons.push_back({{{0.0, 0.0}, {width * 0.6, 0.0}, {0.0, height * 0.7}}});
        }
        if (kind == "roi" && width > 2 && height > 2) {
            p.roi = PixelRect{1, 2, width - 2, height - 2};
        }
        const auto ref = run(im, p, Backend::Reference);
        const auto got = run(im, p, backend);
        QCOMPARE(got.backend, backend);
        test::checkSameRegions(got, ref, kind);
        if (kind.startsWith("noise")) QVERIFY(!ref.regions.empty());
        if (kind == "noise big") QVERIFY(ref.regions[0].sumInt > (std::int64_t(1) << 31)); // beyond int32
    }

    // Integer exactness at 4096^2 on both CUDA paths, against the exact cpu backend.
    void cudaIntegerExactness4096_data() {
        test::addStringRows("kind", {{"8-bit, int32 path", "u8"}, {"16-bit, sums beyond 2^31", "u16"}});
    }
    void cudaIntegerExactness4096() {
        GLINT_REQUIRE_CUDA();
        QFETCH(QString, kind);
        std::mt19937 rng(4096);
        Image im;
        BrightestParams p;
        if (kind == "u8") {
            im = smoothU8Image(4096, 4096, rng);
            p.pivot = PivotSpec::parse("100");
        } else {
            std::vector<std::uint16_t> v(4096u * 4096u);
            std::uniform_int_distribution<int> d(0, 65535);
            for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::uint16_t>(d(rng) / 2 + ((i / 4096) % 1000 < 600 ? 30000 : 0));
            im = Image::fromSamples<std::uint16_t>(4096, 4096, std::move(v));
            p.pivot = PivotSpec::parse("32000");
        }
        const WorkArray w = prepareWorkArray(im, p);
        QCOMPARE(w.fitsInt32(), kind == "u8");
        const auto cpu = run(im, p, Backend::Cpu);
        const auto gpu = run(im, p, Backend::Cuda);
        QVERIFY(!gpu.regions.empty());
        QVERIFY(gpu.exactInteger);
        if (kind == "u16") QVERIFY(gpu.regions[0].sumInt > (std::int64_t(1) << 31));
        test::checkSameRegions(gpu, cpu);
    }

    void polygonIsEvenOddPixelCentres() {
        std::mt19937 rng(3);
        std::uniform_real_distribution<double> c(-3, 23);
        for (int trial = 0; trial < 50; ++trial) {
            PixelPolygon poly;
            for (int i = 0; i < 3 + trial % 6; ++i) poly.points.emplace_back(c(rng), c(rng));
            if (trial % 5 == 0) poly.points = {{2, 2}, {10, 2}, {10, 10}, {2, 10}}; // centres on edges
            std::vector<std::uint8_t> mask(20 * 20, 0);
            rasterizePolygon(poly, 20, 20, mask);
            for (int y = 0; y < 20; ++y)
                for (int x = 0; x < 20; ++x) {
                    bool inside = false; // PNPOLY
                    const auto& p = poly.points;
                    for (std::size_t i = 0, j = p.size() - 1; i < p.size(); j = i++)
                        if ((p[i].second > y) != (p[j].second > y) &&
                            x < (p[j].first - p[i].first) * (y - p[i].second) / (p[j].second - p[i].second) + p[i].first)
                            inside = !inside;
                    QCOMPARE(bool(mask[y * 20 + x]), inside);
                }
        }
    }

    // The local pivot (a = I - bkg - N rms, built on the host) with the significance filters: every backend
    // gives the reference's regions, and the reference's are the brute-force greedy search over the work
    // values computed here from the background map.
    void localPivotAndFilters_data() { test::addBackendRows(); }
    void localPivotAndFilters() {
        GLINT_FETCH_BACKEND(backend);
        std::mt19937 rng(21);
        for (int trial = 0; trial < 6; ++trial) {
            const int w = 12 + trial * 3, h = 10 + trial * 2;
            Image im = trial % 2 ? test::randomFloatImage(w, h, 0, 10, rng, 0.05) : test::randomIntImage(w, h, 0, 20, rng);
            BrightestParams p;
            p.pivot = PivotSpec::parse("local");
            p.threshold = 0.5;
            p.mesh = 5;
            p.k = 4;
            p.minSnr = 1.0;
            p.maxSize = 6;
            if (trial >= 4) {
                p.roi = PixelRect{1, 2, w - 3, h - 2};
            }
            const auto got = run(im, p, backend);
            const auto ref = run(im, p, Backend::Reference);
            if (backend != Backend::Reference) test::checkSameRegions(ref, got);
            QCOMPARE(got.rejected, ref.rejected);
            // The work values by hand: I - bkg - 0.5 rms over the ROI (0 and excluded outside).
            const BackgroundMap model = estimateBackground(im, imageExclusionMask(im, p), backgroundParamsOf(p));
            std::vector<double> a(static_cast<std::size_t>(w) * h, 0.0);
            auto mask = exclusionMask(im, p);
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) {
                    const bool inRoi = !p.roi || (x >= p.roi->x && x < p.roi->x + p.roi->width && y >= p.roi->y &&
                                                  y < p.roi->y + p.roi->height);
                    if (!inRoi) mask[y * w + x] = 1;
                    else if (!mask[y * w + x])
                        a[y * w + x] = im.value(x, y) - model.backgroundAt(x, y) - 0.5 * model.rmsAt(x, y);
                }
            const Image values = Image::fromSamples(w, h, a);
            for (const BrightestRegion& g : ref.regions) {
                // Each reported region is a best rectangle of what was left when it was found, or passed
                // filters where a better one was rejected: its sum is at most the brute force's best.
                const Brute b = bruteSearch(values, 0.0, mask);
                QVERIFY(g.sum <= static_cast<double>(b.best) * (1 + 1e-9) + 1e-9);
                QVERIFY(g.snr >= 1.0 && std::max(g.width, g.height) <= 6);
                double sum = 0;
                for (int y = g.y; y < g.y + g.height; ++y)
                    for (int x = g.x; x < g.x + g.width; ++x) sum += a[y * w + x];
                QVERIFY(std::fabs(sum - g.sum) <= 1e-9 * (1 + std::fabs(sum)));
                for (int y = g.y; y < g.y + g.height; ++y)
                    for (int x = g.x; x < g.x + g.width; ++x) mask[y * w + x] = 1;
            }
        }
    }

    void roiAndEmptyResults_data() { test::addBackendRows({Backend::Reference, Backend::Cpu}); }
    void roiAndEmptyResults() {
        GLINT_FETCH_BACKEND(backend);
        const Image im = test::randomIntImage(40, 30, -5, 5, test::Seed{5});
        BrightestParams p = test::zeroPivotParams(4);
        p.roi = PixelRect{10, 5, 12, 20};
        const auto r = run(im, p, backend);
        QVERIFY(!r.regions.empty());
        for (const auto& g : r.regions)
            QVERIFY(g.x >= 10 && g.y >= 5 && g.x + g.width <= 22 && g.y + g.height <= 25);
        BrightestParams all;
        all.excludeRects.push_back({-5, -5, 100, 100});
        QVERIFY(run(im, all, backend).regions.empty());
        BrightestParams high;
        high.pivot = PivotSpec::parse("5");
        QVERIFY(run(im, high, backend).regions.empty());
    }

    void cancelActsQuickly_data() { test::addBackendRows(); }
    // A job cancelled before it starts throws Cancelled. The cancel requested from inside the run (its
    // first progress report) cannot race the job's end on any machine; it must then stop with Cancelled,
    // well within a second. The 100 ms product target is a bench row (glint-cli bench cancel), not a
    // unit-test bound. The device gets a larger image (K = 20 rounds) so that it has work left.
    void cancelActsQuickly() {
        GLINT_FETCH_BACKEND(backend);
        std::mt19937 rng(1);
        BrightestParams p;
        Image im;
        if (backend == Backend::Cuda) {
            im = smoothU8Image(8192, 4096, rng);
            p.k = 20;
            p.pivot = PivotSpec::parse("90");
        } else {
            im = test::randomIntImage(1500, 1500, 0, 255, rng);
        }
        JobControl pre;
        pre.requestCancel();
        QVERIFY_THROWS_EXCEPTION(Cancelled, runBrightest(im, p, backend, pre));
        test::checkCancelInsideRun([&](JobControl& job) { runBrightest(im, p, backend, job); }, backendName(backend));
    }
};

GLINT_BACKEND_TEST_MAIN(TestBrightestSearch)
#include "test_brightest_search.moc"
