#include "core/algo/brightest/Brightest.h"

#include "core/algo/brightest/BrightestSpec.h"
#include "core/algo/mammogram/LesionRanking.h"
#include "core/algo/kmax/KMax.h" // the overlap mode's job function: brightest -> kmax, one way
#include "core/algo/maxsub/MaxSubarray.h"
#include "core/algo/regions/WorkArray.h"
#include "core/algo/sources/Background.h"
#include "core/algo/sources/RegionMeasure.h"
#include "core/export/CsvTable.h"
#include "core/io/Image.h"
#include "core/jobs/JobRunner.h"

#include <algorithm>
#include <chrono>
#include <string>
#include <utility>

namespace glint {

namespace {

// The note of a result with fewer than K regions: why the search stopped.
std::string shortfallNote(const BrightestParams& params, const DisjointOutcome& out, bool slopeRule) {
    const int n = static_cast<int>(out.found.size());
    if (n >= params.k) return {};
    std::string note = "found " + std::to_string(n) + " of " + std::to_string(params.k) + " regions: ";
    if (out.capped) note += "the search stopped after " + std::to_string(out.rounds) + " rounds (the cap 20 K + 1000)";
    else if (out.rounds == 0) note += "no rectangle has a positive sum";
    else note += "no rectangle with a positive sum is left";
    if (out.rejected > 0)
        note += "; " + std::to_string(out.rejected) + " rejected by the filters (" + describeFilters(params) +
                (slopeRule ? ", next to a reported region, or on the slope of a brighter source)" : ", or next to a reported region)");
    if (params.boundOrNone() > 0) note += "; search bound: sides <= " + std::to_string(params.boundOrNone()) + " px";
    return note;
}

BrightestResult runOne(const Image& image, const ResolvedBrightest& resolved, const BrightestParams& params, Backend backend,
                       MaxSubarraySolver& solver, JobControl& job, ProgressSpan span) {
    PreparedRegionSearch search = prepareRegionSearch(image, params, params.mode, backend, job,
                                                      solver.deviceLocalPivot(params), resolved.model);
    const WorkArray& work = search.work;
    DisjointRule rule;
    rule.k = params.k;
    // The bound of the search (--max-box): every rectangle it finds fits. A bound no smaller than both
    // sides of the work array excludes nothing: the unbounded search runs (its strip rule and sums).
    rule.maxBox = params.boundOrNone() < std::max(work.rows, work.cols) ? params.boundOrNone() : 0;
    const RegionMeasurer measurer(work);
    const bool slopeRule = hasFilters(params) && params.slopeRule.get();
    std::vector<PixelRect> accepted;
    std::vector<BrightestRegion> measuredAccepted; // measured once, by the filters
    if (hasFilters(params)) {
        // With filters the search is a source finder: besides the filters, a rectangle that touches a reported
        // one or lies within one pixel of it is a fragment of the same source (the wings a rectangle leaves of
        // a round star) and is rejected too. With the bound measured on the image's stars (auto: boxes of a few
        // PSF widths, one source each) so is one whose brightest pixel has a brighter neighbour outside it: it
        // lies on the slope of a brighter source (a galaxy's core would otherwise come back as a ring of boxes
        // around its nucleus). Not with larger bounds: a box of a mesh holds several sources and cuts others at
        // its edges (params.slopeRule: resolveBrightest decides it).
        rule.maxRounds = DisjointRule::capFor(params.k);
        rule.accept = [&](const WorkRect& rect) {
            auto step = job.timing().scope("filters"); // the host's time in accept, summed over the rounds
            BrightestRegion g = regionsOf(work, {rect}).front();
            for (const PixelRect& a : accepted)
                if (g.x <= a.x + a.width + 1 && a.x <= g.x + g.width + 1 && g.y <= a.y + a.height + 1 &&
                    a.y <= g.y + g.height + 1)
                    return false;
            measurer.measure(g);
            if (!passesFilters(g, params) || (slopeRule && !measurer.peakIsLocalMaximum(g))) return false;
            accepted.push_back({g.x, g.y, g.width, g.height});
            measuredAccepted.push_back(g);
            return true;
        };
    }
    const DisjointOutcome out = solver.solveDisjoint(work, rule, job, span);
    BrightestResult& result = search.result;
    result.regions = regionsOf(work, out.found);
    {
        auto step = job.timing().scope("measure");
        for (std::size_t i = 0; i < result.regions.size(); ++i) {
            BrightestRegion& g = result.regions[i];
            const bool known = i < measuredAccepted.size() && measuredAccepted[i].x == g.x && measuredAccepted[i].y == g.y &&
                               measuredAccepted[i].width == g.width && measuredAccepted[i].height == g.height;
            if (!known) {
                measurer.measure(g);
                continue;
            }
            const int rank = g.rank;
            g = measuredAccepted[i];
            g.rank = rank;
        }
    }
    result.rounds = out.rounds;
    result.rejected = out.rejected;
    recordSearchBound(resolved.bound, rule.maxBox, result);
    result.note = shortfallNote(params, out, slopeRule);
    // An unbounded search whose first region covers most of what was searched answers the literal question
    // but rarely the user's: say what bounds it.
    if (rule.maxBox == 0 && params.k > 1 && !result.regions.empty()) {
        const BrightestRegion& first = result.regions.front();
        const double share = static_cast<double>(first.width) * first.height / (static_cast<double>(work.rows) * work.cols);
        if (share >= 0.5) {
            if (!result.note.empty()) result.note += "; ";
            result.note += "region 1 covers " + std::to_string(static_cast<int>(share * 100.0 + 0.5)) +
                           " % of the searched area (a crowded field or a bright extended background?): bound the "
                           "search to boxes of about 2-3 star widths with --max-box (the window's Max box)";
        }
    }
    return std::move(search.result);
}

// One search with resolved parameters on the backend chosen for them.
BrightestResult searchOnce(const Image& image, const ResolvedBrightest& resolved, const BrightestParams& params,
                           Backend backend, JobControl& job) {
    if (params.mode == BrightestMode::Overlap)
        return runBrightestOverlap(image, params, resolved.bound, resolved.model, backend, job); // algo/kmax
    return runJob<MaxSubarraySolver>(backend, job, estimatedBrightestCpuMs(image, params),
                                     [&](MaxSubarraySolver& solver, Backend chosen) {
                                         return runOne(image, resolved, params, chosen, solver, job, {});
                                     });
}

// The included pixels' count, maximum and largest value below it (for an empty answer's explanation and the
// pivot that replaces one at the maximum): one pass over the ROI through a work array of the raw values.
struct IncludedMaximum {
    std::size_t count = 0;
    double max = 0.0;
    std::optional<double> belowMax;
};

IncludedMaximum includedMaximum(const Image& image, BrightestParams params, JobControl& job) {
    params.pivot = PivotSpec{PivotSpec::Kind::Number, 0.0}; // a = the value itself
    params.threshold = 0.0;
    params.minSnr = 0.0;
    const WorkArray w = prepareWorkArray(image, params);
    IncludedMaximum out;
    std::vector<double> row(static_cast<std::size_t>(w.cols));
    for (int r = 0; r < w.rows; ++r) {
        if ((r & 63) == 0) job.throwIfCancelled();
        w.rowReal(r, row.data());
        for (int c = 0; c < w.cols; ++c) {
            if (w.isExcluded(r, c)) continue;
            const double v = row[static_cast<std::size_t>(c)];
            if (out.count++ == 0) {
                out.max = v;
            } else if (v > out.max) {
                out.belowMax = out.max;
                out.max = v;
            } else if (v < out.max && (!out.belowMax || v > *out.belowMax)) {
                out.belowMax = v;
            }
        }
    }
    return out;
}

std::string pivotText(const BrightestResult& r) {
    const std::string spec = r.pivotSpec.text();
    return r.pivotSpec.kind == PivotSpec::Kind::Number ? spec : spec + " = " + formatNumber(r.pivot);
}

// Why a result has no region, as one sentence that starts "no region".
std::string emptyReason(const BrightestResult& r, const IncludedMaximum& included, bool restricted) {
    if (included.count == 0)
        return restricted ? "no region: no pixel is left to search (the ROI lies in the exclusions, or its pixels are blank)"
                          : "no region: every pixel is blank or excluded";
    const std::string where = restricted ? "the maximum of the included pixels" : "the image maximum";
    if (r.pivot >= included.max) {
        const std::string what = r.pivot == included.max ? where : "above " + where + ", " + formatNumber(included.max);
        return "no region: every pixel is at or below the pivot " + pivotText(r) + " (" + what + "); choose a lower pivot";
    }
    return "no region has a positive sum above the pivot " + pivotText(r);
}

void appendNote(BrightestResult& r, const std::string& note) {
    if (note.empty()) return;
    r.note = r.note.empty() ? note : r.note + "; " + note;
}

bool integerImage(const Image& image) { return isIntegerSampleType(image.sampleType()) || image.meta.integerValued; }

} // namespace

ResolvedBrightest resolveBrightest(const Image& image, const BrightestParams& params, JobControl& job) {
    validateBrightestParams(params);
    ResolvedBrightest r;
    r.params = params;
    if (params.autoExclude == AutoExcludeMode::Mammogram) {
        const auto start = std::chrono::steady_clock::now();
        {
            auto step = job.timing().scope("auto-exclude");
            r.autoExclusions = mammogramAutoExclusions(image);
        }
        appendAutoExclusions(*r.autoExclusions, r.params); // after the user's shapes
        r.params.autoExclude = AutoExcludeMode::None;
        r.autoExclusionMs = msSince(start);
        job.throwIfCancelled();
    }
    if (!params.maxBox.isAuto()) {
        r.bound.maxBox = params.boundOrNone();
        if (r.params.slopeRule.isAuto()) r.params.slopeRule = AutoValue<bool>::value(false);
        return r;
    }
    // The model over the whole image (blank, non-finite and excluded pixels left out), as the search makes it;
    // handed to the search. Without one (a search that needs no model) the bound is the mesh.
    const PixelRect roi = searchRoi(image, r.params);
    if (needsBackgroundModel(r.params)) {
        auto step = job.timing().scope("background model");
        r.model = std::make_shared<const BackgroundMap>(
            estimateBackground(image, imageExclusionMask(image, r.params), backgroundParamsOf(r.params)));
    }
    job.throwIfCancelled();
    r.bound = measureSearchBound(image, r.model.get(), roi, r.params.mesh, job);
    r.params.maxBox = AutoValue<int>::value(r.bound.maxBox);
    // The slope rule suits boxes of a few PSF widths: with a larger bound a box holds several sources and cuts
    // others at its edges, and the rule would reject most of a crowded field's boxes (714 of 777 rectangles, 63 of
    // 100 regions found, on test_bounded's crowded 512^2 field at max box 64).
    if (r.params.slopeRule.isAuto()) r.params.slopeRule = AutoValue<bool>::value(r.bound.psf.measured());
    return r;
}

BrightestResult runResolvedBrightest(const Image& image, const ResolvedBrightest& resolved, Backend backend, JobControl& job) {
    const BrightestParams& params = resolved.params;
    if (params.rank == RegionRank::Contrast && params.mode == BrightestMode::Disjoint) {
        auto step = job.timing().scope("contrast ranking");
        job.setDevice("CPU");
        return rankMammogramLesions(image, params, job);
    }
    BrightestResult result = searchOnce(image, resolved, params, backend, job);
    for (const std::string& note : job.notes()) appendNote(result, note); // a backend that declined the search
    if (!result.regions.empty()) return result;
    // Why nothing was found: the included pixels' maximum (one pass, only for an empty answer).
    const IncludedMaximum included = includedMaximum(image, params, job);
    const bool restricted = params.roi || !params.excludeRects.empty() || !params.excludePolygons.empty();
    using Kind = PivotSpec::Kind;
    // An integer image whose percentile (or median) pivot is its maximum has no pixel above the pivot: the search
    // runs again with the largest value below the maximum as the pivot (the regions are then those of the
    // maximum's pixels), and says so.
    if ((params.pivot.kind == Kind::Percentile || params.pivot.kind == Kind::Median) && integerImage(image) &&
        included.count > 0 && result.pivot >= included.max && included.belowMax) {
        const std::string asked = params.pivot.text() + " = " + formatNumber(result.pivot);
        BrightestParams again = params;
        again.pivot = PivotSpec{Kind::Number, *included.belowMax};
        result = searchOnce(image, resolved, again, backend, job);
        appendNote(result, asked + " is " + (restricted ? "the maximum of the included pixels" : "the image maximum") +
                               ", so no pixel lies above it: the pivot used is " + formatNumber(*included.belowMax) +
                               ", the largest value below the maximum");
        if (!result.regions.empty()) return result;
    }
    appendNote(result, emptyReason(result, included, restricted));
    return result;
}

BrightestResult runBrightest(const Image& image, const BrightestParams& params, Backend backend, JobControl& job) {
    const auto start = std::chrono::steady_clock::now();
    const ResolvedBrightest resolved = resolveBrightest(image, params, job);
    BrightestResult result = runResolvedBrightest(image, resolved, backend, job);
    job.timing().setTotal(msSince(start)); // resolution, search and any second search
    return result;
}

BrightestRun runBrightestRequest(const Image& image, const Json& request, Backend backend, JobControl& job) {
    const ParamSpec<BrightestParams>& spec = brightestSpec();
    BrightestRun run;
    ImageKindGuess guess;
    const Json full = spec.applyPreset(request, &image, &guess);
    if (request.contains("preset") && request["preset"] == "auto") run.kind = guess;
    const BrightestParams params = spec.read(full);
    const auto start = std::chrono::steady_clock::now();
    run.resolved = resolveBrightest(image, params, job);
    run.result = runResolvedBrightest(image, run.resolved, backend, job);
    job.timing().setTotal(msSince(start));
    run.parameters = spec.write(run.resolved.params, full["preset"].get<std::string>());
    return run;
}

std::vector<BrightestResult> runPivotSweep(const Image& image, const BrightestParams& params,
                                           const std::vector<PivotSpec>& pivots, Backend backend, JobControl& job) {
    for (const PivotSpec& p : pivots) {
        BrightestParams one = params;
        one.pivot = p;
        validateBrightestParams(one);
    }
    const auto start = std::chrono::steady_clock::now();
    ResolvedBrightest resolved = resolveBrightest(image, params, job);
    std::vector<BrightestResult> results;
    if (params.mode == BrightestMode::Overlap) {
        for (const PivotSpec& p : pivots) {
            BrightestParams one = resolved.params;
            one.pivot = p;
            results.push_back(runBrightestOverlap(image, one, resolved.bound, resolved.model, backend, job));
        }
    } else {
        results = runJob<MaxSubarraySolver>(
            backend, job, estimatedBrightestCpuMs(image, resolved.params) * static_cast<double>(pivots.size()),
            [&](MaxSubarraySolver& solver, Backend chosen) {
                std::vector<BrightestResult> out;
                const ProgressSpan all;
                for (std::size_t i = 0; i < pivots.size(); ++i) {
                    BrightestParams one = resolved.params;
                    one.pivot = pivots[i];
                    const double n = static_cast<double>(pivots.size());
                    out.push_back(runOne(image, resolved, one, chosen, solver, job, all.part(i / n, (i + 1) / n)));
                }
                return out;
            });
    }
    // An empty answer says why (one pass, only when some pivot found nothing).
    std::optional<IncludedMaximum> included;
    const bool restricted = params.roi || !resolved.params.excludeRects.empty() || !resolved.params.excludePolygons.empty();
    for (BrightestResult& r : results) {
        if (!r.regions.empty()) continue;
        if (!included) included = includedMaximum(image, resolved.params, job);
        appendNote(r, emptyReason(r, *included, restricted));
    }
    job.timing().setTotal(msSince(start));
    return results;
}

void registerBrightestCpuBackends() {
    BackendRegistry<MaxSubarraySolver>::add(Backend::Reference, &makeReferenceMaxSubarraySolver);
    BackendRegistry<MaxSubarraySolver>::add(Backend::Cpu, &makeCpuMaxSubarraySolver);
}

} // namespace glint
