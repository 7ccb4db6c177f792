// Hostile input files, written here: each must end in one InputError (glint-cli: exit 3 and one short
// printable line on stderr) quickly and without a large allocation, never in a crash or a hang.
// Tile-compressed FITS with zero tile sizes or compression parameters (SIGFPE inside CFITSIO), FIFOs
// and symlink loops, DICOM elements claiming gigabytes (plain and deflated), decompression bombs
// (PNG/TIFF/JPEG/BMP/PNM headers declaring 30000 x 30000), --frame on FITS, CSV tokens of a megabyte
// with control bytes, and batch's tally over such a folder.
#include "tests/support/TestSupport.h"

#include "core/io/AbortGuard.h"
#include "core/io/ImageLoader.h"
#include "core/util/Errors.h"
#include "core/util/ImageBudget.h"
#include "core/util/Printable.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QtTest>

#include <fitsio.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdint>
#include <functional>
#include <string>

using namespace glint;

namespace {

void writeBytes(const QString& path, const QByteArray& bytes) {
    QFile::remove(path);
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    QCOMPARE(f.write(bytes), bytes.size());
}

QByteArray readBytes(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    return f.readAll();
}

// loadImage must throw InputError whose message holds every one of the parts, within the time limit.
void expectInputError(const QString& path, const QStringList& parts, const LoadOptions& options = {},
                      qint64 maxMs = 5000) {
    QElapsedTimer timer;
    timer.start();
    try {
        (void)loadImage(path.toStdString(), options);
        QFAIL(qPrintable("no error for " + path));
    } catch (const InputError& e) {
        const QString message = QString::fromUtf8(e.what());
        for (const QString& part : parts) QVERIFY2(message.contains(part), qPrintable(message));
    }
    QVERIFY2(timer.elapsed() < maxMs, qPrintable(QString("took %1 ms").arg(timer.elapsed())));
}

// glint-cli must exit with the code and one short printable line on stderr holding the text.
void expectCliLine(const QStringList& args, int exitCode, const QString& text, int timeoutMs = 30000) {
    const auto r = test::runCli(args, timeoutMs);
    QVERIFY2(r.exitCode == exitCode, qPrintable(QString("exit %1: %2").arg(r.exitCode).arg(QString::fromUtf8(r.err))));
    QVERIFY2(r.err.endsWith('\n') && r.err.count('\n') == 1, r.err.left(2000).constData());
    QVERIFY2(r.err.size() < 600, qPrintable(QString("%1 bytes on stderr").arg(r.err.size())));
    for (char c : r.err.chopped(1)) QVERIFY2(static_cast<unsigned char>(c) >= 0x20 && c != 0x7f, r.err.constData());
    QVERIFY2(r.err.startsWith("glint-cli: ") && QString::fromUtf8(r.err).contains(text), r.err.constData());
}

// ---- FITS --------------------------------------------------------------------------------------

// A 64 x 48 int16 image, tile-compressed (RICE_1 or HCOMPRESS_1, 16 x 16 tiles) after an empty primary.
QString writeCompressedFits(const QString& name, int compression) {
    const QString path = test::tempDir() + "/" + name;
    QFile::remove(path);
    fitsfile* f = nullptr;
    int status = 0;
    fits_create_diskfile(&f, path.toUtf8().constData(), &status);
    fits_set_compression_type(f, compression, &status);
    long tile[2] = {16, 16};
    fits_set_tile_dim(f, 2, tile, &status);
    long axes[2] = {64, 48};
    fits_create_img(f, SHORT_IMG, 2, axes, &status);
    std::vector<short> pixels(64 * 48);
    for (std::size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<short>((i * 37) % 1000);
    fits_write_img(f, TSHORT, 1, static_cast<LONGLONG>(pixels.size()), pixels.data(), &status);
    fits_close_file(f, &status);
    if (status) qWarning("CFITSIO status %d writing %s", status, qPrintable(path));
    return status ? QString() : path;
}

// Replaces the value of the first card named key (columns 11-30, right-justified as CFITSIO writes it).
bool setCard(QByteArray& bytes, const QByteArray& key, const QByteArray& value) {
    const QByteArray start = key.leftJustified(8, ' ') + "= ";
    for (qsizetype at = 0; at + 80 <= bytes.size(); at += 80) {
        if (bytes.mid(at, 10) != start) continue;
        const QByteArray card = (start + value.rightJustified(20, ' ')).leftJustified(80, ' ');
        bytes.replace(at, 80, card);
        return true;
    }
    return false;
}

// A FITS header (no data) with the given cards, padded to a block.
QByteArray fitsHeader(const QList<QByteArray>& cards) {
    QByteArray h;
    for (const QByteArray& c : cards) h += c.leftJustified(80, ' ');
    h += QByteArray("END").leftJustified(80, ' ');
    h += QByteArray((2880 - h.size() % 2880) % 2880, ' ');
    return h;
}

QString writeSmallFits(const QString& name) {
    const QString path = test::tempDir() + "/" + name;
    QByteArray bytes = fitsHeader({"SIMPLE  =                    T", "BITPIX  =                    8",
                                   "NAXIS   =                    2", "NAXIS1  =                    4",
                                   "NAXIS2  =                    3"});
    QByteArray data(2880, '\0');
    for (int i = 0; i < 12; ++i) data[i] = static_cast<char>(i * 10);
    writeBytes(path, bytes + data);
    return path;
}

// ---- DICOM -------------------------------------------------------------------------------------

QByteArray bytesOf(std::initializer_list<unsigned> values) {
    QByteArray b;
    for (unsigned v : values) b.append(static_cast<char>(v & 0xff));
    return b;
}
QByteArray le16(unsigned v) { return bytesOf({v, v >> 8}); }
QByteArray le32(std::uint32_t v) { return le16(v & 0xffff) + le16(v >> 16); }

// An explicit VR little endian element; VRs with 32-bit lengths written as the standard says.
QByteArray element(unsigned group, unsigned elem, const char* vr, const QByteArray& value,
                   std::uint32_t declaredLength = 0xFFFFFFFFu) {
    const std::uint32_t length = declaredLength == 0xFFFFFFFFu ? static_cast<std::uint32_t>(value.size()) : declaredLength;
    QByteArray e = le16(group) + le16(elem) + QByteArray(vr, 2);
    const QByteArray v(vr, 2);
    if (v == "OB" || v == "OW" || v == "UT" || v == "UN" || v == "SQ" || v == "OF") e += le16(0) + le32(length);
    else e += le16(length);
    return e + value;
}

QByteArray uid(const char* text) {
    QByteArray v(text);
    if (v.size() % 2) v += '\0';
    return v;
}

// Preamble, DICM and the file meta information naming the transfer syntax.
QByteArray dicomMeta(const char* transferSyntax) {
    QByteArray meta = element(0x0002, 0x0001, "OB", QByteArray("\x00\x01", 2)) +
                      element(0x0002, 0x0002, "UI", uid("1.2.840.10008.5.1.4.1.1.7")) +
                      element(0x0002, 0x0003, "UI", uid("1.2.3.4.5.6")) +
                      element(0x0002, 0x0010, "UI", uid(transferSyntax));
    return QByteArray(128, '\0') + "DICM" + element(0x0002, 0x0000, "UL", le32(static_cast<std::uint32_t>(meta.size()))) +
           meta;
}

// The dataset of a 16 x 16 MONOCHROME2 16-bit image with the given frame count.
QByteArray imageDataset(unsigned rows, unsigned columns, const QByteArray& frames = {}) {
    QByteArray ds = element(0x0008, 0x0016, "UI", uid("1.2.840.10008.5.1.4.1.1.7")) +
                    element(0x0008, 0x0018, "UI", uid("1.2.3.4.5.6")) +
                    element(0x0028, 0x0002, "US", le16(1)) + element(0x0028, 0x0004, "CS", "MONOCHROME2 ");
    if (!frames.isEmpty()) ds += element(0x0028, 0x0008, "IS", frames);
    ds += element(0x0028, 0x0010, "US", le16(rows)) + element(0x0028, 0x0011, "US", le16(columns)) +
          element(0x0028, 0x0100, "US", le16(16)) + element(0x0028, 0x0101, "US", le16(16)) +
          element(0x0028, 0x0102, "US", le16(15)) + element(0x0028, 0x0103, "US", le16(0));
    return ds;
}

QByteArray rawDeflate(const QByteArray& data) {
    z_stream z{};
    deflateInit2(&z, 9, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
    QByteArray out(static_cast<qsizetype>(deflateBound(&z, static_cast<uLong>(data.size()))), '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.constData()));
    z.avail_in = static_cast<uInt>(data.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    deflate(&z, Z_FINISH);
    out.resize(static_cast<qsizetype>(z.total_out));
    deflateEnd(&z);
    return out;
}

// ---- raster headers declaring 30000 x 30000 -----------------------------------------------------

QByteArray be32(std::uint32_t v) { return bytesOf({v >> 24, v >> 16, v >> 8, v}); }
QByteArray be16(unsigned v) { return bytesOf({v >> 8, v}); }

QByteArray pngChunk(const QByteArray& type, const QByteArray& data) {
    const QByteArray body = type + data;
    const uLong crc = crc32(0, reinterpret_cast<const Bytef*>(body.constData()), static_cast<uInt>(body.size()));
    return be32(static_cast<std::uint32_t>(data.size())) + body + be32(static_cast<std::uint32_t>(crc));
}

// A valid PNG signature and IHDR for 30000 x 30000 RGB 8 bit, then a few bytes of a zlib stream.
QByteArray pngBomb() {
    const QByteArray ihdr = be32(30000) + be32(30000) + QByteArray("\x08\x02\x00\x00\x00", 5);
    const QByteArray idat = QByteArray::fromHex("789c63000000010001"); // zlib of one zero byte
    return QByteArray("\x89PNG\r\n\x1a\n", 8) + pngChunk("IHDR", ihdr) + pngChunk("IDAT", idat) + pngChunk("IEND", {});
}

// A TIFF header and one directory: ImageWidth/ImageLength 30000 (LONG), BitsPerSample 8, SamplesPerPixel 3.
QByteArray tiffBomb(bool bigEndian) {
    const auto u16 = [&](unsigned v) { return bigEndian ? be16(v) : le16(v); };
    const auto u32 = [&](std::uint32_t v) { return bigEndian ? be32(v) : le32(v); };
    const auto entry = [&](unsigned tag, unsigned type, std::uint32_t value) {
        QByteArray e = u16(tag) + u16(type) + u32(1);
        return e + (type == 3 ? u16(value) + u16(0) : u32(value));
    };
    QByteArray t = bigEndian ? QByteArray("MM\x00\x2a", 4) : QByteArray("II\x2a\x00", 4);
    t += u32(8) + u16(4) + entry(256, 4, 30000) + entry(257, 4, 30000) + entry(258, 3, 8) + entry(277, 3, 3) + u32(0);
    return t + QByteArray(64, '\0');
}

QByteArray jpegBomb() {
    return QByteArray::fromHex("ffd8ffe000104a46494600010100000100010000") + QByteArray::fromHex("ffc0001108") +
           be16(30000) + be16(30000) + QByteArray::fromHex("03012200021101031101") + QByteArray::fromHex("ffd9");
}

QByteArray bmpBomb() {
    QByteArray b = QByteArray("BM") + le32(54) + le32(0) + le32(54);
    b += le32(40) + le32(30000) + le32(30000) + le16(1) + le16(24) + le32(0) + le32(0) + le32(2835) + le32(2835) +
         le32(0) + le32(0);
    return b + QByteArray(16, '\0');
}

} // namespace

class TestHostileInputs : public QObject {
    Q_OBJECT

private slots:
    void init() { setMaxImageBytes(0); }
    void cleanup() { setMaxImageBytes(0); }

    // ---- 1. tile-compressed FITS with keywords CFITSIO would divide by -------------------------
    void compressedFitsBadKeywords_data() {
        test::columns<int, QByteArray, QByteArray>({"compression", "key", "value"});
        QTest::newRow("RICE ZTILE1 = 0") << int(RICE_1) << QByteArray("ZTILE1") << QByteArray("0");
        QTest::newRow("RICE ZTILE2 = 0") << int(RICE_1) << QByteArray("ZTILE2") << QByteArray("0");
        QTest::newRow("RICE ZTILE1 = -16") << int(RICE_1) << QByteArray("ZTILE1") << QByteArray("-16");
        QTest::newRow("RICE BLOCKSIZE ZVAL1 = 0") << int(RICE_1) << QByteArray("ZVAL1") << QByteArray("0");
        QTest::newRow("RICE BYTEPIX ZVAL2 = 0") << int(RICE_1) << QByteArray("ZVAL2") << QByteArray("0");
        QTest::newRow("RICE ZNAXIS1 = 0") << int(RICE_1) << QByteArray("ZNAXIS1") << QByteArray("0");
        QTest::newRow("RICE ZBITPIX = 7") << int(RICE_1) << QByteArray("ZBITPIX") << QByteArray("7");
        QTest::newRow("HCOMPRESS ZTILE2 = 0") << int(HCOMPRESS_1) << QByteArray("ZTILE2") << QByteArray("0");
        QTest::newRow("HCOMPRESS SCALE ZVAL1 = 'big'") << int(HCOMPRESS_1) << QByteArray("ZVAL1") << QByteArray("'big'");
        QTest::newRow("HCOMPRESS SMOOTH ZVAL2 = 0.5") << int(HCOMPRESS_1) << QByteArray("ZVAL2") << QByteArray("0.5");
    }
    void compressedFitsBadKeywords() {
        QFETCH(int, compression);
        QFETCH(QByteArray, key);
        QFETCH(QByteArray, value);
        const QString path = writeCompressedFits("good-compressed.fits", compression);
        QVERIFY(!path.isEmpty());
        QCOMPARE(loadImage(path.toStdString()).width(), 64); // the file as written opens
        QByteArray bytes = readBytes(path);
        QVERIFY2(setCard(bytes, key, value), key.constData());
        const QString bad = test::tempDir() + "/bad-" + QString::fromLatin1(key) + ".fits";
        writeBytes(bad, bytes);
        expectInputError(bad, {"HDU 1", QString::fromLatin1(key)});
    }

    // Values CFITSIO reads without harm are not refused: a negative HCOMPRESS scale, a smoothing flag of 7.
    void compressedFitsOddButHarmless() {
        const QString path = writeCompressedFits("odd-compressed.fits", HCOMPRESS_1);
        QByteArray bytes = readBytes(path);
        QVERIFY(setCard(bytes, "ZVAL1", "-1"));
        QVERIFY(setCard(bytes, "ZVAL2", "7"));
        const QString odd = test::tempDir() + "/odd.fits";
        writeBytes(odd, bytes);
        QCOMPARE(loadImage(odd.toStdString()).width(), 64);
    }

    void compressedFitsCli() {
        const QString path = writeCompressedFits("cli-compressed.fits", RICE_1);
        QByteArray bytes = readBytes(path);
        QVERIFY(setCard(bytes, "ZTILE1", "0"));
        const QString bad = test::tempDir() + "/cli-ztile0.fits";
        writeBytes(bad, bytes);
        expectCliLine({"info", bad}, 3, "ZTILE1 = '0' (a tile must be at least 1 pixel long)");
        expectCliLine({"brightest", bad}, 3, "damaged compressed image");
    }

    // The last resort behind the keyword checks: a division by zero on this thread is a failure.
    void fpeGuard() {
        volatile int zero = 0;
        volatile int seven = 7;
        volatile int result = 0;
        QVERIFY(!runGuardedAgainstFpe([&] { result = seven / zero; }));
        QVERIFY(runGuardedAgainstFpe([&] { result = 1 + zero; }));
        QCOMPARE(static_cast<int>(result), 1);
        QVERIFY_THROWS_EXCEPTION(InputError, runGuardedAgainstFpe([] { throw InputError("passes through"); }));
    }

    // ---- 2. FIFOs, devices, symlink loops ---------------------------------------------------------
    void fifoIsRefused() {
        const QString fifo = test::tempDir() + "/pipe.fits";
        ::unlink(fifo.toUtf8().constData());
        QCOMPARE(::mkfifo(fifo.toUtf8().constData(), 0600), 0);
        expectInputError(fifo, {"not a regular file (a FIFO)"});
        QVERIFY_THROWS_EXCEPTION(InputError, detectFileFormat(fifo.toStdString()));
        QVERIFY_THROWS_EXCEPTION(InputError, loadFits(fifo.toStdString(), {}));
        QVERIFY_THROWS_EXCEPTION(InputError, loadDicom(fifo.toStdString(), {}));
        QVERIFY_THROWS_EXCEPTION(InputError, loadTextMatrix(fifo.toStdString()));
        expectCliLine({"info", fifo}, 3, "not a regular file (a FIFO)", 10000);
    }

    void deviceIsRefused() { expectInputError("/dev/zero", {"not a regular file (a character device)"}); }

    void symlinkLoop() {
        const QString a = test::tempDir() + "/loop-a.fits";
        const QString b = test::tempDir() + "/loop-b.fits";
        ::unlink(a.toUtf8().constData());
        ::unlink(b.toUtf8().constData());
        QCOMPARE(::symlink(b.toUtf8().constData(), a.toUtf8().constData()), 0);
        QCOMPARE(::symlink(a.toUtf8().constData(), b.toUtf8().constData()), 0);
        expectInputError(a, {"too many levels of symbolic links"});
        expectCliLine({"info", a}, 3, "too many levels of symbolic links");
        expectInputError(test::tempDir() + "/nothing-here.png", {"no such file or directory"});
        expectInputError(test::tempDir(), {"it is a folder"});
    }

    // ---- 3. DICOM elements claiming more than the file holds --------------------------------------
    void dicomHugeLength_data() {
        test::columns<QByteArray, QString>({"file", "message"});
        const QByteArray ds = imageDataset(16, 16);
        QByteArray pixel = dicomMeta("1.2.840.10008.1.2.1") + ds +
                           element(0x7FE0, 0x0010, "OW", QByteArray(512, '\x01'), 0x7FFFFFF0u);
        pixel += QByteArray(4096 - pixel.size() % 4096, '\x02');
        QTest::newRow("pixel data 0x7FFFFFF0") << pixel << QString("element (7FE0,0010) claims 2147483632 bytes");
        QByteArray text = dicomMeta("1.2.840.10008.1.2.1") + element(0x0008, 0x0016, "UI", uid("1.2.840.10008.5.1.4.1.1.7")) +
                          element(0x0040, 0xA160, "UT", QByteArray(100, 'a'), 0x7FFFFFF0u);
        text += QByteArray(4096 - text.size() % 4096, 'a');
        QTest::newRow("UT text 0x7FFFFFF0") << text << QString("element (0040,A160) claims 2147483632 bytes");
        const QByteArray implicitDs = le16(0x0008) + le16(0x0016) + le32(26) + uid("1.2.840.10008.5.1.4.1.1.7") +
                                      le16(0x7FE0) + le16(0x0010) + le32(0x7FFFFFF0u) + QByteArray(1000, '\0');
        QTest::newRow("implicit VR pixel data") << dicomMeta("1.2.840.10008.1.2") + implicitDs
                                                << QString("element (7FE0,0010) claims 2147483632 bytes");
        const QByteArray deflated = dicomMeta("1.2.840.10008.1.2.1.99") +
                                    rawDeflate(ds + element(0x7FE0, 0x0010, "OW", QByteArray(512, '\0'), 0x7FFFFFF0u));
        QTest::newRow("deflated pixel data") << deflated << QString("claims 2147483632 bytes but only 512 remain in the deflated dataset");
        QTest::newRow("deflated garbage") << dicomMeta("1.2.840.10008.1.2.1.99") + QByteArray(4000, '\xff')
                                          << QString("the deflated DICOM dataset is corrupt");
        QTest::newRow("65535 x 65535 x 1000 frames") << dicomMeta("1.2.840.10008.1.2.1") +
                                                             imageDataset(65535, 65535, "1000") +
                                                             element(0x7FE0, 0x0010, "OW", QByteArray(512, '\0'))
                                                      << QString::fromUtf8("the image is too large: 65535 \u00d7 65535 \u00d7 1000 frames");
    }
    void dicomHugeLength() {
        QFETCH(QByteArray, file);
        QFETCH(QString, message);
        const QString path = test::tempDir() + "/hostile.dcm";
        writeBytes(path, file);
        expectInputError(path, {message}, {}, 3000);
    }

    void dicomDeflateBomb() {
        setMaxImageBytes(1 << 20);
        const QByteArray ds = imageDataset(16, 16) + element(0x0009, 0x1010, "OB", QByteArray(8 << 20, '\0'));
        const QString path = test::tempDir() + "/bomb.dcm";
        writeBytes(path, dicomMeta("1.2.840.10008.1.2.1.99") + rawDeflate(ds));
        QVERIFY(QFileInfo(path).size() < 64 * 1024);
        expectInputError(path, {"the deflated DICOM dataset expands to more than 1.0 MiB"});
    }

    void dicomCli() {
        QByteArray file = dicomMeta("1.2.840.10008.1.2.1") + imageDataset(16, 16) +
                          element(0x7FE0, 0x0010, "OW", QByteArray(512, '\x01'), 0x7FFFFFF0u);
        const QString path = test::tempDir() + "/cli-huge.dcm";
        writeBytes(path, file);
        expectCliLine({"info", path}, 3, "claims 2147483632 bytes but only 512 remain");
    }

    // --frame on DICOM out of range: a real error, as before.
    void dicomFrameOutOfRange() {
        QByteArray pixels;
        for (int i = 0; i < 16 * 16; ++i) pixels += le16(static_cast<unsigned>(i));
        const QString path = test::tempDir() + "/small.dcm";
        writeBytes(path, dicomMeta("1.2.840.10008.1.2.1") + imageDataset(16, 16) + element(0x7FE0, 0x0010, "OW", pixels));
        QCOMPARE(loadImage(path.toStdString()).width(), 16);
        LoadOptions options;
        options.frame = 5;
        expectInputError(path, {"frame 5 is out of range"}, options);
        expectCliLine({"brightest", path, "--frame", "1000000"}, 3, "frame 1000000 is out of range");
    }

    // ---- 4. decompression bombs: the header's size is checked before decoding ----------------------
    void rasterBombs_data() {
        test::columns<QString, QByteArray, QString>({"name", "file", "size"});
        const QString rgb = QString::fromUtf8("30000 \u00d7 30000 \u00d7 3 channels \u00d7 8 bit = 2.5 GiB decoded");
        QTest::newRow("PNG") << QString("bomb.png") << pngBomb() << rgb;
        QTest::newRow("TIFF little endian") << QString("bomb-ii.tif") << tiffBomb(false) << rgb;
        QTest::newRow("TIFF big endian") << QString("bomb-mm.tif") << tiffBomb(true) << rgb;
        QTest::newRow("JPEG") << QString("bomb.jpg") << jpegBomb() << rgb;
        QTest::newRow("BMP") << QString("bomb.bmp") << bmpBomb() << rgb;
        QTest::newRow("PNM") << QString("bomb.ppm") << QByteArray("P6\n# big\n30000 30000\n255\n") + QByteArray(100, '\0') << rgb;
    }
    void rasterBombs() {
        if (!GLINT_WITH_IMGCODECS) QSKIP("this build reads no raster formats (GLINT_WITH_IMGCODECS=OFF)");
        QFETCH(QString, name);
        QFETCH(QByteArray, file);
        QFETCH(QString, size);
        const QString path = test::tempDir() + "/" + name;
        writeBytes(path, file);
        setMaxImageBytes(3ULL << 29); // 1.5 GiB
        expectInputError(path, {"too large", size, "over the 1.5 GiB limit (GLINT_MAX_IMAGE_BYTES)"}, {}, 1000);
        setMaxImageBytes(0);
        // The default limit (half the memory) is far below 2.5 GiB + 17 bytes a pixel of working copies
        // on machines up to 32 GiB; on larger ones the decoder then finds the data missing.
        try {
            (void)loadImage(path.toStdString());
            QFAIL("opened");
        } catch (const InputError&) {
        }
    }

    void bombCli() {
        if (!GLINT_WITH_IMGCODECS) QSKIP("this build reads no raster formats (GLINT_WITH_IMGCODECS=OFF)");
        const QString path = test::tempDir() + "/cli-bomb.png";
        writeBytes(path, pngBomb());
        // Restored however the test ends: later tests (and their glint-cli runs) must not inherit it.
        struct Unset {
            ~Unset() { qunsetenv("GLINT_MAX_IMAGE_BYTES"); }
        } unset;
        qputenv("GLINT_MAX_IMAGE_BYTES", "1536M");
        QElapsedTimer timer;
        timer.start();
        expectCliLine({"info", path}, 3,
                      QString::fromUtf8("the image is too large: 30000 \u00d7 30000 \u00d7 3 channels \u00d7 8 bit = 2.5 GiB "
                                        "decoded, 17 GiB with Glint's working copies (17 bytes a pixel), over the "
                                        "1.5 GiB limit (GLINT_MAX_IMAGE_BYTES)"));
        QVERIFY(timer.elapsed() < 10000);
        qputenv("GLINT_MAX_IMAGE_BYTES", "lots");
        const auto r = test::runCli({"info", path}); // a usage error: one line
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.startsWith("glint-cli: GLINT_MAX_IMAGE_BYTES='lots' is not a byte count"), r.err.constData());
        qunsetenv("GLINT_MAX_IMAGE_BYTES");
    }

    void fitsAndCsvLimit() {
        // 40000 x 40000 doubles: under the 2^31-pixel cap, 12 GiB decoded.
        const QString fits = test::tempDir() + "/huge.fits";
        writeBytes(fits, fitsHeader({"SIMPLE  =                    T", "BITPIX  =                  -64",
                                     "NAXIS   =                    2", "NAXIS1  =                40000",
                                     "NAXIS2  =                40000"}));
        setMaxImageBytes(1ULL << 30);
        expectInputError(fits, {"too large", QString::fromUtf8("40000 \u00d7 40000 \u00d7 64 bit = 12 GiB decoded")});
        // CSV: the numbers (8 bytes each and the working copies) count against the limit as rows come in.
        setMaxImageBytes(4096);
        QByteArray csv;
        for (int y = 0; y < 100; ++y) csv += "1,2,3,4,5,6,7,8,9,10\n";
        const QString path = test::tempDir() + "/many.csv";
        writeBytes(path, csv);
        expectInputError(path, {"too large"});
        setMaxImageBytes(1000);
        expectInputError(path, {"the text file is too large: 2.1 KiB, over the 1000 bytes limit"});
    }

    // ---- 5. --frame is DICOM's, --plane FITS' ---------------------------------------------------
    void frameOnFits() {
        const QString path = writeSmallFits("flat.fits");
        QCOMPARE(loadImage(path.toStdString()).width(), 4);
        LoadOptions options;
        options.frame = 1000000;
        expectInputError(path, {"--frame 1000000", "DICOM", "FITS cubes take --plane"}, options);
        expectCliLine({"brightest", path, "--frame", "1000000"}, 3, "FITS cubes take --plane");
        const auto r = test::runCli({"info", path, "--frame", "1000000"}); // a usage error: one line
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.startsWith("glint-cli: '--frame' applies to DICOM files"), r.err.constData());
        const QString csv = test::tempDir() + "/plane.csv";
        writeBytes(csv, "1,2\n3,4\n");
        LoadOptions plane;
        plane.plane = 3;
        expectInputError(csv, {"--plane 3", "FITS"}, plane);
    }

    // ---- 6. messages: long tokens cut, control bytes escaped ----------------------------------------
    void printable() {
        QCOMPARE(printableMessage("plain text"), std::string("plain text"));
        QCOMPARE(printableMessage("a\nb\tc"), std::string("a b c"));
        QCOMPARE(printableMessage("esc \x1b[31mred\x7f"), std::string("esc \\x1B[31mred\\x7F"));
        QCOMPARE(printableMessage("bad \xff\xfe utf8"), std::string("bad \\xFF\\xFE utf8"));
        QCOMPARE(printableMessage("C1 \xc2\x9b"), std::string("C1 \\xC2\\x9B"));
        const std::string utf8 = "30000 \xC3\x97 30000, caf\xC3\xA9 \xE2\x80\xA6";
        QCOMPARE(printableMessage(utf8), utf8);
        const std::string longText = "head " + std::string(100000, 'x') + " tail";
        const std::string cut = printableMessage(longText, 300);
        QVERIFY(cut.size() <= 300);
        QVERIFY(cut.rfind("head ", 0) == 0);
        QVERIFY(cut.size() >= 5 && cut.compare(cut.size() - 5, 5, " tail") == 0);
        QVERIFY(cut.find("\xE2\x80\xA6") != std::string::npos);
        QVERIFY(printableMessage(std::string(1000, '\x01'), 100).size() <= 100);
        QCOMPARE(quotedToken("abc"), std::string("'abc'"));
        QCOMPARE(quotedToken(std::string(1 << 20, 'y'), 5), std::string("'yyyyy\xE2\x80\xA6' (1048576 bytes)"));
    }

    void csvHostileTokens() {
        // Control bytes after the first 512 bytes (the format is still recognised as text).
        QByteArray csv;
        for (int y = 0; y < 60; ++y) csv += "1,2,3,4,5,6\n";
        csv += "1,2,3,4,5,\x1b[2J\x1b]0:pwned\x07\r\n";
        const QString control = test::tempDir() + "/control.csv";
        writeBytes(control, csv);
        expectInputError(control, {"line 61", "'\\x1B[2J\\x1B]0:pwned\\x07' is not a number"});
        expectCliLine({"info", control}, 3, "line 61: '\\x1B[2J\\x1B]0:pwned\\x07' is not a number");

        QByteArray big = "1,2\n3," + QByteArray(1 << 20, 'z') + "\n";
        const QString token = test::tempDir() + "/token.csv";
        writeBytes(token, big);
        expectInputError(token, {"(1048576 bytes) is not a number"});
        expectCliLine({"info", token}, 3, "(1048576 bytes) is not a number");

        // A path with control bytes is escaped too.
        expectCliLine({"info", test::tempDir() + "/no\x1b[31mfile\n.csv"}, 3, "no\\x1B[31mfile .csv");
    }

    // ---- 7. batch: every file counted; the hostile ones are per-file failures, not the end of the run
    void batchTally() {
        const QString dir = test::tempDir() + "/hostile-batch";
        QDir(dir).removeRecursively();
        QVERIFY(QDir().mkpath(dir + "/sub"));
        writeBytes(dir + "/a.csv", "1,2,3\n4,5,6\n");
        writeBytes(dir + "/b.csv", "7,8\n9,10\n");
        writeBytes(dir + "/notes.bin", QByteArray("\x00\x01\x02\xff", 4));
        const QString compressed = writeCompressedFits("batch-src.fits", RICE_1);
        QByteArray bytes = readBytes(compressed);
        QVERIFY(setCard(bytes, "ZTILE2", "0"));
        writeBytes(dir + "/c.fits", bytes);
        writeBytes(dir + "/d.png", pngBomb());
        QCOMPARE(::mkfifo((dir + "/e.fifo").toUtf8().constData(), 0600), 0);
        QCOMPARE(::symlink("f.dangling", (dir + "/f.dangling").toUtf8().constData()), 0); // a loop onto itself
        writeBytes(dir + "/.hidden.csv", "1\n");
        setMaxImageBytes(0);
        qputenv("GLINT_MAX_IMAGE_BYTES", "1G");
        const QString loop = test::tempDir() + "/batch-loop";
        ::unlink(loop.toUtf8().constData());
        QCOMPARE(::symlink(loop.toUtf8().constData(), loop.toUtf8().constData()), 0);
        const auto r = test::runCli({"batch", "--algo", "info", "--out", "-", dir, loop}, 60000);
        qunsetenv("GLINT_MAX_IMAGE_BYTES");
        const QString err = QString::fromUtf8(r.err);
        QVERIFY2(r.exitCode == 0, qPrintable(err));
        QVERIFY2(err.contains("2 of 8 files done, 1 skipped (not an image format Glint reads), 5 failed"), qPrintable(err));
        QVERIFY2(err.contains("c.fits': cannot open") && err.contains("ZTILE2"), qPrintable(err));
        QVERIFY2(err.contains("e.fifo': cannot open") && err.contains("not a regular file (a FIFO)"), qPrintable(err));
        QVERIFY2(err.contains("f.dangling': cannot open") && err.contains("too many levels of symbolic links"), qPrintable(err));
        QVERIFY2(err.contains("batch-loop': too many levels of symbolic links"), qPrintable(err));
        // The lean build reads no PNG at all: the bomb fails for that reason there.
        QVERIFY2(err.contains("d.png': cannot open") && err.contains(GLINT_WITH_IMGCODECS ? "too large" : "not PNG"),
                 qPrintable(err));
        QVERIFY(!err.contains("notes.bin"));
        QVERIFY(!err.contains(".hidden"));
        QCOMPARE(r.out.count('\n'), 5); // two comment lines (parameters, run), header + a.csv + b.csv
    }

    // Bounded memory: none of the above allocated what the files declare (gigabytes), neither in this
    // process (the loaders called directly) nor in any glint-cli run (the largest child counts).
    void memoryStayedSmall() {
        struct rusage self {}, children {};
        QCOMPARE(::getrusage(RUSAGE_SELF, &self), 0);
        QCOMPARE(::getrusage(RUSAGE_CHILDREN, &children), 0);
        QVERIFY2(self.ru_maxrss < 512 * 1024, qPrintable(QString("test process peak %1 KiB").arg(self.ru_maxrss)));
        QVERIFY2(children.ru_maxrss < 512 * 1024, qPrintable(QString("glint-cli peak %1 KiB").arg(children.ru_maxrss)));
    }
};

QTEST_GUILESS_MAIN(TestHostileInputs)
#include "test_hostile_inputs.moc"
