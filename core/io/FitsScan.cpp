#include "core/io/FitsScan.h"

#include "core/util/Errors.h"
#include "core/util/InputFile.h"
#include "core/util/Printable.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <string>

namespace glint {

namespace {

constexpr std::uint64_t kBlock = 2880;
constexpr long long kMaxImageAxes = 9;
constexpr long long kMaxSipOrder = 9;

struct Header {
    std::map<std::string, std::string> values; // keyword -> value text (strings unquoted and trimmed)
    std::set<std::string> columns;             // a table's TTYPEn names
    bool complete = false;
};

std::string trim(const std::string& s) {
    const std::size_t a = s.find_first_not_of(' ');
    if (a == std::string::npos) return {};
    return s.substr(a, s.find_last_not_of(' ') - a + 1);
}

// The value of a "KEY     = value / comment" card.
std::string cardValue(const std::string& card) {
    std::string rest = card.substr(10);
    const std::size_t first = rest.find_first_not_of(' ');
    if (first == std::string::npos) return {};
    if (rest[first] == '\'') {
        std::string out;
        for (std::size_t i = first + 1; i < rest.size(); ++i) {
            if (rest[i] == '\'') {
                if (i + 1 < rest.size() && rest[i + 1] == '\'') {
                    out += '\'';
                    ++i;
                    continue;
                }
                break;
            }
            out += rest[i];
        }
        return trim(out);
    }
    return trim(rest.substr(0, rest.find('/')));
}

// Reads the header starting at offset; sets next to where its data begin.
Header readHeader(const InputFile& file, std::uint64_t offset, std::uint64_t& next) {
    Header h;
    std::uint64_t at = offset;
    while (at + kBlock <= file.size()) {
        const std::string block = file.read(kBlock, at);
        at += kBlock;
        if (block.size() < kBlock) return h;
        for (std::size_t c = 0; c < kBlock; c += 80) {
            const std::string card = block.substr(c, 80);
            const std::string key = trim(card.substr(0, 8));
            if (key == "END") {
                h.complete = true;
                next = at;
                return h;
            }
            if (!key.empty() && card.compare(8, 2, "= ") == 0 && !h.values.count(key)) {
                h.values[key] = cardValue(card);
                if (key.compare(0, 5, "TTYPE") == 0) h.columns.insert(h.values[key]);
            }
        }
    }
    return h;
}

std::optional<long long> integer(const Header& h, const std::string& key) {
    const auto it = h.values.find(key);
    if (it == h.values.end()) return std::nullopt;
    char* end = nullptr;
    const long long v = std::strtoll(it->second.c_str(), &end, 10);
    if (end == it->second.c_str() || *end != '\0') return std::nullopt;
    return v;
}

std::optional<double> number(const Header& h, const std::string& key) {
    const auto it = h.values.find(key);
    if (it == h.values.end()) return std::nullopt;
    std::string text = it->second;
    std::replace(text.begin(), text.end(), 'D', 'E');
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || *end != '\0') return std::nullopt;
    return v;
}

std::string text(const Header& h, const std::string& key) {
    const auto it = h.values.find(key);
    return it == h.values.end() ? std::string() : it->second;
}

// Data bytes of an HDU (FITS 4.0, 4.4.1.1), padded to whole blocks; nothing when the header is odd.
std::optional<std::uint64_t> dataBytes(const Header& h) {
    const auto bitpix = integer(h, "BITPIX");
    const auto naxis = integer(h, "NAXIS");
    if (!bitpix || !naxis || *naxis < 0 || *naxis > 999) return std::nullopt;
    if (*naxis == 0) return 0;
    long double product = 1;
    for (long long k = 1; k <= *naxis; ++k) {
        const auto n = integer(h, "NAXIS" + std::to_string(k));
        if (!n || *n < 0) return std::nullopt;
        if (k == 1 && *n == 0 && text(h, "GROUPS") == "T") continue; // random groups
        product *= static_cast<long double>(*n);
    }
    const long double bytes = std::abs(static_cast<long double>(*bitpix)) / 8 *
                              static_cast<long double>(integer(h, "GCOUNT").value_or(1)) *
                              (static_cast<long double>(integer(h, "PCOUNT").value_or(0)) + product);
    if (!(bytes >= 0) || bytes > 1.0e18L) return std::nullopt;
    const std::uint64_t b = static_cast<std::uint64_t>(bytes);
    return (b + kBlock - 1) / kBlock * kBlock;
}

class Checker {
public:
    Checker(const std::string& path, int hdu, const Header& h) : path_(path), hdu_(hdu), h_(h) {}

