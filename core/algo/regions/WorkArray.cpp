#include "core/algo/regions/WorkArray.h"
#include "core/algo/regions/WorkArrayParts.h"

#include "core/io/Image.h"
#include "core/util/CpuFeatures.h"
#include "core/util/Errors.h"
#include "core/util/Parallel.h"

#include <algorithm>
#include <cmath>
#include <immintrin.h>
#include <limits>
#include <type_traits>

namespace glint {

namespace {

// The value a of cell (r, c) in the work array's number format, through the typed sample pointer.
template <class T, class V>
V cellValue(const WorkArray& w, const T* p, int r, int c) {
    const std::size_t idx = static_cast<std::size_t>(w.imageY(r, c)) * w.image->width() + w.imageX(r, c);
    if constexpr (std::is_same_v<V, std::int64_t>) {
        // Wrapping subtraction: |v - pivot| < 2^62 is guaranteed in integer mode, whatever v's type.
        std::int64_t v;
        if constexpr (std::is_floating_point_v<T>) v = static_cast<std::int64_t>(std::llround(p[idx]));
        else v = static_cast<std::int64_t>(p[idx]);
        return static_cast<std::int64_t>(static_cast<std::uint64_t>(v) - static_cast<std::uint64_t>(w.pivotInt));
    } else {
        return static_cast<double>(p[idx]) - w.pivot;
    }
}

template <class V>
void fillRow(const WorkArray& w, int r, V* out, int c0, int c1) {
    if (c1 < 0) c1 = w.cols;
    const std::uint8_t* m = w.excluded.empty() ? nullptr : w.excluded.data() + static_cast<std::size_t>(r) * w.cols;
    w.image->visit([&](const auto* p) {
        using T = std::remove_cv_t<std::remove_pointer_t<decltype(p)>>;
        if (!w.transposed && (std::is_floating_point_v<V> || !std::is_floating_point_v<T>)) {
            // The common case, in a loop the compiler vectorises (the same arithmetic as cellValue).
            const T* src = p + (w.roi.y + r) * static_cast<std::size_t>(w.image->width()) + w.roi.x;
            const V pivot = std::is_floating_point_v<V> ? static_cast<V>(w.pivot) : static_cast<V>(w.pivotInt);
            for (int c = c0; c < c1; ++c) out[c - c0] = (m && m[c]) ? V(0) : static_cast<V>(src[c]) - pivot;
            return;
        }
        for (int c = c0; c < c1; ++c) out[c - c0] = (m && m[c]) ? V(0) : cellValue<T, V>(w, p, r, c);
    });
}

template <class V>
std::vector<V> prefixSums(const WorkArray& w) {
    const std::size_t cols = static_cast<std::size_t>(w.cols);
    std::vector<V> P((static_cast<std::size_t>(w.rows) + 1) * cols, V(0));
    // Column blocks walk down the rows (a transposed frame still reads image rows in order).
    parallelFor(0, cols, 256, [&](std::size_t c0, std::size_t c1) {
        std::vector<V> a(c1 - c0);
        for (int r = 0; r < w.rows; ++r) {
            fillRow(w, r, a.data(), static_cast<int>(c0), static_cast<int>(c1));
            const V* above = P.data() + static_cast<std::size_t>(r) * cols;
            V* row = P.data() + static_cast<std::size_t>(r + 1) * cols;
            for (std::size_t c = c0; c < c1; ++c) row[c] = above[c] + a[c - c0];
        }
    }, threadsForPixels(static_cast<double>(w.rows) * w.cols));
    return P;
}

// The positive sums' four chains over a float row without a mask (chain k adds the samples x = k mod 4, in
// order: lane k of one vector), as far as whole groups of 4 go; returns where the scalar loop goes on.
__attribute__((target("avx2"))) int positiveChainsAvx2(const float* row, int width, double pivot, double s[4]) {
    __m256d acc = _mm256_loadu_pd(s);
    const __m256d pv = _mm256_set1_pd(pivot), zero = _mm256_setzero_pd();
    int x = 0;
    for (; x + 8 <= width; x += 8) {
        const __m256 v = _mm256_loadu_ps(row + x);
        const __m256d a = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(v)), pv);
        const __m256d b = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)), pv);
        acc = _mm256_add_pd(acc, _mm256_and_pd(_mm256_cmp_pd(a, zero, _CMP_GT_OQ), a));
        acc = _mm256_add_pd(acc, _mm256_and_pd(_mm256_cmp_pd(b, zero, _CMP_GT_OQ), b));
    }
    _mm256_storeu_pd(s, acc);
    return x;
}

} // namespace

