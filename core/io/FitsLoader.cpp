// FITS through CFITSIO: any BITPIX with BSCALE/BZERO kept without loss (integer offsets stay integers in
// the narrowest type that holds them; other scalings become double), BLANK/NaN as the blank mask, any
// HDU (0 = primary, as astropy), cubes by plane, tile-compressed images, the header and the WCS.
#include "core/io/AbortGuard.h"
#include "core/io/FitsReading.h"
#include "core/io/FitsScan.h"
#include "core/io/ImageLoader.h"
#include "core/io/Wcs.h"
#include "core/util/Errors.h"
#include "core/util/ImageBudget.h"
#include "core/util/InputFile.h"
#include "core/util/StderrSilencer.h"

#include <fitsio.h>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace glint {

namespace fits {

[[noreturn]] void fail(const std::string& path, const std::string& what) {
    throw InputError("cannot open '" + path + "': " + what);
}

namespace {

// CFITSIO's short status text plus the oldest message of its error stack, which names the actual
// problem ("tried to move past end of file", "NAXIS1 keyword not found"). Clears the stack.
std::string cfitsioReason(int status) {
    char text[FLEN_STATUS] = {};
    fits_get_errstatus(status, text);
    std::string reason = text;
    char message[FLEN_ERRMSG] = {};
    if (fits_read_errmsg(message) && message[0] != '\0' && reason.find(message) == std::string::npos)
        reason += ": " + std::string(message);
    fits_clear_errmsg();
    while (!reason.empty() && (reason.back() == ' ' || reason.back() == '\n')) reason.pop_back();
    return reason;
}

} // namespace

[[noreturn]] void failCfitsio(const std::string& path, const std::string& what, int status) {
    fail(path, what + " (CFITSIO: " + cfitsioReason(status) + ")");
}

} // namespace fits

