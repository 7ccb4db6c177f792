// glint-cli's --overlay pictures drawn the way the window draws the image: a y-up image (FITS) flipped, row
// 0 at the bottom, its legend saying so, and its regions (brightest) or component (common, A beside B) on
// their flipped rows; an image stored top-down drawn as stored.
#include "tests/cpu/test_cli_outputs_support.h"
#include "tests/support/TestSupport.h"

#include "core/display/Display.h"
#include "core/export/OverlayImage.h"
#include "core/io/ImageLoader.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#if GLINT_WITH_IMGCODECS
#include <opencv2/imgcodecs.hpp>
#endif

#include <fitsio.h>

#include <cstdint>
#include <tuple>
#include <vector>

using namespace glint;
using namespace glint::test::clioutputs;

namespace {

// The share of pixels of the picture's row `pictureRow` that are image row `imageRow` as rendered (the
// overlay draws a few rectangle edges and labels over some of them).
#if GLINT_WITH_IMGCODECS
double rowAgreement(const cv::Mat& picture, int pictureRow, const std::vector<std::uint32_t>& argb, int width, int imageRow) {
    int same = 0;
    const auto* row = picture.ptr<cv::Vec3b>(pictureRow);
    for (int x = 0; x < width; ++x) {
        const std::uint32_t c = argb[static_cast<std::size_t>(imageRow) * width + x];
        same += row[x] == cv::Vec3b(c & 0xFF, (c >> 8) & 0xFF, (c >> 16) & 0xFF);
    }
    return static_cast<double>(same) / width;
}
#endif

} // namespace

class CliOverlayOrientationTest : public QObject {
    Q_OBJECT

private slots:
    // --overlay draws an image that is shown y-up (FITS) as the window does: flipped, row 0 at the bottom,
    // and its legend says so; an image stored top-down is drawn as stored.
    void overlayOfAFitsIsYUp_data() {
        test::columns<QString, bool>({"file", "yUp"});
        QTest::newRow("FITS") << test::samplePath("ngc1316o.fit") << true;
        QTest::newRow("matrix") << QString() << false;
    }
    void overlayOfAFitsIsYUp() {
        QFETCH(QString, file);
        QFETCH(bool, yUp);
#if !GLINT_WITH_IMGCODECS
        Q_UNUSED(file);
        Q_UNUSED(yUp);
        QSKIP("this build writes no PNG overlays");
#else
        const QString dir = freshDir("yup");
        if (file.isEmpty()) {
            QByteArray text; // rows of distinct values: row r holds r*10 + x % 7
            for (int y = 0; y < 40; ++y) {
                for (int x = 0; x < 50; ++x) text += (x ? "," : "") + QByteArray::number(y * 10 + x % 7);
                text += '\n';
            }
            file = writeText(dir + "/rows.csv", text);
        }
        if (!QFile::exists(file)) QSKIP("the FITS sample is missing");
        const Image image = loadImage(file.toStdString());
        QCOMPARE(image.meta.displayYUp, yUp);
        const QString png = dir + "/overlay.png";
        const auto r = test::runCli({"brightest", file, "--pivot", "p99", "--overlay", png}, 60000);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const cv::Mat picture = cv::imread(png.toStdString(), cv::IMREAD_COLOR);
        QCOMPARE(picture.cols, image.width());
        QCOMPARE(picture.rows, image.height());
        const DisplaySettings settings = defaultDisplaySettings(image);
        const std::vector<std::uint32_t> argb = renderImage(image, settings, computeLimits(image, settings));
        const int w = image.width(), last = image.height() - 1;
        // The top row is the image's last row when y-up, its first otherwise; the bottom row the other one.
        const double top = rowAgreement(picture, 0, argb, w, yUp ? last : 0);
        const double bottom = rowAgreement(picture, last, argb, w, yUp ? 0 : last);
        QVERIFY2(top > 0.9, qPrintable(QString::number(top)));
        QVERIFY2(bottom > 0.9, qPrintable(QString::number(bottom)));
        QVERIFY(rowAgreement(picture, 0, argb, w, yUp ? 0 : last) < 0.5); // and not the other way round
        // The region is drawn where its rows are: its top edge (image row y) at picture row last - y when y-up.
        const QJsonObject doc = QJsonDocument::fromJson(test::runCli({"brightest", file, "--pivot", "p99", "--json", "-"}, 60000).out).object();
        const QJsonObject region = doc["regions"].toArray().first().toObject();
        const int rx = region["x"].toInt(), ry = region["y"].toInt(), rw = region["width"].toInt(), rh = region["height"].toInt();
        const int edgeRow = yUp ? last - ry : ry;
        const std::uint32_t colour = overlayPaletteColour(0);
        const cv::Vec3b expected(colour & 0xFF, (colour >> 8) & 0xFF, (colour >> 16) & 0xFF);
        int onEdge = 0;
        for (int x = rx; x < rx + rw; ++x) onEdge += picture.at<cv::Vec3b>(edgeRow, x) == expected;
        QVERIFY2(onEdge * 2 > rw, qPrintable(QStringLiteral("%1 of %2 (region %3,%4 %5x%6)").arg(onEdge).arg(rw).arg(rx).arg(ry).arg(rw).arg(rh)));
        // The legend line says which way up the picture is.
        const OverlayImage overlay(image, settings);
        QCOMPARE(overlay.isFlipped(), yUp);
        QCOMPARE(overlay.legendBox().empty(), !yUp);
#endif
    }

