#include "core/algo/sources/Background.h"

#include "core/algo/sources/BackgroundMath.h"

#include "core/io/Image.h"
#include "core/util/CpuFeatures.h"
#include "core/util/Errors.h"
#include "core/util/Parallel.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#if defined(__SSE2__)
#include <immintrin.h>
#endif
#include <stdexcept>
#include <string>
#include <type_traits>

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

// keptLaneSumsVariant's sums (Background.h), adding to a1 and a2 (value k in lane k % kLanes): the scalar form
// also takes any n (clippedStatsHistogram adds a tail of fewer than kLanes values with it). The vector forms keep
// a group of lanes' sums in registers and pass over the values once a group (all 32 lanes' two sums are 64
// doubles: more than SSE2's or AVX2's registers hold); they select with an AND of the comparison's mask (d or
// +0.0), and no product feeds an add directly, so nothing can be contracted to an FMA.
void keptLaneSumsScalar(const double* values, std::size_t n, double origin, double vmin, double vmax, double* a1,
                        double* a2) {
    for (std::size_t k = 0; k < n; ++k) {
        const double v = values[k], d = bgmath::bgSub(v, origin);
        const bool in = (v >= vmin) & (v <= vmax);
        a1[k % kLanes] = bgmath::bgAdd(a1[k % kLanes], in ? d : 0.0);
        a2[k % kLanes] = bgmath::bgAdd(a2[k % kLanes], in ? bgmath::bgMul(d, d) : 0.0);
    }
}

#if defined(__SSE2__)
void keptLaneSumsSse2(const double* values, std::size_t n, double origin, double vmin, double vmax, double* a1,
                      double* a2) {
    constexpr int G = 8; // lanes a pass: 4 + 4 registers of sums
    const __m128d lo = _mm_set1_pd(vmin), hi = _mm_set1_pd(vmax), o = _mm_set1_pd(origin);
    for (int g = 0; g < kLanes; g += G) {
        __m128d s1[G / 2], s2[G / 2];
        for (int j = 0; j < G / 2; ++j) s1[j] = s2[j] = _mm_setzero_pd();
        for (std::size_t k0 = 0; k0 < n; k0 += kLanes)
            for (int j = 0; j < G / 2; ++j) {
                const __m128d v = _mm_loadu_pd(values + k0 + g + 2 * j), d = _mm_sub_pd(v, o);
                const __m128d in = _mm_and_pd(_mm_cmpge_pd(v, lo), _mm_cmple_pd(v, hi));
                s1[j] = _mm_add_pd(s1[j], _mm_and_pd(in, d));
                s2[j] = _mm_add_pd(s2[j], _mm_and_pd(in, _mm_mul_pd(d, d)));
            }
        for (int j = 0; j < G / 2; ++j) {
            _mm_storeu_pd(a1 + g + 2 * j, s1[j]);
            _mm_storeu_pd(a2 + g + 2 * j, s2[j]);
        }
    }
}

__attribute__((target("avx2"))) void keptLaneSumsAvx2(const double* values, std::size_t n, double origin,
                                                      double vmin, double vmax, double* a1, double* a2) {
    constexpr int G = 16; // lanes a pass: 4 + 4 registers of sums
    const __m256d lo = _mm256_set1_pd(vmin), hi = _mm256_set1_pd(vmax), o = _mm256_set1_pd(origin);
    for (int g = 0; g < kLanes; g += G) {
        __m256d s1[G / 4], s2[G / 4];
        for (int j = 0; j < G / 4; ++j) s1[j] = s2[j] = _mm256_setzero_pd();
        for (std::size_t k0 = 0; k0 < n; k0 += kLanes)
            for (int j = 0; j < G / 4; ++j) {
                const __m256d v = _mm256_loadu_pd(values + k0 + g + 4 * j), d = _mm256_sub_pd(v, o);
                const __m256d in = _mm256_and_pd(_mm256_cmp_pd(v, lo, _CMP_GE_OQ), _mm256_cmp_pd(v, hi, _CMP_LE_OQ));
                s1[j] = _mm256_add_pd(s1[j], _mm256_and_pd(in, d));
                s2[j] = _mm256_add_pd(s2[j], _mm256_and_pd(in, _mm256_mul_pd(d, d)));
            }
        for (int j = 0; j < G / 4; ++j) {
            _mm256_storeu_pd(a1 + g + 4 * j, s1[j]);
            _mm256_storeu_pd(a2 + g + 4 * j, s2[j]);
        }
    }
}

