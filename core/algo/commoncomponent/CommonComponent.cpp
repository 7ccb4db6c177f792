#include "core/algo/commoncomponent/CommonComponent.h"

#include "core/algo/commoncomponent/CommonRegistration.h"
#include "core/jobs/JobRunner.h"
#include "core/util/Errors.h"
#include "core/util/Parallel.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <limits>
#include <type_traits>
#include <mutex>
#include <optional>
#include <sstream>
#include <tuple>
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
using common_component::PairSums;

struct Samples {
    std::vector<double> v;
    std::vector<std::uint8_t> ok; // not blank and finite
    explicit Samples(const Image& image) : v(image.pixelCount()), ok(image.pixelCount()) {
        image.visit([&](const auto* p) {
            parallelFor(0, v.size(), 1 << 16, [&](std::size_t first, std::size_t last) {
                for (std::size_t i = first; i < last; ++i) {
                    v[i] = static_cast<double>(p[i]);
                    ok[i] = !image.isBlank(i) && std::isfinite(v[i]) ? 1 : 0;
                }
            });
        });
    }
    double mean() const {
        double sum = 0.0, n = 0.0;
        for (std::size_t i = 0; i < v.size(); ++i)
            if (ok[i]) sum += v[i], n += 1.0;
        return n > 0 ? sum / n : 0.0;
    }
};

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

// A multiset as (value, count), ascending by value: the samples of small-integer images, counted.
using Weighted = std::vector<std::pair<double, std::uint64_t>>;

double kthOf(const Weighted& w, std::uint64_t k) {
    for (const auto& [value, count] : w) {
        if (k < count) return value;
        k -= count;
    }
    return w.empty() ? 0.0 : w.back().first;
}

// The same value as median() of the expanded samples.
double medianOf(const Weighted& w) {
    std::uint64_t total = 0;
    for (const auto& e : w) total += e.second;
    if (total == 0) return 0.0;
    const std::uint64_t mid = total / 2;
    const double hi = kthOf(w, mid);
    if (total % 2) return hi;
    const double lo = kthOf(w, mid - 1);
    return lo + (hi - lo) / 2;
}

Weighted deviationsOf(const Weighted& w, double centre) {
    Weighted out;
    out.reserve(w.size());
    for (const auto& [value, count] : w) out.push_back({std::abs(value - centre), count});
    std::sort(out.begin(), out.end());
    return out;
}

bool smallIntegerType(SampleType t) {
    return t == SampleType::UInt8 || t == SampleType::Int8 || t == SampleType::UInt16 || t == SampleType::Int16;
}

// Images of at most 16-bit integers are read in place: fn(typed pointer).
template <class Fn>
void visitSmall(const Image& image, Fn&& fn) {
    image.visit([&](const auto* p) {
        using T = std::remove_cv_t<std::remove_pointer_t<decltype(p)>>;
        if constexpr (std::is_integral_v<T> && sizeof(T) <= 2) fn(p);
    });
}

// The range of an image's valid values (an image of at most 16-bit integers).
struct IntRange {
    int lo = 0, hi = -1; // empty: no valid sample
    std::uint64_t count() const { return hi >= lo ? static_cast<std::uint64_t>(hi - lo + 1) : 0; }
};
// The ranges of two such images, in one pass over both on as many threads as the pixels are worth (each
// thread a share of the pixels of both; min and max: any order).
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

// What the fit sees: the valid pairs of the overlap at the first candidate (paired), or without one the
// valid samples of each whole image. For images of at most 16-bit integers whose value ranges multiply to
// a small table, as counts per value (per pair of values when paired): one pass, no per-pixel vectors,
// and the same fit (medians are order statistics; the sums of integer products are exact either way).
struct FitInput {
    bool paired = false;
    bool counted = false;
    // per pixel (not counted)
    std::vector<double> pairA, pairB;
    // per pixel and paired: the distinct (a, b) pairs, ascending, with their counts (the order and the
    // counts the joint table of the counted fit gives for integers)
    std::vector<std::pair<std::pair<double, double>, std::uint64_t>> uniquePairs;
    // counted: values minA + i, minB + j
    int minA = 0, minB = 0, nA = 0, nB = 0;
    std::vector<std::uint64_t> joint; // [i * nB + j], paired only
    Weighted valuesA, valuesB;
};

