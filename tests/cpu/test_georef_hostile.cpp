// Georeferencing of damaged or hostile inputs: side files that are not world files or CRS (the image opens,
// without georeferencing or CRS, nothing is printed, nothing hangs), FIFOs and folders as side files, a
// GeoTIFF whose CRS is not in the EPSG registry or whose GeoKey directory is damaged, and loading from
// several threads at once.
#include "tests/cpu/test_georef_support.h"
#include "tests/support/TestSupport.h"

#include "core/io/Georef.h"
#include "core/io/ImageLoader.h"

#include <QDir>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <atomic>
#include <optional>
#include <thread>
#include <vector>

#include <sys/stat.h>

using namespace glint;
using namespace glint::test::geofiles;

class TestGeorefHostile : public QObject {
    Q_OBJECT

private slots:
    // Damaged or hostile side files: the image opens, without georeferencing (or without CRS), nothing
    // is printed, nothing hangs.
    void hostileSideFiles_data() {
        test::columns<QByteArray, QByteArray, bool, bool>({"world", "prj", "georeferenced", "withCrs"});
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

QTEST_GUILESS_MAIN(TestGeorefHostile)
#include "test_georef_hostile.moc"
