// What the fit of B onto A sees (CommonNormalisation.h): the value ranges of small-integer images, their
// counts per value (pair), or the valid samples pixel by pixel.
#include "core/algo/commoncomponent/CommonNormalisation.h"

#include "core/algo/commoncomponent/CommonComponentCoding.h"
#include "core/util/Parallel.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <mutex>
#include <utility>
#include <vector>

namespace glint::common_component::normalisation {

namespace {

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

} // namespace

bool smallIntegerType(SampleType t) {
    return t == SampleType::UInt8 || t == SampleType::Int8 || t == SampleType::UInt16 || t == SampleType::Int16;
}

std::pair<IntRange, IntRange> integerRanges(const Image& a, const Image& b) {
    const std::size_t nA = a.pixelCount(), n = nA + b.pixelCount();
    const int threads = threadsForPixels(static_cast<double>(n));
    const auto shares = static_cast<std::size_t>(threads);
    std::vector<std::array<int, 4>> ranges(shares, {std::numeric_limits<int>::max(), std::numeric_limits<int>::min(),
                                                    std::numeric_limits<int>::max(), std::numeric_limits<int>::min()});
    auto scan = [](const Image& image, std::size_t first, std::size_t last, int& lo, int& hi) {
        visitSmall(image, [&](const auto* p) {
            int l = lo, h = hi;
            if (image.hasBlanks()) {
                const std::uint8_t* blank = image.blankMask().data();
                for (std::size_t i = first; i < last; ++i)
                    if (!blank[i]) l = std::min(l, static_cast<int>(p[i])), h = std::max(h, static_cast<int>(p[i]));
            } else {
                for (std::size_t i = first; i < last; ++i) l = std::min(l, static_cast<int>(p[i])), h = std::max(h, static_cast<int>(p[i]));
            }
            lo = l, hi = h;
        });
    };
    parallelFor(0, shares, 1, [&](std::size_t first, std::size_t last) {
        for (std::size_t t = first; t < last; ++t) {
            const std::size_t begin = n * t / shares, end = n * (t + 1) / shares;
            auto& r = ranges[t];
            if (begin < nA) scan(a, begin, std::min(end, nA), r[0], r[1]);
            if (end > nA) scan(b, std::max(begin, nA) - nA, end - nA, r[2], r[3]);
        }
    }, threads);
    std::array<int, 4> all = ranges[0];
    for (const auto& r : ranges)
        all[0] = std::min(all[0], r[0]), all[1] = std::max(all[1], r[1]), all[2] = std::min(all[2], r[2]), all[3] = std::max(all[3], r[3]);
    IntRange ra, rb;
    if (all[1] >= all[0]) ra.lo = all[0], ra.hi = all[1];
    if (all[3] >= all[2]) rb.lo = all[2], rb.hi = all[3];
    return {ra, rb};
}

bool countable(const IntRange& a, const IntRange& b) {
    return a.count() && b.count() && a.count() * b.count() <= (std::uint64_t{1} << 22);
}

FitInput countedFitInput(const Image& a, const IntRange& ra, const Image& b, const IntRange& rb, const CommonOffset* at) {
    FitInput in;
    in.counted = true;
    const int wA = a.width(), hA = a.height(), wB = b.width(), hB = b.height();
    const std::uint64_t nA = ra.count(), nB = rb.count();
    in.minA = ra.lo, in.minB = rb.lo, in.nA = static_cast<int>(nA), in.nB = static_cast<int>(nB);
    std::vector<std::uint64_t> countA(nA, 0), countB(nB, 0);
    const Overlap o = at ? overlapOf(wA, hA, wB, hB, at->dx, at->dy) : Overlap{};
    if (at && o.area() > 0) {
        in.joint.assign(nA * nB, 0);
        // Each thread counts a run of rows in its own table, merged once (up to 8 threads, when the
        // tables are small).
        const int threads = nA * nB <= (std::uint64_t{1} << 19) ? std::min(8, threadsForPixels(static_cast<double>(o.area()))) : 1;
        const std::size_t rows = static_cast<std::size_t>(o.height);
        const std::size_t grain = (rows + static_cast<std::size_t>(threads) - 1) / static_cast<std::size_t>(threads);
        std::mutex merge;
        const bool blanks = a.hasBlanks() || b.hasBlanks();
        visitSmall(a, [&](const auto* pa) {
            visitSmall(b, [&](const auto* pb) {
                parallelFor(0, rows, grain, [&](std::size_t first, std::size_t last) {
                    std::vector<std::uint32_t> local(nA * nB, 0);
                    for (std::size_t r = first; r < last; ++r) {
                        const int y = o.y0 + static_cast<int>(r);
                        const std::size_t ia = static_cast<std::size_t>(y) * wA + o.x0;
                        const std::size_t ib = static_cast<std::size_t>(y + at->dy) * wB + (o.x0 + at->dx);
                        const auto* rowA = pa + ia;
                        const auto* rowB = pb + ib;
                        if (blanks) {
                            for (int x = 0; x < o.width; ++x)
                                if (!a.isBlank(ia + x) && !b.isBlank(ib + x))
                                    ++local[static_cast<std::size_t>(static_cast<int>(rowA[x]) - ra.lo) * nB +
                                            static_cast<std::size_t>(static_cast<int>(rowB[x]) - rb.lo)];
                        } else {
                            for (int x = 0; x < o.width; ++x)
                                ++local[static_cast<std::size_t>(static_cast<int>(rowA[x]) - ra.lo) * nB +
                                        static_cast<std::size_t>(static_cast<int>(rowB[x]) - rb.lo)];
                        }
                    }
                    std::lock_guard lock(merge);
                    for (std::size_t k = 0; k < local.size(); ++k) in.joint[k] += local[k];
                }, threads);
            });
        });
        for (std::size_t i = 0; i < nA; ++i)
            for (std::size_t j = 0; j < nB; ++j) countA[i] += in.joint[i * nB + j], countB[j] += in.joint[i * nB + j];
    }
    std::uint64_t pairs = 0;
    for (std::uint64_t c : countA) pairs += c;
    in.paired = pairs > 0;
    if (!in.paired) {
        in.joint.clear();
        auto count = [](const Image& image, const IntRange& r, std::vector<std::uint64_t>& counts) {
            visitSmall(image, [&](const auto* p) {
                for (std::size_t i = 0; i < image.pixelCount(); ++i)
                    if (!image.isBlank(i)) ++counts[static_cast<std::size_t>(static_cast<int>(p[i]) - r.lo)];
            });
        };
        count(a, ra, countA);
        count(b, rb, countB);
    }
    for (std::size_t i = 0; i < nA; ++i)
        if (countA[i]) in.valuesA.push_back({static_cast<double>(ra.lo + static_cast<int>(i)), countA[i]});
    for (std::size_t j = 0; j < nB; ++j)
        if (countB[j]) in.valuesB.push_back({static_cast<double>(rb.lo + static_cast<int>(j)), countB[j]});
    return in;
}

FitInput pixelFitInput(const Samples& sa, int wA, int hA, const Samples& sb, int wB, int hB, const CommonOffset* at) {
    FitInput in;
    if (at) overlapPairs(sa, wA, hA, sb, wB, hB, *at, in.pairA, in.pairB);
    in.paired = !in.pairA.empty();
    if (in.paired) {
        std::vector<std::pair<double, double>> pairs(in.pairA.size());
        for (std::size_t i = 0; i < pairs.size(); ++i) pairs[i] = {in.pairA[i], in.pairB[i]};
        std::sort(pairs.begin(), pairs.end());
        for (const auto& p : pairs) {
            if (!in.uniquePairs.empty() && in.uniquePairs.back().first == p) ++in.uniquePairs.back().second;
            else in.uniquePairs.push_back({p, 1});
        }
    }
    if (!in.paired) {
        // No registered overlap: fit the whole images' distributions.
        for (std::size_t i = 0; i < sa.v.size(); ++i)
            if (sa.ok[i]) in.pairA.push_back(sa.v[i]);
        for (std::size_t i = 0; i < sb.v.size(); ++i)
            if (sb.ok[i]) in.pairB.push_back(sb.v[i]);
    }
    return in;
}

} // namespace glint::common_component::normalisation
