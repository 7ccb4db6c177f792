#include "core/export/TimingReport.h"

#include "core/export/CsvTable.h"
#include "core/util/AtomicFile.h"
#include "core/util/Errors.h"

#include <algorithm>
#include <cctype>
#include <iomanip>
#include <sstream>

namespace glint {

namespace {

Json optionalJson(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }

std::string stepsText(const TimingRun& r, int decimals) {
    std::string out;
    for (const auto& s : r.steps)
        out += (out.empty() ? "" : "; ") + s.name + " " + (decimals < 0 ? formatNumber(s.ms) : formatDecimals(s.ms, decimals));
    return out;
}

std::string caseText(const TimingRun& r) {
    if (!r.caseName.empty()) return r.caseName;
    std::string text = r.imagePath;
    const auto slash = text.find_last_of('/');
    if (slash != std::string::npos) text = text.substr(slash + 1);
    if (r.imageWidth > 0) {
        if (!text.empty()) text += ' ';
        text += std::to_string(r.imageWidth);
        text += 'x';
        text += std::to_string(r.imageHeight);
    }
    return text;
}

std::string markdownCell(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '|') out += "\\|";
        else if (c == '\n' || c == '\r') out += ' ';
        else out += c;
    }
    return out;
}

} // namespace

bool sameTimingCase(const TimingRun& a, const TimingRun& b) {
    return a.algorithm == b.algorithm && a.caseName == b.caseName && a.imagePath == b.imagePath &&
           a.imageWidth == b.imageWidth && a.imageHeight == b.imageHeight && a.parameters == b.parameters;
}

std::optional<double> timingSpeedup(const std::vector<TimingRun>& runs, std::size_t index, const std::string& baseline) {
    const TimingRun& run = runs.at(index);
    if (run.backend == baseline) return 1.0;
    if (!(run.totalMs > 0)) return std::nullopt;
    for (std::size_t i = runs.size(); i-- > 0;)
        if (i != index && runs[i].backend == baseline && sameTimingCase(runs[i], run) && runs[i].totalMs > 0)
            return runs[i].totalMs / run.totalMs;
    return std::nullopt;
}

std::vector<std::string> timingStepNames(const std::vector<TimingRun>& runs) {
    std::vector<std::string> names;
    for (const auto& r : runs)
        for (const auto& s : r.steps)
            if (std::find(names.begin(), names.end(), s.name) == names.end()) names.push_back(s.name);
    return names;
}

std::optional<double> timingStep(const TimingRun& run, const std::string& name) {
    for (const auto& s : run.steps)
        if (s.name == name) return s.ms;
    return std::nullopt;
}

Json timingReportJson(const std::vector<TimingRun>& runs, const TimingReportInfo& info) {
    Json list = Json::array();
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const TimingRun& r = runs[i];
        Json j = Json::object();
        j["run"] = i + 1;
        j["algorithm"] = r.algorithm;
        j["case"] = r.caseName;
        j["backend"] = r.backend;
        j["device"] = r.device;
        if (!r.imagePath.empty() || r.imageWidth > 0)
            j["image"] = {{"path", r.imagePath}, {"width", r.imageWidth}, {"height", r.imageHeight}};
        j["parameters"] = r.parameters;
        j["params"] = r.params;
        j["repeats"] = r.repeats;
        Json steps = Json::object();
        for (const auto& s : r.steps) steps[s.name] = s.ms;
        j["timing_ms"] = {{"total", r.totalMs}, {"steps", steps}};
        j["min_ms"] = optionalJson(r.minMs);
        j["kernel_ms"] = optionalJson(r.kernelMs);
        j["floor_ms"] = optionalJson(r.floorMs);
        j["speedup_vs_reference"] = optionalJson(timingSpeedup(runs, i, "reference"));
        j["speedup_vs_cpu"] = optionalJson(timingSpeedup(runs, i, "cpu"));
        j["extrapolated"] = r.extrapolated;
        j["verified"] = r.verified ? Json(*r.verified) : Json(nullptr);
        j["note"] = r.note;
        j["when"] = r.when;
        j["extra"] = r.extra;
        list.push_back(j);
    }
    Json doc = Json::object();
    doc["algorithm"] = info.kind;
    doc["title"] = info.title;
    doc["device"] = info.environment;
    doc["glint_version"] = GLINT_VERSION;
    doc["step_names"] = timingStepNames(runs);
    doc["rows"] = list;
    return doc;
}

