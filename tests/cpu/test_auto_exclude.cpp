// Mammogram auto-exclusion (core/algo/mammogram/AutoExclude.h) on synthetic scenes with a known truth
// (breast, pectoral wedge, burned-in "R MLO" label) and on the bundled synthetic mammogram: the excluded
// area covers the labels and the pectoral muscle (>= 90 % of their pixels) and at most 5 % of the rest of
// the breast, and with the exclusions the brightest region (pivot p99) is not a label.
#include "tests/support/TestSupport.h"

#include "core/algo/mammogram/AutoExclude.h"
#include "core/algo/brightest/BrightestSpec.h"
#include "core/params/ImageKind.h"
#include "core/algo/brightest/Brightest.h"
#include "core/io/ImageLoader.h"
#include "core/util/Errors.h"
#include "cuda/Backends.h"
#include "scenes/SyntheticNoise.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <QtTest>

#include <cmath>
#include <cstdint>

using namespace glint;

namespace {

struct Scene {
    Image image;
    cv::Mat breast; // CV_8U 0/1 truth masks
    cv::Mat muscle;
    cv::Mat label;
};

// A 16-bit MLO-like scene: background ~300, a breast (half ellipse on the chest wall, thinning at its
// edge, textured fibroglandular tissue), a pectoral wedge in the top corner on the chest-wall side, and a
// burned-in "R MLO" label drawn with cv::putText near the maximum value. mirrored: chest wall on the right.
// labelAtEdge: the label straddles the breast's edge instead of lying in the background.
Scene makeScene(bool mirrored, bool labelAtEdge, bool withMuscle, std::uint64_t seed) {
    const int w = 800, h = 1000;
    cv::RNG rng(seed);
    Scene s;
    s.breast = cv::Mat::zeros(h, w, CV_8U);
    cv::ellipse(s.breast, cv::Point(0, 430), cv::Size(560, 520), 0, -90, 90, cv::Scalar(1), cv::FILLED);
    cv::Mat inside;
    cv::copyMakeBorder(s.breast, inside, 0, 0, 50, 0, cv::BORDER_REPLICATE);
    cv::Mat depth;
    cv::distanceTransform(inside, depth, cv::DIST_L2, 5);
    depth = depth(cv::Rect(50, 0, w, h)).clone();

    const cv::Mat texture = synthetic::bandPassNoise(rng, cv::Size(w, h), 4.0, 20.0);

    s.muscle = cv::Mat::zeros(h, w, CV_8U);
    const int muscleBottom = 560, muscleTop = 280; // edge from (muscleTop, 0) to (0, muscleBottom)
    cv::Mat image(h, w, CV_32F);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const double d = depth.at<float>(y, x);
            if (!s.breast.at<std::uint8_t>(y, x)) {
                image.at<float>(y, x) = 300.0f;
                continue;
            }
            const double gx = (x - 260.0) / 220.0, gy = (y - 470.0) / 260.0;
            const double glandular = std::exp(-0.5 * (gx * gx + gy * gy));
            const double tissue = 8000.0 + 20000.0 * std::clamp(glandular + 0.25 * texture.at<float>(y, x), 0.0, 1.2);
            const double thickness = 1.0 - std::exp(-d / 40.0);
            double v = 300.0 + thickness * tissue;
            const double edge = muscleTop * (1.0 - static_cast<double>(y) / muscleBottom) +
                                30.0 * std::sin(3.14159265 * std::clamp(static_cast<double>(y) / muscleBottom, 0.0, 1.0));
            if (withMuscle && y < muscleBottom && x < edge) {
                s.muscle.at<std::uint8_t>(y, x) = 1;
                v = 300.0 + thickness * (26000.0 + 4000.0 * std::exp(-std::hypot(x, y) / 300.0) +
                                         1000.0 * texture.at<float>(y, x));
            }
            image.at<float>(y, x) = static_cast<float>(v);
        }
    synthetic::addQuantumNoise(image, rng);

    // The label: near the top outer corner in the background, or across the breast's lower edge.
    const cv::Point at = labelAtEdge ? cv::Point(170, 935) : cv::Point(560, 110);
    s.label = cv::Mat::zeros(h, w, CV_8U);
    cv::putText(s.label, "R MLO", at, cv::FONT_HERSHEY_DUPLEX, 1.5, cv::Scalar(1), 3, cv::LINE_8);
    image.setTo(cv::Scalar(62000.0), s.label);
    cv::GaussianBlur(image, image, cv::Size(), 0.6);
    cv::Mat out;
    image.convertTo(out, CV_16U);
    if (mirrored) {
        cv::flip(out, out, 1);
        cv::flip(s.breast, s.breast, 1);
        cv::flip(s.muscle, s.muscle, 1);
        cv::flip(s.label, s.label, 1);
    }
    std::vector<std::uint16_t> px(out.begin<std::uint16_t>(), out.end<std::uint16_t>());
    s.image = Image::fromSamples<std::uint16_t>(w, h, std::move(px));
    return s;
}

