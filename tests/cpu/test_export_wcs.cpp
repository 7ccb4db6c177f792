// fk5 region files on FITS images with a WCS, against astropy 5.2: box centres (J2000), box sizes in arcsec
// along the box axes, and the DS9 angle (90 - position angle of FK5 J2000 north on the pixel grid, at the
// centre). Expected values were computed once with
//   c = WCS(header).pixel_to_world(cx, cy); c5 = c.transform_to(FK5(equinox='J2000'))
//   n = wcs.world_to_pixel(c5.directional_offset_by(0, 1 arcsec)); angle = 90 - atan2(ny - cy, nx - cx)
//   width = separation(pixel_to_world(x - 0.5, cy), pixel_to_world(x + w - 0.5, cy)), height likewise
// (0-based pixels) and are stored here. Cases: the HST ACS file (ICRS, rotated CD), the bundled
// ngc1316o.fit (FK4 B1950, SIN), and a rotated FK4 B1950 header written by the test, through
// glint-cli brightest --regions. These need the FITS loader and wcslib WCS; they skip without them.
#include "tests/support/TestSupport.h"

#include "core/algo/brightest/Brightest.h"
#include "core/export/CsvTable.h"
#include "core/export/Ds9Regions.h"
#include "core/export/ExportRegions.h"
#include "core/export/GeoJsonRegions.h"
#include "core/export/JsonOutput.h"
#include "core/export/RegionCsv.h"
#include "core/io/ImageLoader.h"
#include "core/io/Wcs.h"
#include "core/util/Errors.h"

#include <QFile>
#include <QtTest>

#include <cmath>

using namespace glint;

namespace {

struct ExpectedBox {
    int x, y, w, h;
    double ra, dec, angle, widthArcsec, heightArcsec;
};

// Loads the image, or explains why the test cannot run here.
std::optional<Image> imageWithWcs(const QString& path, QString& why) {
    if (path.isEmpty()) {
        why = "test file not fetched by the real_data fixture";
        return std::nullopt;
    }
    try {
        Image image = loadImage(path.toStdString());
        if (!image.meta.wcs) {
            why = "no WCS read from " + path + " (wcslib WCS not in this build)";
            return std::nullopt;
        }
        return image;
    } catch (const InputError& e) {
        why = QString("FITS not readable in this build: ") + e.what();
        return std::nullopt;
    }
}

double angleDifference(double a, double b) {
    double d = std::fmod(std::fabs(a - b), 360.0);
    return std::min(d, 360.0 - d);
}

// Writes the boxes as fk5 DS9, GeoJSON and CSV, parses them back and compares with astropy's values.
void checkBoxes(const Image& image, const std::vector<ExpectedBox>& boxes, double centreTolArcsec) {
    RegionDocument doc = regionDocumentFor(image);
    BrightestResult result;
    for (std::size_t i = 0; i < boxes.size(); ++i)
        result.regions.push_back({static_cast<int>(i + 1), boxes[i].x, boxes[i].y, boxes[i].w, boxes[i].h, 1.0, 0, false});
    doc.regions = regionsFromBrightest(result);
    const std::string text = regionFileText(doc, RegionFormat::Ds9); // fk5: the image has a WCS
    const Ds9File file = parseDs9Regions(text);
    QCOMPARE(file.shapes.size(), boxes.size());
    const auto csv = parseCsv(regionCsvText(doc));
    const Json geo = Json::parse(geoJsonRegionText(doc));
    for (std::size_t i = 0; i < boxes.size(); ++i) {
        const ExpectedBox& e = boxes[i];
        const Ds9Shape& s = file.shapes[i];
        QCOMPARE(s.system, std::string("fk5"));
        QCOMPARE(s.type, std::string("box"));
        const double centre = skySeparationArcsec({s.numbers[0], s.numbers[1]}, {e.ra, e.dec});
        QVERIFY2(centre < centreTolArcsec, qPrintable(QString("box %1: centre %2 arcsec from astropy").arg(i + 1).arg(centre)));
        QCOMPARE(s.units[2], '"');
        QCOMPARE(s.units[3], '"');
        QVERIFY2(std::fabs(s.numbers[2] - e.widthArcsec) < 1e-3 * std::max(1.0, e.widthArcsec),
                 qPrintable(QString("width %1 vs %2").arg(s.numbers[2]).arg(e.widthArcsec)));
        QVERIFY2(std::fabs(s.numbers[3] - e.heightArcsec) < 1e-3 * std::max(1.0, e.heightArcsec),
                 qPrintable(QString("height %1 vs %2").arg(s.numbers[3]).arg(e.heightArcsec)));
        QVERIFY2(angleDifference(s.numbers[4], e.angle) < 2e-3,
                 qPrintable(QString("angle %1 vs %2").arg(s.numbers[4]).arg(e.angle)));
        // The CSV and GeoJSON carry the same centre.
        const double csvCentre = skySeparationArcsec({std::stod(csv[i + 1][9]), std::stod(csv[i + 1][10])}, {e.ra, e.dec});
        QVERIFY(csvCentre < centreTolArcsec);
        bool geoHasSky = false;
        for (const Json& m : geo["features"][i]["properties"]["measurements"])
            if (m["name"] == "RA J2000 (deg)") geoHasSky = std::fabs(m["value"].get<double>() - std::stod(csv[i + 1][9])) < 1e-12;
        QVERIFY(geoHasSky);
    }
}

// A FITS file: the cards (key, value text) of a 2-D int16 image with the given samples.
void writeFits(const QString& path, const std::vector<std::pair<std::string, std::string>>& cards, int w, int h,
               const std::vector<std::int16_t>& data) {
    std::string header;
    auto card = [&](const std::string& key, const std::string& value) {
        std::string c = key;
        c.resize(8, ' ');
        c += "= " + value;
        c.resize(80, ' ');
        header += c;
    };
    card("SIMPLE", "T");
    card("BITPIX", "16");
    card("NAXIS", "2");
    card("NAXIS1", std::to_string(w));
    card("NAXIS2", std::to_string(h));
    for (const auto& [k, v] : cards) card(k, v);
    std::string end = "END";
    end.resize(80, ' ');
    header += end;
    header.resize((header.size() + 2879) / 2880 * 2880, ' ');
    std::string bytes;
    for (std::int16_t v : data) {
        bytes += static_cast<char>((static_cast<std::uint16_t>(v) >> 8) & 0xFF);
        bytes += static_cast<char>(static_cast<std::uint16_t>(v) & 0xFF);
    }
    bytes.resize((bytes.size() + 2879) / 2880 * 2880, '\0');
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write((header + bytes).data(), static_cast<qint64>(header.size() + bytes.size()));
}

} // namespace

