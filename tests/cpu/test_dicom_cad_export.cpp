// CAD marks as DICOM (dicom/export): `glint-cli brightest IMAGE.dcm --cad-sr SR.dcm --gsps PS.dcm` on
// CT_small.dcm, MR_small.dcm and a digital mammogram written here with GDCM; the files are read back with
// DCMTK: the SR is a Mammography CAD SR whose every image reference (Image Library, each outline's
// SELECTED FROM, the evidence) names the source's SOP Class and Instance, one SCOORD per region; the
// presentation state references the source's study, series and instance and holds one graphic and one
// rank text per region. Also: zero marks (a valid SR "without findings"), a non-DICOM input (exit 2, one
// line, nothing written); DCMTK is a plugin (glint_dicom_cad) mapped only by a run that writes one of these files,
// and a writer plugin that does not load refuses the output with one line and exit 3. Skipped in a build without
// DCMTK.
#include "tests/support/GdcmElements.h"
#include "tests/support/PluginChecks.h"
#include "tests/support/TestSupport.h"

#include <QFile>
#include <QtTest>

#if GLINT_HAVE_DCMTK
#include "dicom/export/DicomCadExport.h"

#include <dcmtk/dcmdata/dcdeftag.h>
#include <dcmtk/dcmdata/dcfilefo.h>
#include <dcmtk/dcmdata/dcstack.h>
#include <dcmtk/dcmsr/dsrdoc.h>
#endif

#include <gdcmImageWriter.h>
#include <gdcmUIDGenerator.h>

#include <set>

using namespace glint;

namespace {

#if GLINT_HAVE_DCMTK
struct Uids {
    std::string sopClass, sopInstance, study, series;
};

std::string text(DcmItem& item, const DcmTagKey& key) {
    OFString value;
    item.findAndGetOFString(key, value);
    return value.c_str();
}

Uids uidsOf(const QString& path) {
    DcmFileFormat file;
    if (file.loadFile(path.toUtf8().constData()).bad()) return {};
    DcmDataset& ds = *file.getDataset();
    return {text(ds, DCM_SOPClassUID), text(ds, DCM_SOPInstanceUID), text(ds, DCM_StudyInstanceUID),
            text(ds, DCM_SeriesInstanceUID)};
}

// Every value of an element anywhere in the dataset (nested sequences too).
std::vector<std::string> allValues(DcmDataset& ds, const DcmTagKey& key) {
    std::vector<std::string> out;
    DcmStack stack;
    while (ds.search(key, stack, ESM_afterStackTop, OFTrue).good()) {
        OFString v;
        if (auto* element = dynamic_cast<DcmElement*>(stack.top())) element->getOFStringArray(v);
        out.push_back(v.c_str());
    }
    return out;
}

std::size_t count(const std::vector<std::string>& values, const std::string& value) {
    return static_cast<std::size_t>(std::count(values.begin(), values.end(), value));
}

using test::insertText;

// A 64 x 48 digital mammogram for presentation (MG) with two bright spots.
QString writeMammogram() {
    gdcm::ImageWriter writer;
    gdcm::Image& image = writer.GetImage();
    image.SetNumberOfDimensions(2);
    image.SetDimension(0, 64);
    image.SetDimension(1, 48);
    image.SetPixelFormat(gdcm::PixelFormat(gdcm::PixelFormat::UINT16));
    image.SetPhotometricInterpretation(gdcm::PhotometricInterpretation::MONOCHROME2);
    image.SetTransferSyntax(gdcm::TransferSyntax::ExplicitVRLittleEndian);
    std::vector<std::uint16_t> words(64 * 48, 100);
    for (int y = 10; y < 14; ++y)
        for (int x = 20; x < 25; ++x) words[static_cast<std::size_t>(y * 64 + x)] = 900;
    for (int y = 30; y < 33; ++y)
        for (int x = 40; x < 42; ++x) words[static_cast<std::size_t>(y * 64 + x)] = 700;
    gdcm::DataElement pixels(gdcm::Tag(0x7fe0, 0x0010));
    pixels.SetByteValue(reinterpret_cast<const char*>(words.data()), static_cast<std::uint32_t>(words.size() * 2));
    image.SetDataElement(pixels);
    gdcm::DataSet& ds = writer.GetFile().GetDataSet();
    gdcm::UIDGenerator uid;
    insertText(ds, 0x0008, 0x0016, gdcm::VR::UI, "1.2.840.10008.5.1.4.1.1.1.2");
    insertText(ds, 0x0008, 0x0018, gdcm::VR::UI, uid.Generate());
    insertText(ds, 0x0020, 0x000d, gdcm::VR::UI, uid.Generate());
    insertText(ds, 0x0020, 0x000e, gdcm::VR::UI, uid.Generate());
    insertText(ds, 0x0008, 0x0060, gdcm::VR::CS, "MG");
    insertText(ds, 0x0010, 0x0010, gdcm::VR::PN, "Test^Mammogram");
    insertText(ds, 0x0010, 0x0020, gdcm::VR::LO, "GLINT-MG-1");
    insertText(ds, 0x0018, 0x5101, gdcm::VR::CS, "CC");
    const QString path = test::tempDir() + "/mammogram.dcm";
    writer.SetFileName(path.toUtf8().constData());
    return writer.Write() ? path : QString();
}
#endif

} // namespace

