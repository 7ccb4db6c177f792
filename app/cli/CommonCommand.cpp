// glint-cli common: the largest 4-connected component two images share at some offset, as JSON or a
// text line, with an optional side-by-side overlay (A left, B right, the component tinted on both) and
// the component mask as a PNG in A's frame.
#include "app/cli/Args.h"
#include "app/cli/Commands.h"

#include "core/algo/common/CommonComponent.h"
#include "core/display/Display.h"
#include "core/export/JsonOutput.h"
#include "core/export/OverlayImage.h"
#include "core/io/ImageLoader.h"
#include "core/util/AtomicFile.h"
#include "core/util/Errors.h"

#if GLINT_WITH_IMGCODECS
#include <opencv2/imgcodecs.hpp>
#endif

#include <algorithm>
#include <climits>
#include <iostream>

namespace glint::cli {

namespace {

Json imageJson(const std::string& path, const Image& image) {
    return Json{{"path", path}, {"width", image.width()}, {"height", image.height()}};
}

// Pixels of the mask with a 4-neighbour outside it: drawn solid, they outline the component.
std::vector<std::uint8_t> maskOutline(const std::vector<std::uint8_t>& mask, int w, int h) {
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

void writeOverlay(const std::string& path, const Image& a, const Image& b, const CommonComponentResult& r) {
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
    OverlayImage overlay(both, defaultDisplaySettings(both));
    const std::uint32_t colour = overlayPaletteColour(0);
    const int bx = a.width() + gap;
    if (r.found) {
        const auto edge = maskOutline(r.mask, r.maskWidth, r.maskHeight);
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
    overlay.drawLabel(2, height - 2, "A", 0xFFFFFF);
    overlay.drawLabel(bx + 2, height - 2, "B", 0xFFFFFF);
    overlay.savePng(path);
}

void writeMask(const std::string& path, const CommonComponentResult& r) {
#if !GLINT_WITH_IMGCODECS
    (void)r;
    throw OutputError("cannot write '" + path + "': this headless build of Glint writes no PNG files");
#else
    cv::Mat image(r.maskHeight, r.maskWidth, CV_8UC1, cv::Scalar(0));
    for (std::size_t i = 0; i < r.mask.size(); ++i)
        if (r.mask[i]) image.at<std::uint8_t>(static_cast<int>(i / r.maskWidth), static_cast<int>(i % r.maskWidth)) = 255;
    std::vector<std::uint8_t> bytes;
    if (!cv::imencode(".png", image, bytes)) throw OutputError("cannot write '" + path + "': PNG encoding failed");
    writeFileAtomically(path, std::string(bytes.begin(), bytes.end()));
#endif
}

} // namespace

int runCommon(const std::vector<std::string>& args) {
    const ParsedArgs a =
        parseArgs(args, {{"--tolerance", "--max-shift", "--backend", "--json", "--overlay", "--mask"}, {}});
    if (a.positionals.size() != 2) throw UsageError("common takes exactly two images: IMAGE_A IMAGE_B");
    CommonComponentParams params;
    if (auto v = a.value("--tolerance")) {
        params.tolerance = parseNumber(*v, "--tolerance");
        if (params.tolerance < 0) throw UsageError("option '--tolerance' must be 0 or more");
    }
    if (auto v = a.value("--max-shift")) params.maxShift = parseInteger(*v, "--max-shift", 0, INT_MAX);
    const Backend backend = parseBackend(a.valueOr("--backend", "auto"));
#if !GLINT_WITH_IMGCODECS
    if (a.has("--overlay") || a.has("--mask"))
        throw OutputError("this headless build of Glint writes no PNG files (--overlay, --mask)");
#endif
    const std::string pathA = a.positionals[0], pathB = a.positionals[1];
    const Image imageA = loadImage(pathA);
    const Image imageB = loadImage(pathB);
    try {
        validateMaxShift(params.maxShift, imageA.width(), imageA.height(), imageB.width(), imageB.height());
    } catch (const UsageError& e) {
        throw UsageError(std::string("option '--max-shift': ") + e.what());
    }

    JobControl job;
    const CommonComponentResult r = findCommonComponent(imageA, imageB, params, backend, job);

    if (auto out = a.value("--overlay")) writeOverlay(*out, imageA, imageB, r);
    if (auto out = a.value("--mask")) writeMask(*out, r); // all black when nothing was found

    Json doc = resultDocument("common", backendName(r.backend), r.device, job.timing());
    doc["images"] = {{"a", imageJson(pathA, imageA)}, {"b", imageJson(pathB, imageB)}};
    doc["offset"] = r.found ? Json{{"dx", r.dx}, {"dy", r.dy}} : Json(nullptr);
    doc["size"] = r.size;
    doc["bbox"] = r.found ? Json{{"x", r.bboxX}, {"y", r.bboxY}, {"width", r.bboxWidth}, {"height", r.bboxHeight}}
                          : Json(nullptr);
    doc["tolerance"] = params.tolerance;
    doc["max_shift"] = params.maxShift >= 0 ? Json(params.maxShift) : Json(nullptr);
    doc["offsets"] = {{"searched", r.stats.offsets},           {"pruned_by_area", r.stats.prunedByArea},
                      {"pruned_by_bound", r.stats.prunedByBound}, {"pruned_by_count", r.stats.prunedByCount},
                      {"labelled", r.stats.labelled},           {"seed_candidates", r.stats.seedCandidates}};
    if (auto dest = a.value("--json")) {
        writeJson(doc, *dest);
        return 0;
    }
    if (r.found)
        std::cout << "common component: " << r.size << " pixels at dx " << r.dx << ", dy " << r.dy << " (box in A: "
                  << r.bboxX << "," << r.bboxY << " " << r.bboxWidth << "x" << r.bboxHeight << ")\n";
    else
        std::cout << "no common component: no pixel of A matches B at any offset searched\n";
    std::cout << "  " << backendName(r.backend) << " on " << job.device() << ", " << job.timing().total() << " ms, "
              << r.stats.offsets << " offsets, " << r.stats.labelled << " labelled\n";
    return 0;
}

} // namespace glint::cli
