// The region measurements (flux, SNR, peak, centroid, mean background, flags, sky position) against the
// plain per-region scan they replaced (the oracle, tests/support/RegionMeasureOracle.h), bit for bit, on
// random images of every sample type: blanks, NaN and infinities, wide float ranges (where sums round),
// saturated samples, with and without a background model, mean / percentile / numeric / local pivots, and
// random, overlapping, nested, edge and one-pixel rectangles, measured one by one and all together; and the
// source finder's slope rule (peakIsLocalMaximum) by hand.
#include "tests/cpu/test_region_measure_support.h"
#include "tests/support/RegionMeasureOracle.h"
#include "tests/support/TestSupport.h"

#include "core/algo/sources/RegionMeasure.h"
#include "core/algo/regions/WorkArray.h"
#include "core/io/Image.h"

#include <QtTest>

#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

using namespace glint;
using namespace glint::test::regionmeasure;

class TestRegionMeasure : public QObject {
    Q_OBJECT
private slots:
    void matchesOracle_data() {
        test::columns<int, int, bool>({"kind", "pivot", "blanks"});
        const char* pivots[] = {"mean", "p70", "number", "integer", "local", "mean+model"};
        for (int k = 0; k <= static_cast<int>(Kind::F64Wide); ++k)
            for (int p = 0; p < 6; ++p)
                for (bool blanks : {false, true})
                    QTest::newRow(QString("%1 %2%3").arg(kindName(static_cast<Kind>(k))).arg(pivots[p]).arg(blanks ? " blanks" : "").toUtf8())
                        << k << p << blanks;
    }
    void matchesOracle() {
        QFETCH(int, kind);
        QFETCH(int, pivot);
        QFETCH(bool, blanks);
        const unsigned seed = static_cast<unsigned>(1000 * kind + 10 * pivot + blanks);
        for (const auto& [W, H] : {std::pair{97, 61}, std::pair{150, 203}}) {
            Image im = makeImage(static_cast<Kind>(kind), W, H, seed + static_cast<unsigned>(W));
            if (blanks) addBlanks(im, seed + 7);
            const double median = im.value(W / 2, H / 2);
            const BrightestParams params = paramsFor(static_cast<Pivot>(pivot), std::isfinite(median) ? median : 100.0);
            const WorkArray work = prepareWorkArray(im, params);
            const std::vector<BrightestRegion> regions = regionsFor(W, H, seed + 3, 40);
            const oracle::OracleMeasurer reference(work);
            std::vector<BrightestRegion> expected = regions;
            for (BrightestRegion& g : expected) reference.measure(g);
            // The shared passes are made where they serve: no model, no blanks, samples of at most 32 bits and
            // not a float image whose range is too wide for exact sums.
            const Kind k = static_cast<Kind>(kind);
            const bool tableKind = k != Kind::I64 && k != Kind::I64Wide && k != Kind::F64 && k != Kind::F64Wide && k != Kind::F32Wide;
            const bool model = work.background && !work.background->empty();
            QCOMPARE(RegionMeasurer(work).shareAmong(regions), tableKind && !model && !blanks);
            // All together (the shared passes), then one by one on one thread and on several.
            std::vector<BrightestRegion> all = regions;
            measureRegions(work, all);
            const RegionMeasurer measurer(work);
            for (std::size_t i = 0; i < regions.size(); ++i) {
                QString why = difference(all[i], expected[i]);
                QVERIFY2(why.isEmpty(), qPrintable(QString("%1x%2, all, %3: %4").arg(W).arg(H).arg(describe(regions[i])).arg(why)));
                for (int threads : {1, 3}) {
                    BrightestRegion one = regions[i];
                    measurer.measure(one, threads);
                    why = difference(one, expected[i]);
                    QVERIFY2(why.isEmpty(),
                             qPrintable(QString("%1x%2, one on %3 threads, %4: %5").arg(W).arg(H).arg(threads).arg(describe(regions[i])).arg(why)));
                }
            }
        }
    }

