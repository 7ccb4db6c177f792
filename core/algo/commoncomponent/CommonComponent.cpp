#include "core/algo/commoncomponent/CommonComponent.h"

#include "core/algo/commoncomponent/CommonNormalisation.h"
#include "core/algo/commoncomponent/CommonRegistration.h"
#include "core/jobs/JobRunner.h"
#include "core/util/Errors.h"
#include "core/util/Parallel.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

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
using common_component::PairSums;
using namespace common_component::normalisation;

// Rows of an overlap are summed in blocks of this many, each block on one thread, the blocks' sums added
// in order: the same result on any number of threads.
constexpr int kRowBlock = 32;

PairSums pairSums(const Samples& sa, int wA, int hA, const Samples& sb, int wB, int hB, CommonOffset d, double ca,
                  double cb) {
    const Overlap o = overlapOf(wA, hA, wB, hB, d.dx, d.dy);
    const std::size_t blocks = static_cast<std::size_t>((o.height + kRowBlock - 1) / kRowBlock);
    std::vector<PairSums> part(blocks);
    parallelFor(0, blocks, 1, [&](std::size_t first, std::size_t last) {
        for (std::size_t k = first; k < last; ++k) {
            PairSums s;
            const int y0 = o.y0 + static_cast<int>(k) * kRowBlock, y1 = std::min(o.y0 + o.height, y0 + kRowBlock);
            for (int y = y0; y < y1; ++y) {
                const std::size_t ia = static_cast<std::size_t>(y) * wA + o.x0;
                const std::size_t ib = static_cast<std::size_t>(y + d.dy) * wB + (o.x0 + d.dx);
                for (int x = 0; x < o.width; ++x) {
                    if (!sa.ok[ia + x] || !sb.ok[ib + x]) continue;
                    const double va = sa.v[ia + x] - ca, vb = sb.v[ib + x] - cb;
                    s.n += 1, s.a += va, s.b += vb, s.aa += va * va, s.bb += vb * vb, s.ab += va * vb;
                }
            }
            part[k] = s;
        }
    });
    PairSums total;
    for (const PairSums& s : part)
        total.n += s.n, total.a += s.a, total.b += s.b, total.aa += s.aa, total.bb += s.bb, total.ab += s.ab;
    return total;
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
    // The samples as doubles, made when first needed (the device registration and the counted fit of
    // small-integer images do without them).
    std::optional<Samples> sa, sb;
    auto samplesA = [&]() -> const Samples& { return sa ? *sa : sa.emplace(a); };
    auto samplesB = [&]() -> const Samples& { return sb ? *sb : sb.emplace(b); };
    {
        // Registration first: the phase-correlation peaks (on the backend's device where it has one),
        // each alias ranked by candidateScore() of its overlap (the device scores them itself).
        auto step = job.timing().scope("register");
        const auto range = common_component::offsetRange(wA, hA, wB, hB, params.maxShift);
        common_component::Registration reg;
        if (!algorithm.registerImages(a, b, range, 4, reg, job))
            reg = common_component::registerByPhaseCorrelation(a, b, range, job);
        conf.registered = !reg.candidates.empty();
        conf.registrationPeak = reg.peak;
        if (reg.scores.size() != reg.candidates.size()) {
            reg.scores.clear();
            const double smaller = static_cast<double>(std::min<std::uint64_t>(a.pixelCount(), b.pixelCount()));
            const double meanA = samplesA().mean(), meanB = samplesB().mean();
            for (const CommonOffset& d : reg.candidates)
                reg.scores.push_back(common_component::candidateScore(pairSums(*sa, wA, hA, *sb, wB, hB, d, meanA, meanB), smaller));
        }
        std::vector<std::pair<double, CommonOffset>> ranked;
        for (std::size_t i = 0; i < reg.candidates.size(); ++i) ranked.push_back({reg.scores[i], reg.candidates[i]});
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
        const CommonOffset* at = params.candidates.empty() ? nullptr : &params.candidates.front();
        std::optional<IntRange> ra, rb;
        if (smallIntegerType(a.sampleType()) && smallIntegerType(b.sampleType())) std::tie(ra, rb) = integerRanges(a, b);
        if (ra && countable(*ra, *rb)) {
            normalised = normalisedCountedB(b, *rb, countedFitInput(a, *ra, b, *rb, at), params.normalize, params.tolerance, conf);
        } else {
            const Samples& sA = samplesA();
            // Scanned, not taken from the metadata (images built in memory keep its default).
            bool integersInA = true;
            for (std::size_t i = 0; i < sA.v.size() && integersInA; ++i) integersInA = !sA.ok[i] || sA.v[i] == std::floor(sA.v[i]);
            normalised = normalisedB(b, samplesB(), pixelFitInput(sA, wA, hA, samplesB(), wB, hB, at), integersInA,
                                     params.normalize, params.tolerance, conf);
        }
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
    // The runner-up: the largest component at the other candidate offsets (the first few), as the backend
    // labelled them, else labelled here.
    std::optional<Samples> normalisedSamples;
    int looked = 0;
    for (const CommonOffset& d : params.candidates) {
        if ((result.found && d.dx == result.dx && d.dy == result.dy) || looked >= 4) continue;
        ++looked;
        const auto known = std::find_if(result.candidateSizes.begin(), result.candidateSizes.end(),
                                        [&](const CommonCandidateSize& c) { return c.offset == d; });
        std::uint64_t size = 0;
        if (known != result.candidateSizes.end()) {
            size = known->size;
        } else {
            const Samples& sbMatched =
                matchedB == &b ? samplesB() : (normalisedSamples ? *normalisedSamples : normalisedSamples.emplace(*matchedB));
            size = largestComponentAt(samplesA(), wA, hA, sbMatched, wB, hB, d, params.tolerance, job);
        }
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
