// A quick walk over a DICOM file's element headers before GDCM reads it: GDCM allocates whatever an
// element's length field claims, so a damaged length of gigabytes would stall or exhaust memory.
#pragma once

#include <string>

namespace glint {

// Throws InputError when a well-formed element header claims more bytes than the file has left (a
// truncated or damaged file). Stops quietly where it cannot follow the encoding (deflated data,
// vendor quirks): it never rejects what it does not understand, GDCM then has the last word.
void checkDicomElementLengths(const std::string& path);

} // namespace glint