    // Large images (rows in many chunks, several threads) and many overlapping regions, as kmax reports them.
    void largeAndOverlapping_data() {
        test::columns<int, int>({"kind", "pivot"});
        for (Kind k : {Kind::U8, Kind::U16, Kind::I32, Kind::F32, Kind::F32NonFinite, Kind::F64})
            for (int p : {0, 3, 5})
                QTest::newRow(QString("%1 %2").arg(kindName(k)).arg(p).toUtf8()) << static_cast<int>(k) << p;
    }
    void largeAndOverlapping() {
        QFETCH(int, kind);
        QFETCH(int, pivot);
        const int W = 700, H = 420;
        Image im = makeImage(static_cast<Kind>(kind), W, H, 77u + static_cast<unsigned>(kind));
        const BrightestParams params = paramsFor(static_cast<Pivot>(pivot), 100.0);
        const WorkArray work = prepareWorkArray(im, params);
        const std::vector<BrightestRegion> regions = regionsFor(W, H, 5u + static_cast<unsigned>(pivot), 60);
        const oracle::OracleMeasurer reference(work);
        std::vector<BrightestRegion> all = regions;
        measureRegions(work, all);
        const RegionMeasurer measurer(work);
        for (std::size_t i = 0; i < regions.size(); ++i) {
            BrightestRegion expected = regions[i];
            reference.measure(expected);
            QString why = difference(all[i], expected);
            QVERIFY2(why.isEmpty(), qPrintable(QString("all, %1: %2").arg(describe(regions[i])).arg(why)));
            if (i % 7 == 0) {
                BrightestRegion one = regions[i];
                measurer.measure(one);
                why = difference(one, expected);
                QVERIFY2(why.isEmpty(), qPrintable(QString("one, %1: %2").arg(describe(regions[i])).arg(why)));
            }
        }
    }

    // The source finder's slope rule (RegionMeasurer::peakIsLocalMaximum) by hand: a star (peak 1000 at
    // (20, 20), cut at 8 px) on a flat 100, the pivot 100. A box on the star holds its peak; a box on its left wing has its
    // brightest pixel at its right edge, with the brighter pixel just outside; that pixel left out (excluded,
    // blank, outside the ROI, or level with the box's peak) leaves the box's peak a local maximum. A box whose
    // peak is interior never fails, whatever lies around it. Both the plain pass and blanks' pass.
    void peakIsLocalMaximumByHand() {
        for (const bool blankElsewhere : {false, true}) {
            const int W = 40, H = 40;
            auto scene = [&](double plateau) {
                std::vector<double> v(static_cast<std::size_t>(W) * H, 100.0);
                for (int y = 0; y < H; ++y)
                    for (int x = 0; x < W; ++x) {
                        const double r2 = (x - 20) * (x - 20) + (y - 20) * (y - 20);
                        v[static_cast<std::size_t>(y) * W + x] += plateau > 0 ? (std::abs(x - 18) <= 6 && std::abs(y - 20) <= 1 ? plateau : 0.0)
                                                                              : (r2 <= 64 ? 900.0 * std::exp(-r2 / 18.0) : 0.0);
                    }
                if (blankElsewhere) v[0] = std::numeric_limits<double>::quiet_NaN();
                return Image::fromSamples(W, H, std::move(v));
            };
            BrightestParams params;
            params.pivot = PivotSpec::parse("100");
            auto check = [&](const Image& im, const BrightestParams& p, PixelRect box, bool expected, const char* what) {
                const WorkArray work = prepareWorkArray(im, p);
                BrightestRegion g;
                g.x = box.x;
                g.y = box.y;
                g.width = box.width;
                g.height = box.height;
                const RegionMeasurer measurer(work);
                measurer.measure(g);
                QVERIFY2(measurer.peakIsLocalMaximum(g) == expected,
                         qPrintable(QString("%1 (blank elsewhere %2): peak at %3,%4").arg(what).arg(blankElsewhere).arg(g.peakX).arg(g.peakY)));
            };
            const Image star = scene(0.0);
            const PixelRect wing{10, 18, 5, 5}; // x 10..14: the brightest pixel at x = 14, y = 20
            check(star, params, {17, 17, 7, 7}, true, "the box on the star");
            check(star, params, wing, false, "the box on the wing");
            check(star, params, {2, 2, 5, 5}, true, "a box on flat sky");
            BrightestParams excluded = params;
            excluded.excludeRects.push_back({15, 15, 2, 11});
            check(star, excluded, wing, true, "the wing, its brighter neighbours excluded");
            BrightestParams roi = params;
            roi.roi = PixelRect{0, 0, 15, H};
            check(star, roi, wing, true, "the wing, its brighter neighbours outside the ROI");
            Image blanked = scene(0.0);
            std::vector<std::uint8_t> mask(static_cast<std::size_t>(W) * H, 0);
            for (int y = 0; y < H; ++y) mask[static_cast<std::size_t>(y) * W + 15] = 1;
            if (blankElsewhere) mask[0] = 1;
            blanked.setBlankMask(mask);
            check(blanked, params, wing, true, "the wing, its brighter neighbours blank");
            // A plateau (a saturated star's flat top) running out of the box: level, so the box keeps it.
            check(scene(5000.0), params, {10, 18, 5, 5}, true, "a box on a plateau that runs on outside it");
        }
    }
};

GLINT_BACKEND_TEST_MAIN(TestRegionMeasure)
#include "test_region_measure.moc"
