// The FITS loader on files this test writes with CFITSIO: every BITPIX with BSCALE/BZERO and
// BLANK/NaN, tile compression, cubes, multi-extension files, literal names, corrupt and truncated files.
#include "tests/support/TestSupport.h"

#include "core/io/ImageLoader.h"
#include "core/util/Errors.h"

#include <QFile>
#include <QtTest>

#include <fitsio.h>

#include <cmath>
#include <limits>

using namespace glint;

Q_DECLARE_METATYPE(glint::SampleType)

namespace {

constexpr int kWidth = 4;
constexpr int kHeight = 3;

// Twelve raw values per BITPIX that include the extremes of the type.
std::vector<long double> rawValues(int bitpix) {
    switch (bitpix) {
    case 8: return {0, 255, 17, 128, 1, 254, 100, 3, 200, 17, 50, 77};
    case 16: return {-32768, 32767, -1, 0, 1, 12345, -12345, 77, -300, 999, 32766, -32767};
    case 32: return {-2147483648.0L, 2147483647, -1, 0, 16777217, -16777217, 5, 6, 7, -99, 123456789, 42};
    case 64:
        return {-9223372036854775807.0L - 1, 9223372036854775807.0L, 4611686018427387905.0L, -1, 0, 1,
                9007199254740993.0L, -9007199254740993.0L, 5, 6, 7, 8};
    default: // floating point; NaN marks a blank
        return {0.5, -1.25, 3.0e10, std::numeric_limits<long double>::quiet_NaN(), 1.0e-3, 7, -8, 9.75, 10, 11,
                -12.5, 13};
    }
}

struct WriteSpec {
    int bitpix = 16;
    double bscale = 1.0;
    double bzero = 0.0;
    std::optional<long long> blank;
    int compression = 0; // 0 = none, else RICE_1 / GZIP_1
    bool quantiseFloats = false; // CFITSIO's default lossy float compression, else lossless
};

void check(int status, const char* what) {
    if (status) {
        char text[FLEN_STATUS];
        fits_get_errstatus(status, text);
        fits_clear_errmsg();
        QFAIL(qPrintable(QString("%1: CFITSIO %2").arg(what, text)));
    }
}

// Writes one image HDU after an empty primary (or as the primary when not compressed), raw values
// stored exactly: CFITSIO's scaling is switched off while writing.
void writeImage(fitsfile* f, const WriteSpec& spec, const std::vector<long>& axes, const std::vector<long double>& raw) {
    int status = 0;
    if (spec.compression) {
        fits_set_compression_type(f, spec.compression, &status);
        if (spec.bitpix < 0 && !spec.quantiseFloats) fits_set_quantize_level(f, 0.0f, &status); // lossless
    }
    std::vector<long> naxes = axes;
    fits_create_img(f, spec.bitpix, static_cast<int>(naxes.size()), naxes.data(), &status);
    if (spec.bscale != 1.0) fits_write_key(f, TDOUBLE, "BSCALE", const_cast<double*>(&spec.bscale), nullptr, &status);
    if (spec.bzero != 0.0) fits_write_key(f, TDOUBLE, "BZERO", const_cast<double*>(&spec.bzero), nullptr, &status);
    if (spec.blank) {
        long long b = *spec.blank;
        fits_write_key(f, TLONGLONG, "BLANK", &b, nullptr, &status);
    }
    const char* object = "test image";
    fits_write_key(f, TSTRING, "OBJECT", const_cast<char*>(object), "what it shows", &status);
    fits_write_comment(f, "written by test_fits_loader", &status);
    fits_set_bscale(f, 1.0, 0.0, &status);
    // In the native type of BITPIX: the tile compressor takes nothing else.
    const auto write = [&](auto sample, int datatype) {
        std::vector<decltype(sample)> v(raw.size());
        for (std::size_t i = 0; i < raw.size(); ++i) v[i] = static_cast<decltype(sample)>(raw[i]);
        fits_write_img(f, datatype, 1, static_cast<LONGLONG>(v.size()), v.data(), &status);
    };
    if (spec.quantiseFloats) {
        // The compressor finds NaN only when told to look for undefined pixels.
        std::vector<float> v(raw.begin(), raw.end());
        float nulval = -1.0e30f;
        for (float& x : v)
            if (std::isnan(x)) x = nulval;
        LONGLONG first[2] = {1, 1};
        fits_write_pixnullll(f, TFLOAT, first, static_cast<LONGLONG>(v.size()), v.data(), &nulval, &status);
        check(status, "writing the quantised image");
        return;
    }
    switch (spec.bitpix) {
    case 8: write(static_cast<unsigned char>(0), TBYTE); break;
    case 16: write(static_cast<short>(0), TSHORT); break;
    case 32: write(0, TINT); break;
    case 64: write(0LL, TLONGLONG); break;
    case -32: write(0.0f, TFLOAT); break;
    default: write(0.0, TDOUBLE); break;
    }
    check(status, "writing the image");
}

QString newPath(const QString& name) {
    static int counter = 0;
    return test::tempDir() + QString("/%1-%2").arg(++counter).arg(name);
}

fitsfile* create(const QString& path) {
    fitsfile* f = nullptr;
    int status = 0;
    fits_create_diskfile(&f, path.toUtf8().constData(), &status);
    if (status) return nullptr;
    return f;
}

void close(fitsfile* f) {
    int status = 0;
    fits_close_file(f, &status);
}

QString writeFile(const QString& name, const WriteSpec& spec, const std::vector<long>& axes,
                  const std::vector<long double>& raw) {
    const QString path = newPath(name);
    fitsfile* f = create(path);
    if (!f) return {};
    writeImage(f, spec, axes, raw);
    close(f);
    return path;
}

long double sampleAt(const Image& image, std::size_t i) {
    return image.visit([i](const auto* p) { return static_cast<long double>(p[i]); });
}

QByteArray headerBlock(const QList<QByteArray>& cards) {
    QByteArray block;
    for (QByteArray c : cards) block += c.leftJustified(80, ' ', true);
    block += QByteArray("END").leftJustified(80, ' ');
    return block.leftJustified(((block.size() + 2879) / 2880) * 2880, ' ');
}

QString writeBytes(const QString& name, const QByteArray& bytes) {
    const QString path = newPath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly)) return {};
    file.write(bytes);
    return path;
}

} // namespace

