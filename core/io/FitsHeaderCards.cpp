// The header of a FITS image HDU (FitsReading.h): its cards, parsed through CFITSIO, and the image header a
// tile-compressed HDU stands for.
#include "core/io/FitsReading.h"

#include <fitsio.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <exception>
#include <string>
#include <vector>

namespace glint::fits {

namespace {

std::string trimRight(std::string s) {
    while (!s.empty() && (s.back() == ' ' || s.back() == '\0')) s.pop_back();
    return s;
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

} // namespace

std::string trim(std::string s) {
    s = trimRight(std::move(s));
    const std::size_t first = s.find_first_not_of(' ');
    return first == std::string::npos ? std::string() : s.substr(first);
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

} // namespace glint::fits
