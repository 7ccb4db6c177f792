// The source-finder evaluation harness (scenes/StarField.h): the synthetic frame holds what
// its truth says, its FITS form reads back, and the scoring behaves on catalogues whose answer is known
// (perfect, one star removed, displaced, duplicated, rectangles, the galaxy). Nothing here asserts how
// well Glint or SExtractor do: that is `glint-cli bench sources`.
#include "tests/support/TestSupport.h"

#include "scenes/StarField.h"
#include "core/io/ImageLoader.h"
#include "core/util/Errors.h"

#include <QtTest>

#include <cmath>

using namespace glint;

namespace {

StarFieldOptions smallOptions() {
    StarFieldOptions o;
    o.width = 300;
    o.height = 260;
    o.stars = 60;
    o.seed = 7;
    return o;
}

std::vector<Detection> perfect(const StarField& f) {
    std::vector<Detection> d;
    for (const TruthStar& s : f.stars) d.push_back({s.x, s.y});
    return d;
}

int binIndex(const MatchScore& m, double snr) {
    for (std::size_t i = 0; i < m.bins.size(); ++i)
        if (snr >= m.bins[i].lo && snr < m.bins[i].hi) return static_cast<int>(i);
    return -1;
}

} // namespace

class TestStarField : public QObject {
    Q_OBJECT

private slots:
    void sceneTruth() {
        const StarFieldOptions o = smallOptions();
        const StarField f = makeStarField(o);
        QCOMPARE(static_cast<int>(f.stars.size()), o.stars);
        QVERIFY(f.galaxy.has_value());
        const Image& im = f.image;
        QCOMPARE(im.width(), o.width);
        QCOMPARE(im.height(), o.height);
        for (std::size_t i = 0; i < f.stars.size(); ++i) {
            const TruthStar& s = f.stars[i];
            QVERIFY(s.x >= o.blankBorder && s.x < o.width - o.blankBorder && s.y >= o.blankBorder && s.y < o.height - o.blankBorder);
            QVERIFY(s.fwhm >= o.fwhmMin && s.fwhm <= o.fwhmMax);
            QVERIFY(s.flux >= o.fluxMin && s.flux <= o.fluxMax);
            QVERIFY(s.snr > 0.0);
            if (i > 0) QVERIFY(f.stars[i - 1].flux >= s.flux);
            for (std::size_t j = 0; j < i; ++j) QVERIFY(std::hypot(s.x - f.stars[j].x, s.y - f.stars[j].y) >= o.minSeparation);
        }
        // Blank borders: NaN and in the blank mask; the inside is not blank.
        QVERIFY(im.isBlank(0, 0) && im.isBlank(o.blankBorder - 1, 100) && im.isBlank(100, o.height - 1));
        QVERIFY(std::isnan(im.value(5, 5)));
        QVERIFY(!im.isBlank(o.blankBorder, o.blankBorder));
        QCOMPARE(im.blankCount(), static_cast<std::size_t>(o.width) * o.height -
                                      static_cast<std::size_t>(o.width - 2 * o.blankBorder) * (o.height - 2 * o.blankBorder));
        // The saturated stars clip at the full well and bleed along their column beyond the star.
        int saturated = 0;
        for (const TruthStar& s : f.stars) {
            if (!s.saturated) continue;
            ++saturated;
            const int x = static_cast<int>(std::lround(s.x));
            int full = 0;
            for (int y = 0; y < o.height; ++y) full += (!im.isBlank(x, y) && im.value(x, y) >= o.saturation) ? 1 : 0;
            QVERIFY2(full > 3.0 * s.fwhm, qPrintable(QString("column %1: %2 full pixels").arg(x).arg(full)));
        }
        QVERIFY(saturated >= o.saturatedStars);
        // The sky: gradient and seam in the model; the noise away from sources is sqrt(sky + readNoise^2).
        const int seam = static_cast<int>(std::ceil(o.seamFraction * o.width));
        QVERIFY(std::abs(f.skyModel[100 * o.width + seam] - f.skyModel[100 * o.width + seam - 1] - o.seamStep - o.gradientX) < 1e-3);
        double sum = 0.0, sq = 0.0, var = 0.0;
        long long n = 0;
        for (int y = o.blankBorder; y < o.height - o.blankBorder; ++y)
            for (int x = o.blankBorder; x < o.width - o.blankBorder; ++x) {
                const std::size_t i = static_cast<std::size_t>(y) * o.width + x;
                if (f.sources[i] > 1.0) continue;
                const double r = im.value(x, y) - f.skyModel[i];
                sum += r;
                sq += r * r;
                var += f.noiseVariance(x, y);
                ++n;
            }
        QVERIFY2(n > 5000, qPrintable(QString::number(n)));
        const double mean = sum / n, sd = std::sqrt(sq / n - mean * mean), expected = std::sqrt(var / n);
        QVERIFY2(std::abs(mean) < 1.0 && std::abs(sd / expected - 1.0) < 0.05,
                 qPrintable(QString("noise mean %1 sd %2 expected %3").arg(mean).arg(sd).arg(expected)));
        // The same seed gives the same frame; another seed another one.
        const StarField again = makeStarField(o);
        QCOMPARE(again.stars.front().x, f.stars.front().x);
        StarFieldOptions other = o;
        other.seed = 8;
        QVERIFY(makeStarField(other).stars.front().x != f.stars.front().x);
    }

