#include "core/algo/commoncomponent/CommonComponentCoding.h"

#include "core/util/Errors.h"
#include "core/util/Parallel.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <unordered_map>

namespace glint::common_component {

namespace {

constexpr std::size_t kGrain = 1 << 16;

// Distinct matchable values, ascending, with how often each occurs in A and in B.
struct ValueTable {
    std::vector<double> values;
    std::vector<std::uint64_t> countA, countB;
};

bool isSmallInteger(SampleType t) {
    return t == SampleType::UInt8 || t == SampleType::Int8 || t == SampleType::UInt16 || t == SampleType::Int16;
}

// Samples of at most 16 bits are counted in a table indexed by value + 32768: no sort needed.
constexpr int kSmallOffset = 32768;
constexpr int kSmallRange = 65536 + 32768;

// Calls fn(typed pointer) for an image of at most 16-bit integers.
template <class Fn>
void visitSmall(const Image& image, Fn&& fn) {
    image.visit([&](const auto* p) {
        using T = std::remove_cv_t<std::remove_pointer_t<decltype(p)>>;
        if constexpr (std::is_integral_v<T> && sizeof(T) <= 2) fn(p);
    });
}

// Index of a small-integer sample in a table over its type's range (value - lowest value of the type).
template <class T>
constexpr int smallIndex(T v) {
    return static_cast<int>(v) - static_cast<int>(std::numeric_limits<T>::min());
}
template <class T>
constexpr int smallRange() {
    return 1 << (8 * sizeof(T));
}

// The pixels of A and then of B, split into one share per thread: fn(image index, first, last).
template <class Fn>
void overBoth(const Image& a, const Image& b, int threads, Fn&& fn) {
    const std::size_t nA = a.pixelCount(), n = nA + b.pixelCount();
    const auto shares = static_cast<std::size_t>(std::max(threads, 1));
    parallelFor(0, shares, 1, [&](std::size_t first, std::size_t last) {
        for (std::size_t t = first; t < last; ++t) {
            const std::size_t begin = n * t / shares, end = n * (t + 1) / shares;
            if (begin < nA) fn(0, begin, std::min(end, nA));
            if (end > nA) fn(1, std::max(begin, nA) - nA, end - nA);
        }
    }, threads);
}

// The value counts of both images (at most 16-bit integers; indexed by value + kSmallOffset), one pass on
// `threads` threads, each with its own tables, added up at the end (integers: any order).
void countSmall(const Image& a, const Image& b, int threads, std::vector<std::uint64_t>& countA,
                std::vector<std::uint64_t>& countB) {
    std::mutex merge;
    overBoth(a, b, threads, [&](int which, std::size_t first, std::size_t last) {
        const Image& image = which == 0 ? a : b;
        std::vector<std::uint64_t>& counts = which == 0 ? countA : countB;
        visitSmall(image, [&](const auto* p) {
            using T = std::remove_cv_t<std::remove_pointer_t<decltype(p)>>;
            std::vector<std::uint32_t> local(smallRange<T>(), 0);
            // Chunks of at most 2^32 - 1 pixels, so that the 32-bit counts cannot wrap.
            for (std::size_t chunk = first; chunk < last; chunk += 0xFFFFFFFFu) {
                const std::size_t stop = std::min<std::size_t>(last, chunk + 0xFFFFFFFFu);
                if (image.hasBlanks()) {
                    const std::uint8_t* blank = image.blankMask().data();
                    for (std::size_t i = chunk; i < stop; ++i) local[smallIndex(p[i])] += blank[i] ? 0u : 1u;
                } else {
                    for (std::size_t i = chunk; i < stop; ++i) ++local[smallIndex(p[i])];
                }
                std::lock_guard lock(merge);
                const int lowest = std::numeric_limits<T>::min();
                for (int k = 0; k < smallRange<T>(); ++k) {
                    counts[static_cast<std::size_t>(k + lowest + kSmallOffset)] += local[static_cast<std::size_t>(k)];
                    local[static_cast<std::size_t>(k)] = 0;
                }
            }
        });
    });
}

void gatherValues(const Image& image, std::vector<double>& out) {
    image.visit([&](const auto* p) {
        for (std::size_t i = 0; i < image.pixelCount(); ++i) {
            const double v = static_cast<double>(p[i]);
            if (!image.isBlank(i) && std::isfinite(v)) out.push_back(v);
        }
    });
}

// Code of every pixel by binary search in the sorted distinct values.
void codeGeneral(const Image& image, const std::vector<double>& values, PixelVector<std::uint32_t>& codes) {
    codes.resize(image.pixelCount());
    image.visit([&](const auto* p) {
        parallelFor(0, image.pixelCount(), kGrain, [&](std::size_t b, std::size_t e) {
            for (std::size_t i = b; i < e; ++i) {
                const double v = static_cast<double>(p[i]);
                if (image.isBlank(i) || !std::isfinite(v)) {
                    codes[i] = kBlankCode;
                    continue;
                }
                codes[i] = static_cast<std::uint32_t>(std::lower_bound(values.begin(), values.end(), v) - values.begin());
            }
        });
    });
}

void countCodes(const PixelVector<std::uint32_t>& codes, std::vector<std::uint64_t>& counts) {
    for (std::uint32_t c : codes)
        if (c != kBlankCode) ++counts[c];
}

// Partitions of the distinct values into bins, per value. Tolerance 0: equal-population bins (any
// partition works, since equal values share every bin). Tolerance t > 0: bins of the first partition
// wider than 2t, and a second partition cut at the middles of the first's bins; a pair within t then
// never straddles a cut of both. Checked on the actual values (rounding!); widened until it holds.
bool buildBins(const ValueTable& table, const std::vector<std::uint32_t>& lo, const std::vector<std::uint32_t>& hi,
               double tolerance, std::vector<std::uint32_t>& bin1, std::vector<std::uint32_t>& bin2) {
    const std::vector<double>& u = table.values;
    const std::size_t n = u.size();
    bin1.assign(n, 0);
    bin2.assign(n, 0);
    if (n == 0) return true;
    std::uint64_t total = 0;
    for (std::size_t i = 0; i < n; ++i) total += table.countA[i] + table.countB[i];
    if (tolerance == 0.0) {
        if (n <= 8) {
            for (std::size_t i = 0; i < n; ++i) bin1[i] = static_cast<std::uint32_t>(i);
            return true;
        }
        std::uint64_t before = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const std::uint64_t w = table.countA[i] + table.countB[i];
            bin1[i] = static_cast<std::uint32_t>(std::min<std::uint64_t>(7, (before + w / 2) * 8 / std::max<std::uint64_t>(1, total)));
            before += w;
        }
        return true;
    }
    const std::uint64_t target = std::max<std::uint64_t>(1, total / 8);
    for (double minWidth = 2.0 * tolerance; std::isfinite(minWidth); minWidth *= 2.0) {
        std::vector<std::size_t> starts;
        std::size_t start = 0;
        std::uint64_t acc = 0;
        for (std::size_t i = 1; i < n; ++i) {
            acc += table.countA[i - 1] + table.countB[i - 1];
            if (acc >= target && u[i] - u[start] > minWidth) {
                starts.push_back(i);
                start = i;
                acc = 0;
            }
        }
        while (!starts.empty() && !(u[n - 1] - u[starts.back()] > minWidth)) starts.pop_back();
        std::vector<double> edges = {u[0]};
        for (std::size_t s : starts) edges.push_back(u[s]);
        edges.push_back(u[n - 1]);
        std::vector<double> middles;
        for (std::size_t k = 0; k + 1 < edges.size(); ++k) middles.push_back(0.5 * edges[k] + 0.5 * edges[k + 1]);
        std::size_t k1 = 0, k2 = 0;
        for (std::size_t i = 0; i < n; ++i) {
            while (k1 < starts.size() && starts[k1] <= i) ++k1;
            while (k2 < middles.size() && middles[k2] <= u[i]) ++k2;
            bin1[i] = static_cast<std::uint32_t>(k1);
            bin2[i] = static_cast<std::uint32_t>(k2);
        }
        bool ok = true;
        for (std::size_t i = 0; i < n && ok; ++i)
            for (std::uint32_t j : {lo[i], hi[i]})
                if (bin1[j] != bin1[i] && bin2[j] != bin2[i]) ok = false;
        if (ok) return true;
    }
    bin1.assign(n, 0); // one bin: the bound degrades to the count of valid pixel pairs, still valid
    bin2.assign(n, 0);
    return false;
}

} // namespace

