// Region exports: mask outlines (pixels back from the polygons), DS9 / GeoJSON / CSV written and read back,
// a golden DS9 file for known results, DS9's own syntax, fk5 geometry on an analytic sky, brightest --regions.
#include "tests/support/TestSupport.h"

#include "cuda/Backends.h"
#include "core/algo/brightest/Brightest.h"
#include "core/algo/commoncomponent/CommonComponent.h"
#include "core/algo/trace/LineTrace.h"
#include "core/export/CsvTable.h"
#include "core/export/Ds9Regions.h"
#include "core/export/ExportRegions.h"
#include "core/export/GeoJsonRegions.h"
#include "core/export/JsonOutput.h"
#include "core/export/MaskPng.h"
#include "core/export/RegionCsv.h"
#include "core/io/ImageLoader.h"
#include "core/io/ImageStats.h"
#include "core/util/Errors.h"

#include <QDir>
#include <QFile>
#include <QtTest>

#include <cmath>
#include <random>

using namespace glint;

namespace {

// Pixels whose centre lies inside the polygons (even-odd over every ring).
std::vector<std::uint8_t> rasterize(const std::vector<MaskPolygon>& polygons, int w, int h) {
    std::vector<std::uint8_t> mask(static_cast<std::size_t>(w) * h, 0);
    auto flip = [&](const CornerRing& ring, double px, double py, bool& inside) {
        for (std::size_t i = 0, j = ring.size() - 1; i < ring.size(); j = i++) {
            const double xi = ring[i].x, yi = ring[i].y, xj = ring[j].x, yj = ring[j].y;
            if ((yi > py) != (yj > py) && px < (xj - xi) * (py - yi) / (yj - yi) + xi) inside = !inside;
        }
    };
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            bool inside = false;
            for (const auto& p : polygons) {
                flip(p.outer, x + 0.5, y + 0.5, inside);
                for (const auto& hole : p.holes) flip(hole, x + 0.5, y + 0.5, inside);
            }
            mask[static_cast<std::size_t>(y) * w + x] = inside;
        }
    return mask;
}

std::vector<std::uint8_t> maskFrom(const char* rows, int& w, int& h) {
    std::vector<std::uint8_t> mask;
    w = 0;
    h = 0;
    int x = 0;
    for (const char* p = rows; *p; ++p) {
        if (*p == '/') {
            w = x;
            x = 0;
            ++h;
            continue;
        }
        mask.push_back(*p == '#');
        ++x;
    }
    if (x) {
        w = x;
        ++h;
    }
    return mask;
}

// A document holding every kind of region, with awkward values: exact sums beyond 2^53, non-integer
// trace points, a component with a hole and a part touching another at a corner only.
RegionDocument mixedDocument() {
    RegionDocument doc;
    doc.imagePath = "/data/some image, \"quoted\".fits";
    doc.imageWidth = 64;
    doc.imageHeight = 48;
    doc.description = "mixed";
    BrightestResult b;
    b.pivot = 0.25;
    b.exactInteger = true;
    b.regions = {{1, 3, 4, 10, 7, 9007199254740993.0, 9007199254740993LL, true}, {2, 20, 30, 1, 1, 5, 5, true}};
    doc.regions = regionsFromBrightest(b);
    TraceResult t;
    TraceLeg leg;
    leg.points = {{1.25, 2.5}, {10.0 / 3.0, 7.125}, {20.75, 11.0}, {40.1, 3.3}};
    t.legs = {leg};
    t.score = 12.345678901234;
    doc.regions.push_back(regionFromTrace(t, 1));
    CommonComponentResult c;
    c.found = true;
    c.dx = -2;
    c.dy = 3;
    int w = 0, h = 0;
    c.mask = maskFrom("......../.####.../.#..#.../.####.../.....#../......#./", w, h);
    c.maskWidth = w;
    c.maskHeight = h;
    c.size = 12;
    c.bboxX = 1;
    c.bboxY = 1;
    c.bboxWidth = 6;
    c.bboxHeight = 5;
    for (auto& r : regionsFromCommon(c, 0.5)) doc.regions.push_back(r);
    return doc;
}

