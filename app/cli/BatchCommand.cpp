// glint-cli batch: one algorithm over many files (named, or directly inside named folders) into one CSV,
// with a progress line, bad files reported and skipped, and --shard I/N for cluster job arrays.
#include "core/algo/brightest/Brightest.h"
#include "core/algo/common/CommonComponent.h"
#include "core/algo/trace/LineTrace.h"
#include "app/cli/Args.h"
#include "app/cli/Commands.h"
#include "core/export/CsvTable.h"
#include "core/io/ImageLoader.h"
#include "core/io/ImageStats.h"
#include "core/io/Wcs.h"
#include "core/util/AtomicFile.h"
#include "core/util/Errors.h"
#include "core/util/InputFile.h"
#include "core/util/Printable.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <set>
#include <unistd.h>

namespace glint::cli {

namespace fs = std::filesystem;

namespace {

// Options of each algorithm; anything else given with --algo X is a usage error.
const std::map<std::string, std::set<std::string>> kAlgoOptions = {
    {"info", {}},
    {"brightest", {"--pivot", "--k", "--mode", "--roi", "--exclude", "--exclude-polygon", "--backend"}},
    {"trace",
     {"--from", "--to", "--via", "--guides", "--points", "--half-width", "--max-angle", "--score", "--width",
      "--polarity", "--backend"}},
    {"common", {"--with", "--tolerance", "--max-shift", "--backend"}},
};
const std::set<std::string> kSharedOptions = {"--algo", "--out", "--shard", "--hdu", "--plane", "--frame"};

// One file's rows (a row per region, trace or component) or an exception for a bad file.
using FileRunner = std::function<void(const std::string& path, const Image& image, CsvTable& table)>;

struct BatchAlgorithm {
    std::vector<std::string> columns; // after "path"
    FileRunner run;
};

int intOption(const ParsedArgs& a, const std::string& name, long long lo, long long hi, int fallback) {
    const auto v = a.value(name);
    if (!v) return fallback;
    return static_cast<int>(parseInteger(*v, name, lo, hi));
}

std::string num(double v) { return formatNumber(v); }

BatchAlgorithm infoAlgorithm() {
    BatchAlgorithm algo;
    algo.columns = {"format", "width", "height", "bit_depth", "sample_type", "integer_valued", "min", "max", "mean",
                    "median", "blank_count", "hdu", "wcs", "ra_center", "dec_center"};
    algo.run = [](const std::string& path, const Image& image, CsvTable& table) {
        const ImageStats s = computeStats(image);
        std::optional<SkyCoord> centre;
        if (image.meta.wcs) centre = image.meta.wcs->pixelToSky((image.width() - 1) / 2.0, (image.height() - 1) / 2.0);
        table.addRow({path, image.meta.format, std::to_string(image.width()), std::to_string(image.height()),
                      std::to_string(image.meta.bitDepth), sampleTypeName(image.sampleType()),
                      image.meta.integerValued ? "1" : "0", num(s.min), num(s.max), num(s.mean), num(s.median),
                      std::to_string(image.blankCount()), image.meta.hdu >= 0 ? std::to_string(image.meta.hdu) : "",
                      image.meta.wcs ? "1" : "0", centre ? num(centre->ra) : "", centre ? num(centre->dec) : ""});
    };
    return algo;
}

BatchAlgorithm brightestAlgorithm(const ParsedArgs& a, Backend backend) {
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
    BatchAlgorithm algo;
    algo.columns = {"image_width", "image_height", "backend", "pivot", "pivot_spec", "mode", "rank",
                    "x", "y", "width", "height", "sum", "mean", "pixels"};
    algo.run = [params, backend](const std::string& path, const Image& image, CsvTable& table) {
        JobControl job;
        const BrightestResult r = runBrightest(image, params, backend, job);
        const std::vector<std::string> head = {path, std::to_string(image.width()), std::to_string(image.height()),
                                               backendName(r.backend), num(r.pivot), r.pivotSpec.text(),
                                               brightestModeName(r.mode)};
        if (r.regions.empty()) {
            std::vector<std::string> row = head;
            row.resize(table.header().size());
            table.addRow(std::move(row)); // the file was done: no region has a positive sum
        }
        for (const BrightestRegion& g : r.regions) {
            std::vector<std::string> row = head;
            for (const std::string& f :
                 {std::to_string(g.rank), std::to_string(g.x), std::to_string(g.y), std::to_string(g.width),
                  std::to_string(g.height), g.exactInteger ? std::to_string(g.sumInt) : num(g.sum),
                  num(r.regionMean(g)), std::to_string(g.pixels())})
                row.push_back(f);
            table.addRow(std::move(row));
        }
    };
    return algo;
}

BatchAlgorithm traceAlgorithm(const ParsedArgs& a, Backend backend) {
    if (!a.has("--from") || !a.has("--to")) throw UsageError("batch --algo trace needs --from X,Y and --to X,Y");
    auto point = [](const std::string& text, const std::string& option) {
        const auto v = parseNumberList(text, option, 2);
        return TracePoint{v[0], v[1]};
    };
    std::vector<TracePoint> clicks{point(*a.value("--from"), "--from")};
    for (const auto& v : a.values("--via")) clicks.push_back(point(v, "--via"));
    clicks.push_back(point(*a.value("--to"), "--to"));
    TraceParams params;
    params.guides = intOption(a, "--guides", -1000000000, 1000000000, params.guides);
    params.points = intOption(a, "--points", -1000000000, 1000000000, params.points);
    if (auto v = a.value("--half-width")) {
        params.halfWidth = parseNumber(*v, "--half-width");
        if (params.halfWidth <= 0.0) throw UsageError("option '--half-width' must be more than 0");
    }
    if (auto v = a.value("--max-angle")) params.maxAngleDeg = parseNumber(*v, "--max-angle");
    validateTraceParams(params);
    TraceFieldOptions fieldOptions;
    if (auto v = a.value("--score")) fieldOptions.score = parseTraceScore(*v);
    if (auto v = a.value("--width")) fieldOptions.lineWidth = parseNumber(*v, "--width");
    if (auto v = a.value("--polarity")) fieldOptions.polarity = parseTracePolarity(*v);
    validateTraceFieldOptions(fieldOptions);

    BatchAlgorithm algo;
    algo.columns = {"image_width", "image_height", "backend", "score", "legs", "length", "points"};
    algo.run = [=](const std::string& path, const Image& image, CsvTable& table) {
        JobControl job;
        const TraceResult r = glint::runTrace(image, clicks, params, fieldOptions, backend, job);
        const auto line = r.polyline();
        double length = 0.0;
        std::string points;
        for (std::size_t i = 0; i < line.size(); ++i) {
            if (i) length += std::hypot(line[i].x - line[i - 1].x, line[i].y - line[i - 1].y);
            points += (i ? ";" : "") + num(line[i].x) + " " + num(line[i].y);
        }
        table.addRow({path, std::to_string(image.width()), std::to_string(image.height()), backendName(r.backend),
                      num(r.score), std::to_string(r.legs.size()), num(length), points});
    };
    return algo;
}

BatchAlgorithm commonAlgorithm(const ParsedArgs& a, Backend backend, const LoadOptions& load) {
    if (!a.has("--with")) throw UsageError("batch --algo common needs --with IMAGE_B (the image every file is compared with)");
    CommonComponentParams params;
    if (auto v = a.value("--tolerance")) {
        params.tolerance = parseNumber(*v, "--tolerance");
        if (params.tolerance < 0) throw UsageError("option '--tolerance' must be 0 or more");
    }
    if (auto v = a.value("--max-shift")) params.maxShift = parseInteger(*v, "--max-shift", 0, INT_MAX);
    const std::string referencePath = *a.value("--with");
    auto reference = std::make_shared<const Image>(loadImage(referencePath, load)); // a bad B stops the run (exit 3)
    BatchAlgorithm algo;
    algo.columns = {"reference", "backend", "found", "dx", "dy", "size", "bbox_x", "bbox_y", "bbox_width", "bbox_height",
                    "tolerance"};
    algo.run = [=](const std::string& path, const Image& image, CsvTable& table) {
        try {
            validateMaxShift(params.maxShift, image.width(), image.height(), reference->width(), reference->height());
        } catch (const UsageError& e) {
            throw UsageError(std::string("option '--max-shift': ") + e.what());
        }
        JobControl job;
        const CommonComponentResult r = findCommonComponent(image, *reference, params, backend, job);
        auto ifFound = [&](long long v) { return r.found ? std::to_string(v) : std::string(); };
        table.addRow({path, referencePath, backendName(r.backend), r.found ? "1" : "0", ifFound(r.dx), ifFound(r.dy),
                      std::to_string(r.size), ifFound(r.bboxX), ifFound(r.bboxY), ifFound(r.bboxWidth),
                      ifFound(r.bboxHeight), num(params.tolerance)});
    };
    return algo;
}

// "I/N" with 1 <= I <= N.
std::pair<long long, long long> parseShard(const std::string& text) {
    const auto slash = text.find('/');
    if (slash == std::string::npos) throw UsageError("option '--shard' takes I/N (e.g. 3/10), got '" + text + "'");
    const long long i = parseInteger(text.substr(0, slash), "--shard");
    const long long n = parseInteger(text.substr(slash + 1), "--shard");
    if (n < 1 || i < 1 || i > n) throw UsageError("option '--shard' needs 1 <= I <= N, got '" + text + "'");
    return {i, n};
}

struct InputList {
    std::vector<std::string> files;        // sorted, unique
    std::vector<std::string> folderFiles;  // those found inside folders: unknown formats skipped silently
    std::vector<std::pair<std::string, std::string>> bad; // argument, message
};

InputList collectInputs(const std::vector<std::string>& arguments, const std::string& outPath) {
    InputList list;
    std::set<std::string> files, inFolders;
    std::error_code ec;
    const fs::path out = outPath == "-" ? fs::path() : fs::weakly_canonical(outPath, ec);
    auto isOutput = [&](const fs::path& p) {
        std::error_code e;
        return !out.empty() && fs::weakly_canonical(p, e) == out;
    };
    for (const std::string& arg : arguments) {
        if (fs::is_directory(arg, ec)) {
            fs::directory_iterator it(arg, ec);
            if (ec) {
                list.bad.emplace_back(arg, "cannot list the folder: " + ec.message());
                continue;
            }
            for (const auto& entry : it) {
                const std::string name = entry.path().filename().string();
                // Hidden files include the temporaries of atomic writes (".x.tmp-...").
                if (name.empty() || name[0] == '.') continue;
                std::error_code e;
                // Everything but sub-folders is counted: a FIFO, a socket or a dangling link becomes a
                // failed file with its reason (loadImage refuses what is not a regular file).
                if (entry.is_directory(e) || isOutput(entry.path())) continue;
                const std::string path = (fs::path(arg) / name).lexically_normal().string();
                files.insert(path);
                inFolders.insert(path);
            }
        } else if (fs::exists(arg, ec)) {
            if (!isOutput(arg)) files.insert(fs::path(arg).lexically_normal().string());
        } else {
            // The system's reason when there is one (a symlink loop, a folder without permission).
            list.bad.emplace_back(arg, ec ? systemReason(ec.value()) : "no such file or folder");
        }
    }
    list.files.assign(files.begin(), files.end());
    list.folderFiles.assign(inFolders.begin(), inFolders.end());
    return list;
}

std::string shortName(const std::string& path) {
    return path.size() <= 60 ? path : "..." + path.substr(path.size() - 57);
}

} // namespace

int runBatch(const std::vector<std::string>& args) {
    std::set<std::string> valueOptions = kSharedOptions;
    for (const auto& [name, options] : kAlgoOptions) valueOptions.insert(options.begin(), options.end());
    const ParsedArgs a = parseArgs(args, {valueOptions, {}});
    const auto algoName = a.value("--algo");
    if (!algoName) throw UsageError("batch needs --algo (info, brightest, trace or common)");
    const auto algoOptions = kAlgoOptions.find(*algoName);
    if (algoOptions == kAlgoOptions.end())
        throw UsageError("unknown --algo '" + *algoName + "' (info, brightest, trace or common)");
    for (const std::string& option : valueOptions)
        if (a.has(option) && !kSharedOptions.count(option) && !algoOptions->second.count(option))
            throw UsageError("option '" + option + "' does not apply to --algo " + *algoName);
    const auto outPath = a.value("--out");
    if (!outPath) throw UsageError("batch needs --out RESULTS.csv");
    if (a.positionals.empty()) throw UsageError("batch needs at least one FILE_OR_DIR");
    long long shardIndex = 1, shardCount = 1;
    if (auto v = a.value("--shard")) std::tie(shardIndex, shardCount) = parseShard(*v);
    LoadOptions load;
    load.hdu = intOption(a, "--hdu", 0, INT_MAX, -1);
    load.plane = intOption(a, "--plane", 0, INT_MAX, 0);
    load.frame = intOption(a, "--frame", 0, INT_MAX, 0);
    const Backend backend = parseBackend(a.valueOr("--backend", "auto"));
    if (backend == Backend::Cuda && !cudaDevice().usable)
        throw BackendUnavailable("no usable CUDA device: " + cudaDevice().reason);
    if (*outPath != "-") {
        // Fail now, not after hours of work, when the results cannot be written there.
        std::error_code ec;
        fs::path dir = fs::path(*outPath).parent_path();
        if (dir.empty()) dir = ".";
        if (!fs::is_directory(dir, ec)) throw OutputError("cannot write '" + *outPath + "': no such folder");
    }

    BatchAlgorithm algo;
    if (*algoName == "info") algo = infoAlgorithm();
    else if (*algoName == "brightest") algo = brightestAlgorithm(a, backend);
    else if (*algoName == "trace") algo = traceAlgorithm(a, backend);
    else algo = commonAlgorithm(a, backend, load);
    std::vector<std::string> header = {"path"};
    header.insert(header.end(), algo.columns.begin(), algo.columns.end());
    CsvTable table(header);

    InputList inputs = collectInputs(a.positionals, *outPath);
    const std::set<std::string> folderFiles(inputs.folderFiles.begin(), inputs.folderFiles.end());
    // Every N-th file of the sorted list, starting at the I-th: shards are disjoint, their union is the
    // list, and the work of files of similar names (often similar sizes) is spread over the shards.
    std::vector<std::string> mine;
    for (std::size_t i = 0; i < inputs.files.size(); ++i)
        if (static_cast<long long>(i % static_cast<std::size_t>(shardCount)) == shardIndex - 1)
            mine.push_back(inputs.files[i]);

    const bool tty = ::isatty(STDERR_FILENO) != 0;
    std::size_t warnings = 0, done = 0, skipped = 0, usageFailures = 0;
    std::string lastUsageError;
    auto warn = [&](const std::string& path, const std::string& message) {
        if (tty) std::cerr << "\r\033[K";
        // One printable line per file, whatever the path and the message hold.
        std::cerr << "glint-cli: batch: failed '" << printableMessage(path, 200) << "': " << printableMessage(message, 300)
                  << "\n";
        ++warnings;
    };
    for (const auto& [arg, message] : inputs.bad) warn(arg, message);
    for (std::size_t k = 0; k < mine.size(); ++k) {
        const std::string& path = mine[k];
        const std::string progress = "batch " + std::string(*algoName) + ": [" + std::to_string(k + 1) + "/" +
                                     std::to_string(mine.size()) + "] " + shortName(path);
        try {
            if (folderFiles.count(path)) {
                // Inside a folder only the files Glint can open count; others are not input at all.
                const FileFormat format = detectFileFormat(path);
                if (format == FileFormat::Unknown || format == FileFormat::Jpeg2000) {
                    ++skipped;
                    continue;
                }
            }
            if (tty) std::cerr << "\r\033[K" << progress << std::flush;
            else std::cerr << progress << "\n";
            const Image image = loadImage(path, load);
            algo.run(path, image, table);
            ++done;
        } catch (const InputError& e) {
            warn(path, e.what());
        } catch (const UsageError& e) {
            // Parameters that do not fit this file (an ROI outside a smaller image, say).
            warn(path, e.what());
            ++usageFailures;
            lastUsageError = e.what();
        } catch (const std::bad_alloc&) {
            warn(path, "out of memory");
        }
    }
    if (tty) std::cerr << "\r\033[K";
    // The same parameter error for every file is the command's error, not the files'.
    if (done == 0 && usageFailures > 0 && usageFailures + skipped == mine.size()) throw UsageError(lastUsageError);

    {
        // Written (and any failure reported) before the summary below says so.
        OutputTransaction results;
        if (*outPath == "-") writeStandardOutput(table.text());
        else writeFileAtomically(*outPath, table.text());
        results.commit();
    }
    // Every file seen ends as done, skipped (a folder's file of no format Glint reads) or failed (a
    // warning above, as is every missing argument): the three add up to the files seen.
    std::cerr << "batch " << *algoName << ": " << done << " of " << mine.size() + inputs.bad.size()
              << " files done, " << skipped << " skipped (not an image format Glint reads), " << warnings << " failed"
              << (shardCount > 1 ? " (shard " + std::to_string(shardIndex) + "/" + std::to_string(shardCount) + " of " +
                                       std::to_string(inputs.files.size()) + ")"
                                 : "")
              << ", " << table.rowCount() << (table.rowCount() == 1 ? " row" : " rows") << " written to " << *outPath
              << "; " << warnings << (warnings == 1 ? " warning" : " warnings") << "\n";
    return 0;
}

} // namespace glint::cli