// Whether two images are fitted from counts (the value ranges' product is a small table).
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

// The linear fit B' = gain * B + bias (into conf). Robust: medians and MADs; a flat side (MAD 0) has no
// scale to fit: the medians alone are matched. Then, for pairs of one overlap (the whole images' samples
// are not pairs), least squares on the inliers of that fit (residual within 3 robust sigmas), twice: the
// MAD ratio of quantised samples is only roughly the gain.
void fitLinear(const FitInput& in, double tolerance, bool roundToA, CommonComponentConfidence& conf) {
    double medA, medB, madA, madB;
    if (in.counted) {
        medA = medianOf(in.valuesA), medB = medianOf(in.valuesB);
        madA = medianOf(deviationsOf(in.valuesA, medA)), madB = medianOf(deviationsOf(in.valuesB, medB));
    } else {
        medA = median(in.pairA), medB = median(in.pairB);
        madA = mad(in.pairA, medA), madB = mad(in.pairB, medB);
    }
    conf.gain = madA > 0 && madB > 0 ? madA / madB : 1.0;
    conf.bias = medA - conf.gain * medB;
    for (int round = 0; round < 2 && in.paired && madA > 0 && madB > 0; ++round) {
        double n = 0, sb = 0, sa = 0, sbb = 0, sab = 0;
        if (in.counted) {
            Weighted residual;
            for (int i = 0; i < in.nA; ++i)
                for (int j = 0; j < in.nB; ++j) {
                    const std::uint64_t c = in.joint[static_cast<std::size_t>(i) * in.nB + j];
                    if (!c) continue;
                    const double a = in.minA + i, b = in.minB + j;
                    residual.push_back({std::abs(a - (conf.gain * b + conf.bias)), c});
                }
            std::sort(residual.begin(), residual.end());
            const double limit = std::max(1.0, 3.0 * 1.4826 * medianOf(residual));
            for (int i = 0; i < in.nA; ++i)
                for (int j = 0; j < in.nB; ++j) {
                    const std::uint64_t count = in.joint[static_cast<std::size_t>(i) * in.nB + j];
                    const double a = in.minA + i, b = in.minB + j, c = static_cast<double>(count);
                    if (!count || std::abs(a - (conf.gain * b + conf.bias)) > limit) continue;
                    n += c, sb += c * b, sa += c * a, sbb += c * b * b, sab += c * a * b;
                }
        } else {
            const auto& pairA = in.pairA;
            const auto& pairB = in.pairB;
            std::vector<double> residual(pairA.size());
            for (std::size_t i = 0; i < pairA.size(); ++i) residual[i] = std::abs(pairA[i] - (conf.gain * pairB[i] + conf.bias));
            const double limit = std::max(1.0, 3.0 * 1.4826 * median(residual));
            for (std::size_t i = 0; i < pairA.size(); ++i) {
                if (residual[i] > limit) continue;
                n += 1, sb += pairB[i], sa += pairA[i], sbb += pairB[i] * pairB[i], sab += pairA[i] * pairB[i];
            }
        }
        const double varB = n > 1 ? sbb - sb * sb / n : 0.0;
        if (!(varB > 0)) break;
        const double gain = (sab - sa * sb / n) / varB;
        if (!(gain > 0) || !std::isfinite(gain)) break;
        conf.gain = gain;
        conf.bias = (sa - gain * sb) / n;
    }
    if (!in.paired || !(madA > 0 && madB > 0) || tolerance <= 0) return;
    // Then the line that matches more pairs: a change the line cannot undo (gamma) leaves the least-squares
    // line off at both ends of the range, where fewer pairs lie. Least squares on the pairs that match
    // under the current line (|A - B'| <= tolerance, B' as the backends will see it), kept while it matches
    // more of them (at most 4 rounds). Still a line: B' = gain * B + bias.
    auto mapped = [&](double gain, double bias, double b) { return roundToA ? std::nearbyint(gain * b + bias) : gain * b + bias; };
    // The distinct value pairs with their counts, ascending (a, then b), from either input.
    std::vector<std::array<double, 3>> pairs;
    if (in.counted) {
        for (int i = 0; i < in.nA; ++i)
            for (int j = 0; j < in.nB; ++j)
                if (const std::uint64_t c = in.joint[static_cast<std::size_t>(i) * in.nB + j])
                    pairs.push_back({static_cast<double>(in.minA + i), static_cast<double>(in.minB + j), static_cast<double>(c)});
    } else {
        for (const auto& [pair, count] : in.uniquePairs) pairs.push_back({pair.first, pair.second, static_cast<double>(count)});
    }
    auto visitPairs = [&](auto fn) {
        for (const auto& p : pairs) fn(p[0], p[1], p[2]);
    };
    // The pairs a line matches, counted per B value: its A values ascending with the running count of all
    // pairs before them, so that the A values matching B' = m (|a - m| <= t: one run of them, as a - m
    // only grows with a) are two binary searches. The counts are integers: the same sum as pair by pair.
    std::vector<std::size_t> order(pairs.size());
    for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
        return pairs[x][1] != pairs[y][1] ? pairs[x][1] < pairs[y][1] : x < y;
    });
    std::vector<double> columnB, valueA(pairs.size()), before(pairs.size() + 1, 0.0);
    std::vector<std::size_t> columnAt;
    for (std::size_t k = 0; k < order.size(); ++k) {
        const auto& p = pairs[order[k]];
        if (columnB.empty() || p[1] != columnB.back()) columnB.push_back(p[1]), columnAt.push_back(k);
        valueA[k] = p[0];
        before[k + 1] = before[k] + p[2];
    }
    columnAt.push_back(pairs.size());
    // Counted (integers both sides: B' rounded, A's values minA + i): |a - v| <= t is v - floor(t) <= a <=
    // v + floor(t), so a dense table of running counts per B value (where it is small) answers each B value
    // with two lookups. Only for |v| and t below 2^31 (then every difference is exact); else the searches.
    const bool dense = in.counted && roundToA && tolerance < 2147483648.0 &&
                       static_cast<double>(columnB.size()) * (in.nA + 1) <= static_cast<double>(1 << 20);
    const double floorT = std::floor(tolerance);
    const std::size_t stride = static_cast<std::size_t>(in.nA) + 1;
    std::vector<double> running;
    if (dense) {
        running.assign(columnB.size() * stride, 0.0);
        for (std::size_t col = 0; col < columnB.size(); ++col) {
            const std::size_t j = static_cast<std::size_t>(static_cast<int>(columnB[col]) - in.minB);
            double* r = running.data() + col * stride;
            for (std::size_t i = 0; i < static_cast<std::size_t>(in.nA); ++i)
                r[i + 1] = r[i] + static_cast<double>(in.joint[i * static_cast<std::size_t>(in.nB) + j]);
        }
    }
    auto matched = [&](double gain, double bias) {
        double m = 0;
        for (std::size_t col = 0; col < columnB.size(); ++col) {
            const double v = mapped(gain, bias, columnB[col]);
            if (dense && std::abs(v) < 2147483648.0) {
                const double n = static_cast<double>(in.nA);
                const double first = std::clamp(v - floorT - in.minA, 0.0, n), last = std::clamp(v + floorT - in.minA + 1, 0.0, n);
                if (last > first) {
                    const double* r = running.data() + col * stride;
                    m += r[static_cast<std::size_t>(last)] - r[static_cast<std::size_t>(first)];
                }
                continue;
            }
            const auto first = valueA.begin() + static_cast<std::ptrdiff_t>(columnAt[col]);
            const auto last = valueA.begin() + static_cast<std::ptrdiff_t>(columnAt[col + 1]);
            const auto lo = std::partition_point(first, last, [&](double a) { return a - v < 0 && !samplesMatch(a, v, tolerance); });
            const auto hi = std::partition_point(lo, last, [&](double a) { return samplesMatch(a, v, tolerance); });
            m += before[static_cast<std::size_t>(hi - valueA.begin())] - before[static_cast<std::size_t>(lo - valueA.begin())];
        }
        return m;
    };
    double best = matched(conf.gain, conf.bias);
    for (int round = 0; round < 4; ++round) {
        double n = 0, sb = 0, sa = 0, sbb = 0, sab = 0;
        visitPairs([&](double a, double b, double c) {
            if (!samplesMatch(a, mapped(conf.gain, conf.bias, b), tolerance)) return;
            n += c, sb += c * b, sa += c * a, sbb += c * b * b, sab += c * a * b;
        });
        const double varB = n > 1 ? sbb - sb * sb / n : 0.0;
        if (!(varB > 0)) break;
        const double gain = (sab - sa * sb / n) / varB;
        if (!(gain > 0) || !std::isfinite(gain)) break;
        const double bias = (sa - gain * sb) / n;
        const double m = matched(gain, bias);
        if (!(m > best)) break;
        best = m;
        conf.gain = gain;
        conf.bias = bias;
    }
    // Then a search of the lines near it, kept where one matches more pairs: gains within 20 %, turned
    // about B's median, and biases within 8, then twice finer around the best. Where the pairs take at
    // most 2^14 distinct value pairs (then it costs little: the grid's lines are counted on all threads,
    // the first best in grid order kept, as one thread would); it only ever adds matched pairs.
    double total = 0;
    for (const auto& p : pairs) total += p[2];
    if (pairs.size() > (std::size_t{1} << 14) || best >= total) return;
    const double pivot = in.counted ? medianOf(in.valuesB) : median(in.pairB);
    constexpr int kGain = 20, kBias = 16, kSide = 2 * kBias + 1;
    std::vector<double> counts(static_cast<std::size_t>(2 * kGain + 1) * kSide);
    double step = 1.0;
    for (int stage = 0; stage < 3; ++stage, step /= 8) {
        const double g0 = conf.gain, c0 = conf.bias;
        auto lineAt = [&](std::size_t k) {
            const int kg = static_cast<int>(k / kSide) - kGain, kc = static_cast<int>(k % kSide) - kBias;
            const double gain = g0 * (1 + 0.01 * step * kg);
            return std::pair<double, double>{gain, c0 - (gain - g0) * pivot + 0.5 * step * kc};
        };
        // A line and B value: ~3 ns (two lookups) or ~20 ns (two short binary searches); threads sized to it.
        const double work = static_cast<double>(counts.size()) * static_cast<double>(columnB.size()) * (dense ? 6.0 : 40.0);
        parallelFor(0, counts.size(), 64, [&](std::size_t first, std::size_t last) {
            for (std::size_t k = first; k < last; ++k) {
                const auto [gain, bias] = lineAt(k);
                counts[k] = gain > 0 ? matched(gain, bias) : 0.0;
            }
        }, threadsForPixels(work));
        for (std::size_t k = 0; k < counts.size(); ++k)
            if (counts[k] > best) best = counts[k], std::tie(conf.gain, conf.bias) = lineAt(k);
    }
}

