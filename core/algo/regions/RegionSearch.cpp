#include "core/algo/regions/RegionSearch.h"

#include "core/algo/sources/PsfWidth.h"

#include "core/io/Image.h"
#include "core/util/EnumNames.h"
#include "core/util/Errors.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iomanip>
#include <sstream>

namespace glint {

namespace {

// The whole text as a finite number (decimal or scientific; no "nan", "inf", hex, or out of range).
bool parseDouble(const std::string& text, double& out) {
    const char* last = text.data() + text.size();
    const auto [end, ec] = std::from_chars(text.data(), last, out, std::chars_format::general);
    return !text.empty() && ec == std::errc() && end == last && std::isfinite(out);
}

std::string shortNumber(double v) {
    std::ostringstream s;
    s.precision(17);
    s << v;
    return s.str();
}

} // namespace

PivotSpec PivotSpec::parse(const std::string& text) {
    PivotSpec spec;
    if (text == "mean") return spec;
    if (text == "local") {
        spec.kind = Kind::Local;
        return spec;
    }
    if (text == "median") {
        spec.kind = Kind::Median;
        return spec;
    }
    double v = 0.0;
    if (text.size() > 1 && (text[0] == 'p' || text[0] == 'P') && parseDouble(text.substr(1), v)) {
        if (!(v >= 0.0 && v <= 100.0))
            throw UsageError("the pivot percentile '" + text + "' must be between p0 and p100");
        spec.kind = Kind::Percentile;
        spec.value = v;
        return spec;
    }
    if (!parseDouble(text, v))
        throw UsageError("invalid pivot '" + text + "' (expected mean, median, pNN, local or a number)");
    if (!std::isfinite(v)) throw UsageError("the pivot '" + text + "' is not a finite number");
    spec.kind = Kind::Number;
    spec.value = v;
    return spec;
}

std::string PivotSpec::text() const {
    switch (kind) {
    case Kind::Mean: return "mean";
    case Kind::Median: return "median";
    case Kind::Percentile: {
        std::string out(1, 'p'); // not "p" + ...: GCC 12 warns falsely (-Wrestrict) on that form
        out += shortNumber(value);
        return out;
    }
    case Kind::Number: return shortNumber(value);
    case Kind::Local: return "local";
    }
    return "mean";
}

namespace {
constexpr EnumName<BrightestMode> kModeNames[] = {{BrightestMode::Disjoint, "disjoint"}, {BrightestMode::Overlap, "overlap"}};
} // namespace

const char* brightestModeName(BrightestMode mode) { return enumName(kModeNames, mode); }
BrightestMode parseBrightestMode(const std::string& name) { return parseEnumName(kModeNames, name, "mode"); }

std::string searchBoundText(const BrightestResult& result) {
    if (!result.maxBoxAuto) return {};
    std::ostringstream s;
    s << "max box auto: " << result.maxBox << " px";
    if (result.psfStars > 0)
        s << " = " << kAutoBoxFwhm << " FWHM (FWHM " << std::fixed << std::setprecision(2) << result.psfFwhm
          << " px, the median of " << result.psfStars << " stars)";
    else
        s << ", the mesh (no PSF width: fewer than " << kPsfMinStars << " clean, isolated, unsaturated stars "
          << kPsfMinPeakRms << " RMS above the background)";
    return s.str();
}

double estimatedBrightestCpuMs(const Image& image, const BrightestParams& params) {
    // Cells visited by one search (every strip, every column: rows <= cols after the transpose), at the
    // CPU backend's measured rate (~5e9 cells/s a thread on the H100 host, NOTES.md; 4e9 taken so that
    // the estimate errs towards the GPU), plus ~0.3 ms of thread start-up.
    const double w = params.roi ? params.roi->width : image.width(), h = params.roi ? params.roi->height : image.height();
    const double rows = std::min(w, h), cols = std::max(w, h);
    const double rounds = params.mode == BrightestMode::Overlap ? 1.5 : std::max(1, params.k);
    // (An unresolved --max-box auto is at most the mesh, what it falls back to.)
    const int bound = params.maxBox.isAuto() ? params.mesh : params.boundOrNone();
    if (params.mode == BrightestMode::Disjoint && bound > 0 && bound < cols) {
        // The bounded search: rows x P strips of cols steps each (a scalar deque scan, ~1e9 steps/s a thread
        // taken), the rounds after the first only the strips the removed rectangle meets (fast K).
        const double strips = rows * std::min<double>(bound, rows);
        return strips * cols * 2.0 / (1e9 * cpuThreadCount()) * 1e3 + 0.3;
    }
    return rows * (rows + 1) / 2 * cols * rounds / (4e9 * cpuThreadCount()) * 1e3 + 0.3;
}

} // namespace glint
