// SExtractor's and Glint's catalogues on a truth-injected frame (CatalogueRun.h).
#include "bench/CatalogueRun.h"

#include "core/algo/Algorithm.h"
#include "core/io/Image.h"
#include "core/util/Errors.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <unistd.h>

namespace glint {

namespace {

std::atomic<CatalogueRunner> installedRunner{nullptr};

std::string quoted(const std::string& s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

std::string lastLine(const std::filesystem::path& file) {
    std::ifstream in(file);
    std::string line, last;
    while (std::getline(in, line))
        if (!line.empty()) last = line;
    return last;
}

double numberOr(const Json& object, const char* key) {
    const auto it = object.find(key);
    return it != object.end() && it->is_number() ? it->get<double>() : CatalogueEntry::kNaN;
}

} // namespace

std::optional<std::string> findSourceExtractor() {
    std::string dirs = std::getenv("PATH") ? std::getenv("PATH") : "";
    dirs += ":/usr/bin";
    std::stringstream in(dirs);
    std::string dir;
    while (std::getline(in, dir, ':')) {
        if (dir.empty()) continue;
        const std::string candidate = dir + "/source-extractor";
        if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    return std::nullopt;
}

const char* sextractorParameters() {
    return "NUMBER\nX_IMAGE\nY_IMAGE\nFLUX_AUTO\nFLUXERR_AUTO\nMAG_AUTO\nA_IMAGE\nB_IMAGE\nTHETA_IMAGE\nKRON_RADIUS\n"
           "FWHM_IMAGE\nFLAGS\nISOAREA_IMAGE\n";
}

std::string writeSextractorConfig(const std::string& program, const std::string& dir) {
    const std::filesystem::path d(dir);
    const int status = std::system((quoted(program) + " -d > " + quoted((d / "default.sex").string()) + " 2>/dev/null").c_str());
    std::error_code sizeError;
    if (status != 0 || std::filesystem::file_size(d / "default.sex", sizeError) == 0 || sizeError)
        return "source-extractor -d failed (status " + std::to_string(status) + ")";
    std::error_code ec;
    const std::filesystem::path debianConv = "/usr/share/source-extractor/default.conv";
    if (!std::filesystem::copy_file(debianConv, d / "default.conv", std::filesystem::copy_options::overwrite_existing, ec)) {
        std::ofstream conv(d / "default.conv");
        conv << "CONV NORM\n# 3x3 ``all-ground'' convolution mask with FWHM = 2 pixels.\n1 2 1\n2 4 2\n1 2 1\n";
        if (!conv) return "cannot write default.conv in " + dir;
    }
    std::ofstream param(d / "catalogue.param");
    param << sextractorParameters();
    return param ? "" : "cannot write catalogue.param in " + dir;
}

CatalogueRun runSourceExtractor(const std::string& program, const std::string& dir, const std::string& fits) {
    CatalogueRun run;
    const std::filesystem::path d(dir);
    const std::string command = "cd " + quoted(dir) + " && " + quoted(program) + " " + quoted(fits) +
                                " -c default.sex -CATALOG_NAME sextractor.cat -CATALOG_TYPE ASCII_HEAD"
                                " -PARAMETERS_NAME catalogue.param -FILTER_NAME default.conv -VERBOSE_TYPE QUIET"
                                " > sextractor.log 2>&1";
    const auto start = std::chrono::steady_clock::now();
    const int status = std::system(command.c_str());
    run.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::ifstream cat(d / "sextractor.cat");
    if (status != 0 || !cat) {
        run.error = "source-extractor failed: " + lastLine(d / "sextractor.log");
        return run;
    }
    run.entries = readSextractorAsciiHead(cat);
    return run;
}

std::vector<CatalogueEntry> readSextractorAsciiHead(std::istream& in) {
    std::map<std::string, int> column; // name -> 0-based column
    std::vector<CatalogueEntry> out;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        std::istringstream words(line);
        if (line[0] == '#') {
            std::string hash, name;
            int index = 0;
            if (words >> hash >> index >> name) column[name] = index - 1;
            continue;
        }
        std::vector<double> values;
        double v = 0.0;
        while (words >> v) values.push_back(v);
        const auto get = [&](const char* name) {
            const auto it = column.find(name);
            return it != column.end() && it->second >= 0 && it->second < static_cast<int>(values.size())
                       ? values[static_cast<std::size_t>(it->second)]
                       : CatalogueEntry::kNaN;
        };
        CatalogueEntry e;
        e.x = get("X_IMAGE") - 1.0; // FITS pixels are 1-based
        e.y = get("Y_IMAGE") - 1.0;
        e.fluxAuto = get("FLUX_AUTO");
        e.a = get("A_IMAGE");
        e.b = get("B_IMAGE");
        e.kronRadius = get("KRON_RADIUS");
        const double flags = get("FLAGS");
        e.flags = std::isfinite(flags) ? static_cast<int>(flags) : 0;
        if (std::isfinite(e.x) && std::isfinite(e.y)) out.push_back(e);
    }
    return out;
}

std::vector<CatalogueEntry> catalogueFromSourcesJson(const Json& document) {
    std::vector<CatalogueEntry> out;
    const auto it = document.find("sources");
    if (it == document.end() || !it->is_array()) return out;
    for (const Json& s : *it) {
        if (!s.is_object()) continue;
        CatalogueEntry e;
        e.x = numberOr(s, "x");
        e.y = numberOr(s, "y");
        e.fluxAuto = numberOr(s, "flux_auto");
        e.a = numberOr(s, "a");
        e.b = numberOr(s, "b");
        e.kronRadius = numberOr(s, "kron_radius");
        const double flags = numberOr(s, "flags");
        e.flags = std::isfinite(flags) ? static_cast<int>(flags) : 0;
        out.push_back(e);
    }
    return out;
}

CatalogueRun runSourcesAlgorithm(const std::string& fitsPath, const Image& image) {
    CatalogueRun run;
    const Algorithm* algorithm = findAlgorithm("sources");
    if (!algorithm) {
        run.error = "sources algorithm not built";
        return run;
    }
    AlgorithmInputs inputs;
    inputs.image = &image;
    inputs.path = fitsPath;
    JobControl job;
    const auto start = std::chrono::steady_clock::now();
    try {
        // GLINT_BENCH_SOURCES_PARAMS: a JSON object of parameters over --preset auto (for tuning the defaults).
        Json request = {{"preset", "auto"}};
        if (const char* extra = std::getenv("GLINT_BENCH_SOURCES_PARAMS"); extra && *extra) {
            const Json given = Json::parse(extra);
            for (const auto& [key, value] : given.items()) request[key] = value;
        }
        const std::unique_ptr<AlgorithmOutcome> outcome = algorithm->run(request, inputs, Backend::Cpu, job);
        run.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        run.entries = catalogueFromSourcesJson(outcome->json());
    } catch (const std::exception& e) {
        run.error = std::string("sources failed: ") + e.what();
    }
    return run;
}

CatalogueRunner glintCatalogueRunner() {
    const CatalogueRunner r = installedRunner.load();
    return r ? r : &runSourcesAlgorithm;
}

void setGlintCatalogueRunner(CatalogueRunner runner) { installedRunner.store(runner); }

} // namespace glint
