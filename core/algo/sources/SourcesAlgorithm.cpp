// The source catalogue's descriptor: options, result schema, CSV rows, region export, overlay, text and its files
// (--catalog, --segmentation, --background-map, --rms-map).
#include "core/algo/Algorithm.h"
#include "core/algo/sources/Sources.h"
#include "core/display/Display.h"
#include "core/export/CsvTable.h"
#include "core/export/FitsHeaderContext.h"
#include "core/export/FitsMaps.h"
#include "core/export/OverlayImage.h"
#include "core/export/SourceCatalogFile.h"
#include "core/util/Errors.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <ostream>
#include <sstream>

namespace glint {

namespace {

Json numberOrNull(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }
std::string cell(double v) { return std::isfinite(v) ? formatNumber(v) : std::string(); }

// The overlay draws the brightest kOverlaySources ellipses and labels the first kOverlayLabels.
constexpr std::size_t kOverlaySources = 5000;
constexpr std::size_t kOverlayLabels = 50;
constexpr std::size_t kThinLinesFrom = 200;

class SourcesOutcome final : public AlgorithmOutcome {
public:
    SourcesOutcome(SourcesRun run, const AlgorithmInputs& inputs)
        : run_(std::move(run)), path_(inputs.path),
          header_(sourcesHeaderContext(*inputs.image, run_.result, run_.parameters)) {}
    Json parameters() const override { return run_.parameters; }
    Backend backend() const override { return Backend::Cpu; }
    std::string device() const override { return "cpu"; }

    Json json() const override {
        Json doc = sourcesResultJson(run_.result);
        doc["image"] = {{"path", path_}, {"width", run_.result.width}, {"height", run_.result.height}};
        if (run_.kind) doc["image"]["kind"] = {{"kind", imageKindName(run_.kind->kind)}, {"reason", run_.kind->reason}};
        return doc;
    }

    std::vector<std::vector<std::string>> csvRows() const override {
        std::vector<std::vector<std::string>> rows;
        const SourcesResult& r = run_.result;
        const std::vector<std::string> head = {std::to_string(r.width), std::to_string(r.height)};
        if (r.catalog.sources.empty()) rows.push_back(head); // the file was done: no source
        for (const SourceRecord& s : r.catalog.sources) {
            std::vector<std::string> row = head;
            for (const std::string& f :
                 {std::to_string(s.number), cell(s.x), cell(s.y), cell(s.fluxAuto), cell(s.fluxErrAuto), cell(s.magAuto),
                  cell(s.fluxIso), cell(s.a), cell(s.b), cell(s.theta), cell(s.kronRadius), cell(s.fwhm),
                  std::to_string(s.isoArea), cell(s.background), std::to_string(s.flags), cell(s.snr), cell(s.ra), cell(s.dec)})
                row.push_back(f);
            rows.push_back(std::move(row));
        }
        return rows;
    }

    RegionDocument regions(const AlgorithmInputs& inputs) const override {
        RegionDocument doc = regionDocumentFor(*inputs.image);
        doc.description = sourcesDescription(run_.result, run_.parameters);
        doc.regions = regionsFromSources(run_.result);
        return doc;
    }

    void printText(std::ostream& out, const AlgorithmInputs& inputs, double totalMs) const override {
        const SourcesResult& r = run_.result;
        out << inputs.path << ": " << r.width << "x" << r.height << ", " << r.catalog.sources.size() << " sources ("
            << r.footprints << " footprints), background " << std::setprecision(6) << r.globalBackground << " rms "
            << r.globalRms << ", filter " << run_.parameters.value("filter", std::string("none")) << ", " << std::fixed
            << std::setprecision(2) << totalMs << " ms\n"
            << std::defaultfloat;
        if (!r.note.empty()) out << "  " << r.note << "\n";
        const std::size_t shown = std::min<std::size_t>(r.catalog.sources.size(), 20);
        for (std::size_t i = 0; i < shown; ++i) {
            const SourceRecord& s = r.catalog.sources[i];
            out << "  #" << s.number << std::fixed << std::setprecision(2) << "  x " << s.x << "  y " << s.y
                << std::defaultfloat << std::setprecision(6) << "  flux_auto " << s.fluxAuto << "  mag " << std::setprecision(4)
                << s.magAuto << "  a " << s.a << "  b " << s.b << "  fwhm " << s.fwhm << "  snr " << s.snr;
            if (s.flags) out << "  flags " << s.flags;
            out << "\n";
        }
        if (shown < r.catalog.sources.size())
            out << "  ... " << r.catalog.sources.size() - shown << " more (--json or --catalog list them all)\n";
    }

