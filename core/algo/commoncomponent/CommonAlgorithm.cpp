// The common-component descriptor: options, result schema, CSV row, region export, overlay, mask, text.
#include "core/algo/commoncomponent/CommonAlgorithm.h"

#include "core/algo/Algorithm.h"
#include "core/algo/commoncomponent/CommonSpec.h"
#include "core/algo/ResultJson.h"
#include "core/display/Display.h"
#include "core/export/CsvTable.h"
#include "core/export/MaskPng.h"
#include "core/export/OverlayImage.h"
#include "core/util/Errors.h"

#include <algorithm>
#include <climits>
#include <ostream>

namespace glint {

namespace {

Json imageJson(const std::string& path, const Image& image) {
    return Json{{"path", path}, {"width", image.width()}, {"height", image.height()}};
}

// Pixels of the mask with a 4-neighbour outside it: drawn solid, they outline the component.
std::vector<std::uint8_t> maskEdge(const std::vector<std::uint8_t>& mask, int w, int h) {
    std::vector<std::uint8_t> edge(mask.size(), 0);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const std::size_t i = static_cast<std::size_t>(y) * w + x;
            if (!mask[i]) continue;
            edge[i] = x == 0 || y == 0 || x == w - 1 || y == h - 1 || !mask[i - 1] || !mask[i + 1] || !mask[i - w] ||
                      !mask[i + w];
        }
    return edge;
}

class CommonOutcome final : public AlgorithmOutcome {
public:
    CommonOutcome(CommonComponentResult result, CommonComponentParams params, Backend backend, std::string device,
                  const AlgorithmInputs& inputs, Json parameters)
        : result_(std::move(result)), params_(params), backend_(backend), device_(std::move(device)),
          images_({{"a", imageJson(inputs.path, *inputs.image)}, {"b", imageJson(inputs.secondPath, *inputs.second)}}),
          secondPath_(inputs.secondPath), widthA_(inputs.image->width()), heightA_(inputs.image->height()),
          parameters_(std::move(parameters)) {}
    Json parameters() const override { return parameters_; }
    Backend backend() const override { return backend_; }
    std::string device() const override { return device_; }

    Json json() const override {
        Json doc = Json::object();
        doc["images"] = images_;
        doc.update(commonResultJson(result_));
        doc["tolerance"] = params_.tolerance;
        doc["normalize"] = commonNormalizeName(params_.normalize);
        doc["max_shift"] = params_.maxShift >= 0 ? Json(params_.maxShift) : Json(nullptr);
        return doc;
    }

    std::vector<std::vector<std::string>> csvRows() const override {
        const CommonComponentResult& r = result_;
        auto ifFound = [&](long long v) { return r.found ? std::to_string(v) : std::string(); };
        return {{secondPath_, backendName(backend_), r.found ? "1" : "0", ifFound(r.dx), ifFound(r.dy),
                 std::to_string(r.size), ifFound(r.bboxX), ifFound(r.bboxY), ifFound(r.bboxWidth), ifFound(r.bboxHeight),
                 formatNumber(params_.tolerance)}};
    }

    RegionDocument regions(const AlgorithmInputs& inputs) const override {
        RegionDocument doc = regionDocumentFor(*inputs.image);
        doc.description = result_.found ? "common component with " + inputs.secondPath + ", " +
                                              std::to_string(result_.size) + " px at dx " + std::to_string(result_.dx) +
                                              ", dy " + std::to_string(result_.dy)
                                        : "common component with " + inputs.secondPath + ": none";
        doc.regions = regionsFromCommon(result_, params_.tolerance);
        return doc;
    }

    void printText(std::ostream& out, const AlgorithmInputs&, double totalMs) const override {
        const CommonComponentResult& r = result_;
        if (r.found)
            out << "common component: " << r.size << " pixels at dx " << r.dx << ", dy " << r.dy << " (box in A: "
                << r.bboxX << "," << r.bboxY << " " << r.bboxWidth << "x" << r.bboxHeight << ")\n";
        else
            out << "no common component: no pixel of A matches B at any offset searched\n";
        const CommonComponentConfidence& c = r.confidence;
        if (r.found) {
            out << "  " << commonPlacementSentence(r) << "; covers " << formatNumber(100.0 * c.coverage) << "% of the "
                << c.overlapArea << "-pixel overlap";
            if (c.hasRunnerUp)
                out << "; runner-up " << c.runnerUpSize << " px at dx " << c.runnerUp.dx << ", dy " << c.runnerUp.dy;
            out << "\n";
        }
        if (r.found && !c.reliable)
            out << "  not reliable: below " << formatNumber(100.0 * kCommonReliableCoverage)
                << "% of the overlap, so the images may not share this region\n";
        if (params_.normalize == CommonNormalize::Linear)
            out << "  B normalised: B' = " << formatNumber(c.gain) << " * B + " << formatNumber(c.bias) << "\n";
        else if (params_.normalize == CommonNormalize::Rank)
            out << "  B normalised by rank (histogram matching)\n";
        out << "  " << backendName(backend_) << " on " << device_ << ", " << totalMs << " ms, " << r.stats.offsets
            << " offsets, " << r.stats.labelled << " labelled, phase-correlation peak " << formatNumber(c.registrationPeak)
            << "\n";
    }

