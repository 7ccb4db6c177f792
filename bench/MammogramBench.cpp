// glint-cli bench mammogram [--sizes N] [--report OUT.md|json|csv]: issue 33's evaluation of the mammogram
// ranking on GENERATED films (scenes/MammoFilms.h: no real mammography set is within reach here), before and
// after: "before" is what --preset auto gave a metadata-free film until now (the film taken as "other": pivot
// mean, no exclusion) and the hand-set CLI run (--pivot local --threshold 3 --auto-exclude mammogram,
// ranked by sum); "after" is --preset auto today (the film recognised by its content, exclusions, ranked by
// contrast). Scored by scenes/MammoScore.h. --sizes N: the number of films (default 48).
#include "bench/Bench.h"
#include "core/algo/brightest/Brightest.h"
#include "core/params/ImageKind.h"
#include "core/util/AtomicFile.h"
#include "core/util/Errors.h"
#include "scenes/MammoFilms.h"
#include "scenes/MammoScore.h"

#include <chrono>
#include <cstdlib>
#include <iomanip>
#include <ostream>
#include <sstream>

namespace glint {

namespace {

std::string pct(double v) {
    std::ostringstream o;
    o << std::fixed << std::setprecision(0) << 100.0 * v << " %";
    return o.str();
}

std::vector<BenchRow> runMammogramBench(const BenchOptions& options) {
    int count = 48;
    if (options.sizes.size() > 1) throw UsageError("bench mammogram takes one count of films");
    if (!options.sizes.empty()) count = parseBenchSide(options.sizes[0], "mammogram", 4, 400);
    const std::vector<MammoFilm> films = makeMammoFilmSet(count);
    if (const char* dir = std::getenv("GLINT_MAMMO_FILMS_DIR")) { // the films and their truth, to look at
        std::string truth = "film,kind,x,y,radius\n";
        for (const MammoFilm& film : films) {
            writeMammoFilmPgm(film, std::string(dir) + "/" + film.name + ".pgm");
            for (const MammoLesion& l : film.lesions)
                truth += film.name + "," + (l.kind == MammoLesionKind::Mass ? "mass" : "calcifications") + "," +
                         std::to_string(l.x) + "," + std::to_string(l.y) + "," + std::to_string(l.radius) + "\n";
        }
        writeFileAtomically(std::string(dir) + "/truth.csv", truth);
    }
    struct Variant { std::string name; Json request; };
    const std::vector<Variant> variants = {
        {"before: --preset auto (film taken as other)", {{"preset", "other"}}},
        {"before: --pivot local --threshold 3 --auto-exclude mammogram (rank sum)",
         {{"preset", "none"}, {"pivot", "local"}, {"threshold", 3.0}, {"auto_exclude", "mammogram"}, {"k", 10}}},
        {"after: --preset auto", {{"preset", "auto"}}},
    };
    std::vector<BenchRow> rows;
    std::string section = "## glint-cli bench mammogram: " + std::to_string(count) +
                          " GENERATED films (scenes/MammoFilms.h; synthetic, not patient images)\n\n"
                          "| ranking | films as mammogram | top-10 | box #1 | FROC 0.5 | 1 | 2 | 4 FP/image | boxes on artefacts |\n"
                          "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
    for (const Variant& v : variants) {
        std::vector<std::vector<BrightestRegion>> regions;
        int recognised = 0;
        const auto start = std::chrono::steady_clock::now();
        for (const MammoFilm& film : films) {
            JobControl job;
            BrightestRun run = runBrightestRequest(film.image, v.request, Backend::Cpu, job);
            if (run.kind && run.kind->kind == ImageKind::Mammogram) ++recognised;
            regions.push_back(run.result.regions);
        }
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        MammoScore s = scoreMammoFilms(films, regions);
        s.filmsRecognised = recognised;
        BenchRow r;
        r.algorithm = "mammogram";
        r.caseName = v.name;
        r.backend = "cpu";
        r.device = "CPU";
        r.repeats = 1;
        r.totalMs = ms / std::max(1, count);
        r.minMs = r.totalMs;
        r.params = {{"films", count}, {"seed", 33}, {"request", v.request}};
        r.extra = {{"lesions", s.lesions}, {"top10", s.top10}, {"top1", s.top1}, {"froc_fp_per_image", {0.5, 1, 2, 4}},
                   {"froc_sensitivity", s.froc}, {"artefact_boxes", s.artefactBoxes}, {"artefacts", s.artefactNotes},
                   {"recognised", recognised}, {"mean_boxes", s.meanBoxes}};
        std::ostringstream note;
        note << "top-10 " << pct(s.top10) << ", box #1 " << pct(s.top1) << ", FROC " << pct(s.froc[0]) << "/" << pct(s.froc[1])
             << "/" << pct(s.froc[2]) << "/" << pct(s.froc[3]) << " at 0.5/1/2/4 FP per image, " << s.artefactBoxes
             << " top-10 box(es) on labels, markers or edges (" << s.lesions << " lesions); ms per film";
        r.note = note.str();
        section += "| " + v.name + " | " + std::to_string(recognised) + "/" + std::to_string(count) + " | " + pct(s.top10) + " | " +
                   pct(s.top1) + " | " + pct(s.froc[0]) + " | " + pct(s.froc[1]) + " | " + pct(s.froc[2]) + " | " +
                   pct(s.froc[3]) + " | " + std::to_string(s.artefactBoxes) + " |\n";
        if (options.log) *options.log << v.name << ": " << r.note << "\n";
        rows.push_back(r);
    }
    if (!rows.empty()) rows.front().section = section;
    return rows;
}

} // namespace

void registerMammogramBench() { registerBench("mammogram", runMammogramBench); }

} // namespace glint