    void writeOverlay(const std::string& path, const AlgorithmInputs& inputs) const override {
        const Image& image = *inputs.image;
        OverlayImage overlay(image, defaultDisplaySettings(image));
        const RegionDocument doc = regions(inputs);
        const std::size_t shown = std::min(doc.regions.size(), kOverlaySources);
        // Hundreds of ellipses: hairlines, so that the frame stays readable between them.
        const int thickness = shown > kThinLinesFrom ? 1 : 0;
        for (std::size_t i = 0; i < shown; ++i) overlay.drawPolyline(doc.regions[i].points, doc.regions[i].colour, true, 1.0, thickness);
        for (std::size_t i = 0; i < std::min(shown, kOverlayLabels); ++i) {
            const ExportRegion& e = doc.regions[i];
            overlay.drawRectangleLabel(e.x, e.y, e.width, e.height, e.label, e.colour);
        }
        if (shown < doc.regions.size())
            overlay.drawLegend({{"sources 1-" + std::to_string(shown) + " of " + std::to_string(doc.regions.size()) +
                                     " drawn (--json and --catalog list all)",
                                 overlayPaletteColour(0)}});
        overlay.savePng(path);
    }

    void writeOutput(const std::string& option, const std::string& path) const override {
        const SourcesResult& r = run_.result;
        if (option == "--catalog") {
            const std::string format = run_.parameters.value("catalog_format", std::string("auto"));
            writeSourceCatalog(r.catalog, path, sourceCatalogFormat(path, format == "auto" ? "" : format), &header_);
        } else if (option == "--segmentation") {
            writeFitsMap(path, r.width, r.height, r.segmentation, &header_);
        } else if (option == "--background-map") {
            writeFitsMap(path, r.width, r.height, r.background, &header_, "Glint background map");
        } else if (option == "--rms-map") {
            writeFitsMap(path, r.width, r.height, r.rms, &header_, "Glint background RMS map");
        } else {
            AlgorithmOutcome::writeOutput(option, path);
        }
    }

