// Steps 1, 2 and 4 of detection (SourceDetect.h): the matched filter, the footprints and the cores.
#include "core/algo/sources/SourceDetect.h"

#include "core/io/Image.h"
#include "core/jobs/JobControl.h"
#include "core/util/CpuFeatures.h"
#include "core/util/Parallel.h"

#include <algorithm>
#if defined(__x86_64__)
#include <immintrin.h>
#endif
#include <cmath>
#include <cstring>
#include <functional>
#include <iterator>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>

namespace glint {

std::size_t ResidualView::size() const { return residual_ ? residual_->size() : image_->pixelCount(); }

const float* ResidualView::row(std::size_t first, std::size_t count, float* scratch) const {
    if (residual_) return residual_->data() + first;
    const float* b = background_->data() + first;
    image_->visit([&](const auto* samples) {
        const auto* in = samples + first;
        for (std::size_t k = 0; k < count; ++k) scratch[k] = static_cast<float>(static_cast<double>(in[k]) - static_cast<double>(b[k]));
    });
    return scratch;
}

float ResidualView::at(std::size_t i) const {
    if (residual_) return (*residual_)[i];
    return image_->visit([&](const auto* samples) {
        return static_cast<float>(static_cast<double>(samples[i]) - static_cast<double>((*background_)[i]));
    });
}

std::vector<double> gaussianTaps(double fwhm) {
    const double sigma = fwhm / (2.0 * std::sqrt(2.0 * std::log(2.0)));
    const int r = std::max(1, static_cast<int>(std::ceil(3.0 * sigma)));
    std::vector<double> taps(static_cast<std::size_t>(2 * r + 1));
    double sum = 0.0;
    for (int i = -r; i <= r; ++i) sum += taps[static_cast<std::size_t>(i + r)] = std::exp(-0.5 * i * i / (sigma * sigma));
    for (double& t : taps) t /= sum;
    return taps;
}

namespace {

// The filter's inner loops: a[x] += w u_t[x], b[x] += w g_t[x], c[x] += ww s_t[x] for x < n, tap after tap t
// (u_t, g_t, s_t: the rows tap t reads). Every element's sum adds its terms in the tap order, whatever the vector
// width; a product and its add stay two roundings (AVX2 has no FMA, and none is asked for), so every variant gives
// the same bits.
template <class T>
inline __attribute__((always_inline)) void tapRowsBody(const double* k, std::size_t taps, const T* const* u,
                                                       const T* const* g, const T* const* s, double* a, double* b,
                                                       double* c, std::size_t x0, std::size_t n) {
    std::fill(a + x0, a + n, 0.0);
    std::fill(b + x0, b + n, 0.0);
    std::fill(c + x0, c + n, 0.0);
    for (std::size_t t = 0; t < taps; ++t) {
        const double w = k[t], ww = w * w;
        const T *ut = u[t], *gt = g[t], *st = s[t];
        for (std::size_t x = x0; x < n; ++x) {
            a[x] += w * ut[x];
            b[x] += w * gt[x];
            c[x] += ww * st[x];
        }
    }
}

template <class T>
void tapRowsPlain(const double* k, std::size_t taps, const T* const* u, const T* const* g, const T* const* s,
                  double* a, double* b, double* c, std::size_t n) {
    tapRowsBody(k, taps, u, g, s, a, b, c, 0, n);
}

#if defined(__x86_64__)
// Four doubles at p: T = double as they are, T = float widened (exactly).
__attribute__((target("avx2"))) inline __m256d load4(const double* p) { return _mm256_loadu_pd(p); }
__attribute__((target("avx2"))) inline __m256d load4(const float* p) { return _mm256_cvtps_pd(_mm_loadu_ps(p)); }

// tapRowsBody with its sums held in registers: eight x at a time, every tap in turn (the loop over taps inside the
// loop over x), each sum starting from +0 and adding w x term tap after tap, a multiply and an add (no FMA): the
// same operations in the same order as tapRowsBody, element by element, so the same bits; a, b and c are written
// once rather than read and written at every tap.
template <class T>
__attribute__((target("avx2"))) void tapRowsAvx2(const double* k, std::size_t taps, const T* const* u,
                                                  const T* const* g, const T* const* s, double* a, double* b,
                                                  double* c, std::size_t n) {
    std::size_t x = 0;
    for (; x + 8 <= n; x += 8) {
        __m256d a0 = _mm256_setzero_pd(), a1 = a0, b0 = a0, b1 = a0, c0 = a0, c1 = a0;
        for (std::size_t t = 0; t < taps; ++t) {
            const double wt = k[t];
            const __m256d w = _mm256_set1_pd(wt), ww = _mm256_set1_pd(wt * wt);
            const T *ut = u[t] + x, *gt = g[t] + x, *st = s[t] + x;
            a0 = _mm256_add_pd(a0, _mm256_mul_pd(w, load4(ut)));
            a1 = _mm256_add_pd(a1, _mm256_mul_pd(w, load4(ut + 4)));
            b0 = _mm256_add_pd(b0, _mm256_mul_pd(w, load4(gt)));
            b1 = _mm256_add_pd(b1, _mm256_mul_pd(w, load4(gt + 4)));
            c0 = _mm256_add_pd(c0, _mm256_mul_pd(ww, load4(st)));
            c1 = _mm256_add_pd(c1, _mm256_mul_pd(ww, load4(st + 4)));
        }
        _mm256_storeu_pd(a + x, a0);
        _mm256_storeu_pd(a + x + 4, a1);
        _mm256_storeu_pd(b + x, b0);
        _mm256_storeu_pd(b + x + 4, b1);
        _mm256_storeu_pd(c + x, c0);
        _mm256_storeu_pd(c + x + 4, c1);
    }
    if (x < n) tapRowsBody(k, taps, u, g, s, a, b, c, x, n);
}
#endif

template <class T>
void tapRows(const double* k, std::size_t taps, const T* const* u, const T* const* g, const T* const* s, double* a,
             double* b, double* c, std::size_t n) {
#if defined(__x86_64__)
    if (cpuHasAvx2()) return tapRowsAvx2(k, taps, u, g, s, a, b, c, n);
#endif
    tapRowsPlain(k, taps, u, g, s, a, b, c, n);
}

bool goodPixel(float v, const std::vector<float>& rms, const std::vector<std::uint8_t>& bad, std::size_t i) {
    return (bad.empty() || bad[i] == 0) && std::isfinite(v) && rms[i] > 0.0f && std::isfinite(rms[i]);
}

// The matched filter over a box of the image, the same sums pixel by pixel as over the whole image. Both passes
// run tap by tap over whole rows (the loops over x vectorise); every sum still adds its terms in the order
// t = -r..r, so the figures are those of a pixel-by-pixel loop to the last bit. A tap that falls outside the image
// adds w x 0 = +0 (the rows are padded with zeros), which leaves a sum as it was; a row outside is skipped.
class BoxFilter {
public:
    BoxFilter(const ResidualView& residual, const std::vector<float>& rms, const std::vector<std::uint8_t>& bad,
              int width, int height, double fwhm)
        : residual_(residual), rms_(rms), bad_(bad), width_(width), height_(height), k_(gaussianTaps(fwhm)),
          r_(static_cast<int>(k_.size() / 2)) {}

