// The brightest-regions descriptor: options, result schema, CSV rows, region export, overlay, text.
#include "core/algo/brightest/BrightestAlgorithm.h"

#include "core/algo/Algorithm.h"
#include "core/algo/brightest/Brightest.h"
#include "core/algo/brightest/BrightestSpec.h"
#include "core/algo/ResultJson.h"
#include "core/display/Display.h"
#include "core/export/CatalogWriter.h"
#include "core/export/CsvTable.h"
#include "core/export/OverlayImage.h"
#include "core/util/Errors.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <limits>
#include <optional>
#include <ostream>
#include <sstream>

namespace glint {

namespace {

Json sumJson(const BrightestRegion& r) { return r.exactInteger ? Json(r.sumInt) : Json(r.sum); }

// The flag bits by name, in the JSON's "flags" list.
const std::vector<std::pair<int, const char*>>& flagNames() {
    static const std::vector<std::pair<int, const char*>> names = {
        {kRegionFlagSaturated, "saturated"}, {kRegionFlagEdge, "edge"}, {kRegionFlagBlank, "blank"}};
    return names;
}

std::string flagsText(int flags) {
    std::string out;
    for (const auto& [bit, name] : flagNames())
        if (flags & bit) {
            if (!out.empty()) out += ',';
            out += name;
        }
    return out;
}

// A number, or null when it is not finite (JSON has no infinity): the SNR of a region where the RMS is 0.
Json finiteOrNull(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }

// The overlay draws the best kOverlayRegions regions (each costs ~0.4 ms with its label: 500 000 of
// them took minutes and give an unreadable picture) and says so in a legend; --json and --regions hold
// them all.
constexpr std::size_t kOverlayRegions = 1000;

class BrightestOutcome final : public AlgorithmOutcome {
public:
    BrightestOutcome(BrightestResult result, int k, std::string path, Json parameters)
        : result_(std::move(result)), k_(k), path_(std::move(path)), parameters_(std::move(parameters)) {}
    Json parameters() const override { return parameters_; }
    Backend backend() const override { return result_.backend; }
    std::string device() const override { return result_.device; }

    Json json() const override {
        Json doc = brightestResultJson(result_);
        doc["image"] = {{"path", path_}, {"width", result_.imageWidth}, {"height", result_.imageHeight}};
        doc["k"] = k_;
        if (kind_) doc["image"]["kind"] = {{"kind", imageKindName(kind_->kind)}, {"reason", kind_->reason}};
        if (autoExclusions_) {
            Json shapes = Json::array();
            for (const AutoExclusion& e : autoExclusions_->shapes) {
                Json shape = {{"kind", autoExclusionKindName(e.kind)}};
                if (e.isRect) {
                    shape["rect"] = {e.rect.x, e.rect.y, e.rect.width, e.rect.height};
                } else {
                    Json points = Json::array();
                    for (const auto& [x, y] : e.polygon.points) points.push_back({x, y});
                    shape["polygon"] = std::move(points);
                }
                shapes.push_back(std::move(shape));
            }
            doc["auto_exclusions"] = {{"mode", "mammogram"},
                                      {"note", autoExclusions_->note},
                                      {"ms", autoExclusionMs_},
                                      {"shapes", std::move(shapes)}};
        }
        return doc;
    }
    void setAutoExclusions(MammogramExclusions e, double ms) {
        autoExclusions_ = std::move(e);
        autoExclusionMs_ = ms;
    }
    void setKind(ImageKindGuess kind) { kind_ = std::move(kind); }

    std::vector<std::vector<std::string>> csvRows() const override {
        const BrightestResult& r = result_;
        const std::vector<std::string> head = {std::to_string(r.imageWidth), std::to_string(r.imageHeight),
                                               backendName(r.backend),       formatNumber(r.pivot),
                                               r.pivotSpec.text(),           brightestModeName(r.mode)};
        std::vector<std::vector<std::string>> rows;
        if (r.regions.empty()) rows.push_back(head); // the file was done: no region has a positive sum
        for (const BrightestRegion& g : r.regions) {
            std::vector<std::string> row = head;
            for (const std::string& f :
                 {std::to_string(g.rank), std::to_string(g.x), std::to_string(g.y), std::to_string(g.width),
                  std::to_string(g.height), g.exactInteger ? std::to_string(g.sumInt) : formatNumber(g.sum),
                  formatNumber(r.regionMean(g)), std::to_string(g.pixels())})
                row.push_back(f);
            for (const std::string& f :
                 {g.measured ? formatNumber(g.flux) : "", g.measured && !std::isnan(g.snr) ? formatNumber(g.snr) : "",
                  g.measured ? formatNumber(g.peak) : "", g.measured ? formatNumber(g.centroidX) : "",
                  g.measured ? formatNumber(g.centroidY) : "", g.hasSky ? formatNumber(g.ra) : "",
                  g.hasSky ? formatNumber(g.dec) : "", g.measured ? formatNumber(g.meanBackground) : "",
                  g.measured ? std::to_string(g.flags) : "", r.distinct ? formatNumber(*r.distinct) : ""})
                row.push_back(f);
            rows.push_back(std::move(row));
        }
        return rows;
    }

