// CSV/TXT numeric matrices: one row a line, values separated by commas, semicolons or white space,
// negative values allowed, NaN kept as a blank. Lines starting with '#' are comments.
#include "core/io/ImageLoader.h"
#include "core/util/Errors.h"
#include "core/util/ImageBudget.h"
#include "core/util/InputFile.h"
#include "core/util/Printable.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>

namespace glint {

namespace {

bool isSeparator(char c) { return c == ',' || c == ';' || c == ' ' || c == '\t' || c == '\r'; }

bool isDigit(char c) { return c >= '0' && c <= '9'; }

// A decimal number as people write it: [+-] digits [. digits] [e|E [+-] digits], or [+-] . digits [...].
// strtod reads more (hexadecimal "0x1p3", "inf", "infinity", "nan(...)"), and C strings end at a NUL
// ("5\0junk" read as 5); those are refused. NaN, any case, stays the blank.
bool isDecimal(const std::string& t) {
    std::size_t i = 0;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
    std::size_t digits = 0;
    while (i < t.size() && isDigit(t[i])) ++i, ++digits;
    if (i < t.size() && t[i] == '.') {
        ++i;
        while (i < t.size() && isDigit(t[i])) ++i, ++digits;
    }
    if (digits == 0) return false;
    if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
        ++i;
        if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
        std::size_t exponent = 0;
        while (i < t.size() && isDigit(t[i])) ++i, ++exponent;
        if (exponent == 0) return false;
    }
    return i == t.size();
}

bool isNan(const std::string& t) {
    std::size_t i = t.size() == 4 && (t[0] == '+' || t[0] == '-') ? 1 : 0;
    if (t.size() - i != 3) return false;
    const auto lower = [](char c) { return static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c); };
    return lower(t[i]) == 'n' && lower(t[i + 1]) == 'a' && lower(t[i + 2]) == 'n';
}

} // namespace

Image loadTextMatrix(const std::string& path) {
    // The text is read a line at a time, so the file itself is only bounded by the memory limit; the
    // numbers (8 bytes each, plus the working copies) are checked against it row by row.
    const std::uint64_t fileBytes = checkInputFile(path);
    if (fileBytes > maxImageBytes())
        throw InputError("cannot open '" + path + "': the text file is too large: " +
                         formatByteSize(static_cast<long double>(fileBytes)) + ", over the " +
                         formatByteSize(static_cast<long double>(maxImageBytes())) + " limit (GLINT_MAX_IMAGE_BYTES)");
    std::ifstream in(path);
    if (!in) throw InputError("cannot open '" + path + "': " + std::strerror(errno));
    std::vector<double> values;
    long long width = -1;
    long long height = 0;
    std::string line;
    long long lineNumber = 0;
    while (std::getline(in, line)) {
        ++lineNumber;
        std::size_t first = line.find_first_not_of(" \t\r");
        if (first == std::string::npos || line[first] == '#') continue;
        long long count = 0;
        const char* p = line.c_str();
        const char* end = p + line.size();
        while (p < end) {
            while (p < end && isSeparator(*p)) ++p;
            if (p >= end) break;
            const char* tokenStart = p;
            while (p < end && !isSeparator(*p)) ++p;
            const std::string token(tokenStart, p);
            // "'path' line 7: '0x10' is not a number (row 3, column 2: decimal notation only)"
            const auto refuse = [&](const std::string& what, const std::string& why) {
                throw InputError("'" + path + "' line " + std::to_string(lineNumber) + ": " + quotedToken(token) + " " +
                                 what + " (row " + std::to_string(height + 1) + ", column " + std::to_string(count + 1) +
                                 ": " + why + ")");
            };
            double v = std::numeric_limits<double>::quiet_NaN();
            if (!isNan(token)) {
                if (!isDecimal(token)) refuse("is not a number", "decimal notation only");
                errno = 0;
                char* parsedEnd = nullptr;
                v = std::strtod(token.c_str(), &parsedEnd);
                if (parsedEnd != token.c_str() + token.size()) refuse("is not a number", "decimal notation only");
                // Beyond double's range, or so small that it is lost or loses digits (below 2.2e-308):
                // the value would not be what the file says.
                if (errno == ERANGE || std::isinf(v))
                    refuse("is out of range", std::string(std::isinf(v) || std::fabs(v) > 1.0 ? "overflows" : "underflows") +
                                                  " a double, whose magnitudes run from 2.2e-308 to 1.8e308");
            }
            values.push_back(v);
            ++count;
            // One long line is checked as it grows too, not only when it ends.
            if ((values.size() & 0xFFFF) == 0)
                checkImageBudget({static_cast<long long>(values.size()), 1, 1, 64, 1}, "cannot open '" + path + "'");
            // a comma directly after another comma is an empty field: an error, not a silent skip
            if (p < end && *p == ',') {
                const char* q = p + 1;
                while (q < end && (*q == ' ' || *q == '\t' || *q == '\r')) ++q;
                if (q < end && *q == ',')
                    throw InputError("'" + path + "' line " + std::to_string(lineNumber) + ": empty field");
            }
        }
        if (count == 0) continue;
        if (width < 0) width = count;
        else if (count != width)
            throw InputError("'" + path + "' line " + std::to_string(lineNumber) + " has " + std::to_string(count) +
                             " values, earlier rows have " + std::to_string(width));
        ++height;
        if (width * height > kMaxImagePixels) checkImageDimensions(width, height, "'" + path + "'");
        checkImageBudget({width, height, 1, 64, 1}, "cannot open '" + path + "'");
    }
    if (in.bad()) throw InputError("cannot read '" + path + "'");
    if (height == 0) throw InputError("'" + path + "' holds no numbers");
    checkImageDimensions(width, height, "'" + path + "'");

    std::vector<std::uint8_t> blank(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) blank[i] = std::isnan(values[i]) ? 1 : 0;
    Image image = Image::fromSamples<double>(static_cast<int>(width), static_cast<int>(height), std::move(values));
    image.setBlankMask(std::move(blank));
    image.updateIntegerValued();
    image.meta.format = "CSV";
    return image;
}

} // namespace glint