    // Rows y0..y1 over columns x0..x1: out(y, a, b, c) for each, a[x - x0] = sum k v g, b = sum k g,
    // c = sum k^2 sigma^2 g over the pixel's window (both passes).
    // The horizontal rows live in a ring of 2 r + 1 rows, made as the vertical pass needs them (they stay in
    // cache: a whole band's rows would not).
    template <class Out>
    void run(int x0, int x1, int y0, int y1, Out&& out) const {
        const std::size_t bw = static_cast<std::size_t>(x1 - x0 + 1), r = static_cast<std::size_t>(r_);
        const std::size_t taps = k_.size(), ring = taps; // 2 r + 1
        const int ya = std::max(0, y0 - r_), yb = std::min(height_ - 1, y1 + r_); // the horizontal rows it needs
        std::vector<float> hv(ring * bw), hg(ring * bw), hs(ring * bw);
        std::vector<double> v(bw + 2 * r), g(bw + 2 * r), s(bw + 2 * r), a(bw), b(bw), c(bw);
        std::vector<float> scratch(bw + 2 * r); // a row of v where the view makes it
        std::vector<const double*> pv(taps), pg(taps), ps(taps);
        std::vector<const float*> qv(taps), qg(taps), qs(taps);
        for (std::size_t t = 0; t < taps; ++t) {
            pv[t] = v.data() + t;
            pg[t] = g.data() + t;
            ps[t] = s.data() + t;
        }
        // Horizontal pass of row y: sum k v g, sum k g, sum k^2 sigma^2 g, into its slot of the ring.
        auto horizontal = [&](int y) {
            const std::size_t row = static_cast<std::size_t>(y) * static_cast<std::size_t>(width_);
            // Outside the image: zeros; inside, a branch-free loop (it vectorises) of goodPixel's test.
            const int jlo = std::max(0, r_ - x0), jhi = std::min(static_cast<int>(bw + 2 * r), width_ - x0 + r_);
            std::fill(g.begin(), g.end(), 0.0);
            std::fill(v.begin(), v.end(), 0.0);
            std::fill(s.begin(), s.end(), 0.0);
            if (jhi > jlo) {
                const std::size_t first = row + static_cast<std::size_t>(x0 - r_ + jlo); // the image index of j = jlo
                const std::size_t count = static_cast<std::size_t>(jhi - jlo), at = static_cast<std::size_t>(jlo);
                prepareRow(residual_.row(first, count, scratch.data()), rms_.data() + first, bad_.empty() ? nullptr : bad_.data() + first,
                           count, v.data() + at, g.data() + at, s.data() + at);
            }
            tapRows(k_.data(), taps, pv.data(), pg.data(), ps.data(), a.data(), b.data(), c.data(), bw);
            const std::size_t at = (static_cast<std::size_t>(y - ya) % ring) * bw;
            for (std::size_t x = 0; x < bw; ++x) {
                hv[at + x] = static_cast<float>(a[x]);
                hg[at + x] = static_cast<float>(b[x]);
                hs[at + x] = static_cast<float>(c[x]);
            }
        };
        int next = ya; // the next horizontal row to make
        // Vertical pass.
        for (int y = y0; y <= y1; ++y) {
            for (const int need = std::min(yb, y + r_); next <= need; ++next) horizontal(next);
            const int t0 = std::max(-r_, -y), t1 = std::min(r_, height_ - 1 - y); // the taps inside the image
            for (int t = t0; t <= t1; ++t) {
                const std::size_t at = (static_cast<std::size_t>(y + t - ya) % ring) * bw, i = static_cast<std::size_t>(t - t0);
                qv[i] = hv.data() + at;
                qg[i] = hg.data() + at;
                qs[i] = hs.data() + at;
            }
            tapRows(k_.data() + (t0 + r_), static_cast<std::size_t>(t1 - t0 + 1), qv.data(), qg.data(), qs.data(),
                    a.data(), b.data(), c.data(), bw);
            out(y, a.data(), b.data(), c.data());
        }
    }

    // D = sum k v g / sum k g and sigma_D = sqrt(sum k^2 sigma^2 g) / sum k g at a good pixel.
    // (A pixel that is not good, or has b <= 0, gets 0, as the whole image's zero-filled D and sigma_D have there.)
    void emit(std::size_t i, double a, double b, double c, float& detection, float& noise) const {
        if (goodPixel(residual_.at(i), rms_, bad_, i) && b > 0.0) {
            detection = static_cast<float>(a / b);
            noise = static_cast<float>(std::sqrt(c) / b);
        } else {
            detection = noise = 0.0f;
        }
    }