    RegionDocument regions(const AlgorithmInputs& inputs) const override {
        // .reg is fk5 (J2000) when the image has a WCS, image coordinates otherwise.
        RegionDocument doc = regionDocumentFor(*inputs.image);
        doc.description = brightestDescription(result_, k_);
        doc.regions = regionsFromBrightest(result_);
        return doc;
    }

    void printText(std::ostream& out, const AlgorithmInputs& inputs, double totalMs) const override {
        const BrightestResult& r = result_;
        out << inputs.path << ": " << r.imageWidth << "x" << r.imageHeight << ", pivot " << std::setprecision(10)
            << r.pivot << " (" << r.pivotSpec.text() << "), " << backendName(r.backend) << " on " << r.device << ", "
            << std::fixed << std::setprecision(2) << totalMs << " ms\n";
        if (r.regions.empty() && r.note.empty()) out << "  no region has a positive sum\n";
        if (!r.note.empty()) out << "  " << r.note << "\n";
        if (r.maxBoxAuto) out << "  " << searchBoundText(r) << "\n";
        for (const BrightestRegion& g : r.regions) {
            out << "  #" << g.rank << "  x " << g.x << "  y " << g.y << "  " << g.width << "x" << g.height << "  sum ";
            if (g.exactInteger) out << g.sumInt;
            else out << std::setprecision(6) << std::defaultfloat << g.sum << std::fixed;
            out << "  mean " << std::setprecision(4) << r.regionMean(g);
            if (g.measured) {
                out << std::defaultfloat << std::setprecision(6) << "  flux " << g.flux;
                if (!std::isnan(g.snr)) out << "  snr " << std::setprecision(4) << g.snr;
                if (!std::isnan(g.contrast)) out << "  contrast " << std::setprecision(4) << g.contrast;
                out << "  centroid " << std::setprecision(2) << std::fixed << g.centroidX << "," << g.centroidY;
                if (g.flags) out << "  flags " << flagsText(g.flags);
                out << std::fixed;
            }
            out << "\n";
        }
        out << std::defaultfloat;
    }

    void writeOverlay(const std::string& path, const AlgorithmInputs& inputs) const override {
        const Image& image = *inputs.image;
        OverlayImage overlay(image, defaultDisplaySettings(image));
        const std::size_t shown = std::min(result_.regions.size(), kOverlayRegions);
        for (std::size_t i = 0; i < shown; ++i) {
            const BrightestRegion& r = result_.regions[i];
            const std::uint32_t colour = overlayPaletteColour(static_cast<std::size_t>(r.rank - 1));
            overlay.drawRectangle(r.x, r.y, r.width, r.height, colour);
            std::ostringstream label;
            label << "#" << r.rank << "  ";
            // A region ranked by its contrast (a mammogram's finding) is labelled by it, as the window does.
            if (r.measured && !std::isnan(r.contrast)) label << "contrast " << std::fixed << std::setprecision(1) << r.contrast;
            else if (r.exactInteger) label << r.sumInt;
            else label << std::setprecision(6) << r.sum;
            overlay.drawRectangleLabel(r.x, r.y, r.width, r.height, label.str(), colour);
        }
        if (shown < result_.regions.size())
            overlay.drawLegend({{"regions 1-" + std::to_string(shown) + " of " +
                                     std::to_string(result_.regions.size()) + " shown (--json and --regions list all)",
                                 overlayPaletteColour(0)}});
        overlay.savePng(path);
    }

    void writeOutput(const std::string& option, const std::string& path) const override {
        if (option == "--catalog") writeCatalog(result_, path);
        else AlgorithmOutcome::writeOutput(option, path);
    }

