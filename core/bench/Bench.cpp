#include "bench/Bench.h"

#include "util/AtomicFile.h"
#include "util/Errors.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iomanip>
#include <map>
#include <sstream>

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

std::string fmt(double v, int precision = 3) {
    std::ostringstream s;
    s << std::fixed << std::setprecision(precision) << v;
    return s.str();
}

std::string csvField(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

std::string htmlEscape(const std::string& s) {
    std::string out;
    for (char c : s) {
        switch (c) {
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '&': out += "&amp;"; break;
        case '"': out += "&quot;"; break;
        default: out += c;
        }
    }
    return out;
}

std::string stepsText(const BenchRow& r) {
    std::string out;
    for (const auto& s : r.steps) out += (out.empty() ? "" : "; ") + s.name + " " + fmt(s.ms);
    return out;
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

std::optional<double> speedup(const std::vector<BenchRow>& rows, const BenchRow& row, const std::string& baseline) {
    for (const auto& r : rows)
        if (r.algorithm == row.algorithm && r.caseName == row.caseName && r.backend == baseline && row.totalMs > 0)
            return r.totalMs / row.totalMs;
    return std::nullopt;
}

Json benchReportJson(const std::vector<BenchRow>& rows) {
    Json list = Json::array();
    for (const auto& r : rows) {
        Json j = Json::object();
        j["algorithm"] = r.algorithm;
        j["case"] = r.caseName;
        j["backend"] = r.backend;
        j["device"] = r.device;
        j["params"] = r.params;
        j["repeats"] = r.repeats;
        Timing t;
        for (const auto& s : r.steps) t.add(s.name, s.ms);
        t.setTotal(r.totalMs);
        j["timing_ms"] = timingJson(t);
        j["min_ms"] = r.minMs;
        j["kernel_ms"] = r.kernelMs ? Json(*r.kernelMs) : Json(nullptr);
        j["floor_ms"] = r.floorMs ? Json(*r.floorMs) : Json(nullptr);
        const auto vsRef = speedup(rows, r, "reference");
        const auto vsCpu = speedup(rows, r, "cpu");
        j["speedup_vs_reference"] = vsRef ? Json(*vsRef) : Json(nullptr);
        j["speedup_vs_cpu"] = vsCpu ? Json(*vsCpu) : Json(nullptr);
        j["extrapolated"] = r.extrapolated;
        j["verified"] = r.verified;
        j["note"] = r.note;
        j["extra"] = r.extra;
        list.push_back(j);
    }
    Json doc = Json::object();
    doc["algorithm"] = "bench";
    doc["device"] = backendStatusText();
    doc["rows"] = list;
    return doc;
}

std::string benchTextTable(const std::vector<BenchRow>& rows) {
    std::ostringstream out;
    out << std::left << std::setw(11) << "algorithm" << std::setw(44) << "case" << std::setw(10) << "backend"
        << std::right << std::setw(11) << "total ms" << std::setw(11) << "kernel ms" << std::setw(10) << "floor ms"
        << std::setw(10) << "vs ref" << std::setw(9) << "vs cpu" << "  note\n";
    for (const auto& r : rows) {
        const auto vsRef = speedup(rows, r, "reference");
        const auto vsCpu = speedup(rows, r, "cpu");
        out << std::left << std::setw(11) << r.algorithm << std::setw(44) << r.caseName.substr(0, 43) << std::setw(10)
            << r.backend << std::right << std::setw(11) << fmt(r.totalMs) << std::setw(11)
            << (r.kernelMs ? fmt(*r.kernelMs) : "-") << std::setw(10) << (r.floorMs ? fmt(*r.floorMs) : "-")
            << std::setw(10) << (vsRef ? fmt(*vsRef, 1) + "x" : "-") << std::setw(9)
            << (vsCpu ? fmt(*vsCpu, 1) + "x" : "-") << "  " << (r.extrapolated ? "[extrapolated] " : "")
            << (r.verified ? "" : "[unverified] ") << r.note << "\n";
    }
    return out.str();
}

void writeBenchReport(const std::vector<BenchRow>& rows, const std::string& path) {
    const auto dot = path.rfind('.');
    const std::string ext = dot == std::string::npos ? "" : path.substr(dot + 1);
    if (ext == "json") {
        writeJson(benchReportJson(rows), path);
        return;
    }
    std::ostringstream out;
    if (ext == "csv") {
        out << "algorithm,case,backend,device,repeats,total_ms,min_ms,kernel_ms,floor_ms,speedup_vs_reference,"
               "speedup_vs_cpu,extrapolated,verified,steps,note\n";
        for (const auto& r : rows) {
            const auto vsRef = speedup(rows, r, "reference");
            const auto vsCpu = speedup(rows, r, "cpu");
            out << csvField(r.algorithm) << ',' << csvField(r.caseName) << ',' << r.backend << ','
                << csvField(r.device) << ',' << r.repeats << ',' << fmt(r.totalMs, 6) << ',' << fmt(r.minMs, 6)
                << ',' << (r.kernelMs ? fmt(*r.kernelMs, 6) : "") << ',' << (r.floorMs ? fmt(*r.floorMs, 6) : "")
                << ',' << (vsRef ? fmt(*vsRef, 3) : "") << ',' << (vsCpu ? fmt(*vsCpu, 3) : "") << ','
                << (r.extrapolated ? 1 : 0) << ',' << (r.verified ? 1 : 0) << ',' << csvField(stepsText(r)) << ','
                << csvField(r.note) << '\n';
        }
    } else if (ext == "md") {
        out << "# Glint bench\n\nDevice: " << backendStatusText() << "\n\n"
            << "| algorithm | case | backend | total ms | kernel ms | floor ms | vs reference | vs cpu | steps | note |\n"
            << "|---|---|---|---:|---:|---:|---:|---:|---|---|\n";
        for (const auto& r : rows) {
            const auto vsRef = speedup(rows, r, "reference");
            const auto vsCpu = speedup(rows, r, "cpu");
            out << "| " << r.algorithm << " | " << r.caseName << " | " << r.backend << " | " << fmt(r.totalMs) << " | "
                << (r.kernelMs ? fmt(*r.kernelMs) : "") << " | " << (r.floorMs ? fmt(*r.floorMs) : "") << " | "
                << (vsRef ? fmt(*vsRef, 1) + "×" : "") << " | " << (vsCpu ? fmt(*vsCpu, 1) + "×" : "") << " | "
                << stepsText(r) << " | " << (r.extrapolated ? "extrapolated; " : "") << r.note << " |\n";
        }
    } else if (ext == "html") {
        out << "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>Glint bench</title></head><body>\n"
            << "<h1>Glint bench</h1><p>Device: " << htmlEscape(backendStatusText()) << "</p>\n<table border=\"1\">"
            << "<tr><th>algorithm</th><th>case</th><th>backend</th><th>total ms</th><th>kernel ms</th>"
            << "<th>vs reference</th><th>vs cpu</th><th>steps</th><th>note</th></tr>\n";
        for (const auto& r : rows) {
            const auto vsRef = speedup(rows, r, "reference");
            const auto vsCpu = speedup(rows, r, "cpu");
            out << "<tr><td>" << htmlEscape(r.algorithm) << "</td><td>" << htmlEscape(r.caseName) << "</td><td>"
                << r.backend << "</td><td>" << fmt(r.totalMs) << "</td><td>" << (r.kernelMs ? fmt(*r.kernelMs) : "")
                << "</td><td>" << (vsRef ? fmt(*vsRef, 1) : "") << "</td><td>" << (vsCpu ? fmt(*vsCpu, 1) : "")
                << "</td><td>" << htmlEscape(stepsText(r)) << "</td><td>" << htmlEscape(r.note) << "</td></tr>\n";
        }
        out << "</table></body></html>\n";
    } else {
        throw UsageError("--report must end in .json, .csv, .html or .md");
    }
    writeFileAtomically(path, out.str());
}

} // namespace glint
