#include "core/util/StderrSilencer.h"

#include <cerrno>
#include <cstdio>
#include <fcntl.h>
#include <iostream>
#include <mutex>
#include <unistd.h>

namespace glint {

namespace {
struct Silence {
    std::mutex mutex;
    int depth = 0;  // silencers alive, on all threads
    int saved = -1; // the real stderr while depth > 0
};
Silence& silence() {
    static Silence s;
    return s;
}
} // namespace

StderrSilencer::StderrSilencer() {
    Silence& s = silence();
    std::lock_guard lock(s.mutex);
    if (s.depth++ > 0) return; // already silenced (this thread or another)
    std::cerr.flush();
    std::fflush(stderr);
    s.saved = ::dup(STDERR_FILENO);
    const int devnull = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (s.saved >= 0 && devnull >= 0) ::dup2(devnull, STDERR_FILENO);
    if (devnull >= 0) ::close(devnull);
}

StderrSilencer::~StderrSilencer() {
    Silence& s = silence();
    std::lock_guard lock(s.mutex);
    if (--s.depth > 0 || s.saved < 0) return;
    std::fflush(stderr);
    ::dup2(s.saved, STDERR_FILENO);
    ::close(s.saved);
    s.saved = -1;
}

void writeStderr(const std::string& text) {
    Silence& s = silence();
    std::lock_guard lock(s.mutex);
    std::cerr.flush();
    const int fd = s.depth > 0 && s.saved >= 0 ? s.saved : STDERR_FILENO;
    std::size_t off = 0;
    while (off < text.size()) {
        const ssize_t n = ::write(fd, text.data() + off, text.size() - off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return; // a closed stderr: nothing to tell anyone
        off += static_cast<std::size_t>(n);
    }
}

} // namespace glint
