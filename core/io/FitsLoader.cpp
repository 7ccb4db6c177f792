// FITS through CFITSIO: any BITPIX with BSCALE/BZERO kept without loss (integer offsets stay integers in
// the narrowest type that holds them; other scalings become double), BLANK/NaN as the blank mask, any
// HDU (0 = primary, as astropy), cubes by plane, tile-compressed images, the header and the WCS.
#include "core/io/AbortGuard.h"
#include "core/io/FitsScan.h"
#include "core/io/ImageLoader.h"
#include "core/io/IntegerRange.h"
#include "core/io/Wcs.h"
#include "core/util/Errors.h"
#include "core/util/ImageBudget.h"
#include "core/util/InputFile.h"
#include "core/util/StderrSilencer.h"

#include <fitsio.h>
#include <zlib.h>

#include <algorithm>
#include <cctype>
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

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what) {
    throw InputError("cannot open '" + path + "': " + what);
}

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

[[noreturn]] void failCfitsio(const std::string& path, const std::string& what, int status) {
    fail(path, what + " (CFITSIO: " + cfitsioReason(status) + ")");
}

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

std::string trimRight(std::string s) {
    while (!s.empty() && (s.back() == ' ' || s.back() == '\0')) s.pop_back();
    return s;
}

std::string trim(std::string s) {
    s = trimRight(std::move(s));
    const std::size_t first = s.find_first_not_of(' ');
    return first == std::string::npos ? std::string() : s.substr(first);
}

// 'O''Brien   ' -> O'Brien (what a header view should show); other values are kept as written.
std::string unquote(const std::string& value) {
    if (value.size() < 2 || value.front() != '\'' || value.back() != '\'') return value;
    std::string out;
    for (std::size_t i = 1; i + 1 < value.size(); ++i) {
        out += value[i];
        if (value[i] == '\'' && value[i + 1] == '\'') ++i;
    }
    return trimRight(out);
}

std::vector<HeaderCard> parseCards(const std::string& header, int cardCount) {
    std::vector<HeaderCard> cards;
    for (int i = 0; i < cardCount && static_cast<std::size_t>(i + 1) * 80 <= header.size(); ++i) {
        std::string card = header.substr(static_cast<std::size_t>(i) * 80, 80);
        if (trim(card).empty()) continue;
        HeaderCard c;
        char name[FLEN_KEYWORD] = {};
        int length = 0;
        int status = 0;
        fits_get_keyname(card.data(), name, &length, &status);
        c.key = trim(name);
        if (c.key == "END") break;
        char value[FLEN_VALUE] = {};
        char comment[FLEN_COMMENT] = {};
        status = 0;
        if (fits_parse_value(card.data(), value, comment, &status) == 0) {
            c.value = unquote(trim(value));
            c.comment = trim(comment);
        } else {
            // A malformed card is still shown, whole, rather than dropped.
            c.comment = trim(card.substr(std::min<std::size_t>(card.size(), 8)));
        }
        fits_clear_errmsg();
        cards.push_back(std::move(c));
    }
    return cards;
}

const HeaderCard* findCard(const std::vector<HeaderCard>& cards, const char* key) {
    for (const auto& c : cards)
        if (c.key == key) return &c;
    return nullptr;
}

