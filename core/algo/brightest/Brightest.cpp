#include "core/algo/brightest/Brightest.h"
#include "core/algo/maxsub/PsfWidth.h"

#include "core/algo/brightest/MaxSubarray.h"
#include "core/algo/kmax/KMax.h" // the overlap mode's job function: brightest -> kmax, one way
#include "core/algo/maxsub/RegionMeasure.h"
#include "core/algo/maxsub/WorkArray.h"
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
        note += "; " + std::to_string(out.rejected) + " rejected by the filters (min SNR " + formatNumber(params.minSnr) +
                ", min area " + std::to_string(params.minArea) +
                (params.maxSize > 0 ? ", max size " + std::to_string(params.maxSize) : std::string()) +
                (slopeRule ? ", next to a reported region, or on the slope of a brighter source)" : ", or next to a reported region)");
    if (params.maxBox > 0) note += "; search bound: sides <= " + std::to_string(params.maxBox) + " px";
    return note;
}

BrightestResult runOne(const Image& image, const BrightestParams& givenParams, Backend resolved, MaxSubarraySolver& solver,
                       JobControl& job, ProgressSpan span) {
    PreparedRegionSearch search =
        prepareRegionSearch(image, givenParams, givenParams.mode, resolved, job, solver.deviceLocalPivot(givenParams));
    const WorkArray& work = search.work;
    // --max-box auto: the bound measured on the image (5 PSF FWHM); the rest reads it as given.
    const SearchBound bound = resolveSearchBound(work, givenParams, job);
    BrightestParams params = givenParams;
    params.maxBox = bound.maxBox;
    DisjointRule rule;
    rule.k = params.k;
    // The bound of the search (--max-box): every rectangle it finds fits. A bound no smaller than both
    // sides of the work array excludes nothing: the unbounded search runs (its strip rule and sums).
    rule.maxBox = params.maxBox < std::max(work.rows, work.cols) ? params.maxBox : 0;
    const RegionMeasurer measurer(work);
    const bool slopeRule = hasFilters(params) && bound.automatic && bound.psf.measured();
    std::vector<PixelRect> accepted;
    std::vector<BrightestRegion> measuredAccepted; // measured once, by the filters
    if (hasFilters(params)) {
        // With filters the search is a source finder: besides the filters, a rectangle that touches a reported
        // one or lies within one pixel of it is a fragment of the same source (the wings a rectangle leaves of
        // a round star) and is rejected too. With the bound measured on the image's stars (auto: boxes of a few
        // PSF widths, one source each) so is one whose brightest pixel has a brighter neighbour outside it: it
        // lies on the slope of a brighter source (a galaxy's core would otherwise come back as a ring of boxes
        // around its nucleus). Not with larger bounds: a box of a mesh holds several sources and cuts others at
        // its edges, and the rule would reject most of a crowded field's boxes (714 of 777 rectangles, 63 of
        // 100 regions found, on test_bounded's crowded 512^2 field at max box 64).
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
    recordSearchBound(bound, rule.maxBox, result);
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

} // namespace

BrightestResult runBrightest(const Image& image, const BrightestParams& params, Backend backend, JobControl& job) {
    validateBrightestParams(params);
    if (params.mode == BrightestMode::Overlap) return runBrightestOverlap(image, params, backend, job); // algo/kmax
    return runJob<MaxSubarraySolver>(backend, job, estimatedBrightestCpuMs(image, params),
                                     [&](MaxSubarraySolver& solver, Backend resolved) {
                                         return runOne(image, params, resolved, solver, job, {});
                                     });
}

std::vector<BrightestResult> runPivotSweep(const Image& image, const BrightestParams& params,
                                           const std::vector<PivotSpec>& pivots, Backend backend, JobControl& job) {
    validateBrightestParams(params);
    for (const PivotSpec& p : pivots) {
        BrightestParams one = params;
        one.pivot = p;
        validateBrightestParams(one);
    }
    if (params.mode == BrightestMode::Overlap) {
        const auto start = std::chrono::steady_clock::now();
        std::vector<BrightestResult> results;
        for (const PivotSpec& p : pivots) {
            BrightestParams one = params;
            one.pivot = p;
            results.push_back(runBrightestOverlap(image, one, backend, job));
        }
        job.timing().setTotal(msSince(start));
        return results;
    }
    return runJob<MaxSubarraySolver>(
        backend, job, estimatedBrightestCpuMs(image, params) * static_cast<double>(pivots.size()),
        [&](MaxSubarraySolver& solver, Backend resolved) {
            std::vector<BrightestResult> results;
            const ProgressSpan all;
            for (std::size_t i = 0; i < pivots.size(); ++i) {
                BrightestParams one = params;
                one.pivot = pivots[i];
                const double n = static_cast<double>(pivots.size());
                results.push_back(runOne(image, one, resolved, solver, job, all.part(i / n, (i + 1) / n)));
            }
            return results;
        });
}

void registerBrightestCpuBackends() {
    BackendRegistry<MaxSubarraySolver>::add(Backend::Reference, &makeReferenceMaxSubarraySolver);
    BackendRegistry<MaxSubarraySolver>::add(Backend::Cpu, &makeCpuMaxSubarraySolver);
}

} // namespace glint
