// The sigma clipping of a background cell (Background.h): clippedStatsHistogram, what every cell runs, on a
// histogram with its sums in 32 lanes (the device's order), and clippedStatsExact, the tests' oracle.
#include "core/algo/sources/Background.h"

#include "core/algo/sources/BackgroundClippingKernels.h"
#include "core/algo/sources/BackgroundMath.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace glint {

namespace {

ClippedStats finish(std::size_t count, double mean, double median, double sigma) {
    ClippedStats s;
    s.count = count;
    s.mean = mean;
    s.median = median;
    s.sigma = sigma;
    s.mode = bgmath::modeOf(mean, median, sigma);
    return s;
}

using bgmath::kBins;
using bgmath::kLanes;

// 32 lane sums (value k in lane k % 32, each lane in increasing k) and their fixed tree: the order the
// device's warps add in (BackgroundMath.h).
struct LaneSums {
    double p[kLanes] = {};
    double total() {
        double q[kLanes];
        std::copy(p, p + kLanes, q);
        return bgmath::laneTreeSum(q);
    }
};

constexpr int kParts = 4; // runs of the values the counting sort interleaves

} // namespace

using clipping::binSlots;
using clipping::keptLaneSums;
using clipping::keptLaneSumsScalar;

ClippedStats clippedStatsHistogram(const double* values, std::size_t n, double clipSigma, int maxIterations,
                                   ClippingScratch* scratch) {
    using namespace bgmath;
    if (n == 0) return {};
    // The plain mean and sigma (shifted by the first value for accuracy).
    const double shift = values[0];
    // The kept values' sums of d = value - origin and d^2 in lane order (a value left out adds +0.0, which leaves
    // a lane's sum as it is); kept: vmin <= value <= vmax.
    const KeptLaneSumsFunction sumKept = keptLaneSums();
    auto keptSums = [&](double origin, double vmin, double vmax, LaneSums& k1, LaneSums& k2) {
        double a1[kLanes] = {}, a2[kLanes] = {};
        const std::size_t full = n / kLanes * kLanes;
        sumKept(values, full, origin, vmin, vmax, a1, a2);
        keptLaneSumsScalar(values + full, n - full, origin, vmin, vmax, a1, a2);
        std::copy(a1, a1 + kLanes, k1.p);
        std::copy(a2, a2 + kLanes, k2.p);
    };
    // The plain sums (every value kept).
    constexpr double kInf = std::numeric_limits<double>::infinity();
    LaneSums s, ss;
    keptSums(shift, -kInf, kInf, s, ss);
    double mean = 0.0, sigma = 0.0;
    meanSigma(shift, s.total(), ss.total(), static_cast<double>(n), mean, sigma);
    if (!(sigma > 0.0)) return finish(n, mean, mean, 0.0);

    ClippingScratch local;
    ClippingScratch& sc = scratch ? *scratch : local;
    sc.slot.resize(n);
    sc.order.resize(n);
    sc.count.resize(kBins + 2); // count, start and part are written in full by every histogram below
    sc.start.resize(kBins + 3);
    sc.part.resize(kParts * (kBins + 2));
    std::int16_t* slot = sc.slot.data();               // each value's bin: -1 below the histogram, kBins above
    std::int64_t* count = sc.count.data() + 1;         // count[-1 .. kBins]
    std::int64_t* start = sc.start.data() + 1;         // where each bin's values begin in order (start[kBins + 1] = n)
    std::int32_t* order = sc.order.data();             // the values' indices by bin, increasing k in a bin
    // The values in kParts runs of k (the last takes the rest): each run's counts, then its cursors in order.
    const std::size_t run = n / kParts;
    auto part = [&](int r) { return sc.part.data() + static_cast<std::size_t>(r) * (kBins + 2) + 1; };
    // A bin's smallest and largest value (from its values in order).
    auto binLow = [&](int b) {
        double m = kInf;
        for (std::int64_t r = start[b]; r < start[b] + count[b]; ++r) m = std::min(m, values[order[r]]);
        return m;
    };
    auto binHigh = [&](int b) {
        double m = -kInf;
        for (std::int64_t r = start[b]; r < start[b] + count[b]; ++r) m = std::max(m, values[order[r]]);
        return m;
    };
    double centre = mean, width = sigma;
    std::size_t kept = n;
    double median = mean;
    // The clipping interval as bin indices; the first pass of the first histogram keeps everything (the
    // values outside the histogram included).
    int b0 = 0, b1 = kBins - 1;
    bool all = true;
    // The kept bins as a range of values: the bins are monotonic in the value, so they hold the values from the
    // smallest of the first nonempty kept bin to the largest of the last (a test the compiler vectorises);
    // everything while all are kept. Some kept bin is nonempty.
    auto keptRange = [&](double& vmin, double& vmax) {
        vmin = -kInf;
        vmax = kInf;
        if (all) return;
        int f = b0, g = b1;
        while (count[f] == 0) ++f;
        while (count[g] == 0) --g;
        vmin = binLow(f);
        vmax = binHigh(g);
    };
    int iterations = 0;
    double lo = 0.0, binWidth = 1.0;
    int medianBin = -1, medianNext = -1; // bins holding a single value that give the median (-1: none)
    for (int rebuild = 0; rebuild <= kRebuilds; ++rebuild) {
        histogramGeometry(centre, width, lo, binWidth);
        binSlots(values, n, lo, binWidth, slot);
        // The counts run by run, the runs interleaved (kParts independent chains of increments).
        std::fill(sc.part.begin(), sc.part.end(), 0);
        for (std::size_t i = 0; i < run; ++i)
            for (int r = 0; r < kParts; ++r) ++part(r)[slot[r * run + i]];
        for (std::size_t k = kParts * run; k < n; ++k) ++part(kParts - 1)[slot[k]];
        // Each bin's values in increasing k (a stable counting sort): the median bins' sums read only theirs.
        // A run's values of a bin follow the earlier runs' values of it.
        std::int64_t at = 0;
        for (int b = -1; b <= kBins; ++b) {
            start[b] = at;
            count[b] = 0;
            for (int r = 0; r < kParts; ++r) {
                const std::int32_t c = part(r)[b];
                part(r)[b] = static_cast<std::int32_t>(at);
                at += c;
                count[b] += c;
            }
        }
        start[kBins + 1] = at;
        for (std::size_t i = 0; i < run; ++i)
            for (int r = 0; r < kParts; ++r) {
                const std::size_t k = r * run + i;
                order[part(r)[slot[k]]++] = static_cast<std::int32_t>(k);
            }
        for (std::size_t k = kParts * run; k < n; ++k) order[part(kParts - 1)[slot[k]]++] = static_cast<std::int32_t>(k);
        if (rebuild > 0) { // the interval found so far, in the new bins
            clipBins(median, sigma, clipSigma, lo, binWidth, b0, b1);
            all = false;
        }
        for (; iterations < maxIterations; ++iterations) {
            // The kept count and the median's bin from the counts alone (exact integers; start[] is their
            // running sum, so the values below bin b among the kept are base + start[b]).
            const std::int64_t c = (all ? count[-1] + count[kBins] : 0) + start[b1 + 1] - start[b0];
            if (c == 0) break;
            const double rank = 0.5 * static_cast<double>(c);
            const std::int64_t base = (all ? count[-1] : 0) - start[b0];
            std::int64_t below = base + start[b0];
            int mb = -2, q = -2; // the median's bin; the next nonempty kept bin when the rank ends at mb's end (-2: none)
            if (static_cast<double>(below) < rank) {
                // the first kept bin whose end reaches the rank (the ends never decrease)
                int f = b0, g = b1 + 1;
                while (f < g) {
                    const int mid = (f + g) / 2;
                    if (static_cast<double>(base + start[mid + 1]) >= rank) g = mid;
                    else f = mid + 1;
                }
                if (f <= b1) {
                    mb = f;
                    below = base + start[mb];
                }
                if (mb >= 0 && !(rank - static_cast<double>(below) < static_cast<double>(count[mb])))
                    for (int b = mb + 1; b <= b1; ++b)
                        if (count[b] > 0) {
                            q = b;
                            break;
                        }
            }
            // The kept values' sums (d = value - centre) in lane order.
            double vmin = 0.0, vmax = 0.0;
            keptRange(vmin, vmax);
            LaneSums k1, k2;
            keptSums(centre, vmin, vmax, k1, k2);
            // Bins mb's and q's sums in the same lane order, from their values alone (in increasing k: the
            // others would add +0.0).
            auto binSums = [&](int b, LaneSums& s1, LaneSums& s2) {
                if (b < 0) return;
                for (std::int64_t r = start[b]; r < start[b] + count[b]; ++r) {
                    const std::size_t k = static_cast<std::size_t>(order[r]);
                    const double d = bgSub(values[k], centre);
                    s1.p[k % kLanes] = bgAdd(s1.p[k % kLanes], d);
                    s2.p[k % kLanes] = bgAdd(s2.p[k % kLanes], bgMul(d, d));
                }
            };
            LaneSums m1, m2, q1, q2;
            binSums(mb, m1, m2);
            binSums(q, q1, q2);
            kept = static_cast<std::size_t>(c);
            const double dc = static_cast<double>(c);
            const double sum = k1.total(), sq = k2.total();
            mean = bgAdd(centre, bgDiv(sum, dc));
            sigma = bgSqrt(bgPositive(bgSub(bgDiv(sq, dc), bgMul(bgDiv(sum, dc), bgDiv(sum, dc)))));
            // The median, interpolated inside its bin (values outside the histogram sit at its ends); a bin
            // that holds one value only gives that value (medianOfBin).
            medianBin = medianNext = -1;
            if (!(static_cast<double>(all ? count[-1] : 0) < rank)) median = lo;
            else if (mb < 0) median = bgAdd(lo, bgMul(2.0 * kSpan, width));
            else
                median = medianOfBin(centre, lo, binWidth, mb, static_cast<double>(count[mb]), m1.total(), m2.total(),
                                     bgSub(rank, static_cast<double>(below)), q, q >= 0 ? static_cast<double>(count[q]) : 0.0,
                                     q1.total(), q2.total(), medianBin, medianNext);
            int n0 = 0, n1 = 0;
            clipBins(median, sigma, clipSigma, lo, binWidth, n0, n1);
            if (!all && n0 == b0 && n1 == b1) break; // converged
            b0 = n0;
            b1 = n1;
            all = false;
        }
        // Bins much wider than sigma blur the clipping: histogram the values again around the new estimate.
        if (!(sigma > 0.0) || bgMul(sigma, 16.0) > width || iterations >= maxIterations) break;
        centre = median;
        width = sigma;
    }
    // The kept values once more, exactly (shifted by the first one): a constant cell gives its value bit for
    // bit, and a median in a single-valued bin that value (the first kept value of that bin).
    std::int64_t c = all ? count[-1] + count[kBins] : 0;
    for (int b = b0; b <= b1; ++b) c += count[b];
    if (c > 0) {
        double vmin = 0.0, vmax = 0.0;
        keptRange(vmin, vmax);
        std::size_t firstKept = 0;
        while (!(values[firstKept] >= vmin && values[firstKept] <= vmax)) ++firstKept;
        const double keptShift = values[firstKept];
        LaneSums k1, k2;
        keptSums(keptShift, vmin, vmax, k1, k2);
        kept = static_cast<std::size_t>(c);
        meanSigma(keptShift, k1.total(), k2.total(), static_cast<double>(c), mean, sigma);
        auto firstOf = [&](int b, double& v) {
            if (b < 0 || !(all || (b >= b0 && b <= b1)) || count[b] == 0) return false;
            v = values[order[start[b]]];
            return true;
        };
        double first = 0.0, next = 0.0;
        if (firstOf(medianBin, first)) median = medianNext >= 0 && firstOf(medianNext, next) ? halfSum(first, next) : first;
    }
    return finish(kept, mean, median, sigma);
}

