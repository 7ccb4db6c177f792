// Issue 32's GIS outputs: a trace network written as GeoPackage, Shapefile and GeoJSON through OGR, read back
// with OGR here: the CRS is the image's, each line's vertices are the trace's in map coordinates, and the
// stored length agrees with OGR's own geometry length (projected CRS) or PROJ's geodesic (geographic CRS,
// geod_inverse, Karney's algorithm) within 0.1 % (it agrees to ~1e-9). glint-cli trace --network writes the
// same from a real trace on a GeoTIFF; bad extensions, broken geometry and unwritable targets are refused
// with one line and leave no file. The files of the CLI run are kept under $GLINT_BUILD_DIR/network-files for
// the ogrinfo check that follows (tests/CMakeLists.txt: ogrinfo_network).
#include "test_georef_support.h"

#include "core/export/TraceNetwork.h"
#include "core/io/Georef.h"
#include "core/util/Errors.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <cmath>

#if GLINT_WITH_GDAL
#include <geodesic.h>
#include <ogr_api.h>
#include <ogr_srs_api.h>
#endif

using namespace glint;
using namespace glint::test::geofiles;

namespace {

#if GLINT_WITH_GDAL
struct ReadFeature {
    std::vector<std::array<double, 2>> line;
    double ogrLength = 0.0;
    double length = 0.0;
    QString unit, frame;
    long long id = 0, legs = 0;
    bool widthNull = true;
    double width = 0.0, confidence = 0.0, lengthPx = 0.0;
};
struct ReadLayer {
    bool opened = false;
    bool hasCrs = false;
    bool sameCrs = false; // as the expected CRS
    std::vector<ReadFeature> features;
};

ReadLayer readLayer(const QString& path, const char* expectedCrs) {
    registerGdal();
    ReadLayer out;
    GDALDatasetH ds = GDALOpenEx(path.toUtf8().constData(), GDAL_OF_VECTOR | GDAL_OF_READONLY, nullptr, nullptr, nullptr);
    if (!ds) return out;
    out.opened = true;
    OGRLayerH layer = GDALDatasetGetLayer(ds, 0);
    OGRSpatialReferenceH srs = OGR_L_GetSpatialRef(layer);
    // A GeoPackage without a CRS holds GeoPackage's "Undefined cartesian SRS" (srs_id -1), which OGR returns.
    const QString srsName = srs ? QString::fromUtf8(OSRGetName(srs)) : QString();
    out.hasCrs = srs != nullptr && !srsName.startsWith("Undefined");
    if (srs && expectedCrs) {
        OGRSpatialReference want;
        want.SetFromUserInput(expectedCrs);
        const char* const options[] = {"IGNORE_DATA_AXIS_TO_SRS_AXIS_MAPPING=YES",
                                       "CRITERION=EQUIVALENT_EXCEPT_AXIS_ORDER_GEOGCRS", nullptr};
        out.sameCrs = OGRSpatialReference::FromHandle(srs)->IsSame(&want, options) != 0;
    }
    OGR_L_ResetReading(layer);
    while (OGRFeatureH f = OGR_L_GetNextFeature(layer)) {
        ReadFeature r;
        OGRGeometryH g = OGR_F_GetGeometryRef(f);
        for (int i = 0; g && i < OGR_G_GetPointCount(g); ++i) r.line.push_back({OGR_G_GetX(g, i), OGR_G_GetY(g, i)});
        r.ogrLength = g ? OGR_G_Length(g) : 0.0;
        auto field = [&](const char* name) { return OGR_F_GetFieldIndex(f, name); };
        r.id = OGR_F_GetFieldAsInteger64(f, field("id"));
        r.legs = OGR_F_GetFieldAsInteger64(f, field("legs"));
        r.length = OGR_F_GetFieldAsDouble(f, field("length"));
        r.lengthPx = OGR_F_GetFieldAsDouble(f, field("length_px"));
        r.unit = QString::fromUtf8(OGR_F_GetFieldAsString(f, field("len_unit")));
        r.frame = QString::fromUtf8(OGR_F_GetFieldAsString(f, field("frame")));
        r.widthNull = !OGR_F_IsFieldSetAndNotNull(f, field("width"));
        r.width = OGR_F_GetFieldAsDouble(f, field("width"));
        r.confidence = OGR_F_GetFieldAsDouble(f, field("confidence"));
        out.features.push_back(r);
        OGR_F_Destroy(f);
    }
    GDALClose(ds);
    return out;
}

// Karney's geodesic (PROJ) along a lon/lat line on WGS 84.
double geodesicLength(const std::vector<std::array<double, 2>>& line) {
    geod_geodesic g;
    geod_init(&g, 6378137.0, 1.0 / 298.257223563);
    double total = 0.0;
    for (std::size_t i = 1; i < line.size(); ++i) {
        double s12 = 0, azi1 = 0, azi2 = 0;
        geod_inverse(&g, line[i - 1][1], line[i - 1][0], line[i][1], line[i][0], &s12, &azi1, &azi2);
        total += s12;
    }
    return total;
}

// A w x h GeoTIFF, dark with a bright 5-px road from (20, 30) to (w - 20, h - 30).
QString writeRoadGeoTiff(const QString& path, const std::array<double, 6>& gt, const char* crs, int w, int h) {
    registerGdal();
    GDALDatasetH ds = GDALCreate(GDALGetDriverByName("GTiff"), path.toUtf8().constData(), w, h, 1, GDT_Byte, nullptr);
    if (!ds) return {};
    std::array<double, 6> t = gt;
    GDALSetGeoTransform(ds, t.data());
    OGRSpatialReference srs;
    srs.SetFromUserInput(crs);
    GDALSetSpatialRef(ds, OGRSpatialReference::ToHandle(&srs));
    std::vector<unsigned char> v(static_cast<std::size_t>(w) * h);
    const double x0 = 20, y0 = 30, x1 = w - 20, y1 = h - 30;
    const double len = std::hypot(x1 - x0, y1 - y0);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const double d = std::abs((x - x0) * (y1 - y0) - (y - y0) * (x1 - x0)) / len;
            v[static_cast<std::size_t>(y) * w + x] = static_cast<unsigned char>(d <= 2.5 ? 200 : 30 + (x * 7 + y * 13) % 11);
        }
    const CPLErr err = GDALRasterIO(GDALGetRasterBand(ds, 1), GF_Write, 0, 0, w, h, v.data(), w, h, GDT_Byte, 0, 0);
    GDALClose(ds);
    return err == CE_None ? path : QString();
}
#endif