class TestFitsLoader : public QObject {
    Q_OBJECT

private slots:
    void bitpixAndScaling_data() {
        // blank: 0 = no BLANK keyword
        test::columns<int, double, double, qlonglong, int, SampleType>(
            {"bitpix", "bscale", "bzero", "blank", "compression", "expected"});
        const qlonglong none = 0;
        QTest::newRow("8") << 8 << 1.0 << 0.0 << qlonglong(17) << 0 << SampleType::UInt8;
        QTest::newRow("8 bzero -128") << 8 << 1.0 << -128.0 << none << 0 << SampleType::Int8;
        QTest::newRow("16") << 16 << 1.0 << 0.0 << qlonglong(-32768) << 0 << SampleType::Int16;
        QTest::newRow("16 bzero 32768") << 16 << 1.0 << 32768.0 << qlonglong(-300) << 0 << SampleType::UInt16;
        QTest::newRow("16 bzero 1000") << 16 << 1.0 << 1000.0 << none << 0 << SampleType::Int32;
        QTest::newRow("16 bscale 0.5") << 16 << 0.5 << 3.0 << qlonglong(77) << 0 << SampleType::Float64;
        QTest::newRow("32") << 32 << 1.0 << 0.0 << qlonglong(-99) << 0 << SampleType::Int32;
        QTest::newRow("32 bzero 2^31") << 32 << 1.0 << 2147483648.0 << none << 0 << SampleType::UInt32;
        QTest::newRow("32 bscale 2") << 32 << 2.0 << 0.0 << none << 0 << SampleType::Float64;
        QTest::newRow("64") << 64 << 1.0 << 0.0 << qlonglong(8) << 0 << SampleType::Int64;
        QTest::newRow("-32") << -32 << 1.0 << 0.0 << none << 0 << SampleType::Float32;
        QTest::newRow("-64") << -64 << 1.0 << 0.0 << none << 0 << SampleType::Float64;
        QTest::newRow("-32 scaled") << -32 << 2.0 << 1.0 << none << 0 << SampleType::Float64;
        QTest::newRow("rice 16 bzero 32768") << 16 << 1.0 << 32768.0 << qlonglong(-300) << RICE_1 << SampleType::UInt16;
        QTest::newRow("rice 8") << 8 << 1.0 << 0.0 << qlonglong(17) << RICE_1 << SampleType::UInt8;
        QTest::newRow("rice 32 bzero 2^31") << 32 << 1.0 << 2147483648.0 << none << RICE_1 << SampleType::UInt32;
        QTest::newRow("gzip 16 bscale 0.5") << 16 << 0.5 << 3.0 << qlonglong(77) << GZIP_1 << SampleType::Float64;
        QTest::newRow("gzip -32") << -32 << 1.0 << 0.0 << none << GZIP_1 << SampleType::Float32;
        QTest::newRow("gzip -64") << -64 << 1.0 << 0.0 << none << GZIP_1 << SampleType::Float64;
    }
    void bitpixAndScaling() {
        QFETCH(int, bitpix);
        QFETCH(double, bscale);
        QFETCH(double, bzero);
        QFETCH(qlonglong, blank);
        QFETCH(int, compression);
        QFETCH(SampleType, expected);
        WriteSpec spec{bitpix, bscale, bzero, std::nullopt, compression};
        if (blank != 0) spec.blank = blank;
        const std::vector<long double> raw = rawValues(bitpix);
        const QString path = writeFile("scaled.fits", spec, {kWidth, kHeight}, raw);
        QVERIFY(!path.isEmpty());

        const Image image = loadImage(path.toStdString());
        QCOMPARE(image.width(), kWidth);
        QCOMPARE(image.height(), kHeight);
        QCOMPARE(sampleTypeName(image.sampleType()), sampleTypeName(expected));
        QCOMPARE(image.meta.bitDepth, std::abs(bitpix));
        QCOMPARE(image.meta.format, std::string("FITS"));
        QVERIFY(image.meta.displayYUp);
        QCOMPARE(image.meta.hdu, compression ? 1 : 0);
        const bool identityOrOffset = bscale == 1.0 && bitpix > 0;
        for (std::size_t i = 0; i < raw.size(); ++i) {
            const bool isBlank = (spec.blank && raw[i] == *spec.blank) || std::isnan(raw[i]);
            QVERIFY2(image.isBlank(i) == isBlank, qPrintable(QString("pixel %1").arg(i)));
            if (isBlank) continue;
            // What the file holds: float32 files round the written values.
            const long double stored = bitpix == -32 ? static_cast<float>(raw[i]) : raw[i];
            long double want = 0;
            if (identityOrOffset) want = stored + bzero; // exact: long double holds 64-bit integers
            else if (expected == SampleType::Float32) want = stored;
            else want = static_cast<double>(stored) * bscale + bzero;
            QVERIFY2(sampleAt(image, i) == want, qPrintable(QString("pixel %1: %2 != %3")
                                                                .arg(i)
                                                                .arg(double(sampleAt(image, i)), 0, 'g', 17)
                                                                .arg(double(want), 0, 'g', 17)));
        }
        QCOMPARE(image.meta.integerValued, identityOrOffset || (bscale == 2.0 && bitpix == 32));
    }