    void fitsRoundTrip() {
        const StarField f = makeStarField(smallOptions());
        const QString path = test::tempDir() + "/field.fits";
        writeStarFieldFits(f, path.toStdString());
        const Image back = loadImage(path.toStdString());
        QCOMPARE(back.width(), f.image.width());
        QCOMPARE(back.height(), f.image.height());
        QCOMPARE(back.blankCount(), f.image.blankCount());
        for (int y = 0; y < back.height(); y += 7)
            for (int x = 0; x < back.width(); x += 5) {
                QCOMPARE(back.isBlank(x, y), f.image.isBlank(x, y));
                if (!back.isBlank(x, y)) QCOMPARE(back.value(x, y), f.image.value(x, y));
            }
        QVERIFY_THROWS_EXCEPTION(OutputError, writeStarFieldFits(f, (test::tempDir() + "/no/such/dir/f.fits").toStdString()));
    }

    void perfectCatalogue() {
        const StarField f = makeStarField(smallOptions());
        const MatchScore m = scoreCatalogue(f, perfect(f));
        QCOMPARE(m.matched, static_cast<int>(f.stars.size()));
        QCOMPARE(m.falseDetections, 0);
        QCOMPARE(m.onGalaxy, 0);
        int truths = 0;
        for (const SnrBin& b : m.bins) {
            truths += b.truths;
            QCOMPARE(b.found, b.truths);
            QCOMPARE(b.genuine, b.detections);
        }
        QCOMPARE(truths, static_cast<int>(f.stars.size()));
        QCOMPARE(m.atLeast10.completeness(), 1.0);
        QCOMPARE(m.atLeast10.purity(), 1.0);
        QVERIFY(m.centroidCount > 0);
        QCOMPARE(m.centroidMedian, 0.0);
        QCOMPARE(m.centroidRms, 0.0);
    }

    void removedStarLowersCompleteness() {
        const StarField f = makeStarField(smallOptions());
        const std::size_t gone = f.stars.size() / 2;
        std::vector<Detection> d = perfect(f);
        d.erase(d.begin() + static_cast<std::ptrdiff_t>(gone));
        const MatchScore full = scoreCatalogue(f, perfect(f));
        const MatchScore m = scoreCatalogue(f, d);
        QCOMPARE(m.truthMatch[gone], -1);
        QCOMPARE(m.matched, static_cast<int>(f.stars.size()) - 1);
        const int bin = binIndex(m, f.stars[gone].snr);
        QVERIFY(bin >= 0);
        for (int i = 0; i < static_cast<int>(m.bins.size()); ++i) {
            QCOMPARE(m.bins[i].truths, full.bins[i].truths);
            QCOMPARE(m.bins[i].found, full.bins[i].found - (i == bin ? 1 : 0));
            QCOMPARE(m.bins[i].purity(), full.bins[i].purity());
        }
        QVERIFY(m.bins[bin].completeness() < 1.0);
    }

