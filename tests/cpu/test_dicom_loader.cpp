// The DICOM loader against pydicom (values computed once with pydicom 2.3, `ds.pixel_array` with the
// modality rescale applied, stored below) on the real files of python3-pydicom, and on files this
// test writes with GDCM for MONOCHROME1, rescale, stored bits, windows and frames.
#include "tests/support/GdcmElements.h"
#include "tests/support/TestSupport.h"

#include "core/io/ImageLoader.h"
#include "core/util/Errors.h"

#include <QFile>
#include <QtTest>

#include <gdcmImageWriter.h>

#include <cmath>

using namespace glint;

namespace {

using Point = test::KnownPixel;

Image load(const QString& path, int frame = 0) {
    LoadOptions options;
    options.frame = frame;
    return loadImage(path.toStdString(), options);
}

QString headerValue(const Image& image, const std::string& key) {
    for (const auto& c : image.meta.header)
        if (c.key == key) return QString::fromStdString(c.value);
    return {};
}

double sum(const Image& image) {
    double s = 0;
    for (std::size_t i = 0; i < image.pixelCount(); ++i) s += image.value(i);
    return s;
}

QString tempFile(const QString& name) {
    static int counter = 0;
    return test::tempDir() + QString("/%1-%2").arg(++counter).arg(name);
}

QString writeBytes(const QString& name, const QByteArray& bytes) {
    const QString path = tempFile(name);
    QFile file(path);
    if (file.open(QIODevice::WriteOnly)) file.write(bytes);
    return path;
}

QByteArray readBytes(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

using test::insertText;

struct Synthetic {
    int width = 5, height = 4, frames = 1;
    gdcm::PixelFormat format = gdcm::PixelFormat(gdcm::PixelFormat::UINT16);
    gdcm::PhotometricInterpretation::PIType pi = gdcm::PhotometricInterpretation::MONOCHROME2;
    std::vector<std::uint16_t> words; // stored 16-bit words (or bytes for 8-bit formats)
    const gdcm::LookupTable* lut = nullptr;
    const char* slope = nullptr; // DS values, none when null
    const char* intercept = nullptr;
    const char* center = nullptr;
    const char* width_ = nullptr;
};

QString writeDicom(const Synthetic& s) {
    gdcm::ImageWriter writer;
    gdcm::Image& image = writer.GetImage();
    image.SetNumberOfDimensions(s.frames > 1 ? 3 : 2);
    image.SetDimension(0, static_cast<unsigned>(s.width));
    image.SetDimension(1, static_cast<unsigned>(s.height));
    if (s.frames > 1) image.SetDimension(2, static_cast<unsigned>(s.frames));
    image.SetPixelFormat(s.format);
    image.SetPhotometricInterpretation(s.pi);
    if (s.lut) image.SetLUT(*s.lut);
    image.SetTransferSyntax(gdcm::TransferSyntax::ExplicitVRLittleEndian);
    std::vector<char> bytes;
    if (s.format.GetBitsAllocated() == 8)
        for (auto w : s.words) bytes.push_back(static_cast<char>(w));
    else
        bytes.assign(reinterpret_cast<const char*>(s.words.data()),
                     reinterpret_cast<const char*>(s.words.data()) + s.words.size() * 2);
    gdcm::DataElement pixels(gdcm::Tag(0x7fe0, 0x0010));
    pixels.SetByteValue(bytes.data(), static_cast<std::uint32_t>(bytes.size()));
    image.SetDataElement(pixels);
    gdcm::DataSet& ds = writer.GetFile().GetDataSet();
    // Digital mammography for one frame, X-ray angiography (a multi-frame class GDCM writes) for more.
    insertText(ds, 0x0008, 0x0016, gdcm::VR::UI, s.frames > 1 ? "1.2.840.10008.5.1.4.1.1.12.1" : "1.2.840.10008.5.1.4.1.1.1.2");
    insertText(ds, 0x0008, 0x0060, gdcm::VR::CS, s.frames > 1 ? "XA" : "MG");
    insertText(ds, 0x0018, 0x5101, gdcm::VR::CS, "CC");
    if (s.slope) insertText(ds, 0x0028, 0x1053, gdcm::VR::DS, s.slope);
    if (s.intercept) insertText(ds, 0x0028, 0x1052, gdcm::VR::DS, s.intercept);
    if (s.center) insertText(ds, 0x0028, 0x1050, gdcm::VR::DS, s.center);
    if (s.width_) insertText(ds, 0x0028, 0x1051, gdcm::VR::DS, s.width_);
    const QString path = tempFile("synthetic.dcm");
    writer.SetFileName(path.toUtf8().constData());
    return writer.Write() ? path : QString();
}

} // namespace

class TestDicomLoader : public QObject {
    Q_OBJECT

private slots:
    void ctSmall() {
        GLINT_REAL_FILE(path, "CT_small.dcm");
        const Image image = load(path);
        QCOMPARE(image.width(), 128);
        QCOMPARE(image.height(), 128);
        QCOMPARE(image.meta.format, std::string("DICOM"));
        QCOMPARE(image.sampleType(), SampleType::Int32); // int16 stored, intercept -1024
        QVERIFY(image.meta.integerValued);
        QCOMPARE(image.meta.bitDepth, 16);
        for (const Point& p : {Point{0, 0, -849}, Point{64, 64, 904}, Point{127, 0, -808}, Point{30, 100, 65},
                               Point{127, 127, -115}})
            QCOMPARE(image.value(p.x, p.y), p.value);
        QCOMPARE(headerValue(image, "(0008,0060) Modality"), QString("CT"));
        QCOMPARE(headerValue(image, "(0028,0010) Rows"), QString("128"));
        QCOMPARE(headerValue(image, "(0028,1052) Rescale Intercept"), QString("-1024"));
        QVERIFY(headerValue(image, "(0002,0010) Transfer Syntax UID").startsWith("1.2.840.10008.1.2.1 (Explicit VR Little"));
        QVERIFY(!image.meta.windowCenter);
        QVERIFY(!image.meta.displayYUp);
    }