CommonCoding codeImages(const Image& a, const Image& b, double tolerance, JobControl& job) {
    validateCommonComponentParams({tolerance, -1});
    CommonCoding coding;
    coding.widthA = a.width();
    coding.heightA = a.height();
    coding.widthB = b.width();
    coding.heightB = b.height();
    coding.tolerance = tolerance;
    coding.twoPartitions = tolerance > 0.0;

    ValueTable table;
    const bool small = isSmallInteger(a.sampleType()) && isSmallInteger(b.sampleType());
    std::vector<std::uint32_t> codeOfValue; // small integers: code of value + kSmallOffset
    PixelVector<std::uint32_t> codeA;       // otherwise: the code of every pixel of A
    if (small) {
        std::vector<std::uint64_t> countA(kSmallRange, 0), countB(kSmallRange, 0);
        countSmall(a, b, threadsForPixels(static_cast<double>(a.pixelCount() + b.pixelCount())), countA, countB);
        codeOfValue.assign(kSmallRange, kBlankCode);
        for (int k = 0; k < kSmallRange; ++k) {
            if (countA[k] + countB[k] == 0) continue;
            codeOfValue[k] = static_cast<std::uint32_t>(table.values.size());
            table.values.push_back(static_cast<double>(k - kSmallOffset));
            table.countA.push_back(countA[k]);
            table.countB.push_back(countB[k]);
        }
    } else {
        std::vector<double> all;
        all.reserve(a.pixelCount() + b.pixelCount());
        gatherValues(a, all);
        gatherValues(b, all);
        std::sort(all.begin(), all.end());
        // -0.0 and 0.0 compare equal and become one value.
        all.erase(std::unique(all.begin(), all.end(), [](double x, double y) { return x == y; }), all.end());
        table.values = std::move(all);
        job.throwIfCancelled();
        codeGeneral(a, table.values, codeA);
        codeGeneral(b, table.values, coding.codeB);
        table.countA.assign(table.values.size(), 0);
        table.countB.assign(table.values.size(), 0);
        countCodes(codeA, table.countA);
        countCodes(coding.codeB, table.countB);
    }
    job.throwIfCancelled();
    const std::size_t n = table.values.size();
    if (n >= static_cast<std::size_t>(kBlankCode)) throw InputError("the images hold too many distinct values");
    coding.codeCount = n;

    // Matching codes of each value: an interval, found with two pointers (the same test as the reference).
    std::vector<std::uint32_t> lo(n), hi(n);
    std::size_t j = 0, k = 0;
    for (std::size_t i = 0; i < n; ++i) {
        while (!samplesMatch(table.values[i], table.values[j], tolerance)) ++j;
        k = std::max(k, i);
        while (k + 1 < n && samplesMatch(table.values[i], table.values[k + 1], tolerance)) ++k;
        lo[i] = static_cast<std::uint32_t>(j);
        hi[i] = static_cast<std::uint32_t>(k);
    }
    std::vector<std::uint32_t> bin1, bin2;
    buildBins(table, lo, hi, tolerance, bin1, bin2);
    coding.boundExact = tolerance == 0.0 && n <= 8;
    std::vector<std::uint8_t> binOf(n);
    for (std::size_t i = 0; i < n; ++i)
        binOf[i] = static_cast<std::uint8_t>(kBinValid | (bin1[i] & 7u) | ((bin2[i] & 7u) << 3));

    // One pass over both images writes their per-pixel arrays from each pixel's code.
    coding.loA.resize(a.pixelCount());
    if (tolerance > 0.0) coding.spanA.resize(a.pixelCount());
    coding.binA.resize(a.pixelCount());
    coding.codeB.resize(b.pixelCount());
    coding.binB.resize(b.pixelCount());
    const bool withSpan = !coding.spanA.empty();
    // ~14 bytes written a pixel of A, 5 of B, on pages touched for the first time: ~2 light passes' work.
    const int threads = threadsForPixels(2.0 * static_cast<double>(a.pixelCount() + b.pixelCount()));
    if (small) {
        // Tables per sample value of each image's type (index: value - lowest of the type; a value absent
        // from the image is never looked up), then one lookup a pixel; blanks get the sentinels.
        std::vector<std::uint32_t> loOf, spanOf, codeOf;
        std::vector<std::uint8_t> binOfA, binOfB;
        auto tables = [&](const Image& image, auto make) {
            visitSmall(image, [&](const auto* p) {
                using T = std::remove_cv_t<std::remove_pointer_t<decltype(p)>>;
                const int lowest = std::numeric_limits<T>::min();
                for (int k = 0; k < smallRange<T>(); ++k) make(k, codeOfValue[static_cast<std::size_t>(k + lowest + kSmallOffset)]);
            });
        };
        auto rangeOf = [](SampleType t) -> std::size_t { return t == SampleType::UInt8 || t == SampleType::Int8 ? 256 : 65536; };
        const std::size_t rangeA = rangeOf(a.sampleType()), rangeB = rangeOf(b.sampleType());
        loOf.resize(rangeA), spanOf.resize(rangeA), binOfA.resize(rangeA), codeOf.resize(rangeB), binOfB.resize(rangeB);
        tables(a, [&](int k, std::uint32_t code) {
            const bool none = code == kBlankCode;
            loOf[static_cast<std::size_t>(k)] = none ? kBlankLo : lo[code];
            spanOf[static_cast<std::size_t>(k)] = none ? 0u : hi[code] - lo[code];
            binOfA[static_cast<std::size_t>(k)] = none ? 0 : binOf[code];
        });
        tables(b, [&](int k, std::uint32_t code) {
            codeOf[static_cast<std::size_t>(k)] = code;
            binOfB[static_cast<std::size_t>(k)] = code == kBlankCode ? 0 : binOf[code];
        });
        overBoth(a, b, threads, [&](int which, std::size_t first, std::size_t last) {
            const Image& image = which == 0 ? a : b;
            const std::uint8_t* blank = image.hasBlanks() ? image.blankMask().data() : nullptr;
            visitSmall(image, [&](const auto* p) {
                if (which == 0) {
                    for (std::size_t i = first; i < last; ++i) {
                        const auto k = static_cast<std::size_t>(smallIndex(p[i]));
                        const bool isBlank = blank && blank[i];
                        coding.loA[i] = isBlank ? kBlankLo : loOf[k];
                        if (withSpan) coding.spanA[i] = isBlank ? 0u : spanOf[k];
                        coding.binA[i] = isBlank ? 0 : binOfA[k];
                    }
                } else {
                    for (std::size_t i = first; i < last; ++i) {
                        const auto k = static_cast<std::size_t>(smallIndex(p[i]));
                        const bool isBlank = blank && blank[i];
                        coding.codeB[i] = isBlank ? kBlankCode : codeOf[k];
                        coding.binB[i] = isBlank ? 0 : binOfB[k];
                    }
                }
            });
        });
    } else {
        overBoth(a, b, threads, [&](int which, std::size_t first, std::size_t last) {
            for (std::size_t i = first; i < last; ++i) {
                const std::uint32_t c = which == 0 ? codeA[i] : coding.codeB[i];
                const bool blank = c == kBlankCode;
                if (which == 0) {
                    coding.binA[i] = blank ? 0 : binOf[c];
                    coding.loA[i] = blank ? kBlankLo : lo[c];
                    if (withSpan) coding.spanA[i] = blank ? 0u : hi[c] - lo[c];
                } else {
                    coding.binB[i] = blank ? 0 : binOf[c];
                }
            }
        });
    }
    return coding;
}

