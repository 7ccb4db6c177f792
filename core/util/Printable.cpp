#include "core/util/Printable.h"

#include <cstdint>
#include <cstdio>

namespace glint {

namespace {

// The length of the valid UTF-8 sequence of a printable code point starting at text[i], or 0.
std::size_t utf8Sequence(std::string_view text, std::size_t i) {
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char c = b(i);
    std::size_t n = 0;
    std::uint32_t cp = 0;
    if (c >= 0xC2 && c <= 0xDF) n = 2, cp = c & 0x1F;
    else if (c >= 0xE0 && c <= 0xEF) n = 3, cp = c & 0x0F;
    else if (c >= 0xF0 && c <= 0xF4) n = 4, cp = c & 0x07;
    else return 0;
    if (i + n > text.size()) return 0;
    for (std::size_t k = 1; k < n; ++k) {
        if ((b(i + k) & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (b(i + k) & 0x3F);
    }
    // overlong forms, surrogates, beyond U+10FFFF, C1 controls: not printable text
    if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF ||
        (cp >= 0x80 && cp < 0xA0))
        return 0;
    return n;
}

// Escapes text, stopping before the output would pass maxOut bytes (when maxOut is not npos).
// Sets consumed to the number of input bytes used.
std::string escape(std::string_view text, std::size_t maxOut, std::size_t& consumed) {
    std::string out;
    std::size_t i = 0;
    while (i < text.size()) {
        const unsigned char c = static_cast<unsigned char>(text[i]);
        std::string piece;
        std::size_t used = 1;
        if (c == '\t' || c == '\n' || c == '\r') piece = " ";
        else if (c >= 0x20 && c < 0x7F) piece.assign(1, static_cast<char>(c));
        else if (const std::size_t n = c >= 0x80 ? utf8Sequence(text, i) : 0) {
            piece.assign(text.substr(i, n));
            used = n;
        } else {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02X", c);
            piece = buf;
        }
        if (maxOut != std::string::npos && out.size() + piece.size() > maxOut) break;
        out += piece;
        i += used;
    }
    consumed = i;
    return out;
}

// Like escape, but of the end of the text: the longest tail whose escaped form fits maxOut bytes.
std::string escapeTail(std::string_view text, std::size_t maxOut) {
    // Start a little before the point where maxOut plain bytes would begin, at a character boundary,
    // and drop pieces from the front until it fits.
    std::size_t start = text.size() > maxOut ? text.size() - maxOut : 0;
    while (start < text.size() && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) ++start;
    std::size_t consumed = 0;
    std::string out = escape(text.substr(start), std::string::npos, consumed);
    while (out.size() > maxOut && start < text.size()) {
        ++start;
        while (start < text.size() && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) ++start;
        out = escape(text.substr(start), std::string::npos, consumed);
    }
    return out;
}

} // namespace

std::string printableMessage(std::string_view text, std::size_t maxLen) {
    std::size_t consumed = 0;
    std::string whole = escape(text, maxLen, consumed);
    if (consumed == text.size()) return whole;
    static const std::string cut = " \xE2\x80\xA6 "; // " … "
    if (maxLen <= cut.size() + 2) return whole;
    const std::size_t room = maxLen - cut.size();
    const std::size_t tailRoom = room / 3;
    std::string head = escape(text, room - tailRoom, consumed);
    return head + cut + escapeTail(text.substr(consumed), tailRoom);
}

std::string quotedToken(std::string_view token, std::size_t maxLen) {
    std::size_t consumed = 0;
    const std::string shown = escape(token, maxLen, consumed);
    if (consumed == token.size()) return "'" + shown + "'";
    return "'" + shown + "\xE2\x80\xA6' (" + std::to_string(token.size()) + " bytes)";
}

} // namespace glint
