// Registration, the FFT match-count bound, normalisation and confidence of the common component: the
// bound never falls below the brute-force match count, phase correlation finds known offsets, the cpu
// backend stays equal to the reference with every normalisation, contrast-changed crops are recovered,
// and the JSON carries the confidence (older documents stay readable).
#include "tests/support/CommonChecks.h"
#include "tests/support/TestSupport.h"

#include "core/algo/commoncomponent/CommonAlgorithm.h"
#include "core/algo/commoncomponent/CommonComponent.h"
#include "scenes/CommonComponentCases.h"
#include "core/algo/commoncomponent/CommonComponentCoding.h"
#include "core/algo/commoncomponent/CommonRegistration.h"
#include "cuda/Backends.h"
#include "core/util/Errors.h"

#include <QJsonObject>
#include <QtTest>

#include <random>
#include <utility>

using namespace glint;
using namespace glint::common_component;

namespace {

std::uint64_t bruteMatches(const Image& a, const Image& b, int dx, int dy, double t) {
    std::uint64_t n = 0;
    for (int y = 0; y < a.height(); ++y)
        for (int x = 0; x < a.width(); ++x) {
            const int xb = x + dx, yb = y + dy;
            if (xb < 0 || yb < 0 || xb >= b.width() || yb >= b.height()) continue;
            if (a.isBlank(x, y) || b.isBlank(xb, yb)) continue;
            n += samplesMatch(a.value(x, y), b.value(xb, yb), t);
        }
    return n;
}

// A and B: crops of one fractal-noise scene (its size and seed), A at the scene's top-left and B at `from`,
// so that B's top-left sits at `from` in A.
std::pair<Image, Image> overlappingCrops(QSize scene, std::uint32_t seed, QPoint from, QSize crop) {
    const Image noise = fractalNoiseImage(scene.width(), scene.height(), seed);
    return {cropImage(noise, 0, 0, crop.width(), crop.height()),
            cropImage(noise, from.x(), from.y(), crop.width(), crop.height())};
}

} // namespace

class TestCommonRegistration : public QObject {
    Q_OBJECT

private slots:
    // The FFT bound at every offset is at least the exact match count, for random pairs of many shapes,
    // few and many values, blanks, tolerance 0 and > 0, and every bin count.
    void fftBoundIsAnUpperBound() {
        std::mt19937 rng(16);
        std::uniform_int_distribution<int> side(1, 19), values(2, 40), coin(0, 3);
        for (int i = 0; i < 120; ++i) {
            const int v = values(rng);
            const double blanks = coin(rng) == 0 ? 0.2 : 0.0;
            const Image a = test::randomIntImage(side(rng), side(rng), 0, v - 1, rng, blanks);
            const Image b = test::randomIntImage(side(rng), side(rng), 0, v - 1, rng, blanks);
            const double t = coin(rng) == 0 ? 2.0 : 0.0;
            JobControl job;
            const CommonCoding c = codeImages(a, b, t, job);
            const int bins = 1 << (i % 6); // 1 .. 32
            const auto bound = MatchCountBound::build(c, job, bins);
            if (!bound) continue; // nothing matchable
            for (int dy = -(a.height() - 1); dy < b.height(); ++dy)
                for (int dx = -(a.width() - 1); dx < b.width(); ++dx) {
                    const std::uint64_t exact = bruteMatches(a, b, dx, dy, t);
                    if (bound->at(dx, dy) < exact)
                        QFAIL(qPrintable(QString("pair %1, bins %2, offset (%3, %4): bound %5 < %6")
                                             .arg(i).arg(bins).arg(dx).arg(dy).arg(bound->at(dx, dy)).arg(exact)));
                }
        }
    }

