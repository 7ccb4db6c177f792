// The DICOM plugin (core/io/DicomDecoder.h): GDCM is loaded only when a DICOM file is read, never for
// FITS/CSV; a missing or broken plugin (GLINT_DICOM_PLUGIN pointed at a file that is none) gives one line
// and exit 3 for a DICOM file, while FITS and CSV still work. Both the full and the lean build have the
// plugin. This suite links no GDCM itself (its DICOM file is a committed seed of the fuzz corpus), so
// what is mapped is what the plugin brought.
#include "tests/support/TestSupport.h"

#include "core/io/DicomDecoder.h"
#include "core/io/ImageLoader.h"

#include <QtTest>

#include <string>

using namespace glint;

namespace {

QString writeCsv() { return test::writeTempFile("small.csv", "1,2,3\n4,50,6\n7,8,9\n"); }

// A 16-bit explicit VR little endian DICOM file written by fuzz_make_seeds (GDCM).
QString dicomFile() { return QString(GLINT_SOURCE_DIR "/fuzz/corpus/dicom/mono16_explicit_le.dcm"); }

} // namespace

class TestDicomPlugin : public QObject {
    Q_OBJECT

private slots:
    // Before anything read a DICOM file, the test program (which links glint_core) has neither the plugin
    // nor GDCM; a FITS and a CSV file do not load them; the first DICOM file does.
    void loadedOnFirstUse() {
        QVERIFY(!test::libraryMapped("glint_dicom"));
        QVERIFY(!test::libraryMapped("libgdcm"));
        QCOMPARE(loadImage(writeCsv().toStdString()).width(), 3);
        QCOMPARE(loadImage(test::samplePath("ngc1316o.fit").toStdString()).width(), 440);
        QVERIFY(!test::libraryMapped("glint_dicom"));
        QVERIFY(!test::libraryMapped("libgdcm"));

        const Image image = loadImage(dicomFile().toStdString());
        QCOMPARE(image.meta.format, std::string("DICOM"));
        QVERIFY(image.width() > 0 && image.height() > 0);
        QVERIFY(!image.meta.header.empty()); // the tags that matter, named by GDCM's dictionary
        QVERIFY2(dicomDecoder() != nullptr, dicomDecoderError().c_str());
        QVERIFY(dicomDecoderError().empty());
        QVERIFY(test::libraryMapped("glint_dicom"));
        QVERIFY(test::libraryMapped("libgdcmMSFF"));
        QVERIFY(dicomDecoder() == dicomDecoder()); // one instance
    }

    // glint-cli on FITS or CSV maps neither the plugin nor GDCM (the dynamic linker's own list); on a
    // DICOM file it does, and reads it.
    void cliLoadsGdcmOnlyForDicom() {
        for (const QString& path : {writeCsv(), test::samplePath("ngc1316o.fit")}) {
            const test::CliResult plain = test::runCliWithEnv({"info", path}, "LD_DEBUG", "files");
            QCOMPARE(plain.exitCode, 0);
            QVERIFY2(!plain.err.contains("glint_dicom") && !plain.err.contains("libgdcm"),
                     qPrintable("glint-cli info " + path + " loaded GDCM"));
        }
        const test::CliResult dicom = test::runCliWithEnv({"info", dicomFile()}, "LD_DEBUG", "files");
        QCOMPARE(dicom.exitCode, 0);
        QVERIFY(dicom.out.contains("DICOM"));
        QVERIFY(dicom.err.contains("glint_dicom"));
        QVERIFY(dicom.err.contains("libgdcmMSFF"));
    }

    void missingPlugin_data() {
        QTest::addColumn<QString>("plugin");
        QTest::addColumn<QString>("why");
        QTest::newRow("missing") << "/nonexistent/glint_dicom.so" << "cannot open shared object file";
        QTest::newRow("not a library") << QString(GLINT_SOURCE_DIR "/CMakeLists.txt") << "invalid ELF header";
        QTest::newRow("another library") << QString("libz.so.1") << "has no glint_dicom_factory_v1";
    }

    // A plugin that does not load: a DICOM file is refused with one line and exit 3 (info, a search, and
    // batch, which goes on with the next file); CSV and FITS inputs still open.
    void missingPlugin() {
        QFETCH(QString, plugin);
        QFETCH(QString, why);
        const QString dicom = dicomFile();
        const QByteArray expected = "glint-cli: cannot open '" + dicom.toUtf8() + "': reading DICOM files needs Glint's DICOM plugin: ";
        for (const QStringList& args : {QStringList{"info", dicom}, QStringList{"brightest", dicom, "--backend", "cpu"}}) {
            const test::CliResult read = test::runCliWithEnv(args, "GLINT_DICOM_PLUGIN", plugin);
            QCOMPARE(read.exitCode, 3);
            QVERIFY2(test::oneErrorLine(read.err), read.err.constData());
            QVERIFY2(read.err.startsWith(expected), read.err.constData());
            QVERIFY2(read.err.contains(why.toUtf8()), read.err.constData());
            QVERIFY(read.out.isEmpty());
        }

        const QString csv = writeCsv();
        const test::CliResult text = test::runCliWithEnv({"info", csv}, "GLINT_DICOM_PLUGIN", plugin);
        QCOMPARE(text.exitCode, 0);
        QVERIFY(text.err.isEmpty());
        const QString fits = test::samplePath("ngc1316o.fit");
        const test::CliResult fitsRun = test::runCliWithEnv({"brightest", fits, "--backend", "cpu"}, "GLINT_DICOM_PLUGIN", plugin);
        QCOMPARE(fitsRun.exitCode, 0);
        QVERIFY(fitsRun.err.isEmpty());

        const test::CliResult batch =
            test::runCliWithEnv({"batch", "--algo", "info", "--out", "-", dicom, fits}, "GLINT_DICOM_PLUGIN", plugin);
        QVERIFY2(batch.err.contains("reading DICOM files needs Glint's DICOM plugin: "), batch.err.constData());
        QVERIFY(batch.out.contains("ngc1316o.fit,FITS,440,300"));
    }
};

QTEST_GUILESS_MAIN(TestDicomPlugin)
#include "test_dicom_plugin.moc"