    // Every lossless encoding of MR_small gives MR_small's pixels exactly.
    void mrSmallEncodings_data() {
        QTest::addColumn<QString>("name");
        for (const char* name : {"MR_small.dcm", "MR_small_RLE.dcm", "MR_small_bigendian.dcm", "MR_small_expb.dcm",
                                 "MR_small_implicit.dcm", "MR_small_jp2klossless.dcm", "MR_small_jpeg_ls_lossless.dcm",
                                 "MR_small_padded.dcm"})
            QTest::newRow(name) << QString(name);
    }
    void mrSmallEncodings() {
        QFETCH(QString, name);
        GLINT_REAL_FILE(path, name);
        const Image image = load(path);
        QCOMPARE(image.sampleType(), SampleType::Int16);
        for (const Point& p : {Point{0, 0, 905}, Point{10, 20, 228}, Point{63, 0, 328}, Point{31, 40, 192},
                               Point{63, 63, 862}})
            QCOMPARE(image.value(p.x, p.y), p.value);
        QCOMPARE(sum(image), 2125338.0);
        QCOMPARE(*image.meta.windowCenter, 600.0);
        QCOMPARE(*image.meta.windowWidth, 1600.0);
    }

    // RT Dose: 32-bit, 15 frames, Dose Grid Scaling as the slope; little, big endian and RLE alike.
    void rtDoseFrames_data() {
        QTest::addColumn<QString>("name");
        for (const char* name : {"rtdose.dcm", "rtdose_expb.dcm", "rtdose_rle.dcm", "rtdose_1frame.dcm",
                                 "rtdose_expb_1frame.dcm", "rtdose_rle_1frame.dcm"})
            QTest::newRow(name) << QString(name);
    }
    void rtDoseFrames() {
        QFETCH(QString, name);
        GLINT_REAL_FILE(path, name);
        const bool single = name.contains("1frame");
        struct FramePoint {
            int frame, x, y;
            double value;
        };
        for (const FramePoint& p : {FramePoint{0, 0, 0, 1249000 * 1e-6}, FramePoint{0, 5, 5, 978000 * 1e-6},
                                    FramePoint{7, 3, 8, 841000 * 1e-6}, FramePoint{14, 9, 9, 799000 * 1e-6}}) {
            if (single && p.frame > 0) continue;
            const Image image = load(path, p.frame);
            QCOMPARE(image.meta.frameCount, single ? 1 : 15);
            QCOMPARE(image.meta.frame, p.frame);
            QCOMPARE(image.sampleType(), SampleType::Float64);
            QCOMPARE(image.value(p.x, p.y), p.value);
        }
        QVERIFY_THROWS_EXCEPTION(InputError, load(path, single ? 1 : 15));
    }

