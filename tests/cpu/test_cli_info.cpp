// glint-cli info: the JSON of DESIGN.md on FITS, DICOM and CSV files, standard output holding only the
// JSON, and the exit codes (2 for bad usage, 3 for bad input) with one line on standard error.
#include "tests/support/FitsFiles.h"
#include "tests/support/TestSupport.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <fitsio.h>

using namespace glint;

namespace {

// Empty primary, a binary table, then a 3 x 2 image: BITPIX 16 with BZERO 32768 (so uint16), one
// BLANK pixel, and a TAN WCS in ICRS.
QString writeMef() {
    const QString path = test::tempDir() + "/mef[1].fits";
    QFile::remove(path);
    fitsfile* f = nullptr;
    int status = 0;
    fits_create_diskfile(&f, path.toUtf8().constData(), &status);
    test::writeEmptyPrimaryAndCatalog(f, status);
    long axes[2] = {3, 2};
    fits_create_img(f, 16, 2, axes, &status);
    double bzero = 32768;
    long long blank = -32768;
    fits_write_key(f, TDOUBLE, "BZERO", &bzero, nullptr, &status);
    fits_write_key(f, TLONGLONG, "BLANK", &blank, nullptr, &status);
    const char* ctype1 = "RA---TAN";
    const char* ctype2 = "DEC--TAN";
    const char* radesys = "ICRS";
    double crpix = 2, crval1 = 150, crval2 = 2, cdelt1 = -1e-3, cdelt2 = 1e-3;
    fits_write_key(f, TSTRING, "CTYPE1", const_cast<char*>(ctype1), nullptr, &status);
    fits_write_key(f, TSTRING, "CTYPE2", const_cast<char*>(ctype2), nullptr, &status);
    fits_write_key(f, TSTRING, "RADESYS", const_cast<char*>(radesys), nullptr, &status);
    fits_write_key(f, TDOUBLE, "CRPIX1", &crpix, nullptr, &status);
    fits_write_key(f, TDOUBLE, "CRPIX2", &crpix, nullptr, &status);
    fits_write_key(f, TDOUBLE, "CRVAL1", &crval1, nullptr, &status);
    fits_write_key(f, TDOUBLE, "CRVAL2", &crval2, nullptr, &status);
    fits_write_key(f, TDOUBLE, "CDELT1", &cdelt1, nullptr, &status);
    fits_write_key(f, TDOUBLE, "CDELT2", &cdelt2, nullptr, &status);
    fits_set_bscale(f, 1.0, 0.0, &status);
    short raw[6] = {-32768, -32767, 0, 100, 32767, -32768 + 10}; // first pixel is BLANK
    fits_write_img(f, TSHORT, 1, 6, raw, &status);
    fits_close_file(f, &status);
    return status == 0 ? path : QString();
}

QString writeText(const QString& name, const QByteArray& bytes) {
    const QString path = test::tempDir() + "/" + name;
    QFile file(path);
    if (file.open(QIODevice::WriteOnly)) file.write(bytes);
    return path;
}

QJsonObject parseJson(const QByteArray& out) {
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(out, &error);
    if (error.error != QJsonParseError::NoError) return {};
    return doc.object();
}

} // namespace