    // emit over a whole row from image index `row` (D and sigma_D there start at 0), as one branch-free loop: a
    // pixel that is not good, or has b <= 0, gets the 0 it had. scratch: `count` floats for the row of v.
    void emitRow(std::size_t row, std::size_t count, const double* a, const double* b, const double* c, float* d,
                 float* sd, float* scratch) const {
        const float* pv = residual_.row(row, count, scratch);
        const float* ps = rms_.data() + row;
        const std::uint8_t* pb = bad_.empty() ? nullptr : bad_.data() + row;
        std::size_t x = 0;
#if defined(__x86_64__)
        if (cpuHasAvx2()) x = emitRowAvx2(pv, ps, pb, count, a, b, c, d, sd);
#endif
        for (; x < count; ++x) {
            const float value = pv[x], sigma = ps[x];
            const bool keep = (pb == nullptr || pb[x] == 0) && std::isfinite(value) && sigma > 0.0f &&
                              std::isfinite(sigma) && b[x] > 0.0;
            d[x] = keep ? static_cast<float>(a[x] / b[x]) : 0.0f;
            sd[x] = keep ? static_cast<float>(std::sqrt(c[x]) / b[x]) : 0.0f;
        }
    }

private:
#if defined(__x86_64__)
    // emitRow's loop four pixels at a time (the pixels done: a multiple of 4). Division, square root and the
    // narrowing to float are correctly rounded in the vector unit as in the scalar one: the same bits; a pixel
    // that is not kept gets +0 through the mask.
    __attribute__((target("avx2"))) static std::size_t emitRowAvx2(const float* pv, const float* ps,
                                                                   const std::uint8_t* pb, std::size_t count,
                                                                   const double* a, const double* b, const double* c,
                                                                   float* d, float* sd) {
        const __m128 inf = _mm_set1_ps(std::numeric_limits<float>::infinity()), zero = _mm_setzero_ps();
        const __m128 sign = _mm_set1_ps(-0.0f);
        std::size_t x = 0;
        for (; x + 4 <= count; x += 4) {
            const __m128 value = _mm_loadu_ps(pv + x), sigma = _mm_loadu_ps(ps + x);
            __m128 keep = _mm_and_ps(_mm_cmp_ps(_mm_andnot_ps(sign, value), inf, _CMP_LT_OQ),
                                     _mm_and_ps(_mm_cmp_ps(sigma, zero, _CMP_GT_OQ),
                                                _mm_cmp_ps(_mm_andnot_ps(sign, sigma), inf, _CMP_LT_OQ)));
            if (pb != nullptr) {
                std::int32_t bytes;
                std::memcpy(&bytes, pb + x, 4);
                const __m128i flags = _mm_cvtepu8_epi32(_mm_cvtsi32_si128(bytes));
                keep = _mm_and_ps(keep, _mm_castsi128_ps(_mm_cmpeq_epi32(flags, _mm_setzero_si128())));
            }
            const __m256d bb = _mm256_loadu_pd(b + x);
            const __m256d positive = _mm256_cmp_pd(bb, _mm256_setzero_pd(), _CMP_GT_OQ);
            keep = _mm_and_ps(keep, _mm_shuffle_ps(_mm_castpd_ps(_mm256_castpd256_pd128(positive)),
                                                   _mm_castpd_ps(_mm256_extractf128_pd(positive, 1)),
                                                   _MM_SHUFFLE(2, 0, 2, 0)));
            const __m128 q = _mm256_cvtpd_ps(_mm256_div_pd(_mm256_loadu_pd(a + x), bb));
            const __m128 e = _mm256_cvtpd_ps(_mm256_div_pd(_mm256_sqrt_pd(_mm256_loadu_pd(c + x)), bb));
            _mm_storeu_ps(d + x, _mm_and_ps(keep, q));
            _mm_storeu_ps(sd + x, _mm_and_ps(keep, e));
        }
        return x;
    }
#endif

    // v g, g and sigma^2 g of `count` pixels of a row, g = 1 on a good pixel (goodPixel), else 0.
    static void prepareRow(const float* pv, const float* ps, const std::uint8_t* pb, std::size_t count, double* v,
                           double* g, double* s) {
        for (std::size_t j = 0; j < count; ++j) {
            const float value = pv[j], sigma = ps[j];
            const bool good = (pb == nullptr || pb[j] == 0) && std::isfinite(value) && sigma > 0.0f && std::isfinite(sigma);
            g[j] = good ? 1.0 : 0.0;
            v[j] = good ? static_cast<double>(value) : 0.0;
            s[j] = good ? static_cast<double>(sigma) * sigma : 0.0;
        }
    }