    std::vector<std::string> notes() const override {
        if (result_.note.empty()) return {};
        return {result_.note};
    }

private:
    BrightestResult result_;
    int k_;
    std::string path_;
    Json parameters_;
    std::optional<MammogramExclusions> autoExclusions_;
    double autoExclusionMs_ = 0.0;
    std::optional<ImageKindGuess> kind_;
};

class BrightestAlgorithm final : public Algorithm {
public:
    const char* name() const override { return "brightest"; }
    const char* summary() const override {
        return "the brightest rectangle (maximum sum of I - pivot), or the K brightest (disjoint or overlapping)";
    }
    const ParamSpecBase& spec() const override { return brightestSpec(); }
    std::vector<std::string> outputOptions() const override { return {"--catalog"}; }
    std::string outputPlaceholder(const std::string&) const override { return "OUT.fits|OUT.csv"; }
    void checkOutput(const std::string& option, const std::string& path) const override {
        if (option == "--catalog") catalogFormatForPath(path); // a bad extension is a usage error now
    }
    std::vector<std::string> csvColumns() const override {
        return {"image_width", "image_height", "backend", "pivot", "pivot_spec", "mode", "rank",
                "x",           "y",            "width",   "height", "sum",       "mean", "pixels",
                "flux",        "snr",          "peak",    "centroid_x", "centroid_y", "ra", "dec",
                "mean_background", "flags", "distinct"};
    }
    std::unique_ptr<AlgorithmOutcome> run(const Json& request, const AlgorithmInputs& inputs, Backend backend,
                                          JobControl& job) const override {
        // The request resolved for this image (its kind's preset, every auto decided), then the search; the
        // total is resolution and search, without the GPU's one-time set-up (timing_ms.device_init / device_wait).
        BrightestRun run = runBrightestRequest(*inputs.image, request, backend, job);
        const int k = run.resolved.params.k;
        auto outcome = std::make_unique<BrightestOutcome>(std::move(run.result), k, inputs.path, std::move(run.parameters));
        if (run.resolved.autoExclusions) outcome->setAutoExclusions(*run.resolved.autoExclusions, run.resolved.autoExclusionMs);
        if (run.kind) outcome->setKind(*run.kind);
        return outcome;
    }
};

} // namespace

Json brightestResultJson(const BrightestResult& r) {
    Json regions = Json::array();
    for (const BrightestRegion& g : r.regions) {
        Json region = {{"rank", g.rank},
                       {"x", g.x},
                       {"y", g.y},
                       {"width", g.width},
                       {"height", g.height},
                       {"sum", sumJson(g)},
                       {"mean", r.regionMean(g)},
                       {"pixels", g.pixels()}};
        if (g.measured) {
            region["flux"] = g.flux;
            if (!std::isnan(g.snr)) region["snr"] = finiteOrNull(g.snr); // null: infinite (RMS 0)
            if (!std::isnan(g.contrast)) region["contrast"] = finiteOrNull(g.contrast); // --rank contrast
            region["peak"] = g.peak;
            region["centroid_x"] = g.centroidX;
            region["centroid_y"] = g.centroidY;
            if (g.hasSky) {
                region["ra"] = g.ra;
                region["dec"] = g.dec;
            }
            region["mean_background"] = g.meanBackground;
            region["area"] = g.pixels();
            Json flags = Json::array();
            for (const auto& [bit, name] : flagNames())
                if (g.flags & bit) flags.push_back(name);
            region["flags"] = std::move(flags);
        }
        regions.push_back(std::move(region));
    }
    Json doc = Json::object();
    doc["image"] = {{"width", r.imageWidth}, {"height", r.imageHeight}};
    doc["backend"] = backendName(r.backend);
    doc["device"] = r.device;
    doc["pivot"] = r.pivot;
    doc["pivot_spec"] = r.pivotSpec.text();
    doc["mode"] = brightestModeName(r.mode);
    if (r.distinct) doc["distinct"] = *r.distinct;
    doc["exact_integer"] = r.exactInteger;
    doc["included_pixels"] = r.includedPixels;
    doc["threshold"] = r.threshold;
    if (r.hasModel) doc["background"] = {{"global", r.globalBackground}, {"rms", r.globalRms}};
    doc["rounds"] = r.rounds;
    doc["rejected"] = r.rejected;
    if (r.maxBox > 0) doc["max_box"] = r.maxBox;
    if (r.maxBoxAuto) doc["max_box_auto"] = true;
    if (r.psfStars > 0) doc["psf"] = {{"fwhm", r.psfFwhm}, {"stars", r.psfStars}};
    if (!r.note.empty()) doc["note"] = r.note;
    doc["regions"] = std::move(regions);
    return doc;
}

BrightestResult brightestResultFromJson(const Json& json) {
    const resultjson::Object in(json, "brightest");
    BrightestResult r;
    const resultjson::Object image = in.object("image");
    r.imageWidth = image.smallInteger("width");
    r.imageHeight = image.smallInteger("height");
    if (r.imageWidth <= 0 || r.imageHeight <= 0) image.fail("a positive width and height");
    r.backend = parseBackend(in.string("backend"));
    r.device = in.string("device");
    r.pivot = in.number("pivot");
    try {
        r.pivotSpec = PivotSpec::parse(in.string("pivot_spec"));
        r.mode = parseBrightestMode(in.string("mode"));
    } catch (const UsageError& e) {
        in.fail(std::string("valid: ") + e.what());
    }
    r.exactInteger = in.boolean("exact_integer");
    const std::int64_t included = in.integer("included_pixels");
    if (included < 0 || included > static_cast<std::int64_t>(r.imageWidth) * r.imageHeight)
        in.fail("included_pixels", "a pixel count of the image");
    r.includedPixels = static_cast<std::size_t>(included);
    // The search's figures (documents of older versions have none).
    if (in.has("threshold")) r.threshold = in.number("threshold");
    if (in.has("background")) {
        const resultjson::Object b = in.object("background");
        r.hasModel = true;
        r.globalBackground = b.number("global");
        r.globalRms = b.number("rms");
    }
    if (in.has("rounds")) r.rounds = in.smallInteger("rounds");
    if (in.has("rejected")) r.rejected = in.smallInteger("rejected");
    if (in.has("note")) r.note = in.string("note");
    if (in.has("max_box")) {
        r.maxBox = in.smallInteger("max_box");
        if (r.maxBox < 0) in.fail("max_box", "a bound >= 0");
    }
    if (in.has("max_box_auto")) r.maxBoxAuto = in.boolean("max_box_auto");
    if (in.has("psf")) {
        const resultjson::Object psf = in.object("psf");
        r.psfFwhm = psf.number("fwhm");
        r.psfStars = psf.smallInteger("stars");
        if (!(r.psfFwhm > 0.0) || r.psfStars <= 0) psf.fail("a positive FWHM and star count");
    }
    if (in.has("distinct")) {
        r.distinct = in.number("distinct");
        if (!(*r.distinct >= 0.0 && *r.distinct < 1.0)) in.fail("distinct", "a fraction 0 <= F < 1");
    }
    const std::string w = in.path("regions") + "[]";
    for (const Json& regionJson : in.array("regions")) {
        const resultjson::Object g(regionJson, w);
        BrightestRegion region;
        region.rank = g.smallInteger("rank");
        region.x = g.smallInteger("x");
        region.y = g.smallInteger("y");
        region.width = g.smallInteger("width");
        region.height = g.smallInteger("height");
        if (region.x < 0 || region.y < 0 || region.width <= 0 || region.height <= 0 ||
            region.width > r.imageWidth - region.x || region.height > r.imageHeight - region.y)
            g.fail("a rectangle inside the image");
        region.exactInteger = r.exactInteger;
        if (r.exactInteger) {
            region.sumInt = g.integer("sum");
            region.sum = static_cast<double>(region.sumInt);
        } else {
            region.sum = g.number("sum");
        }
        if (g.has("flux")) { // the measurements, all present together
            region.measured = true;
            region.flux = g.number("flux");
            region.snr = std::numeric_limits<double>::quiet_NaN();
            if (g.has("snr"))
                region.snr = g["snr"].is_null() ? (region.flux >= 0 ? 1.0 : -1.0) * std::numeric_limits<double>::infinity()
                                                : g.number("snr");
            if (g.has("contrast") && !g["contrast"].is_null()) region.contrast = g.number("contrast");
            region.peak = g.number("peak");
            region.centroidX = g.number("centroid_x");
            region.centroidY = g.number("centroid_y");
            if (g.has("ra")) {
                region.hasSky = true;
                region.ra = g.number("ra");
                region.dec = g.number("dec");
            }
            region.meanBackground = g.number("mean_background");
            for (const Json& f : g.array("flags")) {
                const std::string name = resultjson::string(f, g.path("flags") + "[]");
                bool known = false;
                for (const auto& [bit, n] : flagNames())
                    if (name == n) {
                        region.flags |= bit;
                        known = true;
                    }
                if (!known) g.fail("flags[]", "saturated, edge or blank");
            }
        }
        r.regions.push_back(region);
    }
    return r;
}

std::string brightestDescription(const BrightestResult& r, int k) {
    return "brightest, pivot " + formatNumber(r.pivot) + " (" + r.pivotSpec.text() + "), mode " +
           brightestModeName(r.mode) + (r.distinct ? ", distinct " + formatNumber(*r.distinct) : std::string()) +
           ", k " + std::to_string(k);
}

const Algorithm& brightestAlgorithm() {
    static const BrightestAlgorithm algorithm;
    return algorithm;
}

} // namespace glint
