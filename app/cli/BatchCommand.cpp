// glint-cli batch: one algorithm over many files (named, or directly inside named folders) into one CSV,
// with a progress line, bad files reported and skipped, --shard I/N for cluster job arrays, --resume
// through a progress journal (app/cli/BatchJournal.h), --failures and --files-from for reruns.
#include "core/algo/Algorithm.h"
#include "app/cli/BatchJournal.h"
#include "app/cli/BatchWorkers.h"
#include "app/cli/Commands.h"
#include "core/export/CsvTable.h"
#include "core/io/ImageLoader.h"
#include "core/io/ImageStats.h"
#include "core/io/Wcs.h"
#include "core/util/AtomicFile.h"
#include "core/util/Errors.h"
#include "core/util/InputFile.h"
#include "core/params/ParamsFile.h"
#include "core/util/Printable.h"
#include "core/util/ImageBudget.h"
#include "core/util/StderrSilencer.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <unistd.h>

namespace glint::cli {

namespace fs = std::filesystem;

namespace {

const std::set<std::string> kSharedOptions = {"--algo",  "--out",    "--shard",    "--hdu",      "--plane",
                                              "--frame", "--backend", "--params", "--failures", "--files-from",
                                              "--jobs",  "--devices"};

// One file's rows (a row per region, trace or component) or an exception for a bad file.
using FileRunner = std::function<void(const std::string& path, const Image& image, CsvTable& table)>;

struct BatchAlgorithm {
    std::vector<std::string> columns; // after "path"
    std::string comment;              // the CSV's first line
    FileRunner run;
};

int intOption(const ParsedArgs& a, const std::string& name, long long lo, long long hi, int fallback) {
    const auto v = a.value(name);
    if (!v) return fallback;
    return static_cast<int>(parseInteger(*v, name, lo, hi));
}

std::string num(double v) { return formatNumber(v); }

BatchAlgorithm infoAlgorithm() {
    BatchAlgorithm algo;
    algo.comment = "# glint-cli batch --algo info; parameters: {}";
    algo.columns = {"format", "width", "height", "bit_depth", "sample_type", "integer_valued", "min", "max", "mean",
                    "median", "blank_count", "hdu", "wcs", "ra_center", "dec_center"};
    algo.run = [](const std::string& path, const Image& image, CsvTable& table) {
        const ImageStats s = computeStats(image);
        std::optional<SkyCoord> centre;
        if (image.meta.wcs) centre = image.meta.wcs->pixelToSky((image.width() - 1) / 2.0, (image.height() - 1) / 2.0);
        table.addRow({path, image.meta.format, std::to_string(image.width()), std::to_string(image.height()),
                      std::to_string(image.meta.bitDepth), sampleTypeName(image.sampleType()),
                      image.meta.integerValued ? "1" : "0", num(s.min), num(s.max), num(s.mean), num(s.median),
                      std::to_string(image.blankCount()), image.meta.hdu >= 0 ? std::to_string(image.meta.hdu) : "",
                      image.meta.wcs ? "1" : "0", centre ? num(centre->ra) : "", centre ? num(centre->dec) : ""});
    };
    return algo;
}

// Any image algorithm through its descriptor: the parameters once, then each file's rows. The CSV's first line is
// a comment with the parameters asked for (the spec's defaults under the request: automatic values as asked); the
// last column, "parameters", holds each file's resolved values where they differ from those (a preset's values
// for the file's kind, --max-box auto's bound), as a JSON object.
BatchAlgorithm descriptorAlgorithm(const Algorithm& algorithm, const ParsedArgs& a, Backend backend,
                                   const LoadOptions& load) {
    const Json request = requestFromArgs(algorithm.spec(), a);
    std::shared_ptr<const AlgorithmTask> task = algorithm.prepare(request);
    AlgorithmInputs shared;
    if (algorithm.imageCount() == 2) {
        if (!a.has("--with"))
            throw UsageError(std::string("batch --algo ") + algorithm.name() +
                             " needs --with IMAGE_B (the image every file is compared with)");
        shared.secondPath = *a.value("--with");
        shared.second = std::make_shared<const Image>(loadImage(shared.secondPath, load)); // a bad B stops the run
    }
    BatchAlgorithm algo;
    algo.columns = algorithm.csvColumns();
    algo.columns.push_back("parameters");
    Json asked = algorithm.spec().defaults();
    for (const auto& [key, value] : request.items()) asked[key] = value;
    algo.comment = "# glint-cli batch --algo " + std::string(algorithm.name()) + "; parameters: " + asked.dump();
    algo.run = [task, shared, backend, asked](const std::string& path, const Image& image, CsvTable& table) {
        AlgorithmInputs inputs = shared;
        inputs.path = path;
        inputs.image = &image;
        JobControl job;
        const std::unique_ptr<AlgorithmOutcome> outcome = task->run(inputs, backend, job);
        Json resolved = Json::object();
        const Json parameters = outcome->parameters();
        for (const auto& [key, value] : parameters.items())
            if (!asked.contains(key) || asked[key] != value) resolved[key] = value;
        for (std::vector<std::string> row : outcome->csvRows()) {
            row.insert(row.begin(), path);
            row.resize(table.header().size() - 1);
            row.push_back(resolved.dump());
            table.addRow(std::move(row));
        }
    };
    return algo;
}

// "I/N" with 1 <= I <= N.
std::pair<long long, long long> parseShard(const std::string& text) {
    const auto slash = text.find('/');
    if (slash == std::string::npos) throw UsageError("option '--shard' takes I/N (e.g. 3/10), got '" + text + "'");
    const long long i = parseInteger(text.substr(0, slash), "--shard");
    const long long n = parseInteger(text.substr(slash + 1), "--shard");
    if (n < 1 || i < 1 || i > n) throw UsageError("option '--shard' needs 1 <= I <= N, got '" + text + "'");
    return {i, n};
}

struct InputList {
    std::vector<std::string> files;        // sorted, unique
    std::vector<std::string> folderFiles;  // those found inside folders: unknown formats skipped silently
    std::vector<std::pair<std::string, std::string>> bad; // argument, message
};

// A named file that is an output was refused before (checkOutputTargets); a folder may hold the outputs,
// which are skipped there.
InputList collectInputs(const std::vector<std::string>& arguments, const std::string& outPath,
                        const std::string& failuresPath) {
    InputList list;
    std::set<std::string> files, inFolders;
    std::error_code ec;
    const fs::path out = outPath == "-" ? fs::path() : fs::weakly_canonical(outPath, ec);
    const fs::path failures = failuresPath.empty() || failuresPath == "-" ? fs::path() : fs::weakly_canonical(failuresPath, ec);
    auto isOutput = [&](const fs::path& p) {
        std::error_code e;
        const fs::path c = fs::weakly_canonical(p, e);
        return (!out.empty() && c == out) || (!failures.empty() && c == failures);
    };
    for (const std::string& arg : arguments) {
        if (fs::is_directory(arg, ec)) {
            fs::directory_iterator it(arg, ec);
            if (ec) {
                list.bad.emplace_back(arg, "cannot list the folder: " + ec.message());
                continue;
            }
            for (const auto& entry : it) {
                const std::string name = entry.path().filename().string();
                // Hidden files include the temporaries of atomic writes (".x.tmp-...").
                if (name.empty() || name[0] == '.') continue;
                std::error_code e;
                // Everything but sub-folders is counted: a FIFO, a socket or a dangling link becomes a
                // failed file with its reason (loadImage refuses what is not a regular file).
                if (entry.is_directory(e) || isOutput(entry.path())) continue;
                const std::string path = (fs::path(arg) / name).lexically_normal().string();
                files.insert(path);
                inFolders.insert(path);
            }
        } else if (fs::exists(arg, ec)) {
            files.insert(fs::path(arg).lexically_normal().string());
        } else {
            // The system's reason when there is one (a symlink loop, a folder without permission).
            list.bad.emplace_back(arg, ec ? systemReason(ec.value()) : "no such file or folder");
        }
    }
    list.files.assign(files.begin(), files.end());
    list.folderFiles.assign(inFolders.begin(), inFolders.end());
    return list;
}

std::string shortName(const std::string& path) {
    return path.size() <= 60 ? path : "..." + path.substr(path.size() - 57);
}

} // namespace

namespace {

// The paths of a --files-from list: one a line; empty lines and lines that begin with '#' (the reasons in a
// --failures file) are passed over, and a trailing carriage return is dropped.
std::vector<std::string> readFileList(const std::string& source) {
    std::string text;
    if (source == "-") {
        std::ostringstream all;
        all << std::cin.rdbuf();
        text = all.str();
    } else {
        try {
            InputFile in(source);
            text = in.read(static_cast<std::size_t>(in.size()));
        } catch (const InputError& e) {
            throw InputError(std::string("--files-from: ") + e.what());
        }
    }
    std::vector<std::string> paths;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty() || line[0] == '#') continue;
        paths.push_back(line);
    }
    return paths;
}

