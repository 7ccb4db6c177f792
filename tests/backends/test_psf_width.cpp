// --max-box auto (issue 14): the PSF's FWHM measured on the image's own stars, and the search bound it gives
// (5 FWHM). Against the truth of synthetic fields: point-sampled Gaussians (the estimator is exact for them
// wherever the centre lies), Moffat star fields (scenes/StarField.h), saturated stars and blends
// (left out), too few stars (the mesh), a crowded field (one box per star), the backends (same regions), the
// result's JSON and the CLI.
#include "tests/support/RegionChecks.h"
#include "tests/support/TestSupport.h"

#include "core/algo/brightest/Brightest.h"
#include "core/algo/brightest/BrightestAlgorithm.h"
#include "scenes/StarField.h"
#include "core/algo/sources/Background.h"
#include "core/algo/sources/PsfWidth.h"
#include "core/io/Image.h"
#include "cuda/Backends.h"

#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <random>

using namespace glint;

namespace {

constexpr double kFwhmPerSigma = 2.3548200450309493; // 2 sqrt(2 ln 2)

struct GaussianStar {
    double x, y, peak, sigma;
};

// A W x H float field: sky 500 with Gaussian noise 5, point-sampled Gaussian stars at random sub-pixel
// positions at least `separation` px apart (and 12 px from the edges), peaks 2000..20000.
struct GaussianField {
    Image image;
    std::vector<GaussianStar> stars;
};

GaussianField gaussianField(unsigned seed, int W, int H, int count, double sigma, double separation = 20.0) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> ux(12.0, W - 13.0), uy(12.0, H - 13.0), upeak(2000.0, 20000.0);
    GaussianField f;
    for (int tries = 0; static_cast<int>(f.stars.size()) < count && tries < 100000; ++tries) {
        const GaussianStar s{ux(rng), uy(rng), upeak(rng), sigma};
        bool clear = true;
        for (const GaussianStar& o : f.stars) clear = clear && std::hypot(o.x - s.x, o.y - s.y) >= separation;
        if (clear) f.stars.push_back(s);
    }
    std::normal_distribution<double> noise(0.0, 5.0);
    std::vector<float> px(static_cast<std::size_t>(W) * H);
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
            double v = 500.0 + noise(rng);
            for (const GaussianStar& s : f.stars) {
                const double dx = x - s.x, dy = y - s.y;
                if (std::fabs(dx) < 8 * s.sigma && std::fabs(dy) < 8 * s.sigma)
                    v += s.peak * std::exp(-(dx * dx + dy * dy) / (2 * s.sigma * s.sigma));
            }
            px[static_cast<std::size_t>(y) * W + x] = static_cast<float>(v);
        }
    f.image = Image::fromSamples<float>(W, H, std::move(px));
    return f;
}

PsfWidth measure(const Image& image, std::optional<double> saturation = std::nullopt, int mesh = 32) {
    BackgroundParams bp;
    bp.mesh = mesh;
    const BackgroundMap model = estimateBackground(image, {}, bp);
    return measurePsfWidth(image, model, {0, 0, image.width(), image.height()}, saturation);
}

BrightestParams autoParams(int k) {
    BrightestParams p = sourceFinderParams(k);
    p.mesh = 32;
    return p;
}

} // namespace

class TestPsfWidth : public QObject {
    Q_OBJECT
private slots:
    // Point-sampled Gaussians: ln v is a parabola, so the curvature gives sigma exactly; noise (peaks >= 400
    // sigma) moves it by a few tenths of a percent. Every sub-pixel position occurs.
    void gaussianStars_data() {
        QTest::addColumn<double>("sigma");
        for (double s : {0.9, 1.3, 2.0, 3.0}) QTest::newRow(qPrintable(QString("sigma %1").arg(s))) << s;
    }
    void gaussianStars() {
        QFETCH(double, sigma);
        for (unsigned seed : {1u, 2u, 3u}) {
            const GaussianField f = gaussianField(seed, 256, 256, 40, sigma);
            const PsfWidth w = measure(f.image);
            QVERIFY2(w.stars >= 20, qPrintable(QString("seed %1: %2 stars").arg(seed).arg(w.stars)));
            const double truth = kFwhmPerSigma * sigma;
            QVERIFY2(std::fabs(w.fwhm - truth) <= 0.03 * truth,
                     qPrintable(QString("seed %1: FWHM %2, truth %3").arg(seed).arg(w.fwhm).arg(truth)));
            QCOMPARE(autoSearchBound(w.fwhm), std::max(3, static_cast<int>(std::floor(5 * w.fwhm + 1e-9))));
        }
    }

