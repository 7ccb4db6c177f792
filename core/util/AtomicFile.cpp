#include "core/util/AtomicFile.h"

#include "core/util/Errors.h"
#include "core/util/SignalCleanup.h"

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
#include <random>
#include <sstream>
#include <sys/stat.h>
#include <sys/sysmacros.h>
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

// What a named file is, for telling whether two names write (or read) the same file.
struct Identity {
    std::string label;     // "--overlay 'x.png'" or "the input 'x.fits'", for messages
    std::string resolved;  // absolute, "."/".." and symbolic links resolved; empty: standard output's name
    bool standardOutput = false; // "-", /dev/stdout, /dev/fd/1, /proc/self/fd/1
    bool exists = false;
    bool directory = false;
    bool null = false; // a null device: any number of outputs may name it
    dev_t dev = 0;
    ino_t ino = 0;
};

bool isNullDevice(const struct stat& st) {
    if (!S_ISCHR(st.st_mode)) return false;
    static const dev_t nullRdev = [] {
        struct stat n {};
        return ::stat("/dev/null", &n) == 0 && S_ISCHR(n.st_mode) ? n.st_rdev : makedev(1, 3);
    }();
    return st.st_rdev == nullRdev;
}

void setFileStatus(Identity& id, const struct stat& st) {
    id.exists = true;
    id.dev = st.st_dev;
    id.ino = st.st_ino;
    id.directory = S_ISDIR(st.st_mode);
    id.null = isNullDevice(st);
}

Identity identify(const std::string& option, const std::string& path, bool output) {
    namespace fs = std::filesystem;
    Identity id;
    id.label = option.empty()              ? (output ? "the output '" : "the input '") + path + "'"
               : option.starts_with("the ") ? option // "the bench's table": standard output, said so
                                            : option + " '" + path + "'";
    struct stat st {};
    if (path == "-" || descriptorName(path) == STDOUT_FILENO) {
        id.standardOutput = true;
        if (::fstat(STDOUT_FILENO, &st) == 0) setFileStatus(id, st);
        return id;
    }
    if (::stat(path.c_str(), &st) == 0) setFileStatus(id, st);
    std::error_code ec;
    fs::path absolute = fs::absolute(fs::path(path), ec);
    if (ec) absolute = fs::path(path);
    const fs::path resolved = fs::weakly_canonical(absolute, ec);
    id.resolved = (ec ? absolute.lexically_normal() : resolved).string();
    return id;
}

bool sameFile(const Identity& a, const Identity& b) {
    if (a.null || b.null) return false;
    if (a.standardOutput && b.standardOutput) return true;
    if (a.exists && b.exists && a.dev == b.dev && a.ino == b.ino) return true;
    return !a.resolved.empty() && a.resolved == b.resolved;
}

[[noreturn]] void collision(const Identity& output, const Identity& other, bool otherIsInput) {
    if (otherIsInput) throw UsageError(output.label + " names the input " + other.label.substr(other.label.find('\'')) +
                                       ", which would be overwritten: choose another output");
    if (output.standardOutput || other.standardOutput)
        throw UsageError(other.label + " and " + output.label +
                         " both write to standard output, which holds one document: send one of them to a file");
    throw UsageError(other.label + " and " + output.label + " name the same file: one would be lost");
}

struct Item {
    enum class Kind { Rename, InPlace, Stdout };
    Kind kind = Kind::Rename;
    std::string path;   // the target as the caller named it (for messages)
    std::string target; // Rename: the file to replace
    std::string temp;   // Rename: the complete temporary beside it
    int cleanupSlot = -1; // Rename: the temporary's registration for removal on a signal
    Identity identity;  // what the target is, for the collision check
    int fd = -1;        // InPlace: where to write
    bool ownsFd = false;
    std::string bytes;  // InPlace, Stdout: written at commit
    bool done = false;
};

thread_local OutputTransaction::Staged* tOpen = nullptr;

} // namespace

struct OutputTransaction::Staged {
    std::vector<Item> items;
    std::vector<Identity> inputs; // declared by checkOutputTargets(): no staged file may name one
    Staged* outer = nullptr;

    ~Staged() {
        for (Item& item : items) {
            if (item.ownsFd && item.fd >= 0) ::close(item.fd);
            if (item.kind == Item::Kind::Rename && !item.done && !item.temp.empty()) ::unlink(item.temp.c_str());
            unregisterTemporary(item.cleanupSlot);
        }
    }

