// K maximum subarrays, overlapping (K-MSP): the K largest sums over all distinct segments of a sequence
// (glint-cli kmax1d) or over all distinct rectangles of an image's work array (brightest --mode overlap).
#pragma once

#include "core/algo/maxsub/MaxSubarrayBase.h"
#include "core/algo/regions/RegionSearch.h"
#include "core/algo/sources/PsfWidth.h"
#include "core/jobs/Backend.h"
#include "core/jobs/JobControl.h"
#include "core/jobs/ProgressSpan.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace glint {

class BackgroundMap;

class Image;

// The 1-D input: values in reading order. In integer mode every value is an exact int64 and every
// prefix sum provably fits (n * max|v| < 2^62); otherwise values are doubles. A blank (NaN, FITS
// BLANK) is not a value: no segment may contain it, and it adds 0 to the prefix sums.
struct KMaxSequence {
    bool integer = true;
    std::vector<std::int64_t> ints;  // integer mode
    std::vector<double> reals;       // otherwise
    std::vector<std::uint8_t> blank; // empty = no blanks; else one byte a value, 1 = blank
    double maxAbs = 0.0;             // over the values that are not blank
    double absSum = 0.0;             // sum of |v|, rounded up (bounds every prefix sum)

    std::size_t size() const { return integer ? ints.size() : reals.size(); }
    bool isBlank(std::size_t i) const { return !blank.empty() && blank[i] != 0; }
    double value(std::size_t i) const { return integer ? static_cast<double>(ints[i]) : reals[i]; }

    // Integer mode when every value is a whole number and the sums fit; NaN marks a blank.
    static KMaxSequence fromValues(std::vector<double> values);
    static KMaxSequence fromInts(std::vector<std::int64_t> values);
    // The image's samples in reading order (row 0 first); blanks and non-finite samples are blank.
    static KMaxSequence fromImage(const Image& image);
    // n integers uniform in [-1000, 1000] from a fixed generator (splitmix64): the same on every machine.
    static KMaxSequence random(std::size_t n, std::uint64_t seed);
};

// One segment: values first..last (inclusive, 0-based) and its exact sum. Integer mode: sumInt (and sum,
// the same value as a double). Otherwise sum = fl(P[last+1] - P[first]) + 0.0 over the prefix sums P of
// canonicalPrefix1d, the one definition every backend computes bit for bit.
struct KMaxSegment {
    std::int64_t first = 0;
    std::int64_t last = 0;
    std::int64_t sumInt = 0;
    double sum = 0.0;
};

// Prefix sums P[0..n] of the 1-D values in a fixed order of additions that a GPU can also follow: each
// run of kPrefixChunk values is summed from its start, then the runs' totals one after the other:
// P[e+1] = offset[c] + local[e], offset[c+1] = offset[c] + local[last of run c]. Blanks add 0.
constexpr std::size_t kPrefixChunk = 1024;
std::vector<std::int64_t> canonicalPrefix1dInteger(const KMaxSequence& sequence);
std::vector<double> canonicalPrefix1dReal(const KMaxSequence& sequence);

// The number of distinct segments that hold no blank (saturates at UINT64_MAX).
std::uint64_t segmentCount(const KMaxSequence& sequence);
// The number of distinct rectangles of the work array that hold no excluded cell (saturating).
std::uint64_t rectangleCount(const WorkArray& work);

// Largest result list a call may ask for. The list is built in memory and written out whole: per result
// the search's own entry, the result record, its JSON object and text, the region file's record and
// text, and the text summary of glint-cli take up to kKMaxResultBytes (measured, Release build:
// brightest --mode overlap on a 512x512 image with --json and --regions .csv, K = 2^20: 3.1 GB peak,
// about 3 KB a result; kmax1d, K = 4e5: 0.8 KB a result), so K is bounded by
// kKMaxMemoryBudget / kKMaxResultBytes = 2^19 = 524 288. glint-cli checks K itself (an absurd K is an
// error whatever the image); the job functions check min(K, what exists), since a K above the number
// of rectangles or segments lists them all.
constexpr std::uint64_t kKMaxResultBytes = 4096;
constexpr std::uint64_t kKMaxMemoryBudget = std::uint64_t(2) << 30; // 2 GiB
// Why K stops at kMaxKMaxResults, for the messages of --k.
inline constexpr const char* kKMaxResultsWhy =
    "the results of a run are held in memory, about 4096 bytes each, within 2 GiB";
constexpr std::uint64_t kMaxKMaxResults = kKMaxMemoryBudget / kKMaxResultBytes;
// kmax1d --random N: the sequence, its prefix sums and the search's per-value tables take up to
// kKMaxValueBytes per value (measured, N = 2^24: cpu 39 B, reference 112 B a value), so N is bounded
// by the same budget: 2^24 = 16 777 216 values.
constexpr std::uint64_t kKMaxValueBytes = 128;
constexpr std::uint64_t kMaxKMaxRandomLength = kKMaxMemoryBudget / kKMaxValueBytes;

// The 1-D backends. load() keeps the sequence for the searches that follow (the CUDA backend uploads it
// there, as step "upload", so that a bench can time searches on data already on the device; the CPU
// backends keep a pointer: the sequence must outlive the searches).
class KMax1dSolver {
public:
    virtual ~KMax1dSolver() = default;
    virtual void load(const KMaxSequence& sequence, JobControl& job) = 0;
    // The k largest sums over distinct blank-free segments, in decreasing order (ties in any order);
    // all of them when there are fewer. Throws Cancelled.
    virtual std::vector<KMaxSegment> topK(std::size_t k, JobControl& job) = 0;
};

