// glint-cli info: what a file holds, as JSON or as a short text summary.
#include "cli/Args.h"
#include "cli/Commands.h"
#include "export/JsonOutput.h"
#include "io/ImageLoader.h"
#include "io/ImageStats.h"
#include "io/Wcs.h"
#include "jobs/Backend.h"
#include "util/Errors.h"

#include <iostream>

namespace glint::cli {

namespace {

Json hduJson(const HduInfo& h) {
    Json j = Json::object();
    j["index"] = h.index;
    j["kind"] = h.kind;
    j["name"] = h.name;
    j["bitpix"] = h.bitpix;
    j["axes"] = h.axes;
    return j;
}

} // namespace

int runInfo(const std::vector<std::string>& args) {
    const ParsedArgs a = parseArgs(args, {{"--hdu", "--plane", "--frame", "--json"}, {}});
    if (a.positionals.size() != 1) throw UsageError("info takes exactly one IMAGE");
    LoadOptions options;
    if (auto v = a.value("--hdu")) {
        const long long hdu = parseInteger(*v, "--hdu");
        if (hdu < 0) throw UsageError("option '--hdu' must be 0 or more");
        options.hdu = static_cast<int>(hdu);
    }
    if (auto v = a.value("--plane")) {
        const long long plane = parseInteger(*v, "--plane");
        if (plane < 0) throw UsageError("option '--plane' must be 0 or more");
        options.plane = static_cast<int>(plane);
    }
    if (auto v = a.value("--frame")) {
        const long long frame = parseInteger(*v, "--frame");
        if (frame < 0) throw UsageError("option '--frame' must be 0 or more");
        options.frame = static_cast<int>(frame);
    }
    const std::string path = a.positionals[0];
    const Image image = loadImage(path, options);

    Timing timing;
    ImageStats stats;
    {
        auto step = timing.scope("stats");
        stats = computeStats(image);
    }
    Json doc = resultDocument("info", "cpu", cpuDeviceName(), timing);
    doc["path"] = path;
    doc["format"] = image.meta.format;
    doc["width"] = image.width();
    doc["height"] = image.height();
    doc["bit_depth"] = image.meta.bitDepth;
    doc["sample_type"] = sampleTypeName(image.sampleType());
    doc["integer_valued"] = image.meta.integerValued;
    doc["min"] = stats.min;
    doc["max"] = stats.max;
    doc["mean"] = stats.mean;
    doc["median"] = stats.median;
    doc["blank_count"] = image.blankCount();
    doc["hdu"] = image.meta.hdu;
    Json hdus = Json::array();
    for (const auto& h : image.meta.hdus) hdus.push_back(hduJson(h));
    doc["hdus"] = hdus;
    doc["plane"] = image.meta.plane;
    doc["planes"] = image.meta.planeCount;
    doc["frame"] = image.meta.frame;
    doc["frames"] = image.meta.frameCount;
    doc["colour"] = image.meta.wasColour;
    doc["wcs"] = image.meta.wcs != nullptr;
    if (image.meta.wcs) {
        if (auto c = image.meta.wcs->pixelToSky((image.width() - 1) / 2.0, (image.height() - 1) / 2.0))
            doc["center_radec_j2000"] = {c->ra, c->dec};
    }
    if (image.meta.windowCenter && image.meta.windowWidth)
        doc["window"] = {{"center", *image.meta.windowCenter}, {"width", *image.meta.windowWidth}};

    if (auto dest = a.value("--json")) {
        writeJson(doc, *dest);
        return 0;
    }
    std::cout << path << ": " << image.meta.format << ", " << image.width() << " x " << image.height() << ", "
              << image.meta.bitDepth << "-bit " << sampleTypeName(image.sampleType())
              << (image.meta.integerValued ? " (integer-valued)" : "") << "\n"
              << "  min " << stats.min << "  max " << stats.max << "  mean " << stats.mean << "  median "
              << stats.median << "\n"
              << "  blank pixels " << image.blankCount() << (image.meta.wcs ? ", WCS present" : ", no WCS") << "\n";
    if (!image.meta.hdus.empty()) {
        std::cout << "  HDUs:";
        for (const auto& h : image.meta.hdus) {
            std::cout << "\n    [" << h.index << "] " << h.kind << (h.name.empty() ? "" : " " + h.name);
            if (!h.axes.empty()) {
                std::cout << " ";
                for (std::size_t i = 0; i < h.axes.size(); ++i) std::cout << (i ? "x" : "") << h.axes[i];
            }
            if (h.index == image.meta.hdu) std::cout << "  (shown)";
        }
        std::cout << "\n";
    }
    return 0;
}

} // namespace glint::cli
