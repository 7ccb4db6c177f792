// The passes that many regions of one image share (RegionMeasurer::shareAmong): per-row prefix sums over
// blocks of 8 samples and a sparse table of the blocks' maxima. Internal to core/algo/sources.
#pragma once

#include "core/algo/regions/WorkArray.h"
#include "core/algo/sources/PlainMeasure.h"
#include "core/util/Parallel.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <type_traits>
#include <vector>

namespace glint {

// Shared passes of many regions over one image, without a background model and without blanks (kmax's K
// overlapping rectangles are near copies of each other, and each one scanned cost O(area)): per row, prefix
// sums over blocks of 8 samples of the finite samples (and, for floats, counts of the others) and of the
// centroid's sums over the samples above the pivot, and a sparse table of the blocks' maxima; a row's part is
// its whole blocks from those plus at most 14 samples at its ends. A region then costs O(rows). The numbers are
// the scan's, bit for bit:
// - integer samples: the sums are exact integers either way (the x * v sums of 32-bit samples, which the scan
//   adds in double, only where max|v| * W * W < 2^53, so those double sums are exact too; else the centroid
//   sums are scanned);
// - float samples: every finite sample is a multiple of 2^Emin (its smallest exponent's unit) below 2^Emax,
//   so any sum of n of them is a multiple of 2^Emin below n 2^Emax, exact in double when n 2^(Emax - Emin) <=
//   2^53 (x * v: times W more). Then every partial sum of the scan, in its order, is exact, and so is every
//   sum of the tables' pieces: the same double. Where the image's range is too wide there are no tables.
// - the maxima combine as the scan does (`b > a ? b : a`, left part first), so the first of equal maxima
//   wins (the sign of a zero included); non-finite samples read -infinity, as the scan skips them.
struct RegionMeasureTables {
    virtual ~RegionMeasureTables() = default;
    // The centroid sums (w, wx, wy) of the windows measured so far, by window (x0, x1, y0, y1): the same window
    // gives the same sums.
    bool findWindow(const std::array<int, 4>& key, double& w, double& wx, double& wy) const {
        const std::lock_guard lock(mutex);
        const auto it = windows.find(key);
        if (it == windows.end()) return false;
        w = it->second[0];
        wx = it->second[1];
        wy = it->second[2];
        return true;
    }
    void keepWindow(const std::array<int, 4>& key, double w, double wx, double wy) const {
        const std::lock_guard lock(mutex);
        windows.emplace(key, std::array<double, 3>{w, wx, wy});
    }
    mutable std::mutex mutex;
    mutable std::map<std::array<int, 4>, std::array<double, 3>> windows;
};

namespace region_measure {

template <class T>
struct PlainTables : RegionMeasureTables {
    using PM = PlainMeasure<T>;
    using Sum = typename PM::Sum;
    static constexpr int kBlock = 8;
    static constexpr bool kFloat = std::is_floating_point_v<T>;
    // The x * v sums: exact int64 for integer samples, double for floats.
    using XPrefix = std::conditional_t<kFloat, double, std::int64_t>;

    // Prefix sums over whole blocks of kBlock samples: entry b of a row sums its blocks 0..b-1.
    struct Prefix {
        Sum s = 0;           // finite samples
        std::int32_t bad = 0; // non-finite samples (floats)
        std::int32_t count = 0; // samples above the pivot (finite)
        Sum sv = 0;
        XPrefix sxv = 0;
        std::int64_t sx = 0;
    };

    const T* p = nullptr;
    PM plain{nullptr, 0, 0.0}; // the pivot of the centroid sums
    int W = 0, H = 0;
    int blocks = 0, levels = 0;
    std::size_t stride = 0; // blocks + 1
    std::unique_ptr<Prefix[]> prefix;
    std::unique_ptr<T[]> maxima; // level k: H * blocks entries from k * H * blocks
    bool moments = false;

    bool hasMoments() const { return moments; }

    static T clean(T v) {
        if constexpr (kFloat) return std::isfinite(v) ? v : -std::numeric_limits<T>::infinity();
        else return v;
    }
    // The samples x0..x1-1 of a row, one by one, into a region part (max folded left to right).
    void addSamples(const T* row, int x0, int x1, typename PM::RowPart& r, std::int64_t& bad) const {
        for (int x = x0; x < x1; ++x) {
            const T v = row[x];
            if constexpr (kFloat) {
                if (!std::isfinite(v)) {
                    ++bad;
                    continue;
                }
            }
            r.s += static_cast<Sum>(v);
        }
    }
    T foldMax(const T* row, int x0, int x1, T m) const {
        for (int x = x0; x < x1; ++x) {
            const T v = clean(row[x]);
            m = v > m ? v : m;
        }
        return m;
    }