    // The unsigned 64-bit convention (BZERO = 2^63) stays int64 when the values fit, else double.
    // CFITSIO itself writes that BZERO with 15 digits (9.22337203685478E+18), as this test does.
    void unsigned64() {
        WriteSpec spec{64, 1.0, 9223372036854775808.0, std::nullopt, 0};
        std::vector<long double> raw(12, -9223372036854775807.0L - 1);
        raw[1] = -1; // 2^63 - 1 after the offset
        raw[2] = -9223372036854775807.0L + 4611686018427387903.0L;
        Image image = loadImage(writeFile("u64.fits", spec, {kWidth, kHeight}, raw).toStdString());
        QCOMPARE(image.sampleType(), SampleType::Int64);
        QCOMPARE(image.samples<std::int64_t>()[0], std::int64_t(0));
        QCOMPARE(image.samples<std::int64_t>()[1], std::numeric_limits<std::int64_t>::max());
        QCOMPARE(image.samples<std::int64_t>()[2], std::int64_t(4611686018427387904LL));
        raw[3] = 5; // 2^63 + 5 does not fit int64
        image = loadImage(writeFile("u64big.fits", spec, {kWidth, kHeight}, raw).toStdString());
        QCOMPARE(image.sampleType(), SampleType::Float64);
        QCOMPARE(image.value(3), 9223372036854775813.0);
    }

