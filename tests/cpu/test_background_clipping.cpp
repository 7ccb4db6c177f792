// The background model's histogram sigma clipping (core/algo/sources/Background, BackgroundMath): against
// the exact (sorted) oracle on random inputs, its edge cases (constant and empty input, the mode estimate),
// against its former plain code bit for bit, and its vector variants against the scalar ones.
#include "tests/support/TestSupport.h"

#include "core/algo/sources/Background.h"
#include "core/algo/sources/BackgroundMath.h"

#include <QtTest>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

using namespace glint;
using namespace glint::test;

namespace {

// The histogram clipping as it was before its passes were vectorised and its bin scans replaced (79f0dd7):
// plain loops, a value at a time. clippedStatsHistogram (and the device, which repeats it) must give its bits.
namespace former {

using bgmath::kBins;
using bgmath::kLanes;

ClippedStats finish(std::size_t count, double mean, double median, double sigma) {
    ClippedStats s;
    s.count = count;
    s.mean = mean;
    s.median = median;
    s.sigma = sigma;
    s.mode = bgmath::modeOf(mean, median, sigma);
    return s;
}

struct LaneSums {
    double p[kLanes] = {};
    double total() {
        double q[kLanes];
        std::copy(p, p + kLanes, q);
        return bgmath::laneTreeSum(q);
    }
};

ClippedStats formerClipping(const double* values, std::size_t n, double clipSigma, int maxIterations) {
    using namespace bgmath;
    if (n == 0) return {};
    // The plain mean and sigma (shifted by the first value for accuracy).
    const double shift = values[0];
    LaneSums s, ss;
    for (std::size_t k0 = 0; k0 < n; k0 += kLanes) {
        const std::size_t m = std::min<std::size_t>(kLanes, n - k0);
        for (std::size_t l = 0; l < m; ++l) {
            const double d = bgSub(values[k0 + l], shift);
            s.p[l] = bgAdd(s.p[l], d);
            ss.p[l] = bgAdd(ss.p[l], bgMul(d, d));
        }
    }
    double mean = 0.0, sigma = 0.0;
    meanSigma(shift, s.total(), ss.total(), static_cast<double>(n), mean, sigma);
    if (!(sigma > 0.0)) return finish(n, mean, mean, 0.0);

    struct {
        std::vector<std::int16_t> slot;
        std::vector<std::int32_t> order;
        std::vector<std::int64_t> count, start, next;
        std::vector<double> binMin, binMax;
    } sc;
    sc.slot.resize(n);
    sc.order.resize(n);
    sc.count.assign(kBins + 2, 0);
    sc.start.assign(kBins + 2, 0);
    sc.next.assign(kBins + 2, 0);
    std::int16_t* slot = sc.slot.data();               // each value's bin: -1 below the histogram, kBins above
    std::int64_t* count = sc.count.data() + 1;         // count[-1 .. kBins]
    std::int64_t* start = sc.start.data() + 1;         // where each bin's values begin in order
    std::int32_t* order = sc.order.data();             // the values' indices by bin, increasing k in a bin
    sc.binMin.resize(kBins + 2);
    sc.binMax.resize(kBins + 2);
    double* binMin = sc.binMin.data() + 1;             // each bin's smallest and largest value
    double* binMax = sc.binMax.data() + 1;
    // The kept values' sums of d = value - origin and d^2 in lane order (a value left out adds +0.0, which leaves
    // a lane's sum as it is); kept: vmin <= value <= vmax.
    auto keptSums = [&](double origin, double vmin, double vmax, LaneSums& k1, LaneSums& k2) {
        double a1[kLanes] = {}, a2[kLanes] = {};
        std::size_t k0 = 0;
        for (; k0 + kLanes <= n; k0 += kLanes)
            for (int l = 0; l < kLanes; ++l) {
                const double v = values[k0 + l], d = bgSub(v, origin);
                const bool in = (v >= vmin) & (v <= vmax);
                a1[l] = bgAdd(a1[l], in ? d : 0.0);
                a2[l] = bgAdd(a2[l], in ? bgMul(d, d) : 0.0);
            }
        for (std::size_t l = 0; k0 + l < n; ++l) {
            const double v = values[k0 + l], d = bgSub(v, origin);
            const bool in = (v >= vmin) & (v <= vmax);
            a1[l] = bgAdd(a1[l], in ? d : 0.0);
            a2[l] = bgAdd(a2[l], in ? bgMul(d, d) : 0.0);
        }
        std::copy(a1, a1 + kLanes, k1.p);
        std::copy(a2, a2 + kLanes, k2.p);
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
        vmin = -std::numeric_limits<double>::infinity();
        vmax = std::numeric_limits<double>::infinity();
        if (all) return;
        int f = b0, g = b1;
        while (count[f] == 0) ++f;
        while (count[g] == 0) --g;
        vmin = binMin[f];
        vmax = binMax[g];
    };
    int iterations = 0;
    double lo = 0.0, binWidth = 1.0;
    int medianBin = -1, medianNext = -1; // bins holding a single value that give the median (-1: none)
    for (int rebuild = 0; rebuild <= kRebuilds; ++rebuild) {
        histogramGeometry(centre, width, lo, binWidth);
        std::fill(sc.count.begin(), sc.count.end(), 0);
        std::fill(sc.binMin.begin(), sc.binMin.end(), std::numeric_limits<double>::infinity());
        std::fill(sc.binMax.begin(), sc.binMax.end(), -std::numeric_limits<double>::infinity());
        for (std::size_t k = 0; k < n; ++k) {
            const int b = binOf(values[k], lo, binWidth);
            slot[k] = static_cast<std::int16_t>(b);
            ++count[b];
            binMin[b] = std::min(binMin[b], values[k]);
            binMax[b] = std::max(binMax[b], values[k]);
        }
        // Each bin's values in increasing k (a stable counting sort): the median bins' sums read only theirs.
        for (int b = -1, at = 0; b <= kBins; ++b) {
            start[b] = at;
            at += static_cast<int>(count[b]);
        }
        {
            std::int64_t* next = sc.next.data() + 1;
            std::copy(start - 1, start + kBins + 1, next - 1);
            for (std::size_t k = 0; k < n; ++k) order[next[slot[k]]++] = static_cast<std::int32_t>(k);
        }
        if (rebuild > 0) { // the interval found so far, in the new bins
            clipBins(median, sigma, clipSigma, lo, binWidth, b0, b1);
            all = false;
        }
        for (; iterations < maxIterations; ++iterations) {
            // The kept count and the median's bin from the counts alone (exact integers).
            std::int64_t c = all ? count[-1] + count[kBins] : 0;
            for (int b = b0; b <= b1; ++b) c += count[b];
            if (c == 0) break;
            const double rank = 0.5 * static_cast<double>(c);
            std::int64_t below = all ? count[-1] : 0;
            int mb = -2, q = -2; // the median's bin; the next nonempty kept bin when the rank ends at mb's end (-2: none)
            if (static_cast<double>(below) < rank) {
                for (int b = b0; b <= b1; ++b) {
                    if (static_cast<double>(below + count[b]) >= rank) {
                        mb = b;
                        break;
                    }
                    below += count[b];
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

} // namespace former

} // namespace

class TestBackgroundClipping : public QObject {
    Q_OBJECT
private slots:
    void clippingMatchesExactOracle() {
        std::mt19937 rng(7);
        for (int trial = 0; trial < 300; ++trial) {
            const int n = std::uniform_int_distribution<int>(5, 5000)(rng);
            const double sigma = std::uniform_real_distribution<double>(0.5, 50)(rng);
            const double centre = std::uniform_real_distribution<double>(-1000, 1000)(rng);
            const double outliers = std::uniform_real_distribution<double>(0, 0.3)(rng);
            const bool integer = trial % 3 == 0;
            std::normal_distribution<double> g(centre, sigma);
            std::exponential_distribution<double> tail(1.0 / (20 * sigma));
            std::uniform_real_distribution<double> u(0, 1);
            std::vector<double> v(static_cast<std::size_t>(n));
            for (double& x : v) {
                x = g(rng) + (u(rng) < outliers ? tail(rng) : 0.0);
                if (integer) x = std::round(x);
            }
            const ClippedStats h = clippedStatsHistogram(v.data(), v.size(), 3.0, 30);
            const ClippedStats e = clippedStatsExact(v, 3.0, 30);
            QVERIFY(h.valid() && e.valid());
            // Bins of 0.01 sigma (or finer after a rebuild): the estimates agree to a small fraction of sigma.
            const double tol = 0.05 * e.sigma + (integer ? 0.5 : 1e-9);
            QVERIFY2(std::fabs(h.median - e.median) <= tol,
                     qPrintable(QString("trial %1: median %2 vs %3, sigma %4 vs %5, n %6 vs %7 of %8").arg(trial).arg(h.median).arg(e.median).arg(h.sigma).arg(e.sigma).arg(h.count).arg(e.count).arg(n)));
            QVERIFY2(std::fabs(h.mean - e.mean) <= tol, qPrintable(QString("trial %1: mean").arg(trial)));
            QVERIFY2(std::fabs(h.sigma - e.sigma) <= 0.05 * e.sigma + (integer ? 0.3 : 1e-9),
                     qPrintable(QString("trial %1: sigma %2 vs %3").arg(trial).arg(h.sigma).arg(e.sigma)));
        }
    }

    void clippingEdgeCases() {
        const std::vector<double> same(100, 42.0);
        const ClippedStats c = clippedStatsHistogram(same.data(), same.size(), 3.0, 30);
        QCOMPARE(c.count, std::size_t(100));
        QCOMPARE(c.mode, 42.0);
        QCOMPARE(c.sigma, 0.0);
        QVERIFY(!clippedStatsHistogram(nullptr, 0, 3.0, 30).valid());
        // Symmetric noise: the mode estimate is 2.5 median - 1.5 mean; a skewed cell falls back to the median.
        std::mt19937 rng(3);
        std::normal_distribution<double> g(100, 10);
        std::vector<double> v(4000);
        for (double& x : v) x = g(rng);
        const ClippedStats s = clippedStatsHistogram(v.data(), v.size(), 3.0, 30);
        QVERIFY(std::fabs(s.mode - (2.5 * s.median - 1.5 * s.mean)) < 1e-9);
        QVERIFY(std::fabs(s.mode - 100) < 1.5);
        QVERIFY(std::fabs(s.sigma - 10) < 0.8);
    }

    void clippingMatchesTheFormerCodeBitForBit() {
        // Gaussian sky, sources, integer ties, constants, signed zeros, heavy tails, a large offset, a few
        // distinct values; 1..5000 values; clip 2.5 and 3, 3 and 30 iterations.
        std::mt19937_64 rng(7);
        std::uniform_real_distribution<double> u(0, 1);
        ClippingScratch scratch;
        for (int trial = 0; trial < 1600; ++trial) {
            const int kind = trial % 8;
            const std::size_t n = 1 + rng() % (trial % 3 == 0 ? 5000 : 300);
            std::normal_distribution<double> g(100.0, 5.0);
            std::vector<double> v(n);
            for (double& x : v) {
                switch (kind) {
                case 0: x = g(rng); break;
                case 1: x = u(rng) < 0.3 ? g(rng) + 200 * u(rng) : g(rng); break;
                case 2: x = std::round(g(rng)); break;
                case 3: x = 42.0; break;
                case 4: x = u(rng) < 0.5 ? 0.0 : (u(rng) < 0.5 ? -0.0 : 1.0); break;
                case 5: x = std::exp(3 * g(rng) / 100.0) * (u(rng) < 0.05 ? 1e6 : 1); break;
                case 6: x = std::round(u(rng) * 3); break;
                default: x = 1e9 + g(rng) * 1e-3; break;
                }
            }
            for (const double k : {3.0, 2.5})
                for (const int iterations : {30, 3}) {
                    const ClippedStats a = clippedStatsHistogram(v.data(), n, k, iterations, &scratch);
                    const ClippedStats b = former::formerClipping(v.data(), n, k, iterations);
                    const bool same = a.count == b.count && std::memcmp(&a.mean, &b.mean, 8) == 0 &&
                                      std::memcmp(&a.median, &b.median, 8) == 0 && std::memcmp(&a.sigma, &b.sigma, 8) == 0 &&
                                      std::memcmp(&a.mode, &b.mode, 8) == 0;
                    QVERIFY2(same, qPrintable(QString("trial %1 (kind %2, n %3, k %4, %5 iterations): median %6 vs %7, "
                                                      "sigma %8 vs %9, kept %10 vs %11")
                                                  .arg(trial).arg(kind).arg(n).arg(k).arg(iterations)
                                                  .arg(a.median, 0, 'g', 17).arg(b.median, 0, 'g', 17)
                                                  .arg(a.sigma, 0, 'g', 17).arg(b.sigma, 0, 'g', 17).arg(a.count).arg(b.count)));
                }
        }
    }

    void vectorVariantsGiveTheScalarBits() {
        // The clipping's kept sums and its bins: every variant this CPU runs against the scalar one, bit for
        // bit, on values at and next to the bounds and bin edges, signed zeros, huge and tiny values, lengths
        // around the vector widths.
        std::mt19937_64 rng(5);
        std::uniform_real_distribution<double> u(0.0, 1.0);
        int compared = 0;
        for (int trial = 0; trial < 400; ++trial) {
            const std::size_t n = 32 * std::uniform_int_distribution<std::size_t>(0, 40)(rng);
            const double centre = std::uniform_real_distribution<double>(-1e4, 1e4)(rng);
            const double sigma = std::pow(10.0, std::uniform_real_distribution<double>(-6, 4)(rng));
            const double lo = centre - 5 * sigma, binWidth = 10 * sigma / 1024;
            const double vmin = centre - 2 * sigma, vmax = centre + 2 * sigma;
            std::vector<double> v(n + 3);
            for (double& x : v) {
                const double r = u(rng);
                if (r < 0.1) x = r < 0.05 ? 0.0 : -0.0;
                else if (r < 0.2) x = r < 0.15 ? vmin : vmax;
                else if (r < 0.3) x = lo + std::floor(u(rng) * 1030 - 3) * binWidth; // on a bin edge
                else if (r < 0.35) x = (r < 0.325 ? -1 : 1) * 1e300;
                else if (r < 0.4) x = std::nextafter(r < 0.375 ? vmin : vmax, centre + (u(rng) - 0.5) * 1e9);
                else x = centre + sigma * 12 * (u(rng) - 0.5);
            }
            const double origin = trial % 5 == 0 ? 0.0 : v[0];
            std::array<double, 32> s1{}, s2{}, r1{}, r2{};
            keptLaneSumsVariant("scalar")(v.data(), n, origin, vmin, vmax, s1.data(), s2.data());
            std::vector<std::int16_t> want(n + 3), got(n + 3);
            binSlotsVariant("scalar")(v.data(), n + 3, lo, binWidth, want.data());
            for (const char* name : {"sse2", "avx2", "avx512"}) {
                if (const KeptLaneSumsFunction f = keptLaneSumsVariant(name)) {
                    r1.fill(0.0);
                    r2.fill(0.0);
                    f(v.data(), n, origin, vmin, vmax, r1.data(), r2.data());
                    QVERIFY2(std::memcmp(r1.data(), s1.data(), sizeof r1) == 0 && std::memcmp(r2.data(), s2.data(), sizeof r2) == 0,
                             qPrintable(QString("kept sums, %1, trial %2").arg(name).arg(trial)));
                    ++compared;
                }
                if (const BinSlotsFunction f = binSlotsVariant(name)) {
                    std::fill(got.begin(), got.end(), std::int16_t(7777));
                    f(v.data(), n + 3, lo, binWidth, got.data());
                    QVERIFY2(got == want, qPrintable(QString("bins, %1, trial %2").arg(name).arg(trial)));
                    ++compared;
                }
            }
        }
#if defined(__SSE2__)
        QVERIFY(compared > 0); // SSE2 is x86-64's baseline: its variant at least was compared
#endif
    }
};

QTEST_GUILESS_MAIN(TestBackgroundClipping)
#include "test_background_clipping.moc"