    typename PM::RowPart regionRow(int y, int x0, int x1) const {
        typename PM::RowPart r;
        const T* row = p + static_cast<std::size_t>(y) * W;
        const int b0 = (x0 + kBlock - 1) / kBlock, b1 = x1 / kBlock;
        std::int64_t bad = 0;
        T m = clean(row[x0]);
        if (b0 >= b1) {
            addSamples(row, x0, x1, r, bad);
            m = foldMax(row, x0 + 1, x1, m);
        } else {
            addSamples(row, x0, b0 * kBlock, r, bad);
            m = foldMax(row, x0 + 1, b0 * kBlock, m);
            const Prefix* pr = prefix.get() + static_cast<std::size_t>(y) * stride;
            r.s += pr[b1].s - pr[b0].s;
            bad += pr[b1].bad - pr[b0].bad;
            int k = 0;
            while ((2 << k) <= b1 - b0) ++k;
            const T* level = maxima.get() + (static_cast<std::size_t>(k) * H + y) * blocks;
            const T a = level[b0], c = level[b1 - (1 << k)];
            const T ac = c > a ? c : a;
            m = ac > m ? ac : m;
            addSamples(row, b1 * kBlock, x1, r, bad);
            m = foldMax(row, b1 * kBlock, x1, m);
        }
        r.n = (x1 - x0) - bad;
        r.nonFinite = bad > 0;
        r.any = r.n > 0;
        r.m = m;
        return r;
    }

    struct MomentSums {
        Sum sv = 0;
        XPrefix sxv = 0;
        std::int64_t count = 0, sx = 0;
    };
    void addMoments(const T* row, int x0, int x1, MomentSums& r) const {
        for (int x = x0; x < x1; ++x) {
            const T v = row[x];
            bool in;
            if constexpr (kFloat) in = std::isfinite(v) && plain.above(v);
            else in = plain.above(v);
            if (!in) continue;
            r.sv += static_cast<Sum>(v);
            r.sxv += static_cast<XPrefix>(x) * static_cast<XPrefix>(v);
            ++r.count;
            r.sx += x;
        }
    }
    typename PM::RowMoments momentsRow(int y, int x0, int x1) const {
        const T* row = p + static_cast<std::size_t>(y) * W;
        const int b0 = (x0 + kBlock - 1) / kBlock, b1 = x1 / kBlock;
        MomentSums m;
        if (b0 >= b1) {
            addMoments(row, x0, x1, m);
        } else {
            addMoments(row, x0, b0 * kBlock, m);
            const Prefix* pr = prefix.get() + static_cast<std::size_t>(y) * stride;
            m.sv += pr[b1].sv - pr[b0].sv;
            m.sxv += pr[b1].sxv - pr[b0].sxv;
            m.count += pr[b1].count - pr[b0].count;
            m.sx += pr[b1].sx - pr[b0].sx;
            addMoments(row, b1 * kBlock, x1, m);
        }
        typename PM::RowMoments r;
        r.sv = m.sv;
        r.sxv = static_cast<typename PM::XSum>(m.sxv);
        r.count = m.count;
        r.sx = m.sx;
        return r;
    }

    // Bytes the tables of a W x H image take.
    static double bytesFor(int W, int H) {
        const double blocksPerRow = W / kBlock;
        double levelCount = 1;
        while (std::pow(2.0, levelCount) <= blocksPerRow) ++levelCount;
        return (blocksPerRow + 1) * H * sizeof(Prefix) + blocksPerRow * H * levelCount * sizeof(T);
    }

