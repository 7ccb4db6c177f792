// A region's figures without a background model and without blanks (RegionMeasurer::measure's plain pass):
// row sums of the samples and counts, vectorised, exact where that is proven. Internal to core/algo/sources.
#pragma once

#include "core/algo/regions/WorkArray.h"
#include "core/algo/sources/RegionRowKernels.h"
#include "core/util/CpuFeatures.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace glint::region_measure {

template <class T>
struct PlainTables;

// The sample types the shared tables serve: integers of at most 32 bits and float (int64 and double samples,
// whose scan sums round in double, are always scanned).
template <class T>
constexpr bool kHasTables = (std::is_integral_v<T> && sizeof(T) <= 4) || std::is_same_v<T, float>;

// The figures without a background model and without blanks: the background is the constant pivot and the
// RMS 0, so every sum splits into sums of the samples (integers summed exactly) and counts, in loops the
// compiler vectorises. A row of a floating-point image whose sums are not finite (NaN or infinite samples)
// is measured again pixel by pixel, skipping those samples as the general pass does. With `tables` (many
// regions, measureRegions) each row's sums come from prefix sums instead, which are proven to give the same
// numbers (PlainTables).
template <class T>
struct PlainMeasure {
    const T* p;
    int W;
    double pivot;
    const PlainTables<T>* tables = nullptr;
    // Exact integer sums for samples of at most 32 bits (a row's sum fits int64), double otherwise.
    static constexpr bool kSmallInteger = std::is_integral_v<T> && sizeof(T) <= 4;
    using Sum = std::conditional_t<kSmallInteger, std::int64_t, double>;
    // Centroid sums over a row: sum of x*v in int64 for samples of at most 16 bits, else in double.
    using XSum = std::conditional_t<std::is_integral_v<T> && sizeof(T) <= 2, std::int64_t, double>;

    struct Region {
        double flux = 0.0;
        double peak = -std::numeric_limits<double>::infinity();
        double maxValue = -std::numeric_limits<double>::infinity(); // the sample at the peak
        T peakSample{};                                             // the same, as stored
        int peakY = 0;                                              // its column: peakColumn()
        std::int64_t count = 0; // finite samples
        bool nonFinite = false;
    };

    // One row's part of a region: the sum and number of its finite samples, their maximum (the first of
    // equal ones, as `v > m ? v : m` from the left keeps it), whether a sample was not finite, and whether any
    // was.
    struct RowPart {
        Sum s = 0;
        std::int64_t n = 0;
        T m{};
        bool nonFinite = false;
        bool any = true;
    };
    RowPart scanRow(int y, int x0, int x1) const {
        const T* row = p + static_cast<std::size_t>(y) * W;
        RowPart r;
        if constexpr (std::is_same_v<T, float>)
            if (fastFloatRow(row, x0, x1, r)) return r;
        if constexpr (std::is_same_v<T, std::uint8_t>)
            if (cpuHasAvx2()) {
                u8RowAvx2(row + x0, x1 - x0, r.s, r.m);
                r.n = x1 - x0;
                return r;
            }
        Sum s = 0;
        T m = row[x0];
        for (int x = x0; x < x1; ++x) {
            s += static_cast<Sum>(row[x]);
            m = row[x] > m ? row[x] : m;
        }
        std::int64_t n = x1 - x0;
        if constexpr (!kSmallInteger) {
            if (!std::isfinite(static_cast<double>(s)) || !std::isfinite(static_cast<double>(m))) {
                // NaN or infinite samples: the general pass's rule, one pixel at a time.
                r.nonFinite = true;
                s = 0;
                n = 0;
                bool any = false;
                for (int x = x0; x < x1; ++x) {
                    if (!std::isfinite(static_cast<double>(row[x]))) continue;
                    s += static_cast<Sum>(row[x]);
                    m = !any || row[x] > m ? row[x] : m;
                    any = true;
                    ++n;
                }
                r.any = any;
            }
        }
        r.s = s;
        r.n = n;
        r.m = m;
        return r;
    }

    // Float rows, in 8 partial sums (vectorised) instead of one chain: only where every sum of the row's
    // samples is exact in double (exactFloatSums), so that the order does not matter; and not where a sample is
    // not finite (the scan's pixel-by-pixel rule then). The maximum is the same value (the first of equal ones
    // is looked for when it is a zero, whose sign the lanes could change). False: scan.
    static bool fastFloatRow(const float* row, int x0, int x1, RowPart& out) {
        const FloatRowStats f = floatRowStats(row + x0, x1 - x0);
        if (!f.exact(x1 - x0)) return false;
        float m = f.max;
        if (m == 0.0f) { // the scan's zero: the first of the row's zeros
            m = row[x0];
            for (int i = x0; i < x1; ++i) m = row[i] > m ? row[i] : m;
        }
        out.s = f.sum;
        out.n = x1 - x0;
        out.m = m;
        out.nonFinite = false;
        out.any = true;
        return true;
    }