__attribute__((target("avx512f,avx512dq"))) void keptLaneSumsAvx512(const double* values, std::size_t n,
                                                                     double origin, double vmin, double vmax,
                                                                     double* a1, double* a2) {
    // all 32 lanes in one pass: 4 + 4 registers of sums
    const __m512d lo = _mm512_set1_pd(vmin), hi = _mm512_set1_pd(vmax), o = _mm512_set1_pd(origin);
    __m512d s1[kLanes / 8], s2[kLanes / 8];
    for (int j = 0; j < kLanes / 8; ++j) s1[j] = s2[j] = _mm512_setzero_pd();
    for (std::size_t k0 = 0; k0 < n; k0 += kLanes)
        for (int j = 0; j < kLanes / 8; ++j) {
            const __m512d v = _mm512_loadu_pd(values + k0 + 8 * j), d = _mm512_sub_pd(v, o);
            const __mmask8 in = _mm512_cmp_pd_mask(v, lo, _CMP_GE_OQ) & _mm512_cmp_pd_mask(v, hi, _CMP_LE_OQ);
            s1[j] = _mm512_add_pd(s1[j], _mm512_maskz_mov_pd(in, d));
            s2[j] = _mm512_add_pd(s2[j], _mm512_maskz_mov_pd(in, _mm512_mul_pd(d, d)));
        }
    for (int j = 0; j < kLanes / 8; ++j) {
        _mm512_storeu_pd(a1 + 8 * j, s1[j]);
        _mm512_storeu_pd(a2 + 8 * j, s2[j]);
    }
}
#endif

// Every value's bin (binOf) into slot. The vector variants compute f = (value - lo) / binWidth the same way;
// AVX2 takes floor(f) clamped to -1..kBins (binOf's answer when f is not NaN, which binWidth > 0 ensures: for
// 0 <= f < kBins floor is the truncation binOf takes), AVX-512 binOf's truncation and selects.
void binSlotsScalar(const double* values, std::size_t n, double lo, double binWidth, std::int16_t* slot) {
    for (std::size_t k = 0; k < n; ++k) slot[k] = static_cast<std::int16_t>(bgmath::binOf(values[k], lo, binWidth));
}

#if defined(__SSE2__)
__attribute__((target("avx2"))) void binSlotsAvx2(const double* values, std::size_t n, double lo, double binWidth,
                                                  std::int16_t* slot) {
    const __m256d l = _mm256_set1_pd(lo), w = _mm256_set1_pd(binWidth), below = _mm256_set1_pd(-1.0),
                  above = _mm256_set1_pd(static_cast<double>(kBins));
    std::size_t k = 0;
    for (; k + 8 <= n; k += 8) {
        __m128i b[2];
        for (int h = 0; h < 2; ++h) {
            const __m256d f = _mm256_div_pd(_mm256_sub_pd(_mm256_loadu_pd(values + k + 4 * h), l), w);
            b[h] = _mm256_cvttpd_epi32(_mm256_min_pd(_mm256_max_pd(_mm256_floor_pd(f), below), above));
        }
        _mm_storeu_si128(reinterpret_cast<__m128i*>(slot + k), _mm_packs_epi32(b[0], b[1]));
    }
    binSlotsScalar(values + k, n - k, lo, binWidth, slot + k);
}