    void writeOverlay(const std::string& path, const AlgorithmInputs& inputs) const override {
        const Image& a = *inputs.image;
        const Image& b = *inputs.second;
        const CommonComponentResult& r = result_;
        // One picture holding A, a gap, and B, so that both share display limits.
        const int gap = std::max(4, std::min(a.width(), b.width()) / 50);
        const int width = a.width() + gap + b.width(), height = std::max(a.height(), b.height());
        std::vector<double> values(static_cast<std::size_t>(width) * height, 0.0);
        std::vector<std::uint8_t> blank(values.size(), 1);
        auto place = [&](const Image& image, int x0) {
            for (int y = 0; y < image.height(); ++y)
                for (int x = 0; x < image.width(); ++x) {
                    const std::size_t i = static_cast<std::size_t>(y) * width + x0 + x;
                    values[i] = image.value(x, y);
                    blank[i] = image.isBlank(x, y) ? 1 : 0;
                }
        };
        place(a, 0);
        place(b, a.width() + gap);
        Image both = Image::fromSamples<double>(width, height, std::move(values));
        both.setBlankMask(std::move(blank));
        both.meta.windowCenter = a.meta.windowCenter;
        both.meta.windowWidth = a.meta.windowWidth;
        // Drawn the way the window draws A (FITS y-up: flipped, row 0 at the bottom, and the legend says so);
        // B keeps A's orientation there, since the offset relates stored rows, so the one flag is A's.
        both.meta.displayYUp = a.meta.displayYUp;
        OverlayImage overlay(both, defaultDisplaySettings(both));
        const std::uint32_t colour = overlayPaletteColour(0);
        const int bx = a.width() + gap;
        if (r.found) {
            const auto edge = maskEdge(r.mask, r.maskWidth, r.maskHeight);
            overlay.tintMask(r.mask, r.maskWidth, r.maskHeight, 0, 0, colour, 0.45);
            overlay.tintMask(r.mask, r.maskWidth, r.maskHeight, bx + r.dx, r.dy, colour, 0.45);
            overlay.tintMask(edge, r.maskWidth, r.maskHeight, 0, 0, colour, 1.0);
            overlay.tintMask(edge, r.maskWidth, r.maskHeight, bx + r.dx, r.dy, colour, 1.0);
            overlay.drawLegend({{"common component: " + std::to_string(r.size) + " px, dx " + std::to_string(r.dx) +
                                     ", dy " + std::to_string(r.dy),
                                 colour}});
        } else {
            overlay.drawLegend({{"no common component", overlayPaletteColour(1)}});
        }
        // "A" and "B" at the bottom of the picture, clear of the legend: the image's last rows, or its first
        // ones when flipped.
        const double labelRow = overlay.isFlipped() ? 0.0 : height - 2.0;
        overlay.drawLabel(2, labelRow, "A", 0xFFFFFF);
        overlay.drawLabel(bx + 2, labelRow, "B", 0xFFFFFF);
        overlay.savePng(path);
    }

    void writeOutput(const std::string& option, const std::string& path) const override {
        if (option == "--mask") writeComponentMaskPng(path, result_, widthA_, heightA_); // all black when none
        else AlgorithmOutcome::writeOutput(option, path);
    }

private:
    CommonComponentResult result_;
    CommonComponentParams params_;
    Backend backend_;
    std::string device_;
    Json images_;
    std::string secondPath_;
    int widthA_, heightA_;
    Json parameters_;
};

class CommonAlgorithm final : public Algorithm {
public:
    const char* name() const override { return "common"; }
    const char* summary() const override { return "the largest 4-connected component two images share at some offset"; }
    int imageCount() const override { return 2; }
    const ParamSpecBase& spec() const override { return commonSpec(); }
    std::vector<std::string> outputOptions() const override { return {"--mask"}; }
    std::vector<std::string> csvColumns() const override {
        return {"reference", "backend", "found", "dx", "dy", "size", "bbox_x", "bbox_y", "bbox_width", "bbox_height",
                "tolerance"};
    }
    std::unique_ptr<AlgorithmOutcome> run(const Json& request, const AlgorithmInputs& inputs, Backend backend,
                                          JobControl& job) const override {
        CommonRun run = runCommonRequest(*inputs.image, *inputs.second, request, backend, job);
        const Backend ran = run.result.backend;
        std::string device = run.result.device;
        return std::make_unique<CommonOutcome>(std::move(run.result), run.params, ran, std::move(device), inputs,
                                               std::move(run.parameters));
    }
};

} // namespace