    const ResidualView& residual_;
    const std::vector<float>& rms_;
    const std::vector<std::uint8_t>& bad_;
    int width_, height_;
    std::vector<double> k_;
    int r_;
};

// The filter at a footprint's pixels alone (increasing indices), over its bounding box: the values
// filterDetectionImage gives there, into bands of whole rows from the footprint's first row (pixel p at
// p - origin, origin the index of that row's first pixel; the other pixels of the band are not written).
void filterFootprint(const BoxFilter& filter, const std::vector<std::int64_t>& pixels, int width, float* detection,
                     float* noise, std::int64_t origin) {
    if (pixels.empty()) return;
    int x0 = width, x1 = -1;
    for (const std::int64_t p : pixels) {
        x0 = std::min(x0, static_cast<int>(p % width));
        x1 = std::max(x1, static_cast<int>(p % width));
    }
    const int y0 = static_cast<int>(pixels.front() / width), y1 = static_cast<int>(pixels.back() / width);
    std::size_t next = 0; // the first pixel of the row (the pixels run row by row)
    filter.run(x0, x1, y0, y1, [&](int y, const double* a, const double* b, const double* c) {
        for (; next < pixels.size() && pixels[next] / width == y; ++next) {
            const std::size_t j = static_cast<std::size_t>(pixels[next] % width - x0);
            const std::size_t at = static_cast<std::size_t>(pixels[next] - origin);
            filter.emit(static_cast<std::size_t>(pixels[next]), a[j], b[j], c[j], detection[at], noise[at]);
        }
    });
}

// D and sigma_D a row at a time, bands of rows on every core: sink(y, d, sd) once for each row y (from any of the
// threads), its values written into the rows of mapD and mapS when they are given (whole images), else into a
// scratch row of the thread. Every pixel of a row is written: 0 and 0 where it is not good (goodPixel, or the
// filter's sum of weights b <= 0).
template <class Sink>
void detectionRows(const ResidualView& residual, const std::vector<float>& rms, const std::vector<std::uint8_t>& bad,
                   int width, int height, double filterFwhm, float* mapD, float* mapS, int threads, Sink&& sink) {
    const std::size_t w = static_cast<std::size_t>(width);
    if (!(filterFwhm > 0.0)) {
        // v a row at a time (the view's row(), not a sample-type dispatch per pixel), rows on every core.
        parallelFor(0, static_cast<std::size_t>(height), 16, [&](std::size_t y0, std::size_t y1) {
            std::vector<float> scratch(w), rowD(mapD ? 0 : w), rowS(mapD ? 0 : w);
            for (std::size_t y = y0; y < y1; ++y) {
                const float* v = residual.row(y * w, w, scratch.data());
                float* d = mapD ? mapD + y * w : rowD.data();
                float* sd = mapD ? mapS + y * w : rowS.data();
                for (std::size_t x = 0, i = y * w; x < w; ++x, ++i) {
                    const bool good = goodPixel(v[x], rms, bad, i);
                    d[x] = good ? v[x] : 0.0f;
                    sd[x] = good ? rms[i] : 0.0f;
                }
                sink(static_cast<int>(y), d, sd);
            }
        }, threads);
        return;
    }
    const BoxFilter filter(residual, rms, bad, width, height, filterFwhm);
    // Bands of rows, each with its own horizontal rows (r more above and below, made again). About four bands a
    // thread, of at least 64 rows.
    const std::size_t workers = static_cast<std::size_t>(threads > 0 ? threads : cpuThreadCount());
    const std::size_t band = std::max<std::size_t>(64, (static_cast<std::size_t>(height) + 4 * workers - 1) / (4 * workers));
    parallelFor(0, static_cast<std::size_t>(height), band, [&](std::size_t y0, std::size_t y1) {
        std::vector<float> scratch(w), rowD(mapD ? 0 : w), rowS(mapD ? 0 : w);
        filter.run(0, width - 1, static_cast<int>(y0), static_cast<int>(y1) - 1,
                   [&](int y, const double* a, const double* b, const double* c) {
                       const std::size_t row = static_cast<std::size_t>(y) * w;
                       float* d = mapD ? mapD + row : rowD.data();
                       float* sd = mapD ? mapS + row : rowS.data();
                       filter.emitRow(row, w, a, b, c, d, sd, scratch.data());
                       sink(y, d, sd);
                   });
    }, threads);
}

struct Run {
    std::int32_t x0, x1; // inclusive
    std::uint32_t at;    // the pixels of the row's runs before this one
};

bool aboveThreshold(float d, float s, double threshold) { return s > 0.0f && d > threshold * s; }

// A row's runs of pixels above the threshold, appended to runs (an empty vector).
void rowRuns(const float* d, const float* s, int width, double threshold, std::vector<Run>& runs) {
    int x = 0;
    std::uint32_t at = 0;
    while (x < width) {
        while (x < width && !aboveThreshold(d[x], s[x], threshold)) ++x;
        if (x == width) break;
        const int x0 = x;
        while (x < width && aboveThreshold(d[x], s[x], threshold)) ++x;
        runs.push_back({x0, x - 1, at});
        at += static_cast<std::uint32_t>(x - x0);
    }
}

// The 8-connected components of the rows' runs, each as increasing pixel indices, in the order of their first
// pixel, those under minArea pixels left out: the runs joined by a union-find over the runs (not the pixels: a
// crowded 2048^2 frame has ~50 000 runs for 4 M pixels), the lower run index the root, so a component's root is
// the run holding its first pixel in raster order; then each component's pixels gathered run by run in raster
// order.
std::vector<std::vector<std::int64_t>> joinRuns(const std::vector<std::vector<Run>>& rowRuns, int width, int height,
                                                int minArea) {
    std::vector<std::size_t> rowStart(static_cast<std::size_t>(height) + 1, 0);
    for (int y = 0; y < height; ++y) rowStart[static_cast<std::size_t>(y) + 1] = rowStart[static_cast<std::size_t>(y)] + rowRuns[static_cast<std::size_t>(y)].size();
    const std::size_t runCount = rowStart.back();
    std::vector<std::size_t> parent(runCount);
    std::iota(parent.begin(), parent.end(), std::size_t{0});
    auto find = [&](std::size_t i) {
        while (parent[i] != i) {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        return i;
    };
    // 8-connected: a run of row y meets a run of row y - 1 when their columns, the latter's widened by one on each
    // side, overlap.
    for (int y = 1; y < height; ++y) {
        const std::vector<Run>& up = rowRuns[static_cast<std::size_t>(y) - 1];
        const std::vector<Run>& here = rowRuns[static_cast<std::size_t>(y)];
        std::size_t j = 0;
        for (std::size_t i = 0; i < here.size(); ++i) {
            while (j < up.size() && up[j].x1 + 1 < here[i].x0) ++j;
            for (std::size_t k = j; k < up.size() && up[k].x0 - 1 <= here[i].x1; ++k) {
                std::size_t ra = find(rowStart[static_cast<std::size_t>(y)] + i), rb = find(rowStart[static_cast<std::size_t>(y) - 1] + k);
                if (ra == rb) continue;
                if (ra < rb) std::swap(ra, rb);
                parent[ra] = rb; // the lower index is the root
            }
        }
    }
    // A run's root has a lower index, so in order find() of a run is its root, already numbered.
    std::vector<std::vector<std::int64_t>> out;
    std::vector<std::int32_t> component(runCount);
    for (int y = 0; y < height; ++y) {
        const std::vector<Run>& runs = rowRuns[static_cast<std::size_t>(y)];
        for (std::size_t i = 0; i < runs.size(); ++i) {
            const std::size_t r = rowStart[static_cast<std::size_t>(y)] + i, root = find(r);
            if (root == r) {
                component[r] = static_cast<std::int32_t>(out.size());
                out.emplace_back();
            } else {
                component[r] = component[root];
            }
            std::vector<std::int64_t>& f = out[static_cast<std::size_t>(component[r])];
            const std::int64_t base = static_cast<std::int64_t>(y) * width;
            for (int x = runs[i].x0; x <= runs[i].x1; ++x) f.push_back(base + x);
        }
    }
    std::erase_if(out, [&](const std::vector<std::int64_t>& f) { return static_cast<int>(f.size()) < minArea; });
    return out;
}

} // namespace

void filterDetectionImage(const ResidualView& residual, const std::vector<float>& rms,
                          const std::vector<std::uint8_t>& bad, int width, int height, double filterFwhm,
                          std::vector<float>& detection, std::vector<float>& noise, int threads) {
    const std::size_t n = static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
    detection.resize(n);
    noise.resize(n);
    detectionRows(residual, rms, bad, width, height, filterFwhm, detection.data(), noise.data(), threads,
                  [](int, const float*, const float*) {});
}

std::vector<std::vector<std::int64_t>> footprints(const std::vector<float>& detection, const std::vector<float>& noise,
                                                  int width, int height, double threshold, int minArea, int threads) {
    std::vector<std::vector<Run>> runs(static_cast<std::size_t>(height));
    parallelFor(0, static_cast<std::size_t>(height), 16, [&](std::size_t y0, std::size_t y1) {
        for (std::size_t y = y0; y < y1; ++y) {
            const std::size_t row = y * static_cast<std::size_t>(width);
            rowRuns(detection.data() + row, noise.data() + row, width, threshold, runs[y]);
        }
    }, threads > 0 ? threads : threadsForPixels(static_cast<double>(width) * height));
    return joinRuns(runs, width, height, minArea);
}

namespace {

struct CoreInputs {
    const ResidualView& residual;
    const std::vector<float>& rms;
    PixelValues detection;   // D and sigma_D, at the footprint's pixels
    PixelValues noise;
    const std::int32_t* sky; // a pixel: 1 where sigma_D > 0 and D is not above the threshold, else 0
    PixelValues split;       // the image the deblending reads (D, or D under a narrower filter), at the footprint's pixels
    PixelValues splitNoise;
    int width, height;
    const DetectParams& params;
};

// The exact brightest rectangle of a = D - threshold sigma_D over the segment's pixels within the window around
// its peak (pixels outside the segment may belong to no rectangle): O(w^2 h) over the window.
SourceCore segmentCore(const CoreInputs& in, const std::vector<std::int64_t>& segment) {
    const std::int64_t peak = peakPixel(segment, in.detection);
    const int px = static_cast<int>(peak % in.width), py = static_cast<int>(peak / in.width);
    const int r = std::max(1, in.params.coreRadius);
    const int x0 = std::max(0, px - r), x1 = std::min(in.width - 1, px + r);
    const int y0 = std::max(0, py - r), y1 = std::min(in.height - 1, py + r);
    const int w = x1 - x0 + 1, h = y1 - y0 + 1;
    std::vector<double> a(static_cast<std::size_t>(w) * h, -INFINITY);
    for (const std::int64_t p : segment) {
        const int x = static_cast<int>(p % in.width), y = static_cast<int>(p / in.width);
        if (x < x0 || x > x1 || y < y0 || y > y1) continue;
        const std::size_t i = static_cast<std::size_t>(p);
        a[static_cast<std::size_t>(y - y0) * w + (x - x0)] =
            static_cast<double>(in.detection[i]) - in.params.threshold * static_cast<double>(in.noise[i]);
    }
    SourceCore best{px, py, 1, 1, -INFINITY, 0.0};
    std::vector<double> col(static_cast<std::size_t>(w));
    for (int top = 0; top < h; ++top) {
        std::fill(col.begin(), col.end(), 0.0);
        for (int bottom = top; bottom < h; ++bottom) {
            double run = 0.0;
            int start = 0;
            for (int x = 0; x < w; ++x) {
                col[static_cast<std::size_t>(x)] += a[static_cast<std::size_t>(bottom) * w + x]; // -inf stays -inf
                const double c = col[static_cast<std::size_t>(x)];
                if (!std::isfinite(c)) {
                    run = 0.0;
                    start = x + 1;
                    continue;
                }
                if (run <= 0.0) {
                    run = c;
                    start = x;
                } else {
                    run += c;
                }
                if (run > best.sum) best = {x0 + start, y0 + top, x - start + 1, bottom - top + 1, run, 0.0};
            }
        }
    }
    double flux = 0.0, variance = 0.0;
    for (int y = best.y; y < best.y + best.height; ++y)
        for (int x = best.x; x < best.x + best.width; ++x) {
            const std::size_t i = static_cast<std::size_t>(y) * in.width + x;
            flux += in.residual.at(i);
            variance += static_cast<double>(in.rms[i]) * in.rms[i];
        }
    // Above the local pedestal: the median of v over a ring 2-5 px around the rectangle, among the pixels below the
    // threshold (the sky between sources). A bump on a galaxy's faint wing stands on that wing's light; a star on
    // flat sky stands on ~0. Fewer than 8 ring pixels (deep inside a footprint): no pedestal.
    std::vector<float> ring;
    const int rx0 = std::max(0, best.x - 5), rx1 = std::min(in.width - 1, best.x + best.width + 4);
    const int ry0 = std::max(0, best.y - 5), ry1 = std::min(in.height - 1, best.y + best.height + 4);
    for (int y = ry0; y <= ry1; ++y)
        for (int x = rx0; x <= rx1; ++x) {
            if (x >= best.x - 1 && x <= best.x + best.width && y >= best.y - 1 && y <= best.y + best.height) continue;
            const std::size_t i = static_cast<std::size_t>(y) * in.width + x;
            if (in.sky[i]) ring.push_back(in.residual.at(i));
        }
    double pedestal = 0.0;
    if (ring.size() >= 8) {
        std::nth_element(ring.begin(), ring.begin() + static_cast<std::ptrdiff_t>(ring.size() / 2), ring.end());
        pedestal = std::max(0.0, static_cast<double>(ring[ring.size() / 2]));
    }
    flux -= pedestal * best.width * best.height;
    best.snr = variance > 0.0 ? flux / std::sqrt(variance) : 0.0;
    return best;
}

// One footprint's sources: its segments (pixel lists), their cores, and counts.
struct FootprintSources {
    std::vector<std::vector<std::int64_t>> segments;
    std::vector<SourceCore> cores;
    bool overflow = false;
    int rejectedMarkers = 0;
    bool mergedInto = false, mergedAway = false; // CLEAN merged another segment into one of these / one of these away
    struct Peak {
        std::int64_t pixel = 0;               // the first of the segment's pixels (increasing) where D is largest
        float detection = 0.0f, noise = 0.0f; // D and sigma_D there
    };
    std::vector<Peak> peaks; // one per segment
};

FootprintSources footprintSources(const CoreInputs& in, const std::vector<std::int64_t>& pixels) {
    FootprintSources out;
    DeblendResult deblend = deblendFootprint(pixels, in.split, in.splitNoise, in.width, in.params);
    out.overflow = deblend.overflow;
    // The pixels go to the markers by their branches (modelAssignFootprint): a marker's own pixels are in its branch.
    std::vector<std::vector<std::int64_t>> branches = std::move(deblend.branches);
    for (;;) {
        const std::vector<std::int32_t> labels = modelAssignFootprint(pixels, branches, in.split, in.width);
        std::vector<std::vector<std::int64_t>> segments(branches.size());
        for (std::size_t i = 0; i < pixels.size(); ++i) segments[static_cast<std::size_t>(labels[i] - 1)].push_back(pixels[i]);
        std::vector<SourceCore> cores;
        std::vector<std::vector<std::int64_t>> kept;
        for (std::size_t m = 0; m < branches.size(); ++m) {
            const SourceCore core = segmentCore(in, segments[m]);
            if (in.params.minSnr > 0.0 && !(core.snr >= in.params.minSnr)) continue;
            cores.push_back(core);
            kept.push_back(std::move(branches[m]));
        }
        out.rejectedMarkers += static_cast<int>(branches.size() - kept.size());
        if (kept.size() == branches.size() || kept.empty()) {
            if (!kept.empty()) {
                out.segments = std::move(segments);
                out.cores = std::move(cores);
            }
            return out;
        }
        branches = std::move(kept); // the pixels of the rejected markers go to the others
    }
}

// What SExtractor's CLEAN reads of a segment (its clean.c, with abcor = 1): the flux of D over the segment, the
// barycentre and second moments of D > 0, a Moffat profile of that flux that falls to the detection threshold at the
// segment's area (amp (1 + alpha r^2)^-beta, r in units of the moments' ellipse), and mthresh, how far the segment's
// minArea-th brightest pixel stands above the threshold (0 under minArea pixels).
struct CleanShape {
    double flux = 0.0, x = 0.0, y = 0.0, cxx = 0.0, cyy = 0.0, cxy = 0.0, a = 0.0, amp = 0.0, alpha = 0.0, mthresh = 0.0;
    bool model = false; // amp and alpha defined (a positive flux above a positive threshold)
};

CleanShape cleanShape(const std::vector<std::int64_t>& segment, PixelValues detection, PixelValues noise, int width,
                      const DetectParams& params, double beta) {
    CleanShape c;
    const std::int64_t peak = peakPixel(segment, detection);
    std::vector<double> above;
    above.reserve(segment.size());
    for (const std::int64_t p : segment)
        above.push_back(static_cast<double>(detection[static_cast<std::size_t>(p)]) -
                        params.threshold * static_cast<double>(noise[static_cast<std::size_t>(p)]));
    const std::size_t k = static_cast<std::size_t>(std::max(1, params.minArea));
    if (above.size() >= k) {
        std::nth_element(above.begin(), above.begin() + static_cast<std::ptrdiff_t>(k - 1), above.end(), std::greater<>());
        c.mthresh = above[k - 1];
    }
    const DetectionMoments d = detectionMoments(segment, detection, width);
    c.flux = d.flux;
    if (!(c.flux > 0.0)) return c;
    c.x = d.cx;
    c.y = d.cy;
    double x2 = d.x2, y2 = d.y2;
    const double c2 = d.xy;
    if (x2 * y2 - c2 * c2 < 1.0 / 144.0) { // SExtractor's guard against a singular (one-pixel-wide) profile
        x2 += 1.0 / 12.0;
        y2 += 1.0 / 12.0;
    }
    const double det = x2 * y2 - c2 * c2;
    const double half = 0.5 * (x2 + y2), root = std::sqrt(0.25 * (x2 - y2) * (x2 - y2) + c2 * c2);
    const double a = std::sqrt(half + root), b = std::sqrt(std::max(half - root, 1e-12));
    c.a = a;
    c.cxx = y2 / det;
    c.cyy = x2 / det;
    c.cxy = -2.0 * c2 / det;
    const double unitArea = M_PI * a * b;
    const double threshold = params.threshold * static_cast<double>(noise[static_cast<std::size_t>(peak)]);
    c.amp = c.flux / (2.0 * unitArea);
    if (threshold > 0.0 && c.amp > threshold) {
        c.alpha = (std::pow(c.amp / threshold, 1.0 / beta) - 1.0) * unitArea / static_cast<double>(segment.size());
        c.model = true;
    }
    return c;
}

// SExtractor's CLEAN over all segments: a segment is merged into a brighter one (larger flux of D) within 10 (a + a')
// whose Moffat profile at its barycentre exceeds its mthresh -- a bump on a bright object's wing, which that object's
// own light explains. Brightest first; a segment goes to the first (brightest) survivor that explains it. Returns,
// per segment, the index of the survivor it went to (never itself merged), or -1.
std::vector<std::ptrdiff_t> cleanSegments(const std::vector<CleanShape>& shapes, double beta) {
    const std::size_t n = shapes.size();
    std::vector<std::ptrdiff_t> eatenBy(n, -1);
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t i, std::size_t j) { return shapes[i].flux > shapes[j].flux; });
    std::vector<std::size_t> rankOf(n);
    for (std::size_t k = 0; k < n; ++k) rankOf[order[k]] = k;
    // Survivors of a < kWide on a grid of 64 px cells, visited within 10 (a + kWide) of the candidate; the few wider
    // ones (galaxies, saturated stars), whose zone reaches far, in a list every candidate visits.
    constexpr double kZone = 10.0, kCell = 64.0, kWide = 4.0;
    if (n == 0) return eatenBy;
    double gx0 = INFINITY, gy0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
    for (const CleanShape& c : shapes) {
        gx0 = std::min(gx0, c.x);
        gy0 = std::min(gy0, c.y);
        x1 = std::max(x1, c.x);
        y1 = std::max(y1, c.y);
    }
    const int gw = static_cast<int>((x1 - gx0) / kCell) + 1, gh = static_cast<int>((y1 - gy0) / kCell) + 1;
    std::vector<std::vector<std::size_t>> cells(static_cast<std::size_t>(gw) * gh);
    std::vector<std::size_t> wide;
    auto cellOf = [&](double v, double origin, int count) { return std::clamp(static_cast<int>((v - origin) / kCell), 0, count - 1); };
    for (const std::size_t j : order) {
        const CleanShape& victim = shapes[j];
        std::ptrdiff_t eater = -1;
        std::size_t eaterRank = n;
        auto consider = [&](std::size_t i) {
            const CleanShape& big = shapes[i];
            if (!big.model || !(big.flux > victim.flux)) return;
            const double dx = victim.x - big.x, dy = victim.y - big.y, zone = kZone * (big.a + victim.a);
            if (dx * dx + dy * dy >= zone * zone) return;
            const double val = 1.0 + big.alpha * (big.cxx * dx * dx + big.cyy * dy * dy + big.cxy * dx * dy);
            if (!(val > 1.0) || !(big.amp * std::pow(val, -beta) > victim.mthresh)) return;
            if (rankOf[i] < eaterRank) { // the brightest that explains it
                eaterRank = rankOf[i];
                eater = static_cast<std::ptrdiff_t>(i);
            }
        };
        for (const std::size_t i : wide) consider(i);
        const double reach = kZone * (victim.a + kWide);
        const int cx0 = cellOf(victim.x - reach, gx0, gw), cx1 = cellOf(victim.x + reach, gx0, gw);
        const int cy0 = cellOf(victim.y - reach, gy0, gh), cy1 = cellOf(victim.y + reach, gy0, gh);
        for (int cy = cy0; cy <= cy1; ++cy)
            for (int cx = cx0; cx <= cx1; ++cx)
                for (const std::size_t i : cells[static_cast<std::size_t>(cy) * gw + cx]) consider(i);
        if (eater >= 0) {
            eatenBy[j] = eater;
            continue;
        }
        if (victim.a >= kWide) wide.push_back(j);
        else cells[static_cast<std::size_t>(cellOf(victim.y, gy0, gh)) * gw + cellOf(victim.x, gx0, gw)].push_back(j);
    }
    return eatenBy;
}

} // namespace

