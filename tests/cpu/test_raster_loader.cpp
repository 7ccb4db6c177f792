// PGM/PNG/TIFF/JPEG/BMP through OpenCV: 8 and 16 bit kept as they are, colour made luminance, float TIFF
// with NaN blanks, formats recognised by content whatever the extension, damaged files refused.
#include "tests/support/TestSupport.h"

#include "core/io/ImageLoader.h"
#include "core/util/Errors.h"

#include <QFile>
#include <QtTest>

#if GLINT_WITH_IMGCODECS
#include <opencv2/imgcodecs.hpp>
#endif
#include <opencv2/core.hpp>

#include <cmath>
#include <limits>

using namespace glint;

namespace {

#if GLINT_WITH_IMGCODECS
QString pathFor(const QString& name) { return test::tempDir() + "/" + name; }

QByteArray readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QString writeBytes(const QString& name, const QByteArray& bytes) {
    QFile f(pathFor(name));
    if (f.open(QIODevice::WriteOnly)) f.write(bytes);
    return pathFor(name);
}
#endif

} // namespace

class TestRasterLoader : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
#if !GLINT_WITH_IMGCODECS
        QSKIP("this build reads no raster formats (GLINT_WITH_IMGCODECS=OFF)");
#endif
    }

#if GLINT_WITH_IMGCODECS
    void greyDepths_data() {
        test::columns<QString, int, QString, int>({"name", "depth", "format", "type"});
        QTest::newRow("pgm 8") << "a.pgm" << CV_8U << "PGM" << int(SampleType::UInt8);
        QTest::newRow("pgm 16") << "b.pgm" << CV_16U << "PGM" << int(SampleType::UInt16);
        QTest::newRow("png 8") << "c.png" << CV_8U << "PNG" << int(SampleType::UInt8);
        QTest::newRow("png 16") << "d.png" << CV_16U << "PNG" << int(SampleType::UInt16);
        QTest::newRow("tiff 16") << "e.tif" << CV_16U << "TIFF" << int(SampleType::UInt16);
        QTest::newRow("bmp 8") << "f.bmp" << CV_8U << "BMP" << int(SampleType::UInt8);
    }
    void greyDepths() {
        QFETCH(QString, name);
        QFETCH(int, depth);
        QFETCH(QString, format);
        QFETCH(int, type);
        cv::Mat m(5, 7, depth);
        for (int y = 0; y < m.rows; ++y)
            for (int x = 0; x < m.cols; ++x) {
                const int v = (y * 7 + x) * 37 + (depth == CV_16U ? 60000 - (y * 7 + x) * 1000 : 0);
                if (depth == CV_8U) m.at<std::uint8_t>(y, x) = static_cast<std::uint8_t>(v % 256);
                else m.at<std::uint16_t>(y, x) = static_cast<std::uint16_t>(v);
            }
        QVERIFY(cv::imwrite(pathFor(name).toStdString(), m));
        const Image image = loadImage(pathFor(name).toStdString());
        QCOMPARE(image.meta.format, format.toStdString());
        QCOMPARE(int(image.sampleType()), type);
        QCOMPARE(image.width(), 7);
        QCOMPARE(image.height(), 5);
        for (int y = 0; y < m.rows; ++y)
            for (int x = 0; x < m.cols; ++x)
                QCOMPARE(image.value(x, y), depth == CV_8U ? double(m.at<std::uint8_t>(y, x)) : double(m.at<std::uint16_t>(y, x)));
        QVERIFY(!image.meta.wasColour);
        QVERIFY(!image.meta.displayYUp);
    }

    // Colour -> luminance with OpenCV's weights (0.299 R + 0.587 G + 0.114 B), at the native depth.
    void colourToLuminance() {
        cv::Mat m(2, 3, CV_8UC3);
        const cv::Vec3b bgr[6] = {{0, 0, 255}, {0, 255, 0}, {255, 0, 0}, {255, 255, 255}, {0, 0, 0}, {10, 200, 40}};
        for (int i = 0; i < 6; ++i) m.at<cv::Vec3b>(i / 3, i % 3) = bgr[i];
        QVERIFY(cv::imwrite(pathFor("colour.png").toStdString(), m));
        const Image image = loadImage(pathFor("colour.png").toStdString());
        QVERIFY(image.meta.wasColour);
        QCOMPARE(image.sampleType(), SampleType::UInt8);
        const double expected[6] = {76, 150, 29, 255, 0, 130}; // 0.299*40 + 0.587*200 + 0.114*10 = 130.5
        for (int i = 0; i < 6; ++i)
            QVERIFY2(std::fabs(image.value(static_cast<std::size_t>(i)) - expected[i]) <= 1,
                     qPrintable(QString("pixel %1: %2").arg(i).arg(image.value(static_cast<std::size_t>(i)))));
    }

    void floatTiffWithNaN() {
        cv::Mat m(2, 2, CV_32F);
        m.at<float>(0, 0) = 1.5f;
        m.at<float>(0, 1) = std::numeric_limits<float>::quiet_NaN();
        m.at<float>(1, 0) = -2.0f;
        m.at<float>(1, 1) = 1e20f;
        QVERIFY(cv::imwrite(pathFor("f.tiff").toStdString(), m));
        const Image image = loadImage(pathFor("f.tiff").toStdString());
        QCOMPARE(image.sampleType(), SampleType::Float32);
        QVERIFY(image.isBlank(1, 0));
        QCOMPARE(image.blankCount(), std::size_t(1));
        QCOMPARE(image.value(1, 1), double(1e20f));
        QVERIFY(!image.meta.integerValued);
    }

    // By content: a PNG named .fits is a PNG, a FITS named .mt is FITS, .TIF is .tif.
    void detectionByContent() {
        cv::Mat m(3, 3, CV_8U, cv::Scalar(9));
        QVERIFY(cv::imwrite(pathFor("real.png").toStdString(), m));
        const QString disguised = writeBytes("disguised.fits", readAll(pathFor("real.png")));
        QCOMPARE(detectFileFormat(disguised.toStdString()), FileFormat::Png);
        QCOMPARE(loadImage(disguised.toStdString()).value(1, 1), 9.0);
        QVERIFY(cv::imwrite(pathFor("upper.tif").toStdString(), m));
        const QString upper = writeBytes("UPPER.TIF", readAll(pathFor("upper.tif")));
        QCOMPARE(loadImage(upper.toStdString()).meta.format, std::string("TIFF"));
        const QByteArray fits = QByteArray("SIMPLE  =                    T").leftJustified(80) +
                                QByteArray("BITPIX  =                    8").leftJustified(80) +
                                QByteArray("NAXIS   =                    2").leftJustified(80) +
                                QByteArray("NAXIS1  =                    2").leftJustified(80) +
                                QByteArray("NAXIS2  =                    1").leftJustified(80) +
                                QByteArray("END").leftJustified(80);
        const QString mt = writeBytes("sky.mt", fits.leftJustified(2880, ' ') + QByteArray("\x05\x06").leftJustified(2880, '\0'));
        const Image sky = loadImage(mt.toStdString());
        QCOMPARE(sky.meta.format, std::string("FITS"));
        QCOMPARE(sky.value(1, 0), 6.0);
    }

    void damagedFiles() {
        cv::Mat m(64, 64, CV_8U);
        cv::randu(m, 0, 255);
        QVERIFY(cv::imwrite(pathFor("whole.png").toStdString(), m));
        QVERIFY(cv::imwrite(pathFor("whole.jpg").toStdString(), m));
        for (const char* name : {"whole.png", "whole.jpg"}) {
            const QByteArray all = readAll(pathFor(name));
            const QString cut = writeBytes(QString("cut-") + name, all.left(all.size() / 3));
            try {
                loadImage(cut.toStdString());
                QFAIL(qPrintable(QString("a truncated %1 was accepted").arg(name)));
            } catch (const InputError& e) {
                QVERIFY2(QString(e.what()).contains("cannot open"), e.what());
            }
        }
        const QString header = writeBytes("header-only.png", QByteArray("\x89PNG\r\n\x1a\n", 8));
        QVERIFY_THROWS_EXCEPTION(InputError, loadImage(header.toStdString()));
    }
#endif
};

QTEST_GUILESS_MAIN(TestRasterLoader)
#include "test_raster_loader.moc"