double cardNumber(const std::vector<HeaderCard>& cards, const char* key, double fallback, const std::string& path) {
    const HeaderCard* c = findCard(cards, key);
    if (!c || c->value.empty()) return fallback;
    std::string text = c->value;
    std::replace(text.begin(), text.end(), 'D', 'E'); // Fortran-style exponents: 1.5D3
    std::size_t used = 0;
    double v = 0.0;
    try {
        v = std::stod(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used != text.size() || !std::isfinite(v)) fail(path, std::string(key) + " = '" + c->value + "' is not a number");
    return v;
}

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

// Raw samples exactly as stored (CFITSIO's own scaling is switched off). Floating images come back
// with NaN where CFITSIO knows of undefined pixels (ZBLANK of quantised tile-compressed images).
template <class Raw>
std::vector<Raw> readRaw(fitsfile* f, int datatype, std::vector<LONGLONG>& first, std::size_t count,
                         const std::string& path) {
    std::vector<Raw> raw(count);
    int anyNull = 0;
    int status = 0;
    Raw nan = std::numeric_limits<Raw>::quiet_NaN();
    fits_set_bscale(f, 1.0, 0.0, &status);
    fits_read_pixll(f, datatype, first.data(), static_cast<LONGLONG>(count), std::is_floating_point_v<Raw> ? &nan : nullptr,
                    raw.data(), &anyNull, &status);
    if (status) failCfitsio(path, "the image data are truncated or corrupt", status);
    return raw;
}

// Which raw values are undefined: BLANK for integer images, NaN for floating ones.
template <class Raw>
struct BlankTest {
    std::optional<long long> blank;
    bool operator()(Raw v) const {
        if constexpr (std::is_floating_point_v<Raw>) return std::isnan(v);
        else return blank && static_cast<long long>(v) == *blank;
    }
};

// Converts in place when the type does not change, so that a large image is held once, not twice; the
// blank mask is only allocated when a blank turns up.
template <class T, class Raw, class F>
Image buildImage(int width, int height, std::vector<Raw>& raw, const BlankTest<Raw>& isBlank, F&& convert) {
    std::vector<T> samples;
    if constexpr (std::is_same_v<T, Raw>) samples = std::move(raw);
    else samples.resize(raw.size());
    std::vector<std::uint8_t> blank;
    for (std::size_t i = 0; i < samples.size(); ++i) {
        Raw v;
        if constexpr (std::is_same_v<T, Raw>) v = samples[i];
        else v = raw[i];
        if (isBlank(v)) {
            if (blank.empty()) blank.assign(samples.size(), 0);
            blank[i] = 1;
            samples[i] = std::numeric_limits<T>::has_quiet_NaN ? std::numeric_limits<T>::quiet_NaN() : T(0);
            continue;
        }
        samples[i] = static_cast<T>(convert(v));
        if constexpr (std::numeric_limits<T>::has_quiet_NaN)
            if (std::isnan(samples[i])) {
                if (blank.empty()) blank.assign(samples.size(), 0);
                blank[i] = 1;
            }
    }
    std::vector<Raw>().swap(raw);
    Image image = Image::fromSamples<T>(width, height, std::move(samples));
    image.setBlankMask(std::move(blank));
    return image;
}

template <class Raw>
Image toPhysical(int width, int height, std::vector<Raw> raw, const BlankTest<Raw>& isBlank, double bscale,
                 double bzero) {
    const bool identity = bscale == 1.0 && bzero == 0.0;
    if constexpr (std::is_floating_point_v<Raw>) {
        if (identity) return buildImage<Raw>(width, height, raw, isBlank, [](Raw v) { return v; });
    } else {
        if (bscale == 1.0 && bzero == std::nearbyint(bzero)) {
            const long double z = bzero;
            const long double lo = static_cast<long double>(std::numeric_limits<Raw>::min()) + z;
            const long double hi = static_cast<long double>(std::numeric_limits<Raw>::max()) + z;
            if (const auto type = narrowestIntegerType(lo, hi)) {
                // The declared range fits, so the offset fits int64 and raw + offset cannot overflow.
                const std::int64_t offset = static_cast<std::int64_t>(z);
                const auto shifted = [offset](Raw v) { return static_cast<std::int64_t>(v) + offset; };
                switch (*type) {
                case SampleType::UInt8: return buildImage<std::uint8_t>(width, height, raw, isBlank, shifted);
                case SampleType::Int8: return buildImage<std::int8_t>(width, height, raw, isBlank, shifted);
                case SampleType::UInt16: return buildImage<std::uint16_t>(width, height, raw, isBlank, shifted);
                case SampleType::Int16: return buildImage<std::int16_t>(width, height, raw, isBlank, shifted);
                case SampleType::UInt32: return buildImage<std::uint32_t>(width, height, raw, isBlank, shifted);
                case SampleType::Int32: return buildImage<std::int32_t>(width, height, raw, isBlank, shifted);
                default: return buildImage<std::int64_t>(width, height, raw, isBlank, shifted);
                }
            }
            // BITPIX 64 with an offset (the unsigned 64-bit convention, BZERO = 2^63): int64 when the
            // actual values allow it; otherwise double, which rounds beyond 2^53.
            bool fits = true;
            for (std::size_t i = 0; i < raw.size() && fits; ++i) {
                const long double v = static_cast<long double>(raw[i]) + z;
                fits = isBlank(raw[i]) || (v >= -9223372036854775808.0L && v <= 9223372036854775807.0L);
            }
            if (fits)
                return buildImage<std::int64_t>(width, height, raw, isBlank, [z](Raw v) {
                    return static_cast<std::int64_t>(static_cast<long double>(v) + z);
                });
            return buildImage<double>(width, height, raw, isBlank, [z](Raw v) {
                return static_cast<double>(static_cast<long double>(v) + z);
            });
        }
    }
    // Any other scaling: double, computed as the FITS standard and astropy do (raw * BSCALE + BZERO).
    return buildImage<double>(width, height, raw, isBlank,
                              [bscale, bzero](Raw v) { return static_cast<double>(v) * bscale + bzero; });
}

Image readPlane(fitsfile* f, const std::string& path, int bitpix, const std::vector<LONGLONG>& axes, int plane,
                double bscale, double bzero, std::optional<long long> blank) {
    const int width = static_cast<int>(axes[0]);
    const int height = axes.size() > 1 ? static_cast<int>(axes[1]) : 1;
    std::vector<LONGLONG> first(axes.size(), 1);
    long long rest = plane;
    for (std::size_t k = 2; k < axes.size(); ++k) {
        first[k] = rest % axes[k] + 1;
        rest /= axes[k];
    }
    const std::size_t n = static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
    // Reads the plane as `Raw` samples (CFITSIO's `datatype`) and scales them (a float's blanks are its NaN).
    const auto physical = [&]<class Raw>(Raw, int datatype) {
        return toPhysical(width, height, readRaw<Raw>(f, datatype, first, n, path), BlankTest<Raw>{blank}, bscale,
                          bzero);
    };
    switch (bitpix) {
    case BYTE_IMG: return physical(std::uint8_t{}, TBYTE);
    case SHORT_IMG: return physical(std::int16_t{}, TSHORT);
    case LONG_IMG: return physical(std::int32_t{}, TINT);
    case LONGLONG_IMG: return physical(std::int64_t{}, TLONGLONG);
    case FLOAT_IMG: return physical(float{}, TFLOAT);
    case DOUBLE_IMG: return physical(double{}, TDOUBLE);
    default: fail(path, "BITPIX = " + std::to_string(bitpix) + " is not a valid FITS sample type");
    }
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

bool startsWithKey(const std::string& card, const std::string& key) {
    return card.compare(0, key.size(), key) == 0 && card.find_first_not_of(' ', key.size()) >= 8;
}

bool isIndexedKey(const std::string& card, const std::string& stem) {
    if (card.compare(0, stem.size(), stem) != 0) return false;
    std::size_t i = stem.size();
    if (i >= 8 || !std::isdigit(static_cast<unsigned char>(card[i]))) return false;
    while (i < 8 && std::isdigit(static_cast<unsigned char>(card[i]))) ++i;
    return card.find_first_not_of(' ', i) >= 8;
}

// The uncompressed image's header rebuilt from a tile-compressed HDU's table header, for the files
// CFITSIO's own conversion refuses (astropy writes some without ZTENSION): Z-prefixed image keywords
// take their place, the table's own keywords go.
std::string imageHeaderFromTable(const std::string& table, int tableCards, int& cardCount) {
    static const char* dropped[] = {"XTENSION", "BITPIX", "NAXIS", "PCOUNT", "GCOUNT", "TFIELDS", "THEAP",
                                    "ZIMAGE", "ZCMPTYPE", "ZQUANTIZ", "ZDITHER0", "ZMASKCMP", "ZSIMPLE",
                                    "ZEXTEND", "ZTENSION", "ZPCOUNT", "ZGCOUNT", "ZHECKSUM", "ZDATASUM",
                                    "CHECKSUM", "DATASUM", "ZBLANK", "ZBLOCKED", "END"};
    static const char* droppedStems[] = {"NAXIS", "TTYPE", "TFORM", "TUNIT", "TSCAL", "TZERO", "TNULL",
                                         "TDIM", "ZTILE", "ZNAME", "ZVAL"};
    std::vector<std::string> in;
    for (int i = 0; i < tableCards; ++i) in.push_back(table.substr(static_cast<std::size_t>(i) * 80, 80));
    const auto pad = [](std::string card) {
        card.resize(80, ' ');
        return card;
    };
    const auto value = [&](const std::string& key) -> std::string {
        for (const auto& c : in)
            if (startsWithKey(c, key)) return c.substr(8);
        return {};
    };
    std::vector<std::string> out;
    const std::string ztension = value("ZTENSION");
    out.push_back(pad(!value("ZSIMPLE").empty() ? "SIMPLE  =                    T"
                                                : "XTENSION" + (ztension.empty() ? "= 'IMAGE   '" : ztension)));
    out.push_back(pad("BITPIX  " + value("ZBITPIX")));
    out.push_back(pad("NAXIS   " + value("ZNAXIS")));
    for (const auto& c : in)
        if (isIndexedKey(c, "ZNAXIS")) out.push_back(pad(c.substr(1, 7) + " " + c.substr(8)));
    if (value("ZSIMPLE").empty()) {
        out.push_back(pad("PCOUNT  =                    0"));
        out.push_back(pad("GCOUNT  =                    1"));
    }
    for (const auto& c : in) {
        bool drop = startsWithKey(c, "ZBITPIX") || startsWithKey(c, "ZNAXIS") || isIndexedKey(c, "ZNAXIS");
        for (const char* key : dropped) drop = drop || startsWithKey(c, key);
        for (const char* stem : droppedStems) drop = drop || isIndexedKey(c, stem);
        if (!drop) out.push_back(c);
    }
    cardCount = static_cast<int>(out.size());
    std::string header;
    for (const auto& c : out) header += c;
    return header;
}

// The header as an uncompressed image would have it (tile-compressed HDUs are converted back).
std::string imageHeader(fitsfile* f, const std::string& path, bool compressed, int& cardCount) {
    char* text = nullptr;
    int status = 0;
    if (fits_convert_hdr2str(f, 0, nullptr, 0, &text, &cardCount, &status) == 0) {
        std::string header(text, static_cast<std::size_t>(cardCount) * 80);
        fits_free_memory(text, &status);
        return header;
    }
    if (!compressed) failCfitsio(path, "corrupt header", status);
    fits_clear_errmsg();
    status = 0;
    int tableCards = 0;
    if (fits_hdr2str(f, 0, nullptr, 0, &text, &tableCards, &status)) failCfitsio(path, "corrupt header", status);
    const std::string table(text, static_cast<std::size_t>(tableCards) * 80);
    fits_free_memory(text, &status);
    return imageHeaderFromTable(table, tableCards, cardCount);
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
    checkImageDimensions(axes[0], axes.size() > 1 ? axes[1] : 1, where);
    long double planes = 1;
    for (std::size_t k = 2; k < axes.size(); ++k) planes *= static_cast<long double>(axes[k]);
    if (planes > static_cast<long double>(std::numeric_limits<int>::max()))
        fail(path, "HDU " + std::to_string(chosen->index) + " has absurd dimensions (more than 2^31 planes)");
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
    // Keywords CFITSIO would divide by are checked first; the SIGFPE guard below is the last resort.
    checkFitsCompressionKeywords(path);
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
