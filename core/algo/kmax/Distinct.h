// brightest --mode overlap --distinct F: the rule, its exact arithmetic and the ranking order shared by the
// reference and CPU searches (KMaxDistinct*.cpp) and the tests' brute force. NOTES.md, "Distinct".
#pragma once

#include "core/algo/maxsub/MaxSubarrayBase.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <tuple>
#include <type_traits>

namespace glint::kmax {

// floor(F * m), exact, for 0 <= F < 1 and 0 <= m < 2^62: F = mant * 2^-shift with an integer mant < 2^53,
// so F * m = (mant * m) / 2^shift, formed in 128-bit integers. The rule |r n L| <= F min(|r|, |L|) holds
// exactly when |r n L| <= floor(F min(|r|, |L|)) (the overlap is an integer), in exact real arithmetic
// on F's double value: no rounding decides a borderline case, so the rule is monotone where the search
// needs it (NOTES.md).
class DistinctCap {
public:
    explicit DistinctCap(double f) {
        if (!(f > 0.0)) return; // 0 (and the caller's checks keep NaN and f >= 1 out)
        int e = 0;
        const double fr = std::frexp(f, &e);                               // f = fr 2^e, fr in [0.5, 1), e <= 0
        mant_ = static_cast<std::uint64_t>(std::ldexp(fr, 53));           // exact: f has at most 53 bits
        shift_ = 53 - e;                                                   // >= 53
    }
    std::int64_t operator()(std::int64_t m) const {
        if (mant_ == 0 || shift_ >= 128 || m <= 0) return 0;
        const Wide p = static_cast<Wide>(mant_) * static_cast<std::uint64_t>(m);
        return static_cast<std::int64_t>(p >> shift_);
    }
    bool zero() const { return mant_ == 0; }

private:
    __extension__ typedef unsigned __int128 Wide; // GCC and Clang; mant * m < 2^115
    std::uint64_t mant_ = 0;
    int shift_ = 0;
};

inline std::int64_t rectArea(const WorkRect& r) { return static_cast<std::int64_t>(r.rows) * r.cols; }

inline std::int64_t spanOverlap(int a0, int a1, int b0, int b1) { // inclusive spans
    return std::max(0, std::min(a1, b1) - std::max(a0, b0) + 1);
}

inline std::int64_t rectOverlap(const WorkRect& a, const WorkRect& b) {
    return spanOverlap(a.row0, a.row0 + a.rows - 1, b.row0, b.row0 + b.rows - 1) *
           spanOverlap(a.col0, a.col0 + a.cols - 1, b.col0, b.col0 + b.cols - 1);
}

// Whether r may be listed below L: |r n L| <= F min(|r|, |L|).
inline bool distinctAllowed(const WorkRect& r, const WorkRect& L, const DistinctCap& cap) {
    return rectOverlap(r, L) <= cap(std::min(rectArea(r), rectArea(L)));
}

// The ranking the rule filters, a total order on rectangles: the larger sum first; among equal sums the
// smaller top, then bottom, then first column, then last column (work coordinates). Sums are compared as
// the search computes them (int64, or the canonical double of KMax.h, +0.0 for a zero).
template <class V>
V rectSum(const WorkRect& r) {
    if constexpr (std::is_integral_v<V>) return r.sumInt;
    else return r.sum;
}
template <class V>
bool rankedBefore(const WorkRect& a, const WorkRect& b) {
    const V sa = rectSum<V>(a), sb = rectSum<V>(b);
    if (sa != sb) return sa > sb;
    return std::make_tuple(a.row0, a.rows, a.col0, a.cols) < std::make_tuple(b.row0, b.rows, b.col0, b.cols);
}

} // namespace glint::kmax
