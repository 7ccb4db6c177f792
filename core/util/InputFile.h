// Opening an input file safely before any library sees it: a FIFO without a writer, a device or a
// socket named as an image would block or never end inside a decoder, so only regular files pass.
#pragma once

#include <cstdint>
#include <string>

namespace glint {

// Opens the file without blocking (O_NONBLOCK), checks with fstat() that it is a regular file and
// closes it again. Returns its size. Throws InputError "cannot open 'PATH': REASON" with the
// system's reason ("no such file or directory", "too many levels of symbolic links", "permission
// denied") or "it is a folder" / "not a regular file (a FIFO)" and the like.
std::uint64_t checkInputFile(const std::string& path);

// An input file opened as checkInputFile() does, kept open to read its first bytes.
class InputFile {
public:
    explicit InputFile(const std::string& path);
    ~InputFile();
    InputFile(const InputFile&) = delete;
    InputFile& operator=(const InputFile&) = delete;

    std::uint64_t size() const { return size_; }
    // Up to n bytes from the given offset (fewer at the end of the file). Throws InputError on a read error.
    std::string read(std::size_t n, std::uint64_t offset = 0) const;

private:
    std::string path_;
    int fd_ = -1;
    std::uint64_t size_ = 0;
};

// strerror(error) with a lower-case first letter, to follow "cannot open 'x': ".
std::string systemReason(int error);

} // namespace glint