    // The mask (runs united strip by strip on 1..9 threads, the strips joined) is the 4-connected
    // component through the seed that a plain breadth-first fill finds, with its size and bounding box,
    // on fragmented matches (few values, blanks, tolerance 0 and 1) at many offsets; a wrong expected
    // size throws.
    void componentFromSeedIsTheFloodFill() {
        std::mt19937 rng(2016);
        std::uniform_int_distribution<int> side(1, 70), values(2, 4), coin(0, 3);
        int checked = 0;
        for (int i = 0; i < 120; ++i) {
            const bool wide = i % 10 == 9; // some long rows: several 64-bit words a row
            const int v = values(rng);
            const double blanks = coin(rng) == 0 ? 0.1 : 0.0;
            const Image a = test::randomIntImage(wide ? 300 : side(rng), side(rng), 0, v - 1, rng, blanks);
            const Image b = test::randomIntImage(wide ? 280 : side(rng), side(rng), 0, v - 1, rng, blanks);
            const double t = coin(rng) == 0 ? 1.0 : 0.0;
            JobControl job;
            const CommonCoding c = codeImages(a, b, t, job);
            std::uniform_int_distribution<int> ddx(-(a.width() - 1), b.width() - 1), ddy(-(a.height() - 1), b.height() - 1);
            const int dx = ddx(rng), dy = ddy(rng);
            const Overlap o = overlapOf(a.width(), a.height(), b.width(), b.height(), dx, dy);
            // The first matching pixel after a random start, the seed.
            std::uniform_int_distribution<int> start(0, static_cast<int>(o.area()) - 1);
            int seed = -1;
            for (int k = 0, s0 = start(rng); k < static_cast<int>(o.area()) && seed < 0; ++k) {
                const int p = (s0 + k) % static_cast<int>(o.area());
                if (c.matchAt(o.x0 + p % o.width, o.y0 + p / o.width, dx, dy)) seed = p;
            }
            if (seed < 0) continue;
            const int sx = o.x0 + seed % o.width, sy = o.y0 + seed / o.width;
            // Breadth-first fill in A's frame.
            std::vector<std::uint8_t> mask(a.pixelCount(), 0);
            std::vector<std::pair<int, int>> queue = {{sx, sy}};
            mask[static_cast<std::size_t>(sy) * a.width() + sx] = 1;
            int x0 = sx, x1 = sx, y0 = sy, y1 = sy;
            for (std::size_t head = 0; head < queue.size(); ++head) {
                const auto [x, y] = queue[head];
                x0 = std::min(x0, x), x1 = std::max(x1, x), y0 = std::min(y0, y), y1 = std::max(y1, y);
                const int nx[4] = {x - 1, x + 1, x, x}, ny[4] = {y, y, y - 1, y + 1};
                for (int k = 0; k < 4; ++k) {
                    if (nx[k] < o.x0 || nx[k] >= o.x0 + o.width || ny[k] < o.y0 || ny[k] >= o.y0 + o.height) continue;
                    std::uint8_t& m = mask[static_cast<std::size_t>(ny[k]) * a.width() + nx[k]];
                    if (m || !c.matchAt(nx[k], ny[k], dx, dy)) continue;
                    m = 1;
                    queue.push_back({nx[k], ny[k]});
                }
            }
            for (int threads = 1; threads <= 9; ++threads) {
                const auto r = componentFromSeed(c, dx, dy, sx, sy, queue.size(), threads);
                QVERIFY(r.found);
                QCOMPARE(r.size, std::uint64_t(queue.size()));
                QCOMPARE(r.dx, dx);
                QCOMPARE(r.dy, dy);
                QCOMPARE(r.bboxX, x0);
                QCOMPARE(r.bboxY, y0);
                QCOMPARE(r.bboxWidth, x1 - x0 + 1);
                QCOMPARE(r.bboxHeight, y1 - y0 + 1);
                QVERIFY2(r.mask == mask, qPrintable(QString("pair %1, %2 threads").arg(i).arg(threads)));
            }
            QVERIFY_THROWS_EXCEPTION(std::logic_error, componentFromSeed(c, dx, dy, sx, sy, queue.size() + 1, 3));
            ++checked;
        }
        QVERIFY(checked > 60);
    }