void compareRegions(const std::vector<ExportRegion>& got, const std::vector<ExportRegion>& want, bool values) {
    QCOMPARE(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
        const ExportRegion &g = got[i], &e = want[i];
        QCOMPARE(regionKindName(g.kind), regionKindName(e.kind));
        QCOMPARE(g.rank, e.rank);
        QCOMPARE(g.label, e.label);
        QCOMPARE(g.colour, e.colour);
        QCOMPARE(g.x, e.x);
        QCOMPARE(g.y, e.y);
        QCOMPARE(g.width, e.width);
        QCOMPARE(g.height, e.height);
        QCOMPARE(g.points.size(), e.points.size());
        for (std::size_t k = 0; k < g.points.size(); ++k) {
            // +1 (DS9) or +0.5 (GeoJSON) and back may move the last bit.
            QVERIFY(std::fabs(g.points[k].first - e.points[k].first) < 1e-12);
            QVERIFY(std::fabs(g.points[k].second - e.points[k].second) < 1e-12);
        }
        QCOMPARE(g.outline.size(), e.outline.size());
        for (std::size_t k = 0; k < g.outline.size(); ++k) {
            QVERIFY(g.outline[k].outer == e.outline[k].outer);
            QVERIFY(g.outline[k].holes == e.outline[k].holes);
        }
        if (!values) continue;
        QCOMPARE(g.values.size(), e.values.size());
        for (std::size_t k = 0; k < g.values.size(); ++k) {
            QCOMPARE(g.values[k].name, e.values[k].name);
            QCOMPARE(g.values[k].value, e.values[k].value);
            QCOMPARE(g.values[k].exact.has_value(), e.values[k].exact.has_value());
            if (g.values[k].exact) QCOMPARE(*g.values[k].exact, *e.values[k].exact);
        }
    }
}

// A plain sky: north at `rotation` degrees counter-clockwise from +y, `scale` arcsec per pixel, east to
// the left of north as on the sky. Linear in pixels, so sizes and angles are known exactly.
PixelToSky linearSky(double rotationDeg, double scaleArcsec) {
    return [=](double x, double y) -> std::optional<SkyCoord> {
        const double t = rotationDeg * M_PI / 180, dx = x - 100, dy = y - 100;
        const double north = scaleArcsec * (-std::sin(t) * dx + std::cos(t) * dy);
        const double east = scaleArcsec * (-std::cos(t) * dx - std::sin(t) * dy);
        const double dec0 = 30.0;
        return SkyCoord{120.0 + east / 3600.0 / std::cos(dec0 * M_PI / 180), dec0 + north / 3600.0};
    };
}

} // namespace

class TestExportRegions : public QObject {
    Q_OBJECT

private slots:
    void outlineShapes_data() {
        // corners: of the first outer ring
        test::columns<QString, int, int, int>({"rows", "parts", "holes", "corners"});
        QTest::newRow("one pixel") << "#" << 1 << 0 << 4;
        QTest::newRow("square") << "##/##" << 1 << 0 << 4;
        QTest::newRow("L") << "#./#./##" << 1 << 0 << 6;
        QTest::newRow("ring") << "###/#.#/###" << 1 << 1 << 4;
        QTest::newRow("diagonal pixels are apart") << "#./.#" << 2 << 0 << 4;
        QTest::newRow("diagonal inside a hole") << "#####/#...#/#.#.#/#...#/#####" << 2 << 1 << 4;
        QTest::newRow("saddle on a ring") << "###./#.##/####/..#." << 1 << 1 << 10;
        QTest::newRow("empty") << "../.." << 0 << 0 << 0;
    }
    void outlineShapes() {
        QFETCH(QString, rows);
        QFETCH(int, parts);
        QFETCH(int, holes);
        QFETCH(int, corners);
        int w = 0, h = 0;
        const auto mask = maskFrom(rows.toLatin1().constData(), w, h);
        const auto polygons = traceMaskOutline(mask, w, h);
        QCOMPARE(static_cast<int>(polygons.size()), parts);
        int holeCount = 0;
        for (const auto& p : polygons) holeCount += static_cast<int>(p.holes.size());
        QCOMPARE(holeCount, holes);
        if (parts) QCOMPARE(static_cast<int>(polygons[0].outer.size()), corners);
        QVERIFY(rasterize(polygons, w, h) == mask);
        long long pixels = 0;
        for (const auto& p : polygons) pixels += polygonPixelCount(p);
        long long expected = 0;
        for (auto v : mask) expected += v;
        QCOMPARE(pixels, expected);
    }

