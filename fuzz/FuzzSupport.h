// Shared by the fuzz targets: the loaders take paths, so each input is written to one temporary file per
// process (in /dev/shm when there is one, else $TMPDIR or /tmp) and the loader is called on it. The
// expected failures, InputError and UsageError, are swallowed; anything else (another exception, a crash,
// an abort that escapes AbortGuard, a sanitizer report, a hang, an allocation beyond -rss_limit_mb) is a
// finding that libFuzzer reports.
#pragma once

#include "core/io/ImageLoader.h"
#include "core/util/Errors.h"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

extern "C" void __sanitizer_set_report_fd(void* fd);

namespace glint::fuzz {

inline std::string& inputPath() {
    static std::string path;
    return path;
}

inline void removeInput() {
    if (!inputPath().empty()) ::unlink(inputPath().c_str());
}

// Called once from LLVMFuzzerInitialize.
inline void setUp(const char* target) {
    // The loaders point stderr at /dev/null while a third-party decoder runs (StderrSilencer): sanitizer
    // reports go to a copy of the original stderr instead, so that a crash inside a loader is still
    // explained. (scripts/fuzz also passes -close_fd_mask=2, which does the same for libFuzzer's own lines.)
    const int reportFd = ::dup(2);
    if (reportFd >= 0) __sanitizer_set_report_fd(reinterpret_cast<void*>(static_cast<std::intptr_t>(reportFd)));

    std::string dir = "/dev/shm";
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || ::access(dir.c_str(), W_OK) != 0) {
        const char* tmp = std::getenv("TMPDIR");
        dir = tmp && *tmp ? tmp : "/tmp";
    }
    inputPath() = dir + "/glint-fuzz-" + target + "-" + std::to_string(::getpid());
    std::atexit(removeInput);
}

// Writes the input to the per-process file (truncating it); aborts when that fails, since a silent
// failure would make every run test nothing.
inline const std::string& writeInput(const std::uint8_t* data, std::size_t size) {
    const std::string& path = inputPath();
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        std::perror(path.c_str());
        std::abort();
    }
    std::size_t done = 0;
    while (done < size) {
        const ssize_t n = ::write(fd, data + done, size - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            std::perror(path.c_str());
            std::abort();
        }
        done += static_cast<std::size_t>(n);
    }
    ::close(fd);
    return path;
}

// Runs one loader call; the expected errors end it quietly. The input file is removed afterwards, so
// that a process that libFuzzer ends later (fork mode kills its workers) leaves nothing behind, or only
// the input it crashed on.
template <class F>
void runLoader(F&& load) {
    try {
        load();
    } catch (const InputError&) {
    } catch (const UsageError&) {
    }
    removeInput();
}

} // namespace glint::fuzz

// The two libFuzzer entry points of a loader target: NAME names its temporary folder, LOAD is a callable
// taking the input's path (the call whose expected errors runLoader ends quietly).
#define GLINT_FUZZ_LOADER(NAME, LOAD)                                                                        \
    extern "C" int LLVMFuzzerInitialize(int*, char***) {                                                    \
        glint::fuzz::setUp(NAME);                                                                           \
        return 0;                                                                                           \
    }                                                                                                       \
    extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {                     \
        const std::string& path = glint::fuzz::writeInput(data, size);                                      \
        glint::fuzz::runLoader([&] { (LOAD)(path); });                                                      \
        return 0;                                                                                           \
    }
