// Hostile values, round three (issue 35): files written here byte by byte whose headers would crash a
// library (a FITS image of 20 axes inside CFITSIO, DICOM sequences nested thousands deep inside GDCM) or
// whose values cannot be read exactly (PLIO integers labelled float, CSV "5\0junk", hexadecimal, 1e-400,
// BSCALE 1e308, infinities, a SIP order of 2^31 - 1, DICOM colour samples labelled MONOCHROME2, a junk
// Photometric Interpretation). Each must end in one InputError through the loader API and, through
// `glint-cli info`, in exit 3 with one short line on stderr, also under an address-space limit of 1 GiB
// (no crash, no signal). Valid files beside them (a real PLIO image, decimal CSV, a plain DICOM image)
// must still read right, so that the generators themselves are known to be sound.
#include "tests/support/TestSupport.h"

#include "core/io/Image.h"
#include "core/io/ImageLoader.h"
#include "core/io/ImageStats.h"
#include "core/util/Errors.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonObject>
#include <QProcess>
#include <QtTest>

#include <fitsio.h>
#include <sys/resource.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

using namespace glint;

namespace {

// ---- generators: FITS --------------------------------------------------------------------------

// One 80-character card: "KEY     = value" (value right-justified in columns 11-30 as FITS writes numbers).
std::string card(const std::string& key, const std::string& value) {
    std::string c = key;
    c.resize(8, ' ');
    c += "= ";
    std::string v = value;
    if (v.size() < 20 && !v.empty() && v[0] != '\'') v = std::string(20 - v.size(), ' ') + v;
    c += v;
    c.resize(80, ' ');
    return c;
}

// Cards + END, padded to whole 2880-byte blocks.
QByteArray fitsHeader(const std::vector<std::string>& cards) {
    std::string h;
    for (const auto& c : cards) h += c;
    std::string end = "END";
    end.resize(80, ' ');
    h += end;
    h.resize((h.size() + 2879) / 2880 * 2880, ' ');
    return QByteArray(h.data(), static_cast<qsizetype>(h.size()));
}

QByteArray padded(QByteArray data) {
    data.append(QByteArray((2880 - data.size() % 2880) % 2880, '\0'));
    return data;
}

QByteArray bigEndian16(const std::vector<std::int16_t>& values) {
    QByteArray b;
    for (std::int16_t v : values) {
        const auto u = static_cast<std::uint16_t>(v);
        b.append(static_cast<char>(u >> 8));
        b.append(static_cast<char>(u & 0xFF));
    }
    return b;
}

QByteArray bigEndianFloat(const std::vector<float>& values) {
    QByteArray b;
    for (float v : values) {
        std::uint32_t u = 0;
        std::memcpy(&u, &v, 4);
        for (int s = 24; s >= 0; s -= 8) b.append(static_cast<char>((u >> s) & 0xFF));
    }
    return b;
}

// A 4 x 3 int16 image (values 1..12) with extra cards.
QByteArray smallFits(const std::vector<std::string>& extra, int bitpix = 16) {
    std::vector<std::string> cards = {card("SIMPLE", "T"), card("BITPIX", std::to_string(bitpix)), card("NAXIS", "2"),
                                      card("NAXIS1", "4"), card("NAXIS2", "3")};
    cards.insert(cards.end(), extra.begin(), extra.end());
    return fitsHeader(cards) + padded(bigEndian16({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));
}

// ---- generators: DICOM -------------------------------------------------------------------------

void le16(QByteArray& b, std::uint32_t v) {
    b.append(static_cast<char>(v & 0xFF));
    b.append(static_cast<char>((v >> 8) & 0xFF));
}
void le32(QByteArray& b, std::uint32_t v) {
    le16(b, v & 0xFFFF);
    le16(b, v >> 16);
}
void tag(QByteArray& b, std::uint16_t group, std::uint16_t element) {
    le16(b, group);
    le16(b, element);
}

// One explicit-VR little-endian element (values padded to even length).
QByteArray explicitElement(std::uint16_t group, std::uint16_t element, const char* vr, QByteArray value) {
    if (value.size() % 2) value.append(std::strcmp(vr, "UI") == 0 || std::strcmp(vr, "OB") == 0 ? '\0' : ' ');
    QByteArray b;
    tag(b, group, element);
    b.append(vr, 2);
    const bool longForm = std::strcmp(vr, "OB") == 0 || std::strcmp(vr, "OW") == 0 || std::strcmp(vr, "SQ") == 0 ||
                          std::strcmp(vr, "UN") == 0;
    if (longForm) {
        le16(b, 0);
        le32(b, static_cast<std::uint32_t>(value.size()));
    } else {
        le16(b, static_cast<std::uint32_t>(value.size()));
    }
    return b + value;
}
QByteArray implicitElement(std::uint16_t group, std::uint16_t element, QByteArray value) {
    if (value.size() % 2) value.append(' ');
    QByteArray b;
    tag(b, group, element);
    le32(b, static_cast<std::uint32_t>(value.size()));
    return b + value;
}
QByteArray us(std::uint16_t v) {
    QByteArray b;
    le16(b, v);
    return b;
}

const char* kExplicitLE = "1.2.840.10008.1.2.1";
const char* kImplicitLE = "1.2.840.10008.1.2";

// Preamble, DICM and the file meta information (explicit VR little endian) naming the transfer syntax.
QByteArray dicomPreamble(const char* transferSyntax) {
    QByteArray b(128, '\0');
    b.append("DICM");
    b += explicitElement(0x0002, 0x0001, "OB", QByteArray("\0\1", 2));
    b += explicitElement(0x0002, 0x0002, "UI", "1.2.840.10008.5.1.4.1.1.7");
    b += explicitElement(0x0002, 0x0003, "UI", "1.2.3.4.5.6.7");
    b += explicitElement(0x0002, 0x0010, "UI", transferSyntax);
    return b;
}

// An explicit-VR 8-bit image of 4 x 3 pixels, `samples` per pixel, labelled `photometric`, its pixels
// 10, 20, ... (every sample of a pixel the same), with `before` inserted before the image module.
QByteArray dicomImage(int samples, const QByteArray& photometric, const QByteArray& before = {},
                      std::uint16_t bitsStored = 8, std::uint16_t pixelRepresentation = 0,
                      const QByteArray& slope = {}) {
    QByteArray b = dicomPreamble(kExplicitLE);
    b += explicitElement(0x0008, 0x0016, "UI", "1.2.840.10008.5.1.4.1.1.7");
    b += explicitElement(0x0008, 0x0018, "UI", "1.2.3.4.5.6.7");
    b += before;
    b += explicitElement(0x0028, 0x0002, "US", us(static_cast<std::uint16_t>(samples)));
    b += explicitElement(0x0028, 0x0004, "CS", photometric);
    if (samples == 3) b += explicitElement(0x0028, 0x0006, "US", us(0));
    b += explicitElement(0x0028, 0x0010, "US", us(3)); // rows
    b += explicitElement(0x0028, 0x0011, "US", us(4)); // columns
    b += explicitElement(0x0028, 0x0100, "US", us(8));
    b += explicitElement(0x0028, 0x0101, "US", us(bitsStored));
    b += explicitElement(0x0028, 0x0102, "US", us(static_cast<std::uint16_t>(bitsStored - 1)));
    b += explicitElement(0x0028, 0x0103, "US", us(pixelRepresentation));
    if (!slope.isEmpty()) {
        b += explicitElement(0x0028, 0x1052, "DS", "0");
        b += explicitElement(0x0028, 0x1053, "DS", slope);
    }
    QByteArray pixels;
    for (int i = 0; i < 12; ++i)
        for (int s = 0; s < samples; ++s) pixels.append(static_cast<char>(10 * (i + 1)));
    b += explicitElement(0x7FE0, 0x0010, "OB", pixels);
    return b;
}

// Referenced Series Sequence (0008,1115) nested `depth` levels: each item holds the next sequence.
// Explicit or implicit VR; sequences and items of defined or undefined length.
QByteArray nestedSequences(int depth, bool explicitVr, bool definedLength) {
    QByteArray inner = explicitVr ? explicitElement(0x0008, 0x0100, "SH", "LEAF") : implicitElement(0x0008, 0x0100, "LEAF");
    for (int level = 0; level < depth; ++level) {
        QByteArray item;
        tag(item, 0xFFFE, 0xE000);
        le32(item, definedLength ? static_cast<std::uint32_t>(inner.size()) : 0xFFFFFFFFu);
        item += inner;
        if (!definedLength) {
            tag(item, 0xFFFE, 0xE00D);
            le32(item, 0);
        }
        QByteArray sequence;
        tag(sequence, 0x0008, 0x1115);
        if (explicitVr) {
            sequence.append("SQ", 2);
            le16(sequence, 0);
        }
        le32(sequence, definedLength ? static_cast<std::uint32_t>(item.size()) : 0xFFFFFFFFu);
        sequence += item;
        if (!definedLength) {
            tag(sequence, 0xFFFE, 0xE0DD);
            le32(sequence, 0);
        }
        inner = sequence;
    }
    return inner;
}

// A whole implicit-VR file: the nested sequences, then a monochrome 4 x 3 image.
QByteArray implicitDicom(const QByteArray& before) {
    QByteArray b = dicomPreamble(kImplicitLE);
    b += implicitElement(0x0008, 0x0016, "1.2.840.10008.5.1.4.1.1.7");
    b += implicitElement(0x0008, 0x0018, "1.2.3.4.5.6.7");
    b += before;
    b += implicitElement(0x0028, 0x0002, us(1));
    b += implicitElement(0x0028, 0x0004, "MONOCHROME2");
    b += implicitElement(0x0028, 0x0010, us(3));
    b += implicitElement(0x0028, 0x0011, us(4));
    b += implicitElement(0x0028, 0x0100, us(8));
    b += implicitElement(0x0028, 0x0101, us(8));
    b += implicitElement(0x0028, 0x0102, us(7));
    b += implicitElement(0x0028, 0x0103, us(0));
    QByteArray pixels;
    for (int i = 0; i < 12; ++i) pixels.append(static_cast<char>(10 * (i + 1)));
    b += implicitElement(0x7FE0, 0x0010, pixels);
    return b;
}

// ---- checks ------------------------------------------------------------------------------------

QString write(const QString& name, const QByteArray& bytes) { return test::writeTempFile(name, bytes); }

void expectLoaderError(const QString& path, const QStringList& parts) {
    try {
        (void)loadImage(path.toStdString());
        QFAIL(qPrintable("no error for " + path));
    } catch (const InputError& e) {
        const QString message = QString::fromUtf8(e.what());
        for (const QString& part : parts) QVERIFY2(message.contains(part), qPrintable(message));
    }
}

// glint-cli info under an address-space limit: a normal exit (no signal) with `exitCode`, and for an
// error one short printable line on stderr holding every part.
test::CliResult runInfoLimited(const QString& path) {
    QProcess process;
    process.setChildProcessModifier([] {
        rlimit limit{};
        limit.rlim_cur = limit.rlim_max = rlim_t(1) << 30;
        setrlimit(RLIMIT_AS, &limit);
    });
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("MALLOC_ARENA_MAX", "2"); // glibc reserves 64 MiB of address space per thread arena
    process.setProcessEnvironment(env);
    process.start(test::cliPath(), {"info", path});
    test::CliResult r;
    if (!process.waitForStarted(10000)) return r;
    if (!process.waitForFinished(60000)) {
        process.kill();
        process.waitForFinished();
        r.exitCode = -2;
        return r;
    }
    r.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1000 - process.exitCode();
    r.out = process.readAllStandardOutput();
    r.err = process.readAllStandardError();
    return r;
}

void expectCliRefusal(const QString& path, const QStringList& parts) {
    for (const bool limited : {false, true}) {
        const test::CliResult r = limited ? runInfoLimited(path) : test::runCli({"info", path}, 60000);
        const QString how = limited ? " (RLIMIT_AS 1 GiB)" : "";
        QVERIFY2(r.exitCode == 3, qPrintable(QString("exit %1%2: %3").arg(r.exitCode).arg(how, QString::fromUtf8(r.err))));
        QVERIFY2(test::oneErrorLine(r.err), r.err.left(2000).constData());
        QVERIFY2(r.err.size() < 600, qPrintable(QString("%1 bytes on stderr").arg(r.err.size())));
        for (char c : r.err.chopped(1)) QVERIFY2(static_cast<unsigned char>(c) >= 0x20 && c != 0x7f, r.err.constData());
        for (const QString& part : parts) QVERIFY2(QString::fromUtf8(r.err).contains(part), r.err.constData());
    }
}

// Both paths at once: the loader's InputError and the CLI's line.
void expectRefused(const QString& path, const QStringList& parts) {
    expectLoaderError(path, parts);
    if (QTest::currentTestFailed()) return;
    expectCliRefusal(path, parts);
}

double at(const Image& image, int x, int y) { return image.value(x, y); }

} // namespace

class TestHostileValues : public QObject {
    Q_OBJECT

private slots:
    // ---- FITS header sanity, before CFITSIO --------------------------------------------------------
    void fitsHeaders_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QStringList>("parts");
        {
            // NAXIS 20 smashed CFITSIO's stack (its pixel readers keep 9 axis lengths).
            std::vector<std::string> cards = {card("SIMPLE", "T"), card("BITPIX", "16"), card("NAXIS", "20")};
            for (int k = 1; k <= 20; ++k) cards.push_back(card("NAXIS" + std::to_string(k), "1"));
            QTest::newRow("NAXIS 20") << (fitsHeader(cards) + padded(bigEndian16({7})))
                                      << QStringList{"HDU 0 is a damaged image header", "NAXIS = '20'", "at most 9"};
        }
        {
            std::vector<std::string> cards = {card("SIMPLE", "T"), card("BITPIX", "16"), card("NAXIS", "999")};
            for (int k = 1; k <= 999; ++k) cards.push_back(card("NAXIS" + std::to_string(k), "1"));
            QTest::newRow("NAXIS 999") << (fitsHeader(cards) + padded(bigEndian16({7}))) << QStringList{"NAXIS = '999'"};
        }
        QTest::newRow("NAXIS 1000") << (fitsHeader({card("SIMPLE", "T"), card("BITPIX", "16"), card("NAXIS", "1000")}))
                                    << QStringList{"NAXIS", "from 0 to 999"};
        QTest::newRow("BITPIX 12") << smallFits({}, 12) << QStringList{"BITPIX = '12'", "must be 8, 16, 32, 64, -32 or -64"};
        QTest::newRow("NAXIS2 negative")
            << (fitsHeader({card("SIMPLE", "T"), card("BITPIX", "16"), card("NAXIS", "2"), card("NAXIS1", "4"),
                            card("NAXIS2", "-3")}) +
                padded(bigEndian16({1, 2})))
            << QStringList{"NAXIS2 = '-3'", "axis length"};
        QTest::newRow("NAXIS2 missing")
            << (fitsHeader({card("SIMPLE", "T"), card("BITPIX", "16"), card("NAXIS", "2"), card("NAXIS1", "4")}) +
                padded(bigEndian16({1, 2})))
            << QStringList{"NAXIS2 missing"};
        QTest::newRow("axes overflow")
            << (fitsHeader({card("SIMPLE", "T"), card("BITPIX", "-64"), card("NAXIS", "3"), card("NAXIS1", "4000000000"),
                            card("NAXIS2", "4000000000"), card("NAXIS3", "4000000000")}) +
                padded(bigEndian16({1, 2})))
            << QStringList{"NAXIS3", "overflows the data size"};
        QTest::newRow("BSCALE text") << smallFits({card("BSCALE", "'big'")})
                                     << QStringList{"BSCALE = 'big'", "must be a finite number"};
        QTest::newRow("BZERO 1e999") << smallFits({card("BZERO", "1E999")}) << QStringList{"BZERO", "finite number"};
        QTest::newRow("BSCALE 0") << smallFits({card("BSCALE", "0.0")}) << QStringList{"BSCALE", "scale of 0"};
        QTest::newRow("SIP A_ORDER 2^31-1")
            << smallFits({card("CTYPE1", "'RA---TAN-SIP'"), card("CTYPE2", "'DEC--TAN-SIP'"), card("CRPIX1", "2"),
                          card("CRPIX2", "2"), card("CRVAL1", "10"), card("CRVAL2", "20"), card("CDELT1", "-0.001"),
                          card("CDELT2", "0.001"), card("A_ORDER", "2147483647"), card("B_ORDER", "2")})
            << QStringList{"A_ORDER = '2147483647'", "SIP distortion order", "0 to 9"};
        QTest::newRow("SIP BP_ORDER -1") << smallFits({card("BP_ORDER", "-1")}) << QStringList{"BP_ORDER = '-1'"};
        {
            // An IMAGE extension after a good primary is checked the same way.
            QByteArray bytes = fitsHeader({card("SIMPLE", "T"), card("BITPIX", "8"), card("NAXIS", "0"), card("EXTEND", "T")});
            std::vector<std::string> cards = {card("XTENSION", "'IMAGE   '"), card("BITPIX", "16"), card("NAXIS", "12")};
            for (int k = 1; k <= 12; ++k) cards.push_back(card("NAXIS" + std::to_string(k), "1"));
            cards.push_back(card("PCOUNT", "0"));
            cards.push_back(card("GCOUNT", "1"));
            bytes += fitsHeader(cards) + padded(bigEndian16({1}));
            QTest::newRow("extension NAXIS 12") << bytes << QStringList{"HDU 1 is a damaged image header", "NAXIS = '12'"};
        }
        {
            // A tile-compressed image of 20 axes.
            QByteArray bytes = fitsHeader({card("SIMPLE", "T"), card("BITPIX", "8"), card("NAXIS", "0"), card("EXTEND", "T")});
            std::vector<std::string> cards = {card("XTENSION", "'BINTABLE'"), card("BITPIX", "8"), card("NAXIS", "2"),
                                              card("NAXIS1", "8"), card("NAXIS2", "1"), card("PCOUNT", "0"),
                                              card("GCOUNT", "1"), card("TFIELDS", "1"),
                                              card("TTYPE1", "'COMPRESSED_DATA'"), card("TFORM1", "'1PB(0)'"),
                                              card("ZIMAGE", "T"), card("ZCMPTYPE", "'RICE_1'"), card("ZBITPIX", "16"),
                                              card("ZNAXIS", "20")};
            for (int k = 1; k <= 20; ++k) cards.push_back(card("ZNAXIS" + std::to_string(k), "1"));
            bytes += fitsHeader(cards) + padded(QByteArray(8, '\0'));
            QTest::newRow("ZNAXIS 20") << bytes << QStringList{"damaged compressed image", "ZNAXIS = '20'"};
        }
    }
    void fitsHeaders() {
        QFETCH(QByteArray, bytes);
        QFETCH(QStringList, parts);
        expectRefused(write(QString("header_%1.fits").arg(QTest::currentDataTag()).replace(' ', '_'), bytes), parts);
    }