// Histogram matching: a B value goes to A's value at its mid-rank quantile among B's fitted samples.
double rankMapped(const std::vector<double>& sortedA, const std::vector<double>& sortedB, double v) {
    if (sortedA.empty()) return v;
    const double less = static_cast<double>(std::lower_bound(sortedB.begin(), sortedB.end(), v) - sortedB.begin());
    const double upTo = static_cast<double>(std::upper_bound(sortedB.begin(), sortedB.end(), v) - sortedB.begin());
    const double q = sortedB.empty() ? 0.5 : (less + upTo) / 2 / static_cast<double>(sortedB.size());
    const std::size_t k = std::min(sortedA.size() - 1, static_cast<std::size_t>(q * static_cast<double>(sortedA.size())));
    return sortedA[k];
}

// The same mapping from counts: `less` of B's fitted samples are below v and `same` equal to it.
double rankMappedCounted(const Weighted& valuesA, std::uint64_t totalA, std::uint64_t totalB, std::uint64_t less,
                         std::uint64_t same, double v) {
    if (totalA == 0) return v;
    const double q = totalB == 0 ? 0.5
                                 : (static_cast<double>(less) + static_cast<double>(less + same)) / 2 /
                                       static_cast<double>(totalB);
    const std::uint64_t k = std::min<std::uint64_t>(totalA - 1, static_cast<std::uint64_t>(q * static_cast<double>(totalA)));
    return kthOf(valuesA, k);
}

