// Timing reports: a list of runs (algorithm, backend, device, image size, parameters, each named step,
// total) from the window's timing log or from the bench, written as HTML (charts inline), JSON, CSV or
// Markdown, with speed-ups against the `reference` and `cpu` runs of the same case.
#pragma once

#include "core/export/JsonOutput.h"
#include "core/jobs/Timing.h"

#include <optional>
#include <string>
#include <vector>

namespace glint {

struct TimingRun {
    std::string algorithm;      // "brightest"
    std::string caseName;       // bench: "u8 4096x4096, integer pivot"; window: empty (the image names the case)
    std::string backend;        // "cuda", "cpu", "reference"
    std::string device;         // "NVIDIA H100 80GB HBM3", "CPU, 16 threads"
    std::string imagePath;      // window runs
    int imageWidth = 0;
    int imageHeight = 0;
    std::string parameters;     // "k=5 mode=disjoint pivot=mean"
    std::vector<TimingStep> steps;
    double totalMs = 0.0;       // the algorithm's own time (image loading excluded)
    std::optional<double> minMs;    // bench: fastest of the repeats
    std::optional<double> kernelMs; // GPU kernel time (CUDA events), where there is one
    std::optional<double> floorMs;  // computed floor on this device, where known
    int repeats = 1;
    std::optional<bool> verified;   // bench: checked against the reference first
    bool extrapolated = false;
    std::string note;
    std::string when;           // ISO 8601 local time of the run, where known
    Json params = Json::object(); // structured parameters (bench)
    Json extra = Json::object();
};

struct TimingReportInfo {
    std::string title = "Glint timing report";
    std::string kind = "timing report"; // the JSON's "algorithm" field ("bench" for glint-cli bench)
    std::string environment;            // e.g. backendStatusText(): what ran the report
};

// Runs of one case: same algorithm, case, image, size and parameters.
bool sameTimingCase(const TimingRun& a, const TimingRun& b);
// baseline total / run total, for the most recent run of the same case on `baseline` ("reference",
// "cpu"); 1 for a run on the baseline itself; nothing without such a run.
std::optional<double> timingSpeedup(const std::vector<TimingRun>& runs, std::size_t index, const std::string& baseline);
// Step names in order of first appearance over all runs.
std::vector<std::string> timingStepNames(const std::vector<TimingRun>& runs);
// A run's time for a named step, if it has that step.
std::optional<double> timingStep(const TimingRun& run, const std::string& name);

Json timingReportJson(const std::vector<TimingRun>& runs, const TimingReportInfo& info);
// Fixed columns, then one "step:NAME" column per step name (in timingStepNames order).
std::string timingReportCsv(const std::vector<TimingRun>& runs);
std::string timingReportMarkdown(const std::vector<TimingRun>& runs, const TimingReportInfo& info);
// Self-contained page: inline CSS and SVG (no scripts, nothing fetched): the runs table, a stacked bar
// per run of its steps, and the speed-ups against reference and cpu on a log scale. Every number also
// carries its full-precision value in a data-ms / data-speedup attribute.
std::string timingReportHtml(const std::vector<TimingRun>& runs, const TimingReportInfo& info);
// A fixed-width table for the terminal.
std::string timingReportText(const std::vector<TimingRun>& runs);

enum class TimingReportFormat { Json, Csv, Html, Markdown };
// By extension: .json, .csv, .html/.htm, .md. Throws UsageError otherwise.
TimingReportFormat timingReportFormatForPath(const std::string& path);
std::string timingReportText(const std::vector<TimingRun>& runs, const TimingReportInfo& info, TimingReportFormat format);
// Written atomically; throws UsageError (extension) or OutputError.
void writeTimingReport(const std::string& path, const std::vector<TimingRun>& runs, const TimingReportInfo& info);

} // namespace glint