    // Moffat stars (beta 3) on the bench's kind of frame (gradient, seam, Poisson noise, saturated stars with
    // bleed trails, a galaxy, blank borders): the curvature reads a Moffat core about 4 % narrow, the pixels'
    // own width (the frame integrates over them) a few % wide.
    void moffatFields_data() {
        QTest::addColumn<double>("fwhm");
        for (double f : {2.5, 4.0, 6.0}) QTest::newRow(qPrintable(QString("FWHM %1").arg(f))) << f;
    }
    void moffatFields() {
        QFETCH(double, fwhm);
        StarFieldOptions o;
        o.width = o.height = 512;
        o.stars = 120;
        o.fwhmMin = o.fwhmMax = fwhm;
        o.fluxMin = 20000.0; // bright enough to measure (peaks >= 10 RMS) at every width
        o.minSeparation = 4 * fwhm;
        const StarField field = makeStarField(o);
        const PsfWidth w = measure(field.image, o.saturation, 64);
        QVERIFY2(w.stars >= 10, qPrintable(QString::number(w.stars)));
        QVERIFY2(w.fwhm >= 0.88 * fwhm && w.fwhm <= 1.08 * fwhm, qPrintable(QString("FWHM %1, truth %2").arg(w.fwhm).arg(fwhm)));
    }

    // Saturated stars (flat tops) and blends (two stars 3 px apart) would read wide or not at all: they are
    // left out, and the width is the clean stars'.
    void saturatedAndBlendedLeftOut() {
        GaussianField f = gaussianField(7, 256, 256, 30, 1.2, 24.0);
        // Ten broad stars clipped at 30000 (the SATURATE level given; the clean ones peak below 20500), and eight
        // close pairs of broad stars.
        std::vector<float> px(static_cast<std::size_t>(256) * 256);
        for (int y = 0; y < 256; ++y)
            for (int x = 0; x < 256; ++x) px[static_cast<std::size_t>(y) * 256 + x] = static_cast<float>(f.image.value(x, y));
        std::mt19937 rng(9);
        std::uniform_real_distribution<double> u(15.0, 240.0);
        auto add = [&](double cx, double cy, double peak, double sigma, double clip) {
            for (int y = std::max(0, static_cast<int>(cy) - 20); y < std::min(256, static_cast<int>(cy) + 21); ++y)
                for (int x = std::max(0, static_cast<int>(cx) - 20); x < std::min(256, static_cast<int>(cx) + 21); ++x) {
                    float& v = px[static_cast<std::size_t>(y) * 256 + x];
                    v = static_cast<float>(std::min(clip, v + peak * std::exp(-((x - cx) * (x - cx) + (y - cy) * (y - cy)) / (2 * sigma * sigma))));
                }
        };
        for (int i = 0; i < 10; ++i) add(u(rng), u(rng), 90000.0, 3.0, 30000.0);
        for (int i = 0; i < 8; ++i) {
            const double x = u(rng), y = u(rng);
            add(x, y, 9000.0, 2.5, 1e30);
            add(x + 3.0, y + 1.0, 7000.0, 2.5, 1e30);
        }
        const Image image = Image::fromSamples<float>(256, 256, std::move(px));
        const PsfWidth w = measure(image, 30000.0);
        const double truth = kFwhmPerSigma * 1.2;
        QVERIFY2(w.stars >= 5, qPrintable(QString::number(w.stars)));
        QVERIFY2(std::fabs(w.fwhm - truth) <= 0.05 * truth, qPrintable(QString("FWHM %1, truth %2").arg(w.fwhm).arg(truth)));
        // Without the saturation level the clipped stars' flat tops are no strict maxima either (ties).
        const PsfWidth noLevel = measure(image);
        QVERIFY2(std::fabs(noLevel.fwhm - truth) <= 0.05 * truth, qPrintable(QString::number(noLevel.fwhm)));
    }