// The blank mask of B' (B's invalid samples), or none when every sample is valid.
template <class Valid>
void setBlanks(Image& image, std::size_t n, Valid valid) {
    std::vector<std::uint8_t> blank(n);
    bool any = false;
    for (std::size_t i = 0; i < n; ++i) blank[i] = valid(i) ? 0 : 1, any = any || blank[i];
    if (any) image.setBlankMask(std::move(blank));
}

// B' from a value per pixel: 8- or 16-bit integers when every value is one (the backends then code it
// through a table, without a sort), doubles otherwise; B's invalid samples blank.
template <class ValueAt, class Valid>
Image mappedImage(const Image& b, ValueAt valueAt, Valid valid) {
    const std::size_t n = b.pixelCount();
    std::atomic<bool> uint8{true}, int16{true}, uint16{true};
    parallelFor(0, n, 1 << 16, [&](std::size_t first, std::size_t last) {
        bool u8 = true, i16 = true, u16 = true;
        for (std::size_t i = first; i < last && (i16 || u16); ++i) {
            if (!valid(i)) continue;
            const double v = valueAt(i);
            if (v != std::floor(v)) u8 = i16 = u16 = false;
            if (!(v >= 0 && v <= 255)) u8 = false;
            if (!(v >= -32768 && v <= 32767)) i16 = false;
            if (!(v >= 0 && v <= 65535)) u16 = false;
        }
        if (!u8) uint8 = false;
        if (!i16) int16 = false;
        if (!u16) uint16 = false;
    });
    auto build = [&](auto tag) {
        using T = decltype(tag);
        std::vector<T> samples(n);
        parallelFor(0, n, 1 << 16, [&](std::size_t first, std::size_t last) {
            for (std::size_t i = first; i < last; ++i) samples[i] = valid(i) ? static_cast<T>(valueAt(i)) : T(0);
        });
        return Image::fromSamples<T>(b.width(), b.height(), std::move(samples));
    };
    Image result = uint8 ? build(std::uint8_t{}) : int16 ? build(std::int16_t{}) : uint16 ? build(std::uint16_t{}) : build(double{});
    setBlanks(result, n, valid);
    result.meta = b.meta;
    result.updateIntegerValued();
    return result;
}