    // UsageError when `target` names an input declared in this or an enclosing transaction, or a file
    // already staged in this one.
    void checkTarget(const Identity& target) const {
        for (const Staged* s = this; s; s = s->outer)
            for (const Identity& input : s->inputs)
                if (sameFile(target, input)) collision(target, input, true);
        for (const Item& item : items)
            if (sameFile(target, item.identity)) collision(target, item.identity, false);
    }

    void stageFile(const std::string& path, const std::string& bytes);
    void stageStdout(const std::string& bytes) {
        Item item;
        item.kind = Item::Kind::Stdout;
        item.path = "-";
        item.identity = identify("", "-", true);
        item.identity.label = "standard output";
        checkTarget(item.identity);
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
    item.identity = identify("", path, true);
    checkTarget(item.identity);
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
    tmpName.append(target.filename().string()).append(".tmp-");
    // The name is registered for removal on a signal before the file exists (SignalCleanup.h), so there
    // is no moment at which a temporary could be left behind; the process id in it keeps it apart from
    // every other process's.
    static thread_local std::mt19937_64 random{std::random_device{}() ^ static_cast<std::uint64_t>(::getpid())};
    static const char kLetters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    tmpName.append(std::to_string(::getpid())).append("-");
    int fd = -1;
    std::string tmpl;
    int slot = -1;
    for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
        std::string name = tmpName;
        for (int i = 0; i < 8; ++i) name.push_back(kLetters[random() % (sizeof kLetters - 1)]);
        tmpl = (dir / name).string();
        slot = registerTemporary(tmpl.c_str());
        fd = ::open(tmpl.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0600);
        if (fd < 0) {
            const int err = errno;
            unregisterTemporary(slot);
            slot = -1;
            if (err != EEXIST) fail(path, describeErrno(err));
        }
    }
    if (fd < 0) fail(path, "no free temporary name beside it");
    item.kind = Item::Kind::Rename;
    item.target = target.string();
    item.temp = tmpl;
    item.cleanupSlot = slot;
    items.push_back(item); // from here on the destructor removes the temporary
    int err = writeAll(fd, bytes.data(), bytes.size());
    if (err == 0 && ::fsync(fd) != 0) err = errno;
    // The temporary is created 0600; exports are ordinary files the user shares, so give them the umask's mode.
    if (err == 0) {
        const mode_t mask = ::umask(0);
        ::umask(mask);
        ::fchmod(fd, 0666 & ~mask);
    }
    if (::close(fd) != 0 && err == 0) err = errno;
    if (err != 0) fail(path, describeErrno(err));
}

OutputTransaction::OutputTransaction() : staged_(std::make_unique<Staged>()), outerStaged_(tOpen) {
    staged_->outer = outerStaged_;
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
        unregisterTemporary(item.cleanupSlot); // a signal now would find no file of that name: harmless
        item.cleanupSlot = -1;
    }
    staged_->items.clear();
}

void checkOutputTargets(const std::vector<NamedFile>& inputs, const std::vector<NamedFile>& outputs) {
    std::vector<Identity> in;
    for (const NamedFile& f : inputs) {
        if (f.path.empty() || f.path == "-") continue;
        Identity id = identify(f.option, f.path, false);
        if (id.directory || id.null || id.standardOutput) continue;
        in.push_back(std::move(id));
    }
    std::vector<Identity> out;
    for (const NamedFile& f : outputs) {
        Identity id = identify(f.option, f.path, true);
        for (const Identity& input : in)
            if (sameFile(id, input)) collision(id, input, true);
        for (const Identity& earlier : out)
            if (sameFile(id, earlier)) collision(id, earlier, false);
        out.push_back(std::move(id));
    }
    if (tOpen) tOpen->inputs.insert(tOpen->inputs.end(), in.begin(), in.end());
}

void checkOutputTargets(const std::vector<std::string>& positionals, const std::vector<NamedFile>& optionInputs,
                        const std::vector<NamedFile>& outputs) {
    std::vector<NamedFile> named;
    for (const std::string& path : positionals) named.push_back({"", path});
    named.insert(named.end(), optionInputs.begin(), optionInputs.end());
    checkOutputTargets(named, outputs);
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