    // Noise alone, or fewer than 5 stars: no width; --max-box auto then bounds by the mesh, and says so.
    void tooFewStars() {
        const GaussianField few = gaussianField(3, 192, 192, 3, 1.5);
        QVERIFY(!measure(few.image).measured());
        BrightestParams p = autoParams(5);
        const BrightestResult r = test::runBrightestOn(few.image, p);
        QVERIFY(r.maxBoxAuto);
        QCOMPARE(r.psfStars, 0);
        QCOMPARE(r.maxBox, p.mesh);
        const std::string text = searchBoundText(r);
        QVERIFY2(text.find("the mesh") != std::string::npos, text.c_str());
        // A constant image: no model worth the name, no stars, no division by zero.
        const Image flat = Image::fromSamples<float>(96, 96, std::vector<float>(96 * 96, 7.0f));
        QVERIFY(!measure(flat).measured());
        QVERIFY(test::runBrightestOn(flat, p).regions.empty());
        // Not asked: no width measured, nothing said.
        p.maxBox = searchBox(9);
        const BrightestResult fixed = test::runBrightestOn(few.image, p);
        QVERIFY(!fixed.maxBoxAuto);
        QCOMPARE(fixed.maxBox, 9);
        QVERIFY(searchBoundText(fixed).empty());
    }

    // A crowded field (stars 7 px apart, FWHM 3): with the mesh as the bound each box holds several stars; with
    // auto each box is at most 5 FWHM and holds a star.
    void crowdedField() {
        const GaussianField f = gaussianField(11, 256, 256, 500, 1.3, 7.0);
        BrightestParams p = autoParams(40);
        const BrightestResult r = test::runBrightestOn(f.image, p);
        QVERIFY(r.maxBoxAuto);
        QVERIFY2(r.psfStars >= 5, qPrintable(QString::number(r.psfStars)));
        const double truth = kFwhmPerSigma * 1.3;
        QVERIFY2(r.maxBox <= 5.0 * 1.05 * truth, qPrintable(QString::number(r.maxBox)));
        QCOMPARE(static_cast<int>(r.regions.size()), 40);
        for (const BrightestRegion& g : r.regions) {
            QVERIFY(g.width <= r.maxBox && g.height <= r.maxBox);
            bool star = false;
            for (const GaussianStar& s : f.stars) star = star || test::regionHolds(g, s.x, s.y);
            QVERIFY2(star, qPrintable(QString("region %1x%2 at %3,%4 holds no star").arg(g.width).arg(g.height).arg(g.x).arg(g.y)));
        }
        BrightestParams byMesh = p;
        byMesh.maxBox = searchBox(p.mesh);
        const BrightestResult wide = test::runBrightestOn(f.image, byMesh);
        QVERIFY(!wide.regions.empty());
        QVERIFY2(std::max(wide.regions[0].width, wide.regions[0].height) > 5 * truth, "the crowded scene no longer joins stars under the mesh bound");
    }

    // Every backend finds the same regions with the bound it measures (the CUDA backend where a device is usable),
    // in both modes.
    void backendsAgree() {
        StarFieldOptions o;
        o.width = o.height = 192;
        o.stars = 60;
        o.fluxMin = 20000.0;
        o.seed = 5;
        const StarField field = makeStarField(o);
        BrightestParams p = autoParams(12);
        const BrightestResult cpu = test::runBrightestOn(field.image, p, Backend::Cpu);
        QVERIFY(cpu.maxBoxAuto && cpu.psfStars > 0);
        const BrightestResult ref = test::runBrightestOn(field.image, p, Backend::Reference);
        QCOMPARE(ref.maxBox, cpu.maxBox);
        test::checkSameRegions(ref, cpu, QStringLiteral("reference vs cpu"));
        BrightestParams overlap = p;
        overlap.mode = BrightestMode::Overlap;
        overlap.minSnr = 0;
        overlap.distinct = 0.2;
        const BrightestResult ocpu = test::runBrightestOn(field.image, overlap, Backend::Cpu);
        QCOMPARE(ocpu.maxBox, cpu.maxBox);
        QVERIFY(ocpu.maxBoxAuto);
        for (const BrightestRegion& g : ocpu.regions) QVERIFY(g.width <= cpu.maxBox && g.height <= cpu.maxBox);
        if (!test::unavailableReason(Backend::Cuda).isEmpty()) return;
        const BrightestResult gpu = test::runBrightestOn(field.image, p, Backend::Cuda);
        QCOMPARE(gpu.maxBox, cpu.maxBox);
        QCOMPARE(gpu.psfFwhm, cpu.psfFwhm);
        test::checkSameRegions(cpu, gpu, QStringLiteral("cpu vs cuda"));
        test::checkSameRegions(ocpu, test::runBrightestOn(field.image, overlap, Backend::Cuda), QStringLiteral("overlap cpu vs cuda"));
    }