__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl"))) void binSlotsAvx512(const double* values,
                                                                                  std::size_t n, double lo,
                                                                                  double binWidth,
                                                                                  std::int16_t* slot) {
    const __m512d l = _mm512_set1_pd(lo), w = _mm512_set1_pd(binWidth), zero = _mm512_setzero_pd(),
                  top = _mm512_set1_pd(static_cast<double>(kBins));
    const __m256i below = _mm256_set1_epi32(-1), above = _mm256_set1_epi32(kBins);
    std::size_t k = 0;
    for (; k + 8 <= n; k += 8) {
        // (the maskz forms: GCC 12 warns on the plain ones)
        const __m512d f = _mm512_div_pd(_mm512_sub_pd(_mm512_loadu_pd(values + k), l), w);
        __m256i b = _mm512_maskz_cvttpd_epi32(0xff, f);
        b = _mm256_mask_mov_epi32(b, _mm512_cmp_pd_mask(f, zero, _CMP_LT_OQ), below);
        b = _mm256_mask_mov_epi32(b, _mm512_cmp_pd_mask(f, top, _CMP_GE_OQ), above);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(slot + k), _mm256_maskz_cvtepi32_epi16(0xff, b));
    }
    binSlotsScalar(values + k, n - k, lo, binWidth, slot + k);
}
#endif

// The variants from the widest down, or from GLINT_CLIP_KERNEL's (avx2, sse2 or scalar: to time the narrower
// ones on a wider CPU).
std::vector<std::string_view> clipKernels() {
    const char* force = std::getenv("GLINT_CLIP_KERNEL");
    const std::string_view forced = force ? force : "";
    std::vector<std::string_view> names{"avx512", "avx2", "sse2", "scalar"};
    const auto at = std::find(names.begin(), names.end(), forced);
    if (at != names.end()) names.erase(names.begin(), at);
    return names;
}

// The widest variant the CPU runs (chosen once) when binWidth > 0, else the scalar one.
void binSlots(const double* values, std::size_t n, double lo, double binWidth, std::int16_t* slot) {
    static const BinSlotsFunction widest = [] {
        for (std::string_view name : clipKernels())
            if (BinSlotsFunction g = binSlotsVariant(name)) return g;
        return &binSlotsScalar;
    }();
    (binWidth > 0.0 ? widest : &binSlotsScalar)(values, n, lo, binWidth, slot);
}

constexpr int kParts = 4; // runs of the values the counting sort interleaves

// The widest variant the CPU runs, chosen once.
KeptLaneSumsFunction keptLaneSums() {
    static const KeptLaneSumsFunction f = [] {
        for (std::string_view name : clipKernels())
            if (KeptLaneSumsFunction g = keptLaneSumsVariant(name)) return g;
        return &keptLaneSumsScalar;
    }();
    return f;
}

} // namespace

BinSlotsFunction binSlotsVariant(std::string_view name) {
    if (name == "scalar") return &binSlotsScalar;
#if defined(__SSE2__)
    if (name == "avx2" && cpuHasAvx2()) return &binSlotsAvx2;
    if (name == "avx512" && cpuHasAvx512()) return &binSlotsAvx512;
#endif
    return nullptr;
}

KeptLaneSumsFunction keptLaneSumsVariant(std::string_view name) {
    if (name == "scalar") return &keptLaneSumsScalar;
#if defined(__SSE2__)
    if (name == "sse2") return &keptLaneSumsSse2;
    if (name == "avx2" && cpuHasAvx2()) return &keptLaneSumsAvx2;
    if (name == "avx512" && cpuHasAvx512()) return &keptLaneSumsAvx512;
#endif
    return nullptr;
}

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

namespace {

double medianOf(std::vector<double>& v) {
    const std::size_t n = v.size();
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(n / 2), v.end());
    const double hi = v[n / 2];
    if (n % 2) return hi;
    return 0.5 * (hi + *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(n / 2)));
}

