// RA/Dec (FK5 J2000) at known pixels against astropy 5.2, computed once with
// `WCS(header).pixel_to_world(x, y).transform_to(FK5(equinox='J2000'))` (SIP included, 0-based pixels)
// and stored here: real headers (HST ACS with ICRS, ngc1316o in FK4 B1950, the same tile-compressed)
// and headers written here (FK4, SIP, galactic, FK5 J1975).
#include "tests/support/TestSupport.h"

#include "core/io/ImageLoader.h"
#include "core/io/Wcs.h"

#include <QtTest>

#include <cmath>

using namespace glint;

namespace {

struct Expected {
    double x, y, ra, dec;
};

using Cards = std::vector<std::pair<std::string, std::string>>;

std::string headerText(const Cards& cards) {
    std::string text;
    for (const auto& [key, value] : cards) {
        std::string card = key;
        card.resize(8, ' ');
        card += "= " + value;
        card.resize(80, ' ');
        text += card;
    }
    return text;
}

std::shared_ptr<const Wcs> wcsOf(const Cards& cards) {
    return Wcs::fromHeader(headerText(cards), static_cast<int>(cards.size()));
}

// Great-circle distance in arcseconds.
double separation(double ra1, double dec1, double ra2, double dec2) {
    const double d2r = M_PI / 180.0;
    const double s = std::sin((dec2 - dec1) * d2r / 2), t = std::sin((ra2 - ra1) * d2r / 2);
    const double h = s * s + std::cos(dec1 * d2r) * std::cos(dec2 * d2r) * t * t;
    return 2 * std::asin(std::sqrt(h)) / d2r * 3600.0;
}

// Checks every point to `toleranceArcsec` and the way back to pixels; returns the largest difference.
double checkPoints(const Wcs& wcs, const std::vector<Expected>& points, double toleranceArcsec) {
    double worst = 0;
    for (const auto& p : points) {
        const auto sky = wcs.pixelToSky(p.x, p.y);
        if (!sky) {
            QTest::qFail(qPrintable(QString("no sky position at %1, %2").arg(p.x).arg(p.y)), __FILE__, __LINE__);
            return 1e9;
        }
        const double d = separation(sky->ra, sky->dec, p.ra, p.dec);
        worst = std::max(worst, d);
        if (d > toleranceArcsec)
            QTest::qFail(qPrintable(QString("(%1, %2): %3 arcsec from astropy").arg(p.x).arg(p.y).arg(d)), __FILE__,
                         __LINE__);
        const auto back = wcs.skyToPixel(*sky);
        if (!back || std::fabs(back->first - p.x) > 1e-5 || std::fabs(back->second - p.y) > 1e-5)
            QTest::qFail(qPrintable(QString("(%1, %2) does not come back from the sky").arg(p.x).arg(p.y)), __FILE__,
                         __LINE__);
    }
    return worst;
}

const Cards kFk4 = {{"NAXIS", "2"},         {"NAXIS1", "200"},       {"NAXIS2", "100"},       {"CTYPE1", "'RA---TAN'"},
                    {"CTYPE2", "'DEC--TAN'"}, {"CRPIX1", "100.5"},   {"CRPIX2", "50.5"},      {"CRVAL1", "150.0"},
                    {"CRVAL2", "20.0"},     {"CD1_1", "-2.0E-4"},    {"CD1_2", "1.0E-5"},     {"CD2_1", "1.2E-5"},
                    {"CD2_2", "2.0E-4"},    {"RADESYS", "'FK4'"},    {"EQUINOX", "1950.0"}};

const Cards kSip = {{"NAXIS", "2"},          {"NAXIS1", "1024"},          {"NAXIS2", "1024"},
                    {"CTYPE1", "'RA---TAN-SIP'"}, {"CTYPE2", "'DEC--TAN-SIP'"}, {"CRPIX1", "512.0"},
                    {"CRPIX2", "512.0"},     {"CRVAL1", "202.48"},        {"CRVAL2", "47.2"},
                    {"CD1_1", "-1.4E-4"},    {"CD1_2", "2.0E-6"},         {"CD2_1", "2.5E-6"},
                    {"CD2_2", "1.4E-4"},     {"RADESYS", "'ICRS'"},       {"A_ORDER", "2"},
                    {"A_0_2", "2.1E-6"},     {"A_1_1", "-1.5E-5"},        {"A_2_0", "8.0E-6"},
                    {"B_ORDER", "2"},        {"B_0_2", "-1.2E-5"},        {"B_1_1", "6.2E-6"},
                    {"B_2_0", "-3.1E-6"}};

const std::vector<Expected> kNgc1316 = {{0, 0, 51.22349879986525, -37.49291660209914},
                                        {225, 146, 50.673777701705184, -37.208234774804595},
                                        {439, 299, 50.15513300293844, -36.90764221401399},
                                        {100, 250, 50.97933373354866, -37.00676581127084}};

} // namespace

