// Display rendering (the fast level lookup must give exactly the colour of stretch() for every value and
// scale, in every sample type, blanks and NaN included) and the display histogram.
#include "tests/support/TestSupport.h"

#include "core/display/Display.h"
#include "core/display/Histogram.h"
#include "core/util/Errors.h"

#include <QtTest>

#include <cmath>
#include <limits>
#include <map>
#include <random>

using namespace glint;

namespace {
// The colour by definition: the colormap entry of round(255 · stretch(v)).
std::uint32_t naiveColour(double v, const DisplaySettings& s, const DisplayLimits& l, std::uint32_t blank) {
    static std::map<Colormap, std::array<std::uint32_t, 256>> tables;
    if (!tables.count(s.colormap)) tables[s.colormap] = colormapTable(s.colormap);
    if (std::isnan(v)) return blank;
    return tables[s.colormap][static_cast<std::size_t>(std::lround(stretch(v, l, s.scale) * 255.0))];
}
} // namespace

class TestDisplayRender : public QObject {
    Q_OBJECT

private slots:
    void levelsMatchStretch_data() {
        test::columns<int, int>({"scale", "colormap"});
        for (auto sc : {DisplayScale::Linear, DisplayScale::Log, DisplayScale::Sqrt, DisplayScale::Asinh})
            for (auto cm : {Colormap::Grey, Colormap::Viridis})
                QTest::addRow("%s %s", displayScaleName(sc), colormapName(cm)) << static_cast<int>(sc) << static_cast<int>(cm);
    }
    void levelsMatchStretch() {
        QFETCH(int, scale);
        QFETCH(int, colormap);
        DisplaySettings s;
        s.scale = static_cast<DisplayScale>(scale);
        s.colormap = static_cast<Colormap>(colormap);
        const DisplayLimits limits{-3.25, 1234.5};
        std::mt19937 rng(11);
        std::uniform_real_distribution<double> inside(-10.0, 1250.0);
        std::vector<double> values(200000);
        for (double& v : values) v = inside(rng);
        // Values right at every level's boundary, and the extremes.
        for (int k = 0; k <= 1000; ++k) values.push_back(limits.low + (limits.high - limits.low) * k / 1000.0);
        values.insert(values.end(), {limits.low, limits.high, std::nextafter(limits.low, 0.0), -1e300, 1e300,
                                     std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                                     std::numeric_limits<double>::quiet_NaN()});
        const int w = 1001;
        values.resize((values.size() + w - 1) / w * w, 0.0);
        const Image image = Image::fromSamples<double>(w, static_cast<int>(values.size() / w), values);
        const std::vector<std::uint32_t> out = renderImage(image, s, limits, 0xFF123456u);
        for (std::size_t i = 0; i < values.size(); ++i)
            if (out[i] != naiveColour(values[i], s, limits, 0xFF123456u))
                QFAIL(qPrintable(QStringLiteral("value %1 at %2").arg(values[i], 0, 'g', 17).arg(i)));
    }

    void everySampleType() {
        std::mt19937 rng(3);
        DisplaySettings s;
        s.scale = DisplayScale::Asinh;
        const auto check = [&](const Image& image, const DisplayLimits& l) {
            const auto out = renderImage(image, s, l, 0xFF000001u);
            for (std::size_t i = 0; i < image.pixelCount(); ++i) {
                const std::uint32_t expected = image.isBlank(i) ? 0xFF000001u : naiveColour(image.value(i), s, l, 0xFF000001u);
                if (out[i] != expected) QFAIL(qPrintable(QStringLiteral("pixel %1").arg(i)));
            }
        };
        std::vector<std::uint8_t> u8(300);
        std::vector<std::int16_t> i16(300);
        std::vector<std::uint16_t> u16(300);
        std::vector<float> f32(300);
        for (std::size_t i = 0; i < 300; ++i) {
            u8[i] = static_cast<std::uint8_t>(rng());
            i16[i] = static_cast<std::int16_t>(rng());
            u16[i] = static_cast<std::uint16_t>(rng());
            f32[i] = static_cast<float>(static_cast<int>(rng() % 2000) - 1000) / 7.0f;
        }
        check(Image::fromSamples<std::uint8_t>(20, 15, u8), {10, 200});
        check(Image::fromSamples<std::int16_t>(20, 15, i16), {-20000, 15000});
        check(Image::fromSamples<std::uint16_t>(20, 15, u16), {0, 65535});
        check(Image::fromSamples<float>(20, 15, f32), {-50, 90});
        check(test::randomIntImage(17, 13, -100000, 100000, rng, 0.2), {-5e4, 9e4}); // int32 with blanks
        // Rows in chunks into caller buffers give the same pixels as the whole image.
        const Image image = test::randomFloatImage(31, 29, -1, 1, rng, 0.1);
        const DisplayRenderer renderer(image, s, {-0.5, 0.5}, 0xFF000001u);
        std::vector<std::uint32_t> rows(image.pixelCount());
        renderer.renderRows(10, 29, [&](int y) { return rows.data() + static_cast<std::size_t>(y) * 31; });
        renderer.renderRows(0, 10, [&](int y) { return rows.data() + static_cast<std::size_t>(y) * 31; });
        QVERIFY(rows == renderImage(image, s, {-0.5, 0.5}, 0xFF000001u));
    }

