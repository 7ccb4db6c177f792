// The source catalogue's files (core/export/SourceCatalogFile: FITS, FITS_LDAC, ASCII_HEAD, CSV) and maps
// (core/export/FitsMaps): every format read back (CFITSIO, the CSV reader, astropy when installed): column
// names, units, vector columns, NaN and empty fields, values bit-exact where the format promises it; LDAC's
// structure and header text; the maps' BITPIX, values and WCS against the input image's; zero sources; bad
// paths and a bad --catalog-format.
#include "tests/cpu/test_source_catalog_files_support.h"

#include "core/export/CsvTable.h"
#include "core/export/FitsMaps.h"
#include "core/export/SourceCatalogColumns.h"
#include "core/export/SourceCatalogFile.h"
#include "core/io/ImageLoader.h"
#include "core/io/Wcs.h"
#include "core/util/Errors.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QtTest>

#include <cstring>
#include <stdexcept>

using namespace glint;
using namespace glint::test::catalogfiles;

namespace {

bool same(double a, double b) { return (std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, sizeof a) == 0; }

QString fresh(const QString& name) {
    const QString dir = test::tempDir() + "/" + name;
    QDir(dir).removeRecursively();
    QDir().mkpath(dir);
    return dir;
}

std::string write(const SourceCatalog& c, const QString& path, SourceCatalogFormat format,
                  const FitsHeaderContext* header = nullptr) {
    writeSourceCatalog(c, path.toStdString(), format, header);
    return path.toStdString();
}

// The input image of the WCS checks, loaded by Glint, and its header context.
struct TanImage {
    QString path;
    Image image;
    FitsHeaderContext header;
};
TanImage tanImage(const QString& dir) {
    TanImage t{dir + "/in.fits", {}, {}};
    writeTanImage(t.path, 40, 30);
    t.image = loadImage(t.path.toStdString());
    t.header = fitsHeaderContext(t.image);
    return t;
}

// The object table of the current HDU against the catalogue: names, units, TFORM, TDISP and every value.
void checkObjectTable(FitsIn& in, const SourceCatalog& c) {
    const std::vector<SourceColumn> cols = sourceColumns(c);
    QCOMPARE(in.columnCount(), int(cols.size()));
    QCOMPARE(in.rows(), (long long)c.sources.size());
    for (std::size_t i = 0; i < cols.size(); ++i) {
        const std::string n = std::to_string(i + 1);
        QCOMPARE(in.text(("TTYPE" + n).c_str()), std::string(cols[i].name));
        QCOMPARE(in.has(("TUNIT" + n).c_str()) ? in.text(("TUNIT" + n).c_str()) : std::string(), std::string(cols[i].unit));
        QCOMPARE(in.text(("TDISP" + n).c_str()), cols[i].tdisp());
        const std::size_t repeat = cols[i].perAperture ? c.apertures.size() : 1;
        const std::string form = in.text(("TFORM" + n).c_str());
        QCOMPARE(form, std::to_string(repeat) + (cols[i].type == SourceColumn::Type::Double ? "D"
                                                 : cols[i].type == SourceColumn::Type::Int16 ? "I" : "J"));
        const std::vector<double> got = in.column(int(i + 1), (long long)(c.sources.size() * repeat));
        for (std::size_t r = 0; r < c.sources.size(); ++r)
            for (std::size_t k = 0; k < repeat; ++k)
                if (!same(got[r * repeat + k], cols[i].value(c.sources[r], k)))
                    QFAIL(qPrintable(QString("%1 row %2 [%3]: %4").arg(cols[i].name).arg(r).arg(k).arg(got[r * repeat + k])));
    }
}

QStringList asciiHeaderLines(const std::string& text) {
    QStringList lines;
    for (const QString& l : QString::fromStdString(text).split('\n'))
        if (l.startsWith('#')) lines << l;
    return lines;
}

} // namespace