    std::vector<std::string> notes() const override {
        if (run_.result.note.empty()) return {};
        return {run_.result.note};
    }

private:
    SourcesRun run_;
    std::string path_;
    FitsHeaderContext header_;
};

class SourcesAlgorithm final : public Algorithm {
public:
    const char* name() const override { return "sources"; }
    const char* summary() const override {
        return "a source catalogue: footprints, deblending and SExtractor's measurements (FLUX_AUTO, A/B/THETA, ...)";
    }
    const ParamSpecBase& spec() const override { return sourcesSpec(); }
    std::vector<std::string> outputOptions() const override {
        return {"--catalog", "--segmentation", "--background-map", "--rms-map"};
    }
    std::string outputPlaceholder(const std::string& option) const override {
        return option == "--catalog" ? "OUT.fits|OUT.ldac|OUT.cat|OUT.csv" : "OUT.fits";
    }
    void checkOutput(const std::string& option, const std::string& path) const override {
        if (option == "--catalog") sourceCatalogFormat(path, ""); // a bad extension is a usage error now
        // (--catalog-format, when given, is checked against the path when the catalogue is written)
    }
    std::vector<std::string> csvColumns() const override {
        return {"image_width", "image_height", "number", "x", "y", "flux_auto", "fluxerr_auto", "mag_auto",
                "flux_iso", "a", "b", "theta", "kron_radius", "fwhm", "area", "background", "flags", "snr", "ra", "dec"};
    }
    std::unique_ptr<AlgorithmOutcome> run(const Json& request, const AlgorithmInputs& inputs, Backend,
                                          JobControl& job) const override {
        // One CPU pipeline for now (the device's is issue 31's); every backend choice runs it.
        job.setDevice("cpu");
        return std::make_unique<SourcesOutcome>(runSourcesRequest(*inputs.image, request, job), inputs);
    }
};

} // namespace

FitsHeaderContext sourcesHeaderContext(const Image& image, const SourcesResult& result, const Json& parameters) {
    FitsHeaderContext header = fitsHeaderContext(image);
    setCard(header, fitsNumberCard("SEXBKGND", result.globalBackground, "Glint: median background"));
    setCard(header, fitsNumberCard("SEXBKDEV", result.globalRms, "Glint: median background RMS"));
    setCard(header, fitsNumberCard("SEXTHLD", parameters.value("threshold", 0.0), "Glint: detection threshold (sigma of the filtered image)"));
    return header;
}

std::vector<ExportRegion> regionsFromSources(const SourcesResult& result) {
    std::vector<ExportRegion> regions;
    for (const SourceRecord& s : result.catalog.sources) {
        if (!std::isfinite(s.x) || !std::isfinite(s.a)) continue;
        ExportRegion e;
        e.kind = RegionKind::Source;
        e.rank = s.number;
        e.label = std::to_string(s.number);
        e.label.insert(e.label.begin(), '#');
        e.colour = overlayPaletteColour(static_cast<std::size_t>(s.number - 1));
        const double k = std::isfinite(s.kronRadius) ? s.kronRadius : 3.5;
        e.ellipse = RegionEllipse{s.x, s.y, std::max(0.5, k * s.a), std::max(0.5, k * s.b), s.theta};
        e.points = ellipsePoints(*e.ellipse);
        e.updateBounds();
        for (const auto& [name, v] : {std::pair{"flux_auto", s.fluxAuto}, std::pair{"mag_auto", s.magAuto},
                                      std::pair{"snr", s.snr}, std::pair{"fwhm", s.fwhm}})
            if (std::isfinite(v)) e.values.push_back({name, v, std::nullopt});
        // The position as the JSON's x, y (the windowed centroid where there is one), its RA/Dec, the shape
        // and the flags: the columns of the window's table, named as in the JSON (centroid_x/y in a region
        // file, whose x, y are the bounding box).
        const bool win = std::isfinite(s.xWin) && std::isfinite(s.yWin);
        for (const auto& [name, v] : {std::pair{"centroid_x", win ? s.xWin : s.x}, std::pair{"centroid_y", win ? s.yWin : s.y},
                                      std::pair{"a", s.a}, std::pair{"b", s.b}, std::pair{"theta", s.theta}})
            if (std::isfinite(v)) e.values.push_back({name, v, std::nullopt});
        e.values.push_back({"flags", static_cast<double>(s.flags), s.flags});
        if (std::isfinite(s.ra) && std::isfinite(s.dec)) {
            e.values.push_back({"ra", s.ra, std::nullopt});
            e.values.push_back({"dec", s.dec, std::nullopt});
        }
        regions.push_back(std::move(e));
    }
    return regions;
}

std::string sourcesDescription(const SourcesResult& result, const Json& parameters) {
    return "sources, threshold " + formatNumber(parameters.value("threshold", 0.0)) + " sigma, " +
           std::to_string(result.catalog.sources.size()) + " sources";
}

Json sourcesResultJson(const SourcesResult& r) {
    Json sources = Json::array();
    for (std::size_t i = 0; i < r.catalog.sources.size(); ++i) {
        const SourceRecord& s = r.catalog.sources[i];
        // x, y: the windowed centroid (XWIN_IMAGE - 1), which a neighbour's light does not pull; x_iso, y_iso: the
        // isophotal barycentre (X_IMAGE - 1).
        const bool win = std::isfinite(s.xWin) && std::isfinite(s.yWin);
        Json j = {{"number", s.number},
                  {"x", numberOrNull(win ? s.xWin : s.x)},
                  {"y", numberOrNull(win ? s.yWin : s.y)},
                  {"x_iso", numberOrNull(s.x)},
                  {"y_iso", numberOrNull(s.y)},
                  {"flux_auto", numberOrNull(s.fluxAuto)},
                  {"fluxerr_auto", numberOrNull(s.fluxErrAuto)},
                  {"mag_auto", numberOrNull(s.magAuto)},
                  {"magerr_auto", numberOrNull(s.magErrAuto)},
                  {"flux_iso", numberOrNull(s.fluxIso)},
                  {"fluxerr_iso", numberOrNull(s.fluxErrIso)},
                  {"peak", numberOrNull(s.peak)},
                  {"a", numberOrNull(s.a)},
                  {"b", numberOrNull(s.b)},
                  {"theta", numberOrNull(s.theta)},
                  {"ellipticity", numberOrNull(s.ellipticity)},
                  {"kron_radius", numberOrNull(s.kronRadius)},
                  {"fwhm", numberOrNull(s.fwhm)},
                  {"area", s.isoArea},
                  {"background", numberOrNull(s.background)},
                  {"threshold", numberOrNull(s.threshold)},
                  {"snr", numberOrNull(s.snr)},
                  {"flags", s.flags},
                  {"bbox", {{"x", s.xmin}, {"y", s.ymin}, {"width", s.xmax - s.xmin + 1}, {"height", s.ymax - s.ymin + 1}}}};
        if (!r.catalog.apertures.empty()) {
            Json flux = Json::array(), err = Json::array(), mag = Json::array();
            for (std::size_t k = 0; k < r.catalog.apertures.size(); ++k) {
                flux.push_back(numberOrNull(k < s.fluxAper.size() ? s.fluxAper[k] : NAN));
                err.push_back(numberOrNull(k < s.fluxErrAper.size() ? s.fluxErrAper[k] : NAN));
                mag.push_back(numberOrNull(k < s.magAper.size() ? s.magAper[k] : NAN));
            }
            j["flux_aper"] = std::move(flux);
            j["fluxerr_aper"] = std::move(err);
            j["mag_aper"] = std::move(mag);
        }
        if (std::isfinite(s.ra)) {
            j["ra"] = s.ra;
            j["dec"] = s.dec;
        }
        if (i < r.cores.size()) {
            const SourceCore& c = r.cores[i];
            j["core"] = {{"x", c.x}, {"y", c.y}, {"width", c.width}, {"height", c.height}, {"snr", numberOrNull(c.snr)}};
        }
        sources.push_back(std::move(j));
    }
    Json doc = Json::object();
    doc["image"] = {{"width", r.width}, {"height", r.height}};
    doc["background"] = {{"global", r.globalBackground}, {"rms", r.globalRms}};
    doc["filter"] = {{"fwhm", r.filterFwhm}, {"from_psf", r.filterFromPsf}};
    if (r.psfStars > 0) doc["psf"] = {{"fwhm", r.filterFwhm}, {"stars", r.psfStars}};
    doc["footprints"] = r.footprints;
    doc["rejected"] = {{"footprints", r.rejectedFootprints}, {"markers", r.rejectedMarkers}, {"cleaned", r.cleaned}};
    if (!r.catalog.apertures.empty()) doc["apertures"] = r.catalog.apertures;
    doc["mag_zeropoint"] = r.catalog.magZeropoint;
    if (!r.note.empty()) doc["note"] = r.note;
    doc["sources"] = std::move(sources);
    return doc;
}

const Algorithm& sourcesAlgorithm() {
    static const SourcesAlgorithm algorithm;
    return algorithm;
}

} // namespace glint
