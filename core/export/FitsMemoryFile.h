// A FITS file built in memory through CFITSIO, for the writers whose bytes then go through
// writeFileAtomically() (core/util/AtomicFile.h): the catalogue of brightest (CatalogWriter), the source
// catalogue (SourceCatalogFile) and the maps (FitsMaps). Internal to core/export.
#pragma once

#include <fitsio.h>

#include <string>

namespace glint {

class FitsMemoryFile {
public:
    // what names the file in messages: "the FITS catalogue" gives OutputError "cannot write the FITS
    // catalogue (step): CFITSIO's reason".
    explicit FitsMemoryFile(std::string what);
    ~FitsMemoryFile();
    FitsMemoryFile(const FitsMemoryFile&) = delete;
    FitsMemoryFile& operator=(const FitsMemoryFile&) = delete;

    fitsfile* get() const { return file_; }
    // Throws OutputError naming the step unless status is 0 (CFITSIO's error stack is cleared).
    void check(int status, const char* step) const;
    // The whole file's bytes, padded to whole 2880-byte blocks; closes the file. The current HDU must be the
    // last one (CFITSIO's logical end of the file is the end of the current HDU).
    std::string bytes();

private:
    std::string what_;
    void* data_ = nullptr;
    std::size_t size_ = 0;
    fitsfile* file_ = nullptr;
};

} // namespace glint