std::vector<double> medianFiltered(const std::vector<double>& grid, int nx, int ny, int size) {
    if (size <= 1) return grid;
    const int h = size / 2;
    // The grid padded by h cells on every side, extended linearly from the edge cells (first along x, then
    // along y): a plane stays a plane, so the filter keeps a gradient's value at the border (padding with
    // the edge cells biases the border cells of a two-way gradient by a cell's step).
    const int px = nx + 2 * h, py = ny + 2 * h;
    std::vector<double> pad(static_cast<std::size_t>(px) * py);
    auto at = [&](int i, int j) -> double& { return pad[static_cast<std::size_t>(j + h) * px + (i + h)]; };
    auto extend = [](double edge, double inner, int steps) { return edge + (edge - inner) * steps; };
    for (int j = 0; j < ny; ++j)
        for (int i = -h; i < nx + h; ++i) {
            const double* row = grid.data() + static_cast<std::size_t>(j) * nx;
            if (i >= 0 && i < nx) at(i, j) = row[i];
            else if (nx == 1) at(i, j) = row[0];
            else if (i < 0) at(i, j) = extend(row[0], row[1], -i);
            else at(i, j) = extend(row[nx - 1], row[nx - 2], i - nx + 1);
        }
    for (int i = -h; i < nx + h; ++i)
        for (int j = -h; j < ny + h; ++j) {
            if (j >= 0 && j < ny) continue;
            if (ny == 1) at(i, j) = at(i, 0);
            else if (j < 0) at(i, j) = extend(at(i, 0), at(i, 1), -j);
            else at(i, j) = extend(at(i, ny - 1), at(i, ny - 2), j - ny + 1);
        }
    std::vector<double> out(grid.size()), window;
    if (size == 3) {
        // The median of a 3 x 3 window from its three columns, each sorted (lo <= mid <= hi): the median of the
        // nine is the median of (the largest lo, the median mid, the smallest hi), the same value as sorting
        // the nine. Each column triple is sorted once for the three windows that hold it; a 4096 x 4096
        // frame's 4096 cells took 1.2 ms through nth_element, half the device map's time.
        auto med3 = [](double a, double b, double c) { return std::max(std::min(a, b), std::min(std::max(a, b), c)); };
        std::vector<double> lo(static_cast<std::size_t>(px)), mid(lo.size()), hi(lo.size());
        for (int j = 0; j < ny; ++j) {
            for (int p = -1; p <= nx; ++p) {
                const double a = at(p, j - 1), b = at(p, j), c = at(p, j + 1);
                const std::size_t k = static_cast<std::size_t>(p + 1);
                lo[k] = std::min({a, b, c});
                mid[k] = med3(a, b, c);
                hi[k] = std::max({a, b, c});
            }
            for (int i = 0; i < nx; ++i) {
                const std::size_t k = static_cast<std::size_t>(i);
                out[static_cast<std::size_t>(j) * nx + i] =
                    med3(std::max({lo[k], lo[k + 1], lo[k + 2]}), med3(mid[k], mid[k + 1], mid[k + 2]), std::min({hi[k], hi[k + 1], hi[k + 2]}));
            }
        }
        return out;
    }
    for (int j = 0; j < ny; ++j)
        for (int i = 0; i < nx; ++i) {
            window.clear();
            for (int q = j - h; q <= j + h; ++q)
                for (int p = i - h; p <= i + h; ++p) window.push_back(at(p, q));
            out[static_cast<std::size_t>(j) * nx + i] = medianOf(window);
        }
    return out;
}

} // namespace

void checkBackgroundParams(int W, int H, const BackgroundParams& params) {
    const int mesh = params.mesh;
    if (mesh < 2) throw UsageError("the background mesh must be at least 2 pixels (got " + std::to_string(mesh) + ")");
    if (mesh > W || mesh > H)
        throw UsageError("the background mesh of " + std::to_string(mesh) + " px is larger than the " + std::to_string(W) +
                         "x" + std::to_string(H) + " image (--mesh must be at most " + std::to_string(std::min(W, H)) +
                         " here)");
    if (params.filterSize < 1 || params.filterSize % 2 == 0)
        throw UsageError("the background filter size must be a positive odd number");
    if (!(params.clipSigma > 0.0)) throw UsageError("the background clipping bound must be positive");
}