class TestWcs : public QObject {
    Q_OBJECT

private slots:
    void hstIcrs() {
        GLINT_REAL_FILE(path, "j8bt06nyq_flt.fits");
        const Image image = loadImage(path.toStdString()); // the SCI extension, HDU 1
        QVERIFY(image.meta.wcs);
        QCOMPARE(image.meta.wcs->nativeFrame(), std::string("ICRS"));
        // No SIP keywords in this copy of the file: a plain TAN projection with a CD matrix.
        const double worst = checkPoints(*image.meta.wcs,
                                         {{0, 0, 6.036299981698491, -72.08837268264617},
                                          {511, 511, 6.02713687051599, -72.0835091777198},
                                          {1023, 0, 6.011819244418179, -72.08543773799738},
                                          {100, 900, 6.039303479430167, -72.08210114724014},
                                          {1023, 1023, 6.017960652200251, -72.07863572518997}},
                                         0.001);
        qInfo("HST ICRS header: worst difference from astropy %.2g arcsec", worst);
    }

    void fk4RealFile_data() {
        test::addStringRows("name", {{"ngc1316o.fit", "ngc1316o.fit"}, {"comp.fits (tile-compressed)", "comp.fits"}});
    }
    void fk4RealFile() {
        QFETCH(QString, name);
        GLINT_REAL_FILE(path, name);
        const Image image = loadImage(path.toStdString());
        QVERIFY(image.meta.wcs);
        QCOMPARE(image.meta.wcs->nativeFrame(), std::string("FK4 B1950")); // EQUINOX 1950, no RADESYS
        const double worst = checkPoints(*image.meta.wcs, kNgc1316, 0.05);
        qInfo("%s (FK4 B1950 -> FK5 J2000): worst difference from astropy %.2g arcsec", qPrintable(name), worst);
    }

    void writtenHeaders_data() {
        test::columns<QString, double>({"frame", "tolerance"});
        QTest::newRow("FK4 B1950") << "FK4 B1950" << 0.05;
        QTest::newRow("ICRS with SIP") << "ICRS" << 0.001;
        QTest::newRow("galactic") << "galactic" << 0.001;
        QTest::newRow("FK5 J1975") << "FK5 J1975" << 0.001;
    }
    void writtenHeaders() {
        QFETCH(QString, frame);
        QFETCH(double, tolerance);
        Cards cards;
        std::vector<Expected> points;
        if (frame == "FK4 B1950") {
            cards = kFk4;
            points = {{0, 0, 150.71099691273193, 19.74694614146843},
                      {99.5, 49.5, 150.69040965903994, 19.758090894618093},
                      {199, 99, 150.6698195286723, 19.769233293991302},
                      {30, 80, 150.7055180092756, 19.76331994022888}};
        } else if (frame == "ICRS") {
            cards = kSip;
            points = {{0, 0, 202.58390147581636, 47.12680679839544},
                      {511, 511, 202.47999980150468, 47.19999977790684},
                      {1023, 1023, 202.37612418539152, 47.27258295247361},
                      {100, 900, 202.56506906900822, 47.252944655345075},
                      {1023, 0, 202.3717720568855, 47.12892570976875}};
        } else if (frame == "galactic") {
            cards = {{"NAXIS", "2"},         {"NAXIS1", "360"},        {"NAXIS2", "180"},   {"CTYPE1", "'GLON-CAR'"},
                     {"CTYPE2", "'GLAT-CAR'"}, {"CRPIX1", "180.5"},   {"CRPIX2", "90.5"},  {"CRVAL1", "120.0"},
                     {"CRVAL2", "0.0"},      {"CDELT1", "-0.05"},      {"CDELT2", "0.05"}};
            points = {{0, 0, 24.23845139869187, 57.861712505990425},
                      {179.5, 89.5, 6.45084870199272, 62.72572864474705},
                      {359, 179, 344.1379842821501, 64.65707319495395}};
        } else {
            cards = {{"NAXIS", "2"},         {"NAXIS1", "100"},       {"NAXIS2", "100"},    {"CTYPE1", "'RA---TAN'"},
                     {"CTYPE2", "'DEC--TAN'"}, {"CRPIX1", "50.0"},    {"CRPIX2", "50.0"},   {"CRVAL1", "83.6"},
                     {"CRVAL2", "22.0"},     {"CDELT1", "-1.0E-3"},   {"CDELT2", "1.0E-3"}, {"RADESYS", "'FK5'"},
                     {"EQUINOX", "1975.0"}};
            points = {{0, 0, 84.02888897573138, 21.965923268456283},
                      {49, 49, 83.97619129716341, 22.015059132978948},
                      {99, 99, 83.92238047752892, 22.0651803939758}};
        }
        const auto wcs = wcsOf(cards);
        QVERIFY(wcs);
        QCOMPARE(QString::fromStdString(wcs->nativeFrame()), frame);
        const double worst = checkPoints(*wcs, points, tolerance);
        qInfo("%s: worst difference from astropy %.2g arcsec", qPrintable(frame), worst);
    }