ClippedStats clippedStatsExact(std::vector<double> values, double clipSigma, int maxIterations) {
    if (values.empty()) return {};
    std::sort(values.begin(), values.end());
    std::size_t lo = 0, hi = values.size(); // the kept values: [lo, hi)
    double mean = 0.0, median = 0.0, sigma = 0.0;
    for (int it = 0;; ++it) {
        const std::size_t n = hi - lo;
        long double s = 0.0L;
        for (std::size_t i = lo; i < hi; ++i) s += values[i];
        mean = static_cast<double>(s / n);
        long double ss = 0.0L;
        for (std::size_t i = lo; i < hi; ++i) ss += (values[i] - mean) * (values[i] - mean);
        sigma = std::sqrt(static_cast<double>(ss / n));
        median = n % 2 ? values[lo + n / 2] : 0.5 * (values[lo + n / 2 - 1] + values[lo + n / 2]);
        if (it >= maxIterations || !(sigma > 0.0)) break;
        const auto a = std::lower_bound(values.begin(), values.end(), median - clipSigma * sigma);
        const auto b = std::upper_bound(values.begin(), values.end(), median + clipSigma * sigma);
        const std::size_t nlo = static_cast<std::size_t>(a - values.begin()), nhi = static_cast<std::size_t>(b - values.begin());
        if (nlo >= nhi || (nlo == lo && nhi == hi)) break;
        lo = nlo;
        hi = nhi;
    }
    return finish(hi - lo, mean, median, sigma);
}

} // namespace glint
