// Helpers of test_source_catalog_files: a catalogue with awkward values (NaN, values that print with 17
// digits, negative and huge numbers), a FITS image with a TAN WCS written through CFITSIO, and a small CFITSIO
// reader that fails the test with CFITSIO's reason.
#pragma once

#include "tests/support/TestSupport.h"

#include "core/algo/sources/SourceCatalog.h"

#include <fitsio.h>

#include <QtTest>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace glint::test::catalogfiles {

// n sources, with FLUX_APER ... for each aperture; every real a random double at full precision, some NaN.
inline SourceCatalog makeCatalog(int n, std::vector<double> apertures, std::uint32_t seed = 7) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(-1e4, 1e4);
    const auto real = [&](int row, int k) { return (row + k) % 5 == 3 ? SourceRecord::kNaN : u(rng) / 3.0; };
    SourceCatalog c;
    c.apertures = std::move(apertures);
    c.magZeropoint = 25.125;
    for (int i = 0; i < n; ++i) {
        SourceRecord r;
        r.number = i + 1;
        r.x = 10 + u(rng) * 1e-3, r.y = 20 + u(rng) * 1e-3, r.xWin = real(i, 1), r.yWin = real(i, 2);
        r.xmin = i, r.ymin = 2 * i, r.xmax = i + 7, r.ymax = 2 * i + 9;
        r.fluxIso = real(i, 3), r.fluxErrIso = real(i, 4), r.fluxAuto = real(i, 5), r.fluxErrAuto = real(i, 6);
        r.magAuto = real(i, 7), r.magErrAuto = real(i, 8), r.kronRadius = real(i, 9);
        for (std::size_t k = 0; k < c.apertures.size(); ++k) {
            r.fluxAper.push_back(real(i, 10 + int(k)));
            r.fluxErrAper.push_back(real(i, 11 + int(k)));
            r.magAper.push_back(real(i, 12 + int(k)));
            r.magErrAper.push_back(real(i, 13 + int(k)));
        }
        r.a = real(i, 14), r.b = real(i, 15), r.theta = real(i, 16), r.cxx = 1e-300 * (i + 1), r.cyy = 1e300 / (i + 1);
        r.cxy = 0.1 * i, r.ellipticity = 1.0 / 3.0, r.fwhm = real(i, 17), r.isoArea = 1000 + i, r.peak = real(i, 18);
        r.background = real(i, 19), r.threshold = real(i, 20), r.snr = real(i, 21);
        r.ra = i % 2 ? SourceRecord::kNaN : 150.0 + 1e-9 * i, r.dec = -(2.0 + 1e-9 * i);
        r.flags = (i * 37) % 256;
        c.sources.push_back(r);
    }
    return c;
}