    // Quantised (lossy) tile compression of floats marks NaN with ZBLANK: they must come back blank.
    void quantisedFloatCompression() {
        std::vector<long double> raw;
        std::mt19937 rng(11);
        std::normal_distribution<double> noise(100.0, 5.0);
        for (int i = 0; i < 64 * 64; ++i)
            raw.push_back(i % 97 == 3 ? std::numeric_limits<long double>::quiet_NaN() : noise(rng));
        WriteSpec spec{-32, 1.0, 0.0, std::nullopt, RICE_1, true};
        const Image image = loadImage(writeFile("quantised.fits", spec, {64, 64}, raw).toStdString());
        QCOMPARE(image.sampleType(), SampleType::Float32);
        double worst = 0;
        for (std::size_t i = 0; i < raw.size(); ++i) {
            QCOMPARE(image.isBlank(i), bool(std::isnan(raw[i])));
            if (!std::isnan(raw[i])) worst = std::max(worst, std::fabs(image.value(i) - double(raw[i])));
        }
        QVERIFY2(worst > 0 && worst < 2.0, qPrintable(QString("largest quantisation error %1").arg(worst)));
    }

    void cubeByPlane() {
        // 3 x 2 pixels, NAXIS3 = 4, NAXIS4 = 2: eight planes, the higher axes flattened in order.
        std::vector<long double> raw;
        for (int p = 0; p < 8; ++p)
            for (int y = 0; y < 2; ++y)
                for (int x = 0; x < 3; ++x) raw.push_back(p * 100 + y * 10 + x);
        const QString path = writeFile("cube.fits", WriteSpec{16}, {3, 2, 4, 2}, raw);
        for (int plane : {0, 3, 4, 7}) {
            LoadOptions options;
            options.plane = plane;
            const Image image = loadImage(path.toStdString(), options);
            QCOMPARE(image.width(), 3);
            QCOMPARE(image.height(), 2);
            QCOMPARE(image.meta.planeCount, 8);
            QCOMPARE(image.meta.plane, plane);
            QCOMPARE(image.value(2, 1), plane * 100.0 + 12.0);
            QCOMPARE(image.value(0, 0), plane * 100.0);
        }
        LoadOptions bad;
        bad.plane = 8;
        try {
            loadImage(path.toStdString(), bad);
            QFAIL("plane 8 of 8 was accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains("plane 8 is out of range"), e.what());
        }
    }

    void oneDimensionalImage() {
        const QString path = writeFile("line.fits", WriteSpec{-64}, {5}, {1, 2, 3, 4, 5});
        const Image image = loadImage(path.toStdString());
        QCOMPARE(image.width(), 5);
        QCOMPARE(image.height(), 1);
        QCOMPARE(image.value(4, 0), 5.0);
    }

    void multiExtension() {
        const QString path = newPath("mef.fits");
        fitsfile* f = create(path);
        QVERIFY(f);
        int status = 0;
        fits_create_img(f, 8, 0, nullptr, &status); // empty primary
        const char* ttype[] = {"FLUX", "NAME"};
        const char* tform[] = {"1E", "8A"};
        fits_create_tbl(f, BINARY_TBL, 3, 2, const_cast<char**>(ttype), const_cast<char**>(tform), nullptr, "CATALOG",
                        &status);
        const char* aform[] = {"E12.4", "A8"};
        fits_create_tbl(f, ASCII_TBL, 2, 2, const_cast<char**>(ttype), const_cast<char**>(aform), nullptr, "ASCII",
                        &status);
        check(status, "tables");
        writeImage(f, WriteSpec{-32}, {kWidth, kHeight}, rawValues(-32));
        writeImage(f, WriteSpec{16}, {2, 2}, {1, 2, 3, 4});
        const char* name = "SECOND";
        fits_write_key(f, TSTRING, "EXTNAME", const_cast<char*>(name), nullptr, &status);
        close(f);
        check(status, "extensions");

        const Image first = loadImage(path.toStdString());
        QCOMPARE(first.meta.hdu, 3);
        QCOMPARE(first.sampleType(), SampleType::Float32);
        QCOMPARE(first.meta.hdus.size(), std::size_t(5));
        const char* kinds[] = {"empty", "bintable", "table", "image", "image"};
        for (int i = 0; i < 5; ++i) {
            QCOMPARE(first.meta.hdus[i].index, i);
            QCOMPARE(first.meta.hdus[i].kind, std::string(kinds[i]));
        }
        QCOMPARE(first.meta.hdus[1].name, std::string("CATALOG"));
        QCOMPARE(first.meta.hdus[4].name, std::string("SECOND"));
        QCOMPARE(first.meta.hdus[4].axes, std::vector<long>({2, 2}));

        LoadOptions options;
        options.hdu = 4;
        const Image second = loadImage(path.toStdString(), options);
        QCOMPARE(second.meta.hdu, 4);
        QCOMPARE(second.value(1, 1), 4.0);

        const std::pair<int, QString> errors[] = {{1, "HDU 1 (CATALOG) is a binary table, not an image"},
                                                  {2, "HDU 2 (ASCII) is an ASCII table, not an image"},
                                                  {0, "HDU 0 holds no image data"},
                                                  {5, "HDU 5 does not exist (the file has 5 HDUs, 0 to 4)"}};
        for (const auto& [hdu, message] : errors) {
            options.hdu = hdu;
            try {
                loadImage(path.toStdString(), options);
                QFAIL(qPrintable(QString("HDU %1 was accepted").arg(hdu)));
            } catch (const InputError& e) {
                QVERIFY2(QString(e.what()).contains(message), e.what());
            }
        }
    }

    void headerAndMetadata() {
        const QString path = writeFile("meta.fits", WriteSpec{16, 1.0, 32768.0}, {kWidth, kHeight}, rawValues(16));
        const Image image = loadImage(path.toStdString());
        bool object = false, comment = false, bzero = false;
        for (const auto& c : image.meta.header) {
            object |= c.key == "OBJECT" && c.value == "test image" && c.comment == "what it shows";
            comment |= c.key == "COMMENT" && c.comment.find("written by test_fits_loader") != std::string::npos;
            bzero |= c.key == "BZERO" && std::stod(c.value) == 32768.0;
        }
        QVERIFY(object);
        QVERIFY(comment);
        QVERIFY(bzero);
        QCOMPARE(image.meta.header.front().key, std::string("SIMPLE"));
        QVERIFY(!image.meta.wcs); // no WCS keywords were written
    }

    // Brackets and parentheses are part of a file name, never CFITSIO's extended syntax.
    void literalNames_data() {
        test::addStringRows("name", {{"brackets", "a[1].fits"},
                                     {"parentheses", "b(2).fits"},
                                     {"plus and hash", "c+1#x.fits"},
                                     {"other extension", "sky.mt"}});
    }
    void literalNames() {
        QFETCH(QString, name);
        const QString dir = test::tempDir() + "/literal";
        QDir().mkpath(dir);
        const QString path = dir + "/" + name;
        QFile::remove(path);
        fitsfile* f = create(path);
        QVERIFY(f);
        writeImage(f, WriteSpec{16}, {2, 2}, {5, 6, 7, 8});
        close(f);
        const Image image = loadImage(path.toStdString());
        QCOMPARE(image.value(1, 1), 8.0);
        QCOMPARE(image.meta.format, std::string("FITS"));
    }

    void corruptAndTruncated_data() {
        test::columns<QByteArray, QString>({"bytes", "message"});
        const QByteArray good = headerBlock({"SIMPLE  =                    T", "BITPIX  =                   16",
                                             "NAXIS   =                    2", "NAXIS1  =                  100",
                                             "NAXIS2  =                  100"}) +
                                QByteArray(100 * 100 * 2, '\x01').leftJustified(23040, '\0');
        QTest::newRow("truncated data") << good.left(2880 + 5000) << "truncated";
        QTest::newRow("truncated header") << good.left(1000) << "cannot open";
        QTest::newRow("garbage header") << QByteArray("SIMPLE  = what is this").leftJustified(2880, 'x') << "cannot open";
        QTest::newRow("bad BITPIX")
            << headerBlock({"SIMPLE  =                    T", "BITPIX  =                    7", "NAXIS   =                    2",
                            "NAXIS1  =                    2", "NAXIS2  =                    2"}) +
                   QByteArray(2880, '\0')
            << "cannot open";
        QTest::newRow("zero axis") << headerBlock({"SIMPLE  =                    T", "BITPIX  =                   16",
                                                   "NAXIS   =                    2", "NAXIS1  =                    0",
                                                   "NAXIS2  =                    5"})
                                   << "holds no image";
        QTest::newRow("absurd dimensions")
            << headerBlock({"SIMPLE  =                    T", "BITPIX  =                  -64", "NAXIS   =                    2",
                            "NAXIS1  =             10000000", "NAXIS2  =             10000000"}) +
                   QByteArray(2880, '\0')
            << "absurd dimensions";
        QTest::newRow("bad BSCALE")
            << headerBlock({"SIMPLE  =                    T", "BITPIX  =                   16", "NAXIS   =                    2",
                            "NAXIS1  =                    2", "NAXIS2  =                    2",
                            "BSCALE  = 'two'"}) +
                   QByteArray(2880, '\0')
            << "BSCALE";
    }
    void corruptAndTruncated() {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, message);
        const QString path = writeBytes("bad.fits", bytes);
        try {
            loadImage(path.toStdString());
            QFAIL("a damaged file was accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains(message), e.what());
            QVERIFY2(!QString(e.what()).contains('\n'), "the message is one line");
        }
    }

    void truncatedCompressed() {
        std::vector<long double> raw;
        std::mt19937 rng(7);
        for (int i = 0; i < 300 * 200; ++i) raw.push_back(static_cast<int>(rng() % 60000) - 30000);
        const QString path = writeFile("comp.fits", WriteSpec{16, 1.0, 0.0, std::nullopt, RICE_1}, {300, 200}, raw);
        QCOMPARE(loadImage(path.toStdString()).value(299, 199), double(raw.back()));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray all = file.readAll();
        for (double fraction : {0.3, 0.6, 0.9}) {
            const QString cut = writeBytes("comp-cut.fits", all.left(static_cast<int>(all.size() * fraction)));
            QVERIFY_THROWS_EXCEPTION(InputError, loadImage(cut.toStdString()));
        }
    }
};

QTEST_GUILESS_MAIN(TestFitsLoader)
#include "test_fits_loader.moc"