    [[noreturn]] void bad(const std::string& key, const std::string& why, const char* what = "compressed image") const {
        const auto it = h_.values.find(key);
        const std::string value = it == h_.values.end() ? std::string("missing") : "= " + quotedToken(it->second, 30);
        throw InputError("cannot open '" + path_ + "': HDU " + std::to_string(hdu_) + " is a damaged " + what + ": " +
                         key + " " + value + " (" + why + ")");
    }

    // The keywords every HDU must get right before CFITSIO reads them (FITS 4.0, 4.4.1).
    void checkStructure() const {
        const bool image = hdu_ == 0 || text(h_, "XTENSION") == "IMAGE";
        const char* what = image ? "image header" : "extension header";
        const auto bitpix = integer(h_, "BITPIX");
        if (!bitpix || (*bitpix != 8 && *bitpix != 16 && *bitpix != 32 && *bitpix != 64 && *bitpix != -32 &&
                        *bitpix != -64))
            bad("BITPIX", "must be 8, 16, 32, 64, -32 or -64", what);
        const auto naxis = integer(h_, "NAXIS");
        if (!naxis || *naxis < 0 || *naxis > 999) bad("NAXIS", "must be a whole number from 0 to 999", what);
        if (image && *naxis > kMaxImageAxes && text(h_, "GROUPS") != "T")
            bad("NAXIS", "an image of more than " + std::to_string(kMaxImageAxes) + " axes; CFITSIO reads at most 9",
                what);
        long double product = 1;
        for (long long k = 1; k <= *naxis; ++k) {
            const std::string axis = "NAXIS" + std::to_string(k);
            const auto n = integer(h_, axis);
            if (!n || *n < 0) bad(axis, "an axis length must be a whole number, 0 or more", what);
            product *= static_cast<long double>(*n);
        }
        // 2^60 bytes is far beyond any file; beyond it the sizes CFITSIO computes in 64 bits may wrap.
        if (product * static_cast<long double>(std::abs(*bitpix) / 8) > 1.0e18L)
            bad("NAXIS" + std::to_string(*naxis), "the axes' product overflows the data size", what);
        for (const char* key : {"BSCALE", "BZERO"}) {
            if (!h_.values.count(key) || h_.values.at(key).empty()) continue;
            const auto v = number(h_, key);
            if (!v || !std::isfinite(*v)) bad(key, "must be a finite number", what);
            if (std::string(key) == "BSCALE" && *v == 0) bad(key, "a scale of 0 makes every pixel the same value", what);
        }
        for (const char* key : {"A_ORDER", "B_ORDER", "AP_ORDER", "BP_ORDER"}) {
            if (!h_.values.count(key) || h_.values.at(key).empty()) continue; // an undefined value: no SIP
            const auto v = integer(h_, key);
            if (!v || *v < 0 || *v > kMaxSipOrder)
                bad(key, "a SIP distortion order must be a whole number from 0 to " + std::to_string(kMaxSipOrder),
                    what);
        }
    }