    // The result's JSON carries the bound and the width, and reads back.
    void jsonRoundTrip() {
        const GaussianField f = gaussianField(4, 192, 192, 20, 1.1);
        const BrightestResult r = test::runBrightestOn(f.image, autoParams(5));
        const Json doc = brightestResultJson(r);
        QCOMPARE(doc["max_box"].get<int>(), r.maxBox);
        QVERIFY(doc["max_box_auto"].get<bool>());
        QCOMPARE(doc["psf"]["stars"].get<int>(), r.psfStars);
        const BrightestResult back = brightestResultFromJson(doc);
        QCOMPARE(back.maxBox, r.maxBox);
        QVERIFY(back.maxBoxAuto);
        QCOMPARE(back.psfFwhm, r.psfFwhm);
        QCOMPARE(back.psfStars, r.psfStars);
    }

    // glint-cli: --max-box auto in the JSON and the text; anything else but a count is refused (exit 2).
    void cli() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        StarFieldOptions o;
        o.width = o.height = 256;
        o.stars = 60;
        o.fluxMin = 20000.0;
        const StarField field = makeStarField(o);
        const QString path = dir.filePath(QStringLiteral("field.fits"));
        writeStarFieldFits(field, path.toStdString());
        const QStringList base{QStringLiteral("brightest"), path, QStringLiteral("--pivot"), QStringLiteral("local"),
                               QStringLiteral("--threshold"), QStringLiteral("3"), QStringLiteral("--min-snr"), QStringLiteral("5"),
                               QStringLiteral("--k"), QStringLiteral("10"), QStringLiteral("--backend"), QStringLiteral("cpu")};
        const QJsonObject doc = test::runCliJson(base + QStringList{QStringLiteral("--max-box"), QStringLiteral("auto"),
                                                                    QStringLiteral("--json"), QStringLiteral("-")});
        QVERIFY(doc[QStringLiteral("max_box_auto")].toBool());
        const int bound = doc[QStringLiteral("max_box")].toInt();
        const QJsonObject psf = doc[QStringLiteral("psf")].toObject();
        QVERIFY(psf[QStringLiteral("stars")].toInt() >= 5);
        QCOMPARE(bound, autoSearchBound(psf[QStringLiteral("fwhm")].toDouble()));
        const test::CliResult text = test::runCli(base + QStringList{QStringLiteral("--max-box"), QStringLiteral("auto")});
        QCOMPARE(text.exitCode, 0);
        QVERIFY2(text.out.contains("max box auto: " + QByteArray::number(bound) + " px"), text.out.constData());
        for (const QString& bad : {QStringLiteral("automatic"), QStringLiteral("-1"), QStringLiteral("5fwhm"), QString()}) {
            const test::CliResult r = test::runCli(base + QStringList{QStringLiteral("--max-box"), bad});
            QVERIFY2(r.exitCode == 2, qPrintable(bad + ": exit " + QString::number(r.exitCode) + " " + r.err));
            QVERIFY2(r.err.startsWith("glint-cli: option '--max-box' must be a value in [1, 1048576], auto or none") ||
                         r.err.startsWith("glint-cli: option '--max-box' must be between"),
                     r.err.constData());
        }
    }
};

GLINT_BACKEND_TEST_MAIN(TestPsfWidth)
#include "test_psf_width.moc"
