// Georeferencing through GDAL (core/io/Georef): none in the lean headless build (these tests skip there,
// saying so), the pixel-centre convention, a GeoTIFF written here with a known geotransform and CRS, a PNG
// with a world file and a .prj (ESRI WKT), WGS 84 longitude/latitude checked against GDAL's own transformer
// (gdaltransform's) and against gdaltransform's printed figures, and info's "georef" block.
#include "tests/cpu/test_georef_support.h"
#include "tests/support/TestSupport.h"

#include "core/io/Georef.h"
#include "core/io/ImageLoader.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <array>
#include <cmath>
#include <optional>

#if GLINT_WITH_GDAL
#include <cpl_conv.h>
#include <gdal.h>
#include <gdal_alg.h>
#include <ogr_spatialref.h>
#endif

using namespace glint;
using namespace glint::test::geofiles;

namespace {

#if GLINT_WITH_GDAL
// What gdaltransform prints for "P L" with -t_srs EPSG:4326: GDAL's generic transformer from the file's
// pixel/line to longitude, latitude.
std::optional<LonLat> gdalTransform(const QString& path, double pixel, double line) {
    registerGdal();
    GDALDatasetH ds = GDALOpen(path.toUtf8().constData(), GA_ReadOnly);
    if (!ds) return std::nullopt;
    const char* const options[] = {"DST_SRS=EPSG:4326", nullptr};
    void* transformer = GDALCreateGenImgProjTransformer2(ds, nullptr, const_cast<char**>(options));
    std::optional<LonLat> out;
    if (transformer) {
        double x = pixel, y = line, z = 0.0;
        int ok = 0;
        GDALGenImgProjTransform(transformer, FALSE, 1, &x, &y, &z, &ok);
        if (ok) out = LonLat{x, y};
        GDALDestroyGenImgProjTransformer(transformer);
    }
    GDALClose(ds);
    return out;
}

// The ESRI WKT a .prj beside a world file holds (as ArcGIS and QGIS write it).
QByteArray esriPrj(int epsg) {
    OGRSpatialReference srs;
    srs.importFromEPSG(epsg);
    srs.morphToESRI();
    char* wkt = nullptr;
    srs.exportToWkt(&wkt);
    const QByteArray out(wkt);
    CPLFree(wkt);
    return out;
}
#endif

} // namespace

class TestGeorefReading : public QObject {
    Q_OBJECT

private slots:
    void leanBuildHasNone() {
        if (georefAvailable()) {
            QVERIFY(Georef::create(kUtmTransform, "EPSG:32633") != nullptr);
            return;
        }
        // Without GDAL nothing is georeferenced, and nothing fails for it.
        QVERIFY(Georef::create(kUtmTransform, "EPSG:32633") == nullptr);
        QVERIFY(Georef::fromFile(GLINT_TEST_DATA_DIR "/nothing.tif") == nullptr);
        QSKIP("this build has no GDAL (GLINT_WITH_IMGCODECS=OFF): no image is georeferenced");
    }

    // GDAL's geotransform addresses pixel corners; Glint's pixel (x, y) has its centre at integers.
    void pixelCentreConvention() {
        SKIP_WITHOUT_GDAL();
        const auto g = Georef::create({100.0, 2.0, 0.0, 200.0, 0.0, -3.0}, "EPSG:32633");
        QVERIFY(g);
        const MapPoint corner = g->pixelLineToMap(0, 0);
        QCOMPARE(corner.x, 100.0);
        QCOMPARE(corner.y, 200.0);
        const MapPoint centre = g->pixelToMap(0, 0); // centre of the first pixel: half a pixel in
        QCOMPARE(centre.x, 101.0);
        QCOMPARE(centre.y, 198.5);
        const MapPoint p = g->pixelToMap(4, 7);
        QCOMPARE(p.x, 100.0 + 4.5 * 2.0);
        QCOMPARE(p.y, 200.0 - 7.5 * 3.0);
        const auto back = g->mapToPixel(p);
        QCOMPARE(back.first, 4.0);
        QCOMPARE(back.second, 7.0);
        // Rotated: X = GT0 + P*GT1 + L*GT2, Y = GT3 + P*GT4 + L*GT5 with P = x + 0.5, L = y + 0.5.
        const std::array<double, 6> gt = {1000.0, 0.8, 0.6, 5000.0, 0.6, -0.8};
        const auto r = Georef::create(gt, "");
        QVERIFY(r);
        QVERIFY(!r->hasCrs());
        QVERIFY(!r->pixelToLonLat(3, 4));
        const MapPoint q = r->pixelToMap(3, 4);
        QVERIFY(std::abs(q.x - (1000.0 + 3.5 * 0.8 + 4.5 * 0.6)) < 1e-9);
        QVERIFY(std::abs(q.y - (5000.0 + 3.5 * 0.6 - 4.5 * 0.8)) < 1e-9);
        const auto qb = r->mapToPixel(q);
        QVERIFY(std::abs(qb.first - 3.0) < 1e-9 && std::abs(qb.second - 4.0) < 1e-9);
        // Unusable transforms give no georef; an unreadable CRS gives one without CRS.
        QVERIFY(!Georef::create({0, 0, 0, 0, 0, 0}, "EPSG:32633"));
        QVERIFY(!Georef::create({0, 1, 0, 0, 2, 0}, ""));          // singular (both axes along x)
        QVERIFY(!Georef::create({0, NAN, 0, 0, 0, -1}, ""));
        QVERIFY(!Georef::create({0, 1, 0, INFINITY, 0, -1}, ""));
        const auto bad = Georef::create(kUtmTransform, "EPSG:999999999");
        QVERIFY(bad);
        QVERIFY(!bad->hasCrs());
        // Never a file or a URL as the CRS.
        QVERIFY(!Georef::create(kUtmTransform, GLINT_TEST_DATA_DIR "/../../CMakeLists.txt")->hasCrs());
    }