std::vector<std::uint8_t> sourceMask(const std::vector<std::vector<std::int64_t>>& prints, int width, int height) {
    std::vector<std::uint8_t> mask(static_cast<std::size_t>(width) * static_cast<std::size_t>(height), 0);
    std::vector<int> run;
    for (const std::vector<std::int64_t>& f : prints) {
        const int r = std::clamp(static_cast<int>(std::ceil(0.5 * std::sqrt(static_cast<double>(f.size()) / M_PI))), 2, 64);
        int x0 = width, y0 = height, x1 = -1, y1 = -1;
        for (const std::int64_t p : f) {
            x0 = std::min(x0, static_cast<int>(p % width));
            x1 = std::max(x1, static_cast<int>(p % width));
            y0 = std::min(y0, static_cast<int>(p / width));
            y1 = std::max(y1, static_cast<int>(p / width));
        }
        // Square dilation by r on a grid over the grown box: rows, then columns, by prefix counts.
        const int gx0 = std::max(0, x0 - r), gy0 = std::max(0, y0 - r), gx1 = std::min(width - 1, x1 + r), gy1 = std::min(height - 1, y1 + r);
        const int gw = gx1 - gx0 + 1, gh = gy1 - gy0 + 1;
        std::vector<std::uint8_t> g(static_cast<std::size_t>(gw) * gh, 0), hgrid(g.size(), 0);
        for (const std::int64_t p : f) g[static_cast<std::size_t>(p / width - gy0) * gw + static_cast<std::size_t>(p % width - gx0)] = 1;
        run.assign(static_cast<std::size_t>(std::max(gw, gh)) + 1, 0);
        for (int y = 0; y < gh; ++y) {
            for (int x = 0; x < gw; ++x) run[static_cast<std::size_t>(x) + 1] = run[static_cast<std::size_t>(x)] + g[static_cast<std::size_t>(y) * gw + x];
            for (int x = 0; x < gw; ++x)
                hgrid[static_cast<std::size_t>(y) * gw + x] = run[static_cast<std::size_t>(std::min(gw, x + r + 1))] > run[static_cast<std::size_t>(std::max(0, x - r))];
        }
        for (int x = 0; x < gw; ++x) {
            for (int y = 0; y < gh; ++y) run[static_cast<std::size_t>(y) + 1] = run[static_cast<std::size_t>(y)] + hgrid[static_cast<std::size_t>(y) * gw + x];
            for (int y = 0; y < gh; ++y)
                if (run[static_cast<std::size_t>(std::min(gh, y + r + 1))] > run[static_cast<std::size_t>(std::max(0, y - r))])
                    mask[static_cast<std::size_t>(gy0 + y) * width + static_cast<std::size_t>(gx0 + x)] = 1;
        }
    }
    return mask;
}

