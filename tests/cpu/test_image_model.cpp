// The image model, format detection, CSV matrices and timing records.
#include "tests/support/TestSupport.h"

#include "core/io/ImageLoader.h"
#include "core/io/ImageStats.h"
#include "core/jobs/Timing.h"
#include "core/util/Errors.h"

#include <QFile>
#include <QtTest>

using namespace glint;

class TestImageModel : public QObject {
    Q_OBJECT

private:
    static QString writeText(const QString& name, const QByteArray& text) {
        const QString path = test::tempDir() + "/" + name;
        QFile f(path);
        f.open(QIODevice::WriteOnly);
        f.write(text);
        return path;
    }

private slots:
    void nativeSamplesAreKept() {
        std::vector<std::int32_t> v = {2147483647, -2147483647 - 1, 16777217, 3};
        Image image = Image::fromSamples<std::int32_t>(2, 2, v);
        QCOMPARE(image.sampleType(), SampleType::Int32);
        QCOMPARE(image.value(0, 0), 2147483647.0);
        QCOMPARE(image.value(0, 1), 16777217.0); // not representable in float32
        QVERIFY(image.meta.integerValued);
        QCOMPARE(image.meta.bitDepth, 32);
    }

    void absurdDimensionsAreRejected() {
        QVERIFY_THROWS_EXCEPTION(InputError, Image(0, 5, SampleType::UInt8));
        QVERIFY_THROWS_EXCEPTION(InputError, Image(1 << 21, 2, SampleType::UInt8));
    }

    void csvMatrix() {
        const QString path = writeText("m.csv", "# comment\n1, -2, 3.5\n4 5 nan\n\n7;8;9\n");
        Image image = loadImage(path.toStdString());
        QCOMPARE(image.width(), 3);
        QCOMPARE(image.height(), 3);
        QCOMPARE(image.meta.format, std::string("CSV"));
        QCOMPARE(image.value(1, 0), -2.0);
        QCOMPARE(image.value(2, 0), 3.5);
        QVERIFY(image.isBlank(2, 1));
        QCOMPARE(image.blankCount(), std::size_t(1));
        QVERIFY(!image.meta.integerValued);
        const ImageStats s = computeStats(image);
        QCOMPARE(s.count, std::size_t(8));
        QCOMPARE(s.min, -2.0);
        QCOMPARE(s.max, 9.0);
    }

    void csvErrors_data() {
        QTest::addColumn<QByteArray>("text");
        QTest::newRow("ragged") << QByteArray("1,2,3\n4,5\n");
        QTest::newRow("word") << QByteArray("1,2\n3,abc\n");
        QTest::newRow("empty field") << QByteArray("1,,2\n");
        QTest::newRow("no numbers") << QByteArray("# only a comment\n\n");
    }
    void csvErrors() {
        QFETCH(QByteArray, text);
        const QString path = writeText("bad.csv", text);
        QVERIFY_THROWS_EXCEPTION(InputError, loadImage(path.toStdString()));
    }

    void missingAndEmptyFiles() {
        QVERIFY_THROWS_EXCEPTION(InputError, loadImage("/nonexistent/file.png"));
        const QString empty = writeText("empty.png", "");
        QVERIFY_THROWS_EXCEPTION(InputError, loadImage(empty.toStdString()));
        const QString junk = writeText("junk.bin", QByteArray("\x01\x02\x03\xff\xfe", 5));
        QVERIFY_THROWS_EXCEPTION(InputError, loadImage(junk.toStdString()));
    }

    void percentileInterpolates() {
        std::vector<double> v = {1, 2, 3, 4};
        QCOMPARE(percentileOf(v, 50.0), 2.5);
        QCOMPARE(percentileOf(v, 100.0), 4.0);
        QCOMPARE(percentileOf(v, 0.0), 1.0);
    }

    void timingSteps() {
        Timing t;
        t.add("upload", 1.5);
        t.add("kernel", 2.0);
        t.add("upload", 0.5);
        QCOMPARE(t.steps().size(), std::size_t(2));
        QCOMPARE(t.step("upload"), 2.0);
        QCOMPARE(t.total(), 4.0);
        t.setTotal(5.0);
        QCOMPARE(t.total(), 5.0);
    }
};

QTEST_GUILESS_MAIN(TestImageModel)
#include "test_image_model.moc"