    void histogramCounts() {
        std::vector<double> v = {0, 0.5, 1, 1.5, 2, 9.99, 10, -1, 11, std::nan("")};
        const Image image = Image::fromSamples<double>(10, 1, v);
        const Histogram h = computeHistogram(image, 0.0, 10.0, 10);
        QCOMPARE(h.counts.size(), std::size_t(10));
        QCOMPARE(h.counts[0], std::uint64_t(2)); // 0, 0.5
        QCOMPARE(h.counts[1], std::uint64_t(2)); // 1, 1.5
        QCOMPARE(h.counts[2], std::uint64_t(1));
        QCOMPARE(h.counts[9], std::uint64_t(2)); // 9.99 and the closed right edge 10
        QCOMPARE(h.below, std::uint64_t(1));
        QCOMPARE(h.above, std::uint64_t(1));
        QCOMPARE(h.binWidth(), 1.0);
        QVERIFY_THROWS_EXCEPTION(UsageError, computeHistogram(image, 1.0, 1.0, 10));
        QVERIFY_THROWS_EXCEPTION(UsageError, computeHistogram(image, 0.0, 1.0, 0));

        // Blank pixels are not counted; many pixels over several threads add up.
        const Image big = test::randomIntImage(1000, 700, 0, 99, test::Seed{5}, 0.1);
        const Histogram hb = computeHistogram(big, -0.5, 99.5, 100);
        std::uint64_t total = 0;
        for (auto c : hb.counts) total += c;
        QCOMPARE(total, static_cast<std::uint64_t>(big.pixelCount() - big.blankCount()));
    }

    void histogramRange() {
        std::vector<std::uint8_t> levels(256 * 4);
        for (std::size_t i = 0; i < levels.size(); ++i) levels[i] = static_cast<std::uint8_t>(i % 200 + 20);
        const Image small = Image::fromSamples<std::uint8_t>(256, 4, levels);
        const HistogramRange r = chooseHistogramRange(small, 20, 219);
        QCOMPARE(r.bins, 200); // one bin per level
        QCOMPARE(r.low, 19.5);
        QCOMPARE(r.high, 219.5);

        // A bulk between 0 and 100 plus two far outliers: the range shows the bulk, not the outliers.
        std::vector<double> v(100000);
        std::mt19937 rng(9);
        std::uniform_real_distribution<double> bulk(0.0, 100.0);
        for (double& x : v) x = bulk(rng);
        v[10] = -1e6;
        v[20] = 1e7;
        const Image image = Image::fromSamples<double>(1000, 100, v);
        const HistogramRange t = chooseHistogramRange(image, -1e6, 1e7);
        QVERIFY2(t.low >= -1e6 && t.low < 0.0 && t.low > -2e4, qPrintable(QString::number(t.low)));
        QVERIFY2(t.high > 100.0 && t.high < 2e4, qPrintable(QString::number(t.high)));
    }
};

QTEST_GUILESS_MAIN(TestDisplayRender)
#include "test_display_render.moc"