std::string timingReportCsv(const std::vector<TimingRun>& runs) {
    const std::vector<std::string> stepNames = timingStepNames(runs);
    std::vector<std::string> header = {"run", "algorithm", "case", "backend", "device", "image", "image_width",
                                       "image_height", "parameters", "repeats", "total_ms", "min_ms", "kernel_ms",
                                       "floor_ms", "speedup_vs_reference", "speedup_vs_cpu", "extrapolated",
                                       "verified", "when", "note", "steps"};
    for (const auto& n : stepNames) header.push_back("step:" + n);
    CsvTable table(header);
    auto opt = [](const std::optional<double>& v) { return v ? formatNumber(*v) : std::string(); };
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const TimingRun& r = runs[i];
        std::vector<std::string> row = {std::to_string(i + 1), r.algorithm, r.caseName, r.backend, r.device, r.imagePath,
                                        r.imageWidth > 0 ? std::to_string(r.imageWidth) : "",
                                        r.imageHeight > 0 ? std::to_string(r.imageHeight) : "", r.parameters,
                                        std::to_string(r.repeats), formatNumber(r.totalMs), opt(r.minMs),
                                        opt(r.kernelMs), opt(r.floorMs), opt(timingSpeedup(runs, i, "reference")),
                                        opt(timingSpeedup(runs, i, "cpu")), r.extrapolated ? "1" : "0",
                                        r.verified ? (*r.verified ? "1" : "0") : "", r.when, r.note, stepsText(r, -1)};
        for (const auto& n : stepNames) row.push_back(opt(timingStep(r, n)));
        table.addRow(std::move(row));
    }
    return table.text();
}

std::string timingReportMarkdown(const std::vector<TimingRun>& runs, const TimingReportInfo& info) {
    std::ostringstream out;
    out << "# " << markdownCell(info.title) << "\n\n";
    if (!info.environment.empty()) out << "Device: " << markdownCell(info.environment) << "\n\n";
    out << "| # | algorithm | case | backend | device | total ms | kernel ms | floor ms | vs reference | vs cpu | steps | note |\n"
        << "|---:|---|---|---|---|---:|---:|---:|---:|---:|---|---|\n";
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const TimingRun& r = runs[i];
        const auto vsRef = timingSpeedup(runs, i, "reference"), vsCpu = timingSpeedup(runs, i, "cpu");
        out << "| " << i + 1 << " | " << markdownCell(r.algorithm) << " | " << markdownCell(caseText(r)) << " | "
            << r.backend << " | " << markdownCell(r.device) << " | " << formatDecimals(r.totalMs, 3) << " | "
            << (r.kernelMs ? formatDecimals(*r.kernelMs, 3) : "") << " | "
            << (r.floorMs ? formatDecimals(*r.floorMs, 3) : "") << " | "
            << (vsRef ? formatDecimals(*vsRef, 1) + "×" : "") << " | " << (vsCpu ? formatDecimals(*vsCpu, 1) + "×" : "")
            << " | " << markdownCell(stepsText(r, 3)) << " | "
            << markdownCell((r.extrapolated ? "extrapolated; " : "") + r.note) << " |\n";
    }
    return out.str();
}

std::string timingReportText(const std::vector<TimingRun>& runs) {
    std::ostringstream out;
    out << std::left << std::setw(11) << "algorithm" << std::setw(44) << "case" << std::setw(10) << "backend"
        << std::right << std::setw(11) << "total ms" << std::setw(11) << "kernel ms" << std::setw(10) << "floor ms"
        << std::setw(10) << "vs ref" << std::setw(9) << "vs cpu" << "  note\n";
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const TimingRun& r = runs[i];
        const auto vsRef = timingSpeedup(runs, i, "reference"), vsCpu = timingSpeedup(runs, i, "cpu");
        out << std::left << std::setw(11) << r.algorithm << std::setw(44) << caseText(r).substr(0, 43) << std::setw(10)
            << r.backend << std::right << std::setw(11) << formatDecimals(r.totalMs, 3) << std::setw(11)
            << (r.kernelMs ? formatDecimals(*r.kernelMs, 3) : "-") << std::setw(10)
            << (r.floorMs ? formatDecimals(*r.floorMs, 3) : "-") << std::setw(10)
            << (vsRef ? formatDecimals(*vsRef, 1) + "x" : "-") << std::setw(9)
            << (vsCpu ? formatDecimals(*vsCpu, 1) + "x" : "-") << "  " << (r.extrapolated ? "[extrapolated] " : "")
            << (r.verified && !*r.verified ? "[unverified] " : "") << r.note << "\n";
    }
    return out.str();
}

TimingReportFormat timingReportFormatForPath(const std::string& path) {
    const auto dot = path.rfind('.');
    const auto slash = path.rfind('/');
    std::string ext = dot == std::string::npos || (slash != std::string::npos && dot < slash) ? "" : path.substr(dot + 1);
    for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (ext == "json") return TimingReportFormat::Json;
    if (ext == "csv") return TimingReportFormat::Csv;
    if (ext == "html" || ext == "htm") return TimingReportFormat::Html;
    if (ext == "md") return TimingReportFormat::Markdown;
    throw UsageError("report file '" + path + "' must end in .json, .csv, .html or .md");
}

std::string timingReportText(const std::vector<TimingRun>& runs, const TimingReportInfo& info, TimingReportFormat format) {
    switch (format) {
    case TimingReportFormat::Json: return timingReportJson(runs, info).dump(2) + "\n";
    case TimingReportFormat::Csv: return timingReportCsv(runs);
    case TimingReportFormat::Html: return timingReportHtml(runs, info);
    case TimingReportFormat::Markdown: return timingReportMarkdown(runs, info);
    }
    return {};
}

void writeTimingReport(const std::string& path, const std::vector<TimingRun>& runs, const TimingReportInfo& info) {
    writeFileAtomically(path, timingReportText(runs, info, timingReportFormatForPath(path)));
}

} // namespace glint