Detection detectSources(const ResidualView& residual, const std::vector<float>& rms,
                        const std::vector<std::uint8_t>& bad, int width, int height, const DetectParams& params,
                        JobControl* job) {
    Detection det;
    // Sub-steps of the caller's "detect" in the timing report (without a job: none); one at a time.
    std::optional<Timing::Scope> step;
    auto next = [&](const char* name) {
        step.reset();
        if (job) step.emplace(job->timing(), name);
    };
    next("detect: filter");
    // D and sigma_D are made a row at a time and kept only where the footprints need them: each row's runs of
    // pixels above the threshold with their values, and a flag a pixel for the cores' rings (sky: in the memory of
    // the segmentation map, which is made after it is read); the whole maps only when asked for (keepMaps).
    const std::size_t n = static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
    if (params.keepMaps) {
        det.detectionImage.resize(n);
        det.detectionNoise.resize(n);
    }
    std::vector<std::vector<Run>> runs(static_cast<std::size_t>(height));
    std::vector<std::vector<float>> runValues(static_cast<std::size_t>(height)); // D, sigma_D of the runs' pixels
    std::vector<std::int32_t>& sky = det.segmentation;
    sky.resize(n);
    detectionRows(residual, rms, bad, width, height, params.filterFwhm, params.keepMaps ? det.detectionImage.data() : nullptr,
                  params.keepMaps ? det.detectionNoise.data() : nullptr, params.threads,
                  [&](int y, const float* d, const float* sd) {
                      const std::size_t row = static_cast<std::size_t>(y);
                      rowRuns(d, sd, width, params.threshold, runs[row]);
                      std::vector<float>& values = runValues[row];
                      if (!runs[row].empty()) values.resize(2 * (runs[row].back().at + static_cast<std::size_t>(runs[row].back().x1 - runs[row].back().x0 + 1)));
                      float* value = values.data();
                      for (const Run& r : runs[row])
                          for (int x = r.x0; x <= r.x1; ++x) {
                              *value++ = d[x];
                              *value++ = sd[x];
                          }
                      // sigma_D > 0 (a branch-free loop), less the runs' pixels above the threshold.
                      std::int32_t* out = sky.data() + row * static_cast<std::size_t>(width);
                      for (int x = 0; x < width; ++x) out[x] = sd[x] > 0.0f;
                      for (const Run& r : runs[row]) std::fill(out + r.x0, out + r.x1 + 1, 0);
                  });
    if (job) job->throwIfCancelled();
    next("detect: footprints");
    det.footprintPixels = joinRuns(runs, width, height, std::max(1, params.minArea));
    const std::vector<std::vector<std::int64_t>>& prints = det.footprintPixels;
    det.footprints = static_cast<int>(prints.size());
    if (job) job->throwIfCancelled();

    // Each footprint's D and sigma_D go into a band of its rows (a thread's, reused footprint after footprint; left
    // uninitialised: only the footprint's pixels are written and read). The deblending reads the image under a
    // narrower filter when one is asked (close pairs stay apart there): the footprint's pixels filtered with it into
    // two more such bands, not into image-sized maps.
    const bool narrower = params.deblendFilterFwhm > 0.0 && params.deblendFilterFwhm != params.filterFwhm;
    std::optional<BoxFilter> splitFilter;
    if (narrower) splitFilter.emplace(residual, rms, bad, width, height, params.deblendFilterFwhm);
    std::vector<FootprintSources> found(prints.size());
    std::vector<std::vector<CleanShape>> shapes(params.clean ? prints.size() : 0); // each segment's, for CLEAN
    // The largest footprints are taken first (a big one started last would leave the other threads idle); each
    // footprint's result is its own, kept in the footprints' order, so the order of the work changes no bit.
    std::vector<std::size_t> order(prints.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return prints[a].size() > prints[b].size(); });
    next("detect: deblend");
    parallelFor(0, order.size(), 1, [&](std::size_t b, std::size_t e) {
        std::unique_ptr<float[]> band; // D, sigma_D (and the narrower filter's two) one after the other
        std::size_t bandSize = 0;
        const std::size_t maps = narrower ? 4 : 2;
        for (std::size_t k = b; k < e; ++k) {
            const std::size_t f = order[k];
            if (job) job->throwIfCancelled();
            const std::vector<std::int64_t>& pixels = prints[f];
            const std::int64_t origin = pixels.front() / width * width;
            const std::size_t size = static_cast<std::size_t>(pixels.back() / width * width + width - origin);
            if (size > bandSize) {
                band.reset(new float[maps * size]);
                bandSize = size;
            }
            float* d = band.get();
            float* sd = d + size;
            // A footprint is whole runs: its pixels, in order, run after run; each run's values from its row's.
            for (std::size_t i = 0; i < pixels.size();) {
                const std::size_t y = static_cast<std::size_t>(pixels[i] / width);
                const int x = static_cast<int>(pixels[i] % width);
                const std::vector<Run>& row = runs[y];
                const Run& run = *std::prev(std::upper_bound(row.begin(), row.end(), x, [](int v, const Run& r) { return v < r.x0; }));
                const float* values = runValues[y].data() + 2 * static_cast<std::size_t>(run.at);
                const std::size_t at = static_cast<std::size_t>(pixels[i] - origin);
                for (int k = 0; k <= run.x1 - run.x0; ++k) {
                    d[at + static_cast<std::size_t>(k)] = values[2 * k];
                    sd[at + static_cast<std::size_t>(k)] = values[2 * k + 1];
                }
                i += static_cast<std::size_t>(run.x1 - run.x0 + 1);
            }
            const PixelValues detection(d, origin), noise(sd, origin);
            CoreInputs in{residual, rms, detection, noise, sky.data(), detection, noise, width, height, params};
            if (splitFilter) {
                filterFootprint(*splitFilter, pixels, width, sd + size, sd + 2 * size, origin);
                in.split = PixelValues(sd + size, origin);
                in.splitNoise = PixelValues(sd + 2 * size, origin);
            }
            FootprintSources& fs = found[f];
            fs = footprintSources(in, pixels);
            for (const std::vector<std::int64_t>& segment : fs.segments) {
                const std::size_t peak = static_cast<std::size_t>(peakPixel(segment, detection));
                fs.peaks.push_back({static_cast<std::int64_t>(peak), detection[peak], noise[peak]});
                if (params.clean) shapes[f].push_back(cleanShape(segment, detection, noise, width, params, params.cleanBeta));
            }
        }
    }, params.threads);
    releaseMemory(runs);
    releaseMemory(runValues);
    if (params.clean) {
        next("detect: clean");
        struct Ref {
            std::size_t footprint, segment;
        };
        std::vector<Ref> refs;
        std::vector<CleanShape> all;
        for (std::size_t f = 0; f < found.size(); ++f)
            for (std::size_t k = 0; k < found[f].segments.size(); ++k) {
                refs.push_back({f, k});
                all.push_back(shapes[f][k]);
            }
        releaseMemory(shapes);
        const std::vector<std::ptrdiff_t> eatenBy = cleanSegments(all, params.cleanBeta);
        // Each merged segment's pixels go to the survivor that explains it, whose footprint is then blended.
        for (std::size_t r = 0; r < refs.size(); ++r) {
            if (eatenBy[r] < 0) continue;
            const std::size_t to = static_cast<std::size_t>(eatenBy[r]);
            std::vector<std::int64_t>& from = found[refs[r].footprint].segments[refs[r].segment];
            std::vector<std::int64_t>& into = found[refs[to].footprint].segments[refs[to].segment];
            std::vector<std::int64_t> merged;
            merged.reserve(from.size() + into.size());
            std::merge(into.begin(), into.end(), from.begin(), from.end(), std::back_inserter(merged));
            into = std::move(merged);
            from.clear();
            // The merged segment's peak: the larger D, the first pixel among equals (as a scan of its pixels finds).
            FootprintSources::Peak& kept = found[refs[to].footprint].peaks[refs[to].segment];
            const FootprintSources::Peak& gone = found[refs[r].footprint].peaks[refs[r].segment];
            if (gone.detection > kept.detection || (gone.detection == kept.detection && gone.pixel < kept.pixel)) kept = gone;
            found[refs[to].footprint].mergedInto = true;
            ++det.cleaned;
        }
        // The merged segments leave their footprints' lists (with their cores).
        std::size_t r = 0;
        for (FootprintSources& fs : found) {
            std::vector<std::vector<std::int64_t>> segments;
            std::vector<SourceCore> cores;
            std::vector<FootprintSources::Peak> peaks;
            for (std::size_t k = 0; k < fs.segments.size(); ++k, ++r) {
                if (eatenBy[r] >= 0) {
                    fs.mergedAway = true;
                    continue;
                }
                segments.push_back(std::move(fs.segments[k]));
                cores.push_back(fs.cores[k]);
                peaks.push_back(fs.peaks[k]);
            }
            fs.segments = std::move(segments);
            fs.cores = std::move(cores);
            fs.peaks = std::move(peaks);
        }
    }
    next("detect: segments");
    for (std::size_t f = 0; f < found.size(); ++f) {
        FootprintSources& fs = found[f];
        det.rejectedMarkers += fs.rejectedMarkers;
        if (fs.segments.empty()) {
            if (!fs.mergedAway) ++det.rejectedFootprints; // (a footprint whose sources were all cleaned is not)
            continue;
        }
        for (std::size_t s = 0; s < fs.segments.size(); ++s) {
            SourceSegment seg;
            seg.number = static_cast<int>(det.segments.size()) + 1;
            seg.xmin = width;
            seg.ymin = height;
            seg.xmax = seg.ymax = -1;
            for (const std::int64_t p : fs.segments[s]) {
                const int x = static_cast<int>(p % width), y = static_cast<int>(p / width);
                seg.xmin = std::min(seg.xmin, x);
                seg.xmax = std::max(seg.xmax, x);
                seg.ymin = std::min(seg.ymin, y);
                seg.ymax = std::max(seg.ymax, y);
            }
            seg.area = static_cast<std::int64_t>(fs.segments[s].size());
            seg.threshold = params.threshold * fs.peaks[s].noise;
            if (fs.segments.size() > 1 || fs.mergedInto || fs.mergedAway) seg.flags |= kSourceBlended;
            if (fs.overflow) seg.flags |= kSourceDeblendOverflow;
            det.segments.push_back(seg);
            det.cores.push_back(fs.cores[s]);
        }
    }
    std::fill(det.segmentation.begin(), det.segmentation.end(), 0); // (the sky flags were there)
    std::int32_t number = 0;
    for (const FootprintSources& fs : found)
        for (const std::vector<std::int64_t>& segment : fs.segments) {
            ++number;
            for (const std::int64_t p : segment) det.segmentation[static_cast<std::size_t>(p)] = number;
        }
    return det;
}

} // namespace glint