Json commonResultJson(const CommonComponentResult& r) {
    Json doc = Json::object();
    doc["found"] = r.found;
    doc["offset"] = r.found ? Json{{"dx", r.dx}, {"dy", r.dy}} : Json(nullptr);
    doc["size"] = r.size;
    doc["bbox"] = r.found ? Json{{"x", r.bboxX}, {"y", r.bboxY}, {"width", r.bboxWidth}, {"height", r.bboxHeight}}
                          : Json(nullptr);
    doc["offsets"] = {{"searched", r.stats.offsets},           {"pruned_by_area", r.stats.prunedByArea},
                      {"pruned_by_bound", r.stats.prunedByBound}, {"pruned_by_count", r.stats.prunedByCount},
                      {"labelled", r.stats.labelled},           {"seed_candidates", r.stats.seedCandidates}};
    const CommonComponentConfidence& c = r.confidence;
    doc["overlap_area"] = c.overlapArea;
    doc["coverage"] = c.coverage;
    doc["reliable"] = c.reliable;
    doc["placement"] = commonPlacementSentence(r);
    doc["runner_up"] = c.hasRunnerUp ? Json{{"dx", c.runnerUp.dx}, {"dy", c.runnerUp.dy}, {"size", c.runnerUpSize}}
                                     : Json(nullptr);
    doc["registration"] = c.registered ? Json{{"peak", c.registrationPeak}} : Json(nullptr);
    doc["normalization"] = {{"gain", c.gain}, {"bias", c.bias}};
    return doc;
}

CommonComponentResult commonResultFromJson(const Json& json) {
    const resultjson::Object in(json, "common");
    CommonComponentResult r;
    r.found = in.boolean("found");
    const std::int64_t size = in.integer("size");
    if (size < 0 || (size == 0) == r.found) in.fail("size", r.found ? "a positive pixel count" : "0");
    r.size = static_cast<std::uint64_t>(size);
    const resultjson::Object stats = in.object("offsets");
    auto count = [&](const char* name) {
        const std::int64_t v = stats.integer(name);
        if (v < 0) stats.fail(name, "a count");
        return static_cast<std::uint64_t>(v);
    };
    r.stats.offsets = count("searched");
    r.stats.prunedByArea = count("pruned_by_area");
    r.stats.prunedByBound = count("pruned_by_bound");
    r.stats.prunedByCount = count("pruned_by_count");
    r.stats.labelled = count("labelled");
    r.stats.seedCandidates = count("seed_candidates");
    // The confidence fields came later: documents without them stay readable.
    CommonComponentConfidence& c = r.confidence;
    if (in.has("overlap_area")) {
        const std::int64_t area = in.integer("overlap_area");
        if (area < 0) in.fail("overlap_area", "a pixel count");
        c.overlapArea = static_cast<std::uint64_t>(area);
    }
    if (in.has("coverage")) {
        c.coverage = in.number("coverage");
        if (!(c.coverage >= 0.0 && c.coverage <= 1.0)) in.fail("coverage", "a fraction between 0 and 1");
    }
    if (in.has("reliable")) c.reliable = in.boolean("reliable");
    else c.reliable = r.found && c.coverage >= kCommonReliableCoverage;
    if (in.has("runner_up") && !in["runner_up"].is_null()) {
        const resultjson::Object u = in.object("runner_up");
        c.hasRunnerUp = true;
        c.runnerUp.dx = u.smallInteger("dx");
        c.runnerUp.dy = u.smallInteger("dy");
        const std::int64_t size = u.integer("size");
        if (size < 0) u.fail("size", "a pixel count");
        c.runnerUpSize = static_cast<std::uint64_t>(size);
    }
    if (in.has("registration") && !in["registration"].is_null()) {
        const resultjson::Object reg = in.object("registration");
        c.registered = true;
        c.registrationPeak = reg.number("peak");
    }
    if (in.has("normalization")) {
        const resultjson::Object n = in.object("normalization");
        c.gain = n.number("gain");
        c.bias = n.number("bias");
    }
    if (!r.found) return r;
    const resultjson::Object offset = in.object("offset");
    r.dx = offset.smallInteger("dx");
    r.dy = offset.smallInteger("dy");
    const resultjson::Object box = in.object("bbox");
    r.bboxX = box.smallInteger("x");
    r.bboxY = box.smallInteger("y");
    r.bboxWidth = box.smallInteger("width");
    r.bboxHeight = box.smallInteger("height");
    if (r.bboxX < 0 || r.bboxY < 0 || r.bboxWidth <= 0 || r.bboxHeight <= 0) box.fail("a box");
    return r;
}

const Algorithm& commonAlgorithm() {
    static const CommonAlgorithm algorithm;
    return algorithm;
}

} // namespace glint