// The --failures file: for each failed file a '#' line with the reason, then the path, so that
// --files-from takes it as it is.
std::string failuresText(const std::string& algoName, const std::vector<std::pair<std::string, std::string>>& failed) {
    std::string text = "# glint-cli batch --algo " + algoName + ": " + std::to_string(failed.size()) +
                       (failed.size() == 1 ? " file" : " files") +
                       " failed; each path follows its reason. Rerun them with --files-from THIS_FILE\n";
    for (const auto& [path, reason] : failed) {
        text += "# " + printableMessage(reason, 300) + "\n";
        if (path.find('\n') != std::string::npos || path.find('\r') != std::string::npos) {
            text += "# (a path with a line break cannot be listed: '" + printableMessage(path, 300) + "')\n";
            continue;
        }
        // A relative path that begins with '#' would read as a comment.
        text += (path[0] == '#' ? "./" : "") + path + "\n";
    }
    return text;
}

std::string seconds(double s) {
    if (s < 60) return formatDecimals(s, 1) + " s";
    const long long whole = std::llround(s);
    if (whole < 3600) return std::to_string(whole / 60) + " min " + std::to_string(whole % 60) + " s";
    return std::to_string(whole / 3600) + " h " + std::to_string(whole / 60 % 60) + " min";
}