std::unique_ptr<KMax1dSolver> makeReferenceKMax1dSolver();
std::unique_ptr<KMax1dSolver> makeCpuKMax1dSolver();

struct KMax1dResult {
    bool exactInteger = true;
    Backend backend = Backend::Reference; // the backend that ran (auto resolved)
    std::string device;
    std::size_t length = 0;               // values in the sequence (blanks included)
    std::uint64_t segmentCount = 0;       // blank-free segments (saturating)
    std::vector<KMaxSegment> segments;    // rank i+1 at index i
};

// Validates k (UsageError: k = 0, or a result list beyond kMaxKMaxResults), checks the sequence
// (InputError: empty, no value, sums beyond double range) and runs the backend. Records the steps in
// job.timing() and the device in job.device(); throws Cancelled.
KMax1dResult runKMax1d(const KMaxSequence& sequence, std::uint64_t k, Backend backend, JobControl& job);

// The 2-D backends: the k largest sums over distinct rectangles of the work array that hold no excluded
// cell, in decreasing order (ties in any order); all of them when there are fewer. Integer mode: exact
// int64 sums. Otherwise sum = fl(Q[c1+1] - Q[c0]) + 0.0 where Q[0] = 0, Q[c+1] = Q[c] + s[c] (left to
// right) and s[c] = P[bottom+1][c] - P[top][c] over columnPrefixSumsReal (every backend, bit for bit).
class KMaxRectSolver {
public:
    virtual ~KMaxRectSolver() = default;
    virtual std::vector<WorkRect> topK(const WorkArray& work, std::size_t k, JobControl& job, ProgressSpan span) = 0;
    // --distinct F (0 <= F < 1): the exact top k under the rule of kmax/Distinct.h: listed #1 is the best
    // rectangle, listed #j the best one (in rankedBefore's order: larger sum, then smaller top, bottom,
    // first, last) that overlaps every listed one by at most F of the smaller area; fewer when no
    // rectangle the rule allows is left. Same sums as topK.
    virtual std::vector<WorkRect> topKDistinct(const WorkArray& work, std::size_t k, double f, JobControl& job,
                                               ProgressSpan span) = 0;
    // --max-box P (> 0): the same lists among the rectangles with both sides <= P only: f set, topKDistinct's
    // rule; f unset, the k largest sums of distinct rectangles, in rankedBefore's order (a total order, so which
    // of tied rectangles make the list is defined).
    virtual std::vector<WorkRect> topKBounded(const WorkArray& work, std::size_t k, std::optional<double> f, int maxBox,
                                              JobControl& job, ProgressSpan span);
    // BackendDeclined, before any work, for a query this backend has no search for (--distinct, a bound): the
    // registry's fallback for it runs the query (cuda declines both; cpu and reference take every query).
    virtual void checkQuery(bool /*distinct*/, bool /*bounded*/) const {}
};

std::unique_ptr<KMaxRectSolver> makeReferenceKMaxRectSolver();
std::unique_ptr<KMaxRectSolver> makeCpuKMaxRectSolver();

// The distinct searches (KMaxDistinct.cpp). The reference: every round scans every strip, every first and
// last column, and checks the rule against every listed rectangle (a strip whose best cannot win is passed
// over); one thread. The CPU search: each strip's best allowed interval kept between rounds, strips taken
// by an upper bound (NOTES.md, "Distinct"); steps named with the prefix `steps`.
std::vector<WorkRect> distinctTopKReference(const WorkArray& work, std::size_t k, double f, JobControl& job,
                                            ProgressSpan span);
std::vector<WorkRect> distinctTopKCpu(const WorkArray& work, std::size_t k, double f, JobControl& job,
                                      ProgressSpan span, const std::string& steps = "");
// The bounded searches (--max-box P > 0, KMaxDistinct.cpp; f unset: plain overlap). The reference: the
// distinct reference over the strips of at most P rows and the intervals of at most P columns. The CPU search:
// distinctTopKCpu's families and strips, each bounded by a virtual strip of intervals of at most P columns
// (NOTES.md, "Bounded").
std::vector<WorkRect> boundedTopKReference(const WorkArray& work, std::size_t k, std::optional<double> f, int maxBox,
                                           JobControl& job, ProgressSpan span);
std::vector<WorkRect> boundedTopKCpu(const WorkArray& work, std::size_t k, std::optional<double> f, int maxBox,
                                     JobControl& job, ProgressSpan span, const std::string& steps = "");

// brightest --mode overlap: the K largest rectangle sums of a = I - pivot over the included pixels, which
// may overlap or nest; sums <= 0 are included when fewer than K are positive. Same preprocessing, result
// type and errors as runBrightest (core/algo/brightest, which calls this for the overlap mode: brightest
// depends on kmax for that one dispatch, kmax never on brightest; both build on core/algo/maxsub). `params` are
// resolved (resolveBrightest: the search bound a value or none); `bound` says how the bound was decided and
// `model` is the background model resolving made, if any.
BrightestResult runBrightestOverlap(const Image& image, const BrightestParams& params, const SearchBound& bound,
                                    std::shared_ptr<const BackgroundMap> model, Backend backend, JobControl& job);

// Registers the reference and CPU backends of both forms (called from registerCpuBackends()).
void registerKMaxCpuBackends();

} // namespace glint
