#include "util/AtomicFile.h"

#include "util/Errors.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace glint {

namespace {

std::string describeErrno(int err) {
    if (err == EFBIG || err == ENOSPC) return "the disk is full or the file size limit was reached";
    return std::strerror(err);
}

// Writes all of data to fd; returns 0 or the errno of the failure.
int writeAll(int fd, const char* data, std::size_t size) {
    while (size > 0) {
        const ssize_t n = ::write(fd, data, size);
        if (n < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        data += n;
        size -= static_cast<std::size_t>(n);
    }
    return 0;
}

// SIGXFSZ would kill the process when RLIMIT_FSIZE is exceeded; we want EFBIG and a message instead.
void ignoreFileSizeSignal() {
    static const bool done = [] {
        std::signal(SIGXFSZ, SIG_IGN);
        return true;
    }();
    (void)done;
}

} // namespace

void writeFileAtomically(const std::string& path, const std::string& bytes) {
    ignoreFileSizeSignal();
    namespace fs = std::filesystem;
    const fs::path target(path);
    fs::path dir = target.parent_path();
    if (dir.empty()) dir = ".";
    // A hidden name beside the target, so that the rename stays on one file system.
    std::string tmpName(1, '.');
    tmpName.append(target.filename().string()).append(".tmp-XXXXXX");
    std::string tmpl = (dir / tmpName).string();
    const int fd = ::mkstemp(tmpl.data());
    if (fd < 0) throw OutputError("cannot write '" + path + "': " + describeErrno(errno));
    int err = writeAll(fd, bytes.data(), bytes.size());
    if (err == 0 && ::fsync(fd) != 0) err = errno;
    // mkstemp creates 0600; exports are ordinary files the user shares, so give them the umask's mode.
    if (err == 0) {
        const mode_t mask = ::umask(0);
        ::umask(mask);
        ::fchmod(fd, 0666 & ~mask);
    }
    if (::close(fd) != 0 && err == 0) err = errno;
    if (err == 0 && std::rename(tmpl.c_str(), path.c_str()) != 0) err = errno;
    if (err != 0) {
        ::unlink(tmpl.c_str());
        throw OutputError("cannot write '" + path + "': " + describeErrno(err));
    }
}

void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& writer) {
    std::ostringstream out;
    writer(out);
    if (!out) throw OutputError("cannot write '" + path + "': formatting the contents failed");
    writeFileAtomically(path, out.str());
}

} // namespace glint