namespace {

using fits::cardNumber;
using fits::fail;
using fits::failCfitsio;
using fits::findCard;
using fits::imageHeader;
using fits::parseCards;
using fits::readPlane;
using fits::trim;

// A CFITSIO build without reentrancy support must not be entered from two threads at once.
std::mutex& cfitsioMutex() {
    static std::mutex m;
    return m;
}

class FitsHandle {
public:
    explicit FitsHandle(const std::string& path) {
        int status = 0;
        // fits_open_diskfile takes the name literally: "a[1].fits" is a file, not a filter expression.
        if (fits_open_diskfile(&file_, path.c_str(), READONLY, &status)) {
            file_ = nullptr;
            failCfitsio(path, "not a readable FITS file", status);
        }
    }
    ~FitsHandle() {
        int status = 0;
        if (file_) fits_close_file(file_, &status);
        fits_clear_errmsg();
    }
    FitsHandle(const FitsHandle&) = delete;
    FitsHandle& operator=(const FitsHandle&) = delete;
    fitsfile* get() const { return file_; }

private:
    fitsfile* file_ = nullptr;
};

std::vector<LONGLONG> imageAxes(fitsfile* f, int& bitpix, int& status) {
    int naxis = 0;
    fits_get_img_dim(f, &naxis, &status);
    std::vector<LONGLONG> axes(static_cast<std::size_t>(std::max(naxis, 0)));
    if (status == 0 && naxis > 0) fits_get_img_paramll(f, naxis, &bitpix, &naxis, axes.data(), &status);
    else if (status == 0) fits_get_img_type(f, &bitpix, &status);
    return axes;
}

std::vector<HduInfo> listHdus(fitsfile* f, const std::string& path) {
    std::vector<HduInfo> hdus;
    for (int number = 1;; ++number) {
        int type = 0;
        int status = 0;
        if (fits_movabs_hdu(f, number, &type, &status)) {
            // The end of the file ends the list; a damaged header after good HDUs only shortens it.
            if (number == 1) failCfitsio(path, "the FITS header is corrupt", status);
            fits_clear_errmsg();
            break;
        }
        HduInfo h;
        h.index = number - 1;
        char extname[FLEN_VALUE] = {};
        int keyStatus = 0;
        if (fits_read_key(f, TSTRING, "EXTNAME", extname, nullptr, &keyStatus) == 0) h.name = trim(extname);
        fits_clear_errmsg();
        if (type == IMAGE_HDU) {
            const bool compressed = fits_is_compressed_image(f, &status) != 0;
            const std::vector<LONGLONG> axes = imageAxes(f, h.bitpix, status);
            if (status) failCfitsio(path, "HDU " + std::to_string(h.index) + " has a corrupt image header", status);
            h.axes.assign(axes.begin(), axes.end());
            const bool hasData = !axes.empty() && std::all_of(axes.begin(), axes.end(), [](LONGLONG n) { return n > 0; });
            h.kind = !hasData ? "empty" : compressed ? "compressed image" : "image";
        } else {
            h.kind = type == ASCII_TBL ? "table" : "bintable";
            h.bitpix = 8;
            LONGLONG rowBytes = 0, rows = 0;
            int s1 = 0, s2 = 0;
            fits_read_key(f, TLONGLONG, "NAXIS1", &rowBytes, nullptr, &s1);
            fits_read_key(f, TLONGLONG, "NAXIS2", &rows, nullptr, &s2);
            fits_clear_errmsg();
            h.axes = {static_cast<long>(rowBytes), static_cast<long>(rows)};
        }
        hdus.push_back(std::move(h));
    }
    return hdus;
}

std::string whyNoImage(const HduInfo& h) {
    const std::string prefix = "HDU " + std::to_string(h.index) + (h.name.empty() ? "" : " (" + h.name + ")");
    if (h.kind == "bintable") return prefix + " is a binary table, not an image";
    if (h.kind == "table") return prefix + " is an ASCII table, not an image";
    return prefix + " holds no image data (NAXIS = " + std::to_string(h.axes.size()) +
           (h.axes.empty() ? "" : ", an axis of length 0") + ")";
}

std::string hduSummary(const std::vector<HduInfo>& hdus) {
    std::string s;
    for (const auto& h : hdus) s += (s.empty() ? "" : ", ") + std::to_string(h.index) + " " + h.kind;
    return s;
}

// A header that promises more data than the file holds is reported before anything is allocated.
void checkNotTruncated(fitsfile* f, const std::string& path, const HduInfo& hdu, long double pixels) {
    LONGLONG headStart = 0, dataStart = 0, dataEnd = 0;
    int status = 0;
    if (fits_get_hduaddrll(f, &headStart, &dataStart, &dataEnd, &status)) failCfitsio(path, "corrupt HDU", status);
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) return;
    const long double needed = static_cast<long double>(dataStart) + pixels * std::abs(hdu.bitpix) / 8;
    if (needed > static_cast<long double>(size))
        fail(path, "the file is truncated: HDU " + std::to_string(hdu.index) + " needs " +
                       std::to_string(static_cast<unsigned long long>(needed)) + " bytes but the file has " +
                       std::to_string(size));
}

