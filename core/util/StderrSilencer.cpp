#include "core/util/StderrSilencer.h"

#include <cstdio>
#include <fcntl.h>
#include <mutex>
#include <unistd.h>

namespace glint {

namespace {
std::mutex& silencerMutex() {
    static std::mutex m;
    return m;
}
int& silencerDepth() {
    static int depth = 0;
    return depth;
}
} // namespace

StderrSilencer::StderrSilencer() {
    std::lock_guard lock(silencerMutex());
    if (silencerDepth()++ > 0) return; // an outer silencer is already in place
    std::fflush(stderr);
    saved_ = ::dup(STDERR_FILENO);
    const int devnull = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (saved_ >= 0 && devnull >= 0) ::dup2(devnull, STDERR_FILENO);
    if (devnull >= 0) ::close(devnull);
}

StderrSilencer::~StderrSilencer() {
    std::lock_guard lock(silencerMutex());
    --silencerDepth();
    if (saved_ < 0) return;
    std::fflush(stderr);
    ::dup2(saved_, STDERR_FILENO);
    ::close(saved_);
}

} // namespace glint