    void outlineRandomMasks() {
        std::mt19937 rng(7);
        for (int trial = 0; trial < 300; ++trial) {
            const int w = 1 + static_cast<int>(rng() % 23), h = 1 + static_cast<int>(rng() % 17);
            std::bernoulli_distribution on(0.2 + 0.6 * (trial % 5) / 4.0);
            std::vector<std::uint8_t> mask(static_cast<std::size_t>(w) * h);
            for (auto& m : mask) m = on(rng);
            const auto polygons = traceMaskOutline(mask, w, h);
            QVERIFY2(rasterize(polygons, w, h) == mask, qPrintable(QString("trial %1 (%2x%3)").arg(trial).arg(w).arg(h)));
            for (const auto& p : polygons) {
                QVERIFY(ringDoubleArea(p.outer) > 0);
                for (const auto& hole : p.holes) QVERIFY(ringDoubleArea(hole) < 0);
                // Only corners where the outline turns: consecutive edges change direction.
                for (std::size_t i = 0; i < p.outer.size(); ++i) {
                    const auto& a = p.outer[i];
                    const auto& b = p.outer[(i + 1) % p.outer.size()];
                    const auto& c = p.outer[(i + 2) % p.outer.size()];
                    QVERIFY((a.x == b.x) != (b.x == c.x));
                }
            }
        }
    }

    // A region ranked by its contrast (a mammogram's finding, --rank contrast) is labelled by its contrast, as the
    // window and the CLI's overlay label it; a trace carries its width along the path as line_width.
    void contrastLabelAndLineWidth() {
        BrightestResult b;
        b.regions = {{1, 3, 4, 10, 7, 1234.5, 0, false}};
        b.regions[0].measured = true;
        b.regions[0].contrast = 7.25;
        const std::vector<ExportRegion> regions = regionsFromBrightest(b);
        QCOMPARE(regions.at(0).label, std::string("#1 contrast=7.2")); // one decimal, as the window shows it
        b.regions[0].contrast = NAN;
        QCOMPARE(regionsFromBrightest(b).at(0).label, std::string("#1 sum=1234.5"));
        TraceResult t;
        TraceLeg leg;
        leg.points = {{1, 2}, {10, 2}};
        t.legs = {leg};
        QVERIFY(!regionFromTrace(t, 1).value("line_width"));
        const ExportRegion withWidth = regionFromTrace(t, 1, {}, {}, 4.5);
        QVERIFY(withWidth.value("line_width") && withWidth.value("line_width")->value == 4.5);
    }

    void ds9RoundTrip() {
        const RegionDocument doc = mixedDocument();
        const std::string text = ds9RegionText(doc, false);
        QVERIFY(text.rfind("# Region file format: DS9 version 4.0\n", 0) == 0);
        QVERIFY(text.find("\nglobal ") != std::string::npos);
        QVERIFY(text.find("\nimage\n") != std::string::npos);
        // Exact integer sums stay exact in the label.
        QVERIFY(text.find("text={#1 sum=9007199254740993}") != std::string::npos);
        const Ds9File parsed = parseDs9Regions(text);
        QCOMPARE(parsed.formatLine, std::string("# Region file format: DS9 version 4.0"));
        QCOMPARE(parsed.global.at("font"), std::string("helvetica 10 normal roman"));
        QCOMPARE(parsed.global.at("dashlist"), std::string("8 3"));
        compareRegions(regionsFromDs9(parsed), doc.regions, false);
    }

