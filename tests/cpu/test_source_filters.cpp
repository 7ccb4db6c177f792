// The source finder's significance filters (min SNR, min area, max size, min peak), the shortfall note that
// names them, and the bad inputs, on the synthetic star field of test_sources.cpp and exact small scenes.
#include "tests/support/GaussField.h"
#include "tests/support/RegionChecks.h"
#include "tests/support/TestSupport.h"

#include "core/algo/brightest/Brightest.h"
#include "core/export/CsvTable.h"
#include "core/io/Image.h"
#include "core/util/Errors.h"
#include "cuda/Backends.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <vector>

using namespace glint;
using test::GaussField;
using test::makeGaussField;

class TestSourceFilters : public QObject {
    Q_OBJECT
private slots:
    void filtersAndShortfall() {
        const GaussField f = makeGaussField(6, 40);
        BrightestParams p = sourceFinderParams(50);
        p.minArea = 9;
        p.maxSize = 12;
        const BrightestResult r = test::runBrightestOn(f.image, p);
        for (const BrightestRegion& g : r.regions) {
            QVERIFY(g.pixels() >= 9);
            QVERIFY(std::max(g.width, g.height) <= 12);
            QVERIFY(g.snr >= 5);
        }
        QVERIFY(r.rejected > 0);
        QCOMPARE(r.rounds, static_cast<int>(r.regions.size()) + r.rejected);
        // Nothing passes: the search stops at the cap or when nothing positive is left, and says so.
        p.minSnr = 1e12;
        p.k = 3;
        const BrightestResult none = test::runBrightestOn(f.image, p);
        QVERIFY(none.regions.empty());
        QVERIFY(none.rounds <= 20 * 3 + 1000);
        QVERIFY2(none.note.find("found 0 of 3 regions") == 0, none.note.c_str());
        QVERIFY(none.note.find("rejected by the filters") != std::string::npos);
        // Reference and cpu agree on the filtered search (unbounded: the bounded reference is brute force, and
        // test_bounded compares the bounded searches).
        p = sourceFinderParams(20, searchBox(0));
        p.maxSize = 8;
        const BrightestResult a = test::runBrightestOn(f.image, p, Backend::Reference), b = test::runBrightestOn(f.image, p, Backend::Cpu);
        QCOMPARE(a.regions.size(), b.regions.size());
        for (std::size_t i = 0; i < a.regions.size(); ++i) {
            QCOMPARE(a.regions[i].x, b.regions[i].x);
            QCOMPARE(a.regions[i].y, b.regions[i].y);
            QCOMPARE(a.regions[i].width, b.regions[i].width);
            QCOMPARE(a.regions[i].height, b.regions[i].height);
            QCOMPARE(a.regions[i].sum, b.regions[i].sum);
        }
        QCOMPARE(a.rejected, b.rejected);
    }

