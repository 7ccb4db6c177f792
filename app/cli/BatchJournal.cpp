#include "app/cli/BatchJournal.h"

#include "core/export/CsvTable.h"
#include "core/util/Errors.h"
#include "core/util/InputFile.h"

#include <cerrno>
#include <csignal>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace glint::cli {

namespace fs = std::filesystem;

namespace {

constexpr std::uint64_t P1 = 0x9E3779B185EBCA87ULL, P2 = 0xC2B2AE3D27D4EB4FULL, P3 = 0x165667B19E3779F9ULL,
                        P4 = 0x85EBCA77C2B2AE63ULL, P5 = 0x27D4EB2F165667C5ULL;

std::uint64_t rotl(std::uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
std::uint64_t read64(const unsigned char* p) {
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    return v; // little-endian hosts (x86-64, aarch64)
}
std::uint32_t read32(const unsigned char* p) {
    std::uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}
std::uint64_t round64(std::uint64_t acc, std::uint64_t input) {
    acc += input * P2;
    acc = rotl(acc, 31);
    return acc * P1;
}
std::uint64_t mergeRound(std::uint64_t acc, std::uint64_t v) {
    acc ^= round64(0, v);
    return acc * P1 + P4;
}

// Streaming XXH64: whole 32-byte stripes as they come, the rest at the end.
class Xxh64 {
public:
    void update(const unsigned char* p, std::size_t n) {
        total_ += n;
        if (bufferSize_ > 0) {
            const std::size_t take = std::min(n, std::size_t(32) - bufferSize_);
            std::memcpy(buffer_ + bufferSize_, p, take);
            bufferSize_ += take;
            p += take;
            n -= take;
            if (bufferSize_ < 32) return;
            stripe(buffer_);
            bufferSize_ = 0;
        }
        for (; n >= 32; p += 32, n -= 32) stripe(p);
        std::memcpy(buffer_, p, n);
        bufferSize_ = n;
    }
    std::uint64_t digest() const {
        std::uint64_t h;
        if (total_ >= 32) {
            h = rotl(v_[0], 1) + rotl(v_[1], 7) + rotl(v_[2], 12) + rotl(v_[3], 18);
            for (std::uint64_t v : v_) h = mergeRound(h, v);
        } else {
            h = P5;
        }
        h += total_;
        const unsigned char* p = buffer_;
        std::size_t n = bufferSize_;
        for (; n >= 8; p += 8, n -= 8) {
            h ^= round64(0, read64(p));
            h = rotl(h, 27) * P1 + P4;
        }
        if (n >= 4) {
            h ^= static_cast<std::uint64_t>(read32(p)) * P1;
            h = rotl(h, 23) * P2 + P3;
            p += 4;
            n -= 4;
        }
        for (; n > 0; ++p, --n) {
            h ^= (*p) * P5;
            h = rotl(h, 11) * P1;
        }
        h ^= h >> 33;
        h *= P2;
        h ^= h >> 29;
        h *= P3;
        h ^= h >> 32;
        return h;
    }

private:
    void stripe(const unsigned char* p) {
        for (int i = 0; i < 4; ++i) v_[i] = round64(v_[i], read64(p + 8 * i));
    }
    std::uint64_t v_[4] = {P1 + P2, P2, 0, 0ULL - P1};
    unsigned char buffer_[32] = {};
    std::size_t bufferSize_ = 0;
    std::uint64_t total_ = 0;
};

double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string writeReason(int error) {
    if (error == EFBIG || error == ENOSPC) return "the disk is full or the file size limit was reached";
    return systemReason(error);
}

// Writes all of bytes at offset; 0 or the errno of the failure.
int writeAllAt(int fd, const std::string& bytes, std::uint64_t offset) {
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::pwrite(fd, bytes.data() + done, bytes.size() - done, static_cast<off_t>(offset + done));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return errno;
        if (n == 0) return EIO;
        done += static_cast<std::size_t>(n);
    }
    return 0;
}

// "<length> <hash> <payload>\n" for a payload without line breaks.
std::string journalLine(const std::string& payload) {
    return std::to_string(payload.size()) + " " + hashHex(xxh64(payload.data(), payload.size())) + " " + payload + "\n";
}

// The payload of the line at text[pos...], advancing pos past it; nullopt for a torn or damaged line.
std::optional<std::string> nextPayload(const std::string& text, std::size_t& pos) {
    const std::size_t space = text.find(' ', pos);
    if (space == std::string::npos || space == pos || space - pos > 12) return std::nullopt;
    std::size_t length = 0;
    for (std::size_t i = pos; i < space; ++i) {
        if (text[i] < '0' || text[i] > '9') return std::nullopt;
        length = length * 10 + static_cast<std::size_t>(text[i] - '0');
    }
    const std::size_t start = space + 18; // 16 hex digits and a space
    if (start > text.size() || text[space + 17] != ' ' || text.size() - start < length + 1) return std::nullopt;
    if (text[start + length] != '\n') return std::nullopt;
    std::string payload = text.substr(start, length);
    if (hashHex(xxh64(payload.data(), payload.size())) != text.substr(space + 1, 16)) return std::nullopt;
    pos = start + length + 1;
    return payload;
}

Json recordJson(const JournalRecord& r) {
    Json j = Json::object();
    j["path"] = r.path;
    j["hash"] = r.hash;
    if (r.failed) j["failed"] = r.reason;
    else j["rows"] = r.rows;
    return j;
}

JournalRecord recordFrom(const Json& j) {
    JournalRecord r;
    r.path = j.at("path").get<std::string>();
    r.hash = j.at("hash").get<std::string>();
    if (j.contains("failed")) {
        r.failed = true;
        r.reason = j["failed"].get<std::string>();
    } else {
        r.rows = j.at("rows").get<std::vector<std::vector<std::string>>>();
    }
    return r;
}

} // namespace