// Fraction of the pixels of `truth` that the mask covers.
double covered(const std::vector<unsigned char>& mask, const cv::Mat& truth) {
    long long total = 0, hit = 0;
    for (int y = 0; y < truth.rows; ++y)
        for (int x = 0; x < truth.cols; ++x)
            if (truth.at<std::uint8_t>(y, x)) {
                ++total;
                hit += mask[static_cast<std::size_t>(y) * truth.cols + x] ? 1 : 0;
            }
    return total ? static_cast<double>(hit) / static_cast<double>(total) : 0.0;
}

bool overlaps(const BrightestRegion& r, const cv::Mat& truth) {
    for (int y = r.y; y < r.y + r.height; ++y)
        for (int x = r.x; x < r.x + r.width; ++x)
            if (truth.at<std::uint8_t>(y, x)) return true;
    return false;
}

BrightestRegion topRegion(const Image& image, const MammogramExclusions* exclusions) {
    BrightestParams params;
    params.pivot = PivotSpec::parse("p99");
    params.k = 1;
    if (exclusions) appendAutoExclusions(*exclusions, params);
    JobControl job;
    const BrightestResult result = runBrightest(image, params, Backend::Cpu, job);
    if (result.regions.empty()) return {};
    return result.regions.front();
}

int countKind(const MammogramExclusions& e, AutoExclusionKind kind) {
    int n = 0;
    for (const AutoExclusion& s : e.shapes) n += s.kind == kind ? 1 : 0;
    return n;
}

} // namespace

class TestAutoExclude : public QObject {
    Q_OBJECT

private:
    // What --preset auto and the window decide from the header: the image's kind (core/params/ImageKind.h).
    static bool isMammogram(const ImageMetadata& meta) {
        Image image(2, 2, SampleType::UInt8);
        image.meta = meta;
        return classifyImage(image).kind == ImageKind::Mammogram;
    }
    static bool isMammogram(const Image& image) { return classifyImage(image).kind == ImageKind::Mammogram; }

private slots:
    // From the header only: the bundled mammogram's Title text chunk says so, the aerial photo's does not;
    // DICOM Modality MG and TIFF descriptions count; pixels alone never do.
    void mammogramFromHeader() {
#if GLINT_WITH_IMGCODECS // the bundled PNGs' text chunks; the headers below are checked in every build
        const Image mammogram = loadImage(test::samplePath("synthetic-mammogram.png").toStdString());
        QVERIFY(isMammogram(mammogram));
        const Image aerial = loadImage(test::samplePath("aero.png").toStdString());
        QVERIFY(!isMammogram(aerial));
#endif

        ImageMetadata meta; // same pixels, no header: not a mammogram
        QVERIFY(!isMammogram(meta));
        meta.header = {{"(0008,0060) Modality", "MG", ""}};
        QVERIFY(isMammogram(meta));
        meta.header = {{"(0008,0060) Modality", " mg ", ""}};
        QVERIFY(isMammogram(meta));
        meta.header = {{"(0008,0060) Modality", "CT", ""}, {"(0008,103E) Series Description", "mammogram", ""}};
        QVERIFY(!isMammogram(meta)); // only Modality counts in DICOM
        meta.header = {{"TIFFTAG_IMAGEDESCRIPTION", "Digital MAMMOGRAPHY, left CC", ""}};
        QVERIFY(isMammogram(meta));
        meta.header = {{"Description", "An aerial photo", ""}, {"Comment", "not a mammogram", ""}};
        QVERIFY(!isMammogram(meta)); // Comment is not one of the cards read
        meta.header = {{"Title", "Screening Mammogram 2024", ""}};
        QVERIFY(isMammogram(meta));
    }

    void syntheticScenes_data() {
        test::columns<bool, bool, bool>({"mirrored", "labelAtEdge", "withMuscle"});
        QTest::newRow("chest wall left, label in background") << false << false << true;
        QTest::newRow("chest wall right, label in background") << true << false << true;
        QTest::newRow("chest wall left, label across the breast edge") << false << true << true;
        QTest::newRow("chest wall right, label across the breast edge") << true << true << true;
        QTest::newRow("chest wall left, no muscle (CC-like)") << false << false << false;
        QTest::newRow("chest wall right, label across the edge, no muscle") << true << true << false;
    }

