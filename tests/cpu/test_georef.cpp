// Georeferencing through GDAL (core/io/Georef): a GeoTIFF written here with a known geotransform and CRS,
// a PNG with a world file and a .prj (ESRI WKT), the pixel-centre convention, WGS 84 longitude/latitude
// checked against GDAL's own transformer (gdaltransform's) and against gdaltransform's printed figures,
// info's "georef" block, GeoJSON and CSV exports in map coordinates, and hostile side files. The lean
// headless build has no GDAL: these tests skip there, saying so.
#include "tests/support/TestSupport.h"

#include "core/export/CsvTable.h"
#include "core/export/ExportRegions.h"
#include "core/export/GeoJsonRegions.h"
#include "core/export/JsonOutput.h"
#include "core/export/RegionCsv.h"
#include "core/io/Georef.h"
#include "core/io/ImageLoader.h"
#include "core/util/Errors.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <array>
#include <atomic>
#include <cmath>
#include <cstring>
#include <functional>
#include <thread>

#include <sys/stat.h>

#if GLINT_WITH_GDAL
#include <cpl_conv.h>
#include <gdal.h>
#include <gdal_alg.h>
#include <ogr_spatialref.h>
#endif

using namespace glint;

namespace {

#define SKIP_WITHOUT_GDAL()                                                                                          \
    if (!georefAvailable()) QSKIP("this build has no GDAL (GLINT_WITH_IMGCODECS=OFF): no image is georeferenced")

// The GeoTIFF of these tests: 6 x 5 pixels of 30 m in UTM zone 33N, top-left corner at (500000, 5000000).
constexpr std::array<double, 6> kUtmTransform = {500000.0, 30.0, 0.0, 5000000.0, 0.0, -30.0};

QString folder(const QString& name) {
    const QString dir = test::tempDir() + "/" + name;
    QDir().mkpath(dir);
    return dir;
}

void writeBytes(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QCOMPARE(f.write(bytes), bytes.size());
}

// A minimal 8-bit greyscale PNG (zlib's stored blocks, no compression needed), so that this test does not
// depend on an encoder.
QByteArray pngBytes(int w, int h) {
    auto be32 = [](QByteArray& out, quint32 v) {
        for (int s = 24; s >= 0; s -= 8) out.append(static_cast<char>((v >> s) & 0xFF));
    };
    auto chunk = [&](QByteArray& out, const char* type, const QByteArray& data) {
        be32(out, static_cast<quint32>(data.size()));
        const QByteArray body = QByteArray(type, 4) + data;
        out.append(body);
        // CRC-32 of type and data.
        quint32 crc = 0xFFFFFFFFu;
        for (unsigned char c : body) {
            crc ^= c;
            for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
        }
        be32(out, crc ^ 0xFFFFFFFFu);
    };
    QByteArray raw;
    for (int y = 0; y < h; ++y) {
        raw.append('\0');
        for (int x = 0; x < w; ++x) raw.append(static_cast<char>((x * 37 + y * 11) & 0xFF));
    }
    QByteArray z("\x78\x01", 2); // one stored block (raw is small)
    z.append('\x01');
    const quint16 n = static_cast<quint16>(raw.size());
    z.append(static_cast<char>(n & 0xFF)).append(static_cast<char>(n >> 8));
    z.append(static_cast<char>(~n & 0xFF)).append(static_cast<char>((~n >> 8) & 0xFF));
    z.append(raw);
    quint32 a = 1, b = 0; // Adler-32
    for (unsigned char c : raw) {
        a = (a + c) % 65521;
        b = (b + a) % 65521;
    }
    be32(z, (b << 16) | a);
    QByteArray png("\x89PNG\r\n\x1a\n", 8);
    QByteArray ihdr;
    be32(ihdr, static_cast<quint32>(w));
    be32(ihdr, static_cast<quint32>(h));
    ihdr.append('\x08').append('\0').append('\0').append('\0').append('\0');
    chunk(png, "IHDR", ihdr);
    chunk(png, "IDAT", z);
    chunk(png, "IEND", {});
    return png;
}

#if GLINT_WITH_GDAL
QByteArray readBytes(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

void registerGdal() {
    static bool once = [] {
        GDALAllRegister();
        return true;
    }();
    (void)once;
}

// A GeoTIFF with the geotransform and CRS ("EPSG:N" or WKT) given, written by GDAL itself.
QString writeGeoTiff(const QString& path, const std::array<double, 6>& gt, const char* crs, int w = 6, int h = 5) {
    registerGdal();
    GDALDriverH driver = GDALGetDriverByName("GTiff");
    if (!driver) return {};
    GDALDatasetH ds = GDALCreate(driver, path.toUtf8().constData(), w, h, 1, GDT_Byte, nullptr);
    if (!ds) return {};
    std::array<double, 6> t = gt;
    GDALSetGeoTransform(ds, t.data());
    if (crs) {
        OGRSpatialReference srs;
        srs.SetFromUserInput(crs);
        GDALSetSpatialRef(ds, OGRSpatialReference::ToHandle(&srs));
    }
    std::vector<unsigned char> v(static_cast<std::size_t>(w) * h);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<unsigned char>(i * 7);
    const CPLErr err = GDALRasterIO(GDALGetRasterBand(ds, 1), GF_Write, 0, 0, w, h, v.data(), w, h, GDT_Byte, 0, 0);
    GDALClose(ds);
    return err == CE_None ? path : QString();
}

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

// A world file: A (x size), D, B (rotation), E (y size), C, F (centre of the top-left pixel).
QByteArray worldFile(double a, double d, double b, double e, double c, double f) {
    return QString("%1\n%2\n%3\n%4\n%5\n%6\n")
        .arg(a, 0, 'g', 17).arg(d, 0, 'g', 17).arg(b, 0, 'g', 17).arg(e, 0, 'g', 17).arg(c, 0, 'g', 17).arg(f, 0, 'g', 17)
        .toLatin1();
}

// Writes a w x h PNG `stem`.png into `dir` with its world file (.pgw) and, unless `prj` is empty, its .prj:
// the PNG's path.
QString pngWithWorldFile(const QString& dir, const QString& stem, int w, int h, const QByteArray& world,
                         const QByteArray& prj = {}) {
    const QString png = dir + "/" + stem + ".png";
    writeBytes(png, pngBytes(w, h));
    writeBytes(dir + "/" + stem + ".pgw", world);
    if (!prj.isEmpty()) writeBytes(dir + "/" + stem + ".prj", prj);
    return png;
}

const HeaderCard* card(const Image& image, const std::string& key) {
    for (const auto& c : image.meta.header)
        if (c.key == key) return &c;
    return nullptr;
}

RegionDocument documentWithRegions(const Image& image) {
    RegionDocument doc = regionDocumentFor(image);
    ExportRegion box;
    box.kind = RegionKind::Brightest;
    box.rank = 1;
    box.x = 1;
    box.y = 2;
    box.width = 3;
    box.height = 2;
    box.label = "#1";
    box.values = {{"rank", 1, 1}, {"sum", 42, 42}};
    ExportRegion trace;
    trace.kind = RegionKind::Trace;
    trace.rank = 1;
    trace.points = {{0, 0}, {2, 1}, {4, 3}};
    trace.updateBounds();
    trace.label = "trace 1";
    ExportRegion common;
    common.kind = RegionKind::Common;
    common.rank = 1;
    common.outline = {MaskPolygon{{{2, 1}, {4, 1}, {4, 2}, {3, 2}, {3, 3}, {2, 3}}, {}}};
    common.updateBounds();
    common.label = "common";
    doc.regions = {box, trace, common};
    return doc;
}

} // namespace

class TestGeoref : public QObject {
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
        QTest::addColumn<QString>("image");
        QTest::addColumn<QString>("world");
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

