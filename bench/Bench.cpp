#include "bench/Bench.h"

#include "core/export/TimingReport.h"
#include "core/util/AtomicFile.h"
#include "core/util/Errors.h"

#include <algorithm>
#include <chrono>
#include <map>

namespace glint {

bool BenchOptions::wants(Backend b) const {
    if (!backends.empty()) return std::find(backends.begin(), backends.end(), b) != backends.end();
    if (b == Backend::Cuda) return cudaDevice().usable;
    return true;
}

namespace {
std::vector<std::pair<std::string, BenchFunction>>& benchTable() {
    static std::vector<std::pair<std::string, BenchFunction>> t;
    return t;
}

double median(std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

} // namespace

void registerBench(const std::string& name, BenchFunction function) {
    for (auto& [n, f] : benchTable())
        if (n == name) {
            f = std::move(function);
            return;
        }
    benchTable().emplace_back(name, std::move(function));
}

const std::vector<std::pair<std::string, BenchFunction>>& benches() { return benchTable(); }

BenchRow measure(const std::string& algorithm, const std::string& caseName, Backend backend, int repeat,
                 const std::function<void(JobControl&)>& run, const std::string& kernelStep) {
    BenchRow row;
    row.algorithm = algorithm;
    row.caseName = caseName;
    row.backend = backendName(backend);
    {
        JobControl warm;
        run(warm);
        row.device = warm.device().empty() ? deviceNameFor(backend) : warm.device();
    }
    repeat = std::max(1, repeat);
    std::vector<double> totals;
    std::map<std::string, std::vector<double>> steps;
    std::vector<std::string> order;
    for (int i = 0; i < repeat; ++i) {
        JobControl job;
        const auto start = std::chrono::steady_clock::now();
        run(job);
        const double wall = msSince(start);
        // The algorithm's own total when it set one (excludes set-up the bench did), else wall time.
        totals.push_back(job.timing().steps().empty() ? wall : job.timing().total());
        for (const auto& s : job.timing().steps()) {
            if (!steps.count(s.name)) order.push_back(s.name);
            steps[s.name].push_back(s.ms);
        }
    }
    row.repeats = repeat;
    row.totalMs = median(totals);
    row.minMs = *std::min_element(totals.begin(), totals.end());
    for (const auto& name : order) row.steps.push_back({name, median(steps[name])});
    if (!kernelStep.empty() && steps.count(kernelStep)) row.kernelMs = median(steps[kernelStep]);
    return row;
}

int parseBenchSide(const std::string& text, const std::string& name, int lo, int hi) {
    std::size_t pos = 0;
    int n = 0;
    try {
        n = std::stoi(text, &pos);
    } catch (...) {
        pos = 0;
    }
    if (pos != text.size() || n < lo || n > hi)
        throw UsageError("bench " + name + " takes square sizes from " + std::to_string(lo) + " to " +
                         std::to_string(hi) + " (got '" + text + "')");
    return n;
}

std::optional<double> speedup(const std::vector<BenchRow>& rows, const BenchRow& row, const std::string& baseline) {
    for (const auto& r : rows)
        if (r.algorithm == row.algorithm && r.caseName == row.caseName && r.backend == baseline && row.totalMs > 0)
            return r.totalMs / row.totalMs;
    return std::nullopt;
}

std::vector<TimingRun> benchTimingRuns(const std::vector<BenchRow>& rows) {
    std::vector<TimingRun> runs;
    for (const auto& r : rows) {
        TimingRun t;
        t.algorithm = r.algorithm;
        t.caseName = r.caseName;
        t.backend = r.backend;
        t.device = r.device;
        t.params = r.params;
        // The structured parameters as text too, for the table and the CSV ("k=5 size=4096").
        for (const auto& [key, value] : r.params.items())
            t.parameters += (t.parameters.empty() ? "" : " ") + key + "=" +
                            (value.is_string() ? value.get<std::string>() : value.dump());
        t.steps = r.steps;
        t.totalMs = r.totalMs;
        t.minMs = r.minMs;
        t.kernelMs = r.kernelMs;
        t.floorMs = r.floorMs;
        t.repeats = r.repeats;
        t.verified = r.verified;
        t.extrapolated = r.extrapolated;
        t.note = r.note;
        t.extra = r.extra;
        runs.push_back(std::move(t));
    }
    return runs;
}

namespace {
TimingReportInfo benchReportInfo() {
    TimingReportInfo info;
    info.title = "Glint bench";
    info.kind = "bench";
    info.environment = backendStatusText();
    return info;
}
} // namespace

Json benchReportJson(const std::vector<BenchRow>& rows) { return timingReportJson(benchTimingRuns(rows), benchReportInfo()); }

std::string benchTextTable(const std::vector<BenchRow>& rows) { return timingReportText(benchTimingRuns(rows)); }

void writeBenchReport(const std::vector<BenchRow>& rows, const std::string& path) {
    std::string sections;
    for (const BenchRow& r : rows)
        if (!r.section.empty()) sections += "\n" + r.section;
    if (sections.empty() || timingReportFormatForPath(path) != TimingReportFormat::Markdown) {
        writeTimingReport(path, benchTimingRuns(rows), benchReportInfo());
        return;
    }
    writeFileAtomically(path, timingReportText(benchTimingRuns(rows), benchReportInfo(), TimingReportFormat::Markdown) +
                                  sections);
}

} // namespace glint