    void syntheticScenes() {
        QFETCH(bool, mirrored);
        QFETCH(bool, labelAtEdge);
        QFETCH(bool, withMuscle);
        const Scene s = makeScene(mirrored, labelAtEdge, withMuscle, 1234 + (mirrored ? 1 : 0) + (labelAtEdge ? 2 : 0));
        const MammogramExclusions e = mammogramAutoExclusions(s.image);
        QVERIFY2(e.foundBreast, e.note.c_str());
        QCOMPARE(e.chestWallLeft, !mirrored);
        QVERIFY2(e.foundPectoral == withMuscle, e.note.c_str());
        QVERIFY(countKind(e, AutoExclusionKind::OutsideBreast) >= 1);
        QVERIFY(countKind(e, AutoExclusionKind::Label) >= 1);
        const std::vector<unsigned char> mask = autoExclusionMask(e, s.image.width(), s.image.height());
        const double labelCover = covered(mask, s.label);
        QVERIFY2(labelCover >= 0.9, qPrintable(QString("label covered %1 (%2)").arg(labelCover).arg(e.note.c_str())));
        if (withMuscle) {
            const double muscleCover = covered(mask, s.muscle);
            QVERIFY2(muscleCover >= 0.9, qPrintable(QString("pectoral covered %1 (%2)").arg(muscleCover).arg(e.note.c_str())));
        }
        const cv::Mat tissue = s.breast & (s.muscle == 0) & (s.label == 0);
        const double tissueLost = covered(mask, tissue);
        QVERIFY2(tissueLost <= 0.05, qPrintable(QString("breast tissue excluded %1 (%2)").arg(tissueLost).arg(e.note.c_str())));
        // Without the exclusions the label is the brightest region at p99; with them it is not.
        QVERIFY(overlaps(topRegion(s.image, nullptr), s.label));
        const BrightestRegion top = topRegion(s.image, &e);
        QVERIFY(top.width > 0);
        QVERIFY(!overlaps(top, s.label));
    }

