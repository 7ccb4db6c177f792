// glint-cli bench catalogue [--fields sparse,crowded,galaxies] [--sizes 2048] [--report OUT.md|json|csv]: issue 30's
// evaluation. Each truth-injected field (scenes/SkyTruth.h) is written as FITS + truth CSV into a temporary folder;
// SExtractor runs on it with its default configuration, Glint's `sources` algorithm through the hook of
// bench/CatalogueRun.h; both catalogues are scored against the truth (scenes/SkyTruthScore.h) and reported side by
// side, one table per field, with the targets (met / not met) and the wall time of each.
#include "bench/Bench.h"
#include "bench/CatalogueRun.h"
#include "core/io/ImageLoader.h"
#include "core/util/Errors.h"
#include "scenes/SkyTruth.h"
#include "scenes/SkyTruthScore.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <optional>
#include <ostream>
#include <sstream>

namespace glint {

namespace {

// A fresh temporary folder, removed with the object (unless GLINT_KEEP_BENCH_FILES is set: then it is named).
struct TempFolder {
    std::filesystem::path dir;
    TempFolder() {
        std::string t = (std::filesystem::temp_directory_path() / "glint-catalogue-XXXXXX").string();
        if (!::mkdtemp(t.data())) throw OutputError("bench catalogue: cannot make a temporary folder");
        dir = t;
    }
    TempFolder(const TempFolder&) = delete;
    TempFolder& operator=(const TempFolder&) = delete;
    ~TempFolder() {
        std::error_code ignored;
        if (!std::getenv("GLINT_KEEP_BENCH_FILES")) std::filesystem::remove_all(dir, ignored);
    }
};

std::string fixed(double v, int digits) {
    if (!std::isfinite(v)) return "-";
    std::ostringstream s;
    s << std::fixed << std::setprecision(digits) << v;
    return s.str();
}

std::string fraction(int found, int total) {
    if (total == 0) return "- (0)";
    return fixed(static_cast<double>(found) / total, 3) + " (" + std::to_string(found) + "/" + std::to_string(total) + ")";
}

std::string binLabel(std::size_t i) {
    const std::vector<double>& e = skySnrEdges();
    std::ostringstream s;
    if (i + 1 < e.size()) s << e[i] << "–" << e[i + 1];
    else s << e[i] << "+";
    return s.str();
}

Json scoreJson(const CatalogueScore& m) {
    Json iso = Json::array(), all = Json::array(), flux = Json::array(), gal = Json::array();
    for (std::size_t i = 0; i < m.allStars.size(); ++i) {
        iso.push_back({{"snr", binLabel(i)}, {"truths", m.isolatedStars[i].truths}, {"found", m.isolatedStars[i].found}});
        all.push_back({{"snr", binLabel(i)}, {"truths", m.allStars[i].truths}, {"found", m.allStars[i].found}});
        flux.push_back({{"snr", binLabel(i)}, {"count", m.starFluxRatio[i].count},
                        {"median_flux_auto_ratio", std::isfinite(m.starFluxRatio[i].median) ? Json(m.starFluxRatio[i].median) : Json()}});
    }
    const auto num = [](double v) { return std::isfinite(v) ? Json(v) : Json(); };
    for (const GalaxyScore& g : m.galaxies)
        gal.push_back({{"truth", g.truth}, {"re", g.re}, {"sersic_n", g.sersicN}, {"snr", g.snr}, {"isolated", g.isolated},
                       {"detections", g.detections}, {"flux_auto_ratio", num(g.fluxRatio)}, {"a_over_re", num(g.aOverRe)},
                       {"kron_ratio", num(g.kronRatio)}});
    return {{"isolated_stars", iso}, {"all_stars", all}, {"star_flux_auto_ratio", flux},
            {"isolated_snr10", {{"truths", m.isolated10.truths}, {"found", m.isolated10.found}}},
            {"all_snr10", {{"truths", m.all10.truths}, {"found", m.all10.found}}},
            {"detections", m.detections}, {"false", m.falseDetections}, {"purity", m.purity()},
            {"centroid_count", m.centroidCount}, {"centroid_median_px", num(m.centroidMedian)}, {"centroid_rms_px", num(m.centroidRms)},
            {"galaxies_found_once", m.galaxiesFoundOnce}, {"galaxies_shredded", m.galaxiesShredded}, {"galaxies_missed", m.galaxiesMissed},
            {"galaxies_re3", m.bigGalaxies}, {"galaxies_re3_found_once", m.bigFoundOnce}, {"galaxies_re3_flux_within_10pc", m.bigFluxWithin10},
            {"galaxy_median_flux_auto_ratio", num(m.galaxyFluxRatio.median)}, {"galaxy_median_a_over_re", num(m.galaxyAOverRe.median)},
            {"galaxy_median_kron_ratio", num(m.galaxyKronRatio.median)},
            {"blended_stars", m.blendedStars}, {"blended_found", m.blendedFound}, {"galaxies", gal}};
}

struct Column {
    std::string name;
    CatalogueRun run;
    std::optional<CatalogueScore> score;
};

// One field's side-by-side table (Markdown).
std::string fieldTable(const SkyField& field, const Column& sex, const Column& glint, double glintLoadMs) {
    const SkyFieldOptions& o = field.options;
    int stars = 0, galaxies = 0;
    for (const TruthObject& t : field.objects) (t.type == TruthType::Star ? stars : galaxies)++;
    std::ostringstream out;
    out << "### Field `" << o.name << "`: " << o.width << "×" << o.height << ", " << stars << " stars, " << galaxies
        << " galaxies (seed " << o.seed << ")\n\n";
    out << "| figure | SExtractor (defaults) | Glint `sources --preset auto` | target | met: SExtractor / Glint |\n"
        << "|---|---|---|---|---|\n";
    const auto cell = [](const Column& c, const std::function<std::string(const CatalogueScore&)>& f) {
        return c.score ? f(*c.score) : c.run.error;
    };
    const auto met = [](std::optional<bool> v) { return v ? (*v ? std::string("met") : std::string("not met")) : std::string("—"); };
    const auto row = [&](const std::string& figure, const std::function<std::string(const CatalogueScore&)>& f,
                         const std::string& target = "", std::optional<bool> sMet = std::nullopt, std::optional<bool> gMet = std::nullopt) {
        out << "| " << figure << " | " << cell(sex, f) << " | " << cell(glint, f) << " | " << target << " | "
            << (target.empty() ? "" : met(sMet) + " / " + met(gMet)) << " |\n";
    };
    const bool both = sex.score && glint.score;
    for (std::size_t i = 1; i < skySnrEdges().size(); ++i) {
        std::optional<bool> gMet;
        if (both) {
            const double s = sex.score->isolatedStars[i].completeness(), g = glint.score->isolatedStars[i].completeness();
            gMet = std::isnan(s) || (i == 1 ? g >= s - 0.05 : g >= s);
        }
        row("isolated stars complete, SNR " + binLabel(i),
            [i](const CatalogueScore& m) { return fraction(m.isolatedStars[i].found, m.isolatedStars[i].truths); },
            i == 1 ? "≥ SExtractor − 0.05" : "≥ SExtractor", std::nullopt, gMet);
    }
    {
        std::optional<bool> gMet;
        if (both) gMet = glint.score->isolated10.found * std::max(1, sex.score->isolated10.truths) >=
                         sex.score->isolated10.found * std::max(1, glint.score->isolated10.truths);
        row("isolated stars complete, SNR ≥ 10", [](const CatalogueScore& m) { return fraction(m.isolated10.found, m.isolated10.truths); },
            "≥ SExtractor", std::nullopt, gMet);
    }
    row("all stars complete, SNR 5–10 / 10–20 / 20–50 / 50+", [](const CatalogueScore& m) {
        std::string s;
        for (std::size_t i = 1; i < m.allStars.size(); ++i) s += (i > 1 ? " / " : "") + fixed(m.allStars[i].completeness(), 3);
        return s;
    });
    row("all stars complete, SNR ≥ 10", [](const CatalogueScore& m) { return fraction(m.all10.found, m.all10.truths); });
    row("purity (false / detections)",
        [](const CatalogueScore& m) { return fixed(m.purity(), 4) + " (" + std::to_string(m.falseDetections) + "/" + std::to_string(m.detections) + ")"; },
        "≥ 0.99", sex.score ? std::optional<bool>(sex.score->purity() >= 0.99) : std::nullopt,
        glint.score ? std::optional<bool>(glint.score->purity() >= 0.99) : std::nullopt);
    row("centroid error, SNR ≥ 20 unsaturated stars: median / rms px", [](const CatalogueScore& m) {
        return fixed(m.centroidMedian, 3) + " / " + fixed(m.centroidRms, 3) + " (" + std::to_string(m.centroidCount) + ")";
    });
    row("stars FLUX_AUTO / true flux (median), SNR 5–10 / 10–20 / 20–50 / 50+", [](const CatalogueScore& m) {
        std::string s;
        for (std::size_t i = 1; i < m.starFluxRatio.size(); ++i) s += (i > 1 ? " / " : "") + fixed(m.starFluxRatio[i].median, 3);
        return s;
    });
    row("blended stars (SNR ≥ 10, ≤ 2 FWHM from a brighter one) found as their own source",
        [](const CatalogueScore& m) { return fraction(m.blendedFound, m.blendedStars); });
    if (galaxies > 0) {
        row("galaxies found as one / shredded / missed", [](const CatalogueScore& m) {
            return std::to_string(m.galaxiesFoundOnce) + " / " + std::to_string(m.galaxiesShredded) + " / " + std::to_string(m.galaxiesMissed);
        });
        const auto all = [](const Column& c, int CatalogueScore::*field) {
            return c.score ? std::optional<bool>((*c.score).*field == c.score->bigGalaxies) : std::nullopt;
        };
        row("galaxies with r_e ≥ 3 px found as one source", [](const CatalogueScore& m) { return fraction(m.bigFoundOnce, m.bigGalaxies); },
            "all", all(sex, &CatalogueScore::bigFoundOnce), all(glint, &CatalogueScore::bigFoundOnce));
        row("… and with FLUX_AUTO within 10 % of the true total", [](const CatalogueScore& m) { return fraction(m.bigFluxWithin10, m.bigGalaxies); },
            "all", all(sex, &CatalogueScore::bigFluxWithin10), all(glint, &CatalogueScore::bigFluxWithin10));
        row("galaxies FLUX_AUTO / true flux (median): all / n = 1 / n = 4", [](const CatalogueScore& m) {
            std::vector<double> exp, dev;
            for (const GalaxyScore& g : m.galaxies)
                if (std::isfinite(g.fluxRatio)) (g.sersicN < 2.0 ? exp : dev).push_back(g.fluxRatio);
            const auto med = [](std::vector<double> v) {
                if (v.empty()) return CatalogueEntry::kNaN;
                std::sort(v.begin(), v.end());
                return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
            };
            return fixed(m.galaxyFluxRatio.median, 3) + " / " + fixed(med(exp), 3) + " / " + fixed(med(dev), 3);
        });
        row("galaxies A_IMAGE / r_e (median)", [](const CatalogueScore& m) { return fixed(m.galaxyAOverRe.median, 3); });
        row("galaxies KRON_RADIUS·A / (2.5 × true first-moment radius) (median)", [](const CatalogueScore& m) { return fixed(m.galaxyKronRatio.median, 3); });
    }
    out << "| wall time (ms) | " << (sex.run.error.empty() ? fixed(sex.run.ms, 0) + " (whole program, FITS read included)" : sex.run.error)
        << " | " << (glint.run.error.empty() ? fixed(glint.run.ms, 0) + " (in process; + " + fixed(glintLoadMs, 0) + " FITS load)" : glint.run.error)
        << " |  |  |\n";
    return out.str();
}

std::vector<BenchRow> runCatalogueBench(const BenchOptions& options) {
    std::vector<SkyFieldKind> kinds;
    for (const std::string& f : options.fields) kinds.push_back(parseSkyFieldKind(f));
    if (kinds.empty()) kinds = {SkyFieldKind::Sparse, SkyFieldKind::Crowded, SkyFieldKind::Galaxies};
    int side = 2048;
    if (options.sizes.size() > 1) throw UsageError("bench catalogue takes one size");
    if (!options.sizes.empty()) side = parseBenchSide(options.sizes[0], "catalogue", 256, 8192);
    const std::optional<std::string> sexProgram = findSourceExtractor();
    std::vector<BenchRow> rows;
    std::string sections = "## glint-cli bench catalogue: SExtractor and Glint against the truth\n\n"
                           "Truth: scenes/SkyTruth.h (SNR = aperture SNR of the object's own light; isolated = no object of ≥ 10 % "
                           "of its flux within 3 FWHM, or a galaxy's 2 r_e). Scoring: scenes/SkyTruthScore.h (stars matched within "
                           "1.5 px, one to one; a detection in a galaxy's 2 r_e ellipse is the galaxy's).\n\n";
    for (SkyFieldKind kind : kinds) {
        const SkyField field = makeSkyField(skyFieldOptions(kind, side));
        TempFolder folder;
        const std::string fits = (folder.dir / (field.options.name + ".fits")).string();
        writeSkyFieldFits(field, fits);
        writeSkyTruthCsv(field, (folder.dir / (field.options.name + "-truth.csv")).string());
        if (options.log && std::getenv("GLINT_KEEP_BENCH_FILES")) *options.log << "bench catalogue: files in " << folder.dir.string() << "\n";

        Column sex{"source-extractor", {}, std::nullopt};
        if (!sexProgram) sex.run.error = "source-extractor not installed (Debian: apt-get install source-extractor)";
        else if (std::string e = writeSextractorConfig(*sexProgram, folder.dir.string()); !e.empty()) sex.run.error = e;
        else sex.run = runSourceExtractor(*sexProgram, folder.dir.string(), fits);
        if (sex.run.error.empty()) sex.score = scoreSkyCatalogue(field, sex.run.entries);

        Column glint{"glint sources", {}, std::nullopt};
        const auto loadStart = std::chrono::steady_clock::now();
        const Image loaded = loadImage(fits);
        const double loadMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - loadStart).count();
        glint.run = glintCatalogueRunner()(fits, loaded);
        if (glint.run.error.empty()) glint.score = scoreSkyCatalogue(field, glint.run.entries);

        const std::string table = fieldTable(field, sex, glint, loadMs);
        if (options.log) *options.log << table << "\n";
        const std::string caseName = field.options.name + " " + std::to_string(side) + "x" + std::to_string(side);
        for (const Column* c : {&sex, &glint}) {
            BenchRow r;
            r.algorithm = "catalogue";
            r.caseName = caseName;
            r.backend = c->name;
            r.device = "CPU";
            r.repeats = c->run.error.empty() ? 1 : 0;
            r.totalMs = c->run.ms;
            r.minMs = c->run.ms;
            r.params = {{"field", field.options.name}, {"side", side}, {"seed", field.options.seed}};
            if (c->score) {
                r.extra = scoreJson(*c->score);
                std::ostringstream n;
                n << "isolated stars complete at SNR >= 10: " << fixed(c->score->isolated10.completeness(), 3)
                  << ", purity " << fixed(c->score->purity(), 4);
                r.note = n.str();
            } else {
                r.note = c->run.error;
            }
            if (c == &sex && c->run.error.empty()) r.note += " (whole program, default configuration)";
            rows.push_back(r);
        }
        sections += table + "\n";
    }
    if (!rows.empty()) rows.front().section = sections;
    return rows;
}

} // namespace

void registerCatalogueBench() { registerBench("catalogue", runCatalogueBench); }

} // namespace glint