    // Images of at most 16-bit integers are coded through counts and tables per value (one pass for
    // both images' counts, one for their per-pixel arrays, on several threads): every pixel gets what the
    // general coding (sorted distinct values) gives the same values held as 32-bit integers.
    void smallIntegerCodingIsTheGeneralOne() {
        std::mt19937 rng(1616);
        auto as = [](const Image& image, auto tag) {
            using T = decltype(tag);
            std::vector<T> samples(image.pixelCount());
            for (std::size_t i = 0; i < samples.size(); ++i) samples[i] = static_cast<T>(image.value(i));
            Image out = Image::fromSamples<T>(image.width(), image.height(), std::move(samples));
            if (image.hasBlanks()) out.setBlankMask(image.blankMask());
            return out;
        };
        struct Range {
            int lo, hi;
        };
        const Range ranges[] = {{0, 255}, {-128, 127}, {0, 65535}, {-32768, 32767}, {10, 40}};
        for (int i = 0; i < 40; ++i) {
            const Range ra = ranges[i % 5], rb = ranges[(i / 5) % 5];
            const bool big = i % 8 == 0; // enough pixels for several threads
            const int w = big ? 1200 : 20 + i, h = big ? 900 : 30 + i % 7;
            const Image a32 = test::randomIntImage(w, h, ra.lo, ra.hi, rng, i % 3 == 0 ? 0.1 : 0.0);
            const Image b32 = test::randomIntImage(w - 3, h + 2, rb.lo, rb.hi, rng, i % 4 == 0 ? 0.1 : 0.0);
            auto typed = [&](const Image& image, const Range& r) {
                if (r.lo == 0 && r.hi == 65535) return as(image, std::uint16_t{});
                if (r.lo == -32768) return as(image, std::int16_t{});
                if (r.lo == -128) return as(image, std::int8_t{});
                return as(image, std::uint8_t{});
            };
            const Image a = typed(a32, ra), b = typed(b32, rb);
            for (double t : {0.0, 1.5, 300.0}) {
                JobControl job;
                const CommonCoding small = codeImages(a, b, t, job), general = codeImages(a32, b32, t, job);
                QCOMPARE(small.codeCount, general.codeCount);
                QVERIFY(small.loA == general.loA);
                QVERIFY(small.spanA == general.spanA);
                QVERIFY(small.codeB == general.codeB);
                QVERIFY(small.binA == general.binA);
                QVERIFY(small.binB == general.binB);
                QCOMPARE(small.boundExact, general.boundExact);
                QCOMPARE(small.twoPartitions, general.twoPartitions);
            }
        }
    }

    // Phase correlation puts the true offset among its candidates, with every sign of the offset (the
    // wrap-around aliases) and unequal sizes; where the overlap is a thin band at the windowed edges it
    // may miss it, and the exact search still finds it.
    void phaseCorrelationFindsKnownOffsets() {
        const Image scene = fractalNoiseImage(400, 360, 5);
        const int shifts[][2] = {{60, 30}, {0, 90}, {130, 0}, {17, 141}};
        for (const auto& s : shifts) {
            for (int sign = 0; sign < 4; ++sign) {
                const int sx = s[0], sy = s[1];
                // A at (ax, ay), B at (bx, by) of the scene: dx = ax - bx.
                const int ax = sign & 1 ? sx : 0, bx = sign & 1 ? 0 : sx;
                const int ay = sign & 2 ? sy : 0, by = sign & 2 ? 0 : sy;
                const Image a = cropImage(scene, ax, ay, 250, 200);
                const Image b = cropImage(scene, bx, by, 230, 210);
                JobControl job;
                const auto reg = registerByPhaseCorrelation(a, b, offsetRange(250, 200, 230, 210, -1), job);
                const CommonOffset truth{ax - bx, ay - by};
                if (sy < 100)
                    QVERIFY2(std::find(reg.candidates.begin(), reg.candidates.end(), truth) != reg.candidates.end(),
                         qPrintable(QString("(%1, %2) not among the candidates").arg(truth.dx).arg(truth.dy)));
                QVERIFY(reg.peak > 0.0 && reg.peak <= 1.0);
                const auto r = test::runCommon(a, b, {}, Backend::Cpu);
                QCOMPARE(r.dx, truth.dx);
                QCOMPARE(r.dy, truth.dy);
                QVERIFY(r.confidence.reliable);
                QVERIFY(r.confidence.coverage > 0.999);
                QCOMPARE(r.confidence.overlapArea, r.size);
            }
        }
    }

