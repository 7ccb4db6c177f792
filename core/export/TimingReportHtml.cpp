// The HTML timing report (declared in TimingReport.h): one self-contained page, inline CSS and SVG.
#include "core/export/TimingReport.h"

#include "core/export/CsvTable.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace glint {

namespace {

std::string esc(const std::string& s) {
    std::string out;
    for (char c : s) {
        switch (c) {
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '&': out += "&amp;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&#39;"; break;
        default: out += c;
        }
    }
    return out;
}

// Step colours, distinguishable and printable; "other" (time outside named steps) is grey.
const char* stepColour(std::size_t i) {
    static const char* palette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
                                    "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#17becf"};
    return palette[i % (sizeof palette / sizeof *palette)];
}
constexpr const char* kOtherColour = "#bab0ac";

std::string runLabel(const TimingRun& r, std::size_t i) {
    std::string label = "#";
    label += std::to_string(i + 1);
    label += ' ';
    label += r.algorithm;
    label += ", ";
    if (!r.caseName.empty()) label += r.caseName;
    else if (r.imageWidth > 0) label += std::to_string(r.imageWidth) + "x" + std::to_string(r.imageHeight);
    label += " — ";
    label += r.backend;
    return label;
}

std::string msCell(double ms, const std::string& stepName = "") {
    std::string cell = "<td class=\"num\"";
    if (!stepName.empty()) cell += " data-step=\"" + esc(stepName) + "\"";
    return cell + " data-ms=\"" + formatNumber(ms) + "\">" + formatDecimals(ms, 3) + "</td>";
}

std::string speedupCell(const std::optional<double>& v, const char* baseline) {
    if (!v) return "<td class=\"num\"></td>";
    return std::string("<td class=\"num\" data-speedup=\"") + baseline + "\" data-value=\"" + formatNumber(*v) + "\">" +
           formatDecimals(*v, *v < 10 ? 2 : 1) + "×</td>";
}

void runsTable(std::ostringstream& out, const std::vector<TimingRun>& runs, const std::vector<std::string>& steps) {
    out << "<table class=\"runs\">\n<thead><tr><th>#</th><th>algorithm</th><th>case / image</th><th>size</th>"
           "<th>backend</th><th>device</th><th>parameters</th>";
    for (const auto& s : steps) out << "<th class=\"step\">" << esc(s) << " ms</th>";
    out << "<th>total ms</th><th>kernel ms</th><th>floor ms</th><th>vs reference</th><th>vs cpu</th><th>note</th>"
           "</tr></thead>\n<tbody>\n";
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const TimingRun& r = runs[i];
        out << "<tr id=\"run-" << i + 1 << "\"><td class=\"num\">" << i + 1 << "</td><td>" << esc(r.algorithm)
            << "</td><td>" << esc(r.caseName.empty() ? r.imagePath : r.caseName) << "</td><td>"
            << (r.imageWidth > 0 ? std::to_string(r.imageWidth) + "×" + std::to_string(r.imageHeight) : "")
            << "</td><td>" << esc(r.backend) << "</td><td>" << esc(r.device) << "</td><td>" << esc(r.parameters)
            << "</td>";
        for (const auto& s : steps) {
            const auto ms = timingStep(r, s);
            out << (ms ? msCell(*ms, s) : "<td class=\"num\"></td>");
        }
        out << "<td class=\"num total\" data-total=\"1\" data-ms=\"" << formatNumber(r.totalMs) << "\">"
            << formatDecimals(r.totalMs, 3) << "</td>" << (r.kernelMs ? msCell(*r.kernelMs) : "<td></td>")
            << (r.floorMs ? msCell(*r.floorMs) : "<td></td>") << speedupCell(timingSpeedup(runs, i, "reference"), "reference")
            << speedupCell(timingSpeedup(runs, i, "cpu"), "cpu") << "<td>"
            << esc((r.extrapolated ? "extrapolated; " : "") + std::string(r.verified && !*r.verified ? "unverified; " : "") +
                   r.note)
            << "</td></tr>\n";
    }
    out << "</tbody></table>\n";
}