std::vector<BackgroundCell> backgroundCells(const Image& image, const std::vector<std::uint8_t>& excluded,
                                            const BackgroundParams& params) {
    const int W = image.width(), H = image.height();
    checkBackgroundParams(W, H, params);
    const int mesh = params.mesh;
    const int nx = (W + mesh - 1) / mesh, ny = (H + mesh - 1) / mesh;
    const std::size_t cells = static_cast<std::size_t>(nx) * ny;
    std::vector<BackgroundCell> out(cells);
    const std::uint8_t* blank = image.hasBlanks() ? image.blankMask().data() : nullptr;
    const std::uint8_t* mask = excluded.empty() ? nullptr : excluded.data();

    // Every cell's clipped statistics, cells handed out to every core.
    image.visit([&](const auto* p) {
        using T = std::remove_cv_t<std::remove_pointer_t<decltype(p)>>;
        parallelFor(0, cells, 4, [&](std::size_t c0, std::size_t c1) {
            std::vector<double> buffer(static_cast<std::size_t>(mesh) * mesh);
            double* values = buffer.data();
            ClippingScratch scratch;
            for (std::size_t c = c0; c < c1; ++c) {
                const int i = static_cast<int>(c % nx), j = static_cast<int>(c / nx);
                const int x0 = i * mesh, x1 = std::min(W, x0 + mesh), y0 = j * mesh, y1 = std::min(H, y0 + mesh);
                std::size_t m = 0; // the cell's good values so far, in row order
                for (int y = y0; y < y1; ++y) {
                    const std::size_t base = static_cast<std::size_t>(y) * W;
                    if (!blank && !mask) { // the whole row piece, then the non-finite ones taken out (seldom any)
                        double* row = values + m;
                        const int w = x1 - x0;
                        for (int x = 0; x < w; ++x) row[x] = static_cast<double>(p[base + x0 + x]);
                        if constexpr (std::is_floating_point_v<T>) {
                            bool finite = true;
                            for (int x = 0; x < w; ++x) finite &= std::abs(row[x]) <= std::numeric_limits<double>::max();
                            if (!finite) {
                                for (int x = 0; x < w; ++x)
                                    if (std::isfinite(row[x])) values[m++] = row[x];
                                continue;
                            }
                        }
                        m += static_cast<std::size_t>(w);
                        continue;
                    }
                    for (int x = x0; x < x1; ++x) {
                        const std::size_t idx = base + x;
                        if ((blank && blank[idx]) || (mask && mask[idx])) continue;
                        const double v = static_cast<double>(p[idx]);
                        if constexpr (std::is_floating_point_v<T>)
                            if (!std::isfinite(v)) continue;
                        values[m++] = v;
                    }
                }
                BackgroundCell& cell = out[c];
                cell.area = static_cast<std::uint32_t>((x1 - x0) * (y1 - y0));
                cell.good = static_cast<std::uint32_t>(m);
                if (m == 0) continue;
                const ClippedStats s = clippedStatsHistogram(values, m, params.clipSigma, params.maxIterations, &scratch);
                cell.back = s.mode;
                cell.rms = s.sigma;
            }
        });
    });
    return out;
}