    // cpu = reference (size and offsets searched) with every normalisation on random pairs.
    void normalisedAgainstReference() {
        std::mt19937 rng(1616);
        std::uniform_int_distribution<int> side(1, 11), values(2, 6), coin(0, 3);
        for (CommonNormalize n : {CommonNormalize::None, CommonNormalize::Linear, CommonNormalize::Rank})
            for (int i = 0; i < 60; ++i) {
                const int v = values(rng);
                const Image a = test::randomIntImage(side(rng), side(rng), 0, v - 1, rng, coin(rng) == 0 ? 0.1 : 0.0);
                const Image b = test::randomIntImage(side(rng), side(rng), 0, 3 * v, rng);
                CommonComponentParams p;
                p.normalize = n;
                p.tolerance = coin(rng) == 0 ? 0.5 : 0.0;
                if (coin(rng) == 0) p.maxShift = coin(rng);
                const auto got = test::runCommon(a, b, p, Backend::Cpu);
                const auto expected = test::runCommon(a, b, p, Backend::Reference);
                if (got.size != expected.size || got.confidence.gain != expected.confidence.gain) {
                    QString text;
                    for (std::size_t k = 0; k < a.pixelCount(); ++k) text += QString::number(a.value(k)) + (a.isBlank(k) ? "b " : " ");
                    text += "| ";
                    for (std::size_t k = 0; k < b.pixelCount(); ++k) text += QString::number(b.value(k)) + " ";
                    qWarning("ref gain %.17g; normalize %s t %g shift %lld A %dx%d B %dx%d gain %.17g bias %.17g: %s", expected.confidence.gain, commonNormalizeName(n),
                             p.tolerance, p.maxShift, a.width(), a.height(), b.width(), b.height(), got.confidence.gain,
                             got.confidence.bias, qPrintable(text));
                }
                QCOMPARE(got.size, expected.size);
                QCOMPARE(got.stats.offsets, expected.stats.offsets);
                QCOMPARE(got.confidence.gain, expected.confidence.gain);
                QCOMPARE(got.confidence.bias, expected.confidence.bias);
                if (QTest::currentTestFailed()) return;
            }
    }

    // B = 5 A - 242 (clipped): no pixel equal; linear normalisation and a small tolerance find the true
    // offset with (nearly) all of the overlap, and so does rank.
    void contrastStretchedCrops() {
        auto [a, b] = overlappingCrops({300, 300}, 9, {100, 40}, {200, 200});
        changeImage(b, 0.5, 40, 1.0, 0, 0, 1);
        for (CommonNormalize n : {CommonNormalize::Linear, CommonNormalize::Rank}) {
            CommonComponentParams p;
            p.normalize = n;
            p.tolerance = 2;
            const auto r = test::runCommon(a, b, p, Backend::Cpu);
            qInfo("normalize %s: dx %d dy %d size %llu coverage %g gain %g bias %g peak %g", commonNormalizeName(n), r.dx, r.dy,
                  static_cast<unsigned long long>(r.size), r.confidence.coverage, r.confidence.gain, r.confidence.bias,
                  r.confidence.registrationPeak);
            QCOMPARE(r.dx, -100);
            QCOMPARE(r.dy, -40);
            QVERIFY2(r.confidence.coverage >= 0.9, qPrintable(QString::number(r.confidence.coverage)));
            QVERIFY(r.confidence.reliable);
            QCOMPARE(QString::fromStdString(commonPlacementSentence(r)), QString("B's top-left sits at (100, 40) in A"));
        }
        CommonComponentParams p;
        p.normalize = CommonNormalize::Linear;
        p.tolerance = 2;
        const auto r = test::runCommon(a, b, p, Backend::Cpu);
        QVERIFY(std::abs(r.confidence.gain - 2.0) < 0.1);
    }

    // +-2 noise on B: linear normalisation rounds B' to A's integers, so tolerance 2 covers the whole
    // overlap (a fitted bias of a fraction would push the +-2 pixels past it).
    void noisyCropsCoverTheOverlap() {
        auto [a, b] = overlappingCrops({600, 430}, 4, {100, 30}, {400, 400});
        changeImage(b, 1.0, 0.0, 1.0, 2, 0, 8);
        CommonComponentParams p;
        p.normalize = CommonNormalize::Linear;
        p.tolerance = 2;
        const auto r = test::runCommon(a, b, p, Backend::Cpu);
        QCOMPARE(r.dx, -100);
        QCOMPARE(r.dy, -30);
        QVERIFY2(r.confidence.coverage > 0.99, qPrintable(QString::number(r.confidence.coverage)));
    }

