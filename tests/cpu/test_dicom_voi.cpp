// DICOM's grayscale pipeline (core/io/DicomVoi.h): the VOI LUT Function's formulas of PS3.3 C.11.2.1.2
// checked on numbers worked out by hand, files written here with GDCM (SIGMOID, LINEAR_EXACT, multiple
// windows, a VOI LUT Sequence, Presentation LUT Shape, MONOCHROME1 unsigned and signed) rendered through
// core/display, the inconsistent attributes left out with a note, and CT_small.dcm's CT presets.
#include "tests/support/GdcmElements.h"
#include "tests/support/TestSupport.h"

#include "core/display/Display.h"
#include "core/io/DicomVoi.h"
#include "core/io/ImageLoader.h"

#include <QtTest>

#include <gdcmImageWriter.h>
#include <gdcmSequenceOfItems.h>

#include <cmath>

using namespace glint;

namespace {

using test::insertText;

void insertWords(gdcm::DataSet& ds, std::uint16_t group, std::uint16_t element, gdcm::VR vr,
                 const std::vector<std::uint16_t>& words) {
    gdcm::DataElement de(gdcm::Tag(group, element));
    de.SetVR(vr);
    de.SetByteValue(reinterpret_cast<const char*>(words.data()), static_cast<std::uint32_t>(words.size() * 2));
    ds.Replace(de);
}

struct Lut {
    std::vector<std::uint16_t> descriptor, data;
    std::string explanation;
};

struct Synthetic {
    bool signedPixels = false;
    bool monochrome1 = false;
    std::vector<int> values; // 16 values, 4 x 4, stored
    std::string function, center, width, explanation, shape, modality = "MG";
    std::vector<Lut> luts;
};

QString writeDicom(const Synthetic& s) {
    gdcm::ImageWriter writer;
    gdcm::Image& image = writer.GetImage();
    image.SetNumberOfDimensions(2);
    image.SetDimension(0, 4);
    image.SetDimension(1, 4);
    image.SetPixelFormat(gdcm::PixelFormat(s.signedPixels ? gdcm::PixelFormat::INT16 : gdcm::PixelFormat::UINT16));
    image.SetPhotometricInterpretation(s.monochrome1 ? gdcm::PhotometricInterpretation::MONOCHROME1
                                                     : gdcm::PhotometricInterpretation::MONOCHROME2);
    image.SetTransferSyntax(gdcm::TransferSyntax::ExplicitVRLittleEndian);
    std::vector<std::uint16_t> words;
    for (int v : s.values) words.push_back(static_cast<std::uint16_t>(static_cast<std::int16_t>(v)));
    gdcm::DataElement pixels(gdcm::Tag(0x7fe0, 0x0010));
    pixels.SetByteValue(reinterpret_cast<const char*>(words.data()), static_cast<std::uint32_t>(words.size() * 2));
    image.SetDataElement(pixels);
    gdcm::DataSet& ds = writer.GetFile().GetDataSet();
    insertText(ds, 0x0008, 0x0016, gdcm::VR::UI, "1.2.840.10008.5.1.4.1.1.7"); // secondary capture
    insertText(ds, 0x0008, 0x0060, gdcm::VR::CS, s.modality);
    if (!s.center.empty()) insertText(ds, 0x0028, 0x1050, gdcm::VR::DS, s.center);
    if (!s.width.empty()) insertText(ds, 0x0028, 0x1051, gdcm::VR::DS, s.width);
    if (!s.explanation.empty()) insertText(ds, 0x0028, 0x1055, gdcm::VR::LO, s.explanation);
    if (!s.function.empty()) insertText(ds, 0x0028, 0x1056, gdcm::VR::CS, s.function);
    if (!s.shape.empty()) insertText(ds, 0x2050, 0x0020, gdcm::VR::CS, s.shape);
    if (!s.luts.empty()) {
        gdcm::SmartPointer<gdcm::SequenceOfItems> sq = new gdcm::SequenceOfItems;
        sq->SetLengthToUndefined();
        for (const Lut& l : s.luts) {
            gdcm::Item item;
            item.SetVLToUndefined();
            gdcm::DataSet& nested = item.GetNestedDataSet();
            insertWords(nested, 0x0028, 0x3002, s.signedPixels ? gdcm::VR::SS : gdcm::VR::US, l.descriptor);
            if (!l.explanation.empty()) insertText(nested, 0x0028, 0x3003, gdcm::VR::LO, l.explanation);
            insertWords(nested, 0x0028, 0x3006, gdcm::VR::OW, l.data);
            sq->AddItem(item);
        }
        gdcm::DataElement de(gdcm::Tag(0x0028, 0x3010));
        de.SetVR(gdcm::VR::SQ);
        de.SetValue(*sq);
        de.SetVLToUndefined();
        ds.Replace(de);
    }
    static int counter = 0;
    const QString path = test::tempDir() + QString("/voi-%1.dcm").arg(++counter);
    writer.SetFileName(path.toUtf8().constData());
    return writer.Write() ? path : QString();
}

Image load(const Synthetic& s) {
    const QString path = writeDicom(s);
    if (path.isEmpty()) throw std::runtime_error("GDCM could not write the test file");
    return loadImage(path.toStdString());
}

std::vector<int> ramp(int first, int step) {
    std::vector<int> v;
    for (int i = 0; i < 16; ++i) v.push_back(first + i * step);
    return v;
}

// The grey level each pixel is drawn with through VOI choice `choice`.
std::vector<int> greys(const Image& image, int choice) {
    const DisplaySettings settings = dicomVoiSettings(image, choice, DisplaySettings{});
    const std::vector<std::uint32_t> argb = renderImage(image, settings, computeLimits(image, settings));
    std::vector<int> out;
    for (std::uint32_t c : argb) out.push_back(static_cast<int>(c & 0xFF));
    return out;
}

int level(double p) { return static_cast<int>(std::lround(p * 255.0)); }

} // namespace