// CFITSIO 4.2 spins for ever on a GZIP-compressed tile whose deflate stream never ends (a damaged or cut
// tile): its inflate loop takes "no progress" for "needs more room" and tries again. So every GZIP tile
// (GZIP_1, GZIP_2, and the GZIP_COMPRESSED_DATA column any compression may fall back to) is read and
// inflated here first, into a scratch buffer, and must end within the bytes its tile can hold (8 bytes a
// pixel). The cost is one more inflate of GZIP images; other compressions are not touched. Tiling
// keywords this check cannot use are left to CFITSIO, which reports them when it reads the image.
void checkGzipTiles(fitsfile* f, const std::string& path, int hdu) {
    int status = 0;
    char cmptype[FLEN_VALUE] = {};
    if (fits_read_key(f, TSTRING, "ZCMPTYPE", cmptype, nullptr, &status)) cmptype[0] = '\0';
    status = 0;
    const std::string type = trim(cmptype);
    int znaxis = 0;
    fits_read_key(f, TINT, "ZNAXIS", &znaxis, nullptr, &status);
    if (status || znaxis < 1 || znaxis > 999) {
        fits_clear_errmsg();
        return;
    }
    long double tilePixels = 1;
    for (int i = 1; i <= znaxis; ++i) {
        LONGLONG n = 0;
        int s = 0;
        if (fits_read_key(f, TLONGLONG, ("ZTILE" + std::to_string(i)).c_str(), &n, nullptr, &s)) {
            s = 0; // default tiling: whole rows
            n = 1;
            if (i == 1) fits_read_key(f, TLONGLONG, "ZNAXIS1", &n, nullptr, &s);
        }
        if (s || n <= 0) {
            fits_clear_errmsg();
            return;
        }
        tilePixels *= static_cast<long double>(n);
    }
    fits_clear_errmsg();
    const long double bound = std::min<long double>(tilePixels, static_cast<long double>(kMaxImagePixels)) * 8;
    std::error_code ec;
    const auto fileSize = std::filesystem::file_size(path, ec);
    LONGLONG rows = 0;
    if (ec || fits_get_num_rowsll(f, &rows, &status)) {
        fits_clear_errmsg();
        return;
    }
    std::vector<unsigned char> in;
    std::vector<unsigned char> out(1 << 16);
    for (const char* column : {"COMPRESSED_DATA", "GZIP_COMPRESSED_DATA"}) {
        if (std::string(column) == "COMPRESSED_DATA" && type != "GZIP_1" && type != "GZIP_2") continue;
        int col = 0;
        status = 0;
        if (fits_get_colnum(f, CASEINSEN, const_cast<char*>(column), &col, &status)) {
            fits_clear_errmsg();
            continue;
        }
        for (LONGLONG row = 1; row <= rows; ++row) {
            LONGLONG length = 0, offset = 0;
            // A tile that cannot be read here is refused too: CFITSIO went on with such a tile (a table row
            // in a cut last block) and spun the same way (found by fuzz_detect).
            const std::string tile = "tile " + std::to_string(row) + " of HDU " + std::to_string(hdu);
            if (fits_read_descriptll(f, col, row, &length, &offset, &status))
                failCfitsio(path, tile + " cannot be read", status);
            if (length <= 0) continue; // an empty tile: CFITSIO fills it or reports it
            if (static_cast<unsigned long long>(length) > fileSize)
                fail(path, tile + " claims " + std::to_string(length) + " bytes, more than the file holds");
            in.resize(static_cast<std::size_t>(length));
            int anyNull = 0;
            if (fits_read_col(f, TBYTE, col, row, 1, length, nullptr, in.data(), &anyNull, &status))
                failCfitsio(path, tile + " cannot be read", status);
            z_stream z{};
            if (inflateInit2(&z, 15 + 32) != Z_OK) return; // gzip or zlib header
            z.next_in = in.data();
            z.avail_in = static_cast<uInt>(in.size());
            long double total = 0;
            int rc = Z_OK;
            while (rc == Z_OK && total <= bound) {
                z.next_out = out.data();
                z.avail_out = static_cast<uInt>(out.size());
                rc = inflate(&z, Z_NO_FLUSH);
                total += static_cast<long double>(out.size() - z.avail_out);
            }
            inflateEnd(&z);
            if (rc == Z_STREAM_END && total <= bound) continue;
            fail(path, tile + (total > bound ? " inflates to more bytes than the tile holds"
                                             : " holds a damaged or truncated GZIP stream"));
        }
    }
}

