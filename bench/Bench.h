// glint-cli bench: each algorithm registers a bench that builds its own cases, runs them on the chosen
// backends (correctness checked against the reference before timing), and returns one row per
// case and backend with median timings. Reports are the timing reports of export/TimingReport.h.
#pragma once

#include "core/export/JsonOutput.h"
#include "core/export/TimingReport.h"
#include "core/jobs/Backend.h"
#include "core/jobs/JobControl.h"

#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace glint {

struct BenchOptions {
    std::vector<std::string> sizes;  // as given with --sizes (e.g. "1024", "4096x2048"); empty = the bench's defaults
    std::vector<Backend> backends;   // empty = every backend available here
    int repeat = 5;                  // timed runs per case (after one warm-up)
    std::vector<std::string> fields; // as given with --fields (bench catalogue: sparse, crowded, galaxies); empty = all
    std::ostream* log = nullptr;     // progress lines, or null
    bool wants(Backend b) const;     // in `backends`, or `backends` empty and b available
};

struct BenchRow {
    std::string algorithm;           // "brightest"
    std::string caseName;            // "u8 4096x4096, integer pivot"
    std::string backend;             // "cuda", "cpu", "reference"
    std::string device;              // "NVIDIA H100 80GB HBM3", "CPU, 16 threads"
    Json params = Json::object();    // what defines the case: sizes, K, ...
    int repeats = 0;
    double totalMs = 0.0;            // median end-to-end time (image loading excluded)
    double minMs = 0.0;
    std::vector<TimingStep> steps;   // median of each named step
    std::optional<double> kernelMs;  // median GPU kernel time (CUDA events), where there is one
    std::optional<double> floorMs;   // the computed floor for this case on this device, where known
    bool extrapolated = false;       // not run: extrapolated from smaller sizes (note says how)
    bool verified = false;           // result checked against the reference (or brute force) first
    std::string note;
    Json extra = Json::object();     // anything else (accuracy, the paper's figures, ...)
    std::string section;             // Markdown a bench adds after the timing table of a .md report (e.g. its
                                     // side-by-side scores); empty for most rows
};

using BenchFunction = std::function<std::vector<BenchRow>(const BenchOptions&)>;

void registerBench(const std::string& name, BenchFunction function);
const std::vector<std::pair<std::string, BenchFunction>>& benches();
// Registers every algorithm's bench (bench/RegisterBenches.cpp); idempotent.
void registerAllBenches();

// Runs `run` once to warm up, then `repeat` times, each with a fresh JobControl, and returns a row with
// the median total and the median of each step. kernelStep, when given, names the step whose median
// becomes kernelMs. The caller fills params, note, verified, extra.
BenchRow measure(const std::string& algorithm, const std::string& caseName, Backend backend, int repeat,
                 const std::function<void(JobControl&)>& run, const std::string& kernelStep = "");

// One entry of --sizes as a square side from lo to hi; otherwise a UsageError "bench <name> takes square
// sizes from <lo> to <hi> (got '<text>')".
int parseBenchSide(const std::string& text, const std::string& name, int lo, int hi);

// Speed-up of `row` against the row of the same algorithm and case on `baseline`, if present.
std::optional<double> speedup(const std::vector<BenchRow>& rows, const BenchRow& row, const std::string& baseline);

// The rows as timing-report runs (parameters as text and as the structured params).
std::vector<TimingRun> benchTimingRuns(const std::vector<BenchRow>& rows);
Json benchReportJson(const std::vector<BenchRow>& rows);
// A fixed-width text table for the terminal.
std::string benchTextTable(const std::vector<BenchRow>& rows);
// By extension: .json, .csv, .md, .html (writeTimingReport; a .md report ends with the rows' sections). Written
// atomically. Throws UsageError for
// other extensions.
void writeBenchReport(const std::vector<BenchRow>& rows, const std::string& path);

} // namespace glint