int progressBand(const OffsetRange& range, int bands) {
    const std::uint64_t memory = std::max<std::uint64_t>(1, (std::uint64_t{1} << 24) / std::max<std::uint64_t>(1, range.dyCount()));
    const std::uint64_t steady = (range.dxCount() + static_cast<std::uint64_t>(std::max(bands, 1)) - 1) / static_cast<std::uint64_t>(std::max(bands, 1));
    return static_cast<int>(std::max<std::uint64_t>(1, std::min(memory, steady)));
}

OffsetRange offsetRange(int wA, int hA, int wB, int hB, long long maxShift) {
    OffsetRange r;
    r.dxMin = -(wA - 1);
    r.dxMax = wB - 1;
    r.dyMin = -(hA - 1);
    r.dyMax = hB - 1;
    if (maxShift >= 0) {
        const int s = static_cast<int>(std::min<long long>(maxShift, std::numeric_limits<int>::max() / 2));
        r.dxMin = std::max(r.dxMin, -s);
        r.dxMax = std::min(r.dxMax, s);
        r.dyMin = std::max(r.dyMin, -s);
        r.dyMax = std::min(r.dyMax, s);
    }
    return r;
}

std::vector<SeedPatch> chooseSeedPatches(const CommonCoding& c) {
    constexpr int s = kSeedPatchSize;
    constexpr int grid = 8;
    std::vector<SeedPatch> patches;
    if (c.widthA < s || c.heightA < s || c.widthB < s || c.heightB < s) return patches;
    for (int gy = 0; gy < grid; ++gy) {
        for (int gx = 0; gx < grid; ++gx) {
            const SeedPatch p{(c.widthA - s) * gx / (grid - 1), (c.heightA - s) * gy / (grid - 1)};
            bool duplicate = false;
            for (const auto& q : patches) duplicate = duplicate || (q.x == p.x && q.y == p.y);
            if (duplicate) continue;
            // Textured and free of blanks: a flat patch would match everywhere and vote for nothing.
            std::vector<std::uint32_t> codes;
            bool blank = false;
            for (int y = 0; y < s && !blank; ++y)
                for (int x = 0; x < s; ++x) {
                    const std::uint32_t lo = c.loA[static_cast<std::size_t>(p.y + y) * c.widthA + p.x + x];
                    blank = blank || lo == kBlankLo;
                    codes.push_back(lo);
                }
            if (blank) continue;
            std::sort(codes.begin(), codes.end());
            if (std::unique(codes.begin(), codes.end()) - codes.begin() >= 4) patches.push_back(p);
        }
    }
    return patches;
}