class TestDicomVoi : public QObject {
    Q_OBJECT

private slots:
    void formulasByHand() {
        // LINEAR, c 100, w 50: 0 up to c - 0.5 - (w - 1)/2 = 75, 1 above c - 0.5 + (w - 1)/2 = 124,
        // (x - 99.5) / 49 + 0.5 between.
        QCOMPARE(voiLinear(75, 100, 50), 0.0);
        QCOMPARE(voiLinear(75.49, 100, 50), (75.49 - 99.5) / 49.0 + 0.5);
        QCOMPARE(voiLinear(124, 100, 50), 1.0);
        QCOMPARE(voiLinear(123, 100, 50), 23.5 / 49.0 + 0.5);
        QCOMPARE(voiLinear(124.01, 100, 50), 1.0);
        QCOMPARE(voiLinear(100, 100, 50), 0.5 / 49.0 + 0.5);
        QCOMPARE(voiLinear(80, 100, 50), -19.5 / 49.0 + 0.5);
        // Width 1: a step at c - 0.5.
        QCOMPARE(voiLinear(99.5, 100, 1), 0.0);
        QCOMPARE(voiLinear(99.6, 100, 1), 1.0);
        // LINEAR_EXACT: 0 up to c - w/2, 1 above c + w/2, (x - c) / w + 0.5 between.
        QCOMPARE(voiLinearExact(75, 100, 50), 0.0);
        QCOMPARE(voiLinearExact(100, 100, 50), 0.5);
        QCOMPARE(voiLinearExact(112.5, 100, 50), 0.75);
        QCOMPARE(voiLinearExact(125.01, 100, 50), 1.0);
        // SIGMOID: 1 / (1 + exp(-4 (x - c) / w)).
        QCOMPARE(voiSigmoid(100, 100, 50), 0.5);
        QVERIFY(std::abs(voiSigmoid(125, 100, 50) - 1.0 / (1.0 + std::exp(-2.0))) < 1e-15);
        QVERIFY(std::abs(voiSigmoid(50, 100, 50) - 1.0 / (1.0 + std::exp(4.0))) < 1e-15);
        // A VOI LUT: first entry below its first value mapped, last above, 8-bit entries over 255.
        VoiLut lut{10, 8, {0, 100, 200, 255}, ""};
        QCOMPARE(voiLutOutput(lut, 3), 0.0);
        QCOMPARE(voiLutOutput(lut, 11), 100.0 / 255.0);
        QCOMPARE(voiLutOutput(lut, 11.4), 100.0 / 255.0);
        QCOMPARE(voiLutOutput(lut, 12), 200.0 / 255.0);
        QCOMPARE(voiLutOutput(lut, 99), 1.0);
    }

