// The input image's FITS header as the source catalogue's files carry it: FITS_LDAC's LDAC_IMHEAD holds it
// whole (SCAMP and PSFEx read the WCS, the size and keywords such as SATURATE or GAIN there), and the maps of
// FitsMaps copy its WCS, OBJECT and BUNIT so that they overlay the image exactly in DS9.
#pragma once

#include <string>
#include <vector>

namespace glint {

class Image;

struct FitsHeaderContext {
    int width = 0, height = 0; // the image's (NAXIS1, NAXIS2)
    int bitpix = -32;          // the image's BITPIX, as LDAC_IMHEAD's header states it
    // The image header's 80-character cards, without END and without the structural keywords (SIMPLE,
    // XTENSION, BITPIX, NAXIS, NAXISn, PCOUNT, GCOUNT, EXTEND, CHECKSUM, DATASUM), which
    // imageHeaderCards() writes afresh. Empty for an image that is not FITS.
    std::vector<std::string> cards;
};

// From a loaded image: its size, and for a FITS image its HDU's BITPIX and header cards (rebuilt from
// ImageMetadata::header, which keeps them parsed: a value that reads as a number, T, F or a complex pair is
// written as such, any other value as a quoted string).
FitsHeaderContext fitsHeaderContext(const Image& image);

// One 80-character card: "KEY     = value / comment" (a string value quoted, its quotes doubled; HISTORY,
// COMMENT and blank keys as commentary; a key longer than 8 characters or with other characters than
// A-Z, 0-9, '-' and '_' as HIERARCH). Longer text is cut at 80 characters.
std::string fitsCard(const std::string& key, const std::string& value, const std::string& comment);
// A card with a number (shortest text that reads back to the same double; NaN and infinities are not numbers
// in FITS: the card is then written without a value).
std::string fitsNumberCard(const std::string& key, double value, const std::string& comment);
// Replaces the card with this key, or appends it (for the keywords the catalogue adds, e.g. SExtractor's
// SEXBKDEV, SEXGAIN, SEXMGZPT that PSFEx and SCAMP read).
void setCard(FitsHeaderContext& context, const std::string& card);

// The header of the image as a FITS primary HDU: SIMPLE, BITPIX, NAXIS = 2, NAXIS1, NAXIS2, the cards, END.
std::vector<std::string> imageHeaderCards(const FitsHeaderContext& context);

// The card's keyword (its first 8 characters trimmed, or the name after HIERARCH).
std::string cardKey(const std::string& card);
// Whether the keyword belongs to a world coordinate system: the FITS WCS papers' keywords (WCSAXES, CTYPEi,
// CRVALi, CRPIXi, CDELTi, CUNITi, CROTAi, CDi_j, PCi_j, PVi_m, PSi_m, LONPOLE, LATPOLE, RADESYS, EQUINOX,
// EPOCH, MJD-OBS, DATE-OBS, WCSNAME..., with an alternate's letter), SIP's (A_ORDER, A_p_q, AP_p_q, ...),
// IRAF's physical frame (LTVi, LTMi_j) and TNX/ZPX (WATi_nnn).
bool isWcsKeyword(const std::string& key);

} // namespace glint