// B with its values mapped onto A's (how), fitted on `in` (per pixel). roundToA: A holds integers, so B'
// is rounded to them (a fitted bias of a fraction then does not push pairs that differ by the tolerance
// just past it).
Image normalisedB(const Image& b, const Samples& sb, const FitInput& in, bool roundToA, CommonNormalize how,
                  double tolerance, CommonComponentConfidence& conf) {
    auto valid = [&](std::size_t i) { return sb.ok[i] != 0; };
    if (how == CommonNormalize::Linear) {
        fitLinear(in, tolerance, roundToA, conf);
        const double gain = conf.gain, bias = conf.bias;
        return mappedImage(b, [&](std::size_t i) { return roundToA ? std::nearbyint(gain * sb.v[i] + bias) : gain * sb.v[i] + bias; },
                           valid);
    }
    std::vector<double> sortedA = in.pairA, sortedB = in.pairB;
    std::sort(sortedA.begin(), sortedA.end());
    std::sort(sortedB.begin(), sortedB.end());
    return mappedImage(b, [&](std::size_t i) { return rankMapped(sortedA, sortedB, sb.v[i]); }, valid);
}

// The same from counts: one mapped value per value of B's range, looked up per pixel (A holds integers).
Image normalisedCountedB(const Image& b, const IntRange& rb, const FitInput& in, CommonNormalize how, double tolerance,
                         CommonComponentConfidence& conf) {
    std::vector<double> table(rb.count());
    if (how == CommonNormalize::Linear) {
        fitLinear(in, tolerance, true, conf);
        for (std::size_t j = 0; j < table.size(); ++j)
            table[j] = std::nearbyint(conf.gain * static_cast<double>(rb.lo + static_cast<int>(j)) + conf.bias);
    } else {
        // B's counts walked once, below and at each value.
        std::uint64_t totalA = 0, totalB = 0;
        for (const auto& e : in.valuesA) totalA += e.second;
        for (const auto& e : in.valuesB) totalB += e.second;
        std::size_t p = 0;
        std::uint64_t less = 0;
        for (std::size_t j = 0; j < table.size(); ++j) {
            const double v = static_cast<double>(rb.lo + static_cast<int>(j));
            while (p < in.valuesB.size() && in.valuesB[p].first < v) less += in.valuesB[p++].second;
            const std::uint64_t same = p < in.valuesB.size() && in.valuesB[p].first == v ? in.valuesB[p].second : 0;
            table[j] = rankMappedCounted(in.valuesA, totalA, totalB, less, same, v);
        }
    }
    // The narrowest type that holds the table (every value is an integer: rounded, or one of A's), one
    // pass to map, and B's own blank mask (its only invalid samples).
    bool u8 = true, i16 = true, u16 = true;
    for (double v : table) u8 = u8 && v >= 0 && v <= 255, i16 = i16 && v >= -32768 && v <= 32767, u16 = u16 && v >= 0 && v <= 65535;
    auto build = [&](auto tag) {
        using T = decltype(tag);
        std::vector<T> samples(b.pixelCount());
        visitSmall(b, [&](const auto* pb) {
            // The table in T (one lookup a pixel, no conversion), one share of the pixels a thread.
            std::vector<T> narrow(table.size());
            for (std::size_t j = 0; j < table.size(); ++j) narrow[j] = static_cast<T>(table[j]);
            const int threads = threadsForPixels(static_cast<double>(samples.size()));
            const std::size_t n = samples.size(), shares = static_cast<std::size_t>(threads);
            const std::uint8_t* blank = b.hasBlanks() ? b.blankMask().data() : nullptr;
            parallelFor(0, shares, 1, [&](std::size_t first, std::size_t last) {
                for (std::size_t t = first; t < last; ++t) {
                    const std::size_t begin = n * t / shares, end = n * (t + 1) / shares;
                    if (blank) {
                        for (std::size_t i = begin; i < end; ++i)
                            samples[i] = blank[i] ? T(0) : narrow[static_cast<std::size_t>(static_cast<int>(pb[i]) - rb.lo)];
                    } else {
                        for (std::size_t i = begin; i < end; ++i) samples[i] = narrow[static_cast<std::size_t>(static_cast<int>(pb[i]) - rb.lo)];
                    }
                }
            }, threads);
        });
        return Image::fromSamples<T>(b.width(), b.height(), std::move(samples));
    };
    Image result = u8 ? build(std::uint8_t{}) : i16 ? build(std::int16_t{}) : u16 ? build(std::uint16_t{}) : build(double{});
    if (b.hasBlanks()) result.setBlankMask(b.blankMask());
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
