// glint-cli brightest|trace|common: one image algorithm through its descriptor — its parameter spec's options
// (with --preset and --params), images (with --hdu/--plane/--frame), the run, and its outputs (JSON with the
// resolved "parameters", overlay, regions, its own files, text).
#include "app/cli/Commands.h"

#ifndef GLINT_HAVE_DCMTK
#define GLINT_HAVE_DCMTK 0
#endif

#include "core/algo/Algorithm.h"
#include "core/io/ImageLoader.h"
#include "core/params/ParamsFile.h"
#include "core/util/AtomicFile.h"
#include "core/util/Errors.h"

#if GLINT_HAVE_DCMTK
#include "dicom/export/DicomCadExport.h"
#endif

#include <climits>
#include <iostream>
#include <set>

namespace glint::cli {

namespace {

// The options every image algorithm's command takes besides its spec's and its own outputs.
struct SharedOption {
    const char* option;
    const char* valueName;
    const char* help;
};
const SharedOption kSharedOptions[] = {
    {"--params", "FILE.json", "the parameters of an earlier output (its \"parameters\") or a JSON object of them; options given override them"},
    {"--backend", "auto|cuda|cpu|reference", "where it runs (default auto: the GPU where it pays)"},
    {"--json", "FILE|-", "the result as JSON (- : standard output, and nothing else there)"},
    {"--overlay", "OUT.png", "the image with the result drawn over it"},
    {"--regions", "OUT.reg|OUT.geojson|OUT.csv", "the result as DS9 regions, GeoJSON or CSV (repeatable)"},
    {"--cad-sr", "OUT.dcm", "the regions as a DICOM Mammography CAD SR referencing the (DICOM) image"},
    {"--gsps", "OUT.dcm", "the regions as a DICOM presentation state (boxes and ranks) on the (DICOM) image"},
    {"--geojson-crs", "auto|image|wgs84|pixel", "GeoJSON coordinates (default auto: the image's map CRS when it has one)"},
    {"--hdu", "N", "the FITS HDU to read (0 = primary; default the first with an image)"},
    {"--plane", "N", "the plane of a FITS cube (0-based)"},
    {"--frame", "N", "the frame of a multi-frame DICOM file (0-based)"},
};

} // namespace

std::string algorithmUsage(const Algorithm& algorithm) {
    std::string usage = std::string("glint-cli ") + algorithm.name() +
                        (algorithm.imageCount() == 2 ? " IMAGE_A IMAGE_B " : " IMAGE ") + algorithm.spec().synopsis() +
                        "\n          [--params FILE.json] [--backend auto|cuda|cpu|reference] [--json FILE|-] [--overlay OUT.png]";
    for (const std::string& o : algorithm.outputOptions()) usage += " [" + o + " " + algorithm.outputPlaceholder(o) + "]";
    usage += "\n          [--hdu N] [--plane N] [--frame N] [--regions OUT.reg|OUT.geojson|OUT.csv]... "
             "[--geojson-crs auto|image|wgs84|pixel]\n          [--cad-sr OUT.dcm] [--gsps OUT.dcm]";
    return usage;
}

std::string algorithmHelp(const Algorithm& algorithm) {
    std::string out = "parameters (the JSON \"parameters\" of every output, replayable with --params):\n" +
                      algorithm.spec().helpText() + "\nruns and outputs:\n";
    for (const SharedOption& o : kSharedOptions)
        out += "  " + std::string(o.option) + " " + o.valueName + "  " + o.help + "\n";
    for (const std::string& o : algorithm.outputOptions()) out += "  " + o + " " + algorithm.outputPlaceholder(o) + "\n";
    return out;
}

int runAlgorithmCommand(const Algorithm& algorithm, const std::vector<std::string>& args) {
    std::set<std::string> valueOptions;
    for (const SharedOption& o : kSharedOptions) valueOptions.insert(o.option);
    for (const std::string& o : algorithm.spec().options()) valueOptions.insert(o);
    for (const std::string& o : algorithm.outputOptions()) valueOptions.insert(o);
    const std::vector<std::string> flags = algorithm.spec().flagOptions();
    const ParsedArgs a = parseArgs(args, {valueOptions, {flags.begin(), flags.end()}});
    const std::string name = algorithm.name();
    if (algorithm.imageCount() == 2 && a.positionals.size() != 2)
        throw UsageError(name + " takes exactly two images: IMAGE_A IMAGE_B");
    if (algorithm.imageCount() == 1 && a.positionals.size() != 1)
        throw UsageError(name + " takes exactly one IMAGE");
    const std::unique_ptr<AlgorithmTask> task = algorithm.prepare(requestFromArgs(algorithm.spec(), a));
    const Backend backend = parseBackend(a.valueOr("--backend", "auto"));
    // What cannot be written fails now, before any work.
    for (const std::string& o : algorithm.outputOptions())
        if (auto v = a.value(o)) algorithm.checkOutput(o, *v);
    // No output may name an input or another output, nor write into the JSON of --json - (exit 2 now).
    std::vector<NamedFile> inputFiles, outputFiles;
    for (const std::string& image : a.positionals) inputFiles.push_back({"", image});
    if (auto v = a.value("--params")) inputFiles.push_back({"--params", *v});
    for (const auto& field : algorithm.spec().fields()) // the spec's files read (sources --weight FILE)
        if (!field->info().option.empty() && field->info().valueName.find("FILE") != std::string::npos)
            for (const std::string& v : a.values(field->info().option)) inputFiles.push_back({field->info().option, v});
    std::vector<std::string> outputOptions{"--json", "--overlay", "--regions", "--cad-sr", "--gsps"};
    for (const std::string& o : algorithm.outputOptions()) outputOptions.push_back(o);
    for (const std::string& o : outputOptions)
        for (const std::string& v : a.values(o)) outputFiles.push_back({o, v});
    checkOutputTargets(inputFiles, outputFiles);
    if (!GLINT_WITH_IMGCODECS) {
        std::vector<std::string> pngs = a.values("--overlay");
        for (const std::string& o : algorithm.outputOptions())
            if (algorithm.outputPlaceholder(o).ends_with(".png"))
                for (const std::string& v : a.values(o)) pngs.push_back(v);
        if (!pngs.empty())
            throw OutputError("cannot write '" + pngs.front() + "': this headless build of Glint writes no PNG files");
    }
    for (const auto& out : a.values("--regions")) regionFormatForPath(out); // a bad extension is a usage error
    const bool dicomOutputs = a.value("--cad-sr") || a.value("--gsps");
    if (dicomOutputs && !GLINT_HAVE_DCMTK)
        throw UsageError("--cad-sr and --gsps need DCMTK, which this build of Glint lacks (Debian: libdcmtk-dev)");
    if (dicomOutputs && algorithm.imageCount() != 1)
        throw UsageError("--cad-sr and --gsps reference one DICOM image: " + name + " takes two");
    RegionWriteOptions regionOptions;
    if (auto v = a.value("--geojson-crs")) {
        const auto crs = parseGeoJsonCrs(*v);
        if (!crs) throw UsageError("option '--geojson-crs' must be image, wgs84, pixel or auto");
        regionOptions.geoJsonCrs = *crs;
    }
    LoadOptions load;
    if (auto v = a.value("--hdu")) load.hdu = static_cast<int>(parseInteger(*v, "--hdu", 0, INT_MAX));
    if (auto v = a.value("--plane")) load.plane = static_cast<int>(parseInteger(*v, "--plane", 0, INT_MAX));
    if (auto v = a.value("--frame")) load.frame = static_cast<int>(parseInteger(*v, "--frame", 0, INT_MAX));

    AlgorithmInputs inputs;
    inputs.path = a.positionals[0];
    const Image image = loadImage(inputs.path, load);
    inputs.image = &image;
    if (algorithm.imageCount() == 2) {
        inputs.secondPath = a.positionals[1];
        inputs.second = std::make_shared<const Image>(loadImage(inputs.secondPath, load));
    }
    if (dicomOutputs && image.meta.format != "DICOM") // decided: no secondary capture is made up for it
        throw UsageError("--cad-sr and --gsps need a DICOM input image (its UIDs are referenced); '" + inputs.path +
                         "' is " + image.meta.format);
    for (const auto& out : a.values("--regions")) // map coordinates of an image that has none: say so first
        if (regionFormatForPath(out) == RegionFormat::GeoJson)
            resolveGeoJsonCrs(regionOptions.geoJsonCrs, regionDocumentFor(image));

    JobControl job;
    const std::unique_ptr<AlgorithmOutcome> outcome = task->run(inputs, backend, job);
    Json doc = resultDocument(name, backendName(outcome->backend()), outcome->device(), job.timing());
    doc.update(outcome->json());
    doc["parameters"] = outcome->parameters();

    if (auto dest = a.value("--json")) writeJson(doc, *dest);
    if (auto out = a.value("--overlay")) outcome->writeOverlay(*out, inputs);
    for (const std::string& o : algorithm.outputOptions())
        if (auto out = a.value(o)) outcome->writeOutput(o, *out);
    for (const auto& out : a.values("--regions")) writeRegionFile(out, outcome->regions(inputs), regionOptions);
#if GLINT_HAVE_DCMTK
    if (dicomOutputs) {
        CadExportInfo info;
        info.sourcePath = inputs.path;
        info.frame = load.frame;
        info.algorithmName = "Glint " + name;
        info.algorithmVersion = GLINT_VERSION;
        const std::vector<CadMark> marks = cadMarksFromRegions(outcome->regions(inputs).regions);
        if (auto out = a.value("--cad-sr")) writeMammographyCadSr(*out, info, marks);
        if (auto out = a.value("--gsps")) writePresentationState(*out, info, marks);
    }
#endif
    for (const std::string& note : outcome->notes()) std::cerr << "glint-cli: " << name << ": " << note << "\n";
    if (!a.value("--json") || *a.value("--json") != "-") outcome->printText(std::cout, inputs, job.timing().total());
    return 0;
}

} // namespace glint::cli
