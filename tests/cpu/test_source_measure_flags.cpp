// The source measurements' flags (truncated, aperture incomplete, saturated, neighbours, bad pixels next to
// the segment), MASK_TYPE CORRECT on bad pixels, the independence from the thread count (bit for bit), the
// errors against the noise (formula and Monte Carlo), bad inputs, and RA/Dec through the WCS.
#include "tests/support/SourceScenes.h"
#include "tests/support/TestSupport.h"

#include "core/algo/sources/SourceMeasure.h"
#include "core/io/Wcs.h"

#include <QtTest>

#include <cmath>
#include <cstring>
#include <numbers>
#include <random>
#include <stdexcept>
#include <vector>

using namespace glint;
using test::Scene;

namespace {

double relErr(double a, double b) { return std::abs(a - b) / std::abs(b); }

bool sameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

bool sameRecord(const SourceRecord& a, const SourceRecord& b) {
    const double da[] = {a.x, a.y, a.xWin, a.yWin, a.fluxIso, a.fluxErrIso, a.fluxAuto, a.fluxErrAuto, a.magAuto,
                         a.magErrAuto, a.kronRadius, a.a, a.b, a.theta, a.cxx, a.cyy, a.cxy, a.ellipticity, a.fwhm,
                         a.peak, a.background, a.threshold, a.snr, a.ra, a.dec};
    const double db[] = {b.x, b.y, b.xWin, b.yWin, b.fluxIso, b.fluxErrIso, b.fluxAuto, b.fluxErrAuto, b.magAuto,
                         b.magErrAuto, b.kronRadius, b.a, b.b, b.theta, b.cxx, b.cyy, b.cxy, b.ellipticity, b.fwhm,
                         b.peak, b.background, b.threshold, b.snr, b.ra, b.dec};
    for (std::size_t i = 0; i < std::size(da); ++i)
        if (!sameBits(da[i], db[i])) return false;
    for (std::size_t k = 0; k < a.fluxAper.size(); ++k)
        if (!sameBits(a.fluxAper[k], b.fluxAper[k]) || !sameBits(a.fluxErrAper[k], b.fluxErrAper[k]) ||
            !sameBits(a.magAper[k], b.magAper[k]) || !sameBits(a.magErrAper[k], b.magErrAper[k]))
            return false;
    return a.number == b.number && a.flags == b.flags && a.isoArea == b.isoArea && a.xmin == b.xmin &&
           a.xmax == b.xmax && a.ymin == b.ymin && a.ymax == b.ymax && a.fluxAper.size() == b.fluxAper.size();
}

// One Gaussian star (sigma 2, flux 1e4) at (x0, y0) in a w x h scene, segmented at 1e-3 of its peak.
Scene starScene(int w, int h, double x0, double y0) {
    Scene s(w, h);
    s.add(test::gaussianProfile(1e4, x0, y0, 2, 2, 0));
    s.makeImage();
    s.segment(1e-3 * 1e4 / (8 * std::numbers::pi));
    return s;
}

} // namespace

class TestSourceMeasureFlags : public QObject {
    Q_OBJECT
private slots:
    // Flag 8 (truncated) and 16 (aperture outside) on the border and in the corner; neither inside.
    void borderAndCorner() {
        const Scene inside = starScene(64, 64, 32.3, 31.6);
        QCOMPARE(measureSources(inside.field(), inside.segments, {}).at(0).flags, 0);
        for (const auto& [x0, y0] : {std::pair{1.3, 30.2}, std::pair{40.0, 62.6}, std::pair{0.2, 0.3}, std::pair{63.4, 63.0}}) {
            const Scene s = starScene(64, 64, x0, y0);
            const SourceRecord r = measureSources(s.field(), s.segments, {}).at(0);
            QVERIFY((r.flags & kSourceTruncated) && (r.flags & kSourceAperIncomplete));
            QVERIFY(std::isfinite(r.x) && std::isfinite(r.fluxAuto) && r.fluxAuto > 0 && r.fluxAuto < 1e4);
            QVERIFY(std::isfinite(r.a) && std::isfinite(r.fwhm) && std::isfinite(r.xWin));
        }
    }

    // Flag 4 when a segment pixel reaches the saturation level, not below; segment flags are kept.
    void saturation() {
        Scene s = starScene(48, 48, 24.2, 23.7);
        const double top = 100 + *std::max_element(s.v.begin(), s.v.end());
        s.saturation = top;
        s.segments[0].flags = kSourceBlended;
        QCOMPARE(measureSources(s.field(), s.segments, {}).at(0).flags, kSourceSaturated | kSourceBlended);
        s.saturation = top + 1e-6;
        QCOMPARE(measureSources(s.field(), s.segments, {}).at(0).flags, static_cast<int>(kSourceBlended));
    }