    // Images of at most 16-bit integers are fitted from counts per value pair: the same gain, bias and
    // answer as the same images held as doubles (fitted pixel by pixel); the runner-up the cpu backend
    // takes from its labelled candidates is the one the reference's run labels afresh.
    void countedFitIsThePerPixelFit() {
        auto [a, b] = overlappingCrops({110, 90}, 5, {30, 14}, {64, 48});
        changeImage(b, 0.8, 10, 1.1, 2, 0, 3);
        auto asDoubles = [](const Image& image) {
            return Image::fromSamples<double>(image.width(), image.height(), image.toDoubles());
        };
        const Image a2 = asDoubles(a), b2 = asDoubles(b);
        for (CommonNormalize n : {CommonNormalize::Linear, CommonNormalize::Rank})
            for (double t : {0.0, 2.0}) {
                CommonComponentParams p;
                p.normalize = n;
                p.tolerance = t;
                const auto counted = test::runCommon(a, b, p, Backend::Cpu);
                const auto perPixel = test::runCommon(a2, b2, p, Backend::Cpu);
                const auto reference = test::runCommon(a, b, p, Backend::Reference);
                QCOMPARE(counted.confidence.gain, perPixel.confidence.gain);
                QCOMPARE(counted.confidence.bias, perPixel.confidence.bias);
                QCOMPARE(counted.size, perPixel.size);
                QCOMPARE(counted.size, reference.size);
                QCOMPARE(counted.dx, -30);
                QCOMPARE(counted.dy, -14);
                QCOMPARE(counted.confidence.hasRunnerUp, reference.confidence.hasRunnerUp);
                QCOMPARE(counted.confidence.runnerUp, reference.confidence.runnerUp);
                QCOMPARE(counted.confidence.runnerUpSize, reference.confidence.runnerUpSize);
                QVERIFY(!counted.candidateSizes.empty());
                QVERIFY(reference.candidateSizes.empty());
            }
    }

    // A gamma change is no line: linear still finds the true offset, and its search for the line that
    // matches most pairs at the tolerance covers most of the overlap; rank (a monotone map) covers it all.
    void gammaChangedCrops() {
        auto [a, b] = overlappingCrops({420, 300}, 12, {120, 40}, {300, 240});
        changeImage(b, 0.8, 10, 1.1, 0, 0, 3);
        CommonComponentParams p;
        p.tolerance = 2;
        double coverage[2] = {0, 0};
        for (CommonNormalize n : {CommonNormalize::Linear, CommonNormalize::Rank}) {
            p.normalize = n;
            const auto r = test::runCommon(a, b, p, Backend::Cpu);
            qInfo("gamma 1.1, %s, t 2: dx %d dy %d coverage %g gain %g bias %g", commonNormalizeName(n), r.dx, r.dy,
                  r.confidence.coverage, r.confidence.gain, r.confidence.bias);
            QCOMPARE(r.dx, -120);
            QCOMPARE(r.dy, -40);
            coverage[n == CommonNormalize::Rank] = r.confidence.coverage;
        }
        QVERIFY2(coverage[0] >= 0.9, qPrintable(QString::number(coverage[0])));
        QVERIFY2(coverage[1] >= 0.99, qPrintable(QString::number(coverage[1])));
    }

    // Constant images under linear: no scale to fit, only the medians are matched; every pixel of the
    // overlap matches, so the largest overlap wins.
    void constantImagesUnderLinear() {
        const Image a = test::intImage(4, 3, std::vector<std::int32_t>(12, 7));
        const Image b = test::intImage(3, 3, std::vector<std::int32_t>(9, 100));
        CommonComponentParams p;
        p.normalize = CommonNormalize::Linear;
        for (Backend backend : {Backend::Reference, Backend::Cpu}) {
            const auto r = test::runCommon(a, b, p, backend);
            QCOMPARE(r.size, std::uint64_t(9));
            QCOMPARE(r.confidence.gain, 1.0);
            QCOMPARE(r.confidence.bias, -93.0);
            QCOMPARE(r.confidence.coverage, 1.0);
        }
    }