    void ds9FromResults() {
        if (!GLINT_WITH_IMGCODECS) QSKIP("this build reads no PNG (GLINT_WITH_IMGCODECS=OFF)");
        // brightest --regions end to end: the file's boxes are the JSON's rectangles.
        const QString dir = test::tempDir();
        const QString reg = dir + "/cli.reg", geo = dir + "/cli.geojson", csv = dir + "/cli.csv";
        const auto r = test::runCli({"brightest", test::samplePath("aero.png"), "--k", "4", "--json", "-", "--regions",
                                     reg, "--regions", geo, "--regions", csv});
        QCOMPARE(r.exitCode, 0);
        const Json doc = Json::parse(r.out.toStdString());
        const auto fromDs9 = regionsFromDs9(parseDs9Regions(test::readFileString(reg)));
        const auto fromGeo = regionsFromGeoJson(test::readFileString(geo));
        const auto rows = parseCsv(test::readFileString(csv));
        QCOMPARE(fromDs9.size(), doc["regions"].size());
        QCOMPARE(fromGeo.size(), doc["regions"].size());
        QCOMPARE(rows.size(), doc["regions"].size() + 1);
        for (std::size_t i = 0; i < fromDs9.size(); ++i) {
            const Json& j = doc["regions"][i];
            for (const ExportRegion* g : {&fromDs9[i], &fromGeo[i]}) {
                QCOMPARE(g->rank, j["rank"].get<int>());
                QCOMPARE(g->x, j["x"].get<int>());
                QCOMPARE(g->y, j["y"].get<int>());
                QCOMPARE(g->width, j["width"].get<int>());
                QCOMPARE(g->height, j["height"].get<int>());
            }
            QCOMPARE(fromGeo[i].value("sum")->value, j["sum"].get<double>());
            QCOMPARE(rows[i + 1][3], std::to_string(j["x"].get<int>()));
            QCOMPARE(std::stod(rows[i + 1][12]), j["sum"].get<double>());
        }
        QVERIFY(QDir(dir).entryList(QDir::Hidden | QDir::Files).filter(".tmp-").isEmpty());
    }

    void ds9Golden() {
        // Known results: brightest K = 2 on a hand-checked matrix (pivot 0: the 5s, sum 20, then the 3s,
        // sum 9), the paper's common component (size 4 at dx = -1, dy = -1) and a hand-made trace.
        const Image matrix = loadImage(test::dataPath("export-brightest.csv").toStdString());
        BrightestParams params;
        params.pivot = PivotSpec::parse("0");
        params.k = 2;
        JobControl job;
        const BrightestResult bright = runBrightest(matrix, params, Backend::Reference, job);
        QCOMPARE(bright.regions.size(), std::size_t(2));

        auto letters = [](int w, int h, const char* text) {
            std::vector<std::int32_t> v;
            for (const char* p = text; *p; ++p)
                if (*p != ' ') v.push_back(*p - 'A' + 1);
            return Image::fromSamples<std::int32_t>(w, h, v);
        };
        const Image a = letters(3, 5, "AAH CMA DFT FYG EYB"), b = letters(3, 3, "MRN FTB EGB");
        JobControl job2;
        const CommonComponentResult common = findCommonComponent(a, b, {}, Backend::Reference, job2);
        QCOMPARE(common.size, std::uint64_t(4));

        TraceResult trace;
        TraceLeg leg;
        leg.points = {{0.5, 1.25}, {3.0, 2.0}, {6.75, 0.0}};
        trace.legs = {leg};
        trace.score = 42.5;

        RegionDocument doc = regionDocumentFor(matrix);
        doc.imagePath = "export-brightest.csv";
        doc.description = "golden: brightest k 2, paper common component, a trace";
        doc.regions = regionsFromBrightest(bright);
        for (auto& r : regionsFromCommon(common, 0)) doc.regions.push_back(r);
        doc.regions.push_back(regionFromTrace(trace, 1));
        const std::string text = ds9RegionText(doc, false);

        // The golden file, with the version line left out (it changes with every release).
        auto withoutVersion = [](const std::string& s) {
            std::string out;
            std::size_t pos = 0;
            while (pos < s.size()) {
                const std::size_t eol = s.find('\n', pos);
                const std::string line = s.substr(pos, eol - pos);
                if (line.rfind("# Glint ", 0) != 0) out += line + "\n";
                pos = eol == std::string::npos ? s.size() : eol + 1;
            }
            return out;
        };
        const std::string golden = test::readFileString(test::dataPath("export-golden.reg"));
        QVERIFY(!golden.empty());
        if (withoutVersion(text) != withoutVersion(golden)) {
            QFile out(QDir::tempPath() + "/export-golden.reg.new"); // kept after the test, to compare
            out.open(QIODevice::WriteOnly);
            out.write(text.data(), static_cast<qint64>(text.size()));
            QFAIL(qPrintable("DS9 text differs from tests/data/export-golden.reg; written: " + out.fileName()));
        }
    }

