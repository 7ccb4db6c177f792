// Real FITS files fetched by the real_data fixture, against values computed once with astropy 5.2
// (`fits.open(...)[hdu].data[y, x]`, `ZScaleInterval().get_limits(data)`) and stored here.
#include "tests/support/TestSupport.h"

#include "core/display/Display.h"
#include "core/io/ImageLoader.h"
#include "core/io/ImageStats.h"
#include "core/util/Errors.h"

#include <QtTest>

#include <cmath>

using namespace glint;

namespace {

using Point = test::KnownPixel;

Image load(const QString& path, int hdu = -1, int plane = 0) {
    LoadOptions options;
    options.hdu = hdu;
    options.plane = plane;
    return loadImage(path.toStdString(), options);
}

bool close(double a, double b, double relative) { return std::fabs(a - b) <= relative * std::max(1.0, std::fabs(b)); }

} // namespace

class TestFitsReal : public QObject {
    Q_OBJECT

private slots:
    void hstMultiExtension() {
        GLINT_REAL_FILE(path, "j8bt06nyq_flt.fits");
        const Image sci = load(path);
        QCOMPARE(sci.meta.hdu, 1); // the primary holds no data
        QCOMPARE(sci.width(), 1024);
        QCOMPARE(sci.height(), 1024);
        QCOMPARE(sci.sampleType(), SampleType::Float32);
        QCOMPARE(sci.meta.hdus.size(), std::size_t(4));
        const char* names[] = {"", "SCI", "ERR", "DQ"};
        for (int i = 0; i < 4; ++i) {
            QCOMPARE(sci.meta.hdus[i].name, std::string(names[i]));
            QCOMPARE(sci.meta.hdus[i].kind, std::string(i == 0 ? "empty" : "image"));
        }
        for (const Point& p : {Point{0, 0, 79.99380493164062}, Point{511, 511, 146.51280212402344},
                               Point{1023, 0, 310.2116394042969}, Point{100, 900, 123.67285919189453}})
            QCOMPARE(sci.value(p.x, p.y), p.value);

        const Image err = load(path, 2);
        QCOMPARE(err.value(20, 10), 14.477700233459473);
        const Image dq = load(path, 3);
        QCOMPARE(dq.sampleType(), SampleType::Int16);
        QCOMPARE(dq.value(0, 0), 512.0);
        QCOMPARE(dq.value(511, 511), 0.0);
        QVERIFY_THROWS_EXCEPTION(InputError, load(path, 0));
    }

    void ngc1316_data() {
        test::columns<QString, int>({"name", "hdu"});
        QTest::newRow("ngc1316o.fit") << "ngc1316o.fit" << 0;
        QTest::newRow("comp.fits, the same image tile-compressed") << "comp.fits" << 1;
    }
    void ngc1316() {
        QFETCH(QString, name);
        QFETCH(int, hdu);
        GLINT_REAL_FILE(path, name);
        const Image image = load(path);
        QCOMPARE(image.meta.hdu, hdu);
        QCOMPARE(image.width(), 440);
        QCOMPARE(image.height(), 300);
        QCOMPARE(image.sampleType(), SampleType::Int16);
        for (const Point& p : {Point{0, 0, 7}, Point{225, 146, 995}, Point{439, 299, 65}, Point{100, 250, 252}})
            QCOMPARE(image.value(p.x, p.y), p.value);
        const ImageStats stats = computeStats(image);
        QCOMPARE(stats.min, 0.0);
        QCOMPARE(stats.max, 1037.0);
        bool object = false;
        for (const auto& c : image.meta.header) object |= c.key == "OBJECT" && c.value == "NGC 1316";
        QVERIFY(object);
    }

    void datacube() {
        GLINT_REAL_FILE(path, "datacube.fit");
        struct PlanePoint {
            int plane, x, y;
            double value;
        };
        for (const PlanePoint& p : {PlanePoint{0, 0, 0, -12}, PlanePoint{5, 10, 20, -20}, PlanePoint{29, 63, 63, 27},
                                    PlanePoint{12, 32, 32, 94}}) {
            const Image image = load(path, -1, p.plane);
            QCOMPARE(image.meta.planeCount, 30);
            QCOMPARE(image.width(), 64);
            QCOMPARE(image.value(p.x, p.y), p.value);
        }
        QVERIFY_THROWS_EXCEPTION(InputError, load(path, -1, 30));
    }

    // IRAF's zscale as astropy's ZScaleInterval computes it (defaults: 1000 samples, contrast 0.25).
    void zscale_data() {
        test::columns<QString, double, double>({"name", "low", "high"});
        QTest::newRow("HST SCI, float32") << "j8bt06nyq_flt.fits" << 19.535703659057617 << 1930.597316018248;
        QTest::newRow("ngc1316o, int16") << "ngc1316o.fit" << 111.78463108747783 << 395.0660639059711;
        QTest::newRow("comp.fits") << "comp.fits" << 111.78463108747783 << 395.0660639059711;
    }
    void zscale() {
        QFETCH(QString, name);
        QFETCH(double, low);
        QFETCH(double, high);
        GLINT_REAL_FILE(path, name);
        const DisplayLimits limits = zscaleLimits(load(path));
        qInfo("%s: zscale %.17g %.17g (astropy %.17g %.17g)", qPrintable(name), limits.low, limits.high, low, high);
        QVERIFY(close(limits.low, low, 1e-9));
        QVERIFY(close(limits.high, high, 1e-9));
    }
};

QTEST_GUILESS_MAIN(TestFitsReal)
#include "test_fits_real.moc"