    void displacedAndDuplicated() {
        const StarField f = makeStarField(smallOptions());
        std::vector<Detection> d = perfect(f);
        const std::size_t a = f.stars.size() - 1, b = f.stars.size() - 2, c = f.stars.size() - 3;
        // Within the radius: still matched; beyond it: a false detection and a missed star.
        d[a].x += 1.0;
        d[b].x += 2.0;
        d.push_back({f.stars[c].x + 0.5, f.stars[c].y}); // a duplicate of star c: one of them is false
        const MatchScore m = scoreCatalogue(f, d);
        QCOMPARE(m.truthMatch[a], static_cast<int>(a));
        QCOMPARE(m.truthMatch[b], -1);
        QCOMPARE(m.truthMatch[c], static_cast<int>(c)); // the nearer one wins
        QCOMPARE(m.falseDetections, 2);
        QCOMPARE(m.matched, static_cast<int>(f.stars.size()) - 1);
        QVERIFY(m.atLeast10.purity() <= 1.0);
        int detections = 0, genuine = 0;
        for (const SnrBin& bin : m.bins) {
            detections += bin.detections;
            genuine += bin.genuine;
        }
        QCOMPARE(detections, static_cast<int>(d.size()));
        QCOMPARE(genuine, static_cast<int>(d.size()) - 2);
        const MatchScore wide = scoreCatalogue(f, d, 2.5);
        QCOMPARE(wide.truthMatch[b], static_cast<int>(b));
    }

    void rectanglesAndGalaxy() {
        const StarField f = makeStarField(smallOptions());
        const TruthStar& s = f.stars[5];
        // A rectangle holding the star, its centroid 3 px away: matched through the rectangle only.
        Detection r{s.x + 3.0, s.y};
        r.hasRect = true;
        r.rx = static_cast<int>(std::floor(s.x)) - 2;
        r.ry = static_cast<int>(std::floor(s.y)) - 2;
        r.rw = 9;
        r.rh = 5;
        QCOMPARE(scoreCatalogue(f, {r}).truthMatch[5], 0);
        Detection point{s.x + 3.0, s.y};
        QCOMPARE(scoreCatalogue(f, {point}).truthMatch[5], -1);
        // On the galaxy: neither genuine nor false.
        const MatchScore g = scoreCatalogue(f, {Detection{f.galaxy->x + 1.0, f.galaxy->y}});
        QCOMPARE(g.onGalaxy, 1);
        QCOMPARE(g.falseDetections, 0);
        QCOMPARE(g.atLeast10.detections, 0);
        // On empty sky: false, binned by the truth's SNR there (~0).
        int x = 0, y = 0;
        for (int yy = 40; yy < 200 && !x; ++yy)
            for (int xx = 40; xx < 250; ++xx)
                if (f.sources[static_cast<std::size_t>(yy) * f.options.width + xx] < 0.01) {
                    x = xx;
                    y = yy;
                    break;
                }
        QVERIFY(x > 0);
        QVERIFY(truthSnrAt(f, x, y) < 0.1);
        const MatchScore e = scoreCatalogue(f, {Detection{static_cast<double>(x), static_cast<double>(y)}});
        QCOMPARE(e.falseDetections, 1);
        QCOMPARE(e.bins[0].detections, 1);
        QCOMPARE(e.bins[0].purity(), 0.0);
        // A truth star's SNR and the SNR at its place agree roughly (both within about one FWHM).
        QVERIFY(std::abs(truthSnrAt(f, s.x, s.y) / s.snr - 1.0) < 0.5);
    }

    void badOptions() {
        StarFieldOptions o = smallOptions();
        o.width = 10;
        QVERIFY_THROWS_EXCEPTION(UsageError, makeStarField(o));
        o = smallOptions();
        o.fwhmMax = 1.0;
        QVERIFY_THROWS_EXCEPTION(UsageError, makeStarField(o));
        o = smallOptions();
        o.saturatedStars = o.stars + 1;
        QVERIFY_THROWS_EXCEPTION(UsageError, makeStarField(o));
    }
};

QTEST_GUILESS_MAIN(TestStarField)
#include "test_star_field.moc"
