// Helpers of the georeferencing suites (test_georef_reading, test_georef_exports, test_georef_hostile): a
// skip without GDAL, the test GeoTIFF's transform, files written in a temporary folder (a PNG of our own, a
// GeoTIFF written by GDAL, a world file and .prj beside a PNG), and an image's header card.
#pragma once

#include "tests/support/TestSupport.h"

#include "core/io/Georef.h"
#include "core/io/Image.h"

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QString>
#include <QtTest>

#include <array>
#include <string>
#include <vector>

#if GLINT_WITH_GDAL
#include <cpl_conv.h>
#include <gdal.h>
#include <ogr_spatialref.h>
#endif

#define SKIP_WITHOUT_GDAL()                                                                                          \
    if (!georefAvailable()) QSKIP("this build has no GDAL (GLINT_WITH_IMGCODECS=OFF): no image is georeferenced")

namespace glint::test::geofiles {

// The GeoTIFF of these tests: 6 x 5 pixels of 30 m in UTM zone 33N, top-left corner at (500000, 5000000).
inline constexpr std::array<double, 6> kUtmTransform = {500000.0, 30.0, 0.0, 5000000.0, 0.0, -30.0};

inline QString folder(const QString& name) {
    const QString dir = test::tempDir() + "/" + name;
    QDir().mkpath(dir);
    return dir;
}

inline void writeBytes(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QCOMPARE(f.write(bytes), bytes.size());
}

// A minimal 8-bit greyscale PNG (zlib's stored blocks, no compression needed), so that this test does not
// depend on an encoder.
inline QByteArray pngBytes(int w, int h) {
    auto be32 = [](QByteArray& out, quint32 v) {
        for (int s = 24; s >= 0; s -= 8) out.append(static_cast<char>((v >> s) & 0xFF));
    };
    auto chunk = [&](QByteArray& out, const char* type, const QByteArray& data) {
        be32(out, static_cast<quint32>(data.size()));
        const QByteArray body = QByteArray(type, 4) + data;
        out.append(body);
        // CRC-32 of type and data.
        quint32 crc = 0xFFFFFFFFu;
        for (unsigned char c : body) {
            crc ^= c;
            for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
        }
        be32(out, crc ^ 0xFFFFFFFFu);
    };
    QByteArray raw;
    for (int y = 0; y < h; ++y) {
        raw.append('\0');
        for (int x = 0; x < w; ++x) raw.append(static_cast<char>((x * 37 + y * 11) & 0xFF));
    }
    QByteArray z("\x78\x01", 2); // one stored block (raw is small)
    z.append('\x01');
    const quint16 n = static_cast<quint16>(raw.size());
    z.append(static_cast<char>(n & 0xFF)).append(static_cast<char>(n >> 8));
    z.append(static_cast<char>(~n & 0xFF)).append(static_cast<char>((~n >> 8) & 0xFF));
    z.append(raw);
    quint32 a = 1, b = 0; // Adler-32
    for (unsigned char c : raw) {
        a = (a + c) % 65521;
        b = (b + a) % 65521;
    }
    be32(z, (b << 16) | a);
    QByteArray png("\x89PNG\r\n\x1a\n", 8);
    QByteArray ihdr;
    be32(ihdr, static_cast<quint32>(w));
    be32(ihdr, static_cast<quint32>(h));
    ihdr.append('\x08').append('\0').append('\0').append('\0').append('\0');
    chunk(png, "IHDR", ihdr);
    chunk(png, "IDAT", z);
    chunk(png, "IEND", {});
    return png;
}

#if GLINT_WITH_GDAL
inline QByteArray readBytes(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

inline void registerGdal() {
    static bool once = [] {
        GDALAllRegister();
        return true;
    }();
    (void)once;
}

// A GeoTIFF with the geotransform and CRS ("EPSG:N" or WKT) given, written by GDAL itself.
inline QString writeGeoTiff(const QString& path, const std::array<double, 6>& gt, const char* crs, int w = 6, int h = 5) {
    registerGdal();
    GDALDriverH driver = GDALGetDriverByName("GTiff");
    if (!driver) return {};
    GDALDatasetH ds = GDALCreate(driver, path.toUtf8().constData(), w, h, 1, GDT_Byte, nullptr);
    if (!ds) return {};
    std::array<double, 6> t = gt;
    GDALSetGeoTransform(ds, t.data());
    if (crs) {
        OGRSpatialReference srs;
        srs.SetFromUserInput(crs);
        GDALSetSpatialRef(ds, OGRSpatialReference::ToHandle(&srs));
    }
    std::vector<unsigned char> v(static_cast<std::size_t>(w) * h);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<unsigned char>(i * 7);
    const CPLErr err = GDALRasterIO(GDALGetRasterBand(ds, 1), GF_Write, 0, 0, w, h, v.data(), w, h, GDT_Byte, 0, 0);
    GDALClose(ds);
    return err == CE_None ? path : QString();
}

#endif

// A world file: A (x size), D, B (rotation), E (y size), C, F (centre of the top-left pixel).
inline QByteArray worldFile(double a, double d, double b, double e, double c, double f) {
    return QString("%1\n%2\n%3\n%4\n%5\n%6\n")
        .arg(a, 0, 'g', 17).arg(d, 0, 'g', 17).arg(b, 0, 'g', 17).arg(e, 0, 'g', 17).arg(c, 0, 'g', 17).arg(f, 0, 'g', 17)
        .toLatin1();
}

// Writes a w x h PNG `stem`.png into `dir` with its world file (.pgw) and, unless `prj` is empty, its .prj:
// the PNG's path.
inline QString pngWithWorldFile(const QString& dir, const QString& stem, int w, int h, const QByteArray& world,
                         const QByteArray& prj = {}) {
    const QString png = dir + "/" + stem + ".png";
    writeBytes(png, pngBytes(w, h));
    writeBytes(dir + "/" + stem + ".pgw", world);
    if (!prj.isEmpty()) writeBytes(dir + "/" + stem + ".prj", prj);
    return png;
}

inline const HeaderCard* card(const Image& image, const std::string& key) {
    for (const auto& c : image.meta.header)
        if (c.key == key) return &c;
    return nullptr;
}

} // namespace glint::test::geofiles