    // The picture itself (every build, no PNG needed): a y-up image's picture is flipped, drawings land on
    // their image rows, and the legend line is there; a top-down image's is not flipped.
    void overlayImageFollowsYUp() {
        constexpr int W = 200, H = 120;
        for (const bool yUp : {true, false}) {
            std::vector<std::uint8_t> v(W * H);
            for (int y = 0; y < H; ++y)
                for (int x = 0; x < W; ++x) v[static_cast<std::size_t>(y) * W + x] = static_cast<std::uint8_t>(y * 2);
            Image image = Image::fromSamples<std::uint8_t>(W, H, std::move(v));
            image.meta.displayYUp = yUp;
            DisplaySettings settings = defaultDisplaySettings(image);
            settings.limits = LimitsMode::MinMax;
            OverlayImage overlay(image, settings);
            QCOMPARE(overlay.isFlipped(), yUp);
            overlay.drawRectangle(100, 2, 10, 3, 0xFF0000); // image rows 2..4
            const cv::Mat picture = overlay.pixels();
            // The last column is clear of the legend and the rectangle: its grey tells the image row.
            const int topGrey = picture.at<cv::Vec3b>(0, W - 1)[0], bottomGrey = picture.at<cv::Vec3b>(H - 1, W - 1)[0];
            QVERIFY2(yUp ? topGrey > bottomGrey : topGrey < bottomGrey, qPrintable(QStringLiteral("%1 %2").arg(topGrey).arg(bottomGrey)));
            // The rectangle's outline on its image rows: 2 and 4 (picture rows H-1-4 and H-1-2 when flipped).
            const int first = yUp ? H - 1 - 4 : 2, last = yUp ? H - 1 - 2 : 4;
            QCOMPARE(picture.at<cv::Vec3b>(first, 105), cv::Vec3b(0, 0, 255));
            QCOMPARE(picture.at<cv::Vec3b>(last, 105), cv::Vec3b(0, 0, 255));
            QVERIFY(picture.at<cv::Vec3b>(yUp ? H - 1 - 6 : 6, 105) != cv::Vec3b(0, 0, 255));
            QCOMPARE(overlay.legendBox().empty(), !yUp); // "y up: row 0 at the bottom, ..."
        }
        QVERIFY(QString::fromLatin1(OverlayImage::flippedLegendText()).startsWith("y up: row 0 at the bottom"));
    }

