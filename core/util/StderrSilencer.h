// Silences the C-level stderr of third-party decoders (libpng, libjpeg, CFITSIO, GDCM) for a scope, so
// that a damaged file yields Glint's one-line message and not a page of library warnings.
#pragma once

namespace glint {

class StderrSilencer {
public:
    StderrSilencer();
    ~StderrSilencer();
    StderrSilencer(const StderrSilencer&) = delete;
    StderrSilencer& operator=(const StderrSilencer&) = delete;

private:
    int saved_ = -1;
};

} // namespace glint
