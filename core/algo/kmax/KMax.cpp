// The K-MSP job functions (1-D and overlap rectangles), the 1-D input builders, the canonical 1-D prefix
// sums and the segment / rectangle counts that bound every result list.
#include "core/algo/kmax/KMax.h"

#include "core/algo/sources/PsfWidth.h"
#include "core/algo/sources/RegionMeasure.h"
#include "core/algo/regions/WorkArray.h"
#include "core/export/CsvTable.h"
#include "core/io/Image.h"
#include "core/jobs/JobRunner.h"
#include "core/util/Errors.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <utility>

namespace glint {

namespace {

constexpr double kIntegerLimit = 4.0e18; // n * max|v| below this: every prefix sum fits int64

std::uint64_t saturatingAdd(std::uint64_t a, std::uint64_t b) {
    return a > std::numeric_limits<std::uint64_t>::max() - b ? std::numeric_limits<std::uint64_t>::max() : a + b;
}

std::uint64_t runSegments(std::uint64_t len) {
    // len (len + 1) / 2, saturating; one factor is even, so halve it before multiplying.
    const std::uint64_t a = len % 2 == 0 ? len / 2 : len, b = len % 2 == 0 ? len + 1 : (len + 1) / 2;
    return b != 0 && a > std::numeric_limits<std::uint64_t>::max() / b ? std::numeric_limits<std::uint64_t>::max() : a * b;
}

void finishStats(KMaxSequence& s) {
    long double abs = 0.0L;
    double maxAbs = 0.0;
    const std::size_t n = s.size();
    for (std::size_t i = 0; i < n; ++i) {
        if (s.isBlank(i)) continue;
        const double a = std::fabs(s.value(i));
        abs += a;
        maxAbs = std::max(maxAbs, a);
    }
    s.maxAbs = maxAbs;
    s.absSum = static_cast<double>(abs) * (1.0 + 1e-12);
    if (std::all_of(s.blank.begin(), s.blank.end(), [](std::uint8_t b) { return b == 0; })) s.blank.clear();
}

template <class V>
std::vector<V> canonicalPrefix(const KMaxSequence& s) {
    const std::size_t n = s.size();
    std::vector<V> p(n + 1);
    p[0] = V(0);
    V offset = V(0);
    for (std::size_t c0 = 0; c0 < n; c0 += kPrefixChunk) {
        const std::size_t c1 = std::min(n, c0 + kPrefixChunk);
        V local = V(0);
        for (std::size_t e = c0; e < c1; ++e) {
            V v;
            if constexpr (std::is_integral_v<V>) v = s.isBlank(e) ? 0 : s.ints[e];
            else v = s.isBlank(e) ? 0.0 : (s.integer ? static_cast<double>(s.ints[e]) : s.reals[e]);
            local = local + v;
            p[e + 1] = offset + local;
        }
        offset = offset + local;
    }
    return p;
}

} // namespace

KMaxSequence KMaxSequence::fromInts(std::vector<std::int64_t> values) {
    KMaxSequence s;
    s.integer = true;
    s.ints = std::move(values);
    finishStats(s);
    if (s.maxAbs * static_cast<double>(s.size()) >= kIntegerLimit) {
        s.integer = false;
        s.reals.assign(s.ints.begin(), s.ints.end());
        s.ints.clear();
        s.ints.shrink_to_fit();
    }
    return s;
}

KMaxSequence KMaxSequence::fromValues(std::vector<double> values) {
    KMaxSequence s;
    const std::size_t n = values.size();
    bool whole = true;
    s.blank.assign(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
        if (!std::isfinite(values[i])) {
            s.blank[i] = 1;
            values[i] = 0.0;
        } else if (values[i] != std::floor(values[i])) {
            whole = false;
        }
    }
    s.integer = false;
    s.reals = std::move(values);
    finishStats(s);
    if (whole && s.maxAbs * static_cast<double>(n) < kIntegerLimit) {
        s.integer = true;
        s.ints.resize(n);
        for (std::size_t i = 0; i < n; ++i) s.ints[i] = static_cast<std::int64_t>(s.reals[i]);
        s.reals.clear();
        s.reals.shrink_to_fit();
    }
    return s;
}

KMaxSequence KMaxSequence::fromImage(const Image& image) {
    const std::size_t n = image.pixelCount();
    KMaxSequence s;
    if (isIntegerSampleType(image.sampleType())) {
        std::vector<std::int64_t> v(n);
        image.visit([&](const auto* p) {
            for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::int64_t>(p[i]);
        });
        if (image.hasBlanks())
            for (std::size_t i = 0; i < n; ++i)
                if (image.isBlank(i)) v[i] = 0;
        s = fromInts(std::move(v));
        if (image.hasBlanks()) {
            s.blank = image.blankMask();
            finishStats(s);
        }
        return s;
    }
    std::vector<double> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = image.isBlank(i) ? std::nan("") : image.value(i);
    return fromValues(std::move(v));
}

KMaxSequence KMaxSequence::random(std::size_t n, std::uint64_t seed) {
    std::vector<std::int64_t> v(n);
    std::uint64_t x = seed;
    for (std::size_t i = 0; i < n; ++i) {
        x += 0x9e3779b97f4a7c15ull;
        std::uint64_t z = x;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        v[i] = static_cast<std::int64_t>(z % 2001) - 1000;
    }
    return fromInts(std::move(v));
}

std::vector<std::int64_t> canonicalPrefix1dInteger(const KMaxSequence& sequence) {
    return canonicalPrefix<std::int64_t>(sequence);
}
std::vector<double> canonicalPrefix1dReal(const KMaxSequence& sequence) { return canonicalPrefix<double>(sequence); }

std::uint64_t segmentCount(const KMaxSequence& sequence) {
    std::uint64_t total = 0, run = 0;
    for (std::size_t i = 0; i < sequence.size(); ++i) {
        if (sequence.isBlank(i)) {
            total = saturatingAdd(total, runSegments(run));
            run = 0;
        } else {
            ++run;
        }
    }
    return saturatingAdd(total, runSegments(run));
}

std::uint64_t rectangleCount(const WorkArray& work) {
    if (!work.hasExclusions()) {
        const std::uint64_t a = runSegments(static_cast<std::uint64_t>(work.rows)), b = runSegments(static_cast<std::uint64_t>(work.cols));
        return a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a ? std::numeric_limits<std::uint64_t>::max() : a * b;
    }
    // For each bottom row, the rectangles by their bottom-right cell: with h[c] the free cells above
    // and including (r, c), count[c] = count[prev] + h[c] (c - prev), prev the last column with a lower h.
    const int rows = work.rows, cols = work.cols;
    std::vector<std::int64_t> h(cols, 0), count(cols, 0);
    std::vector<int> stack;
    std::uint64_t total = 0;
    for (int r = 0; r < rows; ++r) {
        stack.clear();
        for (int c = 0; c < cols; ++c) {
            h[c] = work.isExcluded(r, c) ? 0 : h[c] + 1;
            while (!stack.empty() && h[stack.back()] >= h[c]) stack.pop_back();
            const int prev = stack.empty() ? -1 : stack.back();
            count[c] = (prev >= 0 ? count[prev] : 0) + h[c] * (c - prev);
            stack.push_back(c);
            total = saturatingAdd(total, static_cast<std::uint64_t>(count[c]));
        }
    }
    return total;
}

namespace {

void checkResultSize(std::uint64_t k, std::uint64_t available, const char* what) {
    if (k == 0) throw UsageError("K must be at least 1 (got 0)");
    if (std::min(k, available) > kMaxKMaxResults)
        throw UsageError("K = " + std::to_string(k) + " would list more than " + std::to_string(kMaxKMaxResults) +
                         " " + what + "; ask for fewer");
}

} // namespace

KMax1dResult runKMax1d(const KMaxSequence& sequence, std::uint64_t k, Backend backend, JobControl& job) {
    if (k == 0) throw UsageError("K must be at least 1 (got 0)");
    if (sequence.size() == 0) throw InputError("the sequence is empty");
    const std::uint64_t available = segmentCount(sequence);
    if (available == 0) throw InputError("the sequence holds no value (every entry is blank)");
    if (!sequence.integer && !(sequence.absSum < 1e300))
        throw InputError("the values are too large: their sums leave the range of double precision");
    checkResultSize(k, available, "segments");
    // The sequential CPU backend: ~5e7 values/s (2^20 values, K = 50: 19 ms on the H100 host, NOTES.md).
    return runJob<KMax1dSolver>(
        backend, job, static_cast<double>(sequence.size()) / 5e7 * 1e3 + 0.05, [&](KMax1dSolver& solver, Backend resolved) {
            KMax1dResult result;
            result.exactInteger = sequence.integer;
            result.backend = resolved;
            result.length = sequence.size();
            result.segmentCount = available;
            solver.load(sequence, job);
            job.throwIfCancelled();
            result.segments = solver.topK(static_cast<std::size_t>(std::min(k, available)), job);
            result.device = job.device();
            return result;
        });
}

BrightestResult runBrightestOverlap(const Image& image, const BrightestParams& params, const SearchBound& resolvedBound,
                                    std::shared_ptr<const BackgroundMap> model, Backend backend, JobControl& job) {
    if (params.k <= 0) throw UsageError("K must be at least 1 (got " + std::to_string(params.k) + ")");
    if (params.maxBox.isAuto()) throw std::logic_error("runBrightestOverlap: the search bound was not resolved");
    // Whether the search is bounded (a bound smaller than the ROI's longer side) and distinct: a backend without
    // such a search declines it here, before any work, and the registry's fallback runs it.
    const PixelRect roi = searchRoi(image, params);
    const bool bounded = params.boundOrNone() > 0 && params.boundOrNone() < std::max(roi.width, roi.height);
    return runJob<KMaxRectSolver>(backend, job, estimatedBrightestCpuMs(image, params), [&](KMaxRectSolver& solver,
                                                                                         Backend resolved) {
        solver.checkQuery(params.distinct.has_value(), bounded);
        PreparedRegionSearch search =
            prepareRegionSearch(image, params, BrightestMode::Overlap, resolved, job, nullptr, model);
        const WorkArray& work = search.work;
        const std::uint64_t available = work.includedCount == 0 ? 0 : rectangleCount(work);
        checkResultSize(static_cast<std::uint64_t>(params.k), available, "rectangles");
        std::vector<WorkRect> rects;
        const std::size_t k = static_cast<std::size_t>(std::min<std::uint64_t>(params.k, available));
        // The bound of the search (--max-box): one no smaller than both sides of the work array excludes
        // nothing, so the unbounded search runs (as in disjoint mode).
        const int maxBox = params.boundOrNone();
        const int bound = maxBox > 0 && maxBox < std::max(work.rows, work.cols) ? maxBox : 0;
        recordSearchBound(resolvedBound, bound, search.result);
        if (available > 0) {
            if (bound > 0) rects = solver.topKBounded(work, k, params.distinct, bound, job, {});
            else if (params.distinct) rects = solver.topKDistinct(work, k, *params.distinct, job, {});
            else rects = solver.topK(work, k, job, {});
        }
        search.result.distinct = params.distinct;
        if (available > 0 && rects.size() < k && (params.distinct || bound > 0)) {
            search.result.note = "found " + std::to_string(rects.size()) + " of " + std::to_string(params.k) + " regions: ";
            if (params.distinct)
                search.result.note += "every other rectangle overlaps a listed one by more than " +
                                      formatNumber(*params.distinct) + " of the smaller area";
            else
                search.result.note += "no other rectangle fits the bound";
        }
        if (maxBox > 0 && !search.result.note.empty())
            search.result.note += "; search bound: sides <= " + std::to_string(maxBox) + " px";
        search.result.device = job.device();
        search.result.regions = regionsOf(work, rects);
        // As in disjoint mode: an unbounded search whose first region covers most of what was searched (a crowded
        // field: --distinct then lists that one region, plain overlap near-copies inside it) says what bounds it.
        if (bound == 0 && params.k > 1 && !rects.empty()) {
            const double share = static_cast<double>(rects.front().rows) * rects.front().cols / (static_cast<double>(work.rows) * work.cols);
            if (share >= 0.5) {
                if (!search.result.note.empty()) search.result.note += "; ";
                search.result.note += "region 1 covers " + std::to_string(static_cast<int>(share * 100.0 + 0.5)) +
                                      " % of the searched area (a crowded field or a bright extended background?): bound the "
                                      "search to boxes of about 2-3 star widths with --max-box (the window's Max box)";
            }
        }
        {
            auto step = job.timing().scope("measure");
            measureRegions(work, search.result.regions);
        }
        return std::move(search.result);
    });
}

void registerKMaxCpuBackends() {
    BackendRegistry<KMax1dSolver>::add(Backend::Reference, &makeReferenceKMax1dSolver);
    BackendRegistry<KMax1dSolver>::add(Backend::Cpu, &makeCpuKMax1dSolver);
    BackendRegistry<KMaxRectSolver>::add(Backend::Reference, &makeReferenceKMaxRectSolver);
    BackendRegistry<KMaxRectSolver>::add(Backend::Cpu, &makeCpuKMaxRectSolver);
}

} // namespace glint