    // common's --overlay (A, a gap, B) is drawn the way the window draws A: a FITS pair y-up (row 0 at the
    // bottom, the component tinted on its flipped rows), a top-down pair as stored.
    void commonOverlayFollowsYUp_data() {
        test::addBoolRows("yUp", "matrix", "FITS");
    }
    void commonOverlayFollowsYUp() {
        QFETCH(bool, yUp);
#if !GLINT_WITH_IMGCODECS
        Q_UNUSED(yUp);
        QSKIP("this build writes no PNG overlays");
#else
        // A: 200x120, every value distinct (y*256 + x); B: A's pixels x 60..139, y 20..59, so the common
        // component is all of B, at rows 20..59 of A.
        constexpr int W = 200, H = 120, BX = 60, BY = 20, BW = 80, BH = 40;
        auto value = [](int x, int y) { return static_cast<short>(y * 256 + x); };
        const QString dir = freshDir(yUp ? "common-yup-fits" : "common-yup-csv");
        QString a = dir + "/a", b = dir + "/b";
        if (yUp) {
            a += ".fits";
            b += ".fits";
            for (const auto& [path, x0, y0, w, h] : {std::tuple{a, 0, 0, W, H}, std::tuple{b, BX, BY, BW, BH}}) {
                std::vector<short> pixels(static_cast<std::size_t>(w) * h);
                for (int y = 0; y < h; ++y)
                    for (int x = 0; x < w; ++x) pixels[static_cast<std::size_t>(y) * w + x] = value(x0 + x, y0 + y);
                fitsfile* f = nullptr;
                int status = 0;
                long axes[2] = {w, h};
                fits_create_file(&f, ("!" + path.toUtf8()).constData(), &status);
                fits_create_img(f, SHORT_IMG, 2, axes, &status);
                fits_write_img(f, TSHORT, 1, static_cast<LONGLONG>(pixels.size()), pixels.data(), &status);
                fits_close_file(f, &status);
                QCOMPARE(status, 0);
            }
        } else {
            a += ".csv";
            b += ".csv";
            for (const auto& [path, x0, y0, w, h] : {std::tuple{a, 0, 0, W, H}, std::tuple{b, BX, BY, BW, BH}}) {
                QByteArray text;
                for (int y = 0; y < h; ++y) {
                    for (int x = 0; x < w; ++x) text += (x ? "," : "") + QByteArray::number(value(x0 + x, y0 + y));
                    text += '\n';
                }
                writeText(path, text);
            }
        }
        QCOMPARE(loadImage(a.toStdString()).meta.displayYUp, yUp);
        const QString png = dir + "/overlay.png";
        const auto r = test::runCli({"common", a, b, "--backend", "cpu", "--overlay", png, "--json", "-"}, 60000);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(QJsonDocument::fromJson(r.out).object()["size"].toInteger(), BW * BH);
        const cv::Mat picture = cv::imread(png.toStdString(), cv::IMREAD_COLOR);
        const int gap = 4; // max(4, min(width A, width B) / 50)
        QCOMPARE(picture.cols, W + gap + BW);
        QCOMPARE(picture.rows, H);
        const auto rowOf = [&](int imageRow) { return yUp ? H - 1 - imageRow : imageRow; };
        const auto tinted = [&](int x, int imageRow) {
            const cv::Vec3b p = picture.at<cv::Vec3b>(rowOf(imageRow), x);
            return p[0] != p[1] || p[1] != p[2];
        };
        // The component on A (image rows 20..59) and on B (all of it); A's rows below it are not tinted.
        QVERIFY(tinted(BX + BW / 2, BY + BH / 2));
        QVERIFY(!tinted(BX + BW / 2, BY + BH + 20));
        QVERIFY(tinted(W + gap + BW / 2, BH / 2));
        // A's values grow with the row: in A's last column, clear of the component, legend and labels, the
        // picture's lower rows are darker when y-up (they hold A's first rows), brighter otherwise.
        const int lower = picture.at<cv::Vec3b>(H - 1, W - 1)[1], higher = picture.at<cv::Vec3b>(H - 11, W - 1)[1];
        QVERIFY2(yUp ? lower < higher : lower > higher, qPrintable(QStringLiteral("%1 %2").arg(lower).arg(higher)));
#endif
    }
};

QTEST_GUILESS_MAIN(CliOverlayOrientationTest)
#include "test_cli_overlay_orientation.moc"