    void geoTiff() {
        SKIP_WITHOUT_GDAL();
#if GLINT_WITH_GDAL
        const QString dir = folder("geotiff");
        const QString path = writeGeoTiff(dir + "/utm.tif", kUtmTransform, "EPSG:32633");
        QVERIFY(!path.isEmpty());
        const Image image = loadImage(path.toStdString());
        QCOMPARE(image.width(), 6);
        QCOMPARE(image.height(), 5);
        QCOMPARE(image.value(2, 1), double((1 * 6 + 2) * 7)); // pixels still OpenCV's
        const Georef* g = image.meta.georef.get();
        QVERIFY(g);
        QVERIFY(g->geoTransform() == kUtmTransform);
        QCOMPARE(g->source(), std::string("GeoTIFF"));
        QVERIFY(g->hasCrs());
        QCOMPARE(g->epsg().value_or(0), 32633);
        QCOMPARE(g->crsId(), std::string("EPSG:32633"));
        QCOMPARE(g->crsName(), std::string("WGS 84 / UTM zone 33N"));
        QCOMPARE(g->unitSymbol(), std::string("m"));
        QVERIFY(!g->isGeographic());
        // Header cards for the header view.
        QVERIFY(card(image, "CRS") && card(image, "CRS")->value == "WGS 84 / UTM zone 33N");
        QVERIFY(card(image, "EPSG") && card(image, "EPSG")->value == "32633");
        QVERIFY(card(image, "GEOTRANSFORM") && card(image, "GEOTRANSFORM")->value == "500000, 30, 0, 5000000, 0, -30");
        QVERIFY(card(image, "CRS_WKT") && card(image, "CRS_WKT")->value.rfind("PROJCRS[", 0) == 0);
        QVERIFY(card(image, "AREA_OR_POINT")); // the file's own GDAL metadata
        // Map coordinates of pixel centres.
        const MapPoint m = g->pixelToMap(2, 3);
        QCOMPARE(m.x, 500075.0);
        QCOMPARE(m.y, 4999895.0);
        // Longitude/latitude: what gdaltransform printed for this point
        // (echo "500075 4999895" | gdaltransform -s_srs EPSG:32633 -t_srs EPSG:4326 -output_xy, GDAL 3.6.2) ...
        const auto ll = g->pixelToLonLat(2, 3);
        QVERIFY(ll);
        QVERIFY2(std::abs(ll->lon - 15.0009541268632) < 1e-12 && std::abs(ll->lat - 45.1525320024547) < 1e-12,
                 qPrintable(QString("%1 %2").arg(ll->lon, 0, 'g', 17).arg(ll->lat, 0, 'g', 17)));
        // ... the central meridian of zone 33 is 15° E ...
        QVERIFY(std::abs(g->mapToLonLat({500000.0, 3000000.0})->lon - 15.0) < 1e-12);
        // ... and GDAL's own pixel/line transformer over the whole image, corners and centres.
        for (double line = 0.0; line <= 5.0; line += 0.5)
            for (double pixel = 0.0; pixel <= 6.0; pixel += 0.5) {
                const auto expected = gdalTransform(path, pixel, line);
                QVERIFY(expected);
                const auto got = g->pixelToLonLat(pixel - 0.5, line - 0.5);
                QVERIFY(got);
                QVERIFY2(std::abs(got->lon - expected->lon) < 1e-10 && std::abs(got->lat - expected->lat) < 1e-10,
                         qPrintable(QString("P %1 L %2").arg(pixel).arg(line)));
            }
        // GDAL left nothing beside the file (no .aux.xml).
        QCOMPARE(QDir(dir).entryList(QDir::Files), QStringList{"utm.tif"});

        // A geographic GeoTIFF: map units are degrees, lon/lat the same numbers.
        const QString geo = writeGeoTiff(dir + "/wgs84.tif", {10.0, 0.25, 0.0, 50.0, 0.0, -0.25}, "EPSG:4326");
        const Image gi = loadImage(geo.toStdString());
        QVERIFY(gi.meta.georef);
        QVERIFY(gi.meta.georef->isGeographic());
        QCOMPARE(gi.meta.georef->epsg().value_or(0), 4326);
        const auto gll = gi.meta.georef->pixelToLonLat(1, 2);
        QVERIFY(gll && std::abs(gll->lon - 10.375) < 1e-12 && std::abs(gll->lat - 49.375) < 1e-12);
#endif
    }