    // --min-peak: every region's brightest pixel lies at least V above the background; the regions below it
    // are rejected and counted, the note names the filter; the CLI and the spec carry it like the others.
    void minPeakFilter() {
        // Exact: a broad faint square (the largest sum, peak 9 over the pivot) and two compact bright blocks.
        std::vector<std::int32_t> px(96 * 96, 0);
        auto block = [&](int x0, int y0, int side, int value) {
            for (int y = y0; y < y0 + side; ++y)
                for (int x = x0; x < x0 + side; ++x) px[static_cast<std::size_t>(y) * 96 + x] = value;
        };
        block(10, 10, 15, 10);
        block(60, 20, 3, 50);
        block(40, 70, 3, 40);
        const Image scene = test::intImage(96, 96, std::move(px));
        BrightestParams q;
        q.pivot = PivotSpec::parse("1");
        q.k = 2;
        q.minPeak = 20;
        for (const Backend backend : {Backend::Reference, Backend::Cpu}) {
            const BrightestResult r = test::runBrightestOn(scene, q, backend);
            QCOMPARE(r.regions.size(), std::size_t(2));
            QCOMPARE(r.regions[0].x, 60);
            QCOMPARE(r.regions[0].peak, 49.0);
            QCOMPARE(r.regions[1].x, 40);
            QCOMPARE(r.regions[1].peak, 39.0);
            QCOMPARE(r.rejected, 1);
        }
        q.minPeak = 0;
        QCOMPARE(test::runBrightestOn(scene, q).regions[0].width, 15);

        // A star field: every region passes, fewer than without the filter, the shortfall note names it.
        const GaussField f = makeGaussField(6, 40);
        BrightestParams p = sourceFinderParams(60);
        const BrightestResult all = test::runBrightestOn(f.image, p);
        QVERIFY(all.regions.size() > 10);
        std::vector<double> peaks;
        for (const BrightestRegion& g : all.regions) peaks.push_back(g.peak);
        std::sort(peaks.begin(), peaks.end());
        p.minPeak = peaks[peaks.size() / 2];
        const BrightestResult bright = test::runBrightestOn(f.image, p);
        QVERIFY(!bright.regions.empty());
        for (const BrightestRegion& g : bright.regions) QVERIFY(g.peak >= p.minPeak);
        QVERIFY(bright.regions.size() < all.regions.size());
        QVERIFY(bright.rejected > all.rejected);
        QVERIFY2(bright.note.find(", min peak " + formatNumber(p.minPeak)) != std::string::npos, bright.note.c_str());
        p.minPeak = -1;
        QVERIFY_THROWS_EXCEPTION(UsageError, test::runBrightestOn(f.image, p));

        const QString sky = test::samplePath("ngc1316o.fit");
        const QJsonObject doc = test::runCliJson({"brightest", sky, "--preset", "auto", "--k", "20", "--min-peak", "300", "--json", "-"});
        QCOMPARE(doc["parameters"].toObject()["min_peak"].toDouble(), 300.0);
        QCOMPARE(doc["regions"].toArray().size(), 20); // the preset's 20 regions include peaks of 176 and 185
        QVERIFY(doc["rejected"].toInt() > 0);
        for (const QJsonValue& g : doc["regions"].toArray()) QVERIFY(g.toObject()["peak"].toDouble() >= 300.0);
        const test::CliResult overlap = test::runCli({"brightest", sky, "--mode", "overlap", "--min-peak", "50"});
        QCOMPARE(overlap.exitCode, 2);
        QVERIFY(QString::fromUtf8(overlap.err).contains("--min-peak"));
    }

    void badInputs() {
        const GaussField f = makeGaussField(7, 5);
        BrightestParams p = sourceFinderParams(5);
        p.threshold = -1;
        QVERIFY_THROWS_EXCEPTION(UsageError, test::runBrightestOn(f.image, p));
        p.threshold = std::nan("");
        QVERIFY_THROWS_EXCEPTION(UsageError, test::runBrightestOn(f.image, p));
        p = sourceFinderParams(5);
        p.minSnr = -2;
        QVERIFY_THROWS_EXCEPTION(UsageError, test::runBrightestOn(f.image, p));
        p = sourceFinderParams(5);
        p.minArea = -1;
        QVERIFY_THROWS_EXCEPTION(UsageError, test::runBrightestOn(f.image, p));
        p = sourceFinderParams(5);
        p.mesh = 1000; // larger than the image
        QVERIFY_THROWS_EXCEPTION(UsageError, test::runBrightestOn(f.image, p));
        // Constant image: the local pivot leaves nothing positive; defined, empty.
        const Image flat = test::intImage(128, 128, std::vector<std::int32_t>(128 * 128, 7));
        const BrightestResult c = test::runBrightestOn(flat, sourceFinderParams(5));
        QVERIFY(c.regions.empty());
        QVERIFY(!c.note.empty());
        // All blank: empty.
        Image blank = flat;
        blank.setBlankMask(std::vector<std::uint8_t>(128 * 128, 1));
        QVERIFY(test::runBrightestOn(blank, sourceFinderParams(5)).regions.empty());
        // Small images without options that need the model: no model, no SNR, as before.
        const Image small = test::intImage(5, 4, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20});
        BrightestParams plain;
        const BrightestResult s = test::runBrightestOn(small, plain);
        QVERIFY(!s.hasModel);
        QVERIFY(s.regions[0].measured && std::isnan(s.regions[0].snr));
    }
};

GLINT_BACKEND_TEST_MAIN(TestSourceFilters)
#include "test_source_filters.moc"
