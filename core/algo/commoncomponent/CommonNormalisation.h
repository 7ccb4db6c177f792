// B fitted onto A before the common-component search (--normalize, findCommonComponent): the samples as doubles,
// what the fit sees (counted or per pixel), the linear and rank fits, and B'. Internal to core/algo/commoncomponent.
#pragma once

#include "core/algo/commoncomponent/CommonComponent.h"
#include "core/io/Image.h"
#include "core/util/Parallel.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

namespace glint::common_component::normalisation {

// An image's samples as doubles, and which of them are valid.
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

// A multiset as (value, count), ascending by value: the samples of small-integer images, counted.
using Weighted = std::vector<std::pair<double, std::uint64_t>>;

bool smallIntegerType(SampleType t);

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
std::pair<IntRange, IntRange> integerRanges(const Image& a, const Image& b);

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
bool countable(const IntRange& a, const IntRange& b);
FitInput countedFitInput(const Image& a, const IntRange& ra, const Image& b, const IntRange& rb,
                         const CommonOffset* at);
FitInput pixelFitInput(const Samples& sa, int wA, int hA, const Samples& sb, int wB, int hB, const CommonOffset* at);

// B with its values mapped onto A's (how), fitted on `in` (per pixel). roundToA: A holds integers, so B'
// is rounded to them (a fitted bias of a fraction then does not push pairs that differ by the tolerance
// just past it).
Image normalisedB(const Image& b, const Samples& sb, const FitInput& in, bool roundToA, CommonNormalize how,
                  double tolerance, CommonComponentConfidence& conf);

// The same from counts: one mapped value per value of B's range, looked up per pixel (A holds integers).
Image normalisedCountedB(const Image& b, const IntRange& rb, const FitInput& in, CommonNormalize how, double tolerance,
                         CommonComponentConfidence& conf);

} // namespace glint::common_component::normalisation