    void bundledSample() {
#if !GLINT_WITH_IMGCODECS
        QSKIP("this build reads no PNG (GLINT_WITH_IMGCODECS=OFF)");
#else
        const Image image = loadImage(test::samplePath("synthetic-mammogram.png").toStdString());
        const MammogramExclusions e = mammogramAutoExclusions(image);
        QVERIFY2(e.foundBreast && e.chestWallLeft, e.note.c_str());
        const int w = image.width(), h = image.height();
        const std::vector<unsigned char> mask = autoExclusionMask(e, w, h);
        // The truth, from tools/samples/make_synthetic_mammogram.cpp: the film label, the "R MLO" marker,
        // the pectoral wedge, and the breast outline (a half ellipse wobbled by at most 3.6 %).
        cv::Mat labels = cv::Mat::zeros(h, w, CV_8U);
        labels(cv::Rect(742, 872, 262, 132)).setTo(1);
        cv::putText(labels, "R MLO", cv::Point(862, 92), cv::FONT_HERSHEY_DUPLEX, 1.4, cv::Scalar(1), 3, cv::LINE_8);
        cv::Mat muscle = cv::Mat::zeros(h, w, CV_8U), tissue = cv::Mat::zeros(h, w, CV_8U);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const double t = y / 640.0;
                const double edge = 300.0 * (1.0 - t) + 40.0 * std::sin(3.14159265 * std::clamp(t, 0.0, 1.0));
                const bool inMuscle = x < edge - 6.0; // the generator's wedge fades over edge +- 6 px
                muscle.at<std::uint8_t>(y, x) = inMuscle ? 1 : 0;
                const double dy = y - 470.0, ry = dy < 0 ? 560.0 : 480.0;
                const double rr = std::pow(x / 700.0, 2.0) + std::pow(dy / ry, 2.0);
                tissue.at<std::uint8_t>(y, x) = (!inMuscle && x >= edge + 6.0 && rr < 0.964 * 0.964) ? 1 : 0;
            }
        const double labelCover = covered(mask, labels), muscleCover = covered(mask, muscle);
        const double tissueLost = covered(mask, tissue);
        QVERIFY2(labelCover >= 0.9, qPrintable(QString("labels covered %1").arg(labelCover)));
        QVERIFY2(muscleCover >= 0.9, qPrintable(QString("pectoral covered %1").arg(muscleCover)));
        QVERIFY2(tissueLost <= 0.05, qPrintable(QString("breast tissue excluded %1").arg(tissueLost)));
        QVERIFY(overlaps(topRegion(image, nullptr), labels)); // the problem the exclusions solve
        const BrightestRegion top = topRegion(image, &e);
        QVERIFY(top.width > 0);
        QVERIFY(!overlaps(top, labels));
        QVERIFY(!overlaps(top, muscle));
#endif
    }

    // glint-cli brightest --auto-exclude: the shapes are listed in the JSON and the label is no longer
    // region #1; a wrong value is a usage error.
    void cliOption() {
#if !GLINT_WITH_IMGCODECS
        QSKIP("this build reads no PNG (GLINT_WITH_IMGCODECS=OFF)");
#else
        const QString sample = test::samplePath("synthetic-mammogram.png");
        const QJsonObject plain = test::runCliJson({"brightest", sample, "--pivot", "p99", "--backend", "cpu", "--json", "-"});
        QVERIFY(!plain.contains("auto_exclusions"));
        const QJsonObject doc = test::runCliJson(
            {"brightest", sample, "--pivot", "p99", "--k", "2", "--auto-exclude", "mammogram", "--backend", "cpu", "--json", "-"});
        const QJsonObject autoEx = doc["auto_exclusions"].toObject();
        QCOMPARE(autoEx["mode"].toString(), QString("mammogram"));
        QStringList kinds;
        for (const QJsonValue& v : autoEx["shapes"].toArray()) {
            const QJsonObject shape = v.toObject();
            kinds << shape["kind"].toString();
            QVERIFY(shape.contains("rect") != shape.contains("polygon"));
        }
        QVERIFY(kinds.contains("outside-breast") && kinds.contains("label") && kinds.contains("pectoral"));
        const QJsonObject first = doc["regions"].toArray().first().toObject();
        const QJsonObject plainFirst = plain["regions"].toArray().first().toObject();
        QVERIFY(first["x"].toInt() != plainFirst["x"].toInt() || first["y"].toInt() != plainFirst["y"].toInt());
        // Region #1 lies inside the breast, away from the labels in the right third of the image.
        QVERIFY(first["x"].toInt() + first["width"].toInt() < 742);
        const QJsonObject none = test::runCliJson({"brightest", sample, "--pivot", "p99", "--auto-exclude", "none", "--backend",
                                                   "cpu", "--json", "-"});
        QCOMPARE(none["regions"].toArray().first().toObject()["x"].toInt(), plainFirst["x"].toInt());
        const auto bad = test::runCli({"brightest", sample, "--auto-exclude", "breast"});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY(bad.err.contains("--auto-exclude"));
#endif
    }

    void craniocaudalHeaderSkipsPectoral() {
        Scene s = makeScene(false, false, true, 99);
        s.image.meta.header.push_back({"(0018,5101) View Position", "CC", ""});
        const MammogramExclusions e = mammogramAutoExclusions(s.image);
        QVERIFY(e.foundBreast);
        QVERIFY(!e.foundPectoral);
        QCOMPARE(countKind(e, AutoExclusionKind::Pectoral), 0);
    }

    void degenerateImages() {
        const Image flat = Image::fromSamples<std::uint16_t>(64, 48, std::vector<std::uint16_t>(64 * 48, 1000));
        const MammogramExclusions e = mammogramAutoExclusions(flat);
        QVERIFY(!e.foundBreast);
        QVERIFY(e.shapes.empty());
        std::vector<float> nan(32 * 32, std::nanf(""));
        const MammogramExclusions n = mammogramAutoExclusions(Image::fromSamples<float>(32, 32, nan));
        QVERIFY(n.shapes.empty());
        // A tiny bright spot is no breast.
        std::vector<std::uint8_t> px(100 * 100, 0);
        px[5050] = 255;
        QVERIFY(!mammogramAutoExclusions(Image::fromSamples<std::uint8_t>(100, 100, px)).foundBreast);
    }

    void parseMode() {
        const ParamSpec<BrightestParams>& spec = brightestSpec();
        QCOMPARE(spec.read({{"auto_exclude", "mammogram"}}).autoExclude, AutoExcludeMode::Mammogram);
        QCOMPARE(spec.read({{"auto_exclude", "none"}}).autoExclude, AutoExcludeMode::None);
        QVERIFY_THROWS_EXCEPTION(UsageError, spec.read({{"auto_exclude", "breast"}}));
        QCOMPARE(std::string(autoExclusionKindName(AutoExclusionKind::Pectoral)), std::string("pectoral"));
    }
};

GLINT_BACKEND_TEST_MAIN(TestAutoExclude)
#include "test_auto_exclude.moc"
