// glint-cli bench sources: Glint's K brightest regions as a source finder, scored against the truth of a
// synthetic star field (scenes/StarField.h), side by side with SExtractor (Debian's
// `source-extractor`, run on the same frame written as FITS, DETECT_THRESH 3) when it is installed.
// Prints one table: completeness and purity per SNR bin for both, the centroid error at SNR >= 20, and
// the time of each (Glint: runBrightest on the loaded frame; SExtractor: the whole program run, its FITS
// reading included).
#include "core/algo/brightest/Brightest.h"
#include "scenes/StarField.h"
#include "bench/Bench.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <unistd.h>

namespace glint {

namespace {

// Glint's catalogue: the regions at their measured centroids (runBrightest measures every region it
// reports: RegionMeasure).
std::vector<Detection> glintDetections(const BrightestResult& result) {
    std::vector<Detection> out;
    for (const BrightestRegion& r : result.regions) {
        Detection d;
        d.x = r.centroidX;
        d.y = r.centroidY;
        d.hasRect = true;
        d.rx = r.x;
        d.ry = r.y;
        d.rw = r.width;
        d.rh = r.height;
        out.push_back(d);
    }
    return out;
}

std::optional<std::string> findProgram(const std::string& name) {
    const char* path = std::getenv("PATH");
    if (!path) return std::nullopt;
    std::stringstream dirs(path);
    std::string dir;
    while (std::getline(dirs, dir, ':')) {
        if (dir.empty()) continue;
        const std::string candidate = dir + "/" + name;
        if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    return std::nullopt;
}

struct SextractorRun {
    std::vector<Detection> detections;
    double ms = 0.0;
    std::string error; // empty when it ran
};

// A fresh temporary folder holding the frame as FITS (frame.fits), removed with the object.
struct FrameFolder {
    std::filesystem::path dir;
    std::string error;
    explicit FrameFolder(const StarField& field) {
        std::string dirTemplate = (std::filesystem::temp_directory_path() / "glint-sources-XXXXXX").string();
        if (!::mkdtemp(dirTemplate.data())) {
            error = "cannot make a temporary folder";
            return;
        }
        dir = dirTemplate;
        writeStarFieldFits(field, (dir / "frame.fits").string());
    }
    FrameFolder(const FrameFolder&) = delete;
    FrameFolder& operator=(const FrameFolder&) = delete;
    ~FrameFolder() {
        std::error_code ignored;
        if (!dir.empty()) std::filesystem::remove_all(dir, ignored);
    }
};

// Runs a shell command in the folder; its wall time in ms, or -1 when it failed.
double runTimed(const std::filesystem::path& dir, const std::string& command) {
    const std::string line = "cd '" + dir.string() + "' && " + command;
    const auto start = std::chrono::steady_clock::now();
    const int status = std::system(line.c_str());
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return status == 0 ? ms : -1.0;
}

// Writes SExtractor's minimal configuration for the frame into the folder.
void writeSextractorConfig(const std::filesystem::path& dir, const StarField& field) {
    std::ofstream param(dir / "default.param");
    param << "NUMBER\nX_IMAGE\nY_IMAGE\nFLUX_AUTO\nSNR_WIN\nFLAGS\n";
    std::ofstream conv(dir / "default.conv");
    conv << "CONV NORM\n# 3x3 all-ground convolution mask with FWHM = 2 pixels.\n1 2 1\n2 4 2\n1 2 1\n";
    std::ofstream sex(dir / "default.sex");
    sex << "CATALOG_NAME catalogue.txt\nCATALOG_TYPE ASCII_HEAD\nPARAMETERS_NAME default.param\n"
           "DETECT_TYPE CCD\nDETECT_MINAREA 5\nDETECT_THRESH 3\nANALYSIS_THRESH 3\n"
           "FILTER Y\nFILTER_NAME default.conv\nDEBLEND_NTHRESH 32\nDEBLEND_MINCONT 0.005\n"
           "CLEAN Y\nCLEAN_PARAM 1.0\nMASK_TYPE CORRECT\n"
           "SATUR_LEVEL "
        << field.options.saturation << "\nSATUR_KEY SATURATE\nGAIN 1.0\nGAIN_KEY GAIN\nPIXEL_SCALE 1.0\n"
        << "SEEING_FWHM " << 0.5 * (field.options.fwhmMin + field.options.fwhmMax)
        << "\nBACK_SIZE 64\nBACK_FILTERSIZE 3\nBACKPHOTO_TYPE GLOBAL\n"
           "CHECKIMAGE_TYPE NONE\nMEMORY_OBJSTACK 3000\nMEMORY_PIXSTACK 300000\nMEMORY_BUFSIZE 1024\n"
           "VERBOSE_TYPE QUIET\nNTHREADS 0\n";
}

// Runs SExtractor on the folder's frame.
SextractorRun runSextractor(const std::string& program, const std::filesystem::path& dir) {
    SextractorRun run;
    run.ms = runTimed(dir, "'" + program + "' frame.fits -c default.sex > sextractor.log 2>&1");
    std::ifstream cat(dir / "catalogue.txt");
    if (run.ms < 0.0 || !cat) {
        std::ifstream log(dir / "sextractor.log");
        std::string last, line;
        while (std::getline(log, line))
            if (!line.empty()) last = line;
        run.error = "source-extractor failed: " + last;
        return run;
    }
    std::string line;
    while (std::getline(cat, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream in(line);
        double number = 0.0, x = 0.0, y = 0.0;
        if (!(in >> number >> x >> y)) continue;
        Detection d;
        d.x = x - 1.0; // FITS pixels are 1-based
        d.y = y - 1.0;
        run.detections.push_back(d);
    }
    return run;
}

// The glint-cli command line of the source finder's parameters on the folder's frame (catalogue to CSV), when
// this program is glint-cli: the comparison with SExtractor as a user makes it, process against process.
std::optional<std::string> glintCommand(const BrightestParams& p) {
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec || self.filename() != "glint-cli") return std::nullopt;
    std::ostringstream c;
    c << "'" << self.string() << "' brightest frame.fits --pivot " << p.pivot.text() << " --threshold " << p.threshold
      << " --min-snr " << p.minSnr << " --mesh " << p.mesh << " --max-box " << (p.maxBox.isAuto() ? std::string("auto") : std::to_string(p.boundOrNone())) << " --k " << p.k
      << " --backend cpu --catalog glint.csv > glint.log 2>&1";
    return c.str();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

std::string percent(const SnrBin& b, bool completeness) {
    const int n = completeness ? b.truths : b.detections;
    if (n == 0) return "-";
    std::ostringstream s;
    s << std::fixed << std::setprecision(1) << 100.0 * (completeness ? b.completeness() : b.purity()) << "% ("
      << (completeness ? b.found : b.genuine) << "/" << n << ")";
    return s.str();
}

std::string binName(const SnrBin& b) {
    std::ostringstream s;
    if (std::isinf(b.hi)) s << ">= " << b.lo;
    else s << b.lo << "-" << b.hi;
    return s.str();
}

Json scoreJson(const MatchScore& m, double ms) {
    Json bins = Json::array();
    for (const SnrBin& b : m.bins)
        bins.push_back({{"snr", binName(b)},
                        {"truths", b.truths},
                        {"found", b.found},
                        {"detections", b.detections},
                        {"genuine", b.genuine}});
    return {{"bins", bins},
            {"completeness_snr10", m.atLeast10.completeness()},
            {"purity_snr10", m.atLeast10.purity()},
            {"detections", m.detections},
            {"false", m.falseDetections},
            {"on_galaxy", m.onGalaxy},
            {"centroid_median_px", m.centroidMedian},
            {"centroid_rms_px", m.centroidRms},
            {"centroid_count", m.centroidCount},
            {"psf_fwhm_px", m.psfFwhm},
            {"widest_px", m.widestSide},
            {"wider_than_5_fwhm", m.wide},
            {"ms", ms}};
}

// The side-by-side table.
std::string table(const std::string& title, const MatchScore& g, double gMs, const std::optional<MatchScore>& s,
                  double sMs, const std::string& sNote, const std::string& bound) {
    std::ostringstream out;
    out << title << "\n";
    out << std::left << std::setw(10) << "SNR" << std::setw(8) << "stars" << std::setw(22) << "Glint complete"
        << std::setw(22) << "Glint pure" << std::setw(22) << "SExtr complete" << "SExtr pure\n";
    const auto row = [&](const std::string& name, const SnrBin& gb, const SnrBin* sb) {
        out << std::left << std::setw(10) << name << std::setw(8) << gb.truths << std::setw(22) << percent(gb, true)
            << std::setw(22) << percent(gb, false) << std::setw(22) << (sb ? percent(*sb, true) : "-")
            << (sb ? percent(*sb, false) : "-") << "\n";
    };
    for (std::size_t i = 0; i < g.bins.size(); ++i) row(binName(g.bins[i]), g.bins[i], s ? &s->bins[i] : nullptr);
    row(">= 10 all", g.atLeast10, s ? &s->atLeast10 : nullptr);
    out << std::fixed << std::setprecision(3);
    out << "centroid error, SNR >= 20 (median / rms px): Glint " << g.centroidMedian << " / " << g.centroidRms << " ("
        << g.centroidCount << " stars)";
    if (s) out << ", SExtractor " << s->centroidMedian << " / " << s->centroidRms << " (" << s->centroidCount << " stars)";
    out << "\n" << std::setprecision(1);
    out << "detections: Glint " << g.detections << " (" << g.falseDetections << " false, " << g.onGalaxy
        << " on the galaxy), " << gMs << " ms";
    if (s)
        out << "; SExtractor " << s->detections << " (" << s->falseDetections << " false, " << s->onGalaxy
            << " on the galaxy), " << sMs << " ms (whole program)";
    out << "\n";
    out << "widths (Glint's boxes, the galaxy's left out): widest " << g.widestSide << " px = "
        << std::setprecision(2) << (g.psfFwhm > 0.0 ? g.widestSide / g.psfFwhm : 0.0) << " FWHM (the frame's "
        << g.psfFwhm << " px); wider than 5 FWHM: " << g.wide;
    if (!bound.empty()) out << "; " << bound;
    out << "\n";
    if (!sNote.empty()) out << sNote << "\n";
    return out.str();
}

std::vector<BenchRow> runSourceBench(const BenchOptions& options) {
    std::vector<int> sides;
    for (const auto& s : options.sizes) sides.push_back(parseBenchSide(s, "sources", 128, 8192));
    if (sides.empty()) sides = {1024};
    const std::optional<std::string> sex = findProgram("source-extractor");
    std::vector<BenchRow> rows;
    for (int side : sides) {
        StarFieldOptions fo;
        fo.width = fo.height = side;
        fo.stars = std::max(20, static_cast<int>(250.0 * side * side / (1024.0 * 1024.0)));
        const StarField field = makeStarField(fo);
        const BrightestParams params = sourceFinderParams(100);
        const std::string caseName = "star field " + std::to_string(side) + "x" + std::to_string(side) + ", " +
                                     std::to_string(field.stars.size()) + " stars + galaxy, pivot " +
                                     params.pivot.text() + ", K=" + std::to_string(params.k);
        BrightestResult result;
        BenchRow g = measure("sources", caseName, Backend::Cpu, options.repeat, [&](JobControl& job) {
            result = runBrightest(field.image, params, Backend::Cpu, job);
        });
        g.backend = "glint cpu";
        const MatchScore gs = scoreCatalogue(field, glintDetections(result));
        g.verified = false;
        g.params = {{"side", side}, {"stars", field.stars.size()}, {"pivot", params.pivot.text()}, {"k", params.k}};
        g.extra = scoreJson(gs, g.totalMs);

        std::optional<MatchScore> ss;
        double sMs = 0.0;
        std::string sNote;
        // Both programs as processes on the same FITS file, in turns (the same load for each).
        const std::optional<std::string> glintCli = glintCommand(params);
        std::vector<double> sTimes, gTimes;
        if (sex || glintCli) {
            FrameFolder folder(field);
            if (!folder.error.empty()) sNote = "SExtractor and glint-cli: " + folder.error;
            else {
                if (sex) writeSextractorConfig(folder.dir, field);
                SextractorRun run;
                for (int i = 0; i < std::max(1, std::min(options.repeat, 7)); ++i) {
                    if (glintCli) {
                        const double ms = runTimed(folder.dir, *glintCli);
                        if (ms >= 0.0) gTimes.push_back(ms);
                    }
                    if (sex && run.error.empty()) {
                        run = runSextractor(*sex, folder.dir);
                        if (run.error.empty()) sTimes.push_back(run.ms);
                    }
                }
                if (sex && !run.error.empty()) sNote = "SExtractor: " + run.error;
                else if (sex) ss = scoreCatalogue(field, run.detections);
            }
        }
        if (!sex)
            sNote = "SExtractor: skipped (source-extractor is not installed; Debian: apt-get install source-extractor)";
        rows.push_back(g);
        if (!gTimes.empty()) {
            BenchRow p;
            p.algorithm = "sources";
            p.caseName = caseName;
            p.backend = "glint-cli process";
            p.device = g.device;
            p.repeats = static_cast<int>(gTimes.size());
            p.totalMs = median(gTimes);
            p.minMs = *std::min_element(gTimes.begin(), gTimes.end());
            p.params = g.params;
            p.note = "glint-cli brightest on the FITS file, --backend cpu --catalog: whole program (start, FITS read and "
                     "catalogue included)";
            rows.push_back(p);
        }
        if (ss) {
            sMs = median(sTimes);
            BenchRow s;
            s.algorithm = "sources";
            s.caseName = caseName;
            s.backend = "source-extractor";
            s.device = "CPU";
            s.repeats = static_cast<int>(sTimes.size());
            s.totalMs = sMs;
            s.minMs = *std::min_element(sTimes.begin(), sTimes.end());
            s.params = {{"side", side}, {"stars", field.stars.size()}, {"detect_thresh", 3}};
            s.note = "SExtractor, DETECT_THRESH 3, whole program (FITS read included)";
            s.extra = scoreJson(*ss, sMs);
            rows.push_back(s);
        }
        std::ostringstream c;
        c << std::fixed << std::setprecision(1) << "completeness/purity at SNR >= 10: " << 100.0 * gs.atLeast10.completeness()
          << "% / " << 100.0 * gs.atLeast10.purity() << "%";
        for (BenchRow& r : rows)
            if (r.backend == "glint cpu" && r.caseName == caseName) r.note = c.str();
        std::string text = table(caseName, gs, g.totalMs, ss, sMs, sNote, searchBoundText(result));
        if (!gTimes.empty()) {
            std::ostringstream t;
            t << std::fixed << std::setprecision(1) << "as processes on the FITS file (median of " << gTimes.size()
              << "): glint-cli " << median(gTimes) << " ms";
            if (!sTimes.empty()) t << ", source-extractor " << median(sTimes) << " ms";
            text += t.str() + "\n";
        }
        if (options.log) *options.log << text;
    }
    return rows;
}

} // namespace

void registerSourceBench() { registerBench("sources", runSourceBench); }

} // namespace glint