    void sigmoidWithTwoWindows() {
        Synthetic s;
        s.values = ramp(0, 20); // 0..300
        s.function = "SIGMOID";
        s.center = "100\\200";
        s.width = "50\\300";
        s.explanation = "NARROW\\WIDE";
        const Image image = load(s);
        QVERIFY(image.meta.voi);
        const DicomVoi& voi = *image.meta.voi;
        QCOMPARE(voi.function, VoiFunction::Sigmoid);
        QCOMPARE(voi.choiceCount(), 2);
        QCOMPARE(QString::fromStdString(voi.choiceName(1)), QString("window 2: C 200 W 300 (WIDE)"));
        QVERIFY(voi.notes.empty());
        QCOMPARE(defaultDisplaySettings(image).voiChoice, 0); // the first window by default
        const std::vector<int> first = greys(image, 0), second = greys(image, 1);
        for (int i = 0; i < 16; ++i) {
            const double x = i * 20;
            QCOMPARE(first[i], level(1.0 / (1.0 + std::exp(-4.0 * (x - 100) / 50))));
            QCOMPARE(second[i], level(1.0 / (1.0 + std::exp(-4.0 * (x - 200) / 300))));
        }
    }

    void linearExactAndInverseShape() {
        Synthetic s;
        s.values = ramp(0, 10);
        s.function = "LINEAR_EXACT";
        s.center = "75";
        s.width = "100";
        s.shape = "INVERSE";
        const Image image = load(s);
        QVERIFY(image.meta.voi && image.meta.voi->inverse);
        const std::vector<int> g = greys(image, 0);
        for (int i = 0; i < 16; ++i) {
            const double x = i * 10, y = x <= 25 ? 0.0 : x > 125 ? 1.0 : (x - 75) / 100 + 0.5;
            QCOMPARE(g[i], level(1.0 - y));
        }
    }

    void voiLutSequenceBeforeWindows() {
        Synthetic s;
        s.values = ramp(8, 1); // 8..23
        s.center = "15";
        s.width = "10";
        s.luts = {{{4, 10, 8}, {0, 100, 200, 255}, "FOUR STEPS"}};
        const Image image = load(s);
        QVERIFY(image.meta.voi);
        QCOMPARE(image.meta.voi->luts.size(), std::size_t(1));
        QCOMPARE(image.meta.voi->choiceCount(), 2);
        QCOMPARE(QString::fromStdString(image.meta.voi->choiceName(0)), QString("VOI LUT 1: FOUR STEPS"));
        const std::vector<int> g = greys(image, 0); // the LUT: the default
        const int expected[16] = {0, 0, 0, 100, 200, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255};
        for (int i = 0; i < 16; ++i) QCOMPARE(g[i], expected[i]);
        const std::vector<int> w = greys(image, 1); // the window, LINEAR
        for (int i = 0; i < 16; ++i) QCOMPARE(w[i], level(voiLinear(8 + i, 15, 10)));
    }

    void monochrome1UnsignedAndSigned_data() {
        QTest::addColumn<bool>("signedPixels");
        QTest::newRow("unsigned") << false;
        QTest::newRow("signed") << true;
    }
    void monochrome1UnsignedAndSigned() {
        QFETCH(bool, signedPixels);
        Synthetic s;
        s.monochrome1 = true;
        s.signedPixels = signedPixels;
        s.values = signedPixels ? ramp(-80, 10) : ramp(0, 10);
        s.center = signedPixels ? "-20" : "60";
        s.width = "81";
        const Image image = load(s);
        QVERIFY(image.meta.voi && image.meta.voi->inverse && image.meta.voi->mirror);
        // The loader mirrors within the stored range of 16 bits: 0 + 65535, or -32768 + 32767.
        QCOMPARE(*image.meta.voi->mirror, signedPixels ? -1.0 : 65535.0);
        const double m = *image.meta.voi->mirror;
        const double c = std::stod(s.center);
        const std::vector<int> g = greys(image, 0);
        for (int i = 0; i < 16; ++i) {
            // Loaded mirrored (bright is high), shown as 1 - VOI(x) of the stored x: the same picture.
            QCOMPARE(image.value(static_cast<std::size_t>(i)), m - s.values[i]);
            QCOMPARE(g[i], level(1.0 - voiLinear(s.values[i], c, 81)));
        }
        QVERIFY(g.front() > g.back()); // low stored values are bright in MONOCHROME1
    }

