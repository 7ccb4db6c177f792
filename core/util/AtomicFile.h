// Every file Glint writes goes through here: the bytes go to a temporary file beside the target, are
// flushed to disk, and only then renamed over it. A crash or a full disk never leaves a truncated file.
//
// Targets that are not regular files are written in place instead, never replaced: a device
// (/dev/null), a FIFO, a socket, and the descriptor names /dev/stdout, /dev/stderr, /dev/fd/N and
// /proc/self/fd/N (which write to that descriptor). A FIFO is opened without blocking, so one that no
// process reads fails at once ("no process is reading ..."). A symbolic link to a regular file keeps
// the link: the file it names is replaced.
//
// An OutputTransaction makes the outputs of one run all-or-nothing: while one is open on a thread,
// writeFileAtomically() and writeStandardOutput() on that thread only stage their bytes (regular
// targets: a complete temporary beside each target; others: opened now, written at commit), and
// commit() publishes them all. If a run fails before commit(), the transaction's destructor removes
// every temporary and every older file stays as it was.
#pragma once

#include <functional>
#include <iosfwd>
#include <memory>
#include <string>

namespace glint {

// writer fills the stream; any failure (exception, stream error, short write, rename) removes the
// temporary file and throws OutputError naming the target.
void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& writer);
void writeFileAtomically(const std::string& path, const std::string& bytes);

// Writes bytes to standard output (after flushing std::cout) and checks every write; throws
// OutputError "cannot write to standard output: REASON". Inside a transaction: at its commit.
void writeStandardOutput(const std::string& bytes);

class OutputTransaction {
public:
    OutputTransaction();  // becomes the thread's open transaction (they nest: the inner one is used)
    ~OutputTransaction(); // without commit(): removes every temporary, writes nothing
    OutputTransaction(const OutputTransaction&) = delete;
    OutputTransaction& operator=(const OutputTransaction&) = delete;

    // Writes the in-place targets and standard output (in the order staged), then renames every
    // temporary over its target. Throws OutputError; a failure before the renames publishes no file.
    void commit();

    struct Staged;

private:
    std::unique_ptr<Staged> staged_;
    Staged* outerStaged_ = nullptr;
};

} // namespace glint