class TestSourceCatalogFiles : public QObject {
    Q_OBJECT
private slots:
    void formatByExtensionAndOption() {
        using F = SourceCatalogFormat;
        QCOMPARE(sourceCatalogFormat("a/b.fits", ""), F::Fits);
        QCOMPARE(sourceCatalogFormat("b.FIT", ""), F::Fits);
        QCOMPARE(sourceCatalogFormat("b.fts", ""), F::Fits);
        QCOMPARE(sourceCatalogFormat("b.ldac", ""), F::Ldac);
        QCOMPARE(sourceCatalogFormat("b.cat", ""), F::Ascii);
        QCOMPARE(sourceCatalogFormat("b.Txt", ""), F::Ascii);
        QCOMPARE(sourceCatalogFormat("b.csv", ""), F::Csv);
        QCOMPARE(sourceCatalogFormat("b.fits", "ldac"), F::Ldac);
        QCOMPARE(sourceCatalogFormat("b.cat", "csv"), F::Csv);
        QCOMPARE(sourceCatalogFormat("b", "ascii"), F::Ascii);
        QCOMPARE(sourceCatalogFormat("b.csv", "fits"), F::Fits);
        QCOMPARE(std::string(sourceCatalogFormatName(F::Ldac)), std::string("ldac"));
        for (const auto& [path, option] : {std::pair<std::string, std::string>{"b.xml", ""}, {"b.fits.gz", ""},
                                           {"fits", ""}, {"dir.csv/b", ""}, {"b.fits", "votable"}, {"b.fits", "FITS"}}) {
            try {
                sourceCatalogFormat(path, option);
                QFAIL(qPrintable(QString::fromStdString("accepted " + path + " / '" + option + "'")));
            } catch (const UsageError& e) {
                QVERIFY2(std::string(e.what()).find("--catalog-format") != std::string::npos, e.what());
            }
        }
    }

    void fitsRoundTrip_data() {
        test::columns<int, QString>({"apertures", "format"});
        for (const char* format : {"fits", "ldac"}) {
            QTest::addRow("%s, no aperture", format) << 0 << format;
            QTest::addRow("%s, 3 apertures", format) << 3 << format;
            QTest::addRow("%s, zero sources", format) << -1 << format;
        }
    }
    void fitsRoundTrip() {
        QFETCH(int, apertures);
        QFETCH(QString, format);
        const QString dir = fresh("fits");
        const TanImage t = tanImage(dir);
        std::vector<double> diameters;
        for (int i = 0; i < apertures; ++i) diameters.push_back(3.0 + 2.5 * i);
        const SourceCatalog c = makeCatalog(apertures < 0 ? 0 : 12, diameters);
        const bool ldac = format == "ldac";
        const std::string path = write(c, dir + "/c." + format, ldac ? SourceCatalogFormat::Ldac : SourceCatalogFormat::Fits,
                                       &t.header);
        FitsIn in(QString::fromStdString(path));
        QCOMPARE(in.hduCount(), ldac ? 3 : 2);
        in.moveTo(1);
        QCOMPARE(in.number("NAXIS"), 0.0);
        in.moveTo(ldac ? 3 : 2);
        QCOMPARE(in.text("XTENSION"), std::string("BINTABLE"));
        QCOMPARE(in.text("EXTNAME"), std::string(ldac ? "LDAC_OBJECTS" : "SOURCES"));
        checkObjectTable(in, c);
        if (!ldac) {
            QCOMPARE(in.number("SEXMGZPT"), c.magZeropoint);
            for (int i = 0; i < apertures; ++i) QCOMPARE(in.number(("SEXAPED" + std::to_string(i + 1)).c_str()), diameters[i]);
        }
        if (c.sources.empty()) return;
        // SExtractor's 1-based positions, spelled out once.
        QCOMPARE(in.column(2, 1)[0], c.sources[0].x + 1.0);
        QCOMPARE(in.column(6, 2)[1], 2.0); // XMIN_IMAGE of the second source (xmin 1)
    }