    void run() const {
        const auto zbitpix = integer(h_, "ZBITPIX");
        if (!zbitpix || (*zbitpix != 8 && *zbitpix != 16 && *zbitpix != 32 && *zbitpix != 64 && *zbitpix != -32 &&
                         *zbitpix != -64))
            bad("ZBITPIX", "must be 8, 16, 32, 64, -32 or -64");
        const auto znaxis = integer(h_, "ZNAXIS");
        if (!znaxis || *znaxis < 1 || *znaxis > kMaxImageAxes)
            bad("ZNAXIS", "must be from 1 to " + std::to_string(kMaxImageAxes) + "; CFITSIO reads at most 9 axes");
        long double tilePixels = 1;
        for (long long k = 1; k <= *znaxis; ++k) {
            const std::string axis = "ZNAXIS" + std::to_string(k);
            const auto n = integer(h_, axis);
            if (!n || *n < 1) bad(axis, "an axis must be at least 1 pixel long");
            const std::string tileKey = "ZTILE" + std::to_string(k);
            if (h_.values.count(tileKey)) {
                const auto t = integer(h_, tileKey);
                if (!t || *t < 1) bad(tileKey, "a tile must be at least 1 pixel long");
                tilePixels *= static_cast<long double>(std::min(*t, *n));
            } else {
                tilePixels *= k == 1 ? static_cast<long double>(*n) : 1.0L;
            }
        }
        if (tilePixels > static_cast<long double>(1LL << 31)) bad("ZTILE1", "tiles of more than 2^31 pixels");
        long double imagePixels = 1;
        for (long long k = 1; k <= *znaxis; ++k)
            imagePixels *= static_cast<long double>(*integer(h_, "ZNAXIS" + std::to_string(k)));
        if (imagePixels * 8 > 1.0e18L) bad("ZNAXIS" + std::to_string(*znaxis), "the axes' product overflows the data size");

        const std::string quantize = text(h_, "ZQUANTIZ");
        if (quantize == "SUBTRACTIVE_DITHER_1" || quantize == "SUBTRACTIVE_DITHER_2") {
            // CFITSIO indexes its table of 10000 random numbers with ZDITHER0 - 1.
            if (h_.values.count("ZDITHER0")) {
                const auto seed = integer(h_, "ZDITHER0");
                if (!seed || *seed < 1 || *seed > 10000) bad("ZDITHER0", "the dither seed must be from 1 to 10000");
            }
        }

        const std::string type = text(h_, "ZCMPTYPE");
        // RICE, PLIO and HCOMPRESS store integers. Floating-point data reach them only quantised, with a
        // ZSCALE and ZZERO per tile (columns) or per image (keywords); without them the tiles hold plain
        // integers that CFITSIO would hand over as float bit patterns (denormals).
        const bool integerOnly = type == "RICE_1" || type == "RICE_ONE" || type == "PLIO_1" || type == "HCOMPRESS_1";
        if (integerOnly && *zbitpix < 0) {
            const auto has = [&](const char* name) { return h_.columns.count(name) || h_.values.count(name); };
            if (!has("ZSCALE") || !has("ZZERO"))
                bad("ZBITPIX", type + " stores integers: floating-point tiles need ZSCALE and ZZERO, which are missing");
        }
        if (type == "PLIO_1" && *zbitpix == 64) bad("ZBITPIX", "PLIO_1 holds integers of at most 24 bits");
        for (int i = 1; i <= 999; ++i) {
            const std::string nameKey = "ZNAME" + std::to_string(i);
            if (!h_.values.count(nameKey)) break;
            const std::string name = text(h_, nameKey);
            const std::string valueKey = "ZVAL" + std::to_string(i);
            const auto v = number(h_, valueKey);
            if (type == "RICE_1" || type == "RICE_ONE") {
                if (name == "BLOCKSIZE" && (!v || *v != std::floor(*v) || *v < 1 || *v > 65536))
                    bad(valueKey, "RICE BLOCKSIZE must be a whole number from 1 to 65536");
                if (name == "BYTEPIX" && (!v || (*v != 1 && *v != 2 && *v != 4 && *v != 8)))
                    bad(valueKey, "RICE BYTEPIX must be 1, 2, 4 or 8");
            } else if (type == "HCOMPRESS_1") {
                // CFITSIO copes with any finite scale (a negative one included) and any smoothing flag.
                if (name == "SCALE" && (!v || !std::isfinite(*v))) bad(valueKey, "HCOMPRESS SCALE must be a number");
                if (name == "SMOOTH" && (!v || *v != std::floor(*v)))
                    bad(valueKey, "HCOMPRESS SMOOTH must be a whole number");
            }
        }
    }

private:
    const std::string& path_;
    int hdu_;
    const Header& h_;
};

} // namespace

void checkFitsHeaders(const std::string& path) {
    const InputFile file(path);
    std::uint64_t offset = 0;
    for (int hdu = 0; hdu < 100000 && offset < file.size(); ++hdu) {
        std::uint64_t dataStart = 0;
        const Header h = readHeader(file, offset, dataStart);
        if (!h.complete) return;
        if (hdu > 0 && h.values.count("XTENSION") == 0) return;
        if (hdu == 0 && h.values.count("SIMPLE") == 0) return;
        const Checker checker(path, hdu, h);
        checker.checkStructure();
        if (text(h, "ZIMAGE") == "T" && text(h, "XTENSION") == "BINTABLE") checker.run();
        const auto bytes = dataBytes(h);
        if (!bytes) return;
        offset = dataStart + *bytes;
    }
}

} // namespace glint