std::vector<std::pair<int, int>> rankSeedOffsets(const std::vector<std::pair<int, int>>& hits, const OffsetRange& range) {
    std::unordered_map<long long, int> votes;
    for (const auto& [dx, dy] : hits)
        if (range.contains(dx, dy)) ++votes[(static_cast<long long>(dx) << 32) ^ static_cast<std::uint32_t>(dy)];
    std::vector<std::pair<int, std::pair<int, int>>> ranked;
    for (const auto& [key, count] : votes)
        ranked.push_back({count, {static_cast<int>(key >> 32), static_cast<int>(static_cast<std::uint32_t>(key))}});
    std::sort(ranked.begin(), ranked.end(), [](const auto& x, const auto& y) {
        if (x.first != y.first) return x.first > y.first;
        return x.second < y.second;
    });
    std::vector<std::pair<int, int>> out;
    for (std::size_t i = 0; i < ranked.size() && i < kMaxSeedOffsets; ++i) out.push_back(ranked[i].second);
    return out;
}

namespace {

// A horizontal run of matching pixels of one row of the overlap, columns [x0, x1].
struct Run {
    int x0, x1;
};

// Union-find over runs, a root always the smallest index of its set (so parent[i] <= i: one pass in
// index order flattens every run onto its root).
inline std::uint32_t findRoot(std::vector<std::uint32_t>& parent, std::uint32_t i) {
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}
inline void unite(std::vector<std::uint32_t>& parent, std::uint32_t a, std::uint32_t b) {
    a = findRoot(parent, a);
    b = findRoot(parent, b);
    if (a < b) parent[b] = a;
    else if (b < a) parent[a] = b;
}

// Unites the runs [p0, p1) of one row with the runs [q0, q1) of the next that share a column with them
// (4-connectivity).
inline void uniteRows(const std::vector<Run>& runs, std::vector<std::uint32_t>& parent, std::uint32_t p0,
                      std::uint32_t p1, std::uint32_t q0, std::uint32_t q1) {
    std::uint32_t i = p0, j = q0;
    while (i < p1 && j < q1) {
        if (runs[i].x1 < runs[j].x0) ++i;
        else if (runs[j].x1 < runs[i].x0) ++j;
        else {
            unite(parent, i, j);
            if (runs[i].x1 < runs[j].x1) ++i;
            else ++j;
        }
    }
}

// The runs of one strip of rows of the overlap, labelled within the strip (parent indices local).
struct Strip {
    int y0 = 0, y1 = 0;                // rows [y0, y1) of the overlap
    std::vector<Run> runs;             // row by row, left to right
    std::vector<std::uint32_t> rowAt;  // first run of row y0 + k; rowAt[y1 - y0] = runs.size()
    std::vector<std::uint32_t> parent; // local until the strips are joined
    std::uint32_t base = 0;            // index of its first run among all runs
};

} // namespace