Image loadFitsUnguarded(const std::string& path, const LoadOptions& options) {
    FitsHandle file(path);
    fitsfile* f = file.get();
    const std::vector<HduInfo> hdus = listHdus(f, path);

    const HduInfo* chosen = nullptr;
    if (options.hdu >= 0) {
        if (static_cast<std::size_t>(options.hdu) >= hdus.size())
            fail(path, "HDU " + std::to_string(options.hdu) + " does not exist (the file has " +
                           std::to_string(hdus.size()) + (hdus.size() == 1 ? " HDU, 0" : " HDUs, 0 to ") +
                           (hdus.size() == 1 ? "" : std::to_string(hdus.size() - 1)) + ")");
        chosen = &hdus[static_cast<std::size_t>(options.hdu)];
        if (!chosen->hasImage()) fail(path, whyNoImage(*chosen));
    } else {
        for (const auto& h : hdus)
            if (h.hasImage()) {
                chosen = &h;
                break;
            }
        if (!chosen) fail(path, "the FITS file holds no image (HDUs: " + hduSummary(hdus) + ")");
    }

    int type = 0;
    int status = 0;
    if (fits_movabs_hdu(f, chosen->index + 1, &type, &status)) failCfitsio(path, "cannot read HDU", status);
    int bitpix = 0;
    const std::vector<LONGLONG> axes = imageAxes(f, bitpix, status);
    if (status) failCfitsio(path, "corrupt image header", status);

    const std::string where = "'" + path + "' HDU " + std::to_string(chosen->index);
    checkImageDimensions(axes[0], axes.size() > 1 ? axes[1] : 1, where + " (NAXIS1 x NAXIS2)");
    long double planes = 1;
    std::string planeAxes;
    for (std::size_t k = 2; k < axes.size(); ++k) {
        planes *= static_cast<long double>(axes[k]);
        planeAxes += (planeAxes.empty() ? "NAXIS" : " x NAXIS") + std::to_string(k + 1) + " = " + std::to_string(axes[k]);
    }
    if (planes > static_cast<long double>(std::numeric_limits<int>::max()))
        fail(path, "HDU " + std::to_string(chosen->index) + " has absurd dimensions (" + planeAxes +
                       ": more than 2^31 planes)");
    const int planeCount = static_cast<int>(planes);
    if (options.plane < 0 || options.plane >= planeCount)
        fail(path, "plane " + std::to_string(options.plane) + " is out of range (HDU " + std::to_string(chosen->index) +
                       " has " + std::to_string(planeCount) + (planeCount == 1 ? " plane, 0)" : " planes, 0 to ") +
                       (planeCount == 1 ? "" : std::to_string(planeCount - 1) + ")"));
    // Decoded plane plus working copies against the memory limit, before CFITSIO allocates anything.
    checkImageBudget({axes[0], axes.size() > 1 ? axes[1] : 1, 1, std::abs(bitpix), 1}, "cannot open '" + path + "'");
    if (chosen->kind == "image")
        checkNotTruncated(f, path, *chosen, static_cast<long double>(axes[0]) * (axes.size() > 1 ? axes[1] : 1) * planes);
    if (chosen->kind == "compressed image") checkGzipTiles(f, path, chosen->index);

    int cardCount = 0;
    const std::string header = imageHeader(f, path, chosen->kind == "compressed image", cardCount);
    std::vector<HeaderCard> cards = parseCards(header, cardCount);
    const double bscale = cardNumber(cards, "BSCALE", 1.0, path);
    double bzero = cardNumber(cards, "BZERO", 0.0, path);
    // CFITSIO writes the unsigned 64-bit offset 2^63 with 15 digits; it reads it back as 2^63, and so do we.
    if (bitpix == LONGLONG_IMG && std::fabs(bzero - 9223372036854775808.0) < 1.0e5) bzero = 9223372036854775808.0;
    if (bscale == 0.0) fail(path, "BSCALE = 0 makes every pixel the same value");

    std::optional<long long> blank;
    if (const HeaderCard* c = findCard(cards, "BLANK"); c && bitpix > 0) {
        char* end = nullptr;
        const long long v = std::strtoll(c->value.c_str(), &end, 10);
        if (end == c->value.c_str() || *end != '\0') fail(path, "BLANK = '" + c->value + "' is not an integer");
        blank = v;
    }
    Image image = readPlane(f, path, bitpix, axes, options.plane, bscale, bzero, blank);
    image.meta.format = "FITS";
    image.meta.bitDepth = std::abs(bitpix);
    image.meta.hdu = chosen->index;
    image.meta.hdus = hdus;
    image.meta.plane = options.plane;
    image.meta.planeCount = planeCount;
    image.meta.header = std::move(cards);
    image.meta.wcs = Wcs::fromHeader(header, cardCount);
    image.meta.displayYUp = true;
    image.updateIntegerValued();
    return image;
}

} // namespace

Image loadFits(const std::string& path, const LoadOptions& options) {
    checkInputFile(path);
    // Every header is checked first (axes, sizes, scale factors, SIP orders, keywords CFITSIO would
    // divide by); the SIGFPE guard below is the last resort.
    checkFitsHeaders(path);
    std::unique_lock<std::mutex> serial(cfitsioMutex(), std::defer_lock);
    if (!fits_is_reentrant()) serial.lock();
    StderrSilencer quiet;
    Image image;
    // A division by zero inside CFITSIO abandons its state for this file (the handle is leaked, never
    // closed); the lock above is held outside the guarded call and released normally.
    if (!runGuardedAgainstFpe([&] { image = loadFitsUnguarded(path, options); }))
        fail(path, "CFITSIO failed with a division by zero (SIGFPE) while decoding: the compressed image header is damaged");
    return image;
}

} // namespace glint
