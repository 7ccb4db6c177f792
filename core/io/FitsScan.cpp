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
#include <string>

namespace glint {

namespace {

constexpr std::uint64_t kBlock = 2880;

struct Header {
    std::map<std::string, std::string> values; // keyword -> value text (strings unquoted and trimmed)
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
            if (!key.empty() && card.compare(8, 2, "= ") == 0 && !h.values.count(key)) h.values[key] = cardValue(card);
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

    [[noreturn]] void bad(const std::string& key, const std::string& why) const {
        const auto it = h_.values.find(key);
        const std::string value = it == h_.values.end() ? std::string("missing") : "= " + quotedToken(it->second, 30);
        throw InputError("cannot open '" + path_ + "': HDU " + std::to_string(hdu_) + " is a damaged compressed image: " +
                         key + " " + value + " (" + why + ")");
    }

    void run() const {
        const auto zbitpix = integer(h_, "ZBITPIX");
        if (!zbitpix || (*zbitpix != 8 && *zbitpix != 16 && *zbitpix != 32 && *zbitpix != 64 && *zbitpix != -32 &&
                         *zbitpix != -64))
            bad("ZBITPIX", "must be 8, 16, 32, 64, -32 or -64");
        const auto znaxis = integer(h_, "ZNAXIS");
        if (!znaxis || *znaxis < 1 || *znaxis > 999) bad("ZNAXIS", "must be from 1 to 999");
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

        const std::string quantize = text(h_, "ZQUANTIZ");
        if (quantize == "SUBTRACTIVE_DITHER_1" || quantize == "SUBTRACTIVE_DITHER_2") {
            // CFITSIO indexes its table of 10000 random numbers with ZDITHER0 - 1.
            if (h_.values.count("ZDITHER0")) {
                const auto seed = integer(h_, "ZDITHER0");
                if (!seed || *seed < 1 || *seed > 10000) bad("ZDITHER0", "the dither seed must be from 1 to 10000");
            }
        }

        const std::string type = text(h_, "ZCMPTYPE");
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

void checkFitsCompressionKeywords(const std::string& path) {
    const InputFile file(path);
    std::uint64_t offset = 0;
    for (int hdu = 0; hdu < 100000 && offset < file.size(); ++hdu) {
        std::uint64_t dataStart = 0;
        const Header h = readHeader(file, offset, dataStart);
        if (!h.complete) return;
        if (hdu > 0 && h.values.count("XTENSION") == 0) return;
        if (text(h, "ZIMAGE") == "T" && text(h, "XTENSION") == "BINTABLE") Checker(path, hdu, h).run();
        const auto bytes = dataBytes(h);
        if (!bytes) return;
        offset = dataStart + *bytes;
    }
}

} // namespace glint