    // Unrelated images: a small component, not reliable; the runner-up is another candidate.
    void unrelatedPairIsFlagged() {
        const Image a = cropImage(fractalNoiseImage(120, 120, 1), 0, 0, 120, 120);
        const Image b = cropImage(fractalNoiseImage(120, 120, 2), 0, 0, 120, 120);
        CommonComponentParams p;
        p.normalize = CommonNormalize::Linear;
        p.tolerance = 2;
        const auto r = test::runCommon(a, b, p, Backend::Cpu);
        QCOMPARE(r.size, test::runCommon(a, b, p, Backend::Reference).size);
        QVERIFY(r.found);
        QVERIFY(r.confidence.coverage < kCommonReliableCoverage);
        QVERIFY(!r.confidence.reliable);
        QVERIFY(r.confidence.hasRunnerUp);
        QVERIFY(r.confidence.runnerUpSize <= r.size);
    }

    void placementSentence() {
        CommonComponentResult r;
        QCOMPARE(QString::fromStdString(commonPlacementSentence(r)), QString("no common region"));
        r.found = true;
        r.dx = -423, r.dy = -19;
        QCOMPARE(QString::fromStdString(commonPlacementSentence(r)), QString("B's top-left sits at (423, 19) in A"));
        r.dx = 5, r.dy = 0;
        QCOMPARE(QString::fromStdString(commonPlacementSentence(r)), QString("A's top-left sits at (5, 0) in B"));
        r.dx = 5, r.dy = -2;
        QVERIFY(QString::fromStdString(commonPlacementSentence(r)).contains("outside A"));
    }

    // The JSON carries the confidence and reads back; a document without those fields still reads.
    void jsonRoundTrip() {
        const Image scene = fractalNoiseImage(80, 80, 3);
        const auto r = test::runCommon(cropImage(scene, 0, 0, 60, 60), cropImage(scene, 20, 10, 60, 60), {}, Backend::Cpu);
        Json j = commonResultJson(r);
        QCOMPARE(j["overlap_area"].get<std::uint64_t>(), std::uint64_t(40 * 50));
        QVERIFY(j["reliable"].get<bool>());
        QVERIFY(j["registration"]["peak"].get<double>() > 0);
        QCOMPARE(QString::fromStdString(j["placement"].get<std::string>()), QString("B's top-left sits at (20, 10) in A"));
        const auto back = commonResultFromJson(j);
        QCOMPARE(back.confidence.overlapArea, r.confidence.overlapArea);
        QCOMPARE(back.confidence.coverage, r.confidence.coverage);
        QCOMPARE(back.confidence.hasRunnerUp, r.confidence.hasRunnerUp);
        QCOMPARE(back.confidence.runnerUpSize, r.confidence.runnerUpSize);
        for (const char* k : {"overlap_area", "coverage", "reliable", "runner_up", "registration", "normalization", "placement"})
            j.erase(k);
        const auto old = commonResultFromJson(j);
        QCOMPARE(old.size, r.size);
        QCOMPARE(old.confidence.overlapArea, std::uint64_t(0));
        j["coverage"] = 2.5;
        QVERIFY_THROWS_EXCEPTION(InputError, commonResultFromJson(j));
    }

    void cliNormalize() {
        const QString a = test::writeTempFile("n_a.csv", "1,2,3\n4,5,6\n7,8,9\n");
        const QString b = test::writeTempFile("n_b.csv", "10,30\n40,60\n");
        const QJsonObject j = test::runCliJson({"common", a, b, "--normalize", "linear", "--json", "-"});
        QCOMPARE(j["normalize"].toString(), QString("linear"));
        QVERIFY(j.contains("coverage"));
        QVERIFY(j.contains("placement"));
        const auto text = test::runCli({"common", a, b, "--normalize", "rank"});
        QCOMPARE(text.exitCode, 0);
        QVERIFY(text.out.contains("top-left"));
        const auto bad = test::runCli({"common", a, b, "--normalize", "gamma"});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY(bad.err.contains("--normalize"));
        QCOMPARE(test::runCli({"common", a, b, "--normalize", "linear", "--tolerance", "-2"}).exitCode, 2);
    }
};

GLINT_BACKEND_TEST_MAIN(TestCommonRegistration)
#include "test_common_registration.moc"