class TestExportWcs : public QObject {
    Q_OBJECT

private slots:
    void hstIcrs() {
        QString why;
        const auto image = imageWithWcs(test::fetchedPath("j8bt06nyq_flt.fits"), why);
        if (!image) QSKIP(qPrintable(why));
        checkBoxes(*image,
                   {{100, 200, 11, 7, 6.035004546047387, -72.08672169757422, 14.069315, 0.31283, 0.17390},
                    {500, 600, 40, 20, 6.02752442377478, -72.08282982263513, 14.076018, 1.13756, 0.49686},
                    {900, 50, 1, 1, 6.01506249007667, -72.08545832757272, 14.087187, 0.02844, 0.02484}},
                   0.002);
    }

    void ngc1316Fk4() {
        QString why;
        const auto image = imageWithWcs(test::samplePath("ngc1316o.fit"), why);
        if (!image) QSKIP(qPrintable(why));
        QCOMPARE(image->meta.wcs->nativeFrame(), std::string("FK4 B1950"));
        checkBoxes(*image,
                   {{200, 130, 21, 31, 50.71038793331417, -37.21031092634882, 0.247035, 147.00003, 217.00002},
                    {10, 250, 5, 5, 51.19360699391631, -37.00293745773432, 359.956312, 35.00092, 35.00023}},
                   0.05);
    }

    void writtenB1950ThroughTheCli() {
        // 200 x 100, FK4 B1950 rotated 30 degrees; a bright 10 x 5 block at (30, 60) is the brightest region.
        const QString path = test::tempDir() + "/b1950.fits";
        std::vector<std::int16_t> data(200 * 100, 0);
        for (int y = 60; y < 65; ++y)
            for (int x = 30; x < 40; ++x) data[static_cast<std::size_t>(y) * 200 + x] = 1000;
        writeFits(path,
                  {{"CTYPE1", "'RA---TAN'"}, {"CTYPE2", "'DEC--TAN'"}, {"CRPIX1", "100.5"}, {"CRPIX2", "50.5"},
                   {"CRVAL1", "150.0"}, {"CRVAL2", "20.0"}, {"CD1_1", "-1.7320508075688773E-04"},
                   {"CD1_2", "9.999999999999999E-05"}, {"CD2_1", "9.999999999999999E-05"},
                   {"CD2_2", "1.7320508075688773E-04"}, {"RADESYS", "'FK4'"}, {"EQUINOX", "1950.0"}},
                  200, 100, data);
        QString why;
        const auto image = imageWithWcs(path, why);
        if (!image) QSKIP(qPrintable(why));
        QCOMPARE(image->meta.wcs->nativeFrame(), std::string("FK4 B1950"));

        const QString reg = test::tempDir() + "/b1950.reg";
        const auto r = test::runCli({"brightest", path, "--regions", reg, "--json", "-"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const Json doc = Json::parse(r.out.toStdString());
        QCOMPARE(doc["regions"][0]["x"].get<int>(), 30);
        QCOMPARE(doc["regions"][0]["width"].get<int>(), 10);
        QFile f(reg);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const Ds9File file = parseDs9Regions(f.readAll().toStdString());
        QCOMPARE(file.shapes.size(), std::size_t(1));
        const Ds9Shape& s = file.shapes[0];
        QCOMPARE(s.system, std::string("fk5"));
        const double centre = skySeparationArcsec({s.numbers[0], s.numbers[1]}, {150.70368827451284, 19.753723505589473});
        QVERIFY2(centre < 0.05, qPrintable(QString("centre %1 arcsec from astropy").arg(centre)));
        QVERIFY(std::fabs(s.numbers[2] - 7.2) < 1e-3);
        QVERIFY(std::fabs(s.numbers[3] - 3.6) < 1e-3);
        // 30 degrees of CD rotation plus the turn of north from B1950 to J2000 at this position.
        QVERIFY2(angleDifference(s.numbers[4], 30.151181) < 2e-3, qPrintable(QString::number(s.numbers[4])));
        // The text label carries the rank and the exact integer sum of I - pivot (mean 2.5).
        QCOMPARE(s.properties.at("text"), std::string("#1 sum=49875"));
    }
};

QTEST_GUILESS_MAIN(TestExportWcs)
#include "test_export_wcs.moc"