    // Colour becomes luminance (0.299 R + 0.587 G + 0.114 B, rounded), from RGB or from YBR's Y.
    void colourLuminance_data() {
        // values: at x = 50 and y = 5, 15, 45, 95
        test::columns<QString, int, QList<double>, double>({"name", "frame", "values", "total"});
        QTest::newRow("rle") << "SC_rgb_rle.dcm" << 0 << QList<double>{76, 166, 29, 255} << 1277000.0;
        QTest::newRow("rle 16 bit") << "SC_rgb_rle_16bit.dcm" << 0 << QList<double>{19595, 42655, 7471, 65535}
                                    << 328189000.0;
        QTest::newRow("rle 32 bit") << "SC_rgb_rle_32bit.dcm" << 0
                                    << QList<double>{1284195221, 2795484733, 489626272, 4294967295} << 21508522493000.0;
        QTest::newRow("rle 2 frames") << "SC_rgb_rle_2frame.dcm" << 1 << QList<double>{179, 89, 226, 0} << 1273000.0;
        QTest::newRow("rle 16 bit 2 frames") << "SC_rgb_rle_16bit_2frame.dcm" << 1
                                             << QList<double>{45940, 22880, 58064, 0} << 327161000.0;
        QTest::newRow("jpeg lossless") << "SC_rgb_jpeg_gdcm.dcm" << 0 << QList<double>{76, 166, 29, 255} << 1277000.0;
        QTest::newRow("ybr full 422 raw") << "SC_ybr_full_422_uncompressed.dcm" << 0 << QList<double>{76, 166, 29, 255}
                                          << 1276900.0;
    }
    void colourLuminance() {
        QFETCH(QString, name);
        QFETCH(int, frame);
        QFETCH(QList<double>, values);
        QFETCH(double, total);
        GLINT_REAL_FILE(path, name);
        const Image image = load(path, frame);
        QVERIFY(image.meta.wasColour);
        const int rows[] = {5, 15, 45, 95};
        for (int i = 0; i < 4; ++i) QCOMPARE(image.value(50, rows[i]), values[i]);
        QCOMPARE(sum(image), total);
    }

    // Big endian, planar configuration 1, 8-bit RGB.
    void planarBigEndian() {
        GLINT_REAL_FILE(path, "ExplVR_BigEnd.dcm");
        const Image image = load(path);
        QCOMPARE(image.width(), 80);
        QCOMPARE(image.height(), 60);
        QCOMPARE(image.value(50, 5), 226.0);
        QCOMPARE(image.value(0, 0), 171.0);
        QCOMPARE(sum(image), 1067997.0);
    }

    // Lossy colour JPEG and JPEG 2000 of the same test card: luminance close to the lossless one, whether
    // the header says RGB or YBR and whether the stream holds RGB or YCbCr.
    void lossyColour_data() {
        QTest::addColumn<QString>("name");
        for (const char* name : {"SC_rgb_jpeg_dcmtk.dcm", "SC_rgb_dcmtk_+eb+cr.dcm", "SC_rgb_dcmtk_+eb+cy+n1.dcm",
                                 "SC_rgb_dcmtk_+eb+cy+n2.dcm", "SC_rgb_dcmtk_+eb+cy+np.dcm", "SC_rgb_dcmtk_+eb+cy+s2.dcm",
                                 "SC_rgb_dcmtk_+eb+cy+s4.dcm", "SC_rgb_jpeg_lossy_gdcm.dcm", "SC_rgb_gdcm_KY.dcm"})
            QTest::newRow(name) << QString(name);
    }
    void lossyColour() {
        QFETCH(QString, name);
        GLINT_REAL_FILE(path, name);
        const Image image = load(path);
        // The ten bands of the card (ImageComments): red, pink, green, light green, blue, light blue,
        // black, dark grey, light grey, white.
        const double bands[] = {76, 166, 150, 203, 29, 142, 0, 64, 192, 255};
        for (int band = 0; band < 10; ++band) {
            const double v = image.value(50, band * 10 + 5);
            QVERIFY2(std::fabs(v - bands[band]) <= 3,
                     qPrintable(QString("band %1: %2, expected about %3").arg(band).arg(v).arg(bands[band])));
        }
    }

