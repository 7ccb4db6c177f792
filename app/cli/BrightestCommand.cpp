// glint-cli brightest: the brightest region, or the K brightest disjoint (or overlapping) regions, of an image.
#include "core/algo/brightest/Brightest.h"
#include "app/cli/Args.h"
#include "app/cli/Commands.h"
#include "core/export/CsvTable.h"
#include "core/export/ExportRegions.h"
#include "core/export/JsonOutput.h"
#include "core/export/OverlayImage.h"
#include "core/io/ImageLoader.h"
#include "core/util/Errors.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <sstream>

namespace glint::cli {

namespace {

int nonNegativeOption(const ParsedArgs& a, const std::string& name) {
    return static_cast<int>(parseInteger(*a.value(name), name, 0, INT_MAX));
}

Json sumJson(const BrightestRegion& r) { return r.exactInteger ? Json(r.sumInt) : Json(r.sum); }

// The overlay draws the best kOverlayRegions regions (each costs ~0.4 ms with its label: 500 000 of
// them took minutes and give an unreadable picture) and says so in a legend; --json and --regions hold
// them all.
constexpr std::size_t kOverlayRegions = 1000;

void drawOverlay(const Image& image, const BrightestResult& result, const std::string& path) {
    OverlayImage overlay(image, defaultDisplaySettings(image));
    const std::size_t shown = std::min(result.regions.size(), kOverlayRegions);
    for (std::size_t i = 0; i < shown; ++i) {
        const BrightestRegion& r = result.regions[i];
        const std::uint32_t colour = overlayPaletteColour(static_cast<std::size_t>(r.rank - 1));
        overlay.drawRectangle(r.x, r.y, r.width, r.height, colour);
        std::ostringstream label;
        label << "#" << r.rank << "  ";
        if (r.exactInteger) label << r.sumInt;
        else label << std::setprecision(6) << r.sum;
        overlay.drawRectangleLabel(r.x, r.y, r.width, r.height, label.str(), colour);
    }
    if (shown < result.regions.size())
        overlay.drawLegend({{"regions 1-" + std::to_string(shown) + " of " + std::to_string(result.regions.size()) +
                                 " shown (--json and --regions list all)",
                             overlayPaletteColour(0)}});
    overlay.savePng(path);
}

} // namespace

int runBrightestCommand(const std::vector<std::string>& args) {
    const ParsedArgs a = parseArgs(args, {{"--pivot", "--k", "--mode", "--roi", "--exclude", "--exclude-polygon",
                                           "--backend", "--json", "--overlay", "--hdu", "--plane", "--frame", "--regions",
                                           "--geojson-crs"},
                                          {}});
    if (a.positionals.size() != 1) throw UsageError("brightest takes exactly one IMAGE");
    BrightestParams params;
    if (auto v = a.value("--pivot")) params.pivot = PivotSpec::parse(*v);
    if (auto v = a.value("--k")) params.k = parseResultCount(*v, "--k");
    if (auto v = a.value("--mode")) params.mode = parseBrightestMode(*v);
    if (auto v = a.value("--roi")) {
        params.hasRoi = true;
        params.roi = parseRect(*v, "--roi");
    }
    for (const auto& v : a.values("--exclude")) params.excludeRects.push_back(parseRect(v, "--exclude"));
    for (const auto& v : a.values("--exclude-polygon")) {
        const std::vector<double> xy = parseNumberList(v, "--exclude-polygon", 0);
        PixelPolygon polygon;
        for (std::size_t i = 0; i + 1 < xy.size(); i += 2) polygon.points.emplace_back(xy[i], xy[i + 1]);
        params.excludePolygons.push_back(std::move(polygon));
    }
    const Backend backend = parseBackend(a.valueOr("--backend", "auto"));
    const auto overlayPath = a.value("--overlay");
    if (overlayPath && !GLINT_WITH_IMGCODECS)
        throw OutputError("cannot write '" + *overlayPath + "': this headless build of Glint writes no PNG files");
    for (const auto& out : a.values("--regions")) regionFormatForPath(out); // a bad extension is a usage error now
    RegionWriteOptions regionOptions;
    if (auto v = a.value("--geojson-crs")) {
        const auto crs = parseGeoJsonCrs(*v);
        if (!crs) throw UsageError("option '--geojson-crs' must be image, wgs84, pixel or auto");
        regionOptions.geoJsonCrs = *crs;
    }
    LoadOptions options;
    if (a.has("--hdu")) options.hdu = nonNegativeOption(a, "--hdu");
    if (a.has("--plane")) options.plane = nonNegativeOption(a, "--plane");
    if (a.has("--frame")) options.frame = nonNegativeOption(a, "--frame");

    const std::string path = a.positionals[0];
    const Image image = loadImage(path, options);
    for (const auto& out : a.values("--regions")) // map coordinates of an image that has none: say so first
        if (regionFormatForPath(out) == RegionFormat::GeoJson) resolveGeoJsonCrs(regionOptions.geoJsonCrs, regionDocumentFor(image));

    JobControl job;
    // runBrightest sets the algorithm's total itself, without the GPU's one-time set-up (reported apart as
    // timing_ms.device_init / device_wait).
    const BrightestResult result = runBrightest(image, params, backend, job);

    Json doc = resultDocument("brightest", backendName(result.backend), result.device, job.timing());
    doc["image"] = {{"path", path}, {"width", image.width()}, {"height", image.height()}};
    doc["pivot"] = result.pivot;
    doc["pivot_spec"] = result.pivotSpec.text();
    doc["mode"] = brightestModeName(result.mode);
    doc["k"] = params.k;
    doc["exact_integer"] = result.exactInteger;
    doc["included_pixels"] = result.includedPixels;
    Json regions = Json::array();
    for (const BrightestRegion& r : result.regions) {
        regions.push_back({{"rank", r.rank},
                           {"x", r.x},
                           {"y", r.y},
                           {"width", r.width},
                           {"height", r.height},
                           {"sum", sumJson(r)},
                           {"mean", result.regionMean(r)},
                           {"pixels", r.pixels()}});
    }
    doc["regions"] = regions;

    if (auto dest = a.value("--json")) writeJson(doc, *dest);
    if (overlayPath) drawOverlay(image, result, *overlayPath);
    for (const auto& out : a.values("--regions")) {
        // .reg is fk5 (J2000) when the image has a WCS, image coordinates otherwise.
        RegionDocument regionDoc = regionDocumentFor(image);
        regionDoc.description = "brightest, pivot " + formatNumber(result.pivot) + " (" + result.pivotSpec.text() +
                                "), mode " + brightestModeName(result.mode) + ", k " + std::to_string(params.k);
        regionDoc.regions = regionsFromBrightest(result);
        writeRegionFile(out, regionDoc, regionOptions);
    }
    if (!a.value("--json") || *a.value("--json") != "-") {
        std::cout << path << ": " << image.width() << "x" << image.height() << ", pivot "
                  << std::setprecision(10) << result.pivot << " (" << result.pivotSpec.text() << "), "
                  << backendName(result.backend) << " on " << result.device << ", " << std::fixed
                  << std::setprecision(2) << job.timing().total() << " ms\n";
        if (result.regions.empty()) std::cout << "  no region has a positive sum\n";
        for (const BrightestRegion& r : result.regions) {
            std::cout << "  #" << r.rank << "  x " << r.x << "  y " << r.y << "  " << r.width << "x" << r.height
                      << "  sum ";
            if (r.exactInteger) std::cout << r.sumInt;
            else std::cout << std::setprecision(6) << std::defaultfloat << r.sum << std::fixed;
            std::cout << "  mean " << std::setprecision(4) << result.regionMean(r) << "\n";
        }
    }
    return 0;
}

} // namespace glint::cli