class TestDicomCadExport : public QObject {
    Q_OBJECT

private slots:
    void srAndGspsReferenceTheSource_data() {
        QTest::addColumn<QString>("name");
        QTest::newRow("mammogram") << "mammogram";
        QTest::newRow("CT_small") << "CT_small.dcm";
        QTest::newRow("MR_small") << "MR_small.dcm";
    }
    void srAndGspsReferenceTheSource() {
#if !GLINT_HAVE_DCMTK
        QSKIP("this build has no DCMTK (GLINT_WITH_DCMTK, Debian: libdcmtk-dev)");
#else
        QFETCH(QString, name);
        QString source;
        if (name == "mammogram") {
            source = writeMammogram();
            QVERIFY(!source.isEmpty());
        } else {
            GLINT_REAL_FILE(real, name);
            source = real;
        }
        const QString sr = test::tempDir() + "/" + name + "-sr.dcm", ps = test::tempDir() + "/" + name + "-ps.dcm";
        const test::CliResult run = test::runCli({"brightest", source, "--k", "3", "--cad-sr", sr, "--gsps", ps});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        // The regions found (up to 3: "  #1  x ..." lines), each of which must be in both files.
        std::size_t n = 0;
        for (const QByteArray& line : run.out.split('\n'))
            if (line.startsWith("  #")) ++n;
        QVERIFY2(n >= 1 && n <= 3, run.out.constData());
        const Uids src = uidsOf(source);
        QVERIFY(!src.sopInstance.empty());

        DcmFileFormat srFile;
        QVERIFY(srFile.loadFile(sr.toUtf8().constData()).good());
        DcmDataset& srData = *srFile.getDataset();
        DSRDocument doc;
        QVERIFY(doc.read(srData).good());
        QCOMPARE(doc.getDocumentType(), DSRTypes::DT_MammographyCadSR);
        QCOMPARE(text(srData, DCM_StudyInstanceUID), src.study);
        QVERIFY(text(srData, DCM_SeriesInstanceUID) != src.series);
        QVERIFY(text(srData, DCM_SOPInstanceUID) != src.sopInstance);
        const auto instances = allValues(srData, DCM_ReferencedSOPInstanceUID);
        const auto classes = allValues(srData, DCM_ReferencedSOPClassUID);
        QCOMPARE(instances.size(), n + 2); // evidence, image library, one per outline
        QCOMPARE(count(instances, src.sopInstance), instances.size());
        QCOMPARE(count(classes, src.sopClass), classes.size());
        const auto valueTypes = allValues(srData, DCM_ValueType);
        QCOMPARE(count(valueTypes, "SCOORD"), n);
        const auto codes = allValues(srData, DCM_CodeValue);
        QVERIFY(count(codes, "111242") == 1); // with findings
        QCOMPARE(count(codes, "111059"), n); // single image findings
        QCOMPARE(count(allValues(srData, DCM_GraphicType), "POLYLINE"), n);

        DcmFileFormat psFile;
        QVERIFY(psFile.loadFile(ps.toUtf8().constData()).good());
        DcmDataset& psData = *psFile.getDataset();
        QCOMPARE(text(psData, DCM_SOPClassUID), std::string("1.2.840.10008.5.1.4.1.1.11.1"));
        QCOMPARE(text(psData, DCM_StudyInstanceUID), src.study);
        QVERIFY(text(psData, DCM_SOPInstanceUID) != src.sopInstance);
        const auto psInstances = allValues(psData, DCM_ReferencedSOPInstanceUID);
        QVERIFY(!psInstances.empty());
        QCOMPARE(count(psInstances, src.sopInstance), psInstances.size());
        QCOMPARE(count(allValues(psData, DCM_SeriesInstanceUID), src.series), std::size_t(1)); // the referenced series
        QCOMPARE(allValues(psData, DCM_GraphicType).size(), n);
        const auto texts = allValues(psData, DCM_UnformattedTextValue);
        std::set<std::string> ranks;
        for (std::size_t i = 1; i <= n; ++i) ranks.insert("#" + std::to_string(i));
        QCOMPARE(std::set<std::string>(texts.begin(), texts.end()), ranks);
        QVERIFY(count(allValues(psData, DCM_GraphicLayer), "CAD MARKS") >= 2); // defined, and used by the annotations
#endif
    }