BackgroundMap backgroundFromCells(int W, int H, const BackgroundParams& params, const std::vector<BackgroundCell>& cellStats) {
    checkBackgroundParams(W, H, params);
    const int mesh = params.mesh;
    BackgroundMap m;
    m.width_ = W;
    m.height_ = H;
    m.mesh_ = mesh;
    m.nx_ = (W + mesh - 1) / mesh;
    m.ny_ = (H + mesh - 1) / mesh;
    const int nx = m.nx_, ny = m.ny_;
    const std::size_t cells = static_cast<std::size_t>(nx) * ny;
    if (cellStats.size() != cells) throw std::logic_error("backgroundFromCells: wrong number of cells");
    m.back_.assign(cells, 0.0);
    m.rms_.assign(cells, 0.0);
    m.good_.assign(cells, 0);
    std::vector<std::uint8_t> measured(cells, 0);
    for (std::size_t c = 0; c < cells; ++c) {
        const BackgroundCell& s = cellStats[c];
        if (s.good == 0) continue;
        // A cell with less than half its pixels good is filled from its neighbours (SExtractor, SEP),
        // unless no cell has that many (then every cell with a good pixel counts).
        m.back_[c] = s.back;
        m.rms_[c] = s.rms;
        measured[c] = 1;
        m.good_[c] = 2 * static_cast<std::uint64_t>(s.good) >= s.area;
    }
    if (std::find(m.good_.begin(), m.good_.end(), 1) == m.good_.end()) m.good_ = measured;
    if (std::find(m.good_.begin(), m.good_.end(), 1) == m.good_.end()) return m; // empty: nothing to model

    // Bad cells: the mean of the nearest good cells (Euclidean distance in cells; the ties summed in row-major
    // order). Searched ring by ring (the cells at Chebyshev distance r lie at r^2 <= d^2 <= 2 r^2), stopping once
    // r^2 passes the best distance found, so a frame with wide blank borders is not nx ny times nx ny work.
    std::vector<double> back = m.back_, rms = m.rms_;
    std::vector<std::size_t> nearest;
    for (int j = 0; j < ny; ++j)
        for (int i = 0; i < nx; ++i) {
            const std::size_t c = static_cast<std::size_t>(j) * nx + i;
            if (m.good_[c]) continue;
            long best = -1;
            nearest.clear();
            auto consider = [&](int p, int q) {
                if (p < 0 || p >= nx || q < 0 || q >= ny) return;
                const std::size_t g = static_cast<std::size_t>(q) * nx + p;
                if (!m.good_[g]) return;
                const long d = static_cast<long>(q - j) * (q - j) + static_cast<long>(p - i) * (p - i);
                if (best >= 0 && d > best) return;
                if (d < best || best < 0) {
                    best = d;
                    nearest.clear();
                }
                nearest.push_back(g);
            };
            const int maxRing = std::max({i, nx - 1 - i, j, ny - 1 - j});
            for (int r = 1; r <= maxRing && (best < 0 || static_cast<long>(r) * r <= best); ++r) {
                for (int p = i - r; p <= i + r; ++p) {
                    consider(p, j - r);
                    consider(p, j + r);
                }
                for (int q = j - r + 1; q <= j + r - 1; ++q) {
                    consider(i - r, q);
                    consider(i + r, q);
                }
            }
            std::sort(nearest.begin(), nearest.end());
            double sb = 0.0, sr = 0.0;
            for (std::size_t g : nearest) {
                sb += m.back_[g];
                sr += m.rms_[g];
            }
            back[c] = sb / static_cast<double>(nearest.size());
            rms[c] = sr / static_cast<double>(nearest.size());
        }
    m.back_ = medianFiltered(back, nx, ny, params.filterSize);
    m.rms_ = medianFiltered(rms, nx, ny, params.filterSize);
    m.empty_ = false;
    {
        std::vector<double> b = m.back_, r = m.rms_;
        m.globalBack_ = medianOf(b);
        m.globalRms_ = medianOf(r);
    }
    // Knots at the cell centres, and the splines along y of every cell column.
    m.xc_.resize(static_cast<std::size_t>(nx));
    m.yc_.resize(static_cast<std::size_t>(ny));
    for (int i = 0; i < nx; ++i) m.xc_[i] = 0.5 * (i * mesh + std::min(W, (i + 1) * mesh) - 1);
    for (int j = 0; j < ny; ++j) m.yc_[j] = 0.5 * (j * mesh + std::min(H, (j + 1) * mesh) - 1);
    m.backD2_.assign(cells, 0.0);
    m.rmsD2_.assign(cells, 0.0);
    std::vector<double> u(cells);
    bgmath::naturalSpline(m.yc_.data(), m.back_.data(), ny, nx, m.backD2_.data(), u.data(), nx);
    bgmath::naturalSpline(m.yc_.data(), m.rms_.data(), ny, nx, m.rmsD2_.data(), u.data(), nx);
    return m;
}