std::uint64_t xxh64(const void* data, std::size_t size) {
    Xxh64 h;
    h.update(static_cast<const unsigned char*>(data), size);
    return h.digest();
}

std::uint64_t fileContentHash(const std::string& path) {
    checkInputFile(path); // a FIFO or a device is refused before anything reads it
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) throw InputError("cannot open '" + path + "': " + systemReason(errno));
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        throw InputError("cannot open '" + path + "': not a regular file");
    }
    Xxh64 h;
    std::vector<unsigned char> buffer(1 << 20);
    for (;;) {
        const ssize_t n = ::read(fd, buffer.data(), buffer.size());
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            const int error = errno;
            ::close(fd);
            throw InputError("cannot read '" + path + "': " + systemReason(error));
        }
        if (n == 0) break;
        h.update(buffer.data(), static_cast<std::size_t>(n));
    }
    ::close(fd);
    return h.digest();
}

std::string hashHex(std::uint64_t hash) {
    static const char digits[] = "0123456789abcdef";
    std::string s(16, '0');
    for (int i = 15; i >= 0; --i, hash >>= 4) s[static_cast<std::size_t>(i)] = digits[hash & 15];
    return s;
}

std::string fileListHash(const std::vector<std::string>& files) {
    Xxh64 h;
    for (const std::string& f : files) h.update(reinterpret_cast<const unsigned char*>(f.c_str()), f.size() + 1);
    return hashHex(h.digest());
}

std::string BatchHead::text() const {
    return parameters + "\n# batch: " + run.dump() + "\n" + csvLine(header);
}

std::string BatchHead::resumeKey() const {
    Json j = run;
    j.erase("shard");
    j.erase("files");
    j.erase("list");
    return parameters + "\n" + j.dump() + "\n" + csvLine(header);
}

std::string BatchHead::mergeKey() const {
    Json j = run;
    j.erase("shard");
    return parameters + "\n" + j.dump() + "\n" + csvLine(header);
}

ParsedBatchCsv readBatchCsv(const std::string& path) {
    checkInputFile(path);
    std::string text;
    {
        InputFile in(path);
        text = in.read(static_cast<std::size_t>(in.size()));
    }
    auto notOurs = [&](const std::string& why) {
        return InputError("'" + path + "' is not a CSV of glint-cli batch (" + why + ")");
    };
    ParsedBatchCsv csv;
    const std::size_t first = text.find('\n');
    if (text.rfind("# glint-cli batch --algo ", 0) != 0 || first == std::string::npos)
        throw notOurs("no '# glint-cli batch' first line");
    csv.head.parameters = text.substr(0, first);
    const std::size_t second = text.find('\n', first + 1);
    const std::string runLine = text.substr(first + 1, second == std::string::npos ? std::string::npos : second - first - 1);
    if (runLine.rfind("# batch: ", 0) != 0 || second == std::string::npos)
        throw notOurs("no '# batch:' second line; it was written by an older glint-cli");
    try {
        csv.head.run = Json::parse(runLine.substr(9));
    } catch (const std::exception&) {
        throw notOurs("its '# batch:' line is damaged");
    }
    if (!csv.head.run.is_object() || !csv.head.run.contains("shard") || !csv.head.run["shard"].is_string())
        throw notOurs("its '# batch:' line is damaged");
    auto rows = parseCsv(text.substr(second + 1));
    if (rows.empty() || rows[0].empty() || rows[0][0] != "path" || rows[0].back() != "content_hash")
        throw notOurs("no 'path,...,content_hash' header");
    csv.head.header = rows[0];
    for (std::size_t i = 1; i < rows.size(); ++i) {
        if (rows[i].size() != csv.head.header.size())
            throw notOurs("row " + std::to_string(i) + " has " + std::to_string(rows[i].size()) + " fields, not " +
                          std::to_string(csv.head.header.size()));
        csv.rows.push_back(std::move(rows[i]));
    }
    return csv;
}