const std::vector<NetworkTrace> kTraces = [] {
    NetworkTrace a;
    a.id = 1;
    a.points = {{0, 0}, {40.5, 12.25}, {80, 60}, {120.75, 61}};
    a.minConfidence = 0.42;
    a.legs = 2;
    a.meanWidthPx = 4.0;
    NetworkTrace b;
    b.id = 2;
    b.points = {{80, 60}, {10, 95.5}};
    b.minConfidence = 0.9;
    return std::vector<NetworkTrace>{a, b};
}();

} // namespace

class TestGeorefNetwork : public QObject {
    Q_OBJECT

private slots:
#if GLINT_WITH_GDAL
    void formats_data() {
        QTest::addColumn<QString>("name");
        QTest::newRow("GeoPackage") << "net.gpkg";
        QTest::newRow("Shapefile") << "net.shp";
        QTest::newRow("GeoJSON") << "net.geojson";
    }

    // UTM 33N, 2 m pixels, a little rotation: OGR's planar length of the stored line is the stored length.
    void formats() {
        SKIP_WITHOUT_GDAL();
        QFETCH(QString, name);
        const auto georef = Georef::create({500000.0, 2.0, 0.1, 5000000.0, 0.05, -2.0}, "EPSG:32633");
        QVERIFY(georef && georef->hasCrs());
        const QString dir = folder("utm-" + name);
        const QString path = dir + "/" + name;
        writeTraceNetwork(path.toStdString(), kTraces, georef.get());
        const ReadLayer layer = readLayer(path, "EPSG:32633");
        QVERIFY2(layer.opened, qPrintable(path));
        QVERIFY(layer.hasCrs);
        QVERIFY(layer.sameCrs);
        QCOMPARE(layer.features.size(), kTraces.size());
        for (std::size_t i = 0; i < kTraces.size(); ++i) {
            const ReadFeature& f = layer.features[i];
            const NetworkTrace& t = kTraces[i];
            QCOMPARE(f.id, static_cast<long long>(t.id));
            QCOMPARE(f.line.size(), t.points.size());
            for (std::size_t k = 0; k < t.points.size(); ++k) {
                const MapPoint m = georef->pixelToMap(t.points[k].first, t.points[k].second);
                QVERIFY(std::abs(f.line[k][0] - m.x) < 1e-6 && std::abs(f.line[k][1] - m.y) < 1e-6);
            }
            QCOMPARE(f.unit, QString("metre"));
            QCOMPARE(f.frame, QString("map"));
            const double rel = std::abs(f.length - f.ogrLength) / f.ogrLength;
            qInfo("%s trace %d: stored %.6f m, OGR_G_Length %.6f m, relative difference %.2e", qPrintable(name), t.id,
                  f.length, f.ogrLength, rel);
            QVERIFY(rel < 1e-3);
            QVERIFY(rel < 1e-9);
            QCOMPARE(f.confidence, t.minConfidence);
            QCOMPARE(f.widthNull, !t.meanWidthPx.has_value());
            if (t.meanWidthPx) QVERIFY(std::abs(f.width - *t.meanWidthPx * f.length / f.lengthPx) < 1e-9);
        }
        // No temporary is left beside the files.
        for (const QString& entry : QDir(dir).entryList(QDir::Files | QDir::Hidden))
            QVERIFY2(!entry.contains("tmp") && !entry.startsWith('.'), qPrintable(entry));
        if (name.endsWith(".shp"))
            for (const char* ext : {".shx", ".dbf", ".prj"}) QVERIFY(QFile::exists(dir + "/net" + ext));
    }

