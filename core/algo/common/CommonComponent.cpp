#include "core/algo/common/CommonComponent.h"

#include "core/algo/common/CommonRegistration.h"
#include "core/jobs/JobRunner.h"
#include "core/util/Errors.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>
#include <string>

namespace glint {

const char* commonNormalizeName(CommonNormalize n) {
    switch (n) {
    case CommonNormalize::Linear: return "linear";
    case CommonNormalize::Rank: return "rank";
    case CommonNormalize::None: break;
    }
    return "none";
}

CommonNormalize parseCommonNormalize(const std::string& text) {
    if (text == "none") return CommonNormalize::None;
    if (text == "linear") return CommonNormalize::Linear;
    if (text == "rank") return CommonNormalize::Rank;
    throw UsageError("the normalisation must be none, linear or rank; got '" + text + "'");
}

std::string commonPlacementSentence(const CommonComponentResult& r) {
    if (!r.found) return "no common region";
    std::ostringstream out;
    if (r.dx >= 0 && r.dy >= 0 && (r.dx > 0 || r.dy > 0))
        out << "A's top-left sits at (" << r.dx << ", " << r.dy << ") in B";
    else if (r.dx <= 0 && r.dy <= 0)
        out << "B's top-left sits at (" << -r.dx << ", " << -r.dy << ") in A";
    else
        out << "B's top-left sits at (" << -r.dx << ", " << -r.dy << ") in A's frame (outside A)";
    return out.str();
}

namespace {

using common_component::Overlap;
using common_component::overlapOf;

struct Samples {
    std::vector<double> v;
    std::vector<std::uint8_t> ok; // not blank and finite
    explicit Samples(const Image& image) : v(image.toDoubles()), ok(v.size()) {
        for (std::size_t i = 0; i < v.size(); ++i) ok[i] = !image.isBlank(i) && std::isfinite(v[i]);
    }
};

// The valid samples of A and of B on the overlap at (dx, dy), pairwise (both valid).
void overlapPairs(const Samples& a, int wA, int hA, const Samples& b, int wB, int hB, CommonOffset d,
                  std::vector<double>& outA, std::vector<double>& outB) {
    const Overlap o = overlapOf(wA, hA, wB, hB, d.dx, d.dy);
    outA.clear();
    outB.clear();
    for (int y = o.y0; y < o.y0 + o.height; ++y)
        for (int x = o.x0; x < o.x0 + o.width; ++x) {
            const std::size_t ia = static_cast<std::size_t>(y) * wA + x;
            const std::size_t ib = static_cast<std::size_t>(y + d.dy) * wB + (x + d.dx);
            if (!a.ok[ia] || !b.ok[ib]) continue;
            outA.push_back(a.v[ia]);
            outB.push_back(b.v[ib]);
        }
}

double pearson(const std::vector<double>& x, const std::vector<double>& y) {
    const std::size_t n = x.size();
    if (n < 2) return 0.0;
    double mx = 0, my = 0;
    for (std::size_t i = 0; i < n; ++i) mx += x[i], my += y[i];
    mx /= static_cast<double>(n);
    my /= static_cast<double>(n);
    double sxy = 0, sxx = 0, syy = 0;
    for (std::size_t i = 0; i < n; ++i) {
        sxy += (x[i] - mx) * (y[i] - my);
        sxx += (x[i] - mx) * (x[i] - mx);
        syy += (y[i] - my) * (y[i] - my);
    }
    return sxx > 0 && syy > 0 ? sxy / std::sqrt(sxx * syy) : 0.0;
}

double median(std::vector<double> v) {
    if (v.empty()) return 0.0;
    const std::size_t mid = v.size() / 2;
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
    const double hi = v[mid];
    if (v.size() % 2) return hi;
    const double lo = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
    return lo + (hi - lo) / 2;
}

double mad(const std::vector<double>& v, double centre) {
    std::vector<double> dev(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) dev[i] = std::abs(v[i] - centre);
    return median(std::move(dev));
}

// B with its values mapped onto A's (params.normalize), fitted on the pairs of the overlap.
Image normalisedB(const Image& b, const Samples& sb, const std::vector<double>& pairA, const std::vector<double>& pairB,
                  bool paired, bool roundToA, CommonNormalize how, CommonComponentConfidence& conf) {
    std::vector<double> out(sb.v.size(), 0.0);
    if (how == CommonNormalize::Linear) {
        // Robust: medians and MADs. A flat side (MAD 0) has no scale to fit: the medians alone are matched.
        const double medA = median(pairA), medB = median(pairB);
        const double madA = mad(pairA, medA), madB = mad(pairB, medB);
        conf.gain = madA > 0 && madB > 0 ? madA / madB : 1.0;
        conf.bias = medA - conf.gain * medB;
        // Then least squares on the inliers of that fit (residual within 3 robust sigmas), twice: the MAD
        // ratio of quantised samples is only roughly the gain.
        // Only for pairs of one overlap: the whole images' samples (no registered overlap) are not pairs.
        for (int round = 0; round < 2 && paired && madA > 0 && madB > 0; ++round) {
            std::vector<double> residual(pairA.size());
            for (std::size_t i = 0; i < pairA.size(); ++i) residual[i] = std::abs(pairA[i] - (conf.gain * pairB[i] + conf.bias));
            const double limit = std::max(1.0, 3.0 * 1.4826 * median(residual));
            double n = 0, sb = 0, sa = 0, sbb = 0, sab = 0;
            for (std::size_t i = 0; i < pairA.size(); ++i) {
                if (residual[i] > limit) continue;
                n += 1, sb += pairB[i], sa += pairA[i], sbb += pairB[i] * pairB[i], sab += pairA[i] * pairB[i];
            }
            const double varB = n > 1 ? sbb - sb * sb / n : 0.0;
            if (!(varB > 0)) break;
            const double gain = (sab - sa * sb / n) / varB;
            if (!(gain > 0) || !std::isfinite(gain)) break;
            conf.gain = gain;
            conf.bias = (sa - gain * sb) / n;
        }
        // Onto A's grid: when A holds integers, B' is rounded to them, so that a fitted bias of a fraction
        // does not push pairs that differ by the tolerance just past it.
        for (std::size_t i = 0; i < out.size(); ++i)
            if (sb.ok[i]) out[i] = roundToA ? std::nearbyint(conf.gain * sb.v[i] + conf.bias) : conf.gain * sb.v[i] + conf.bias;
    } else {
        // Histogram matching: a B value goes to A's value at its mid-rank quantile among B's overlap samples.
        std::vector<double> sortedA = pairA, sortedB = pairB;
        std::sort(sortedA.begin(), sortedA.end());
        std::sort(sortedB.begin(), sortedB.end());
        for (std::size_t i = 0; i < out.size(); ++i) {
            if (!sb.ok[i]) continue;
            if (sortedA.empty()) {
                out[i] = sb.v[i];
                continue;
            }
            const double less = static_cast<double>(std::lower_bound(sortedB.begin(), sortedB.end(), sb.v[i]) - sortedB.begin());
            const double upTo = static_cast<double>(std::upper_bound(sortedB.begin(), sortedB.end(), sb.v[i]) - sortedB.begin());
            const double q = sortedB.empty() ? 0.5 : (less + upTo) / 2 / static_cast<double>(sortedB.size());
            const std::size_t k = std::min(sortedA.size() - 1, static_cast<std::size_t>(q * static_cast<double>(sortedA.size())));
            out[i] = sortedA[k];
        }
    }
    Image result = Image::fromSamples<double>(b.width(), b.height(), std::move(out));
    std::vector<std::uint8_t> blank(sb.ok.size());
    for (std::size_t i = 0; i < blank.size(); ++i) blank[i] = sb.ok[i] ? 0 : 1;
    result.setBlankMask(std::move(blank));
    result.meta = b.meta;
    result.updateIntegerValued();
    return result;
}

// The size of the largest component at offset d (plain breadth-first labelling of the match mask).
std::uint64_t largestComponentAt(const Samples& a, int wA, int hA, const Samples& b, int wB, int hB, CommonOffset d,
                                 double tolerance, JobControl& job) {
    const Overlap o = overlapOf(wA, hA, wB, hB, d.dx, d.dy);
    const int w = o.width, h = o.height;
    std::vector<std::uint8_t> match(static_cast<std::size_t>(w) * h, 0);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const std::size_t ia = static_cast<std::size_t>(o.y0 + y) * wA + o.x0 + x;
            const std::size_t ib = static_cast<std::size_t>(o.y0 + y + d.dy) * wB + (o.x0 + x + d.dx);
            match[static_cast<std::size_t>(y) * w + x] =
                a.ok[ia] && b.ok[ib] && samplesMatch(a.v[ia], b.v[ib], tolerance) ? 1 : 0;
        }
    job.throwIfCancelled();
    std::uint64_t best = 0;
    std::vector<int> queue;
    for (std::size_t s = 0; s < match.size(); ++s) {
        if (match[s] != 1) continue;
        match[s] = 2;
        queue.assign(1, static_cast<int>(s));
        for (std::size_t head = 0; head < queue.size(); ++head) {
            const int p = queue[head], x = p % w, y = p / w;
            const int q[4] = {x > 0 ? p - 1 : -1, x + 1 < w ? p + 1 : -1, y > 0 ? p - w : -1, y + 1 < h ? p + w : -1};
            for (int n : q)
                if (n >= 0 && match[static_cast<std::size_t>(n)] == 1) {
                    match[static_cast<std::size_t>(n)] = 2;
                    queue.push_back(n);
                }
        }
        best = std::max<std::uint64_t>(best, queue.size());
    }
    return best;
}

CommonComponentResult searchWithRegistration(CommonComponentAlgorithm& algorithm, Backend resolved, const Image& a,
                                             const Image& b, const CommonComponentParams& requested, JobControl& job) {
    CommonComponentParams params = requested;
    CommonComponentConfidence conf;
    const int wA = a.width(), hA = a.height(), wB = b.width(), hB = b.height();
    const Samples sa(a), sb(b);
    {
        // Registration first: the phase-correlation peaks, each alias ranked by the correlation of the
        // overlapping samples, discounted when the overlap is under 5 % of the smaller image (a few
        // pixels correlate by chance).
        auto step = job.timing().scope("register");
        const auto range = common_component::offsetRange(wA, hA, wB, hB, params.maxShift);
        const auto reg = common_component::registerByPhaseCorrelation(a, b, range, job);
        conf.registered = !reg.candidates.empty();
        conf.registrationPeak = reg.peak;
        const double smaller = static_cast<double>(std::min<std::uint64_t>(a.pixelCount(), b.pixelCount()));
        std::vector<std::pair<double, CommonOffset>> ranked;
        std::vector<double> pa, pb;
        for (const CommonOffset& d : reg.candidates) {
            overlapPairs(sa, wA, hA, sb, wB, hB, d, pa, pb);
            const double share = static_cast<double>(pa.size()) / smaller;
            ranked.push_back({pearson(pa, pb) * std::min(1.0, share / kCommonReliableCoverage), d});
        }
        std::stable_sort(ranked.begin(), ranked.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
        for (const auto& [score, d] : ranked) params.candidates.push_back(d);
        for (const CommonOffset& d : requested.candidates)
            if (std::find(params.candidates.begin(), params.candidates.end(), d) == params.candidates.end())
                params.candidates.push_back(d);
    }
    const Image* matchedB = &b;
    Image normalised;
    if (params.normalize != CommonNormalize::None) {
        auto step = job.timing().scope("normalise");
        std::vector<double> pa, pb;
        if (!params.candidates.empty()) overlapPairs(sa, wA, hA, sb, wB, hB, params.candidates.front(), pa, pb);
        const bool paired = !pa.empty();
        if (!paired) {
            // No registered overlap: fit the whole images' distributions.
            for (std::size_t i = 0; i < sa.v.size(); ++i)
                if (sa.ok[i]) pa.push_back(sa.v[i]);
            for (std::size_t i = 0; i < sb.v.size(); ++i)
                if (sb.ok[i]) pb.push_back(sb.v[i]);
        }
        bool integersInA = true; // scanned, not taken from the metadata (images built in memory keep its default)
        for (std::size_t i = 0; i < sa.v.size() && integersInA; ++i) integersInA = !sa.ok[i] || sa.v[i] == std::floor(sa.v[i]);
        normalised = normalisedB(b, sb, pa, pb, paired, integersInA, params.normalize, conf);
        matchedB = &normalised;
    }
    CommonComponentResult result = algorithm.run(a, *matchedB, params, job);
    result.backend = resolved;
    result.device = job.device();
    auto step = job.timing().scope("confidence");
    if (result.found) {
        conf.overlapArea = overlapOf(wA, hA, wB, hB, result.dx, result.dy).area();
        conf.coverage = conf.overlapArea ? static_cast<double>(result.size) / static_cast<double>(conf.overlapArea) : 0.0;
    }
    conf.reliable = result.found && conf.coverage >= kCommonReliableCoverage;
    // The runner-up: the largest component at the other candidate offsets (the first few).
    std::optional<Samples> normalisedSamples;
    const Samples& sbMatched = matchedB == &b ? sb : normalisedSamples.emplace(*matchedB);
    int looked = 0;
    for (const CommonOffset& d : params.candidates) {
        if ((result.found && d.dx == result.dx && d.dy == result.dy) || looked >= 4) continue;
        ++looked;
        const std::uint64_t size = largestComponentAt(sa, wA, hA, sbMatched, wB, hB, d, params.tolerance, job);
        if (size > conf.runnerUpSize) {
            conf.hasRunnerUp = true;
            conf.runnerUp = d;
            conf.runnerUpSize = size;
        }
    }
    result.confidence = conf;
    return result;
}

} // namespace

void validateCommonComponentParams(const CommonComponentParams& params) {
    if (!std::isfinite(params.tolerance) || params.tolerance < 0.0)
        throw UsageError("the tolerance must be a finite number >= 0");
}

void beginCommonComponentRun(const CommonComponentParams& params, Backend backend, JobControl& job) {
    validateCommonComponentParams(params);
    job.setDevice(deviceNameFor(backend));
}

long long maxUsefulShift(int wA, int hA, int wB, int hB) {
    // Offsets with any overlap: -(wA-1) <= dx <= wB-1, -(hA-1) <= dy <= hB-1.
    return static_cast<long long>(std::max(std::max(wA, wB), std::max(hA, hB))) - 1;
}

void validateMaxShift(long long maxShift, int wA, int hA, int wB, int hB) {
    if (maxShift < 0) return; // every offset
    const long long limit = maxUsefulShift(wA, hA, wB, hB);
    if (maxShift > limit)
        throw UsageError("the maximum shift must be between 0 and " + std::to_string(limit) + " for images of " +
                         std::to_string(wA) + "x" + std::to_string(hA) + " and " + std::to_string(wB) + "x" +
                         std::to_string(hB) + " (no offset beyond it overlaps); got " + std::to_string(maxShift));
}

CommonComponentResult findCommonComponent(const Image& a, const Image& b, const CommonComponentParams& requested,
                                          Backend backend, JobControl& job) {
    validateCommonComponentParams(requested);
    if (a.empty() || b.empty()) throw InputError("common component: both images must hold pixels");
    // The CPU backend's cost grows with pixel pairs (|A| x |B| over all offsets); its rate ranges from
    // ~1e8 pairs/s a thread (random data, every offset labelled) to ~2e10 (pruned crops); 1e9 assumed.
    const double pairs = static_cast<double>(a.width()) * a.height() * b.width() * b.height();
    // Registration, normalisation and confidence run inside the job, so that its total counts them.
    return runJob<CommonComponentAlgorithm>(backend, job, pairs / (1e9 * cpuThreadCount()) * 1e3,
                                            [&](CommonComponentAlgorithm& algorithm, Backend resolved) {
                                                return searchWithRegistration(algorithm, resolved, a, b, requested, job);
                                            });
}

} // namespace glint