    void worldFileWithoutPrj() {
        SKIP_WITHOUT_GDAL();
        const QString png = pngWithWorldFile(folder("noprj"), "n", 5, 5, worldFile(1, 0, 0, -1, 10.5, 20.5));
        const Image img = loadImage(png.toStdString());
        QVERIFY(img.meta.georef);
        QVERIFY(!img.meta.georef->hasCrs());
        QVERIFY(!img.meta.georef->pixelToLonLat(0, 0));
        QCOMPARE(card(img, "CRS")->value, std::string("(none)"));
        const test::CliResult r = test::runCli({"info", png, "--json", "-"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject doc = QJsonDocument::fromJson(r.out).object();
        QVERIFY(doc.contains("georef"));
        QVERIFY(doc["georef"].toObject()["crs"].isNull());
        QCOMPARE(doc["georef"].toObject()["geotransform"].toArray()[0].toDouble(), 10.0);
        // GeoJSON: map coordinates without a "crs" member; WGS 84 cannot be had.
        const RegionDocument rd = documentWithRegions(img);
        const Json j = Json::parse(geoJsonRegionText(rd));
        QVERIFY(!j.contains("crs"));
        QCOMPARE(j["features"][0]["geometry"]["coordinates"][0][0][0].get<double>(), 11.0); // corner x = 1
        QVERIFY_THROWS_EXCEPTION(UsageError, geoJsonRegionText(rd, GeoJsonCrs::Wgs84));
        // CSV: map_x/map_y filled, lon/lat empty.
        const auto rows = parseCsv(regionCsvText(rd));
        QCOMPARE(rows[0].back(), std::string("lat"));
        QCOMPARE(rows[1][rows[1].size() - 4], std::string("12.5")); // centre x of the box: 2 -> 10 + 2.5
        QCOMPARE(rows[1].back(), std::string());
    }

    void plainImageHasNoGeoref() {
        const QString dir = folder("plain");
        writeBytes(dir + "/p.png", pngBytes(4, 4));
        if (!GLINT_WITH_IMGCODECS) QSKIP("this headless build reads no PNG");
        const Image img = loadImage((dir + "/p.png").toStdString());
        QVERIFY(!img.meta.georef);
        const test::CliResult r = test::runCli({"info", dir + "/p.png", "--json", "-"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(!QJsonDocument::fromJson(r.out).object().contains("georef"));
        // Exports of an image without georeferencing are as before: pixels, no extra CSV columns.
        const RegionDocument rd = documentWithRegions(img);
        QVERIFY(!Json::parse(geoJsonRegionText(rd)).contains("crs"));
        QVERIFY(parseCsv(regionCsvText(rd))[0] == regionCsvColumns());
        QVERIFY_THROWS_EXCEPTION(UsageError, geoJsonRegionText(rd, GeoJsonCrs::Image));
        QVERIFY_THROWS_EXCEPTION(UsageError, regionFileText(rd, RegionFormat::GeoJson, {Ds9System::Auto, GeoJsonCrs::Wgs84}));
    }

    void geoJsonAndCsvExports() {
        SKIP_WITHOUT_GDAL();
#if GLINT_WITH_GDAL
        const QString path = writeGeoTiff(folder("exports") + "/e.tif", kUtmTransform, "EPSG:32633");
        const Image image = loadImage(path.toStdString());
        const Georef& g = *image.meta.georef;
        const RegionDocument doc = documentWithRegions(image);
        const Json pixel = Json::parse(geoJsonRegionText(doc, GeoJsonCrs::Pixel));
        const Json map = Json::parse(geoJsonRegionText(doc)); // Auto: the image's CRS
        const Json wgs = Json::parse(regionFileText(doc, RegionFormat::GeoJson, {Ds9System::Auto, GeoJsonCrs::Wgs84}));
        QVERIFY(!pixel.contains("crs"));
        QCOMPARE(map["crs"]["properties"]["name"].get<std::string>(), std::string("urn:ogc:def:crs:EPSG::32633"));
        QCOMPARE(wgs["crs"]["properties"]["name"].get<std::string>(), std::string("urn:ogc:def:crs:OGC:1.3:CRS84"));
        QCOMPARE(map["features"].size(), std::size_t(3));
        // Every position: the pixel one through the geotransform (and on to WGS 84).
        std::size_t positions = 0;
        std::function<void(const Json&, const Json&, const Json&)> walk = [&](const Json& p, const Json& m, const Json& w) {
            if (p.is_array() && !p.empty() && p[0].is_number()) {
                const MapPoint expected = g.pixelLineToMap(p[0].get<double>(), p[1].get<double>());
                QCOMPARE(m[0].get<double>(), expected.x);
                QCOMPARE(m[1].get<double>(), expected.y);
                const auto ll = g.mapToLonLat(expected);
                QCOMPARE(w[0].get<double>(), ll->lon);
                QCOMPARE(w[1].get<double>(), ll->lat);
                ++positions;
                return;
            }
            for (std::size_t i = 0; i < p.size(); ++i) walk(p[i], m[i], w[i]);
        };
        for (std::size_t f = 0; f < 3; ++f) {
            const Json& pg = pixel["features"][f]["geometry"];
            QCOMPARE(map["features"][f]["geometry"]["type"], pg["type"]);
            walk(pg["coordinates"], map["features"][f]["geometry"]["coordinates"], wgs["features"][f]["geometry"]["coordinates"]);
            // The pixel geometry rides along.
            QCOMPARE(map["features"][f]["properties"]["pixel_geometry"], pg);
        }
        QCOMPARE(positions, std::size_t(5 + 3 + 7));
        // The box: pixels 1..3 x 2..3, corners (1, 2) and (4, 4) in pixel/line.
        const Json& ring = map["features"][0]["geometry"]["coordinates"][0];
        QCOMPARE(ring[0][0].get<double>(), 500030.0);
        QCOMPARE(ring[0][1].get<double>(), 4999940.0);
        QCOMPARE(ring[2][0].get<double>(), 500120.0);
        QCOMPARE(ring[2][1].get<double>(), 4999880.0);
        // The trace goes through pixel centres: (0, 0) -> (500015, 4999985).
        const Json& line = map["features"][1]["geometry"]["coordinates"];
        QCOMPARE(line[0][0].get<double>(), 500015.0);
        QCOMPARE(line[0][1].get<double>(), 4999985.0);
        // Reading any of the three back gives the same regions in pixels.
        for (const Json* text : {&pixel, &map, &wgs}) {
            const auto back = regionsFromGeoJson(text->dump());
            QCOMPARE(back.size(), std::size_t(3));
            QCOMPARE(back[0].x, 1);
            QCOMPARE(back[0].y, 2);
            QCOMPARE(back[0].width, 3);
            QCOMPARE(back[0].height, 2);
            QCOMPARE(back[0].values.size(), std::size_t(2)); // the map/lon/lat measurements are not values
            QVERIFY(back[1].points == doc.regions[1].points);
            QCOMPARE(back[2].outline.size(), std::size_t(1));
            QVERIFY(back[2].outline[0].outer == doc.regions[2].outline[0].outer);
        }
        // The centre's map and WGS 84 coordinates as measurements (QuPath, QGIS attributes).
        bool sawLon = false;
        for (const Json& m : pixel["features"][0]["properties"]["measurements"])
            if (m["name"] == "Longitude WGS 84 (deg)") {
                sawLon = true;
                QCOMPARE(m["value"].get<double>(), g.pixelToLonLat(2, 2.5)->lon);
            }
        QVERIFY(sawLon);
        // CSV: the base columns, then map_x, map_y, lon, lat of the centre.
        const auto rows = parseCsv(regionCsvText(doc));
        std::vector<std::string> columns = regionCsvColumns();
        columns.insert(columns.end(), {"map_x", "map_y", "lon", "lat"});
        QVERIFY(rows[0] == columns);
        const std::size_t n = columns.size();
        QCOMPARE(rows.size(), std::size_t(4));
        QCOMPARE(rows[1][n - 4], std::string("500075")); // box centre (2, 2.5): P 2.5 -> 500000 + 75
        QCOMPARE(rows[1][n - 3], std::string("4999910")); // L 3 -> 5000000 - 90
        QCOMPARE(std::stod(rows[1][n - 2]), g.pixelToLonLat(2, 2.5)->lon);
        QCOMPARE(std::stod(rows[1][n - 1]), g.pixelToLonLat(2, 2.5)->lat);
        for (const auto& row : rows) QCOMPARE(row.size(), n);
        // The CLI: brightest --regions with --geojson-crs.
        const QString out = folder("exports") + "/b.geojson";
        const test::CliResult r = test::runCli({"brightest", path, "--k", "1", "--regions", out, "--geojson-crs", "wgs84"});
        QCOMPARE(r.exitCode, 0);
        const Json written = Json::parse(readBytes(out).toStdString());
        QCOMPARE(written["crs"]["properties"]["name"].get<std::string>(), std::string("urn:ogc:def:crs:OGC:1.3:CRS84"));
        QVERIFY(std::abs(written["features"][0]["geometry"]["coordinates"][0][0][0].get<double>() - 15.0) < 0.01);
        QCOMPARE(test::runCli({"brightest", path, "--regions", out, "--geojson-crs", "utm"}).exitCode, 2);
#endif
    }

    // Damaged or hostile side files: the image opens, without georeferencing (or without CRS), nothing
    // is printed, nothing hangs.
    void hostileSideFiles_data() {
        QTest::addColumn<QByteArray>("world");
        QTest::addColumn<QByteArray>("prj");
        QTest::addColumn<bool>("georeferenced");
        QTest::addColumn<bool>("withCrs");
        QTest::newRow("text") << QByteArray("this is not\na world file\n") << QByteArray() << false << false;
        QTest::newRow("binary") << QByteArray("\x00\xff\x10\x80garbage\x00\x01", 14) << QByteArray() << false << false;
        QTest::newRow("zeros") << worldFile(0, 0, 0, 0, 0, 0) << QByteArray() << false << false;
        QTest::newRow("zero pixel size") << worldFile(0, 0, 0, -1, 5, 5) << QByteArray() << false << false;
        QTest::newRow("nan") << QByteArray("nan\n0\n0\n-1\n0\n0\n") << QByteArray() << false << false;
        QTest::newRow("three lines") << QByteArray("1\n0\n0\n") << QByteArray() << false << false;
        QTest::newRow("huge") << QByteArray(1 << 20, '1') << QByteArray() << false << false;
        QTest::newRow("garbage prj") << worldFile(1, 0, 0, -1, 0, 0) << QByteArray("PROJCS[\"x\",GEOGCS[") << true << false;
        QTest::newRow("prj naming a file") << worldFile(1, 0, 0, -1, 0, 0) << QByteArray("/etc/passwd") << true << false;
        QTest::newRow("prj with NUL") << worldFile(1, 0, 0, -1, 0, 0) << QByteArray("EPSG:4326\0junk", 14) << true << false;
        QTest::newRow("good") << worldFile(1, 0, 0, -1, 0, 0) << QByteArray("EPSG:32633") << true << true;
    }
    void hostileSideFiles() {
        SKIP_WITHOUT_GDAL();
        QFETCH(QByteArray, world);
        QFETCH(QByteArray, prj);
        QFETCH(bool, georeferenced);
        QFETCH(bool, withCrs);
        const QString dir = folder(QString("hostile-%1").arg(QTest::currentDataTag()).replace(' ', '-'));
        const QString png = pngWithWorldFile(dir, "h", 3, 3, world, prj);
        const Image img = loadImage(png.toStdString());
        QCOMPARE(img.width(), 3);
        QCOMPARE(img.meta.georef != nullptr, georeferenced);
        if (img.meta.georef) QCOMPARE(img.meta.georef->hasCrs(), withCrs);
        const test::CliResult r = test::runCli({"info", png, "--json", "-"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.isEmpty(), r.err.constData()); // GDAL's complaints stay inside
        QCOMPARE(QJsonDocument::fromJson(r.out).object().contains("georef"), georeferenced);
    }

    void fifoAndFolderSideFilesAreIgnored() {
        SKIP_WITHOUT_GDAL();
        const QString dir = folder("fifo");
        writeBytes(dir + "/f.png", pngBytes(3, 3));
        // A FIFO without a writer as the world file and a folder as the .prj: opening either would block or
        // fail inside GDAL; they are not side files.
        QCOMPARE(::mkfifo((dir + "/f.pgw").toUtf8().constData(), 0600), 0);
        QVERIFY(QDir().mkpath(dir + "/f.prj"));
        const Image img = loadImage((dir + "/f.png").toStdString());
        QVERIFY(!img.meta.georef);
        // With a world file of its own, the folder named .prj only means no CRS.
        writeBytes(dir + "/g.png", pngBytes(3, 3));
        writeBytes(dir + "/g.wld", worldFile(1, 0, 0, -1, 0, 0));
        QVERIFY(QDir().mkpath(dir + "/g.prj"));
        const Image g = loadImage((dir + "/g.png").toStdString());
        QVERIFY(g.meta.georef);
        QVERIFY(!g.meta.georef->hasCrs());
    }

    // A GeoTIFF whose CRS code is not in the EPSG registry: no crash, no message; the geotransform stays,
    // the CRS is what GDAL makes of the keys (no longitude/latitude from it).
    void geoTiffWithBogusCrs() {
        SKIP_WITHOUT_GDAL();
#if GLINT_WITH_GDAL
        const QString dir = folder("bogus");
        const QString path = writeGeoTiff(dir + "/b.tif", kUtmTransform, "EPSG:32633");
        QByteArray bytes = readBytes(path);
        // ProjectedCSTypeGeoKey (3072), stored in the directory itself (location 0), count 1, value 32633.
        const char key[8] = {'\x00', '\x0c', '\x00', '\x00', '\x01', '\x00', '\x79', '\x7f'};
        const qsizetype at = bytes.indexOf(QByteArray(key, 8));
        QVERIFY(at > 0);
        bytes[at + 6] = '\x39'; // 12345 = 0x3039: no such EPSG CRS
        bytes[at + 7] = '\x30';
        writeBytes(path, bytes);
        const Image img = loadImage(path.toStdString());
        QVERIFY(img.meta.georef);
        QVERIFY(img.meta.georef->geoTransform() == kUtmTransform);
        QVERIFY(img.meta.georef->epsg() != 12345);
        QVERIFY(!img.meta.georef->hasLonLat());
        const test::CliResult r = test::runCli({"info", path, "--json", "-"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.isEmpty(), r.err.constData());
        QVERIFY(QJsonDocument::fromJson(r.out).object().contains("georef"));
        // Damaged GeoKey directory: the count of keys far beyond the tag.
        const char header[8] = {'\x01', '\x00', '\x01', '\x00', '\x00', '\x00', '\x00', '\x00'};
        const qsizetype dirAt = bytes.indexOf(QByteArray(header, 6));
        if (dirAt > 0) {
            bytes[dirAt + 6] = '\xff';
            bytes[dirAt + 7] = '\x7f';
            writeBytes(path, bytes);
            const Image damaged = loadImage(path.toStdString());
            QCOMPARE(damaged.width(), 6);
            const test::CliResult d = test::runCli({"info", path, "--json", "-"});
            QCOMPARE(d.exitCode, 0);
            QVERIFY2(d.err.isEmpty(), d.err.constData());
        }
#endif
    }

    // Loading from several threads at once (the batch command does): each gets the same answer.
    void threadSafe() {
        SKIP_WITHOUT_GDAL();
        const QString png =
            pngWithWorldFile(folder("threads"), "t", 8, 8, worldFile(30, 0, 0, -30, 500015, 4999985), "EPSG:32633");
        const auto g = Georef::fromFile(png.toStdString());
        QVERIFY(g && g->hasLonLat());
        const LonLat expected = *g->pixelToLonLat(3, 3);
        std::atomic<int> bad{0};
        std::vector<std::thread> threads;
        for (int t = 0; t < 4; ++t)
            threads.emplace_back([&] {
                for (int i = 0; i < 20; ++i) {
                    const auto mine = Georef::fromFile(png.toStdString());
                    const auto a = mine ? mine->pixelToLonLat(3, 3) : std::nullopt;
                    const auto b = g->pixelToLonLat(3, 3);
                    if (!a || !b || a->lon != expected.lon || b->lat != expected.lat) ++bad;
                }
            });
        for (auto& t : threads) t.join();
        QCOMPARE(bad.load(), 0);
    }
};

QTEST_GUILESS_MAIN(TestGeoref)
#include "test_georef.moc"