    // WGS 84, degrees: the stored length is the geodesic on the ellipsoid, checked against PROJ's.
    void geographicLength() {
        SKIP_WITHOUT_GDAL();
        const auto georef = Georef::create({10.0, 0.01, 0.0, 60.0, 0.0, -0.01}, "EPSG:4326");
        QVERIFY(georef && georef->isGeographic());
        QCOMPARE(georef->semiMajor(), 6378137.0);
        for (const QString name : {"geo.gpkg", "geo.shp", "geo.geojson"}) {
            const QString path = folder("wgs84") + "/" + name;
            writeTraceNetwork(path.toStdString(), kTraces, georef.get());
            const ReadLayer layer = readLayer(path, "EPSG:4326");
            QVERIFY(layer.opened && layer.sameCrs);
            for (const ReadFeature& f : layer.features) {
                QCOMPARE(f.unit, QString("metre"));
                const double proj = geodesicLength(f.line);
                const double rel = std::abs(f.length - proj) / proj;
                qInfo("%s trace %lld: stored %.4f m, PROJ geod_inverse %.4f m, relative difference %.2e", qPrintable(name),
                      f.id, f.length, proj, rel);
                QVERIFY(rel < 1e-3);
                QVERIFY(rel < 1e-7);
            }
        }
    }

    // No georeferencing: pixel coordinates, no CRS, and the frame field says so.
    void pixelFrame() {
        SKIP_WITHOUT_GDAL();
        const QString path = folder("pixel") + "/p.gpkg";
        writeTraceNetwork(path.toStdString(), kTraces, nullptr);
        const ReadLayer layer = readLayer(path, nullptr);
        QVERIFY(layer.opened);
        QVERIFY(!layer.hasCrs);
        QCOMPARE(layer.features.size(), std::size_t(2));
        QCOMPARE(layer.features[0].frame, QString("pixel"));
        QCOMPARE(layer.features[0].unit, QString("pixel"));
        QCOMPARE(layer.features[0].line[1][0], 40.5);
        QCOMPARE(layer.features[0].line[1][1], 12.25);
        QVERIFY(std::abs(layer.features[0].length - layer.features[0].ogrLength) < 1e-9);
    }

    void badInput() {
        SKIP_WITHOUT_GDAL();
        const QString dir = folder("bad");
        QVERIFY_THROWS_EXCEPTION(UsageError, networkFormatForPath((dir + "/n.kml").toStdString()));
        NetworkTrace broken;
        broken.id = 7;
        broken.points = {{1, 1}};
        std::vector<NetworkTrace> traces = kTraces;
        traces.push_back(broken);
        QVERIFY_THROWS_EXCEPTION(InputError, writeTraceNetwork((dir + "/n.gpkg").toStdString(), traces, nullptr));
        traces.back().points = {{1, 1}, {std::nan(""), 2}};
        QVERIFY_THROWS_EXCEPTION(InputError, writeTraceNetwork((dir + "/n.shp").toStdString(), traces, nullptr));
        QVERIFY(QDir(dir).entryList(QDir::Files | QDir::Hidden).isEmpty());
        // A folder that does not exist: OutputError, nothing written.
        QVERIFY_THROWS_EXCEPTION(OutputError, writeTraceNetwork((dir + "/no/such/n.shp").toStdString(), kTraces, nullptr));
    }