// One bar per run, each 100% wide, split by its steps: where each run's time goes, whatever its total.
void stepsChart(std::ostringstream& out, const std::vector<TimingRun>& runs, const std::vector<std::string>& steps) {
    const int labelWidth = 330, barWidth = 520, rowHeight = 22, top = 10;
    const int legendRows = static_cast<int>((steps.size() + 1 + 3) / 4);
    const int height = top + static_cast<int>(runs.size()) * rowHeight + 16 + legendRows * 18;
    const int width = labelWidth + barWidth + 110;
    out << "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
        << "\" viewBox=\"0 0 " << width << " " << height << "\" role=\"img\" aria-label=\"time per step of each run\">\n";
    bool anyOther = false;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const TimingRun& r = runs[i];
        const int y = top + static_cast<int>(i) * rowHeight;
        out << "<text x=\"" << labelWidth - 6 << "\" y=\"" << y + 14 << "\" text-anchor=\"end\">"
            << esc(runLabel(r, i)) << "</text>\n";
        double named = 0;
        for (const auto& s : r.steps) named += std::max(0.0, s.ms);
        const double other = std::max(0.0, r.totalMs - named);
        const double scale = named + other;
        double x = labelWidth;
        auto segment = [&](double ms, const std::string& name, const char* colour) {
            if (!(scale > 0) || !(ms > 0)) return;
            const double w = barWidth * ms / scale;
            out << "<rect x=\"" << formatDecimals(x, 2) << "\" y=\"" << y + 2 << "\" width=\"" << formatDecimals(w, 2)
                << "\" height=\"" << rowHeight - 6 << "\" fill=\"" << colour << "\"><title>" << esc(name) << ": "
                << formatDecimals(ms, 3) << " ms (" << formatDecimals(100.0 * ms / scale, 1) << "%)</title></rect>\n";
            x += w;
        };
        for (const auto& s : r.steps) {
            const std::size_t k = static_cast<std::size_t>(std::find(steps.begin(), steps.end(), s.name) - steps.begin());
            segment(s.ms, s.name, stepColour(k));
        }
        if (other > 1e-9 * std::max(1.0, r.totalMs)) {
            anyOther = true;
            segment(other, "other (outside named steps)", kOtherColour);
        }
        out << "<text x=\"" << labelWidth + barWidth + 6 << "\" y=\"" << y + 14 << "\">" << formatDecimals(r.totalMs, 3)
            << " ms</text>\n";
    }
    int ly = top + static_cast<int>(runs.size()) * rowHeight + 12;
    std::size_t n = 0;
    auto legend = [&](const std::string& name, const char* colour) {
        const int lx = 10 + static_cast<int>(n % 4) * 240;
        const int y = ly + static_cast<int>(n / 4) * 18;
        out << "<rect x=\"" << lx << "\" y=\"" << y << "\" width=\"12\" height=\"12\" fill=\"" << colour
            << "\"/><text x=\"" << lx + 16 << "\" y=\"" << y + 11 << "\">" << esc(name) << "</text>\n";
        ++n;
    };
    for (std::size_t k = 0; k < steps.size(); ++k) legend(steps[k], stepColour(k));
    if (anyOther) legend("other (outside named steps)", kOtherColour);
    out << "</svg>\n";
}