// From the histogram when there is one; otherwise row by row on every core, rows added in order.
void regions::positiveSums(WorkArray& w, const IncludedStats& stats, const std::vector<std::uint8_t>& roiMask) {
    if (!stats.histogram.empty()) {
        long double real = 0.0L;
        std::int64_t exact = 0;
        for (std::size_t i = 0; i < stats.histogram.size(); ++i) {
            if (!stats.histogram[i]) continue;
            const long long v = static_cast<long long>(i) - stats.histogramOffset;
            const auto n = static_cast<std::int64_t>(stats.histogram[i]);
            if (w.integer && v > w.pivotInt) exact += (v - w.pivotInt) * n;
            if (!w.integer && v > w.pivot) real += (static_cast<long double>(v) - w.pivot) * n;
        }
        w.positiveSumInt = exact;
        w.positiveSum = w.integer ? static_cast<double>(exact) : static_cast<double>(real) * (1.0 + 1e-9) + 1e-300;
        return;
    }
    const PixelRect& roi = w.roi;
    std::vector<std::int64_t> rowInt(static_cast<std::size_t>(roi.height), 0);
    std::vector<double> rowReal(static_cast<std::size_t>(roi.height), 0.0);
    w.image->visit([&](const auto* p) {
        using T = std::remove_cv_t<std::remove_pointer_t<decltype(p)>>;
        parallelFor(0, rowInt.size(), 16, [&](std::size_t y0, std::size_t y1) {
            for (std::size_t y = y0; y < y1; ++y) {
                const T* row = p + (roi.y + y) * static_cast<std::size_t>(w.image->width()) + roi.x;
                const std::uint8_t* m = roiMask.empty() ? nullptr : roiMask.data() + y * roi.width;
                if (w.integer) {
                    std::int64_t s = 0;
                    for (int x = 0; x < roi.width; ++x) {
                        if (m && m[x]) continue;
                        std::int64_t v;
                        if constexpr (std::is_floating_point_v<T>) v = static_cast<std::int64_t>(std::llround(row[x]));
                        else v = static_cast<std::int64_t>(row[x]);
                        const auto a = static_cast<std::int64_t>(static_cast<std::uint64_t>(v) -
                                                                 static_cast<std::uint64_t>(w.pivotInt));
                        s += a > 0 ? a : 0;
                    }
                    rowInt[y] = s;
                } else {
                    double s[4] = {0.0, 0.0, 0.0, 0.0}; // four chains: the additions overlap
                    int x = 0;
                    if constexpr (std::is_same_v<T, float>)
                        if (!m && cpuHasAvx2()) x = positiveChainsAvx2(row, roi.width, w.pivot, s);
                    for (; x + 4 <= roi.width; x += 4)
                        for (int k = 0; k < 4; ++k) {
                            const double a = static_cast<double>(row[x + k]) - w.pivot;
                            s[k] += (m && m[x + k]) || !(a > 0) ? 0.0 : a;
                        }
                    for (; x < roi.width; ++x) {
                        const double a = static_cast<double>(row[x]) - w.pivot;
                        s[0] += (m && m[x]) || !(a > 0) ? 0.0 : a;
                    }
                    rowReal[y] = (s[0] + s[1]) + (s[2] + s[3]);
                }
            }
        }, threadsForPixels(static_cast<double>(roi.width) * roi.height));
    });
    if (w.integer) {
        for (std::int64_t v : rowInt) w.positiveSumInt += v;
        w.positiveSum = static_cast<double>(w.positiveSumInt);
    } else {
        double s = 0.0;
        for (double v : rowReal) s += v;
        w.positiveSum = s * (1.0 + 1e-9) + 1e-300;
    }
}

void checkSumRange(const WorkArray& work, const PivotSpec& pivot) {
    constexpr double kLimit = 1e300;
    if (work.integer || work.includedCount == 0) return;
    const double n = static_cast<double>(work.includedCount);
    if (work.maxAbs * n < kLimit) return;
    // |a| <= |I| + |pivot|: a pivot above half the limit per pixel is what breaks the bound.
    const double pivotLimit = kLimit / (2.0 * n);
    if (pivot.kind == PivotSpec::Kind::Number && std::fabs(pivot.value) > pivotLimit) {
        char limit[32];
        std::snprintf(limit, sizeof limit, "%.3g", pivotLimit);
        throw UsageError("the pivot " + pivot.text() + " is too large: the sums of I - pivot over the " +
                         std::to_string(work.includedCount) + " included pixels would leave double range (|pivot| must be at most " +
                         limit + " here)");
    }
    throw InputError("the image values are too large: their sums leave double range");
}

PixelRect WorkArray::toImage(int row0, int col0, int nrows, int ncols) const {
    if (transposed) return {roi.x + row0, roi.y + col0, nrows, ncols};
    return {roi.x + col0, roi.y + row0, ncols, nrows};
}

void WorkArray::rowInteger(int r, std::int64_t* out, int c0, int c1) const { fillRow(*this, r, out, c0, c1); }
void WorkArray::rowReal(int r, double* out, int c0, int c1) const { fillRow(*this, r, out, c0, c1); }

bool WorkArray::fitsInt32() const {
    if (!integer) return false;
    const double a = static_cast<double>(rows) * maxAbs;
    return a < 1073741824.0 && static_cast<double>(positiveSumInt) + a < 2147483647.0;
}


std::vector<std::int64_t> columnPrefixSumsInteger(const WorkArray& work) { return prefixSums<std::int64_t>(work); }
std::vector<double> columnPrefixSumsReal(const WorkArray& work) { return prefixSums<double>(work); }

} // namespace glint