    // Bad pixels: next to the segment (32), in the AUTO aperture (16), over 10 % of it (1); a few bad pixels in
    // the core are replaced by their mirror images (MASK_TYPE CORRECT): the flux stays within 0.5 %.
    void badPixels() {
        Scene s = starScene(64, 64, 32.0, 32.0);
        const SourceRecord clean = measureSources(s.field(), s.segments, {}).at(0);
        s.bad.assign(s.v.size(), 0);
        s.bad[s.at(31, 33)] = s.bad[s.at(32, 33)] = s.bad[s.at(34, 30)] = 1;
        SourceRecord r = measureSources(s.field(), s.segments, {}).at(0);
        QCOMPARE(r.flags, kSourceIsoIncomplete | kSourceAperIncomplete);
        QVERIFY2(relErr(r.fluxAuto, clean.fluxAuto) < 0.005, qPrintable(QString::number(r.fluxAuto)));
        QVERIFY(relErr(r.fluxIso, clean.fluxIso) > 0.01); // the isophotal sum has no correction
        // One bad pixel inside the AUTO aperture (and the segment): 16 and 32, not 1.
        s.bad.assign(s.v.size(), 0);
        const double radius = clean.kronRadius * clean.a;
        s.bad[s.at(32 + static_cast<int>(radius) - 1, 32)] = 1;
        r = measureSources(s.field(), s.segments, {}).at(0);
        QVERIFY(r.flags & kSourceAperIncomplete);
        QVERIFY(!(r.flags & kSourceNeighbours));
        // A bad half-plane over the aperture: more than 10 % masked, and mirrors not free: the flux drops.
        for (int y = 0; y < 64; ++y)
            for (int x = 0; x < 64; ++x) s.bad[s.at(x, y)] = x >= 35 ? 1 : 0;
        r = measureSources(s.field(), s.segments, {}).at(0);
        QCOMPARE(r.flags & (kSourceNeighbours | kSourceAperIncomplete | kSourceIsoIncomplete),
                 kSourceNeighbours | kSourceAperIncomplete | kSourceIsoIncomplete);
    }

    // Flag 1 from a neighbour covering more than 10 % of the AUTO aperture; none when it is far.
    void neighbourFlag() {
        for (const double sep : {6.0, 30.0}) {
            Scene s(96, 64), one(96, 64);
            one.add(test::gaussianProfile(1e4, 30, 32, 2, 2, 0));
            s.add(test::gaussianProfile(1e4, 30 + sep, 32, 2, 2, 0));
            for (std::size_t i = 0; i < s.v.size(); ++i) s.v[i] += one.v[i];
            s.makeImage();
            const double threshold = 0.01;
            for (std::size_t i = 0; i < s.v.size(); ++i)
                s.segmentation[i] = s.v[i] > threshold ? (one.v[i] >= s.v[i] - one.v[i] ? 1 : 2) : 0;
            s.makeSegments(threshold);
            const auto r = measureSources(s.field(), s.segments, {});
            QCOMPARE((r[0].flags & kSourceNeighbours) != 0, sep < 10);
            QCOMPARE((r[1].flags & kSourceNeighbours) != 0, sep < 10);
        }
    }

    // A crowded noisy field: 1, 2, 3 threads and every core give the same records, bit for bit.
    void threadCountIndependence() {
        Scene s(256, 256, 1000, 5);
        std::mt19937 rng(35);
        std::uniform_real_distribution<double> u(0, 1);
        for (int k = 0; k < 80; ++k)
            s.add(test::gaussianProfile(std::pow(10.0, 2.5 + 2 * u(rng)), 256 * u(rng), 256 * u(rng), 1 + 3 * u(rng), 1 + 3 * u(rng), 180 * u(rng)), 2);
        s.makeImage(5, 36);
        s.segment(15);
        QVERIFY(s.segments.size() > 30);
        MeasureParams p;
        p.apertures = {3, 6, 12};
        p.gain = 2;
        p.threads = 1;
        const auto one = measureSources(s.field(), s.segments, p);
        QCOMPARE(one.size(), s.segments.size());
        for (int t : {2, 3, 0}) {
            p.threads = t;
            const auto other = measureSources(s.field(), s.segments, p);
            QCOMPARE(other.size(), one.size());
            for (std::size_t i = 0; i < one.size(); ++i) QVERIFY2(sameRecord(one[i], other[i]), qPrintable(QString("threads %1, source %2").arg(t).arg(i)));
        }
        for (std::size_t i = 0; i < one.size(); ++i) QCOMPARE(one[i].number, s.segments[i].number);
    }