// A reader over one file; every failure fails the test (QTest's failure, then an exception ends the function).
class FitsIn {
public:
    explicit FitsIn(const QString& path) {
        fits_open_diskfile(&f_, path.toLocal8Bit().constData(), READONLY, &status_);
        check("open " + path.toStdString());
    }
    ~FitsIn() {
        int s = 0;
        if (f_) fits_close_file(f_, &s);
    }
    FitsIn(const FitsIn&) = delete;
    FitsIn& operator=(const FitsIn&) = delete;
    int hduCount() {
        int n = 0;
        fits_get_num_hdus(f_, &n, &status_);
        check("count the HDUs");
        return n;
    }
    void moveTo(int hdu1) { // 1 = primary, as CFITSIO numbers them
        fits_movabs_hdu(f_, hdu1, nullptr, &status_);
        check("move to HDU " + std::to_string(hdu1));
    }
    bool has(const char* key) {
        char card[FLEN_CARD];
        int s = 0;
        fits_read_card(f_, key, card, &s);
        fits_clear_errmsg();
        return s == 0;
    }
    std::string text(const char* key) {
        char value[FLEN_VALUE] = {};
        fits_read_key(f_, TSTRING, key, value, nullptr, &status_);
        check(std::string("read ") + key);
        return value;
    }
    double number(const char* key) {
        double v = 0;
        fits_read_key(f_, TDOUBLE, key, &v, nullptr, &status_);
        check(std::string("read ") + key);
        return v;
    }
    long long rows() {
        LONGLONG n = 0;
        fits_get_num_rowsll(f_, &n, &status_);
        check("count the rows");
        return n;
    }
    int columnCount() {
        int n = 0;
        fits_get_num_cols(f_, &n, &status_);
        check("count the columns");
        return n;
    }
    // Every element of column col (1-based), row after row; NaN read back as NaN.
    std::vector<double> column(int col, long long elements) {
        std::vector<double> v(static_cast<std::size_t>(elements));
        int anynul = 0;
        if (elements > 0) fits_read_col(f_, TDOUBLE, col, 1, 1, elements, nullptr, v.data(), &anynul, &status_);
        check("read column " + std::to_string(col));
        return v;
    }
    std::string bytes(long long n) { // the first n bytes of row 1
        std::string out(static_cast<std::size_t>(n), '\0');
        fits_read_tblbytes(f_, 1, 1, n, reinterpret_cast<unsigned char*>(out.data()), &status_);
        check("read the row's bytes");
        return out;
    }
    int bitpix() {
        int b = 0;
        fits_get_img_type(f_, &b, &status_);
        check("BITPIX");
        return b;
    }
    template <class T>
    std::vector<T> pixels(int datatype, long long n) {
        std::vector<T> v(static_cast<std::size_t>(n));
        int anynul = 0;
        fits_read_img(f_, datatype, 1, n, nullptr, v.data(), &anynul, &status_);
        check("read the pixels");
        return v;
    }

private:
    void check(const std::string& what) {
        if (status_ == 0) return;
        char text[FLEN_STATUS] = {};
        fits_get_errstatus(status_, text);
        QTest::qFail(qPrintable(QString::fromStdString("CFITSIO cannot " + what + ": " + text)), __FILE__, __LINE__);
        throw std::runtime_error(what);
    }
    fitsfile* f_ = nullptr;
    int status_ = 0;
};

// The input image of the WCS checks: a width x height float image with a TAN WCS (CD matrix), BUNIT, OBJECT, a
// string with a quote, and keywords the maps must not copy (EXPTIME, BSCALE-free).
inline void writeTanImage(const QString& path, int width, int height) {
    fitsfile* f = nullptr;
    int status = 0;
    fits_create_diskfile(&f, path.toLocal8Bit().constData(), &status);
    long axes[2] = {width, height};
    fits_create_img(f, FLOAT_IMG, 2, axes, &status);
    const auto text = [&](const char* key, const char* value) {
        fits_write_key(f, TSTRING, key, const_cast<char*>(value), "", &status);
    };
    const auto number = [&](const char* key, double value) { fits_write_key(f, TDOUBLE, key, &value, "", &status); };
    text("CTYPE1", "RA---TAN"), text("CTYPE2", "DEC--TAN"), text("RADESYS", "FK5"), text("BUNIT", "ADU");
    text("OBJECT", "NGC 1316 field"), text("OBSERVER", "O'Brien");
    number("CRVAL1", 50.673825123456789), number("CRVAL2", -37.208227987654321), number("CRPIX1", 20.25);
    number("CRPIX2", 15.75), number("CD1_1", -7.5e-5), number("CD1_2", 1.25e-6), number("CD2_1", 1.1e-6);
    number("CD2_2", 7.4e-5), number("EQUINOX", 2000.0), number("EXPTIME", 300.0);
    std::vector<float> pixels(static_cast<std::size_t>(width) * height);
    for (std::size_t i = 0; i < pixels.size(); ++i) pixels[i] = float(i % 97) * 0.5f;
    fits_write_img(f, TFLOAT, 1, static_cast<LONGLONG>(pixels.size()), pixels.data(), &status);
    fits_close_file(f, &status);
    QCOMPARE(status, 0);
}

// The WCS keywords that must be equal in the image and in every map.
inline const char* const kWcsNumbers[] = {"CRVAL1", "CRVAL2", "CRPIX1", "CRPIX2", "CD1_1", "CD1_2", "CD2_1", "CD2_2",
                                          "EQUINOX"};

} // namespace glint::test::catalogfiles