std::string BatchJournal::pathFor(const std::string& outPath) {
    const fs::path p(outPath);
    std::string name(1, '.'); // built in steps: GCC 12's -Wrestrict misreads "." + string at -O3
    name.append(p.filename().string()).append(".journal");
    return (p.parent_path() / name).string();
}

BatchJournal::BatchJournal(const std::string& outPath, const std::string& resumeKey, bool resume)
    : outPath_(outPath), path_(pathFor(outPath)) {
    std::signal(SIGXFSZ, SIG_IGN); // a file size limit gives EFBIG and a message, not a killed process
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) fail(errno);
    // One run per output: a second one (a job resubmitted while the first still runs) would interleave
    // its records with the first's. The lock goes with the process, however it ends.
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
        const int error = errno;
        ::close(fd_);
        fd_ = -1;
        if (error == EWOULDBLOCK)
            throw OutputError("cannot write '" + outPath_ + "': another glint-cli batch is writing it (its journal '" +
                              path_ + "' is locked)");
        fail(error);
    }
    std::string text;
    if (resume) {
        struct stat st {};
        if (::fstat(fd_, &st) != 0) fail(errno);
        text.resize(static_cast<std::size_t>(st.st_size));
        std::size_t got = 0;
        while (got < text.size()) {
            const ssize_t n = ::pread(fd_, text.data() + got, text.size() - got, static_cast<off_t>(got));
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break;
            got += static_cast<std::size_t>(n);
        }
        text.resize(got);
    }
    std::size_t pos = 0;
    bool keyed = false;
    if (!text.empty()) {
        const auto first = nextPayload(text, pos);
        if (first) {
            Json head;
            try {
                head = Json::parse(*first);
            } catch (const std::exception&) {
            }
            if (!head.is_object() || head.value("key", std::string()) != resumeKey)
                throw UsageError("--resume: '" + outPath_ + "' was begun with other parameters (its journal '" + path_ +
                                 "'); run without --resume to start again");
            keyed = true;
            while (pos < text.size()) {
                const std::size_t before = pos;
                const auto payload = nextPayload(text, pos);
                if (!payload) break;
                try {
                    earlier_.push_back(recordFrom(Json::parse(*payload)));
                } catch (const std::exception&) {
                    pos = before; // valid checksum, foreign content: stop trusting here
                    break;
                }
            }
        }
    }
    if (!keyed) pos = 0;
    length_ = pos;
    records_ = earlier_.size();
    if (::ftruncate(fd_, static_cast<off_t>(length_)) != 0) fail(errno); // a torn tail goes
    if (!keyed) {
        Json head = Json::object();
        head["journal"] = 1;
        head["key"] = resumeKey;
        const std::string line = journalLine(head.dump());
        if (const int error = writeAllAt(fd_, line, 0)) {
            ::close(fd_);
            fd_ = -1;
            ::unlink(path_.c_str());
            fail(error);
        }
        length_ = line.size();
    }
    lastSync_ = now();
}

BatchJournal::~BatchJournal() {
    if (fd_ >= 0) ::close(fd_);
}

void BatchJournal::fail(int error) {
    throw OutputError("cannot write '" + outPath_ + "': its progress journal '" + path_ + "': " + writeReason(error));
}

void BatchJournal::append(const JournalRecord& record) {
    const std::string line = journalLine(recordJson(record).dump(-1, ' ', false, Json::error_handler_t::replace));
    if (const int error = writeAllAt(fd_, line, length_)) {
        // Cut the part written; a reader would refuse it anyway (its length and hash), but keep it clean.
        if (::ftruncate(fd_, static_cast<off_t>(length_)) != 0) { /* the checksum still guards it */ }
        if (records_ == 0) remove();
        fail(error);
    }
    length_ += line.size();
    ++records_;
    if (now() - lastSync_ >= 1.0) sync();
}

void BatchJournal::sync() {
    if (fd_ >= 0 && ::fdatasync(fd_) != 0) fail(errno);
    lastSync_ = now();
}

void BatchJournal::remove() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    ::unlink(path_.c_str());
}

} // namespace glint::cli