    void zeroMarksGiveAnSrWithoutFindings() {
#if !GLINT_HAVE_DCMTK
        QSKIP("this build has no DCMTK");
#else
        const QString source = writeMammogram();
        const QString sr = test::tempDir() + "/empty-sr.dcm";
        CadExportInfo info;
        info.sourcePath = source.toStdString();
        writeMammographyCadSr(sr.toStdString(), info, {});
        DcmFileFormat file;
        QVERIFY(file.loadFile(sr.toUtf8().constData()).good());
        DSRDocument doc;
        QVERIFY(doc.read(*file.getDataset()).good());
        const auto codes = allValues(*file.getDataset(), DCM_CodeValue);
        QCOMPARE(count(codes, "111241"), std::size_t(1)); // without findings
        QCOMPARE(count(allValues(*file.getDataset(), DCM_ValueType), "SCOORD"), std::size_t(0));
#endif
    }

    void nonDicomInputIsAUsageError() {
#if !GLINT_HAVE_DCMTK
        QSKIP("this build has no DCMTK");
#else
        const QString sr = test::tempDir() + "/never-sr.dcm";
        const test::CliResult run =
            test::runCli({"brightest", test::samplePath("ngc1316o.fit"), "--k", "2", "--cad-sr", sr});
        QCOMPARE(run.exitCode, 2);
        QVERIFY(test::oneErrorLine(run.err));
        QVERIFY2(run.err.contains("need a DICOM input image"), run.err.constData());
        QVERIFY(!QFile::exists(sr));
        // An output naming the input is refused before anything runs.
        const QString mg = writeMammogram();
        const test::CliResult same = test::runCli({"brightest", mg, "--gsps", mg});
        QCOMPARE(same.exitCode, 2);
#endif
    }

    // Reading DICOM and finding regions map none of DCMTK (the dynamic linker's own list); the first CAD SR does.
    void dcmtkLoadedOnlyToWriteDicom() {
#if !GLINT_HAVE_DCMTK
        QSKIP("this build has no DCMTK");
#else
        const QString mg = writeMammogram();
        QVERIFY(!mg.isEmpty());
        const test::CliResult read = test::runCliWithEnv({"brightest", mg, "--k", "2"}, "LD_DEBUG", "files");
        QVERIFY2(read.exitCode == 0, read.err.right(2000).constData());
        QVERIFY2(!read.err.contains("glint_dicom_cad") && !read.err.contains("libdcm"), "a run without DICOM outputs loaded DCMTK");
        const QString sr = test::tempDir() + "/mapped-sr.dcm";
        const test::CliResult write = test::runCliWithEnv({"brightest", mg, "--k", "2", "--cad-sr", sr}, "LD_DEBUG", "files");
        QVERIFY2(write.exitCode == 0, write.err.right(2000).constData());
        QVERIFY(write.err.contains("glint_dicom_cad") && write.err.contains("libdcmsr"));
        QVERIFY(QFile::exists(sr));
#endif
    }

    void missingWriterPlugin_data() { test::addBrokenPluginRows("glint_dicom_cad"); }

    // A writer plugin that does not load: the DICOM outputs are refused with one line and exit 3, nothing is
    // written; the same search without them runs.
    void missingWriterPlugin() {
#if !GLINT_HAVE_DCMTK
        QSKIP("this build has no DCMTK");
#else
        QFETCH(QString, plugin);
        QFETCH(QString, why);
        const QString mg = writeMammogram();
        QVERIFY(!mg.isEmpty());
        const QString sr = test::tempDir() + "/unwritten-sr.dcm", ps = test::tempDir() + "/unwritten-ps.dcm";
        for (const QStringList& output : {QStringList{"--cad-sr", sr}, QStringList{"--gsps", ps}}) {
            const test::CliResult r = test::runCliWithEnv(QStringList{"brightest", mg, "--k", "2"} + output, "GLINT_DICOM_CAD_PLUGIN", plugin);
            QCOMPARE(r.exitCode, 3);
            QVERIFY2(test::oneErrorLine(r.err), r.err.constData());
            QVERIFY2(r.err.startsWith("glint-cli: cannot write '" + output[1].toUtf8() + "': "), r.err.constData());
            QVERIFY2(r.err.contains(why.toUtf8()), r.err.constData());
            QVERIFY(!QFile::exists(output[1]));
        }
        const test::CliResult plain = test::runCliWithEnv({"brightest", mg, "--k", "2"}, "GLINT_DICOM_CAD_PLUGIN", plugin);
        QCOMPARE(plain.exitCode, 0);
        QVERIFY2(!plain.err.contains("plugin"), plain.err.constData());
#endif
    }
};

QTEST_GUILESS_MAIN(TestDicomCadExport)
#include "test_dicom_cad_export.moc"