    // Errors: FLUXERR_AUTO^2 = sigma^2 x the aperture's area (pi A B R^2) (+ FLUX_AUTO / gain); FLUXERR_ISO from its
    // formula; and over 300 noise draws the scatter of FLUX_APER and FLUX_AUTO matches their errors.
    void errorsAgainstNoise() {
        Scene s(64, 64, 50, 3);
        s.add(test::gaussianProfile(5000, 32.2, 31.7, 2.2, 1.6, 35));
        s.makeImage();
        s.segment(0.05);
        MeasureParams p;
        p.apertures = {10};
        SourceRecord r = measureSources(s.field(), s.segments, p).at(0);
        const double scale = r.kronRadius;
        const double area = std::numbers::pi * r.a * r.b * scale * scale;
        QVERIFY2(relErr(r.fluxErrAuto, 3 * std::sqrt(area)) < 0.01, qPrintable(QString::number(r.fluxErrAuto)));
        QVERIFY(relErr(r.snr, r.fluxAuto / r.fluxErrAuto) < 1e-15);
        QVERIFY(relErr(r.magErrAuto, 1.0857 * r.fluxErrAuto / r.fluxAuto) < 1e-15);
        QVERIFY(relErr(r.magAuto, -2.5 * std::log10(r.fluxAuto)) < 1e-15);
        p.gain = 4;
        p.magZeropoint = 25;
        r = measureSources(s.field(), s.segments, p).at(0);
        QVERIFY(relErr(r.fluxErrAuto, std::sqrt(9 * area + r.fluxAuto / 4)) < 0.01);
        QVERIFY(relErr(r.magAuto, 25 - 2.5 * std::log10(r.fluxAuto)) < 1e-15);
        double var = 0, pos = 0;
        for (std::size_t i = 0; i < s.v.size(); ++i)
            if (s.segmentation[i] == 1) {
                var += 9;
                pos += std::max(s.observed[i], 0.0);
            }
        QVERIFY(relErr(r.fluxErrIso, std::sqrt(var + pos / 4)) < 1e-12);
        // Monte Carlo: the segmentation fixed, the noise drawn anew.
        p.gain = 0;
        std::vector<double> aper, autoFlux;
        double errAper = 0, errAuto = 0;
        for (unsigned k = 0; k < 300; ++k) {
            s.makeImage(3, 100 + k);
            const SourceRecord m = measureSources(s.field(), s.segments, p).at(0);
            aper.push_back(m.fluxAper[0]);
            autoFlux.push_back(m.fluxAuto);
            errAper += m.fluxErrAper[0] / 300;
            errAuto += m.fluxErrAuto / 300;
        }
        auto stddev = [](const std::vector<double>& x) {
            double m = 0, q = 0;
            for (double v : x) m += v / static_cast<double>(x.size());
            for (double v : x) q += (v - m) * (v - m) / static_cast<double>(x.size() - 1);
            return std::sqrt(q);
        };
        QVERIFY2(relErr(stddev(aper), errAper) < 0.1, qPrintable(QString("%1 vs %2").arg(stddev(aper)).arg(errAper)));
        QVERIFY2(relErr(stddev(autoFlux), errAuto) < 0.15, qPrintable(QString("%1 vs %2").arg(stddev(autoFlux)).arg(errAuto)));
    }