    void inconsistentAttributesAreLeftOutWithANote() {
        Synthetic s;
        s.values = ramp(0, 1);
        s.center = "5\\6\\7";
        s.width = "0\\-3\\abc";
        s.function = "CURVY";
        s.shape = "SIDEWAYS";
        s.luts = {{{5, 0, 16}, {1, 2, 3, 4}, ""}, {{4, 0, 12}, {0, 1, 2, 9000}, ""}, {{4, 0}, {1, 2, 3, 4}, ""}};
        const Image image = load(s);
        QVERIFY(image.meta.voi);
        const DicomVoi& voi = *image.meta.voi;
        QCOMPARE(voi.choiceCount(), 0);
        QVERIFY(!image.meta.windowCenter); // no usable window: none is shown
        QCOMPARE(defaultDisplaySettings(image).limits, LimitsMode::Percentile);
        const QString notes = QString::fromStdString([&] {
            std::string all;
            for (const auto& n : voi.notes) all += n + "|";
            return all;
        }());
        QVERIFY2(notes.contains("VOI LUT Function 'CURVY' is not a defined term: LINEAR is used"), qPrintable(notes));
        QVERIFY2(notes.contains("window 1 is left out: its width 0 is below 1 (LINEAR)"), qPrintable(notes));
        QVERIFY2(notes.contains("window 2 is left out: its width -3"), qPrintable(notes));
        QVERIFY2(notes.contains("window 3 is left out: its centre or width is not a number"), qPrintable(notes));
        QVERIFY2(notes.contains("VOI LUT 1 is left out: LUT Data hold 4 entries and LUT Descriptor says 5"), qPrintable(notes));
        QVERIFY2(notes.contains("VOI LUT 2 is left out: LUT Data hold values above 2^12 - 1"), qPrintable(notes));
        QVERIFY2(notes.contains("VOI LUT 3 is left out: LUT Descriptor has 2 values, not 3"), qPrintable(notes));
        QVERIFY2(notes.contains("Presentation LUT Shape 'SIDEWAYS' is not a defined term: IDENTITY is used"), qPrintable(notes));
    }

    void ctSmallPresetsInHu() {
        GLINT_REAL_FILE(path, "CT_small.dcm");
        const Image image = loadImage(path.toStdString());
        QVERIFY(image.meta.voi);
        const DicomVoi& voi = *image.meta.voi;
        QCOMPARE(voi.choiceCount() - voi.headerWindows, 4); // lung, mediastinum, bone, brain
        const int lung = voi.headerWindows;
        QCOMPARE(QString::fromStdString(voi.choiceName(lung)), QString("lung (C -600 W 1500)"));
        QCOMPARE(QString::fromStdString(voi.choiceName(lung + 2)), QString("bone (C 400 W 1800)"));
        // Pixel (64, 64) is 904 HU (pydicom): through each preset's level/width.
        QCOMPARE(image.value(64, 64), 904.0);
        const std::vector<int> lungGreys = greys(image, lung), boneGreys = greys(image, lung + 2);
        const std::size_t i = 64 * 128 + 64;
        QCOMPARE(lungGreys[i], 255); // above -600 + 750
        QCOMPARE(boneGreys[i], level((904.0 - 400.0) / 1800.0 + 0.5));
        QCOMPARE(greys(image, lung + 3)[0 * 128 + 0], 0); // -849 HU: below the brain window
    }
};

QTEST_GUILESS_MAIN(TestDicomVoi)
#include "test_dicom_voi.moc"
