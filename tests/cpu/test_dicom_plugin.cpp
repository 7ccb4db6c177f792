// The DICOM plugin (core/io/DicomDecoder.h): GDCM is loaded only when a DICOM file is read, never for
// FITS/CSV; a missing or broken plugin (GLINT_DICOM_PLUGIN pointed at a file that is none) gives one line
// and exit 3 for a DICOM file, while FITS and CSV still work. Both the full and the lean build have the
// plugin. This suite links no GDCM itself (its DICOM file is a committed seed of the fuzz corpus), so
// what is mapped is what the plugin brought.
#include "tests/support/PluginChecks.h"
#include "tests/support/TestSupport.h"

#include "core/io/DicomDecoder.h"
#include "core/io/ImageLoader.h"

#include <QtTest>

#include <string>

using namespace glint;

namespace {

// A 16-bit explicit VR little endian DICOM file written by fuzz_make_seeds (GDCM).
QString dicomFile() { return QString(GLINT_SOURCE_DIR "/fuzz/corpus/dicom/mono16_explicit_le.dcm"); }

} // namespace

class TestDicomPlugin : public QObject {
    Q_OBJECT

private slots:
    // Before anything read a DICOM file, the test program (which links glint_core) has neither the plugin
    // nor GDCM; a FITS and a CSV file do not load them; the first DICOM file does.
    void loadedOnFirstUse() {
        test::checkNoneMapped({"glint_dicom", "libgdcm"});
        QCOMPARE(loadImage(test::writeSmallCsv().toStdString()).width(), 3);
        QCOMPARE(loadImage(test::samplePath("ngc1316o.fit").toStdString()).width(), 440);
        test::checkNoneMapped({"glint_dicom", "libgdcm"});

        const Image image = loadImage(dicomFile().toStdString());
        QCOMPARE(image.meta.format, std::string("DICOM"));
        QVERIFY(image.width() > 0 && image.height() > 0);
        QVERIFY(!image.meta.header.empty()); // the tags that matter, named by GDCM's dictionary
        test::checkPluginLoaded(dicomDecoder, dicomDecoderError, {"glint_dicom", "libgdcmMSFF"});
    }

    // glint-cli on FITS or CSV maps neither the plugin nor GDCM (the dynamic linker's own list); on a
    // DICOM file it does, and reads it.
    void cliLoadsGdcmOnlyForDicom() {
        for (const QString& path : {test::writeSmallCsv(), test::samplePath("ngc1316o.fit")}) {
            test::checkInfoMaps(path, {}, {"glint_dicom", "libgdcm"});
            if (QTest::currentTestFailed()) return;
        }
        const test::CliResult dicom = test::checkInfoMaps(dicomFile(), {"glint_dicom", "libgdcmMSFF"}, {});
        QVERIFY(dicom.out.contains("DICOM"));
    }

    void missingPlugin_data() { test::addBrokenPluginRows("glint_dicom"); }

    // A plugin that does not load: a DICOM file is refused with one line and exit 3 (info, a search, and
    // batch, which goes on with the next file); CSV and FITS inputs still open.
    void missingPlugin() {
        QFETCH(QString, plugin);
        QFETCH(QString, why);
        const QString dicom = dicomFile();
        const QByteArray expected = "glint-cli: cannot open '" + dicom.toUtf8() + "': reading DICOM files needs Glint's DICOM plugin: ";
        for (const QStringList& args : {QStringList{"info", dicom}, QStringList{"brightest", dicom, "--backend", "cpu"}}) {
            const test::CliResult read = test::runCliWithEnv(args, "GLINT_DICOM_PLUGIN", plugin);
            test::checkRefusedRead(read, expected, why);
            if (QTest::currentTestFailed()) return;
            QVERIFY(read.out.isEmpty());
        }

        test::checkCsvOpens("GLINT_DICOM_PLUGIN", plugin);
        if (QTest::currentTestFailed()) return;
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