    // Bad inputs: defined results, NaN where undefined, no crash.
    void badInputs() {
        Scene s = starScene(40, 40, 20.4, 19.8);
        // sigma 0 everywhere: errors 0, SNR NaN; NaN sigma and NaN pixels in the core: bad pixels (32).
        std::fill(s.rms.begin(), s.rms.end(), 0.0f);
        SourceRecord r = measureSources(s.field(), s.segments, {}).at(0);
        QCOMPARE(r.fluxErrAuto, 0.0);
        QVERIFY(std::isnan(r.snr) && r.fluxAuto > 0);
        s.rms[s.at(20, 20)] = std::numeric_limits<float>::quiet_NaN();
        std::vector<double> samples = s.image.toDoubles();
        samples[s.at(21, 20)] = std::numeric_limits<double>::quiet_NaN();
        s.image = Image::fromSamples(40, 40, std::move(samples));
        r = measureSources(s.field(), s.segments, {}).at(0);
        QVERIFY(r.flags & kSourceIsoIncomplete);
        QVERIFY(std::isfinite(r.fluxIso) && std::isfinite(r.fluxAuto) && std::isfinite(r.x) && std::isfinite(r.fwhm));
        // Each one's mirror about the centre (20.4, 19.8) is the other: both are dropped.
        QVERIFY(relErr(r.fluxAuto, 1e4 - s.v[s.at(20, 20)] - s.v[s.at(21, 20)]) < 0.01);
        // Without an RMS map: errors NaN, fluxes kept.
        SourceField noRms = s.field();
        noRms.rms = nullptr;
        r = measureSources(noRms, s.segments, {}).at(0);
        QVERIFY(std::isnan(r.fluxErrAuto) && std::isnan(r.fluxErrIso) && std::isfinite(r.fluxAuto));

        // One pixel; an all-negative block; a number absent from the map; a box past the image; in a corner.
        Scene t(30, 30);
        t.v[t.at(10, 10)] = 50;
        for (int y = 20; y < 23; ++y)
            for (int x = 3; x < 6; ++x) {
                t.v[t.at(x, y)] = -5;
                t.segmentation[t.at(x, y)] = 2;
            }
        t.v[t.at(0, 0)] = 7;
        t.segmentation[t.at(10, 10)] = 1;
        t.segmentation[t.at(0, 0)] = 4;
        t.makeImage();
        t.makeSegments(1);
        t.segments[2].xmin = t.segments[2].ymin = 0; // number 3: no pixel
        t.segments.push_back({5, -10, -10, 100, 100, 0, 1, 0});
        MeasureParams p;
        p.apertures = {0, 2, std::numeric_limits<double>::quiet_NaN()};
        const auto rs = measureSources(t.field(), t.segments, p);
        QCOMPARE(rs.size(), std::size_t{5});
        const SourceRecord& single = rs[0];
        QCOMPARE(single.x, 10.0);
        QCOMPARE(single.fluxIso, 50.0);
        QVERIFY(relErr(single.a, std::sqrt(1.0 / 12)) < 1e-12 && relErr(single.b, std::sqrt(1.0 / 12)) < 1e-12);
        QCOMPARE(single.theta, 0.0);
        QVERIFY(relErr(single.fluxAuto, 50) < 1e-12 && relErr(single.fluxAper[1], 50) < 1e-12);
        QVERIFY(std::isnan(single.fluxAper[0]) && std::isnan(single.fluxAper[2]) && std::isnan(single.magAper[0]));
        QVERIFY(std::isfinite(single.fwhm) && std::isfinite(single.xWin));
        const SourceRecord& negative = rs[1];
        QCOMPARE(negative.fluxIso, -45.0);
        QCOMPARE(negative.x, 4.0);
        QCOMPARE(negative.y, 21.0);
        QVERIFY(negative.kronRadius == 3.5 && std::isnan(negative.magAuto) && std::isnan(negative.magErrAuto));
        QVERIFY(std::isnan(negative.fwhm) && negative.fluxAuto < 0 && std::isfinite(negative.a));
        QCOMPARE(rs[2].isoArea, std::int64_t{0});
        QVERIFY(std::isnan(rs[2].fluxIso) && std::isnan(rs[2].x));
        QCOMPARE(rs[2].number, 3);
        QCOMPARE(rs[3].flags & kSourceTruncated, static_cast<int>(kSourceTruncated));
        QVERIFY(std::isfinite(rs[3].fluxAuto));
        QCOMPARE(rs[4].isoArea, std::int64_t{0});
        QVERIFY(measureSources(t.field(), {}, p).empty());
        // Maps that do not match the image: a clear error.
        std::vector<std::int32_t> shortMap(10, 0);
        SourceField wrong = t.field();
        wrong.segmentation = &shortMap;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, measureSources(wrong, t.segments, p));
    }

    // RA/Dec: the WCS at the barycentre (0-based, the records' frame); NaN without a WCS.
    void skyPosition() {
        Scene s = starScene(48, 48, 20.3, 25.8);
        std::string header;
        for (const char* card : {"CTYPE1  = 'RA---TAN'", "CTYPE2  = 'DEC--TAN'", "CRPIX1  = 24.5", "CRPIX2  = 24.5",
                                  "CRVAL1  = 150.0", "CRVAL2  = 2.0", "CDELT1  = -0.0002777778", "CDELT2  = 0.0002777778",
                                  "EQUINOX = 2000.0", "RADESYS = 'FK5'"}) {
            std::string c = card;
            c.resize(80, ' ');
            header += c;
        }
        const auto wcs = Wcs::fromHeader(header, 10);
        QVERIFY(wcs);
        QVERIFY(std::isnan(measureSources(s.field(), s.segments, {}).at(0).ra));
        SourceField f = s.field();
        f.wcs = wcs.get();
        const SourceRecord r = measureSources(f, s.segments, {}).at(0);
        const auto sky = wcs->pixelToSky(r.x, r.y);
        QVERIFY(sky);
        QCOMPARE(r.ra, sky->ra);
        QCOMPARE(r.dec, sky->dec);
        // FITS pixel 24.5 is 0-based 23.5: the star at x 20.3 lies 3.2 px east of CRVAL (RA grows as x falls).
        QVERIFY(std::abs((r.ra - 150.0) * std::cos(2.0 * std::numbers::pi / 180) * 3600 - 3.2) < 0.01);
    }
};

QTEST_GUILESS_MAIN(TestSourceMeasureFlags)
#include "test_source_measure_flags.moc"