    void worldFileAndPrj_data() {
        test::columns<QString, QString>({"image", "world"});
        QTest::newRow(".pgw") << "a.png" << "a.pgw";
        QTest::newRow(".pngw") << "b.png" << "b.pngw";
        QTest::newRow(".wld") << "c.png" << "c.wld";
        QTest::newRow("upper case .PGW") << "d.png" << "d.PGW";
    }
    void worldFileAndPrj() {
        SKIP_WITHOUT_GDAL();
#if GLINT_WITH_GDAL
        QFETCH(QString, image);
        QFETCH(QString, world);
        const QString dir = folder("world-" + world.mid(world.indexOf('.') + 1));
        writeBytes(dir + "/" + image, pngBytes(7, 4));
        // A world file gives the centre of the top-left pixel, rotation terms included:
        // X = A x + B y + C, Y = D x + E y + F for Glint's pixel (x, y) (centres at integers).
        const double A = 2.0, D = 0.5, B = -0.25, E = -2.0, C = 1000.0, F = 2000.0;
        writeBytes(dir + "/" + world, worldFile(A, D, B, E, C, F));
        const QString stem = image.left(image.indexOf('.'));
        writeBytes(dir + "/" + stem + ".prj", esriPrj(32633));
        const Image img = loadImage((dir + "/" + image).toStdString());
        const Georef* g = img.meta.georef.get();
        QVERIFY(g);
        QVERIFY2(g->source().find("world file " + world.toStdString()) == 0, g->source().c_str());
        QVERIFY(g->source().find(stem.toStdString() + ".prj") != std::string::npos);
        for (int y = 0; y < 4; ++y)
            for (int x = 0; x < 7; ++x) {
                const MapPoint m = g->pixelToMap(x, y);
                QVERIFY(std::abs(m.x - (A * x + B * y + C)) < 1e-9);
                QVERIFY(std::abs(m.y - (D * x + E * y + F)) < 1e-9);
            }
        // The ESRI WKT of the .prj is recognised as EPSG:32633.
        QCOMPARE(g->epsg().value_or(0), 32633);
        QVERIFY(g->hasLonLat());
        // The info command.
        const test::CliResult r = test::runCli({"info", dir + "/" + image, "--json", "-"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.isEmpty(), r.err.constData());
        const QJsonObject georef = QJsonDocument::fromJson(r.out).object()["georef"].toObject();
        QCOMPARE(georef["crs"].toString(), QString("EPSG:32633"));
        const QJsonArray gt = georef["geotransform"].toArray();
        QCOMPARE(gt.size(), 6);
        for (int i = 0; i < 6; ++i) QCOMPARE(gt[i].toDouble(), g->geoTransform()[static_cast<std::size_t>(i)]);
        // GDAL's geotransform is the corner one: C - A/2 - B/2, ...
        QCOMPARE(gt[0].toDouble(), C - A / 2 - B / 2);
        QCOMPARE(gt[3].toDouble(), F - D / 2 - E / 2);
        QCOMPARE(QDir(dir).entryList(QDir::Files).size(), 3); // nothing written beside
#endif
    }
};

QTEST_GUILESS_MAIN(TestGeorefReading)
#include "test_georef_reading.moc"