    // A size error names the axis at fault.
    void fitsPlaneCountNamesItsAxis() {
        const QByteArray bytes = fitsHeader({card("SIMPLE", "T"), card("BITPIX", "8"), card("NAXIS", "3"),
                                             card("NAXIS1", "2"), card("NAXIS2", "2"), card("NAXIS3", "3000000000")}) +
                                 padded(QByteArray(4, '\1'));
        expectRefused(write("planes.fits", bytes), {"NAXIS3 = 3000000000: more than 2^31 planes"});
    }

    // The generator's own valid file reads right (so the refusals above come from the cards under test).
    void fitsGeneratorControl() {
        const Image image = loadImage(write("control.fits", smallFits({card("BZERO", "100")})).toStdString());
        QCOMPARE(image.width(), 4);
        QCOMPARE(image.height(), 3);
        QCOMPARE(at(image, 0, 0), 101.0);
        QCOMPARE(at(image, 3, 2), 112.0);
        // A SIP order within the convention's range is kept (no refusal).
        const Image sip = loadImage(write("sip_ok.fits", smallFits({card("A_ORDER", "3"), card("B_ORDER", "3")})).toStdString());
        QCOMPARE(at(sip, 1, 0), 2.0);
    }

    // ---- values that cannot be read exactly --------------------------------------------------------
    void fitsScalingOverflow() {
        // 1e308 x 5 is beyond double: refused, naming the pixel, not read as inf.
        const QString path = write("bscale_1e308.fits", smallFits({card("BSCALE", "1.0E308")}));
        expectRefused(path, {"BSCALE and BZERO overflow the value 2", "FITS pixel (2, 1)", "to infinity"});
        // BSCALE 1e307 keeps every value of this image finite: read, exactly as raw x BSCALE.
        const Image fine = loadImage(write("bscale_1e307.fits", smallFits({card("BSCALE", "1.0E307")})).toStdString());
        QCOMPARE(at(fine, 0, 0), 1.0e307);
        QCOMPARE(at(fine, 3, 2), 12.0 * 1.0e307);
    }

