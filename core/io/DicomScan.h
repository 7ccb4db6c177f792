// A quick walk over a DICOM file's element headers before GDCM reads it: GDCM allocates whatever an
// element's length field claims, so a damaged length of gigabytes would stall or exhaust memory.
#pragma once

#include <string>

namespace glint {

// Throws InputError when a well-formed element header claims more bytes than the file has left (a
// truncated or damaged file), when a deflated dataset is corrupt or inflates beyond the memory limit
// (it is inflated here, with that cap, and its elements checked the same way), or when the image the
// header declares (rows x columns x frames x samples x bits allocated) is over the memory limit, or when
// sequences nest more than 64 levels deep (GDCM recurses per level and overflows its stack on thousands);
// sequences of defined and undefined length are followed alike, in explicit and implicit VR.
// Stops quietly where it cannot follow the encoding (vendor quirks): it never rejects what it does
// not understand, GDCM then has the last word.
void checkDicomElementLengths(const std::string& path);

} // namespace glint