CommonComponentResult componentFromSeed(const CommonCoding& c, int dx, int dy, int seedX, int seedY,
                                        std::uint64_t expectedSize, int threads) {
    CommonComponentResult result;
    result.maskWidth = c.widthA;
    result.maskHeight = c.heightA;
    if (expectedSize == 0) return result;
    const Overlap o = overlapOf(c.widthA, c.heightA, c.widthB, c.heightB, dx, dy);
    const int w = o.width, h = o.height;
    const int sx = seedX - o.x0, sy = seedY - o.y0;
    if (sx < 0 || sx >= w || sy < 0 || sy >= h || !c.matchAt(seedX, seedY, dx, dy))
        throw std::logic_error("common component: the seed pixel does not match");
    // The overlap in strips of rows, one thread each: the runs of matching pixels of each row (from 64
    // match bits a word), united with the runs of the row above that share a column; then the strips
    // joined at their borders, every run pointed at its root, and the runs of the seed's set written.
    const double work = 2.0 * static_cast<double>(w) * h; // ~1 ns a pixel: the match test and the runs
    const int stripCount = std::clamp(threads > 0 ? threads : threadsForPixels(work), 1, h);
    std::vector<Strip> strips(static_cast<std::size_t>(stripCount));
    for (int s = 0; s < stripCount; ++s) {
        strips[s].y0 = static_cast<int>(static_cast<long long>(h) * s / stripCount);
        strips[s].y1 = static_cast<int>(static_cast<long long>(h) * (s + 1) / stripCount);
    }
    const bool exactOnly = c.spanA.empty();
    const int words = (w + 63) / 64;
    parallelFor(0, strips.size(), 1, [&](std::size_t first, std::size_t last) {
        std::vector<std::uint64_t> bits(static_cast<std::size_t>(words));
        for (std::size_t s = first; s < last; ++s) {
            Strip& st = strips[s];
            st.rowAt.reserve(static_cast<std::size_t>(st.y1 - st.y0) + 1);
            for (int y = st.y0; y < st.y1; ++y) {
                const std::size_t ia = static_cast<std::size_t>(o.y0 + y) * c.widthA + o.x0;
                const std::size_t ib = static_cast<std::size_t>(o.y0 + y + dy) * c.widthB + (o.x0 + dx);
                const std::uint32_t* lo = c.loA.data() + ia;
                const std::uint32_t* code = c.codeB.data() + ib;
                const std::uint32_t* span = exactOnly ? nullptr : c.spanA.data() + ia;
                for (int k = 0; k < words; ++k) {
                    const int x0 = k * 64, n = std::min(64, w - x0);
                    std::uint64_t m = 0;
                    if (exactOnly) {
                        for (int b = 0; b < n; ++b) m |= static_cast<std::uint64_t>(code[x0 + b] == lo[x0 + b]) << b;
                    } else {
                        for (int b = 0; b < n; ++b)
                            m |= static_cast<std::uint64_t>(code[x0 + b] - lo[x0 + b] <= span[x0 + b]) << b;
                    }
                    bits[static_cast<std::size_t>(k)] = m;
                }
                const auto rowBegin = static_cast<std::uint32_t>(st.runs.size());
                st.rowAt.push_back(rowBegin);
                // Runs from the bits: the next set bit starts one, the next clear bit after it ends it
                // (bits past the row's end are clear).
                int x = 0;
                while (x < w) {
                    int k = x >> 6;
                    std::uint64_t m = bits[static_cast<std::size_t>(k)] & (~std::uint64_t{0} << (x & 63));
                    while (m == 0 && ++k < words) m = bits[static_cast<std::size_t>(k)];
                    if (m == 0) break;
                    const int start = k * 64 + std::countr_zero(m);
                    m = ~bits[static_cast<std::size_t>(k)] & (~std::uint64_t{0} << (start & 63));
                    while (m == 0 && ++k < words) m = ~bits[static_cast<std::size_t>(k)];
                    const int end = m == 0 ? w : std::min(w, k * 64 + std::countr_zero(m)); // one past the run
                    st.runs.push_back({start, end - 1});
                    x = end;
                }
                const auto rowEnd = static_cast<std::uint32_t>(st.runs.size());
                st.parent.resize(rowEnd);
                for (std::uint32_t i = rowBegin; i < rowEnd; ++i) st.parent[i] = i;
                if (y > st.y0) uniteRows(st.runs, st.parent, st.rowAt[st.rowAt.size() - 2], rowBegin, rowBegin, rowEnd);
            }
            st.rowAt.push_back(static_cast<std::uint32_t>(st.runs.size()));
        }
    }, stripCount);
    // The strips joined: global indices (a strip's base plus its local index; parents stay below their
    // runs), the border rows united, every run pointed at its root.
    std::size_t total = 0;
    for (Strip& st : strips) st.base = static_cast<std::uint32_t>(total), total += st.runs.size();
    if (total >= std::numeric_limits<std::uint32_t>::max()) throw std::logic_error("common component: too many runs");
    std::vector<Run> runs;
    std::vector<std::uint32_t> parent;
    runs.reserve(total);
    parent.reserve(total);
    for (const Strip& st : strips) {
        runs.insert(runs.end(), st.runs.begin(), st.runs.end());
        for (std::uint32_t p : st.parent) parent.push_back(p + st.base);
    }
    for (std::size_t s = 1; s < strips.size(); ++s) {
        const Strip &up = strips[s - 1], &down = strips[s];
        if (up.y1 <= up.y0 || down.y1 <= down.y0) continue;
        const std::size_t lastRow = up.rowAt.size() - 2;
        uniteRows(runs, parent, up.base + up.rowAt[lastRow], up.base + up.rowAt[lastRow + 1], down.base + down.rowAt[0],
                  down.base + down.rowAt[1]);
    }
    for (std::size_t i = 0; i < total; ++i) parent[i] = parent[parent[i]];
    // The seed's run and its root.
    const Strip& seedStrip = *std::find_if(strips.begin(), strips.end(), [&](const Strip& st) { return sy >= st.y0 && sy < st.y1; });
    std::uint32_t root = std::numeric_limits<std::uint32_t>::max();
    for (std::uint32_t i = seedStrip.rowAt[sy - seedStrip.y0]; i < seedStrip.rowAt[sy - seedStrip.y0 + 1]; ++i)
        if (seedStrip.runs[i].x0 <= sx && sx <= seedStrip.runs[i].x1) root = parent[seedStrip.base + i];
    // Its runs: size and bounding box per strip, the mask written strip by strip.
    result.mask.assign(static_cast<std::size_t>(c.widthA) * c.heightA, 0);
    struct Extent {
        std::uint64_t size = 0;
        int x0 = std::numeric_limits<int>::max(), x1 = -1, y0 = std::numeric_limits<int>::max(), y1 = -1;
    };
    std::vector<Extent> extents(strips.size());
    parallelFor(0, strips.size(), 1, [&](std::size_t first, std::size_t last) {
        for (std::size_t s = first; s < last; ++s) {
            const Strip& st = strips[s];
            Extent& e = extents[s];
            for (int y = st.y0; y < st.y1; ++y) {
                std::uint8_t* row = result.mask.data() + static_cast<std::size_t>(o.y0 + y) * c.widthA + o.x0;
                for (std::uint32_t i = st.rowAt[y - st.y0]; i < st.rowAt[y - st.y0 + 1]; ++i) {
                    if (parent[st.base + i] != root) continue;
                    const Run r = st.runs[i];
                    std::fill(row + r.x0, row + r.x1 + 1, std::uint8_t{1});
                    e.size += static_cast<std::uint64_t>(r.x1 - r.x0 + 1);
                    e.x0 = std::min(e.x0, r.x0), e.x1 = std::max(e.x1, r.x1), e.y0 = std::min(e.y0, y), e.y1 = std::max(e.y1, y);
                }
            }
        }
    }, stripCount);
    Extent all;
    for (const Extent& e : extents)
        all.size += e.size, all.x0 = std::min(all.x0, e.x0), all.x1 = std::max(all.x1, e.x1), all.y0 = std::min(all.y0, e.y0),
            all.y1 = std::max(all.y1, e.y1);
    if (all.size != expectedSize)
        throw std::logic_error("common component: labelled size " + std::to_string(expectedSize) +
                               " but the component holds " + std::to_string(all.size) + " pixels");
    result.found = true;
    result.dx = dx;
    result.dy = dy;
    result.size = all.size;
    result.bboxX = o.x0 + all.x0;
    result.bboxY = o.y0 + all.y0;
    result.bboxWidth = all.x1 - all.x0 + 1;
    result.bboxHeight = all.y1 - all.y0 + 1;
    return result;
}

} // namespace glint::common_component
