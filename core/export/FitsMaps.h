// The source catalogue's maps as FITS images (`sources --segmentation OUT.fits --background-map OUT.fits
// --rms-map OUT.fits`), in the image's pixel grid: row 0 of the map is the image's row 0 (FITS row 1), and the
// WCS cards of the image (FitsHeaderContext::cards whose keyword isWcsKeyword) are copied, so that the map
// overlays the image exactly in DS9. Also copied: OBJECT, and for the float maps (in the image's units)
// BUNIT. Added: ORIGIN = 'Glint' and a HISTORY card saying what the map is. Written whole through
// writeFileAtomically (never a partial file); OutputError with one line naming the path when it cannot.
#pragma once

#include "core/export/FitsHeaderContext.h"

#include <cstdint>
#include <string>
#include <vector>

namespace glint {

// The segmentation map: BITPIX 32, 0 = sky, n = the source with NUMBER n.
inline constexpr const char* kSegmentationHistory = "Glint segmentation map: 0 = sky, n = the source NUMBER n";

// values: width * height, row-major. imageHeader: the image's (fitsHeaderContext(image)); null writes a map
// without WCS. OutputError when the sizes disagree (with each other or with imageHeader's).
void writeFitsMap(const std::string& path, int width, int height, const std::vector<std::int32_t>& values,
                  const FitsHeaderContext* imageHeader, const std::string& history = kSegmentationHistory);
// A map of reals (background, RMS): BITPIX -32, NaN where the map has no value.
void writeFitsMap(const std::string& path, int width, int height, const std::vector<float>& values,
                  const FitsHeaderContext* imageHeader, const std::string& history);

// The file's bytes, for tests and for callers that stage their own outputs.
std::string fitsMapBytes(int width, int height, const std::vector<std::int32_t>& values,
                         const FitsHeaderContext* imageHeader, const std::string& history = kSegmentationHistory);
std::string fitsMapBytes(int width, int height, const std::vector<float>& values,
                         const FitsHeaderContext* imageHeader, const std::string& history);

} // namespace glint
