// The codecs plugin (core/io/Codecs.h): OpenCV's imgcodecs and GDAL are loaded only when a raster is read
// or written, never for FITS/CSV; a missing or broken plugin (GLINT_CODECS_PLUGIN pointed at a file that
// is none) gives one line and exit 3 for a PNG, while FITS and CSV still work. In the lean build
// (GLINT_WITH_IMGCODECS=OFF) there is no plugin and the PNG cases skip.
#include "tests/support/PluginChecks.h"
#include "tests/support/TestSupport.h"

#include "core/io/Codecs.h"
#include "core/io/Georef.h"
#include "core/io/ImageLoader.h"

#include <QFile>
#include <QtTest>

#include <string>

using namespace glint;

namespace {

// A small PNG made by the plugin itself ("" without it).
QString writePng() {
    const Codecs* c = codecs();
    if (!c) return {};
    cv::Mat m(3, 4, CV_8UC1);
    for (int i = 0; i < 12; ++i) m.data[i] = static_cast<std::uint8_t>(20 * i);
    const std::vector<std::uint8_t> png = c->encodePng(m);
    return test::writeTempFile("small.png", QByteArray(reinterpret_cast<const char*>(png.data()), static_cast<int>(png.size())));
}

} // namespace

class TestCodecsPlugin : public QObject {
    Q_OBJECT

private slots:
    // Before anything asked for a codec, the test program (which links glint_core) has neither
    // imgcodecs nor GDAL; the first use loads them.
    void loadedOnFirstUse() {
        test::checkNoneMapped({"libopencv_imgcodecs", "libgdal", "glint_codecs"});
        const Image image = loadImage(test::writeSmallCsv().toStdString());
        QCOMPARE(image.width(), 3);
        QVERIFY(!test::libraryMapped("glint_codecs"));
        if (!GLINT_WITH_IMGCODECS) {
            QVERIFY(codecs() == nullptr);
            QVERIFY(!codecsError().empty());
            QSKIP("this build has no codecs plugin (GLINT_WITH_IMGCODECS=OFF)");
        }
        test::checkPluginLoaded(codecs, codecsError, {"glint_codecs", "libopencv_imgcodecs"});
    }

    // A PNG written and read back through the plugin, and GDAL's georeferencing through it.
    void roundTrip() {
        if (!GLINT_WITH_IMGCODECS) QSKIP("this build has no codecs plugin (GLINT_WITH_IMGCODECS=OFF)");
        const QString png = writePng();
        QVERIFY(!png.isEmpty());
        const Image image = loadImage(png.toStdString());
        QCOMPARE(image.width(), 4);
        QCOMPARE(image.height(), 3);
        QCOMPARE(image.meta.format, std::string("PNG"));
        QCOMPARE(image.value(3, 2), 220.0);
        const auto georef = Georef::create({500000, 10, 0, 5000000, 0, -10}, "EPSG:32633");
        QVERIFY(georef);
        QCOMPARE(georef->epsg().value_or(0), 32633);
        QVERIFY(georef->pixelToLonLat(0, 0).has_value());
    }

    // glint-cli on FITS or CSV maps neither the plugin nor GDAL (the dynamic linker's own list); on a
    // PNG it does.
    void cliLoadsCodecsOnlyForRasters() {
        test::checkInfoMaps(test::writeSmallCsv(), {}, {"glint_codecs", "libgdal", "libopencv_imgcodecs"});
        if (QTest::currentTestFailed()) return;
        if (!GLINT_WITH_IMGCODECS) QSKIP("this build has no codecs plugin (GLINT_WITH_IMGCODECS=OFF)");
        test::checkInfoMaps(writePng(), {"glint_codecs", "libgdal"}, {});
    }

    void missingPlugin_data() { test::addBrokenPluginRows("glint_codecs"); }

    // A plugin that does not load: a PNG is refused with one line and exit 3 (reading and writing), the
    // CSV and FITS inputs still open.
    void missingPlugin() {
        QFETCH(QString, plugin);
        QFETCH(QString, why);
        if (!GLINT_WITH_IMGCODECS) QSKIP("this build has no codecs plugin (GLINT_WITH_IMGCODECS=OFF)");
        const QString png = writePng();
        test::checkRefusedRead(test::runCliWithEnv({"info", png}, "GLINT_CODECS_PLUGIN", plugin),
                               "glint-cli: cannot open '" + png.toUtf8() + "': reading PNG files needs Glint's codecs plugin: ", why);
        if (QTest::currentTestFailed()) return;

        test::checkCsvOpens("GLINT_CODECS_PLUGIN", plugin);
        if (QTest::currentTestFailed()) return;
        const QString csv = test::writeSmallCsv();
        const QString fits = test::samplePath("ngc1316o.fit");
        QCOMPARE(test::runCliWithEnv({"info", fits}, "GLINT_CODECS_PLUGIN", plugin).exitCode, 0);

        const QString overlay = test::tempDir() + "/overlay.png";
        QFile::remove(overlay);
        const test::CliResult write = test::runCliWithEnv({"brightest", csv, "--overlay", overlay}, "GLINT_CODECS_PLUGIN", plugin);
        QCOMPARE(write.exitCode, 3);
        QVERIFY2(test::oneErrorLine(write.err), write.err.constData());
        QVERIFY2(write.err.contains("cannot write '" + overlay.toUtf8() + "': writing PNG files needs Glint's codecs plugin"),
                 write.err.constData());
        QVERIFY(!QFile::exists(overlay));
    }
};

QTEST_GUILESS_MAIN(TestCodecsPlugin)
#include "test_codecs_plugin.moc"