    // Rows y0..y1-1, columns x0..x1-1.
    void region(int x0, int x1, int y0, int y1, Region& out) const {
        for (int y = y0; y < y1; ++y) {
            const RowPart r = tables ? tables->regionRow(y, x0, x1) : scanRow(y, x0, x1);
            out.nonFinite = out.nonFinite || r.nonFinite;
            if (!r.any) continue;
            out.flux += static_cast<double>(r.s) - static_cast<double>(r.n) * pivot;
            out.count += r.n;
            const double d = static_cast<double>(r.m) - pivot;
            if (d > out.peak) {
                out.peak = d;
                out.maxValue = static_cast<double>(r.m);
                out.peakSample = r.m;
                out.peakY = y;
            }
        }
    }
    // The peak's column: the first in the row holding the peak's sample.
    int peakColumn(int x0, int y, T m) const {
        const T* row = p + static_cast<std::size_t>(y) * W;
        int x = x0;
        while (!(row[x] == m)) ++x;
        return x;
    }

    // v > pivot; for integer samples v > floor(pivot), with floor(pivot) clamped to [lowest - 1, max] of the
    // type, which is the same test and one integer comparison.
    std::int64_t limit = 0;
    void setPivot(double value) {
        pivot = value;
        if constexpr (kSmallInteger) {
            const double lo = static_cast<double>(std::numeric_limits<T>::lowest()) - 1.0;
            const double hi = static_cast<double>(std::numeric_limits<T>::max());
            limit = static_cast<std::int64_t>(std::clamp(std::floor(value), lo, hi));
        }
    }
    bool above(T v) const {
        if constexpr (kSmallInteger) return static_cast<std::int64_t>(v) > limit;
        else return static_cast<double>(v) > pivot;
    }

    // One row's centroid sums over the samples v > pivot (finite ones): of v, of x * v, their number and the
    // sum of their x.
    struct RowMoments {
        Sum sv = 0;
        XSum sxv = 0;
        std::int64_t count = 0, sx = 0;
    };
    RowMoments scanMoments(int y, int x0, int x1) const {
        const T* row = p + static_cast<std::size_t>(y) * W;
        if constexpr (std::is_same_v<T, float>) {
            RowMoments r;
            if (fastFloatMoments(row, x0, x1, r)) return r;
        }
        if constexpr (std::is_same_v<T, std::uint8_t>) {
            if (limit >= 255) return {};
            if (cpuHasAvx2()) {
                IntMoments m;
                u8MomentsAvx2(row, x0, x1, limit, m);
                return {m.sv, m.sxv, m.count, m.sx};
            }
        }
        Sum sv = 0;
        XSum sxv = 0;
        std::int64_t count = 0, sx = 0;
        if constexpr (kSmallInteger) {
            // Branch-free (masks).
            for (int x = x0; x < x1; ++x) {
                const std::int64_t v = static_cast<std::int64_t>(row[x]);
                const std::int64_t mask = -static_cast<std::int64_t>(v > limit);
                sv += v & mask;
                sxv += static_cast<XSum>(x) * static_cast<XSum>(v & mask);
                count -= mask;
                sx += x & mask;
            }
        } else {
            for (int x = x0; x < x1; ++x) {
                const bool in = above(row[x]);
                sv += in ? static_cast<Sum>(row[x]) : Sum(0);
                sxv += in ? static_cast<XSum>(x) * static_cast<XSum>(row[x]) : XSum(0);
                count += in;
                sx += in ? x : 0;
            }
        }
        if constexpr (!kSmallInteger) {
            if (!std::isfinite(static_cast<double>(sv)) || !std::isfinite(static_cast<double>(sxv))) {
                sv = 0;
                sxv = 0;
                count = sx = 0;
                for (int x = x0; x < x1; ++x) {
                    const double v = static_cast<double>(row[x]);
                    if (!(v > pivot) || !std::isfinite(v)) continue;
                    sv += row[x];
                    sxv += static_cast<double>(x) * v;
                    ++count;
                    sx += x;
                }
            }
        }
        return {sv, sxv, count, sx};
    }

    // The same sums over the finite samples above the pivot in 8 partial sums, where exactFloatSums proves
    // every sum of the row exact (which is also what the scan gives when it drops an infinite sample).
    bool fastFloatMoments(const float* row, int x0, int x1, RowMoments& out) const {
        FloatMoments f;
        floatMoments(row, x0, x1, pivot, f);
        int xBits = 0;
        while ((std::int64_t{1} << xBits) < x1) ++xBits;
        if (!exactFloatSums(x1 - x0, f.hi, f.lo, xBits)) return false;
        out.sv = f.sv;
        out.sxv = f.sxv;
        out.count = static_cast<std::int64_t>(f.count);
        out.sx = static_cast<std::int64_t>(f.sx);
        return true;
    }

    struct Moments {
        double w = 0.0, wx = 0.0, wy = 0.0;
    };
    // Weights v - pivot where v > pivot (the general pass's rule with the RMS 0).
    void moments(int x0, int x1, int y0, int y1, Moments& out) const {
        const bool fromTables = tables && tables->hasMoments();
        for (int y = y0; y < y1; ++y) {
            const RowMoments r = fromTables ? tables->momentsRow(y, x0, x1) : scanMoments(y, x0, x1);
            const double w = static_cast<double>(r.sv) - static_cast<double>(r.count) * pivot;
            out.w += w;
            out.wx += static_cast<double>(r.sxv) - pivot * static_cast<double>(r.sx);
            out.wy += w * y;
        }
    }
};

} // namespace glint::region_measure
