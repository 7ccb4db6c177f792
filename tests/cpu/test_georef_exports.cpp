// Georeferenced region exports (core/export): GeoJSON in pixels, in the image's CRS and in WGS 84, read back
// the same, CSV with map and longitude/latitude columns, the CLI's --geojson-crs; an image with a world file
// but no .prj (map coordinates, no WGS 84) and a plain image (exports as before).
#include "tests/cpu/test_georef_support.h"
#include "tests/support/TestSupport.h"

#include "core/export/CsvTable.h"
#include "core/export/ExportRegions.h"
#include "core/export/GeoJsonRegions.h"
#include "core/export/JsonOutput.h"
#include "core/export/RegionCsv.h"
#include "core/io/Georef.h"
#include "core/io/ImageLoader.h"
#include "core/util/Errors.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

using namespace glint;
using namespace glint::test::geofiles;

namespace {

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

class TestGeorefExports : public QObject {
    Q_OBJECT

private slots:
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
        QCOMPARE(rows[0][rows[0].size() - 3], std::string("lat"));
        QCOMPARE(rows[0].back(), std::string("map_length_unit"));
        QCOMPARE(rows[1][rows[1].size() - 6], std::string("12.5")); // centre x of the box: 2 -> 10 + 2.5
        QCOMPARE(rows[1][rows[1].size() - 3], std::string()); // no lat without a CRS
        QCOMPARE(rows[1].back(), std::string()); // a box has no length
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
        // CSV: the base columns, then map_x, map_y, lon, lat of the centre and a trace's length on the map.
        const auto rows = parseCsv(regionCsvText(doc));
        std::vector<std::string> columns = regionCsvColumns();
        columns.insert(columns.end(), {"map_x", "map_y", "lon", "lat", "map_length", "map_length_unit"});
        QVERIFY(rows[0] == columns);
        const std::size_t n = columns.size() - 2;
        QCOMPARE(rows.size(), std::size_t(4));
        QCOMPARE(rows[1][n - 4], std::string("500075")); // box centre (2, 2.5): P 2.5 -> 500000 + 75
        QCOMPARE(rows[1][n - 3], std::string("4999910")); // L 3 -> 5000000 - 90
        QCOMPARE(std::stod(rows[1][n - 2]), g.pixelToLonLat(2, 2.5)->lon);
        QCOMPARE(std::stod(rows[1][n - 1]), g.pixelToLonLat(2, 2.5)->lat);
        for (const auto& row : rows) QCOMPARE(row.size(), columns.size());
        // The trace's length on the map: 30 m pixels, (0,0) -> (2,1) -> (4,3).
        QCOMPARE(rows[2][0], std::string("trace"));
        QVERIFY(std::abs(std::stod(rows[2][n]) - 30.0 * (std::sqrt(5.0) + std::sqrt(8.0))) < 1e-9);
        QCOMPARE(rows[2][n + 1], std::string("metre"));
        QVERIFY(rows[1][n].empty() && rows[1][n + 1].empty()); // a box has none
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
};

QTEST_GUILESS_MAIN(TestGeorefExports)
#include "test_georef_exports.moc"
