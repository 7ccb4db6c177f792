// Silences the C-level stderr of third-party decoders (libpng, libjpeg, CFITSIO, GDCM) for a scope, so
// that a damaged file yields Glint's one-line message and not a page of library warnings.
//
// Process-wide and counted: stderr (fd 2) points at /dev/null while any silencer lives on any thread (batch
// decodes several files at once) and is restored when the last one ends. Glint's own lines written while
// another thread silences go through writeStderr(), which reaches the real stderr either way.
#pragma once

#include <string>

namespace glint {

class StderrSilencer {
public:
    StderrSilencer();
    ~StderrSilencer();
    StderrSilencer(const StderrSilencer&) = delete;
    StderrSilencer& operator=(const StderrSilencer&) = delete;
};

// Writes text to the real standard error (the saved one while a silencer is active), whole, unbuffered.
void writeStderr(const std::string& text);

} // namespace glint