    // glint-cli trace --network on a GeoTIFF: a real trace, the three formats, and the refusals.
    void cli() {
        SKIP_WITHOUT_GDAL();
        const QString dir = folder("cli");
        const std::array<double, 6> gt = {400000.0, 0.5, 0.0, 5500000.0, 0.0, -0.5};
        const QString tif = writeRoadGeoTiff(dir + "/road.tif", gt, "EPSG:32633", 240, 160);
        QVERIFY(!tif.isEmpty());
        // Kept for ogrinfo (tests/CMakeLists.txt: ogrinfo_network).
        const QString keep = qEnvironmentVariable("GLINT_BUILD_DIR", test::tempDir()) + "/network-files";
        QDir(keep).removeRecursively();
        QDir().mkpath(keep);
        const QString json = dir + "/t.json";
        const test::CliResult r = test::runCli({"trace", tif, "--from", "20,30", "--to", "220,130", "--via", "120,80",
                                                "--json", json, "--network", keep + "/roads.gpkg"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        // The JSON gives the length on the map too.
        QFile jsonFile(json);
        QVERIFY(jsonFile.open(QIODevice::ReadOnly));
        const QJsonObject doc = QJsonDocument::fromJson(jsonFile.readAll()).object();
        QCOMPARE(doc["map_length_unit"].toString(), QString("metre"));
        const double jsonLength = doc["map_length"].toDouble();
        for (const QString name : {"roads.shp", "roads.geojson"}) {
            const test::CliResult s = test::runCli({"trace", tif, "--from", "20,30", "--to", "220,130", "--via", "120,80",
                                                    "--network", keep + "/" + name});
            QVERIFY2(s.exitCode == 0, s.err.constData());
        }
        for (const QString name : {"roads.gpkg", "roads.shp", "roads.geojson"}) {
            const ReadLayer layer = readLayer(keep + "/" + name, "EPSG:32633");
            QVERIFY2(layer.opened, qPrintable(name));
            QVERIFY(layer.sameCrs);
            QCOMPARE(layer.features.size(), std::size_t(1));
            const ReadFeature& f = layer.features[0];
            QCOMPARE(f.legs, 2LL);
            QVERIFY(f.line.size() > 3);
            // The road runs from map (400010.25, 5499984.75) to (400110.25, 5499934.75): ~111.8 m.
            QVERIFY(std::abs(f.line.front()[0] - 400010.25) < 1.5 && std::abs(f.line.front()[1] - 5499984.75) < 1.5);
            QVERIFY2(std::abs(f.length - 111.8) < 3.0, qPrintable(QString::number(f.length)));
            QVERIFY(std::abs(f.length - f.ogrLength) / f.ogrLength < 1e-3);
            QVERIFY(std::abs(f.lengthPx * 0.5 - f.length) < 1e-6);
            QVERIFY(std::abs(f.length - jsonLength) < 1e-9);
            QVERIFY(f.confidence > 0.0 && f.confidence <= 1.0);
        }
        // Refusals: a bad extension (2) before any work; an output in a folder that does not exist (3) and
        // nothing written of the other outputs.
        const test::CliResult bad = test::runCli({"trace", tif, "--from", "20,30", "--to", "220,130", "--network", dir + "/n.kml"});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY(test::oneErrorLine(bad.err));
        QVERIFY(bad.err.contains(".gpkg"));
        const test::CliResult missing = test::runCli({"trace", tif, "--from", "20,30", "--to", "220,130", "--json",
                                                      dir + "/m.json", "--network", dir + "/none/n.shp"});
        QCOMPARE(missing.exitCode, 3);
        QVERIFY(test::oneErrorLine(missing.err));
        QVERIFY(!QFile::exists(dir + "/m.json"));
        // A Shapefile onto a device (its sidecars would go beside it): refused.
        const test::CliResult device = test::runCli({"trace", tif, "--from", "20,30", "--to", "220,130", "--network", "/dev/null"});
        QCOMPARE(device.exitCode, 2);
    }
#endif
};

QTEST_GUILESS_MAIN(TestGeorefNetwork)
#include "test_georef_network.moc"