class TestCliInfo : public QObject {
    Q_OBJECT

private slots:
    void fitsJson() {
        const QString path = writeMef();
        QVERIFY(!path.isEmpty());
        const test::CliResult r = test::runCli({"info", path, "--json", "-"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.isEmpty(), r.err.constData());
        const QJsonObject j = parseJson(r.out); // standard output holds the JSON and nothing else
        QVERIFY2(!j.isEmpty(), r.out.constData());
        QCOMPARE(j["algorithm"].toString(), QString("info"));
        QCOMPARE(j["backend"].toString(), QString("cpu"));
        QVERIFY(!j["device"].toString().isEmpty());
        QVERIFY(j["timing_ms"].toObject()["total"].isDouble());
        QVERIFY(j["timing_ms"].toObject()["steps"].isObject());
        QCOMPARE(j["path"].toString(), path);
        QCOMPARE(j["format"].toString(), QString("FITS"));
        QCOMPARE(j["width"].toInt(), 3);
        QCOMPARE(j["height"].toInt(), 2);
        QCOMPARE(j["bit_depth"].toInt(), 16);
        QCOMPARE(j["sample_type"].toString(), QString("uint16"));
        QCOMPARE(j["integer_valued"].toBool(), true);
        QCOMPARE(j["blank_count"].toInt(), 1);
        QCOMPARE(j["min"].toDouble(), 1.0);     // -32767 + 32768
        QCOMPARE(j["max"].toDouble(), 65535.0); // 32767 + 32768
        QCOMPARE(j["median"].toDouble(), 32768.0);
        QCOMPARE(j["mean"].toDouble(), (1.0 + 32768 + 32868 + 65535 + 10) / 5);
        QCOMPARE(j["hdu"].toInt(), 2);
        const QJsonArray hdus = j["hdus"].toArray();
        QCOMPARE(hdus.size(), 3);
        QCOMPARE(hdus[0].toObject()["kind"].toString(), QString("empty"));
        QCOMPARE(hdus[1].toObject()["kind"].toString(), QString("bintable"));
        QCOMPARE(hdus[1].toObject()["name"].toString(), QString("CATALOG"));
        QCOMPARE(hdus[2].toObject()["kind"].toString(), QString("image"));
        QCOMPARE(hdus[2].toObject()["axes"].toArray(), QJsonArray({3, 2}));
        QCOMPARE(j["wcs"].toBool(), true);
        QCOMPARE(j["wcs_frame"].toString(), QString("ICRS"));
        const QJsonArray centre = j["center_radec_j2000"].toArray();
        QCOMPARE(centre.size(), 2);
        QVERIFY(std::fabs(centre[0].toDouble() - 150.0) < 1e-3 && std::fabs(centre[1].toDouble() - 2.0) < 1e-3);

        // To a file: written whole, nothing on standard output.
        const QString out = test::tempDir() + "/info.json";
        const test::CliResult f = test::runCli({"info", path, "--json", out});
        QCOMPARE(f.exitCode, 0);
        QVERIFY(f.out.isEmpty());
        QFile file(out);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(parseJson(file.readAll())["hdu"].toInt(), 2);

        const test::CliResult text = test::runCli({"info", path});
        QCOMPARE(text.exitCode, 0);
        QVERIFY(text.out.contains("[2] image 3x2  (shown)"));
        QVERIFY(text.out.contains("WCS (ICRS)"));
    }

    // Header cards that make wcslib write to standard output must not reach it: only the JSON does.
    void damagedHeaderKeepsStdoutClean() {
        const QByteArray cards[] = {"SIMPLE  =                    T", "BITPIX  =                    8",
                                    "NAXIS   =                    2", "NAXIS1  =                    2",
                                    "NAXIS2  =                    2", "CTYPE1  = 'RA---TAN-SIP'",
                                    "CTYPE2  = 'DEC--TAN-SIP'",      "CDELT1  =                -0.01",
                                    "CDELT2  =                 0.01", "A_ORDER =",
                                    "B_ORDER =",                      "OBJECT  = 'no closing quote",
                                    "END"};
        QByteArray header;
        for (const QByteArray& c : cards) header += c.leftJustified(80, ' ');
        const QString path = writeText("damaged.fits", header.leftJustified(2880, ' ') + QByteArray(2880, '\x07'));
        const test::CliResult r = test::runCli({"info", path, "--json", "-"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.startsWith('{'), r.out.left(40).constData());
        QCOMPARE(parseJson(r.out)["wcs"].toBool(), true);
    }

    void csvJson() {
        const QString path = writeText("m.csv", "1,2\n3,4\n");
        const test::CliResult r = test::runCli({"info", path, "--json", "-"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject j = parseJson(r.out);
        QCOMPARE(j["format"].toString(), QString("CSV"));
        QVERIFY(j["hdu"].isNull());
        QCOMPARE(j["hdus"].toArray().size(), 0);
        QCOMPARE(j["wcs"].toBool(), false);
        QCOMPARE(j["median"].toDouble(), 2.5);
    }

    void dicomJson() {
        GLINT_REAL_FILE(path, "CT_small.dcm");
        const test::CliResult r = test::runCli({"info", path, "--json", "-"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject j = parseJson(r.out);
        QCOMPARE(j["format"].toString(), QString("DICOM"));
        QCOMPARE(j["width"].toInt(), 128);
        QCOMPARE(j["min"].toDouble(), -896.0);
        QCOMPARE(j["max"].toDouble(), 1167.0);
        QCOMPARE(j["frames"].toInt(), 1);
        QVERIFY(j["hdu"].isNull());
    }

    void exitCodes_data() {
        test::columns<QStringList, int, QString>({"args", "code", "message"});
        const QString fits = writeMef();
        const QString csv = writeText("e.csv", "1 2\n");
        const QString corrupt = writeText("corrupt.fits", QByteArray("SIMPLE  =                    T").leftJustified(2000, ' '));
        QTest::newRow("missing file") << QStringList{"info", "/nonexistent/x.fits"} << 3 << "no such file";
        QTest::newRow("corrupt FITS") << QStringList{"info", corrupt} << 3 << "cannot open";
        QTest::newRow("HDU without image") << QStringList{"info", fits, "--hdu", "1"} << 3
                                           << "HDU 1 (CATALOG) is a binary table, not an image";
        QTest::newRow("empty primary") << QStringList{"info", fits, "--hdu", "0"} << 3 << "holds no image data";
        QTest::newRow("HDU out of range") << QStringList{"info", fits, "--hdu", "3"} << 3 << "does not exist";
        QTest::newRow("plane out of range") << QStringList{"info", fits, "--plane", "1"} << 3 << "out of range";
        QTest::newRow("bad --hdu value") << QStringList{"info", fits, "--hdu", "abc"} << 2 << "--hdu";
        QTest::newRow("negative --hdu") << QStringList{"info", fits, "--hdu", "-1"} << 2 << "--hdu";
        QTest::newRow("--hdu on CSV") << QStringList{"info", csv, "--hdu", "1"} << 2 << "applies to FITS";
        QTest::newRow("--frame on FITS") << QStringList{"info", fits, "--frame", "1"} << 2 << "applies to DICOM";
        QTest::newRow("no image") << QStringList{"info"} << 2 << "exactly one IMAGE";
        QTest::newRow("two images") << QStringList{"info", fits, csv} << 2 << "exactly one IMAGE";
        QTest::newRow("unknown option") << QStringList{"info", fits, "--bogus"} << 2 << "--bogus";
    }
    void exitCodes() {
        QFETCH(QStringList, args);
        QFETCH(int, code);
        QFETCH(QString, message);
        const test::CliResult r = test::runCli(args);
        QCOMPARE(r.exitCode, code);
        QVERIFY(r.out.isEmpty());
        const QList<QByteArray> lines = r.err.trimmed().split('\n');
        QVERIFY2(lines.first().startsWith("glint-cli: ") && lines.first().contains(message.toUtf8()), r.err.constData());
        // Exactly one line (no library chatter, no synopsis); bad usage points at --help.
        QCOMPARE(lines.size(), 1);
        if (code == 2) QVERIFY2(lines.first().endsWith("(glint-cli info --help lists the options)"), r.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestCliInfo)
#include "test_cli_info.moc"