    // CFITSIO hands over every IEEE special value of a floating-point image (NaN and ±inf alike) as
    // undefined: they become blanks, consistently, and the statistics leave them out.
    void fitsInfinitiesAreBlanks() {
        std::vector<float> values(12, 1.5f);
        values[5] = 4.0f;
        values[1 * 4 + 2] = std::numeric_limits<float>::infinity(); // FITS pixel (3, 2)
        values[0] = -std::numeric_limits<float>::infinity();
        values[11] = std::numeric_limits<float>::quiet_NaN();
        const QByteArray header = fitsHeader({card("SIMPLE", "T"), card("BITPIX", "-32"), card("NAXIS", "2"),
                                              card("NAXIS1", "4"), card("NAXIS2", "3")});
        const QString path = write("specials.fits", header + padded(bigEndianFloat(values)));
        const Image image = loadImage(path.toStdString());
        QVERIFY(image.isBlank(std::size_t(6)));
        QVERIFY(image.isBlank(std::size_t(0)));
        QVERIFY(image.isBlank(std::size_t(11)));
        const ImageStats s = computeStats(image);
        QCOMPARE(s.count, std::size_t(9));
        QCOMPARE(s.median, 1.5);
        QCOMPARE(s.max, 4.0);
        const test::CliResult r = test::runCli({"info", path, "--json", "-"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject json = test::jsonOf(r);
        QCOMPARE(json["median"].toDouble(), 1.5);
        QCOMPARE(json["max"].toDouble(), 4.0);
        QCOMPARE(json["blank_count"].toInt(), 3);
    }

    // Statistics over an image that holds infinities (made in memory, as no loader of Glint's gives one):
    // they count as blanks in every figure alike, so no median, mean, min or max is ever inf.
    void statsLeaveInfinitiesOut() {
        const double inf = std::numeric_limits<double>::infinity();
        Image image = Image::fromSamples<double>(5, 1, {inf, inf, inf, 2.0, -inf});
        const ImageStats s = computeStats(image);
        QCOMPARE(s.count, std::size_t(1));
        QCOMPARE(s.median, 2.0);
        QCOMPARE(s.mean, 2.0);
        QCOMPARE(s.min, 2.0);
        QCOMPARE(s.max, 2.0);
        QCOMPARE(percentile(image, 100.0), 2.0);
        QCOMPARE(nonBlankValues(image).size(), std::size_t(1));
    }

    // A real PLIO_1 image (CFITSIO writes it) reads as the integers written; the same file relabelled
    // ZBITPIX = -32 (integers CFITSIO would hand over as float bits: denormals) is refused.
    void fitsPlio() {
        const QString path = test::tempDir() + "/plio.fits";
        QFile::remove(path);
        fitsfile* f = nullptr;
        int status = 0;
        fits_create_diskfile(&f, path.toUtf8().constData(), &status);
        long axes[2] = {16, 8};
        fits_set_compression_type(f, PLIO_1, &status);
        fits_create_img(f, LONG_IMG, 2, axes, &status);
        std::vector<int> values(16 * 8);
        for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int>((i * 37) % 5000);
        fits_write_img(f, TINT, 1, static_cast<LONGLONG>(values.size()), values.data(), &status);
        fits_close_file(f, &status);
        QCOMPARE(status, 0);

        const Image image = loadImage(path.toStdString());
        QVERIFY(image.meta.integerValued);
        for (int y = 0; y < 8; ++y)
            for (int x = 0; x < 16; ++x) QCOMPARE(at(image, x, y), static_cast<double>(values[static_cast<std::size_t>(y * 16 + x)]));

        QByteArray bytes = QByteArray::fromStdString(test::readFileString(path));
        const QByteArray from = QByteArray::fromStdString(card("ZBITPIX", "32").substr(0, 30));
        const qsizetype where = bytes.indexOf(from);
        QVERIFY2(where >= 0, "no ZBITPIX = 32 card in CFITSIO's PLIO file");
        bytes.replace(where, 30, QByteArray::fromStdString(card("ZBITPIX", "-32").substr(0, 30)));
        expectRefused(write("plio_float.fits", bytes), {"ZBITPIX = '-32'", "PLIO_1 stores integers", "ZSCALE and ZZERO"});
    }

    // ---- CSV ---------------------------------------------------------------------------------------
    void csvValues_data() {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QStringList>("parts");
        // Past the 512 bytes that format detection reads (a NUL there makes the file no text at all).
        QTest::newRow("NUL and junk") << (QByteArray("1 2\n").repeated(150) + QByteArray("3 5\0junk\n", 10))
                                      << QStringList{"line 151: '5\\x00junk' is not a number", "row 151, column 2"};
        QTest::newRow("hexadecimal") << QByteArray("1,0x10\n") << QStringList{"'0x10' is not a number", "decimal notation only"};
        QTest::newRow("hex float") << QByteArray("0x1p3\n") << QStringList{"'0x1p3' is not a number", "row 1, column 1"};
        QTest::newRow("infinity") << QByteArray("1\ninfinity\n") << QStringList{"'infinity' is not a number", "row 2"};
        QTest::newRow("inf") << QByteArray("-inf\n") << QStringList{"'-inf' is not a number"};
        QTest::newRow("nan payload") << QByteArray("nan(0x1)\n") << QStringList{"is not a number"};
        QTest::newRow("underflow") << QByteArray("# c\n1,2,3\n4,5,1e-400\n")
                                   << QStringList{"line 3: '1e-400' is out of range", "row 2, column 3", "underflows"};
        QTest::newRow("subnormal") << QByteArray("4.9e-324\n") << QStringList{"is out of range", "underflows"};
        QTest::newRow("overflow") << QByteArray("1e400 2\n") << QStringList{"'1e400' is out of range", "row 1, column 1", "overflows"};
        QTest::newRow("exponent without digits") << QByteArray("1e\n") << QStringList{"'1e' is not a number"};
        QTest::newRow("lone dot") << QByteArray("1 .\n") << QStringList{"'.' is not a number", "column 2"};
    }
    void csvValues() {
        QFETCH(QByteArray, text);
        QFETCH(QStringList, parts);
        expectRefused(write(QString("values_%1.csv").arg(QTest::currentDataTag()).replace(' ', '_'), text), parts);
    }

    void csvDecimalsReadExactly() {
        const Image image =
            loadImage(write("decimal.csv", "-1.5e+3, .5, 5.\n+2E-3;NaN;0.0e-500\n2.2250738585072014e-308 1e308 -0\n")
                          .toStdString());
        QCOMPARE(image.width(), 3);
        QCOMPARE(image.height(), 3);
        QCOMPARE(at(image, 0, 0), -1500.0);
        QCOMPARE(at(image, 1, 0), 0.5);
        QCOMPARE(at(image, 2, 0), 5.0);
        QCOMPARE(at(image, 0, 1), 0.002);
        QVERIFY(image.isBlank(1 * 3 + 1));
        QCOMPARE(at(image, 2, 1), 0.0);
        QCOMPARE(at(image, 0, 2), 2.2250738585072014e-308);
        QCOMPARE(at(image, 1, 2), 1e308);
    }

    // ---- DICOM -------------------------------------------------------------------------------------
    void dicomNesting_data() {
        QTest::addColumn<QByteArray>("bytes");
        for (const int depth : {65, 5000})
            for (const bool defined : {false, true}) {
                const QString lengths = defined ? "defined" : "undefined";
                QTest::newRow(qPrintable(QString("explicit %1 %2").arg(lengths).arg(depth)))
                    << dicomImage(1, "MONOCHROME2", nestedSequences(depth, true, defined));
                QTest::newRow(qPrintable(QString("implicit %1 %2").arg(lengths).arg(depth)))
                    << implicitDicom(nestedSequences(depth, false, defined));
            }
    }
    void dicomNesting() {
        QFETCH(QByteArray, bytes);
        const QString path = write(QString("nested_%1.dcm").arg(QTest::currentDataTag()).replace(' ', '_'), bytes);
        const bool implicitUndefined = QString(QTest::currentDataTag()).startsWith("implicit undefined");
        expectRefused(path, {implicitUndefined ? "implicit-VR sequences of undefined length more than 8 levels deep"
                                               : "the DICOM file is damaged (sequences nested more than 64 levels deep"});
    }

    // Nesting up to the bound is read, in every encoding (the bound refuses no ordinary file).
    void dicomNestingWithinBound() {
        for (const bool defined : {false, true}) {
            const Image a = loadImage(write("nested_ok_explicit.dcm", dicomImage(1, "MONOCHROME2", nestedSequences(60, true, defined))).toStdString());
            QCOMPARE(at(a, 3, 2), 120.0);
            // Implicit VR: 60 levels of defined length; 8 of undefined length (GDCM's time grows five-fold
            // a level there, so that bound is lower).
            const Image b = loadImage(write("nested_ok_implicit.dcm", implicitDicom(nestedSequences(defined ? 60 : 8, false, defined))).toStdString());
            QCOMPARE(at(b, 0, 0), 10.0);
            QCOMPARE(at(b, 3, 2), 120.0);
        }
    }

    // Implicit-VR sequences of undefined length: GDCM takes minutes over 12 levels; refused beyond 8, fast.
    void dicomImplicitUndefinedNesting() {
        QElapsedTimer timer;
        timer.start();
        expectRefused(write("nested_implicit_9.dcm", implicitDicom(nestedSequences(9, false, false))),
                      {"implicit-VR sequences of undefined length more than 8 levels deep"});
        QVERIFY2(timer.elapsed() < 30000, qPrintable(QString("took %1 ms").arg(timer.elapsed())));
    }

    void dicomPhotometric_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QStringList>("parts");
        QTest::newRow("MONOCHROME2 with 3 samples")
            << dicomImage(3, "MONOCHROME2") << QStringList{"damaged", "MONOCHROME2 with 3 samples per pixel (MONOCHROME2 has 1)"};
        QTest::newRow("junk") << dicomImage(1, "JUNKY_PI") << QStringList{"damaged", "'JUNKY_PI' is not a defined term"};
        QTest::newRow("junk with 3 samples") << dicomImage(3, "RGBX") << QStringList{"'RGBX' is not a defined term"};
        QTest::newRow("RGB with 1 sample") << dicomImage(1, "RGB") << QStringList{"RGB with 1 sample per pixel (RGB has 3)"};
        // Damage is called damage, not "unsupported".
        QTest::newRow("Pixel Representation 5")
            << dicomImage(1, "MONOCHROME2", {}, 8, 5) << QStringList{"damaged", "Pixel Representation 5 is neither"};
        QTest::newRow("Bits Stored 12 of 8") << dicomImage(1, "MONOCHROME2", {}, 12) << QStringList{"damaged: Bits Stored 12 with Bits Allocated 8"};
    }
    void dicomPhotometric() {
        QFETCH(QByteArray, bytes);
        QFETCH(QStringList, parts);
        expectRefused(write(QString("pi_%1.dcm").arg(QTest::currentDataTag()).replace(' ', '_'), bytes), parts);
    }

    // Rescale Slope 1e307 over values 10..120: refused naming the first pixel that overflows (the second,
    // 20 x 1e307); 1e306 keeps every value finite and is read.
    void dicomRescaleOverflow() {
        expectRefused(write("slope_1e307.dcm", dicomImage(1, "MONOCHROME2", {}, 8, 0, "1e307")),
                      {"damaged: Rescale Slope and Intercept overflow pixel (1, 0) to infinity"});
        const Image fine = loadImage(write("slope_1e306.dcm", dicomImage(1, "MONOCHROME2", {}, 8, 0, "1e306")).toStdString());
        QCOMPARE(at(fine, 3, 2), 120.0 * 1e306);
    }

    void dicomGeneratorControl() {
        const Image grey = loadImage(write("grey.dcm", dicomImage(1, "MONOCHROME2")).toStdString());
        QCOMPARE(grey.width(), 4);
        QCOMPARE(grey.height(), 3);
        QCOMPARE(at(grey, 0, 0), 10.0);
        QCOMPARE(at(grey, 3, 2), 120.0);
        // RGB of equal samples: luminance equal to them.
        const Image rgb = loadImage(write("rgb.dcm", dicomImage(3, "RGB")).toStdString());
        QVERIFY(rgb.meta.wasColour);
        QVERIFY(std::fabs(at(rgb, 3, 2) - 120.0) < 0.51);
        // The same files through the CLI under the address-space limit: exit 0.
        const test::CliResult r = runInfoLimited(test::tempDir() + "/grey.dcm");
        QVERIFY2(r.exitCode == 0, qPrintable(QString("exit %1: %2").arg(r.exitCode).arg(QString::fromUtf8(r.err))));
    }
};

QTEST_GUILESS_MAIN(TestHostileValues)
#include "test_hostile_values.moc"