BackgroundMap estimateBackground(const Image& image, const std::vector<std::uint8_t>& excluded,
                                 const BackgroundParams& params) {
    return backgroundFromCells(image.width(), image.height(), params, backgroundCells(image, excluded, params));
}

void BackgroundMap::row(int y, int x0, int x1, double* back, double* rms) const {
    if (x1 <= x0) return;
    if (empty_) {
        if (back) std::fill(back, back + (x1 - x0), 0.0);
        if (rms) std::fill(rms, rms + (x1 - x0), 0.0);
        return;
    }
    // The row's value at every cell column (splines along y), then the spline along x through them: the
    // arithmetic of BackgroundMath.h, which the device's rows share (cuda/BackgroundCuda.cu).
    const int j = bgmath::intervalOf(yc_.data(), ny_, static_cast<double>(y));
    const std::size_t n = static_cast<std::size_t>(nx_);
    std::vector<double> nodes(n), d2(n), u(n), coefficients(3 * n);
    for (int pass = 0; pass < 2; ++pass) {
        double* out = pass == 0 ? back : rms;
        if (!out) continue;
        const std::vector<double>& grid = pass == 0 ? back_ : rms_;
        const std::vector<double>& gridD2 = pass == 0 ? backD2_ : rmsD2_;
        for (int i = 0; i < nx_; ++i)
            nodes[i] = bgmath::splineAt(yc_.data(), grid.data() + i, gridD2.data() + i, ny_, nx_, static_cast<double>(y), j);
        if (nx_ == 1) {
            std::fill(out, out + (x1 - x0), nodes[0]);
        } else {
            bgmath::naturalSpline(xc_.data(), nodes.data(), nx_, 1, d2.data(), u.data());
            for (int i = 0; i + 1 < nx_; ++i) bgmath::splineCoefficients(xc_.data(), nodes.data(), d2.data(), i, &coefficients[3 * i]);
            const double endSlope = bgmath::splineEndSlope(xc_.data(), nodes.data(), d2.data(), nx_);
            // Piece by piece (the loop inside a piece has no branch, so the compiler vectorises it); the values
            // are splineValue's, which the device evaluates pixel by pixel.
            int piece = bgmath::splinePiece(xc_.data(), nx_, x0);
            for (int x = x0; x < x1; ++piece) {
                const int stop = static_cast<int>(std::min<long long>(x1, bgmath::splinePieceEnd(xc_.data(), nx_, piece)));
                const double* c = piece >= 0 && piece < nx_ - 1 ? &coefficients[3 * piece] : nullptr;
                if (c) {
                    const double xi = xc_[piece], yi = nodes[piece], c1 = c[0], c2 = c[1], c3 = c[2];
                    for (; x < stop; ++x) {
                        const double t = static_cast<double>(x) - xi;
                        out[x - x0] = yi + t * (c1 + t * (c2 + t * c3));
                    }
                } else {
                    for (; x < stop; ++x)
                        out[x - x0] = bgmath::splineValue(xc_.data(), nodes.data(), nx_, piece, nullptr, coefficients[0], endSlope, x);
                }
            }
        }
        if (pass == 1)
            for (int x = 0; x < x1 - x0; ++x) out[x] = bgmath::bgPositive(out[x]);
    }
}

double BackgroundMap::backgroundAt(int x, int y) const {
    double v = 0.0;
    row(y, x, x + 1, &v, nullptr);
    return v;
}

double BackgroundMap::rmsAt(int x, int y) const {
    double v = 0.0;
    row(y, x, x + 1, nullptr, &v);
    return v;
}

} // namespace glint