    // Null when the numbers could not be proven to equal the scan's (a float image of too wide a range).
    static std::unique_ptr<PlainTables> build(const T* p, int W, int H, const PM& plain) {
        // The range of the samples: for floats the exponents of the finite non-zero ones and whether any is not
        // finite, for 32-bit integers max |v| (the x * v sums).
        struct Range {
            std::uint32_t hi = 0, lo = 255;
            double maxAbs = 0.0;
        };
        const int threads = threadsForPixels(3.0 * W * H);
        Range all;
        if constexpr (kFloat || sizeof(T) == 4) {
            std::vector<Range> ranges(static_cast<std::size_t>(H));
            parallelFor(0, static_cast<std::size_t>(H), 16, [&](std::size_t y0, std::size_t y1) {
                for (std::size_t y = y0; y < y1; ++y) {
                    const T* row = p + y * W;
                    Range r;
                    if constexpr (kFloat) {
                        const FloatRowStats f = floatRowStats(row, W);
                        r.hi = f.hi == 255 ? 0 : f.hi; // non-finite samples are left out of the sums
                        r.lo = f.lo;
                        if (!f.finite) { // their exponent 255 counted: again without them
                            r.hi = 0;
                            r.lo = 255;
                            for (int x = 0; x < W; ++x) {
                                const std::uint32_t b = std::bit_cast<std::uint32_t>(row[x]), e = (b >> 23) & 0xffu;
                                if (e == 0xffu) continue;
                                r.hi = std::max(r.hi, e);
                                r.lo = std::min(r.lo, (b & 0x7fffffffu) ? e : 255u);
                            }
                        }
                    } else {
                        T lo = row[0], hi = row[0];
                        for (int x = 0; x < W; ++x) {
                            lo = row[x] < lo ? row[x] : lo;
                            hi = row[x] > hi ? row[x] : hi;
                        }
                        r.maxAbs = std::max(std::fabs(static_cast<double>(lo)), std::fabs(static_cast<double>(hi)));
                    }
                    ranges[y] = r;
                }
            }, threads);
            for (const Range& r : ranges) {
                all.hi = std::max(all.hi, r.hi);
                all.lo = std::min(all.lo, r.lo);
                all.maxAbs = std::max(all.maxAbs, r.maxAbs);
            }
        }
        int wBits = 0; // W <= 2^wBits: a row has at most 2^wBits samples, and x < 2^wBits
        while ((std::int64_t{1} << wBits) < W) ++wBits;
        bool momentsExact = true;
        if constexpr (kFloat) {
            if (!exactFloatSums(W, all.hi, all.lo, 0)) return nullptr;
            momentsExact = exactFloatSums(W, all.hi, all.lo, wBits);
        } else if constexpr (sizeof(T) == 4) {
            momentsExact = all.maxAbs * std::ldexp(1.0, 2 * wBits) < std::ldexp(1.0, 53);
        }
        auto t = std::make_unique<PlainTables>();
        t->p = p;
        t->plain = plain;
        t->W = W;
        t->H = H;
        t->blocks = W / kBlock;
        t->stride = static_cast<std::size_t>(t->blocks) + 1;
        t->levels = 0;
        while (t->blocks > 0 && (1 << t->levels) <= t->blocks) ++t->levels;
        t->prefix.reset(new Prefix[t->stride * H]);
        t->maxima.reset(new T[static_cast<std::size_t>(t->levels) * H * t->blocks]);
        t->moments = momentsExact;
        PlainTables& tb = *t;
        parallelFor(0, static_cast<std::size_t>(H), 16, [&](std::size_t y0, std::size_t y1) {
            for (std::size_t y = y0; y < y1; ++y) {
                const T* row = p + y * W;
                Prefix* pr = tb.prefix.get() + y * tb.stride;
                Prefix acc;
                pr[0] = acc;
                T* level0 = tb.maxima.get() + y * tb.blocks;
                for (int b = 0; b < tb.blocks; ++b) {
                    const T* v = row + b * kBlock;
                    typename PM::RowPart part;
                    part.s = 0;
                    std::int64_t bad = 0;
                    tb.addSamples(row, b * kBlock, (b + 1) * kBlock, part, bad);
                    acc.s += part.s;
                    acc.bad += static_cast<std::int32_t>(bad);
                    if (tb.moments) {
                        MomentSums m;
                        tb.addMoments(row, b * kBlock, (b + 1) * kBlock, m);
                        acc.sv += m.sv;
                        acc.sxv += m.sxv;
                        acc.count += static_cast<std::int32_t>(m.count);
                        acc.sx += m.sx;
                    }
                    pr[b + 1] = acc;
                    level0[b] = tb.foldMax(v, 1, kBlock, clean(v[0]));
                }
                for (int k = 1; k < tb.levels; ++k) {
                    const T* below = tb.maxima.get() + (static_cast<std::size_t>(k - 1) * H + y) * tb.blocks;
                    T* level = tb.maxima.get() + (static_cast<std::size_t>(k) * H + y) * tb.blocks;
                    const int half = 1 << (k - 1);
                    for (int b = 0; b + 2 * half <= tb.blocks; ++b) {
                        const T a = below[b], c = below[b + half];
                        level[b] = c > a ? c : a;
                    }
                }
            }
        }, threads);
        return t;
    }
};

} // namespace region_measure

} // namespace glint
