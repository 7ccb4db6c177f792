// The pieces of glint-cli batch that make a run resumable and its shards mergeable: a fast content hash
// of a file, the run's description lines at the head of its CSV, and the progress journal.
//
// A batch CSV begins with two comment lines, then the header:
//   # glint-cli batch --algo brightest; parameters: {...}      (the parameters asked for)
//   # batch: {"shard":"2/3","files":120,"list":"<hash>","load":{...},...}
// The second line says which part of which file list this CSV holds; `merge` checks that parts agree on
// everything but "shard" and writes "1/1", so merged shards equal the unsharded run byte for byte.
//
// The journal (".RESULTS.csv.journal" beside the output) holds one line per finished file, appended and
// flushed as each file ends: "<length> <hash> <json>\n". A line whose length or hash does not match (a
// write cut short by kill -9 or a full disk) ends the journal there and is never trusted.
#pragma once

#include "core/export/JsonOutput.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace glint::cli {

// XXH64 (seed 0) of a byte range, and of a whole file read in chunks (InputError naming the file when it
// cannot be opened or read; only regular files are read).
std::uint64_t xxh64(const void* data, std::size_t size);
std::uint64_t fileContentHash(const std::string& path);
std::string hashHex(std::uint64_t hash); // 16 lower-case hex digits

// The file list's identity: XXH64 over the sorted paths, each followed by a NUL.
std::string fileListHash(const std::vector<std::string>& files);

// The first two lines of a batch CSV (without line breaks) and its header.
struct BatchHead {
    std::string parameters;   // "# glint-cli batch --algo ...; parameters: {...}"
    Json run;                 // the "# batch: " line's object
    std::vector<std::string> header;

    std::string text() const; // the two lines and the header line, each ending in '\n'
    // What a resumed run must share with the one it resumes: everything but the shard and the file list.
    std::string resumeKey() const;
    // What the parts of one run share: everything but the shard.
    std::string mergeKey() const;
};

struct ParsedBatchCsv {
    BatchHead head;
    std::vector<std::vector<std::string>> rows;
};
// Reads a batch CSV written by this version (InputError naming `path` otherwise).
ParsedBatchCsv readBatchCsv(const std::string& path);

// One finished file in the journal: done with its rows (fields after "path", without "content_hash"), or
// failed with a reason. hash is empty when the file could not be read at all.
struct JournalRecord {
    std::string path;
    std::string hash;
    bool failed = false;
    std::string reason;
    std::vector<std::vector<std::string>> rows;
};

class BatchJournal {
public:
    // The journal's name beside the output.
    static std::string pathFor(const std::string& outPath);

    // Opens (creating) the journal. resume: keeps the valid records of an earlier journal of the same
    // resumeKey (UsageError when it was begun with other parameters), cutting any torn tail; otherwise
    // starts it empty. Throws OutputError naming outPath when it cannot be written, or when another run holds
    // the journal (an exclusive flock for the life of this object).
    BatchJournal(const std::string& outPath, const std::string& resumeKey, bool resume);
    ~BatchJournal();
    BatchJournal(const BatchJournal&) = delete;
    BatchJournal& operator=(const BatchJournal&) = delete;

    const std::vector<JournalRecord>& earlier() const { return earlier_; }

    // Appends one record in a single write; flushed to disk at least once a second and by finish().
    // A failed write is cut off again and throws OutputError naming the output.
    void append(const JournalRecord& record);
    void sync();
    // Removes the journal (after the results are published, or when it holds nothing worth keeping).
    void remove();
    // Whether any record (earlier or new) is in it.
    bool holdsRecords() const { return records_ > 0; }

private:
    [[noreturn]] void fail(int error);
    std::string outPath_, path_;
    int fd_ = -1;
    std::uint64_t length_ = 0; // bytes of whole, valid lines
    std::size_t records_ = 0;
    double lastSync_ = 0;
    std::vector<JournalRecord> earlier_;
};

} // namespace glint::cli