    // The SIP terms matter here (about 1.3 arcsec at the corner): without them the corner is elsewhere.
    void sipIsApplied() {
        Cards plain;
        for (const auto& c : kSip)
            if (c.first.rfind("A_", 0) != 0 && c.first.rfind("B_", 0) != 0)
                plain.push_back({c.first, c.first.rfind("CTYPE", 0) == 0 ? c.second.substr(0, 9) + "'" : c.second});
        const auto withSip = wcsOf(kSip);
        const auto without = wcsOf(plain);
        QVERIFY(withSip && without);
        const auto a = withSip->pixelToSky(0, 0);
        const auto b = without->pixelToSky(0, 0);
        QVERIFY(separation(a->ra, a->dec, b->ra, b->dec) > 1.0);
    }

    // Damaged cards that crash wcslib 7 or make it write to standard output are dropped, the rest used.
    void damagedCardsAreDropped() {
        Cards cards = kFk4;
        cards.push_back({"OBJECT", "'no closing quote"});
        cards.push_back({"B_ORDER", ""});
        cards.push_back({"HISTORY", std::string("bytes \xba\xfd\x01 from a bad disk")});
        const auto clean = wcsOf(kFk4);
        const auto damaged = wcsOf(cards);
        QVERIFY(clean && damaged);
        const auto a = clean->pixelToSky(30, 80), b = damaged->pixelToSky(30, 80);
        QCOMPARE(a->ra, b->ra);
        QCOMPARE(a->dec, b->dec);
    }

    void noUsableWcs_data() {
        test::addStringRows("what", {{"no keywords", "none"},
                                     {"linear axes only", "linear"},
                                     {"ecliptic", "ecliptic"},
                                     {"singular matrix", "singular"},
                                     {"garbage", "garbage"}});
    }
    void noUsableWcs() {
        QFETCH(QString, what);
        Cards cards = {{"NAXIS", "2"}, {"NAXIS1", "10"}, {"NAXIS2", "10"}};
        if (what == "linear") cards.insert(cards.end(), {{"CTYPE1", "'X'"}, {"CTYPE2", "'Y'"}, {"CDELT1", "2.0"}});
        if (what == "ecliptic")
            cards.insert(cards.end(), {{"CTYPE1", "'ELON-TAN'"}, {"CTYPE2", "'ELAT-TAN'"}, {"CDELT1", "0.1"}, {"CDELT2", "0.1"}});
        if (what == "singular")
            cards.insert(cards.end(), {{"CTYPE1", "'RA---TAN'"}, {"CTYPE2", "'DEC--TAN'"}, {"CD1_1", "1.0E-3"},
                                       {"CD1_2", "1.0E-3"}, {"CD2_1", "1.0E-3"}, {"CD2_2", "1.0E-3"}});
        if (what == "garbage")
            cards.insert(cards.end(), {{"CTYPE1", "'RA---XYZ'"}, {"CTYPE2", "'DEC--XYZ'"}, {"CRVAL2", "'north'"}});
        QVERIFY(!wcsOf(cards));
        QVERIFY(!Wcs::fromHeader("", 0));
    }

    void formatting_data() {
        test::columns<double, double, QString, QString>({"ra", "dec", "raText", "decText"});
        QTest::newRow("ngc1316") << 50.673777701705184 << -37.208234774804595 << "03:22:41.707" << "-37:12:29.65";
        QTest::newRow("rounds up to the next hour") << 15.0 * 3599.9998 / 3600.0 << 29.9999999 << "01:00:00.000"
                                                    << "+30:00:00.00";
        QTest::newRow("wraps at 24h") << 359.9999999999 << 0.0 << "00:00:00.000" << "+00:00:00.00";
        QTest::newRow("negative ra") << -15.0 << -89.99999999 << "23:00:00.000" << "-90:00:00.00";
    }
    void formatting() {
        QFETCH(double, ra);
        QFETCH(double, dec);
        QFETCH(QString, raText);
        QFETCH(QString, decText);
        QCOMPARE(QString::fromStdString(formatRa(ra)), raText);
        QCOMPARE(QString::fromStdString(formatDec(dec)), decText);
    }
};

QTEST_GUILESS_MAIN(TestWcs)
#include "test_wcs.moc"