// Speed-ups against reference and cpu on a log scale centred on 1×.
void speedupChart(std::ostringstream& out, const std::vector<TimingRun>& runs) {
    struct Bar {
        std::size_t run;
        const char* baseline;
        double value;
    };
    std::vector<Bar> bars;
    for (std::size_t i = 0; i < runs.size(); ++i)
        for (const char* baseline : {"reference", "cpu"}) {
            // The reference is the slowest baseline: its "speed-up" against cpu only says that again.
            if (runs[i].backend == baseline || runs[i].backend == "reference") continue;
            if (const auto v = timingSpeedup(runs, i, baseline); v && *v > 0) bars.push_back({i, baseline, *v});
        }
    if (bars.empty()) {
        out << "<p class=\"none\">No run has a reference or cpu run of the same case to compare with.</p>\n";
        return;
    }
    double lo = 0.1, hi = 10.0;
    for (const Bar& b : bars) {
        lo = std::min(lo, b.value);
        hi = std::max(hi, b.value);
    }
    const int decadeLo = static_cast<int>(std::floor(std::log10(lo))), decadeHi = static_cast<int>(std::ceil(std::log10(hi)));
    const int labelWidth = 330, plotWidth = 520, rowHeight = 18, top = 24;
    const int height = top + static_cast<int>(bars.size()) * rowHeight + 30;
    const int width = labelWidth + plotWidth + 90;
    auto xOf = [&](double v) {
        return labelWidth + plotWidth * (std::log10(v) - decadeLo) / std::max(1, decadeHi - decadeLo);
    };
    out << "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
        << "\" viewBox=\"0 0 " << width << " " << height << "\" role=\"img\" aria-label=\"speed-up against reference and cpu\">\n";
    for (int d = decadeLo; d <= decadeHi; ++d) {
        const double x = xOf(std::pow(10.0, d));
        out << "<line x1=\"" << formatDecimals(x, 2) << "\" y1=\"" << top - 4 << "\" x2=\"" << formatDecimals(x, 2)
            << "\" y2=\"" << height - 22 << "\" class=\"" << (d == 0 ? "one" : "grid") << "\"/><text x=\""
            << formatDecimals(x, 2) << "\" y=\"" << top - 8 << "\" text-anchor=\"middle\">"
            << formatNumber(std::pow(10.0, d)) << "×</text>\n";
    }
    for (std::size_t k = 0; k < bars.size(); ++k) {
        const Bar& b = bars[k];
        const int y = top + static_cast<int>(k) * rowHeight;
        const double x0 = xOf(1.0), x1 = xOf(b.value);
        const char* colour = std::string(b.baseline) == "reference" ? "#4e79a7" : "#f28e2b";
        out << "<text x=\"" << labelWidth - 6 << "\" y=\"" << y + 12 << "\" text-anchor=\"end\">"
            << esc(runLabel(runs[b.run], b.run)) << " vs " << b.baseline << "</text>\n<rect x=\""
            << formatDecimals(std::min(x0, x1), 2) << "\" y=\"" << y + 2 << "\" width=\""
            << formatDecimals(std::max(1.0, std::fabs(x1 - x0)), 2) << "\" height=\"" << rowHeight - 5 << "\" fill=\""
            << colour << "\"><title>" << formatNumber(b.value) << "</title></rect>\n<text x=\""
            << formatDecimals(std::max(x0, x1) + 4, 2) << "\" y=\"" << y + 12 << "\">" << formatDecimals(b.value, b.value < 10 ? 2 : 1)
            << "×</text>\n";
    }
    const int ly = height - 14;
    out << "<rect x=\"10\" y=\"" << ly << "\" width=\"12\" height=\"12\" fill=\"#4e79a7\"/><text x=\"26\" y=\"" << ly + 11
        << "\">vs reference</text><rect x=\"140\" y=\"" << ly << "\" width=\"12\" height=\"12\" fill=\"#f28e2b\"/>"
        << "<text x=\"156\" y=\"" << ly + 11 << "\">vs cpu</text>\n</svg>\n";
}

} // namespace

std::string timingReportHtml(const std::vector<TimingRun>& runs, const TimingReportInfo& info) {
    const std::vector<std::string> steps = timingStepNames(runs);
    std::ostringstream out;
    out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" << esc(info.title)
        << "</title>\n<style>\n"
           "body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}\n"
           "table.runs{border-collapse:collapse;font-size:13px}\n"
           "table.runs th,table.runs td{border:1px solid #ccc;padding:3px 6px;vertical-align:top}\n"
           "table.runs th{background:#f3f3f3}\n"
           "td.num{text-align:right;font-variant-numeric:tabular-nums}\n"
           "td.total{font-weight:600}\n"
           "svg.chart{font-size:12px;margin:0.5em 0 1.5em 0}\n"
           "svg.chart line.grid{stroke:#ddd}\nsvg.chart line.one{stroke:#555}\n"
           "p.env,p.none{color:#555}\n"
           "</style>\n</head>\n<body>\n<h1>"
        << esc(info.title) << "</h1>\n";
    if (!info.environment.empty()) out << "<p class=\"env\">" << esc(info.environment) << "</p>\n";
    out << "<p class=\"env\">Glint " << GLINT_VERSION << ", " << runs.size() << (runs.size() == 1 ? " run" : " runs")
        << ". Times in milliseconds (image loading excluded); speed-up = time of the reference (or cpu) run of "
           "the same case / time of the run.</p>\n";
    out << "<h2>Runs</h2>\n";
    runsTable(out, runs, steps);
    out << "<h2>Where the time goes</h2>\n";
    if (runs.empty()) out << "<p class=\"none\">No runs.</p>\n";
    else stepsChart(out, runs, steps);
    out << "<h2>Speed-up</h2>\n";
    speedupChart(out, runs);
    out << "</body>\n</html>\n";
    return out.str();
}

} // namespace glint