    // JPEG extended (12-bit): the positions pydicom's GDCM tests check (values read in OsiriX).
    void jpegExtended_data() {
        test::addStringRows("name", {{"lossy", "JPEG-lossy.dcm"}, {"fixed", "JPGExtended.dcm"}});
    }
    void jpegExtended() {
        QFETCH(QString, name);
        GLINT_REAL_FILE(path, name);
        const Image image = load(path);
        QCOMPARE(image.width(), 256);
        QCOMPARE(image.height(), 1024);
        QCOMPARE(image.meta.bitDepth, 12);
        QCOMPARE(image.value(140, 420), 244.0);
        QCOMPARE(image.value(120, 230), 95.0);
    }

    // JPEG 2000 lossy: no uncompressed twin is shipped; the shape, type and a sane range are checked.
    void jpeg2000Lossy() {
        GLINT_REAL_FILE(path, "JPEG2000.dcm");
        const Image image = load(path);
        QCOMPARE(image.width(), 256);
        QCOMPARE(image.height(), 1024);
        QCOMPARE(image.sampleType(), SampleType::Int16);
        double lo = 1e9, hi = -1e9;
        for (std::size_t i = 0; i < image.pixelCount(); ++i) {
            lo = std::min(lo, image.value(i));
            hi = std::max(hi, image.value(i));
        }
        QVERIFY2(hi - lo > 100 && lo > -1000 && hi < 5000, qPrintable(QString("range %1..%2").arg(lo).arg(hi)));
        QVERIFY(headerValue(image, "(0002,0010) Transfer Syntax UID").startsWith("1.2.840.10008.1.2.4.91"));
    }

    void oneBitAndDeflate_data() {
        // values: at (0,0), (256,256), (300,200), (100,400)
        test::columns<QString, double, QList<double>>({"name", "total", "values"});
        QTest::newRow("1 bit") << "liver_1frame.dcm" << 36233.0 << QList<double>{0, 1, 1, 0};
        QTest::newRow("1 bit big endian") << "liver_expb_1frame.dcm" << 36233.0 << QList<double>{0, 1, 1, 0};
        QTest::newRow("deflated") << "image_dfl.dcm" << 33322688.0 << QList<double>{213, 65, 164, 115};
    }
    void oneBitAndDeflate() {
        QFETCH(QString, name);
        QFETCH(double, total);
        QFETCH(QList<double>, values);
        GLINT_REAL_FILE(path, name);
        const Image image = load(path);
        QCOMPARE(image.sampleType(), SampleType::UInt8);
        QCOMPARE(sum(image), total);
        const int xy[4][2] = {{0, 0}, {256, 256}, {300, 200}, {100, 400}};
        for (int i = 0; i < 4; ++i) QCOMPARE(image.value(xy[i][0], xy[i][1]), values[i]);
    }

    // MONOCHROME1 with 12 stored bits (overlay bits set above them), an intercept and two windows.
    void monochrome1RescaleWindow() {
        Synthetic s;
        s.format.SetBitsStored(12);
        s.format.SetHighBit(11);
        s.pi = gdcm::PhotometricInterpretation::MONOCHROME1;
        for (int i = 0; i < s.width * s.height; ++i) s.words.push_back(static_cast<std::uint16_t>(i * 200 + (i % 3 ? 0 : 0xF000)));
        s.words[19] = 4095;
        s.intercept = "-1000";
        s.slope = "1";
        s.center = "1200\\300";
        s.width_ = "800\\100";
        const QString path = writeDicom(s);
        QVERIFY(!path.isEmpty());
        const Image image = load(path);
        QCOMPARE(image.sampleType(), SampleType::Int16); // [-1000, 3095] after the intercept
        // Stored 0..4095 -> -1000..3095 -> mirrored: v = (-1000 + 3095) - r.
        for (int i = 0; i < 20; ++i) {
            const double stored = i == 19 ? 4095 : i * 200;
            QCOMPARE(image.value(static_cast<std::size_t>(i)), 2095.0 - (stored - 1000.0));
        }
        QCOMPARE(*image.meta.windowCenter, 2095.0 - 1200.0);
        QCOMPARE(*image.meta.windowWidth, 800.0);
        QCOMPARE(headerValue(image, "(0028,0004) Photometric Interpretation"), QString("MONOCHROME1"));
        QCOMPARE(headerValue(image, "(0018,5101) View Position"), QString("CC"));
    }

