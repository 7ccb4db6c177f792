// CSV/TXT numeric matrices through loadTextMatrix: separators, comments, NaN, ragged rows, huge counts.
// A file that loads must hold exactly what it says (issue 35): every sample finite or a NaN blank, and no
// byte outside decimal numbers, NaN, separators, comments and line ends (hexadecimal, "inf", a NUL
// inside a token are refused). A violation aborts: a finding.
#include "fuzz/FuzzSupport.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>

namespace {

void checkLoaded(const std::string& path, const glint::Image& image) {
    for (std::size_t i = 0; i < image.pixelCount(); ++i) {
        const double v = image.value(i);
        if (std::isinf(v) || (std::isnan(v) != image.isBlank(i))) std::abort();
    }
    std::ifstream in(path, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    bool comment = false, lineStart = true;
    for (char c : text) {
        if (c == '\n') {
            comment = false;
            lineStart = true;
            continue;
        }
        if (lineStart && c == '#') comment = true;
        if (c != ' ' && c != '\t' && c != '\r') lineStart = false;
        if (comment) continue;
        if (c == 'x' || c == 'X' || c == 'p' || c == 'P' || c == 'i' || c == 'I' || c == '\0') std::abort();
    }
}

} // namespace

GLINT_FUZZ_LOADER("text", [](const std::string& path) { checkLoaded(path, glint::loadTextMatrix(path)); })
