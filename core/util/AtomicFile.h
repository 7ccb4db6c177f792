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
//
// Every temporary is registered with core/util/SignalCleanup before it is created, so that SIGTERM, SIGINT
// or SIGHUP (once installSignalCleanup() ran) removes it too; the target it would replace stays whole.
//
// Outputs that collide are refused before anything is written: checkOutputTargets() below, which every
// command calls once its options are parsed, and the same check on each file staged in a transaction.
#pragma once

#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

namespace glint {

// writer fills the stream; any failure (exception, stream error, short write, rename) removes the
// temporary file and throws OutputError naming the target.
void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& writer);
void writeFileAtomically(const std::string& path, const std::string& bytes);

// Writes bytes to standard output (after flushing std::cout) and checks every write; throws
// OutputError "cannot write to standard output: REASON". Inside a transaction: at its commit.
void writeStandardOutput(const std::string& bytes);

// A file a command names: the option that names it (for messages; empty for a positional) and its path.
struct NamedFile {
    std::string option;
    std::string path;
};

// The check every command makes once its options are parsed, before any work or write. UsageError (exit 2,
// one line) when
//  - two outputs name the same file: the same path once ".", ".." and symbolic links are resolved, or the
//    same device and inode (hard links);
//  - an output names one of the inputs (it would be overwritten, or read while it is written);
//  - two outputs write to standard output: "-", /dev/stdout, /dev/fd/1, /proc/self/fd/1 or any name of the
//    file, pipe or terminal that standard output is (so that `--json -` stays one JSON document).
// Null devices (/dev/null, or a node of that device) take any number of outputs. An input that is a folder
// is not compared (batch reads the files in it and skips its own output), nor is "-" as an input.
// Inside an open OutputTransaction the inputs are remembered: a file staged later that names one of them,
// or that names a file already staged in the transaction, fails the same way, before anything is written.
void checkOutputTargets(const std::vector<NamedFile>& inputs, const std::vector<NamedFile>& outputs);
// The same with the inputs as positionals and options (an empty path is no input: an option not given).
void checkOutputTargets(const std::vector<std::string>& positionals, const std::vector<NamedFile>& optionInputs,
                        const std::vector<NamedFile>& outputs);

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