    void signedStoredBitsAndFractionalSlope() {
        Synthetic s;
        s.format = gdcm::PixelFormat(gdcm::PixelFormat::INT16);
        s.format.SetBitsStored(10);
        s.format.SetHighBit(9);
        const int stored[] = {-512, 511, -300, 0, -1, 7};
        for (int i = 0; i < 20; ++i) {
            const int v = stored[i % 6];
            s.words.push_back(static_cast<std::uint16_t>((v & 0x3FF) | (i % 2 ? 0xA400 : 0))); // junk above bit 9
        }
        Image image = load(writeDicom(s));
        QCOMPARE(image.sampleType(), SampleType::Int16);
        for (int i = 0; i < 20; ++i) QCOMPARE(image.value(static_cast<std::size_t>(i)), double(stored[i % 6]));
        s.slope = "0.5";
        s.intercept = "10.25";
        image = load(writeDicom(s));
        QCOMPARE(image.sampleType(), SampleType::Float64);
        for (int i = 0; i < 20; ++i) QCOMPARE(image.value(static_cast<std::size_t>(i)), stored[i % 6] * 0.5 + 10.25);
        QVERIFY(!image.meta.integerValued);
    }

    void syntheticFrames() {
        Synthetic s;
        s.format = gdcm::PixelFormat(gdcm::PixelFormat::UINT8);
        s.frames = 3;
        for (int f = 0; f < 3; ++f)
            for (int y = 0; y < s.height; ++y)
                for (int x = 0; x < s.width; ++x) s.words.push_back(static_cast<std::uint16_t>(f * 50 + y * 10 + x));
        const QString path = writeDicom(s);
        for (int f = 0; f < 3; ++f) {
            const Image image = load(path, f);
            QCOMPARE(image.sampleType(), SampleType::UInt8);
            QCOMPARE(image.meta.frameCount, 3);
            QCOMPARE(image.value(4, 3), f * 50 + 34.0);
        }
        try {
            load(path, 3);
            QFAIL("frame 3 of 3 was accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains("frame 3 is out of range (the file has 3 frames, 0 to 2)"), e.what());
        }
    }

    // Palette colour: 8-bit indices through 16-bit red, green and blue tables, then luminance. GDCM
    // keeps the high byte of each entry when the indices have 8 bits.
    void paletteColour() {
        // GDCM keeps the table by reference count: it must live on the heap.
        gdcm::SmartPointer<gdcm::LookupTable> lut = new gdcm::LookupTable;
        lut->Allocate(8);
        std::vector<std::uint16_t> tables[3];
        for (int i = 0; i < 256; ++i) {
            tables[0].push_back(static_cast<std::uint16_t>(i * 250 + 17));
            tables[1].push_back(static_cast<std::uint16_t>(65535 - i * 200));
            tables[2].push_back(static_cast<std::uint16_t>((i * 7919) % 65536));
        }
        const gdcm::LookupTable::LookupTableType types[] = {gdcm::LookupTable::RED, gdcm::LookupTable::GREEN,
                                                            gdcm::LookupTable::BLUE};
        for (int c = 0; c < 3; ++c) {
            lut->InitializeLUT(types[c], 256, 0, 16);
            lut->SetLUT(types[c], reinterpret_cast<const unsigned char*>(tables[c].data()), 512);
        }
        Synthetic s;
        s.format = gdcm::PixelFormat(gdcm::PixelFormat::UINT8);
        s.pi = gdcm::PhotometricInterpretation::PALETTE_COLOR;
        s.lut = lut;
        for (int i = 0; i < 20; ++i) s.words.push_back(static_cast<std::uint16_t>(i * 13));
        const QString path = writeDicom(s);
        QVERIFY(!path.isEmpty());
        const Image image = load(path);
        QVERIFY(image.meta.wasColour);
        QCOMPARE(image.sampleType(), SampleType::UInt8);
        for (int i = 0; i < 20; ++i) {
            const int index = i * 13;
            const double want = std::nearbyint(0.299 * (tables[0][index] >> 8) + 0.587 * (tables[1][index] >> 8) +
                                               0.114 * (tables[2][index] >> 8));
            QCOMPARE(image.value(static_cast<std::size_t>(i)), want);
        }
    }

    // A transfer syntax GDCM does not decode (JPIP: the pixels live on a server), named in the message.
    void unsupportedTransferSyntax() {
        GLINT_REAL_FILE(original, "MR_small_jp2klossless.dcm");
        QByteArray bytes = readBytes(original);
        QVERIFY(bytes.contains("1.2.840.10008.1.2.4.90"));
        bytes.replace("1.2.840.10008.1.2.4.90", "1.2.840.10008.1.2.4.94");
        try {
            load(writeBytes("jpip.dcm", bytes));
            QFAIL("a JPIP file was accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains("1.2.840.10008.1.2.4.94 (JPIP Referenced)"), e.what());
        }
    }

    // Damaged, truncated and image-less files: one InputError each, never a crash.
    void badFiles_data() {
        QTest::addColumn<QString>("name");
        // Fraction of the file kept (1 = the file as shipped); below 0, the number of bytes cut from its
        // end: 9 bytes reach into the last fragment past the 8-byte sequence delimiter.
        test::columns<double, QString>({"keep", "message"});
        QTest::newRow("truncated native (shipped)") << "MR_truncated.dcm" << 1.0 << "truncated";
        QTest::newRow("no pixel data") << "rtplan.dcm" << 1.0 << "holds no image";
        QTest::newRow("bare dataset, no pixel data") << "ExplVR_BigEndNoMeta.dcm" << 1.0 << "holds no image";
        // pydicom decodes this one; GDCM cannot, and its first fragment declares a nonsense width.
        QTest::newRow("J2K GDCM cannot decode") << "JPEG2000-embedded-sequence-delimiter.dcm" << 1.0 << "cannot open";
        for (double keep : {0.05, 0.5, 0.9, -9.0}) {
            const QString k = QString::number(keep);
            QTest::newRow(qPrintable("CT cut " + k)) << "CT_small.dcm" << keep << "";
            QTest::newRow(qPrintable("RLE cut " + k)) << "MR_small_RLE.dcm" << keep << "";
            QTest::newRow(qPrintable("J2K lossless cut " + k)) << "MR_small_jp2klossless.dcm" << keep << "";
            QTest::newRow(qPrintable("J2K cut " + k)) << "JPEG2000.dcm" << keep << "";
            QTest::newRow(qPrintable("JPEG-LS cut " + k)) << "MR_small_jpeg_ls_lossless.dcm" << keep << "";
            QTest::newRow(qPrintable("JPEG colour cut " + k)) << "SC_rgb_jpeg_dcmtk.dcm" << keep << "";
            QTest::newRow(qPrintable("RT dose cut " + k)) << "rtdose.dcm" << keep << "";
        }
    }
    void badFiles() {
        QFETCH(QString, name);
        QFETCH(double, keep);
        QFETCH(QString, message);
        GLINT_REAL_FILE(original, name);
        QString path = original;
        if (keep != 1.0) {
            const QByteArray all = readBytes(original);
            const int kept = keep > 0 ? static_cast<int>(all.size() * keep) : all.size() + static_cast<int>(keep);
            path = writeBytes("cut-" + name, all.left(kept));
        }
        try {
            load(path);
            QFAIL("a damaged file was accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains(message), e.what());
            QVERIFY(!QString(e.what()).contains('\n'));
        }
    }
};

QTEST_GUILESS_MAIN(TestDicomLoader)
#include "test_dicom_loader.moc"