    void ldacImageHeader() {
        const QString dir = fresh("ldac");
        const TanImage t = tanImage(dir);
        const SourceCatalog c = makeCatalog(3, {4.0, 8.0});
        FitsIn in(QString::fromStdString(write(c, dir + "/c.cat", SourceCatalogFormat::Ldac, &t.header)));
        in.moveTo(2);
        QCOMPARE(in.text("EXTNAME"), std::string("LDAC_IMHEAD"));
        QCOMPARE(in.text("TTYPE1"), std::string("Field Header Card"));
        QCOMPARE(in.rows(), 1LL);
        const long long bytes = (long long)in.number("NAXIS1");
        QCOMPARE(bytes % 80, 0LL);
        const long long cards = bytes / 80;
        QCOMPARE(in.text("TFORM1"), std::to_string(bytes) + "A");
        QCOMPARE(in.text("TDIM1"), "(80, " + std::to_string(cards) + ")");
        const std::string text = in.bytes(bytes);
        const auto card = [&](long long i) { return text.substr(std::size_t(i) * 80, 80); };
        QCOMPARE(card(0).substr(0, 30), std::string("SIMPLE  =                    T"));
        QCOMPARE(card(cards - 1), std::string("END") + std::string(77, ' '));
        const auto find = [&](const std::string& key) -> std::string {
            for (long long i = 0; i < cards; ++i)
                if (cardKey(card(i)) == key) return card(i);
            return {};
        };
        QCOMPARE(find("NAXIS1").substr(10, 20), std::string(18, ' ') + "40");
        QCOMPARE(find("NAXIS2").substr(10, 20), std::string(18, ' ') + "30");
        QCOMPARE(find("BITPIX").substr(10, 20), std::string(17, ' ') + "-32");
        QCOMPARE(find("OBSERVER").substr(0, 20), std::string("OBSERVER= 'O''Brien'"));
        QVERIFY(find("SEXAPED2").find("8") != std::string::npos);
        QVERIFY(find("SEXMGZPT").find("25.125") != std::string::npos);
        // The header's WCS is the image's, to the last bit, as SCAMP would read it.
        FitsIn image(t.path);
        for (const char* key : kWcsNumbers) {
            char value[FLEN_VALUE] = {}, comment[FLEN_COMMENT] = {};
            int status = 0;
            std::string c80 = find(key);
            QVERIFY2(!c80.empty(), key);
            fits_parse_value(c80.data(), value, comment, &status);
            QCOMPARE(status, 0);
            QVERIFY2(same(std::strtod(value, nullptr), image.number(key)), key);
        }
        const auto wcs = Wcs::fromHeader(text, int(cards));
        QVERIFY(wcs && t.image.meta.wcs);
        const auto a = wcs->pixelToSky(3.5, 27.25), b = t.image.meta.wcs->pixelToSky(3.5, 27.25);
        QVERIFY(a && b && a->ra == b->ra && a->dec == b->dec);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, sourceCatalogBytes(c, SourceCatalogFormat::Ldac, nullptr));
    }

    void asciiHead() {
        const QString dir = fresh("ascii");
        const SourceCatalog c = makeCatalog(6, {2.0, 4.0, 6.0});
        const std::string text = test::readFileString(QString::fromStdString(write(c, dir + "/c.cat", SourceCatalogFormat::Ascii)));
        const QStringList head = asciiHeaderLines(text);
        const std::vector<SourceColumn> cols = sourceColumns(c);
        QCOMPARE(head.size(), int(cols.size()));
        int number = 1;
        for (std::size_t i = 0; i < cols.size(); ++i) {
            const QStringList words = head[int(i)].mid(1).split(' ', Qt::SkipEmptyParts);
            QCOMPARE(words.value(0).toInt(), number);
            QCOMPARE(words.value(1), QString(cols[i].name));
            QCOMPARE(head[int(i)].mid(6, 22).trimmed(), QString(cols[i].name));
            QVERIFY(head[int(i)].contains(cols[i].description));
            if (*cols[i].unit) QVERIFY2(head[int(i)].endsWith(QString(" [%1]").arg(cols[i].unit)), qPrintable(head[int(i)]));
            else QVERIFY(!head[int(i)].contains('['));
            number += cols[i].perAperture ? 3 : 1;
        }
        QVERIFY(head[0].startsWith("#   1 NUMBER                 Running object number"));
        QVERIFY(head.filter(" FLUX_APER ").value(0).startsWith("#  16 FLUX_APER"));
        QVERIFY(head.filter(" FLUXERR_APER ").value(0).startsWith("#  19 FLUXERR_APER"));
        QStringList rows = QString::fromStdString(text).split('\n', Qt::SkipEmptyParts).filter(QRegularExpression("^[^#]"));
        QCOMPARE(rows.size(), int(c.sources.size()));
        for (int r = 0; r < rows.size(); ++r) {
            const QStringList fields = rows[r].split(' ', Qt::SkipEmptyParts);
            QCOMPARE(fields.size(), number - 1);
            int f = 0;
            for (const SourceColumn& col : cols)
                for (std::size_t k = 0; k < (col.perAperture ? 3u : 1u); ++k, ++f) {
                    const double v = col.value(c.sources[std::size_t(r)], k);
                    if (std::isnan(v)) QCOMPARE(fields[f], QString("nan"));
                    else QCOMPARE(fields[f], QString::fromStdString(col.ascii(v)).trimmed());
                }
        }
        // SExtractor's formats: X_IMAGE %11.4f, DELTA_J2000 %+11.7f, FLAGS %3d.
        QCOMPARE(rows[0].left(11), QString("%1").arg(c.sources[0].number, 10) + " ");
        QCOMPARE(cols[1].ascii(12.345678), QString("    12.3457").toStdString());
        QCOMPARE(cols.back().ascii(7), std::string("  7"));
        QCOMPARE(sourceColumns(c)[sourceColumns(c).size() - 2].ascii(-2.5), std::string(" -2.5000000"));
        QCOMPARE(sourceColumns(c)[sourceColumns(c).size() - 2].ascii(2.5), std::string(" +2.5000000"));
    }

    void csvFullPrecision() {
        const QString dir = fresh("csv");
        const SourceCatalog c = makeCatalog(9, {3.0, 5.0});
        const auto table = parseCsv(test::readFileString(QString::fromStdString(write(c, dir + "/c.csv", SourceCatalogFormat::Csv))));
        QCOMPARE(table.size(), c.sources.size() + 1);
        std::vector<std::string> names;
        for (const SourceColumn& col : sourceColumns(c))
            for (std::size_t k = 0; k < (col.perAperture ? 2u : 1u); ++k)
                names.push_back(k ? std::string(col.name) + "_" + std::to_string(k) : std::string(col.name));
        QCOMPARE(table[0], names);
        QCOMPARE(table[0][15], std::string("FLUX_APER"));
        QCOMPARE(table[0][16], std::string("FLUX_APER_1"));
        int empties = 0;
        for (std::size_t r = 0; r < c.sources.size(); ++r) {
            std::size_t f = 0;
            for (const SourceColumn& col : sourceColumns(c))
                for (std::size_t k = 0; k < (col.perAperture ? 2u : 1u); ++k, ++f) {
                    const double v = col.value(c.sources[r], k);
                    const std::string& field = table[r + 1][f];
                    if (std::isnan(v)) {
                        QVERIFY2(field.empty(), field.c_str());
                        ++empties;
                        continue;
                    }
                    char* end = nullptr;
                    const double back = std::strtod(field.c_str(), &end);
                    QVERIFY2(*end == '\0' && same(back, v), (std::string(col.name) + " = " + field).c_str());
                }
        }
        QVERIFY(empties > 0);
    }

    void zeroSourcesText() {
        const QString dir = fresh("zero");
        const SourceCatalog c = makeCatalog(0, {5.0});
        const std::string ascii = test::readFileString(QString::fromStdString(write(c, dir + "/c.txt", SourceCatalogFormat::Ascii)));
        QCOMPARE(asciiHeaderLines(ascii).size(), int(sourceColumns(c).size()));
        QCOMPARE(QString::fromStdString(ascii).count('\n'), int(sourceColumns(c).size()));
        const auto csv = parseCsv(test::readFileString(QString::fromStdString(write(c, dir + "/c.csv", SourceCatalogFormat::Csv))));
        QCOMPARE(csv.size(), std::size_t(1));
        QCOMPARE(csv[0].front(), std::string("NUMBER"));
    }

    void mapsKeepTheWcs() {
        const QString dir = fresh("maps");
        const TanImage t = tanImage(dir);
        std::vector<std::int32_t> seg(40 * 30, 0);
        for (std::size_t i = 0; i < seg.size(); ++i) seg[i] = (i % 7 == 0) ? std::int32_t(i % 1000) : 0;
        seg[5] = 2147483647;
        std::vector<float> back(40 * 30);
        for (std::size_t i = 0; i < back.size(); ++i) back[i] = 100.0f + float(i) / 7.0f;
        back[3] = SourceRecord::kNaN;
        writeFitsMap((dir + "/seg.fits").toStdString(), 40, 30, seg, &t.header);
        writeFitsMap((dir + "/back.fits").toStdString(), 40, 30, back, &t.header, "Glint background map");
        FitsIn image(t.path);
        for (const QString& name : {QString("seg.fits"), QString("back.fits")}) {
            const bool isSeg = name == "seg.fits";
            FitsIn in(dir + "/" + name);
            QCOMPARE(in.hduCount(), 1);
            QCOMPARE(in.bitpix(), isSeg ? 32 : -32);
            QCOMPARE(in.number("NAXIS1"), 40.0);
            QCOMPARE(in.number("NAXIS2"), 30.0);
            for (const char* key : kWcsNumbers) QVERIFY2(same(in.number(key), image.number(key)), key);
            for (const char* key : {"CTYPE1", "CTYPE2", "RADESYS", "OBJECT"}) QCOMPARE(in.text(key), image.text(key));
            QCOMPARE(in.has("BUNIT"), !isSeg);
            QVERIFY(!in.has("EXPTIME") && !in.has("OBSERVER") && !in.has("BSCALE"));
            QCOMPARE(in.text("ORIGIN"), std::string("Glint"));
            QVERIFY(in.has("HISTORY"));
            if (isSeg) {
                QCOMPARE(in.pixels<std::int32_t>(TINT, 40 * 30), seg);
            } else {
                const std::vector<float> got = in.pixels<float>(TFLOAT, 40 * 30);
                for (std::size_t i = 0; i < got.size(); ++i) QVERIFY(same(got[i], back[i]));
            }
            // Glint reads the map back onto the same sky, pixel for pixel, in the same frame.
            const Image map = loadImage((dir + "/" + name).toStdString());
            QVERIFY(map.meta.wcs);
            for (const auto& [x, y] : {std::pair{0.0, 0.0}, {39.0, 29.0}, {12.5, 7.25}}) {
                const auto a = map.meta.wcs->pixelToSky(x, y), b = t.image.meta.wcs->pixelToSky(x, y);
                QVERIFY(a && b && a->ra == b->ra && a->dec == b->dec);
            }
            QCOMPARE(map.value(5, 0), isSeg ? 2147483647.0 : double(back[5]));
        }
        QVERIFY_THROWS_EXCEPTION(OutputError, fitsMapBytes(40, 29, std::vector<std::int32_t>(40 * 29), &t.header));
        QVERIFY_THROWS_EXCEPTION(OutputError, fitsMapBytes(40, 30, std::vector<float>(10), nullptr, "x"));
        FitsHeaderContext none;
        none.width = 2, none.height = 1;
        FitsIn bare(QString::fromStdString(test::writeTempFile("bare.fits", QByteArray::fromStdString(
            fitsMapBytes(2, 1, std::vector<std::int32_t>{1, 2}, &none))).toStdString()));
        QVERIFY(!bare.has("CTYPE1") && !bare.has("BUNIT"));
    }

    void badPathsLeaveNothing() {
        const QString dir = fresh("bad");
        const TanImage t = tanImage(dir);
        QDir().mkpath(dir + "/taken.fits");
        const QStringList before = QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot);
        const SourceCatalog c = makeCatalog(2, {3.0});
        for (const QString& target : {dir + "/missing/c.fits", dir + "/taken.fits"}) {
            for (SourceCatalogFormat f : {SourceCatalogFormat::Fits, SourceCatalogFormat::Ldac, SourceCatalogFormat::Ascii,
                                          SourceCatalogFormat::Csv}) {
                try {
                    write(c, target, f, &t.header);
                    QFAIL("no OutputError");
                } catch (const OutputError& e) {
                    QVERIFY2(std::string(e.what()).find('\n') == std::string::npos, e.what());
                    QVERIFY2(std::string(e.what()).find(target.toStdString()) != std::string::npos, e.what());
                }
            }
            QVERIFY_THROWS_EXCEPTION(OutputError, writeFitsMap(target.toStdString(), 40, 30,
                                                               std::vector<float>(40 * 30), &t.header, "x"));
        }
        QCOMPARE(QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot), before);
        QVERIFY(QDir(dir + "/taken.fits").isEmpty());
        QVERIFY(!QFileInfo::exists(dir + "/missing"));
    }

    void astropyReadsTheFiles() {
        const QString python = "/usr/bin/python3";
        QProcess probe;
        if (test::runProcess(probe, python, {"-c", "import astropy"}).exitCode != 0)
            QSKIP("/usr/bin/python3 has no astropy (python3-astropy): the astropy check cannot run");
        const QString dir = fresh("astropy");
        const TanImage t = tanImage(dir);
        const SourceCatalog c = makeCatalog(4, {3.0, 6.0});
        write(c, dir + "/c.ldac", SourceCatalogFormat::Ldac, &t.header);
        write(c, dir + "/c.fits", SourceCatalogFormat::Fits);
        write(c, dir + "/c.cat", SourceCatalogFormat::Ascii);
        QStringList expected;
        for (const SourceColumn& col : sourceColumns(c)) expected << QString("%1=%2").arg(col.name, col.unit);
        QProcess p;
        const test::CliResult r = test::runProcess(p, python, {QString(GLINT_SOURCE_DIR "/tests/support/astropy_catalog_check.py"),
                                                               dir, expected.join(',')});
        QVERIFY2(r.exitCode == 0, (r.out + r.err).constData());
        QVERIFY2(r.out.contains("ok"), r.out.constData());
    }
};

QTEST_GUILESS_MAIN(TestSourceCatalogFiles)
#include "test_source_catalog_files.moc"
