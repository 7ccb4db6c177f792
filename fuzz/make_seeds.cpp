// Writes the seed corpus of the fuzz targets: small valid files of every kind each loader reads, made
// here with CFITSIO, GDCM and OpenCV so that no file of unclear licence is needed.
//   fuzz_make_seeds OUTDIR     (writes OUTDIR/{fits,dicom,raster,text,detect}/...)
// Every file is a few KB at most; the images are 16 x 12 (or a little larger for tiled compression).
#include "tests/support/FitsFiles.h"

#include <fitsio.h>

#include <gdcmDataElement.h>
#include <gdcmImage.h>
#include <gdcmImageChangeTransferSyntax.h>
#include <gdcmImageReader.h>
#include <gdcmImageWriter.h>
#include <gdcmTrace.h>
#include <gdcmTransferSyntax.h>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

std::string out;
int failures = 0;

void check(bool ok, const std::string& what) {
    if (!ok) {
        std::fprintf(stderr, "make_seeds: %s failed\n", what.c_str());
        ++failures;
    }
}

std::string path(const std::string& dir, const std::string& name) {
    fs::create_directories(out + "/" + dir);
    const std::string p = out + "/" + dir + "/" + name;
    fs::remove(p);
    return p;
}

void writeBytes(const std::string& p, const std::string& bytes) {
    std::ofstream f(p, std::ios::binary);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string readBytes(const std::string& p) {
    std::ifstream f(p, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

// ---------------------------------------------------------------- FITS

template <class T>
std::vector<T> ramp(long n, double scale, double offset) {
    std::vector<T> v(static_cast<std::size_t>(n));
    for (long i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = static_cast<T>(offset + scale * ((i * 7) % 23 + i / 5));
    return v;
}

void key(fitsfile* f, const char* name, double value, int& status) {
    fits_write_key(f, TDOUBLE, name, &value, nullptr, &status);
}
void key(fitsfile* f, const char* name, const char* value, int& status) {
    fits_write_key(f, TSTRING, name, const_cast<char*>(value), nullptr, &status);
}

void wcs(fitsfile* f, int& status) {
    key(f, "CTYPE1", "RA---TAN", status);
    key(f, "CTYPE2", "DEC--TAN", status);
    key(f, "RADESYS", "ICRS", status);
    key(f, "CRPIX1", 8.0, status);
    key(f, "CRPIX2", 6.0, status);
    key(f, "CRVAL1", 150.0, status);
    key(f, "CRVAL2", 2.0, status);
    key(f, "CDELT1", -1e-3, status);
    key(f, "CDELT2", 1e-3, status);
}

// One image HDU; compression (0 = none) with tiles of tileX x tileY.
template <class T>
void fitsImage(const std::string& name, int bitpix, int datatype, std::vector<long> axes, double scale, double offset,
               int compression = 0, long tileX = 0, long tileY = 0, bool withWcs = false,
               void (*extra)(fitsfile*, int&) = nullptr) {
    const std::string p = path("fits", name);
    fitsfile* f = nullptr;
    int status = 0;
    fits_create_diskfile(&f, p.c_str(), &status);
    if (compression) {
        long tiles[2] = {tileX, tileY};
        fits_set_compression_type(f, compression, &status);
        fits_set_tile_dim(f, 2, tiles, &status);
        fits_create_img(f, 8, 0, nullptr, &status); // compressed images live in extensions
    }
    fits_create_img(f, bitpix, static_cast<int>(axes.size()), axes.data(), &status);
    if (withWcs) wcs(f, status);
    if (extra) extra(f, status);
    long n = 1;
    for (long a : axes) n *= a;
    std::vector<T> data = ramp<T>(n, scale, offset);
    if constexpr (std::is_floating_point_v<T>) {
        data[3] = std::numeric_limits<T>::quiet_NaN();
    }
    fits_write_img(f, datatype, 1, n, data.data(), &status);
    fits_close_file(f, &status);
    check(status == 0, "FITS " + name + " (status " + std::to_string(status) + ")");
}

void bzeroBlank(fitsfile* f, int& status) {
    key(f, "BZERO", 32768.0, status);
    long long blank = -32768;
    fits_write_key(f, TLONGLONG, "BLANK", &blank, nullptr, &status);
    fits_set_bscale(f, 1.0, 0.0, &status);
}
void scaled(fitsfile* f, int& status) {
    key(f, "BSCALE", 0.5, status);
    key(f, "BZERO", 10.0, status);
    fits_set_bscale(f, 1.0, 0.0, &status);
}

void fitsMef() {
    const std::string p = path("fits", "mef_table_then_image.fits");
    fitsfile* f = nullptr;
    int status = 0;
    fits_create_diskfile(&f, p.c_str(), &status);
    glint::test::writeEmptyPrimaryAndCatalog(f, status);
    float flux[2] = {1.5f, 2.5f};
    fits_write_col(f, TFLOAT, 1, 1, 1, 2, flux, &status);
    long axes[2] = {16, 12};
    fits_create_img(f, SHORT_IMG, 2, axes, &status);
    key(f, "EXTNAME", "SCI", status);
    std::vector<short> data = ramp<short>(16 * 12, 3, -100);
    fits_write_img(f, TSHORT, 1, 16 * 12, data.data(), &status);
    fits_close_file(f, &status);
    check(status == 0, "FITS mef");
}

void fitsSeeds() {
    fitsImage<std::uint8_t>("u8.fits", BYTE_IMG, TBYTE, {16, 12}, 1, 0);
    fitsImage<short>("i16_bzero_blank_wcs.fits", SHORT_IMG, TSHORT, {16, 12}, 100, -32768, 0, 0, 0, true, bzeroBlank);
    fitsImage<int>("i32_bscale.fits", LONG_IMG, TINT, {16, 12}, 1000, -5000, 0, 0, 0, false, scaled);
    fitsImage<long long>("i64.fits", LONGLONG_IMG, TLONGLONG, {16, 12}, 1e12, -3e12);
    fitsImage<float>("f32_nan.fits", FLOAT_IMG, TFLOAT, {16, 12}, 0.25, -1);
    fitsImage<double>("f64.fits", DOUBLE_IMG, TDOUBLE, {16, 12}, 1e-3, 5);
    fitsImage<short>("cube_8x6x3.fits", SHORT_IMG, TSHORT, {8, 6, 3}, 5, 0);
    fitsImage<short>("line_1d.fits", SHORT_IMG, TSHORT, {40}, 5, 0);
    fitsMef();
    // Tile-compressed (each in an extension after an empty primary, as fpack writes them).
    fitsImage<short>("rice_i16.fits", SHORT_IMG, TSHORT, {32, 24}, 7, 100, RICE_1, 16, 8, true);
    fitsImage<int>("rice_i32_rows.fits", LONG_IMG, TINT, {32, 24}, 1000, -20000, RICE_1, 32, 1);
    fitsImage<std::uint8_t>("rice_u8.fits", BYTE_IMG, TBYTE, {32, 24}, 1, 0, RICE_1, 16, 12);
    fitsImage<float>("rice_f32_quantised.fits", FLOAT_IMG, TFLOAT, {32, 24}, 0.37, -3, RICE_1, 16, 8);
    fitsImage<int>("gzip1_i32.fits", LONG_IMG, TINT, {32, 24}, 99, 0, GZIP_1, 16, 8);
    fitsImage<double>("gzip2_f64.fits", DOUBLE_IMG, TDOUBLE, {32, 24}, 0.1, 0, GZIP_2, 32, 24);
    fitsImage<short>("hcompress_i16.fits", SHORT_IMG, TSHORT, {32, 24}, 3, 10, HCOMPRESS_1, 16, 12);
    fitsImage<int>("plio_i32.fits", LONG_IMG, TINT, {32, 24}, 1, 0, PLIO_1, 32, 4);
}

// ---------------------------------------------------------------- DICOM

struct DicomSpec {
    std::string name;
    unsigned columns = 16, rows = 12, frames = 1;
    gdcm::PixelFormat format = gdcm::PixelFormat::UINT16;
    gdcm::PhotometricInterpretation::PIType pi = gdcm::PhotometricInterpretation::MONOCHROME2;
    gdcm::TransferSyntax::TSType ts = gdcm::TransferSyntax::ExplicitVRLittleEndian;
    bool rescale = false;
    bool planar = false;
};

std::string dicomPixels(const DicomSpec& s) {
    const gdcm::PixelFormat& pf = s.format;
    const std::size_t samples = std::size_t(s.columns) * s.rows * s.frames * pf.GetSamplesPerPixel();
    const unsigned bytes = pf.GetBitsAllocated() / 8;
    std::string buf(samples * bytes, '\0');
    const std::uint64_t mask = pf.GetBitsStored() >= 64 ? ~0ull : (1ull << pf.GetBitsStored()) - 1;
    for (std::size_t i = 0; i < samples; ++i) {
        std::uint64_t v = ((i * 37) % 251 + i / 3) * (bytes > 1 ? 13 : 1);
        v &= mask;
        if (pf.GetPixelRepresentation() && pf.GetBitsStored() < 8 * bytes && (v >> (pf.GetBitsStored() - 1)) & 1)
            v |= ~mask; // sign-extend to the allocated width
        std::memcpy(&buf[i * bytes], &v, bytes); // little endian host
    }
    return buf;
}

bool writeDicom(const DicomSpec& s, const std::string& p) {
    gdcm::SmartPointer<gdcm::Image> image = new gdcm::Image;
    image->SetNumberOfDimensions(s.frames > 1 ? 3 : 2);
    image->SetDimension(0, s.columns);
    image->SetDimension(1, s.rows);
    if (s.frames > 1) image->SetDimension(2, s.frames);
    image->SetPixelFormat(s.format);
    image->SetPhotometricInterpretation(s.pi);
    image->SetPlanarConfiguration(s.planar ? 1 : 0);
    image->SetTransferSyntax(gdcm::TransferSyntax::ExplicitVRLittleEndian);
    if (s.rescale) {
        image->SetSlope(0.5);
        image->SetIntercept(-1024);
    }
    const std::string pixels = dicomPixels(s);
    gdcm::DataElement pixelData(gdcm::Tag(0x7fe0, 0x0010));
    pixelData.SetByteValue(pixels.data(), static_cast<std::uint32_t>(pixels.size()));
    image->SetDataElement(pixelData);

    gdcm::ImageWriter writer;
    gdcm::DataSet& ds = writer.GetFile().GetDataSet();
    const auto text = [&](std::uint16_t g, std::uint16_t e, const gdcm::VR& vr, const std::string& v) {
        gdcm::DataElement de(gdcm::Tag(g, e));
        de.SetVR(vr);
        std::string value = v;
        if (value.size() % 2) value += ' ';
        de.SetByteValue(value.data(), static_cast<std::uint32_t>(value.size()));
        ds.Insert(de);
    };
    text(0x0008, 0x0060, gdcm::VR::CS, "OT");
    text(0x0010, 0x0010, gdcm::VR::PN, "Fuzz^Seed");
    text(0x0028, 0x1050, gdcm::VR::DS, "100");
    text(0x0028, 0x1051, gdcm::VR::DS, "400");

    const gdcm::TransferSyntax target(s.ts);
    if (s.ts != gdcm::TransferSyntax::ExplicitVRLittleEndian && s.ts != gdcm::TransferSyntax::DeflatedExplicitVRLittleEndian) {
        gdcm::ImageChangeTransferSyntax change;
        change.SetTransferSyntax(target);
        change.SetInput(*image);
        if (!change.Change()) return false;
        writer.SetImage(change.GetOutput());
    } else {
        if (s.ts == gdcm::TransferSyntax::DeflatedExplicitVRLittleEndian) image->SetTransferSyntax(target);
        writer.SetImage(*image);
    }
    writer.SetFileName(p.c_str());
    if (!writer.Write()) return false;

    // Read back: the seed must be one the loader accepts.
    gdcm::ImageReader reader;
    reader.SetFileName(p.c_str());
    if (!reader.Read()) return false;
    const gdcm::Image& back = reader.GetImage();
    std::vector<char> buffer(back.GetBufferLength());
    return back.GetTransferSyntax() == target && back.GetBuffer(buffer.data());
}

void dicom(const DicomSpec& s) { check(writeDicom(s, path("dicom", s.name)), "DICOM " + s.name); }

// The dataset alone: no preamble, no "DICM", no file meta group (as old ACR-NEMA style files).
void bareDicom(const std::string& from, const std::string& dir, const std::string& name) {
    const std::string bytes = readBytes(from);
    if (bytes.size() < 144 || bytes.compare(128, 4, "DICM") != 0) return check(false, "bare " + name);
    std::uint32_t groupLength = 0;
    std::memcpy(&groupLength, bytes.data() + 132 + 8, 4); // (0002,0000) UL, explicit VR LE
    const std::size_t start = 132 + 12 + groupLength;
    writeBytes(path(dir, name), bytes.substr(start));
}

void dicomSeeds() {
    using PF = gdcm::PixelFormat;
    using PI = gdcm::PhotometricInterpretation;
    using TS = gdcm::TransferSyntax;
    dicom({"mono16_explicit_le.dcm"});
    dicom({"mono8_implicit_le.dcm", 16, 12, 1, PF::UINT8, PI::MONOCHROME2, TS::ImplicitVRLittleEndian});
    dicom({"mono16_explicit_be.dcm", 16, 12, 1, PF::UINT16, PI::MONOCHROME2, TS::ExplicitVRBigEndian});
    dicom({"mono12s_monochrome1_rescale.dcm", 16, 12, 1, PF(1, 16, 12, 11, 1), PI::MONOCHROME1,
           TS::ExplicitVRLittleEndian, true});
    dicom({"mono32s.dcm", 16, 12, 1, PF::INT32});
    dicom({"rgb8.dcm", 16, 12, 1, PF(3, 8, 8, 7), PI::RGB});
    dicom({"rgb8_planar.dcm", 16, 12, 1, PF(3, 8, 8, 7), PI::RGB, TS::ExplicitVRLittleEndian, false, true});
    dicom({"mono8_3frames.dcm", 16, 12, 3, PF::UINT8});
    dicom({"deflated_mono16.dcm", 16, 12, 1, PF::UINT16, PI::MONOCHROME2, TS::DeflatedExplicitVRLittleEndian});
    dicom({"rle_mono16.dcm", 16, 12, 1, PF::UINT16, PI::MONOCHROME2, TS::RLELossless});
    dicom({"rle_rgb8_2frames.dcm", 16, 12, 2, PF(3, 8, 8, 7), PI::RGB, TS::RLELossless});
    dicom({"jpeg_lossless_mono16.dcm", 16, 12, 1, PF(1, 16, 12, 11), PI::MONOCHROME2, TS::JPEGLosslessProcess14_1});
    dicom({"jpeg_baseline_mono8.dcm", 16, 16, 1, PF::UINT8, PI::MONOCHROME2, TS::JPEGBaselineProcess1});
    dicom({"jpegls_lossless_mono16.dcm", 16, 12, 1, PF(1, 16, 12, 11), PI::MONOCHROME2, TS::JPEGLSLossless});
    dicom({"j2k_lossless_mono16.dcm", 16, 12, 1, PF(1, 16, 12, 11), PI::MONOCHROME2, TS::JPEG2000Lossless});
    // Written implicit VR, then cut down to the bare dataset.
    const std::string implicitFile = out + "/dicom/mono8_implicit_le.dcm";
    bareDicom(implicitFile, "dicom", "bare_implicit_le_no_meta.dcm");
    bareDicom(out + "/dicom/mono16_explicit_le.dcm", "detect", "bare_explicit_le_no_meta.dcm");
}

// ---------------------------------------------------------------- raster

cv::Mat pattern(int type) {
    cv::Mat m(12, 16, type);
    const int channels = m.channels();
    for (int y = 0; y < m.rows; ++y)
        for (int x = 0; x < m.cols; ++x)
            for (int c = 0; c < channels; ++c) {
                const double v = (x * 13 + y * 29 + c * 50) % 97;
                switch (m.depth()) {
                case CV_8U: m.ptr<std::uint8_t>(y)[x * channels + c] = static_cast<std::uint8_t>(v * 2.5); break;
                case CV_16U: m.ptr<std::uint16_t>(y)[x * channels + c] = static_cast<std::uint16_t>(v * 600); break;
                case CV_32S: m.ptr<std::int32_t>(y)[x * channels + c] = static_cast<std::int32_t>(v * 1e6 - 4e7); break;
                case CV_32F: m.ptr<float>(y)[x * channels + c] = static_cast<float>(v / 7 - 3); break;
                default: break;
                }
            }
    return m;
}

void raster(const std::string& name, int type, std::vector<int> params = {}) {
    const std::string p = path("raster", name);
    bool ok = false;
    try {
        ok = cv::imwrite(p, pattern(type), params);
    } catch (const cv::Exception&) {
    }
    check(ok && !cv::imread(p, cv::IMREAD_UNCHANGED).empty(), "raster " + name);
}

void rasterSeeds() {
    raster("gray8.png", CV_8UC1);
    raster("gray16.png", CV_16UC1);
    raster("rgb8.png", CV_8UC3, {cv::IMWRITE_PNG_COMPRESSION, 9});
    raster("rgba8.png", CV_8UC4);
    raster("rgb16.png", CV_16UC3);
    raster("gray8.tif", CV_8UC1);
    raster("gray16_lzw.tif", CV_16UC1, {cv::IMWRITE_TIFF_COMPRESSION, 5});
    raster("gray32f.tif", CV_32FC1);
    raster("rgb8.tif", CV_8UC3);
    raster("gray8.jpg", CV_8UC1, {cv::IMWRITE_JPEG_QUALITY, 60});
    raster("rgb8.jpg", CV_8UC3, {cv::IMWRITE_JPEG_QUALITY, 60});
    raster("rgb8_progressive.jpg", CV_8UC3, {cv::IMWRITE_JPEG_PROGRESSIVE, 1, cv::IMWRITE_JPEG_QUALITY, 50});
    raster("gray8.bmp", CV_8UC1);
    raster("rgb8.bmp", CV_8UC3);
    raster("gray8_binary.pgm", CV_8UC1);
    raster("gray16_binary.pgm", CV_16UC1);
    raster("gray8_ascii.pgm", CV_8UC1, {cv::IMWRITE_PXM_BINARY, 0});
    raster("rgb8_binary.ppm", CV_8UC3);
    // Plain bitmaps (P1/P4) by hand: OpenCV reads them, and so does the detection.
    writeBytes(path("raster", "bitmap_ascii.pbm"), "P1\n# comment\n4 3\n0 1 0 1\n1 0 1 0\n1 1 0 0\n");
    writeBytes(path("raster", "bitmap_binary.pbm"), std::string("P4\n8 2\n\xA5\x5A", 10));
}

// ---------------------------------------------------------------- text and detection

void textSeeds() {
    writeBytes(path("text", "commas.csv"), "1,2,3\n4,5,6\n7,8,9\n");
    writeBytes(path("text", "spaces_negative.txt"), "  -1.5 2e3\t-3\n4 -5.25e-2 6\n");
    writeBytes(path("text", "semicolons_nan_comment.csv"), "# a comment\n1;nan;3\r\n\r\n4;5;NaN\r\n");
    writeBytes(path("text", "single_value.txt"), "42\n");
    // Decimal numbers at double's edges (hexadecimal, infinities and subnormals are refused since issue 35;
    // text.dict feeds those forms to the fuzzer instead).
    writeBytes(path("text", "hex_inf_edge.csv"), "1.7976931348623157e308,2.2250738585072014e-308,-0\n.5,+7,5.\n");
}

void detectSeeds() {
    // A JPEG 2000 signature box (refused with a message) and a few near-misses of each magic number.
    writeBytes(path("detect", "jp2_signature.jp2"), std::string("\0\0\0\x0CjP  \r\n\x87\n\0\0\0\x14" "ftypjp2 ", 24));
    writeBytes(path("detect", "fits_header_only.fits"),
               "SIMPLE  =                    T" + std::string(50, ' ') + "BITPIX  =                   16" +
                   std::string(50, ' ') + "NAXIS   =                    2" + std::string(50, ' ') +
                   "NAXIS1  =                 1000" + std::string(50, ' ') + "NAXIS2  =                 1000" +
                   std::string(50, ' ') + "END" + std::string(77, ' '));
    writeBytes(path("detect", "png_magic_only.png"), std::string("\x89PNG\r\n\x1a\n", 8));
    writeBytes(path("detect", "tiff_magic_only.tif"), std::string("II*\0\x08\0\0\0", 8));
    writeBytes(path("detect", "binary_junk.bin"), std::string("\x01\x02\x03\x00\xff\xfe", 6));
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: fuzz_make_seeds OUTDIR\n");
        return 2;
    }
    out = argv[1];
    gdcm::Trace::SetWarning(false);
    fitsSeeds();
    dicomSeeds();
    rasterSeeds();
    textSeeds();
    detectSeeds();
    std::uintmax_t total = 0;
    for (const auto& e : fs::recursive_directory_iterator(out))
        if (e.is_regular_file()) {
            total += e.file_size();
            check(e.file_size() < 64 * 1024, e.path().string() + " under 64 KB");
        }
    std::printf("make_seeds: %ju bytes in %s, %d failures\n", total, out.c_str(), failures);
    return failures ? 1 : 0;
}
