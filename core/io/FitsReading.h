// How the FITS loader (FitsLoader.cpp) reads an image HDU through CFITSIO: its failure messages, the header
// cards, and a plane's pixels as stored, scaled without loss. Internal to core/io.
#pragma once

#include "core/io/Image.h"

#include <fitsio.h>

#include <optional>
#include <string>
#include <vector>

namespace glint::fits {

// InputError "cannot open 'path': what".
[[noreturn]] void fail(const std::string& path, const std::string& what);
// The same with CFITSIO's reason for `status` (its short status text plus the oldest message of its error
// stack, which names the actual problem); clears CFITSIO's error stack.
[[noreturn]] void failCfitsio(const std::string& path, const std::string& what, int status);

// s without the spaces (and NULs at its end) around it.
std::string trim(std::string s);

// The header's 80-character cards (blank ones left out; up to END), values unquoted; a malformed card is kept
// whole as a comment.
std::vector<HeaderCard> parseCards(const std::string& header, int cardCount);
const HeaderCard* findCard(const std::vector<HeaderCard>& cards, const char* key);
// A card's number (Fortran exponents too), or fallback when the card is absent or empty; fails when it is no
// finite number.
double cardNumber(const std::vector<HeaderCard>& cards, const char* key, double fallback, const std::string& path);
// The header as an uncompressed image would have it (tile-compressed HDUs are converted back).
std::string imageHeader(fitsfile* f, const std::string& path, bool compressed, int& cardCount);

// Plane `plane` (numbered over the axes beyond the second) of the current image HDU, its samples as stored
// with BSCALE and BZERO applied without loss where possible, BLANK and NaN as the blank mask.
Image readPlane(fitsfile* f, const std::string& path, int bitpix, const std::vector<LONGLONG>& axes, int plane,
                double bscale, double bzero, std::optional<long long> blank);

} // namespace glint::fits