double clockNow() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

} // namespace

int runBatch(const std::vector<std::string>& args) {
    const double started = clockNow();
    // Options of each algorithm (its descriptor's); anything else given with --algo X is a usage error.
    std::map<std::string, std::set<std::string>> algoOptions = {{"info", {}}};
    std::string names = "info";
    for (const Algorithm* algorithm : algorithms()) {
        std::set<std::string>& options = algoOptions[algorithm->name()];
        for (const std::string& o : algorithm->spec().options()) options.insert(o);
        if (algorithm->imageCount() == 2) options.insert("--with");
        names += std::string(", ") + algorithm->name();
    }
    std::set<std::string> valueOptions = kSharedOptions;
    for (const auto& [name, options] : algoOptions) valueOptions.insert(options.begin(), options.end());
    const ParsedArgs a = parseArgs(args, {valueOptions, {"--resume"}});
    const auto algoName = a.value("--algo");
    if (!algoName) throw UsageError("batch needs --algo (" + names + ")");
    const auto chosen = algoOptions.find(*algoName);
    if (chosen == algoOptions.end()) throw UsageError("unknown --algo '" + *algoName + "' (" + names + ")");
    for (const std::string& option : valueOptions)
        if (a.has(option) && !kSharedOptions.count(option) && !chosen->second.count(option))
            throw UsageError("option '" + option + "' does not apply to --algo " + *algoName);
    for (const char* option : {"--backend", "--params"})
        if (*algoName == "info" && a.has(option))
            throw UsageError("option '" + std::string(option) + "' does not apply to --algo info");
    const auto outPath = a.value("--out");
    if (!outPath) throw UsageError("batch needs --out RESULTS.csv");
    if (a.positionals.empty() && !a.has("--files-from"))
        throw UsageError("batch needs at least one FILE_OR_DIR (or --files-from LIST)");
    long long shardIndex = 1, shardCount = 1;
    if (auto v = a.value("--shard")) std::tie(shardIndex, shardCount) = parseShard(*v);
    LoadOptions load;
    load.hdu = intOption(a, "--hdu", 0, INT_MAX, -1);
    load.plane = intOption(a, "--plane", 0, INT_MAX, 0);
    load.frame = intOption(a, "--frame", 0, INT_MAX, 0);
    const std::string backendName = a.valueOr("--backend", "auto");
    const Backend backend = parseBackend(backendName);
    if (backend == Backend::Cuda && !cudaDevice().usable)
        throw BackendUnavailable("no usable CUDA device: " + cudaDevice().reason);
    const bool resume = a.has("--resume");
    const auto failuresPath = a.value("--failures");
    std::error_code ec;
    // A journal of progress only beside a regular file (not standard output, a device or a FIFO).
    const bool journaled = *outPath != "-" && (!fs::exists(*outPath, ec) || fs::is_regular_file(*outPath, ec));
    if (resume && !journaled) throw UsageError("--resume needs --out RESULTS.csv naming a regular file");
    for (const std::string* target : {&*outPath, failuresPath ? &*failuresPath : nullptr}) {
        if (!target || *target == "-") continue;
        // Fail now, not after hours of work, when the results cannot be written there.
        fs::path dir = fs::path(*target).parent_path();
        if (dir.empty()) dir = ".";
        if (!fs::is_directory(dir, ec)) throw OutputError("cannot write '" + *target + "': no such folder");
    }

    std::vector<std::string> arguments = a.positionals;
    if (auto list = a.value("--files-from")) {
        const std::vector<std::string> more = readFileList(*list);
        arguments.insert(arguments.end(), more.begin(), more.end());
        if (arguments.empty()) throw UsageError("--files-from '" + *list + "' lists no file");
    }
    // No output over an input file, a file of the list or the other output (exit 2 now; core/util/AtomicFile.h).
    std::vector<NamedFile> outputs = {{"--out", *outPath}};
    if (failuresPath) outputs.push_back({"--failures", *failuresPath});
    checkOutputTargets(arguments, {{"--with", a.valueOr("--with", "")}, {"--params", a.valueOr("--params", "")}},
                       outputs);

    const BatchAlgorithm algo =
        *algoName == "info" ? infoAlgorithm() : descriptorAlgorithm(*findAlgorithm(*algoName), a, backend, load);
    std::vector<std::string> fileHeader = {"path"};
    fileHeader.insert(fileHeader.end(), algo.columns.begin(), algo.columns.end());

    InputList inputs = collectInputs(arguments, *outPath, failuresPath ? *failuresPath : std::string());
    const std::set<std::string> folderFiles(inputs.folderFiles.begin(), inputs.folderFiles.end());
    // Every N-th file of the sorted list, starting at the I-th: shards are disjoint, their union is the
    // list, and the work of files of similar names (often similar sizes) is spread over the shards.
    std::vector<std::string> mine;
    for (std::size_t i = 0; i < inputs.files.size(); ++i)
        if (static_cast<long long>(i % static_cast<std::size_t>(shardCount)) == shardIndex - 1)
            mine.push_back(inputs.files[i]);

    BatchHead head;
    head.parameters = algo.comment;
    head.run = Json::object();
    head.run["shard"] = std::to_string(shardIndex) + "/" + std::to_string(shardCount);
    head.run["files"] = inputs.files.size();
    head.run["list"] = fileListHash(inputs.files);
    head.run["load"] = Json{{"hdu", load.hdu}, {"plane", load.plane}, {"frame", load.frame}};
    if (*algoName != "info") head.run["backend"] = backendName;
    if (auto with = a.value("--with")) head.run["with"] = *with;
    head.header = fileHeader;
    head.header.push_back("content_hash");

    // What an earlier run left: the finished output's rows, then the journal's records over them.
    std::map<std::string, JournalRecord> earlier;
    if (resume && fs::exists(*outPath, ec)) {
        ParsedBatchCsv old;
        try {
            old = readBatchCsv(*outPath);
        } catch (const InputError& e) {
            throw UsageError(std::string("--resume: ") + e.what() + "; run without --resume to start again");
        }
        if (old.head.resumeKey() != head.resumeKey())
            throw UsageError("--resume: '" + *outPath +
                             "' was written with other parameters; run without --resume to start again");
        for (const auto& row : old.rows) {
            JournalRecord& r = earlier[row.front()];
            r.path = row.front();
            r.hash = row.back();
            r.rows.emplace_back(row.begin() + 1, row.end() - 1);
        }
    }
    std::unique_ptr<BatchJournal> journal;
    if (journaled) {
        journal = std::make_unique<BatchJournal>(*outPath, head.resumeKey(), resume);
        for (const JournalRecord& r : journal->earlier()) {
            // A record of another shape (a journal edited by hand) is not trusted: the file is done again.
            const bool fits = std::all_of(r.rows.begin(), r.rows.end(),
                                          [&](const auto& row) { return row.size() + 1 == fileHeader.size(); });
            if (fits && (r.failed || !r.rows.empty())) earlier[r.path] = r;
            else earlier.erase(r.path);
        }
    }

    const bool tty = ::isatty(STDERR_FILENO) != 0;
    std::size_t warnings = 0, done = 0, skipped = 0, reused = 0, usageFailures = 0, processed = 0;
    std::string lastUsageError;
    std::vector<std::pair<std::string, std::string>> failed;
    auto warn = [&](const std::string& path, const std::string& message) {
        // One printable line per file, whatever the path and the message hold (to the real stderr, also while
        // a worker's decoder has it silenced).
        writeStderr(std::string(tty ? "\r\033[K" : "") + "glint-cli: batch: failed '" + printableMessage(path, 200) +
                    "': " + printableMessage(message, 300) + "\n");
        failed.emplace_back(path, message);
        ++warnings;
    };
    for (const auto& [arg, message] : inputs.bad) warn(arg, message);
    // Files in flight: each worker decodes and runs one file (with its share of the cores), the GPU's part of
    // a file overlaps the CPU parts of others, and this thread takes the outcomes in file order (progress,
    // warnings, the journal), so the output is the same as one file at a time.
    const BatchWorkers plan = batchWorkers(a, backend, *algoName, mine);
    double lastProgress = 0;
    const double loopStart = clockNow();
    std::vector<const JournalRecord*> results(mine.size(), nullptr);
    std::vector<JournalRecord> fresh(mine.size());
    struct Outcome {
        enum Kind { Skipped, Reused, Ran } kind = Ran;
        JournalRecord record;
        bool usageFailure = false;
    };
    MemoryGate gate(maxImageBytes());
    auto produce = [&](std::size_t k, int) {
        const std::string& path = mine[k];
        Outcome out;
        JournalRecord& record = out.record;
        record.path = path;
        try {
            if (folderFiles.count(path)) {
                // Inside a folder only the files Glint can open count; others are not input at all.
                const FileFormat format = detectFileFormat(path);
                if (format == FileFormat::Unknown || format == FileFormat::Jpeg2000) {
                    out.kind = Outcome::Skipped;
                    return out;
                }
            }
            const std::uint64_t before = fileContentHash(path);
            record.hash = hashHex(before);
            const auto old = earlier.find(path);
            if (old != earlier.end() && old->second.hash == record.hash) {
                out.kind = Outcome::Reused;
                return out;
            }
            const Image image = loadImage(path, load);
            // The working copies of several files at once stay within the one-image budget (a file alone may
            // take all of it; then it runs alone).
            const MemoryGate::Hold hold(gate, static_cast<std::uint64_t>(image.width()) * image.height() *
                                                  (kWorkBytesPerPixel + 8));
            CsvTable table(fileHeader);
            algo.run(path, image, table);
            if (fileContentHash(path) != before) throw InputError("changed while being read");
            for (const auto& row : table.rows()) record.rows.emplace_back(row.begin() + 1, row.end());
        } catch (const InputError& e) {
            record.failed = true;
            record.reason = e.what();
        } catch (const UsageError& e) {
            // Parameters that do not fit this file (an ROI outside a smaller image, say).
            record.failed = true;
            record.reason = e.what();
            out.usageFailure = true;
        } catch (const std::bad_alloc&) {
            record.failed = true;
            record.reason = "out of memory";
        }
        return out;
    };
    auto consume = [&](std::size_t k, Outcome&& out) {
        const std::string& path = mine[k];
        if (tty && (clockNow() - lastProgress >= 0.25 || k == 0)) {
            // One line rewritten in place: files done of all, the rate of this run and the time left.
            lastProgress = clockNow();
            const double elapsed = lastProgress - loopStart;
            std::string line = "batch " + *algoName + ": " + std::to_string(k) + "/" + std::to_string(mine.size()) + " files";
            if (processed > 0 && elapsed > 0.5) {
                const double rate = static_cast<double>(processed) / elapsed;
                line += ", " + formatDecimals(rate, rate < 10 ? 2 : 1) + " files/s, " +
                        seconds(static_cast<double>(mine.size() - k) / rate) + " left";
            }
            writeStderr("\r\033[K" + line + "  " + printableMessage(shortName(path), 80));
        }
        if (out.kind == Outcome::Skipped) {
            ++skipped;
            return;
        }
        if (out.kind == Outcome::Reused) {
            const JournalRecord& old = earlier.find(path)->second;
            results[k] = &old;
            if (old.failed) warn(path, old.reason);
            else ++reused;
            return;
        }
        ++processed;
        JournalRecord& record = fresh[k];
        record = std::move(out.record);
        if (out.usageFailure) {
            ++usageFailures;
            lastUsageError = record.reason;
        }
        if (record.failed) {
            warn(path, record.reason);
            // A file that changed while read is tried again by the next --resume.
            if (record.reason == "changed while being read") record.hash.clear();
        } else {
            ++done;
        }
        results[k] = &record;
        if (journal) journal->append(record);
    };
    runBatchPipeline<Outcome>(plan, mine.size(), produce, consume);
    if (tty) writeStderr("\r\033[K");
    // The same parameter error for every file is the command's error, not the files'.
    if (done == 0 && reused == 0 && usageFailures > 0 && usageFailures + skipped == mine.size()) {
        if (journal) journal->remove();
        throw UsageError(lastUsageError);
    }

    CsvTable table(head.header);
    for (const JournalRecord* r : results) {
        if (!r || r->failed) continue;
        for (const auto& fields : r->rows) {
            std::vector<std::string> row;
            row.reserve(head.header.size());
            row.push_back(r->path);
            row.insert(row.end(), fields.begin(), fields.end());
            row.push_back(r->hash);
            table.addRow(std::move(row));
        }
    }
    {
        // Written (and any failure reported) before the summary below says so. The journal goes once the
        // results are in place; a kill between the two leaves both, and --resume then redoes nothing.
        if (journal) journal->sync();
        OutputTransaction publish;
        const std::string text = head.text() + table.text().substr(csvLine(head.header).size());
        if (*outPath == "-") writeStandardOutput(text);
        else writeFileAtomically(*outPath, text);
        if (failuresPath) {
            const std::string list = failuresText(*algoName, failed);
            if (*failuresPath == "-") writeStandardOutput(list);
            else writeFileAtomically(*failuresPath, list);
        }
        publish.commit();
        if (journal) journal->remove();
    }
    // Every file seen ends as done, already done (--resume), skipped (a folder's file of no format Glint
    // reads) or failed (a warning above, as is every missing argument): they add up to the files seen.
    std::cerr << "batch " << *algoName << ": " << done << " of " << mine.size() + inputs.bad.size()
              << " files done, " << skipped << " skipped (not an image format Glint reads), " << warnings << " failed"
              << (shardCount > 1 ? " (shard " + std::to_string(shardIndex) + "/" + std::to_string(shardCount) + " of " +
                                       std::to_string(inputs.files.size()) + ")"
                                 : "")
              << (resume ? ", " + std::to_string(reused) + " already done (--resume)" : "") << ", " << table.rowCount()
              << (table.rowCount() == 1 ? " row" : " rows") << " written to " << *outPath << " in "
              << seconds(clockNow() - started) << "; " << warnings << (warnings == 1 ? " warning" : " warnings") << "\n";
    return 0;
}
} // namespace glint::cli
