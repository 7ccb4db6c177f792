#include "core/export/FitsMemoryFile.h"

#include "core/util/Errors.h"

#include <cstdlib>

namespace glint {

FitsMemoryFile::FitsMemoryFile(std::string what) : what_(std::move(what)) {
    // CFITSIO grows the buffer with realloc; it stays ours after the close. The first block must be zeroed:
    // fits_create_memfile takes its whole size as the file's physical size and reads it when it adds an HDU,
    // so a block from malloc holding an earlier file's bytes (a freed catalogue's header) corrupts this one.
    size_ = 2880 * 4;
    data_ = std::calloc(size_, 1);
    if (!data_) throw OutputError("cannot write " + what_ + ": out of memory");
    int status = 0;
    fits_create_memfile(&file_, &data_, &size_, 2880 * 8, &std::realloc, &status);
    if (status) {
        file_ = nullptr;
        std::free(data_);
        data_ = nullptr;
        check(status, "create");
    }
}

FitsMemoryFile::~FitsMemoryFile() {
    int status = 0;
    if (file_) fits_close_file(file_, &status);
    std::free(data_);
}

void FitsMemoryFile::check(int status, const char* step) const {
    if (status == 0) return;
    char text[FLEN_STATUS] = {};
    fits_get_errstatus(status, text);
    fits_clear_errmsg();
    throw OutputError("cannot write " + what_ + " (" + step + "): " + text);
}

std::string FitsMemoryFile::bytes() {
    int status = 0;
    fits_flush_file(file_, &status);
    LONGLONG start = 0, data = 0, end = 0;
    fits_get_hduaddrll(file_, &start, &data, &end, &status);
    check(status, "size");
    fitsfile* f = file_;
    file_ = nullptr;
    fits_close_file(f, &status);
    check(status, "close");
    const std::size_t size = (static_cast<std::size_t>(end) + 2879) / 2880 * 2880;
    if (size > size_) throw OutputError("cannot write " + what_ + ": its size is inconsistent");
    return std::string(static_cast<const char*>(data_), size);
}

} // namespace glint