    void geoJson() {
        const RegionDocument doc = mixedDocument();
        const std::string text = geoJsonRegionText(doc);
        const Json j = Json::parse(text);
        QCOMPARE(j["type"].get<std::string>(), std::string("FeatureCollection"));
        QCOMPARE(j["features"].size(), doc.regions.size());
        for (const Json& f : j["features"]) {
            QCOMPARE(f["type"].get<std::string>(), std::string("Feature"));
            QCOMPARE(f["properties"]["objectType"].get<std::string>(), std::string("annotation"));
            QVERIFY(f["properties"]["classification"]["name"].is_string());
            QCOMPARE(f["properties"]["classification"]["color"].size(), std::size_t(3));
            for (const Json& m : f["properties"]["measurements"]) {
                QVERIFY(m["name"].is_string());
                QVERIFY(m["value"].is_number());
            }
        }
        // Pixel corners, origin top-left: the box (3, 4, 10 x 7) is the ring (3,4) (13,4) (13,11) (3,11).
        QCOMPARE(j["features"][0]["geometry"]["type"].get<std::string>(), std::string("Polygon"));
        QCOMPARE(j["features"][0]["geometry"]["coordinates"].dump(), std::string("[[[3,4],[13,4],[13,11],[3,11],[3,4]]]"));
        // An exact sum beyond 2^53 is written as the integer it is.
        QCOMPARE(j["features"][0]["properties"]["measurements"][1]["value"].dump(), std::string("9007199254740993"));
        // Trace points are pixel centres: x + 0.5.
        QCOMPARE(j["features"][2]["geometry"]["type"].get<std::string>(), std::string("LineString"));
        QCOMPARE(j["features"][2]["geometry"]["coordinates"][0].dump(), std::string("[1.75,3.0]"));
        // The component with a hole, and the part that touches it only at a corner: a MultiPolygon.
        QCOMPARE(j["features"][3]["geometry"]["type"].get<std::string>(), std::string("MultiPolygon"));
        QCOMPARE(j["features"][3]["geometry"]["coordinates"][0].size(), std::size_t(2));
        compareRegions(regionsFromGeoJson(text), doc.regions, true);

        QVERIFY_THROWS_EXCEPTION(InputError, regionsFromGeoJson("{\"type\": \"Feature\"}"));
        QVERIFY_THROWS_EXCEPTION(InputError, regionsFromGeoJson("{\"type\": \"FeatureCollection\", \"features\": [1"));
        QVERIFY_THROWS_EXCEPTION(InputError, regionsFromGeoJson(R"({"type": "FeatureCollection", "features": [{"type":
            "Feature", "geometry": {"type": "LineString", "coordinates": [["a", "b"], [1, 2]]}}]})"));
        QCOMPARE(Json::parse(geoJsonRegionText(RegionDocument{}))["features"].size(), std::size_t(0));
    }

    void csvColumnsAreStable() {
        // New columns may only ever be appended: scripts read these by position and by name.
        const std::vector<std::string> expected = {"kind", "rank", "label", "x", "y", "width", "height",
                                                   "center_x", "center_y", "ra", "dec", "pixels", "sum", "mean",
                                                   "score", "length", "dx", "dy", "tolerance", "points", "distinct",
                                                   "flux", "snr", "peak", "centroid_x", "centroid_y", "mean_background",
                                                   "flags", "legs", "flux_auto", "mag_auto", "a", "b", "theta", "fwhm",
                                                   "min_confidence", "pivot", "mode", "backend", "leg_confidences",
                                                   "contrast", "line_width"};
        QVERIFY(regionCsvColumns() == expected);
        const RegionDocument doc = mixedDocument();
        const auto rows = parseCsv(regionCsvText(doc));
        QCOMPARE(rows.size(), doc.regions.size() + 1);
        QVERIFY(rows[0] == expected);
        for (const auto& row : rows) QCOMPARE(row.size(), expected.size());
        QCOMPARE(rows[1][0], std::string("brightest"));
        QCOMPARE(rows[1][12], std::string("9007199254740993"));
        QCOMPARE(rows[1][7], std::string("7.5")); // centre of x 3..12
        QCOMPARE(rows[3][0], std::string("trace"));
        QCOMPARE(rows[3][19], std::string("1.25 2.5;3.3333333333333335 7.125;20.75 11;40.1 3.3"));
        QVERIFY(!rows[3][38].empty()); // a trace's backend (the result's)
        QCOMPARE(rows[3][38], std::string(backendName(Backend::Reference)));
        QCOMPARE(rows[3][39], std::string("1")); // its one leg's confidence
        QVERIFY(rows[3][37].empty());            // no mode given
        QVERIFY(rows[1][38].empty() && rows[1][39].empty()); // text columns of a trace only
        QCOMPARE(rows[4][0], std::string("common"));
        QCOMPARE(rows[4][11], std::string("12"));
        QCOMPARE(rows[4][16], std::string("-2"));
        QVERIFY(rows[1][9].empty()); // no WCS: no RA/Dec
    }

    void csvQuoting() {
        const std::vector<std::string> fields = {"plain", "with, comma", "with \"quotes\"", "two\nlines", " edge ", ""};
        const auto rows = parseCsv(csvLine(fields) + csvLine({"a", "b"}));
        QCOMPARE(rows.size(), std::size_t(2));
        QVERIFY(rows[0] == fields);
        QVERIFY_THROWS_EXCEPTION(InputError, parseCsv("\"open"));
        QCOMPARE(formatNumber(0.1), std::string("0.1"));
        QCOMPARE(std::stod(formatNumber(1.0 / 3.0)), 1.0 / 3.0);
        QCOMPARE(formatFixed(1e-7), std::string("0.0000001"));
    }

    void ds9Syntax() {
        // What DS9 itself writes: sexagesimal fk5, arcsec sizes, several shapes a line, commented text.
        const std::string text = "# Region file format: DS9 version 4.1\n"
                                 "global color=green font=\"helvetica 10 normal roman\"\n"
                                 "fk5\n"
                                 "circle(3:22:41.789,-37:12:29.52,10.5\") # color=red text={A, {B}}\n"
                                 "box(50.5,-37.2,12\",6',30) ; image; -box(10,20,4,6,0) # tag={x}\n"
                                 "# text(100,200) text={hello}\n"
                                 "# a plain comment (box inside a comment)\n"
                                 "J2000; point(10.1d,20.2d) # point=cross 7\n";
        const Ds9File f = parseDs9Regions(text);
        QCOMPARE(f.shapes.size(), std::size_t(5));
        QCOMPARE(f.shapes[0].type, std::string("circle"));
        QCOMPARE(f.shapes[0].system, std::string("fk5"));
        QVERIFY(std::fabs(f.shapes[0].numbers[0] - (3 + 22 / 60.0 + 41.789 / 3600) * 15) < 1e-12);
        QVERIFY(std::fabs(f.shapes[0].numbers[1] + (37 + 12 / 60.0 + 29.52 / 3600)) < 1e-12);
        QCOMPARE(f.shapes[0].units[2], '"');
        QCOMPARE(f.shapes[0].properties.at("color"), std::string("red"));
        QCOMPARE(f.shapes[1].units[3], '\'');
        QCOMPARE(f.shapes[1].numbers[4], 30.0);
        QCOMPARE(f.shapes[2].system, std::string("image"));
        QVERIFY(f.shapes[2].exclude);
        QCOMPARE(f.shapes[2].properties.at("tag"), std::string("x"));
        QCOMPARE(f.shapes[3].type, std::string("text"));
        QCOMPARE(f.shapes[3].properties.at("text"), std::string("hello"));
        QCOMPARE(f.shapes[4].system, std::string("fk5"));
        QCOMPARE(f.shapes[4].units[0], 'd');
        QCOMPARE(f.shapes[4].properties.at("point"), std::string("cross 7"));

        QVERIFY_THROWS_EXCEPTION(InputError, parseDs9Regions("image\nbox(1,2,3\n"));
        QVERIFY_THROWS_EXCEPTION(InputError, parseDs9Regions("image\nbox(1,two,3,4,0)\n"));
        QVERIFY_THROWS_EXCEPTION(InputError, regionsFromDs9(parseDs9Regions("fk5\nbox(1,2,3,4,0)\n")));
        QVERIFY_THROWS_EXCEPTION(InputError, regionsFromDs9(parseDs9Regions("image\nbox(10,10,3,4,45)\n")));
    }

    void fk5Geometry_data() {
        QTest::addColumn<double>("rotation");
        QTest::newRow("north up") << 0.0;
        QTest::newRow("rotated 30") << 30.0;
        QTest::newRow("rotated -70") << -70.0;
        QTest::newRow("upside down") << 180.0;
    }
    void fk5Geometry() {
        // On a linear sky the box sizes are exact in arcsec and the DS9 angle undoes the rotation:
        // sky angle = image angle (0) + 90 - position angle of north on the grid (90 + rotation).
        QFETCH(double, rotation);
        RegionDocument doc;
        doc.imageWidth = doc.imageHeight = 200;
        doc.pixelToSky = linearSky(rotation, 0.5);
        BrightestResult b;
        b.regions = {{1, 90, 95, 20, 10, 1.0, 0, false}};
        doc.regions = regionsFromBrightest(b);
        const std::string text = regionFileText(doc, RegionFormat::Ds9); // Auto: fk5 with a WCS
        const Ds9File f = parseDs9Regions(text);
        QCOMPARE(f.shapes.size(), std::size_t(1));
        const Ds9Shape& s = f.shapes[0];
        QCOMPARE(s.system, std::string("fk5"));
        QCOMPARE(s.type, std::string("box"));
        const auto centre = doc.pixelToSky(99.5, 99.5);
        QVERIFY(std::fabs(s.numbers[0] - centre->ra) < 1e-9);
        QVERIFY(std::fabs(s.numbers[1] - centre->dec) < 1e-9);
        QCOMPARE(s.units[2], '"');
        QVERIFY2(std::fabs(s.numbers[2] - 10.0) < 1e-4, qPrintable(QString::number(s.numbers[2])));
        QVERIFY2(std::fabs(s.numbers[3] - 5.0) < 1e-4, qPrintable(QString::number(s.numbers[3])));
        const double expectedAngle = std::fmod(360.0 - rotation + 720.0, 360.0);
        double diff = std::fabs(s.numbers[4] - expectedAngle);
        diff = std::min(diff, 360.0 - diff);
        QVERIFY2(diff < 1e-4, qPrintable(QString("angle %1, expected %2").arg(s.numbers[4]).arg(expectedAngle)));

        // Image coordinates on request, and fk5 refused without a WCS.
        RegionWriteOptions image;
        image.ds9System = Ds9System::Image;
        QVERIFY(regionFileText(doc, RegionFormat::Ds9, image).find("\nimage\nbox(100.5,100.5,20,10,0)") !=
                std::string::npos);
        RegionDocument noWcs = doc;
        noWcs.pixelToSky = nullptr;
        RegionWriteOptions fk5;
        fk5.ds9System = Ds9System::Fk5;
        QVERIFY_THROWS_EXCEPTION(UsageError, regionFileText(noWcs, RegionFormat::Ds9, fk5));
    }

    void fk5FallsBackToImage() {
        // A region with no sky position (outside the projection) is written in image coordinates.
        RegionDocument doc;
        doc.pixelToSky = [](double x, double y) -> std::optional<SkyCoord> {
            if (x > 50) return std::nullopt;
            return SkyCoord{10 + x / 3600, 20 + y / 3600};
        };
        BrightestResult b;
        b.regions = {{1, 0, 0, 4, 4, 1.0, 0, false}, {2, 60, 0, 4, 4, 1.0, 0, false}};
        doc.regions = regionsFromBrightest(b);
        const Ds9File f = parseDs9Regions(ds9RegionText(doc, true));
        QCOMPARE(f.shapes.size(), std::size_t(2));
        QCOMPARE(f.shapes[0].system, std::string("fk5"));
        QCOMPARE(f.shapes[1].system, std::string("image"));
        QCOMPARE(f.shapes[1].numbers[0], 62.5);
    }

    void maskPng() {
        if (!GLINT_WITH_IMGCODECS) QSKIP("this build writes no PNG files");
        CommonComponentResult c;
        c.found = true;
        int w = 0, h = 0;
        c.mask = maskFrom("#..#/.##./....", w, h);
        c.maskWidth = w;
        c.maskHeight = h;
        const QString path = test::tempDir() + "/mask.png";
        writeComponentMaskPng(path.toStdString(), c, w, h);
        const Image image = loadImage(path.toStdString());
        QCOMPARE(image.width(), w);
        QCOMPARE(image.height(), h);
        for (int i = 0; i < w * h; ++i) QCOMPARE(image.value(static_cast<std::size_t>(i)), c.mask[i] ? 255.0 : 0.0);
        // Nothing found: an all-black mask of A's size.
        writeComponentMaskPng(path.toStdString(), CommonComponentResult{}, 5, 3);
        const Image empty = loadImage(path.toStdString());
        QCOMPARE(empty.width(), 5);
        QCOMPARE(computeStats(empty).max, 0.0);
    }

    void formatsByName() {
        QCOMPARE(static_cast<int>(regionFormatForPath("a/b.REG")), static_cast<int>(RegionFormat::Ds9));
        QCOMPARE(static_cast<int>(regionFormatForPath("x.geojson")), static_cast<int>(RegionFormat::GeoJson));
        QCOMPARE(static_cast<int>(regionFormatForPath("x.json")), static_cast<int>(RegionFormat::GeoJson));
        QCOMPARE(static_cast<int>(regionFormatForPath("x.csv")), static_cast<int>(RegionFormat::Csv));
        QVERIFY_THROWS_EXCEPTION(UsageError, regionFormatForPath("x.txt"));
        QVERIFY_THROWS_EXCEPTION(UsageError, regionFormatForPath("reg"));
        const auto r = test::runCli({"brightest", test::samplePath("aero.png"), "--regions", test::tempDir() + "/x.svg"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(!QFile::exists(test::tempDir() + "/x.svg"));
    }
};

GLINT_BACKEND_TEST_MAIN(TestExportRegions)
#include "test_export_regions.moc"
