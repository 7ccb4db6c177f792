// glint-cli info: what a file holds, as JSON (DESIGN.md's fields, and a few more) or as a short text
// summary. Bad option values exit 2; a file that cannot be read, or a chosen HDU with no image, exits 3.
#include "core/params/Options.h"
#include "app/cli/Commands.h"
#include "core/export/JsonOutput.h"
#include "core/io/Georef.h"
#include "core/io/DicomVoi.h"
#include "core/io/ImageLoader.h"
#include "core/params/ImageKind.h"
#include "core/io/ImageStats.h"
#include "core/io/Wcs.h"
#include "core/jobs/Backend.h"
#include "core/util/AtomicFile.h"
#include "core/util/Errors.h"

#include <cmath>
#include <iomanip>
#include <iostream>
#include <optional>

namespace glint::cli {

namespace {

Json hduJson(const HduInfo& h) {
    Json j = Json::object();
    j["index"] = h.index;
    j["kind"] = h.kind;
    j["name"] = h.name;
    j["bitpix"] = h.bitpix;
    j["axes"] = h.axes;
    j["image"] = h.hasImage();
    return j;
}

std::optional<int> indexOption(const ParsedArgs& a, const std::string& option) {
    const auto v = a.value(option);
    if (!v) return std::nullopt;
    const long long n = parseInteger(*v, option);
    if (n < 0 || n > 1'000'000'000) throw UsageError("option '" + option + "' must be a number from 0");
    return static_cast<int>(n);
}

Json numberOrNull(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }

} // namespace

int runInfo(const std::vector<std::string>& args) {
    const ParsedArgs a = parseArgs(args, {{"--hdu", "--plane", "--frame", "--json"}, {}});
    if (a.positionals.size() != 1) throw UsageError("info takes exactly one IMAGE");
    LoadOptions options;
    const auto hdu = indexOption(a, "--hdu");
    const auto plane = indexOption(a, "--plane");
    const auto frame = indexOption(a, "--frame");
    if (hdu) options.hdu = *hdu;
    if (plane) options.plane = *plane;
    if (frame) options.frame = *frame;
    const std::string path = a.positionals[0];
    if (auto dest = a.value("--json")) checkOutputTargets({path}, {}, {{"--json", *dest}});
    const FileFormat format = detectFileFormat(path);
    // An option that cannot apply to the file is a mistake worth saying, not something to ignore.
    if ((hdu || plane) && format != FileFormat::Fits)
        throw UsageError(std::string("'") + (hdu ? "--hdu" : "--plane") + "' applies to FITS files; '" + path +
                         "' is " + fileFormatName(format));
    if (frame && format != FileFormat::Dicom)
        throw UsageError("'--frame' applies to DICOM files; '" + path + "' is " + fileFormatName(format));
    const Image image = loadImage(path, options);

    Timing timing;
    ImageStats stats;
    {
        auto step = timing.scope("stats");
        stats = computeStats(image);
    }
    std::optional<SkyCoord> centre;
    if (image.meta.wcs) centre = image.meta.wcs->pixelToSky((image.width() - 1) / 2.0, (image.height() - 1) / 2.0);

    Json doc = resultDocument("info", "cpu", cpuDeviceName(), timing);
    doc["path"] = path;
    doc["format"] = image.meta.format;
    doc["width"] = image.width();
    doc["height"] = image.height();
    doc["bit_depth"] = image.meta.bitDepth;
    doc["sample_type"] = sampleTypeName(image.sampleType());
    doc["integer_valued"] = image.meta.integerValued;
    doc["min"] = numberOrNull(stats.min);
    doc["max"] = numberOrNull(stats.max);
    doc["mean"] = numberOrNull(stats.mean);
    doc["median"] = numberOrNull(stats.median);
    doc["blank_count"] = image.blankCount();
    doc["hdu"] = image.meta.hdu >= 0 ? Json(image.meta.hdu) : Json(nullptr);
    Json hdus = Json::array();
    for (const auto& h : image.meta.hdus) hdus.push_back(hduJson(h));
    doc["hdus"] = hdus;
    doc["plane"] = image.meta.plane;
    doc["planes"] = image.meta.planeCount;
    doc["frame"] = image.meta.frame;
    doc["frames"] = image.meta.frameCount;
    doc["colour"] = image.meta.wasColour;
    // The kind --preset auto and the window take the image for (its format, metadata or content).
    const ImageKindGuess kind = classifyImage(image);
    doc["image_kind"] = imageKindName(kind.kind);
    doc["image_kind_reason"] = kind.reason;
    doc["wcs"] = image.meta.wcs != nullptr;
    if (image.meta.wcs) {
        doc["wcs_frame"] = image.meta.wcs->nativeFrame();
        if (centre) doc["center_radec_j2000"] = {centre->ra, centre->dec};
    }
    if (image.meta.windowCenter && image.meta.windowWidth)
        doc["window"] = {{"center", *image.meta.windowCenter}, {"width", *image.meta.windowWidth}};
    // DICOM's grayscale pipeline: the VOI choices (LUTs, windows, CT presets), function, polarity, units and
    // what was left out of the header (core/io/DicomVoi.h).
    if (const DicomVoi* voi = image.meta.voi.get()) {
        Json v = Json::object();
        v["function"] = voiFunctionName(voi->function);
        Json choices = Json::array();
        for (int i = 0; i < voi->choiceCount(); ++i) choices.push_back(voi->choiceName(i));
        v["choices"] = choices;
        v["inverse"] = voi->inverse;
        if (!voi->units.empty()) v["units"] = voi->units;
        v["notes"] = voi->notes;
        doc["voi"] = v;
    }
    // Georeferencing (GeoTIFF, world file): the CRS as "EPSG:N" or WKT (null when only a world file
    // without .prj gives the geotransform) and GDAL's six numbers; absent when the image has none.
    const Georef* georef = image.meta.georef.get();
    if (georef) {
        Json g = Json::object();
        g["crs"] = georef->hasCrs() ? Json(georef->crsId()) : Json(nullptr);
        g["geotransform"] = georef->geoTransform();
        doc["georef"] = g;
    }

    if (auto dest = a.value("--json")) {
        writeJson(doc, *dest);
        return 0;
    }
    std::cout << path << ": " << image.meta.format << ", " << image.width() << " x " << image.height() << ", "
              << image.meta.bitDepth << "-bit " << sampleTypeName(image.sampleType())
              << (image.meta.integerValued ? " (integer-valued)" : "") << (image.meta.wasColour ? ", from colour" : "")
              << "\n"
              << "  min " << stats.min << "  max " << stats.max << "  mean " << stats.mean << "  median "
              << stats.median << "\n"
              << "  blank pixels " << image.blankCount();
    if (image.meta.wcs) {
        std::cout << ", WCS (" << image.meta.wcs->nativeFrame() << ")";
        if (centre) std::cout << ", centre " << formatRa(centre->ra) << " " << formatDec(centre->dec) << " (FK5 J2000)";
    } else {
        std::cout << ", no WCS";
    }
    std::cout << "\n";
    std::cout << "  kind: " << imageKindName(kind.kind) << " (" << kind.reason << "; --preset auto uses its defaults)\n";
    if (image.meta.planeCount > 1) std::cout << "  plane " << image.meta.plane << " of " << image.meta.planeCount << "\n";
    if (image.meta.frameCount > 1) std::cout << "  frame " << image.meta.frame << " of " << image.meta.frameCount << "\n";
    if (georef) {
        std::cout << "  georeferenced (" << georef->source() << "): "
                  << (georef->hasCrs() ? (georef->epsg() ? georef->crsId() + " " : std::string()) + georef->crsName()
                                       : std::string("no CRS"))
                  << ", geotransform " << geoTransformText(georef->geoTransform()) << "\n";
        const MapPoint c = georef->pixelToMap((image.width() - 1) / 2.0, (image.height() - 1) / 2.0);
        std::cout << "  centre " << std::setprecision(12) << c.x << ", " << c.y << " " << georef->unitSymbol();
        if (const auto ll = georef->pixelToLonLat((image.width() - 1) / 2.0, (image.height() - 1) / 2.0))
            std::cout << "  (lon " << std::setprecision(10) << ll->lon << ", lat " << ll->lat << ", WGS 84)";
        std::cout << std::setprecision(6) << "\n";
    }
    if (image.meta.windowCenter && image.meta.windowWidth)
        std::cout << "  window centre " << *image.meta.windowCenter << ", width " << *image.meta.windowWidth << "\n";
    if (const DicomVoi* voi = image.meta.voi.get()) {
        std::cout << "  VOI " << voiFunctionName(voi->function) << (voi->inverse ? ", inverted" : "")
                  << (voi->units.empty() ? "" : ", values in " + voi->units) << "\n";
        for (int i = 0; i < voi->choiceCount(); ++i) std::cout << "    " << voi->choiceName(i) << "\n";
        for (const std::string& note : voi->notes) std::cout << "    note: " << note << "\n";
    }
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
