#include "core/util/InputFile.h"

#include "core/util/Errors.h"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace glint {

std::string systemReason(int error) {
    std::string text = std::strerror(error);
    if (!text.empty() && std::isupper(static_cast<unsigned char>(text[0])) &&
        !(text.size() > 1 && std::isupper(static_cast<unsigned char>(text[1]))))
        text[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
    return text;
}

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& reason) {
    throw InputError("cannot open '" + path + "': " + reason);
}

const char* kindOf(mode_t mode) {
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISSOCK(mode)) return "a socket";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    return "of an unknown kind";
}

} // namespace

InputFile::InputFile(const std::string& path) : path_(path) {
    if (path.empty()) fail(path, "no file name");
    // O_NONBLOCK: opening a FIFO with no writer returns at once instead of waiting forever; reads of
    // regular files are not affected by it.
    do {
        fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    } while (fd_ < 0 && errno == EINTR);
    if (fd_ < 0) {
        const int error = errno;
        struct stat st {};
        // A socket cannot be opened (ENXIO): say what it is rather than "no such device or address".
        if (error == ENXIO && ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
            fail(path, std::string("not a regular file (") + kindOf(st.st_mode) + ")");
        fail(path, systemReason(error));
    }
    struct stat st {};
    if (::fstat(fd_, &st) != 0) {
        const int error = errno;
        ::close(fd_);
        fd_ = -1;
        fail(path, systemReason(error));
    }
    if (!S_ISREG(st.st_mode)) {
        ::close(fd_);
        fd_ = -1;
        if (S_ISDIR(st.st_mode)) fail(path, "it is a folder");
        fail(path, std::string("not a regular file (") + kindOf(st.st_mode) + ")");
    }
    size_ = static_cast<std::uint64_t>(st.st_size);
}

InputFile::~InputFile() {
    if (fd_ >= 0) ::close(fd_);
}

std::string InputFile::read(std::size_t n, std::uint64_t offset) const {
    std::string bytes(n, '\0');
    std::size_t got = 0;
    while (got < n) {
        const ssize_t r = ::pread(fd_, bytes.data() + got, n - got, static_cast<off_t>(offset + got));
        if (r < 0) {
            if (errno == EINTR) continue;
            throw InputError("cannot read '" + path_ + "': " + systemReason(errno));
        }
        if (r == 0) break;
        got += static_cast<std::size_t>(r);
    }
    bytes.resize(got);
    return bytes;
}

std::uint64_t checkInputFile(const std::string& path) { return InputFile(path).size(); }

} // namespace glint
