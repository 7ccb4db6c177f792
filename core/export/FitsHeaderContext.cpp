#include "core/export/FitsHeaderContext.h"

#include "core/export/CsvTable.h"
#include "core/io/Image.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <string_view>

namespace glint {

namespace {

bool isDigits(std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// "1_2" (the i_j of CDi_j, PCi_j, SIP's A_p_q ...).
bool isIndexPair(std::string_view s) {
    const std::size_t u = s.find('_');
    return u != std::string_view::npos && isDigits(s.substr(0, u)) && isDigits(s.substr(u + 1));
}

// The suffix without its alternate WCS's letter (A..Z), when it has one.
std::string_view withoutAlternate(std::string_view s) {
    return !s.empty() && s.back() >= 'A' && s.back() <= 'Z' ? s.substr(0, s.size() - 1) : s;
}

bool hasStem(std::string_view key, std::string_view stem, std::string_view& rest) {
    if (key.size() <= stem.size() || key.substr(0, stem.size()) != stem) return false;
    rest = key.substr(stem.size());
    return true;
}

// A value as FITS writes it unquoted: an integer or real number (Fortran's D exponent too), T, F, or a
// complex pair.
bool isBareValue(const std::string& value) {
    if (value == "T" || value == "F") return true;
    if (value.size() >= 5 && value.front() == '(' && value.back() == ')' && value.find(',') != std::string::npos)
        return true;
    if (value.empty() || std::isspace(static_cast<unsigned char>(value.front()))) return false;
    std::string text = value;
    std::replace(text.begin(), text.end(), 'D', 'E');
    char* end = nullptr;
    std::strtod(text.c_str(), &end);
    return end == text.c_str() + text.size() && text.find_first_of("xXnNiI") == std::string::npos;
}

bool isPlainKey(const std::string& key) {
    return key.size() <= 8 && std::all_of(key.begin(), key.end(), [](char c) {
               return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
           });
}

std::string padded(std::string card) {
    card.resize(80, ' ');
    return card;
}

bool isStructural(const std::string& key) {
    static const char* keys[] = {"SIMPLE", "XTENSION", "BITPIX", "NAXIS", "PCOUNT", "GCOUNT", "EXTEND", "END",
                                 "CHECKSUM", "DATASUM"};
    std::string_view rest;
    return std::find(std::begin(keys), std::end(keys), key) != std::end(keys) ||
           (hasStem(key, "NAXIS", rest) && isDigits(rest));
}

} // namespace

std::string fitsCard(const std::string& key, const std::string& value, const std::string& comment) {
    if (key.empty() || key == "COMMENT" || key == "HISTORY" || key == "CONTINUE") {
        std::string text = value.empty() ? comment : comment.empty() ? value : value + " " + comment;
        return padded(key + std::string(key == "CONTINUE" ? 2 : 8 - key.size(), ' ') + text);
    }
    std::string card = isPlainKey(key) ? key + std::string(8 - key.size(), ' ') + "= " : "HIERARCH " + key + " = ";
    const std::size_t valueStart = card.size();
    if (isBareValue(value)) {
        card += value.size() < 20 ? std::string(20 - value.size(), ' ') + value : value;
    } else if (!value.empty()) {
        std::string quoted;
        for (char c : value) quoted += c == '\'' ? std::string("''") : std::string(1, c);
        if (quoted.size() < 8) quoted.resize(8, ' ');
        const std::size_t room = card.size() < 78 ? 78 - card.size() : 0; // the text between the quotes
        if (quoted.size() > room) {
            quoted.resize(room);
            if (!quoted.empty() && quoted.back() == '\'' &&
                (quoted.size() - quoted.find_last_not_of('\'') - 1) % 2 == 1)
                quoted.pop_back(); // never cut a doubled quote in two
        }
        card += "'" + quoted + "'";
    }
    if (card.size() < valueStart + 20) card.resize(valueStart + 20, ' ');
    if (!comment.empty() && card.size() + 3 < 80) card += " / " + comment;
    if (card.size() > 80) card.resize(80);
    return padded(card);
}

std::string fitsNumberCard(const std::string& key, double value, const std::string& comment) {
    return fitsCard(key, std::isfinite(value) ? formatNumber(value) : std::string(), comment);
}

std::string cardKey(const std::string& card) {
    if (card.compare(0, 9, "HIERARCH ") == 0) {
        const std::size_t eq = card.find('=');
        std::string key = card.substr(9, eq == std::string::npos ? std::string::npos : eq - 9);
        while (!key.empty() && key.back() == ' ') key.pop_back();
        return key;
    }
    std::string key = card.substr(0, std::min<std::size_t>(8, card.size()));
    while (!key.empty() && key.back() == ' ') key.pop_back();
    return key;
}

void setCard(FitsHeaderContext& context, const std::string& card) {
    const std::string key = cardKey(card);
    for (std::string& c : context.cards) {
        if (cardKey(c) == key) {
            c = padded(card);
            return;
        }
    }
    context.cards.push_back(padded(card));
}

bool isWcsKeyword(const std::string& key) {
    static const char* alternated[] = {"WCSAXES", "LONPOLE", "LATPOLE", "RADESYS", "EQUINOX", "WCSNAME",
                                       "RESTFRQ", "RESTWAV", "SPECSYS", "SSYSOBS", "VELOSYS", "MJDREF"};
    static const char* plain[] = {"RADECSYS", "EPOCH", "MJD-OBS", "DATE-OBS", "MJD-AVG", "DATE-AVG", "DATEREF",
                                  "A_ORDER", "B_ORDER", "AP_ORDER", "BP_ORDER", "A_DMAX", "B_DMAX"};
    static const char* axisStems[] = {"CTYPE", "CRVAL", "CRPIX", "CDELT", "CUNIT", "CRDER", "CSYER", "CNAME"};
    static const char* pairStems[] = {"CD", "PC", "PV", "PS"};
    static const char* sipStems[] = {"A_", "B_", "AP_", "BP_"};
    const std::string_view k = key;
    if (std::find(std::begin(plain), std::end(plain), key) != std::end(plain)) return true;
    for (const char* s : alternated)
        if (withoutAlternate(k) == s || k == s) return true;
    std::string_view rest;
    for (const char* s : axisStems)
        if (hasStem(k, s, rest) && isDigits(withoutAlternate(rest))) return true;
    for (const char* s : pairStems)
        if (hasStem(k, s, rest) && isIndexPair(withoutAlternate(rest))) return true;
    for (const char* s : sipStems)
        if (hasStem(k, s, rest) && isIndexPair(rest)) return true;
    if (hasStem(k, "CROTA", rest) && isDigits(rest)) return true;
    if (hasStem(k, "LTV", rest) && isDigits(rest)) return true;
    if (hasStem(k, "LTM", rest) && isIndexPair(rest)) return true;
    return hasStem(k, "WAT", rest) && isIndexPair(rest);
}

FitsHeaderContext fitsHeaderContext(const Image& image) {
    FitsHeaderContext context;
    context.width = image.width();
    context.height = image.height();
    const ImageMetadata& meta = image.meta;
    context.bitpix = image.sampleType() == SampleType::Float64 ? -64 : -32;
    if (meta.format != "FITS") return context;
    for (const HduInfo& h : meta.hdus)
        if (h.index == meta.hdu && h.bitpix != 0) context.bitpix = h.bitpix;
    for (const HeaderCard& c : meta.header)
        if (!isStructural(c.key)) context.cards.push_back(fitsCard(c.key, c.value, c.comment));
    return context;
}

std::vector<std::string> imageHeaderCards(const FitsHeaderContext& context) {
    std::vector<std::string> cards = {fitsCard("SIMPLE", "T", "conforms to FITS standard"),
                                      fitsCard("BITPIX", std::to_string(context.bitpix), "array data type"),
                                      fitsCard("NAXIS", "2", "number of array dimensions"),
                                      fitsCard("NAXIS1", std::to_string(context.width), ""),
                                      fitsCard("NAXIS2", std::to_string(context.height), "")};
    cards.insert(cards.end(), context.cards.begin(), context.cards.end());
    cards.push_back(padded("END"));
    return cards;
}

} // namespace glint
