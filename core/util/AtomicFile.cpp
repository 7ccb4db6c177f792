#include "core/util/AtomicFile.h"

#include "core/util/Errors.h"

#include <cerrno>
#include <charconv>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace glint {

namespace {

std::string describeErrno(int err) {
    if (err == EFBIG || err == ENOSPC) return "the disk is full or the file size limit was reached";
    return std::strerror(err);
}

[[noreturn]] void fail(const std::string& path, const std::string& reason) {
    throw OutputError("cannot write '" + path + "': " + reason);
}

// Writes all of data to fd; returns 0 or the errno of the failure.
int writeAll(int fd, const char* data, std::size_t size) {
    while (size > 0) {
        const ssize_t n = ::write(fd, data, size);
        if (n < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        if (n == 0) return EIO;
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

// The descriptor a name such as /dev/stdout or /proc/self/fd/3 stands for, or -1.
int descriptorName(const std::string& path) {
    if (path == "/dev/stdout") return STDOUT_FILENO;
    if (path == "/dev/stderr") return STDERR_FILENO;
    for (const char* prefix : {"/dev/fd/", "/proc/self/fd/"}) {
        const std::size_t n = std::strlen(prefix);
        if (path.size() > n && path.compare(0, n, prefix) == 0) {
            int fd = -1;
            const char* first = path.data() + n;
            const char* last = path.data() + path.size();
            const auto [end, ec] = std::from_chars(first, last, fd);
            if (ec == std::errc() && end == last && fd >= 0) return fd;
        }
    }
    return -1;
}

struct Item {
    enum class Kind { Rename, InPlace, Stdout };
    Kind kind = Kind::Rename;
    std::string path;   // the target as the caller named it (for messages)
    std::string target; // Rename: the file to replace
    std::string temp;   // Rename: the complete temporary beside it
    int fd = -1;        // InPlace: where to write
    bool ownsFd = false;
    std::string bytes;  // InPlace, Stdout: written at commit
    bool done = false;
};

thread_local OutputTransaction::Staged* tOpen = nullptr;

} // namespace

struct OutputTransaction::Staged {
    std::vector<Item> items;

    ~Staged() {
        for (Item& item : items) {
            if (item.ownsFd && item.fd >= 0) ::close(item.fd);
            if (item.kind == Item::Kind::Rename && !item.done && !item.temp.empty()) ::unlink(item.temp.c_str());
        }
    }

    void stageFile(const std::string& path, const std::string& bytes);
    void stageStdout(const std::string& bytes) {
        Item item;
        item.kind = Item::Kind::Stdout;
        item.path = "-";
        item.bytes = bytes;
        items.push_back(std::move(item));
    }
};

void OutputTransaction::Staged::stageFile(const std::string& path, const std::string& bytes) {
    ignoreFileSizeSignal();
    namespace fs = std::filesystem;
    if (path.empty()) fail(path, "empty file name");
    Item item;
    item.path = path;
    if (const int fd = descriptorName(path); fd >= 0) {
        if (fd == STDOUT_FILENO) {
            item.kind = Item::Kind::Stdout; // checked like every write to standard output
        } else {
            const int flags = ::fcntl(fd, F_GETFL);
            if (flags < 0 || (flags & O_ACCMODE) == O_RDONLY) fail(path, std::strerror(EBADF));
            item.kind = Item::Kind::InPlace;
            item.fd = fd;
        }
        item.bytes = bytes;
        items.push_back(std::move(item));
        return;
    }
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
        // A device, FIFO or socket: write into it, never replace it with a file.
        if (S_ISDIR(st.st_mode)) fail(path, std::strerror(EISDIR));
        const int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        if (fd < 0) {
            const int err = errno;
            if (err == ENXIO && S_ISFIFO(st.st_mode)) fail(path, "no process is reading the FIFO");
            fail(path, describeErrno(err));
        }
        const int flags = ::fcntl(fd, F_GETFL);
        if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK); // a slow reader is waited for
        item.kind = Item::Kind::InPlace;
        item.fd = fd;
        item.ownsFd = true;
        item.bytes = bytes;
        items.push_back(std::move(item));
        return;
    }
    // A regular file or a new name. A symbolic link stays: the file it names is replaced.
    fs::path target(path);
    std::error_code ec;
    if (fs::is_symlink(target, ec)) {
        const fs::path resolved = fs::weakly_canonical(target, ec);
        if (!ec) target = resolved;
    }
    fs::path dir = target.parent_path();
    if (dir.empty()) dir = ".";
    // A hidden name beside the target, so that the rename stays on one file system.
    std::string tmpName(1, '.');
    tmpName.append(target.filename().string()).append(".tmp-XXXXXX");
    std::string tmpl = (dir / tmpName).string();
    const int fd = ::mkstemp(tmpl.data());
    if (fd < 0) fail(path, describeErrno(errno));
    item.kind = Item::Kind::Rename;
    item.target = target.string();
    item.temp = tmpl;
    items.push_back(item); // from here on the destructor removes the temporary
    int err = writeAll(fd, bytes.data(), bytes.size());
    if (err == 0 && ::fsync(fd) != 0) err = errno;
    // mkstemp creates 0600; exports are ordinary files the user shares, so give them the umask's mode.
    if (err == 0) {
        const mode_t mask = ::umask(0);
        ::umask(mask);
        ::fchmod(fd, 0666 & ~mask);
    }
    if (::close(fd) != 0 && err == 0) err = errno;
    if (err != 0) fail(path, describeErrno(err));
}

OutputTransaction::OutputTransaction() : staged_(std::make_unique<Staged>()), outerStaged_(tOpen) {
    tOpen = staged_.get();
}

OutputTransaction::~OutputTransaction() {
    if (tOpen == staged_.get()) tOpen = outerStaged_;
}

void OutputTransaction::commit() {
    if (tOpen == staged_.get()) tOpen = outerStaged_; // nothing more is staged into this one
    for (Item& item : staged_->items) {
        if (item.kind == Item::Kind::Rename) continue;
        if (item.kind == Item::Kind::Stdout) {
            std::cout.flush();
            if (const int err = writeAll(STDOUT_FILENO, item.bytes.data(), item.bytes.size()); err != 0)
                throw OutputError(std::string("cannot write to standard output: ") + std::strerror(err));
        } else if (const int err = writeAll(item.fd, item.bytes.data(), item.bytes.size()); err != 0) {
            fail(item.path, std::strerror(err)); // a device or pipe: its own reason, not "the disk is full"
        }
        item.done = true;
    }
    for (Item& item : staged_->items) {
        if (item.kind != Item::Kind::Rename) continue;
        if (std::rename(item.temp.c_str(), item.target.c_str()) != 0) fail(item.path, describeErrno(errno));
        item.done = true;
    }
    staged_->items.clear();
}

void writeFileAtomically(const std::string& path, const std::string& bytes) {
    if (tOpen) {
        tOpen->stageFile(path, bytes);
        return;
    }
    OutputTransaction one;
    tOpen->stageFile(path, bytes);
    one.commit();
}

void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& writer) {
    std::ostringstream out;
    writer(out);
    if (!out) throw OutputError("cannot write '" + path + "': formatting the contents failed");
    writeFileAtomically(path, out.str());
}

void writeStandardOutput(const std::string& bytes) {
    if (tOpen) {
        tOpen->stageStdout(bytes);
        return;
    }
    OutputTransaction one;
    tOpen->stageStdout(bytes);
    one.commit();
}

} // namespace glint
