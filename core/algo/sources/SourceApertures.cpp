#include "core/algo/sources/SourceApertures.h"

#include "core/io/Image.h"
#include "core/util/Parallel.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace glint::measure {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr int kOversample = 5;            // SExtractor's APER_OVERSAMP
constexpr double kHalfDiagonal = 0.70711; // half a pixel's diagonal (px), a little over sqrt(2) / 2
constexpr double kWindowSigmas = 4.0;     // SExtractor's WINPOS_NSIG
constexpr int kWindowSteps = 16;          // WINPOS_NITERMAX
constexpr double kWindowStep = 2e-4;      // px

template <class T>
void checkSize(const std::vector<T>* v, std::size_t n, const char* what) {
    if (v && !v->empty() && v->size() != n)
        throw std::invalid_argument(std::string("measureSources: the ") + what + " map does not match the image size");
}

// The pixel range [lo, hi] (clamped to [0, n - 1]) whose pixels meet [c - h, c + h]; empty when lo > hi.
std::pair<int, int> pixelRange(double c, double h, int n) {
    const double lo = std::clamp(std::ceil(c - h - 0.5), 0.0, static_cast<double>(n));
    const double hi = std::clamp(std::floor(c + h + 0.5), -1.0, static_cast<double>(n - 1));
    return {static_cast<int>(lo), static_cast<int>(hi)};
}

double quadratic(const Ellipse& e, double dx, double dy) {
    return e.cxx * dx * dx + e.cyy * dy * dy + e.cxy * dx * dy;
}

// The ellipse's half extents along x and y (its bounding box about the centre).
std::pair<double, double> halfExtents(const Ellipse& e) {
    const double det = e.cxx * e.cyy - 0.25 * e.cxy * e.cxy;
    return {e.r * std::sqrt(e.cyy / det), e.r * std::sqrt(e.cxx / det)};
}

} // namespace

FieldAccess::FieldAccess(const SourceField& field) : field_(field), width_(field.width), height_(field.height) {
    if (!field.image || !field.segmentation) throw std::invalid_argument("measureSources: the field needs an image and a segmentation");
    if (field.image->width() != width_ || field.image->height() != height_)
        throw std::invalid_argument("measureSources: the field's size does not match its image");
    const std::size_t n = field.image->pixelCount();
    if (field.segmentation->size() != n) throw std::invalid_argument("measureSources: the segmentation map does not match the image size");
    checkSize(field.background, n, "background");
    checkSize(field.rms, n, "RMS");
    checkSize(field.bad, n, "bad-pixel");
    field.image->visit([&](const auto* samples) {
        using T = std::remove_cv_t<std::remove_pointer_t<decltype(samples)>>;
        raw_ = samples;
        if constexpr (std::is_same_v<T, float>) rawType_ = RawType::Float;
        else if constexpr (std::is_same_v<T, std::int16_t>) rawType_ = RawType::Int16;
        else if constexpr (std::is_same_v<T, std::uint16_t>) rawType_ = RawType::UInt16;
        else if constexpr (std::is_same_v<T, std::int32_t>) rawType_ = RawType::Int32;
        else if constexpr (std::is_same_v<T, double>) rawType_ = RawType::Double;
    });
    if (field.background && !field.background->empty()) background_ = field.background->data();
    if (field.rms && !field.rms->empty()) rms_ = field.rms->data();
    usable_.resize(n);
    // Usable: not bad (the bad map), not blank, a finite I and B, and a finite sigma >= 0 where there is an RMS
    // map. A pass per map over blocks that stay in cache, each a plain comparison (they vectorise; one loop
    // testing every map had its null checks and std::isfinite calls inside and took ~45 instructions a pixel).
    // |v| <= max is std::isfinite for a float or double (NaN compares false); 0 <= s <= max is finite s >= 0.
    const std::uint8_t* bad = field.bad && !field.bad->empty() ? field.bad->data() : nullptr;
    const std::uint8_t* blank = field.image->hasBlanks() ? field.image->blankMask().data() : nullptr;
    const float* back = background_;
    const float* rms = rms_;
    std::uint8_t* usable = usable_.data();
    field.image->visit([&](const auto* raw) {
        using T = std::remove_cv_t<std::remove_pointer_t<decltype(raw)>>;
        parallelFor(0, n, std::size_t{1} << 18, [&, raw](std::size_t b, std::size_t e) {
            // Locals (restrict): a byte store may alias anything, which kept the captures' reloads in the loops.
            std::uint8_t* __restrict out = usable;
            const T* __restrict in = raw;
            const float* __restrict bg = back;
            const float* __restrict sd = rms;
            const std::uint8_t* __restrict bd = bad;
            const std::uint8_t* __restrict bl = blank;
            constexpr std::size_t kBlock = 4096;
            constexpr float kFloatMax = std::numeric_limits<float>::max();
            for (std::size_t b0 = b; b0 < e; b0 += kBlock) {
                const std::size_t b1 = std::min(e, b0 + kBlock);
                if constexpr (std::is_floating_point_v<T>) {
                    constexpr T kMax = std::numeric_limits<T>::max();
                    for (std::size_t i = b0; i < b1; ++i) out[i] = std::fabs(in[i]) <= kMax;
                } else {
                    std::fill(out + b0, out + b1, std::uint8_t{1});
                }
                if (bg)
                    for (std::size_t i = b0; i < b1; ++i) out[i] &= std::fabs(bg[i]) <= kFloatMax;
                if (sd)
                    for (std::size_t i = b0; i < b1; ++i) out[i] &= sd[i] >= 0.0f && sd[i] <= kFloatMax;
                if (bd)
                    for (std::size_t i = b0; i < b1; ++i) out[i] &= bd[i] == 0;
                if (bl)
                    for (std::size_t i = b0; i < b1; ++i) out[i] &= bl[i] == 0;
            }
        });
    });
}

double FieldAccess::rawSlow(std::size_t i) const { return field_.image->value(i); }

namespace {

// std::round (half away from zero) for |v| < 2^52, without a call into libm: a call inside the aperture loops made
// the compiler keep the loops' sums in memory. The same integer as std::round for every such v.
inline long long roundHalfAway(double v) {
    long long i = static_cast<long long>(v); // toward zero
    const double f = v - static_cast<double>(i); // exact: |v| < 2^52
    if (f >= 0.5) ++i;
    else if (f <= -0.5) --i;
    return i;
}

// MASK_TYPE CORRECT's mirror pixel along one axis: the coordinate 2c - x rounded, or -1 when it falls outside
// [0, n) (or |2c - x| >= 4e15: a centre far outside the image, or not finite).
inline int mirrorCoordinate(double v, int n) {
    if (!(std::abs(v) < 4.0e15)) return -1;
    const long long m = roundHalfAway(v);
    return m >= 0 && m < n ? static_cast<int>(m) : -1;
}

// maskedPixel, inlined into the aperture loops.
inline __attribute__((always_inline)) MaskedPixel masked(const FieldAccess& access, int number, int x, int y,
                                                         double cx, double cy) {
    MaskedPixel m;
    m.state = access.state(x, y, number);
    if (m.state == PixelState::Outside) return m;
    if (m.state == PixelState::Free) {
        const std::size_t i = access.index(x, y);
        m.value = access.value(i);
        m.variance = access.variance(i);
        m.counted = true;
        return m;
    }
    // The mirror image through the centre.
    const int sx = mirrorCoordinate(2.0 * cx - x, access.width()), sy = mirrorCoordinate(2.0 * cy - y, access.height());
    if (sx < 0 || sy < 0) return m;
    if (access.state(sx, sy, number) != PixelState::Free) return m;
    const std::size_t j = access.index(sx, sy);
    m.value = access.value(j);
    m.variance = access.variance(j);
    m.counted = true;
    return m;
}

} // namespace

MaskedPixel maskedPixel(const FieldAccess& access, int number, int x, int y, double cx, double cy) {
    return masked(access, number, x, y, cx, cy);
}

bool Ellipse::valid() const {
    return std::isfinite(cx) && std::isfinite(cy) && std::isfinite(cxx) && std::isfinite(cyy) && std::isfinite(cxy) &&
           std::isfinite(r) && r > 0.0 && cxx > 0.0 && cyy > 0.0 && cxx * cyy - 0.25 * cxy * cxy > 0.0;
}

ApertureSum sumAperture(const FieldAccess& access, int number, const Ellipse& e, double gain) {
    ApertureSum s;
    if (!e.valid()) {
        s.flux = s.variance = s.area = s.maskedArea = kNaN;
        return s;
    }
    const auto [hx, hy] = halfExtents(e);
    // The ellipse is tight in its bounding box: it reaches outside exactly when the box does.
    s.outside = e.cx - hx < -0.5 || e.cy - hy < -0.5 || e.cx + hx > access.width() - 0.5 || e.cy + hy > access.height() - 0.5;
    // |grad sqrt(q)| <= sqrt(largest eigenvalue): a pixel whose centre is more than half a diagonal (in that
    // metric) inside or outside the boundary lies wholly inside or outside.
    const double lmax = 0.5 * (e.cxx + e.cyy) + std::sqrt(0.25 * (e.cxx - e.cyy) * (e.cxx - e.cyy) + 0.25 * e.cxy * e.cxy);
    const double margin = kHalfDiagonal * std::sqrt(lmax);
    const double rin2 = e.r > margin ? (e.r - margin) * (e.r - margin) : -1.0;
    const double rout2 = (e.r + margin) * (e.r + margin), r2 = e.r * e.r;
    const auto [x0, x1] = pixelRange(e.cx, hx, access.width());
    const auto [y0, y1] = pixelRange(e.cy, hy, access.height());
    for (int y = y0; y <= y1; ++y) {
        for (int x = x0; x <= x1; ++x) {
            const double dx = x - e.cx, dy = y - e.cy;
            const double q = quadratic(e, dx, dy);
            if (q > rout2) continue;
            double frac = 1.0;
            if (q > rin2) {
                int hits = 0;
                for (int j = 0; j < kOversample; ++j) {
                    const double sy = dy + (j + 0.5) / kOversample - 0.5;
                    for (int i = 0; i < kOversample; ++i) {
                        const double sx = dx + (i + 0.5) / kOversample - 0.5;
                        hits += quadratic(e, sx, sy) <= r2 ? 1 : 0;
                    }
                }
                if (hits == 0) continue;
                frac = static_cast<double>(hits) / (kOversample * kOversample);
            }
            s.area += frac;
            const MaskedPixel m = masked(access, number, x, y, e.cx, e.cy);
            if (m.state == PixelState::Bad) s.overBad = true;
            if (m.state != PixelState::Free) s.maskedArea += frac;
            if (!m.counted) continue;
            s.flux += frac * m.value;
            s.variance += frac * m.variance;
            if (gain > 0.0 && m.value > 0.0) s.variance += frac * m.value / gain;
        }
    }
    return s;
}

std::pair<std::int64_t, std::int64_t> segmentShares(const Ellipse& e, const std::vector<std::int32_t>& segmentation, int width,
                                                    int height, int number) {
    if (!e.valid()) return {0, 0};
    const auto [hx, hy] = halfExtents(e);
    const auto [x0, x1] = pixelRange(e.cx, hx, width);
    const auto [y0, y1] = pixelRange(e.cy, hy, height);
    const double r2 = e.r * e.r;
    std::int64_t own = 0, other = 0;
    for (int y = y0; y <= y1; ++y)
        for (int x = x0; x <= x1; ++x) {
            if (quadratic(e, x - e.cx, y - e.cy) > r2) continue;
            const std::int32_t label = segmentation[static_cast<std::size_t>(y) * static_cast<std::size_t>(width) + static_cast<std::size_t>(x)];
            if (label == number) ++own;
            else if (label > 0) ++other;
        }
    return {own, other};
}

double kronRadius(const FieldAccess& access, int number, const Ellipse& e) {
    if (!e.valid()) return kNaN;
    const auto [hx, hy] = halfExtents(e);
    const auto [x0, x1] = pixelRange(e.cx, hx, access.width());
    const auto [y0, y1] = pixelRange(e.cy, hy, access.height());
    const double r2 = e.r * e.r;
    double sumRv = 0.0, sumV = 0.0;
    long long counted = 0;
    for (int y = y0; y <= y1; ++y) {
        for (int x = x0; x <= x1; ++x) {
            const double q = quadratic(e, x - e.cx, y - e.cy);
            if (q > r2) continue;
            const MaskedPixel m = masked(access, number, x, y, e.cx, e.cy);
            if (!m.counted) continue;
            sumRv += std::sqrt(q) * m.value;
            sumV += m.value;
            ++counted;
        }
    }
    if (counted == 0 || !(sumV > 0.0) || !(sumRv > 0.0)) return kNaN;
    return sumRv / sumV;
}

double halfLightRadius(const FieldAccess& access, int number, double cx, double cy, double rmax, double halfFlux) {
    if (!std::isfinite(cx) || !std::isfinite(cy) || !(rmax > 0.0) || !std::isfinite(rmax) || !(halfFlux > 0.0) ||
        !std::isfinite(halfFlux))
        return kNaN;
    const auto [x0, x1] = pixelRange(cx, rmax, access.width());
    const auto [y0, y1] = pixelRange(cy, rmax, access.height());
    std::vector<std::pair<double, double>> profile; // (r, v)
    const double rmax2 = rmax * rmax;
    for (int y = y0; y <= y1; ++y) {
        const double dy = y - cy;
        for (int x = x0; x <= x1; ++x) {
            const double dx = x - cx;
            // hypot only near the rim, where dx^2 + dy^2 and the radius could round to different sides of rmax.
            const double d2 = dx * dx + dy * dy;
            if (d2 > rmax2 * (1.0 + 1e-12)) continue;
            const double r = std::hypot(dx, dy);
            if (r > rmax) continue;
            const MaskedPixel m = masked(access, number, x, y, cx, cy);
            if (!m.counted) continue;
            profile.emplace_back(r, m.value);
        }
    }
    // The walk over the pixels in order of (r, v) stops where halfFlux is reached, usually well inside rmax: the
    // profile is ordered a block at a time (nth_element, then a sort of the block), which walks the same pixels in
    // the same order as one full sort and stops sorting there.
    double r0 = 0.0, c0 = 0.0;
    const std::size_t n = profile.size();
    std::size_t begin = 0, block = std::max<std::size_t>(256, n / 8);
    while (begin < n) {
        const std::size_t end = std::min(n, begin + block);
        if (end < n) std::nth_element(profile.begin() + static_cast<std::ptrdiff_t>(begin), profile.begin() + static_cast<std::ptrdiff_t>(end),
                                      profile.end());
        std::sort(profile.begin() + static_cast<std::ptrdiff_t>(begin), profile.begin() + static_cast<std::ptrdiff_t>(end));
        for (std::size_t i = begin; i < end; ++i) {
            const auto [r, v] = profile[i];
            const double c1 = c0 + v;
            if (c1 >= halfFlux) return c1 > c0 ? r0 + (r - r0) * (halfFlux - c0) / (c1 - c0) : r;
            r0 = r;
            c0 = c1;
        }
        begin = end;
        block *= 2;
    }
    return rmax; // the growth curve stays below half the flux within rmax (a source on a pedestal): SExtractor's cap
}

namespace {

// One pass of the windowed centroid: sums of w v, w v dx, w v dy over the pixel centres within rmax of (x, y),
// each pixel's value as masked() gives it (MASK_TYPE CORRECT), read through getI (FieldAccess::withRaw) and the
// maps directly. A row at a time: its columns within rmax (the same pixels as the test dx^2 + dy^2 <= rmax^2 on each,
// found from the square root and checked at both ends), their masked values gathered into vals (0 for a pixel that
// counts for nothing), then the row's sums S0 = sum wx v and S1 = sum wx v dx in four lanes:
// sw += wy S0, sx += wy S1, sy += wy dy S0 (the weight is separable).
struct WindowSums {
    double sw = 0.0, sx = 0.0, sy = 0.0;
};
template <class GetI>
WindowSums windowPass(const FieldAccess& access, GetI getI, int number, double x, double y, double rmax, int xa, int xb,
                      int ya, int yb, const double* wx, const double* wy, std::vector<double>& vals,
                      std::vector<std::uint8_t>& freeFlags) {
    const std::uint8_t* __restrict usable = access.usableMap();
    const std::int32_t* __restrict labels = access.labels();
    const float* __restrict background = access.backgroundMap();
    const int width = access.width(), height = access.height();
    const auto valueAt = [&](std::size_t i) { return getI(i) - (background ? static_cast<double>(background[i]) : 0.0); };
    const auto free = [&](std::size_t i) { return usable[i] != 0 && (labels[i] == 0 || labels[i] == number); };
    const double r2max = rmax * rmax;
    vals.resize(static_cast<std::size_t>(std::max(0, xb - xa + 1)));
    freeFlags.resize(vals.size());
    double sw = 0.0, sx = 0.0, sy = 0.0; // locals, not the struct's members: they stay in registers
    for (int py = ya; py <= yb; ++py) {
        const double dy = py - y;
        const auto within = [&](int px) {
            const double dx = px - x;
            return !(dx * dx + dy * dy > r2max);
        };
        const double half = std::sqrt(std::max(r2max - dy * dy, 0.0));
        int xl = std::max(xa, static_cast<int>(std::ceil(x - half)));
        int xr = std::min(xb, static_cast<int>(std::floor(x + half)));
        while (xl <= xr && !within(xl)) ++xl;
        while (xl > xa && within(xl - 1)) --xl;
        while (xr >= xl && !within(xr)) --xr;
        while (xr < xb && within(xr + 1)) ++xr;
        if (xl > xr) continue;
        const int my = mirrorCoordinate(2.0 * y - py, height); // the row's mirror row (masked()'s rule)
        const std::size_t row = static_cast<std::size_t>(py) * static_cast<std::size_t>(width);
        const int n = xr - xl + 1;
        double* __restrict v = vals.data();
        std::uint8_t* __restrict own = freeFlags.data();
        // The row's values and which pixels are free (branch-free: these loops vectorise), then the others from
        // their mirror pixels (or 0: they count for nothing).
        const std::size_t first = row + static_cast<std::size_t>(xl);
        if (background)
            for (int k = 0; k < n; ++k) v[k] = getI(first + static_cast<std::size_t>(k)) - static_cast<double>(background[first + static_cast<std::size_t>(k)]);
        else
            for (int k = 0; k < n; ++k) v[k] = getI(first + static_cast<std::size_t>(k));
        for (int k = 0; k < n; ++k) {
            const std::size_t i = first + static_cast<std::size_t>(k);
            own[k] = static_cast<std::uint8_t>(usable[i] & static_cast<std::uint8_t>((labels[i] == 0) | (labels[i] == number)));
        }
        // The mirror column of xl + k is m0 - k (2x - px falls by one a column; its nearest integer with it).
        const long long m0 = roundHalfAway(2.0 * x - xl);
        const std::size_t mirrorRow = my < 0 ? 0 : static_cast<std::size_t>(my) * static_cast<std::size_t>(width);
        for (int k = 0; k < n; ++k) {
            if (own[k]) continue;
            double value = 0.0;
            const long long mx = m0 - k;
            if (my >= 0 && mx >= 0 && mx < width) {
                const std::size_t j = mirrorRow + static_cast<std::size_t>(mx);
                if (free(j)) value = valueAt(j);
            }
            v[k] = value;
        }
        const double* w = wx + (xl - xa);
        double s0[4] = {0.0, 0.0, 0.0, 0.0}, s1[4] = {0.0, 0.0, 0.0, 0.0};
        int k = 0;
        for (; k + 4 <= n; k += 4)
            for (int l = 0; l < 4; ++l) {
                const double t = w[k + l] * v[k + l];
                s0[l] += t;
                s1[l] += t * (static_cast<double>(xl + k + l) - x);
            }
        for (; k < n; ++k) {
            const double t = w[k] * v[k];
            s0[0] += t;
            s1[0] += t * (static_cast<double>(xl + k) - x);
        }
        const double S0 = (s0[0] + s0[1]) + (s0[2] + s0[3]), S1 = (s1[0] + s1[1]) + (s1[2] + s1[3]);
        const double rowWeight = wy[py - ya];
        sw += rowWeight * S0;
        sx += rowWeight * S1;
        sy += rowWeight * dy * S0;
    }
    return {sw, sx, sy};
}

} // namespace

std::optional<std::pair<double, double>> windowedCentroid(const FieldAccess& access, int number, double x0,
                                                          double y0, double sigma) {
    if (!std::isfinite(x0) || !std::isfinite(y0) || !(sigma > 0.0) || !std::isfinite(sigma)) return std::nullopt;
    const double rmax = kWindowSigmas * sigma, inv2s2 = 1.0 / (2.0 * sigma * sigma);
    double x = x0, y = y0;
    // The Gaussian weight is separable, exp(-(dx^2 + dy^2) k) = exp(-dx^2 k) exp(-dy^2 k): one exp per column and
    // per row of the window and a product per pixel (the same weights to rounding; a window on a large galaxy's
    // halo holds thousands of pixels and is iterated up to 16 times).
    std::vector<double> wx, wy, vals;
    std::vector<std::uint8_t> freeFlags;
    return access.withRaw([&](auto getI) -> std::optional<std::pair<double, double>> {
        for (int step = 0; step < kWindowSteps; ++step) {
            const auto [xa, xb] = pixelRange(x, rmax, access.width());
            const auto [ya, yb] = pixelRange(y, rmax, access.height());
            wx.resize(static_cast<std::size_t>(std::max(0, xb - xa + 1)));
            wy.resize(static_cast<std::size_t>(std::max(0, yb - ya + 1)));
            for (int px = xa; px <= xb; ++px) wx[static_cast<std::size_t>(px - xa)] = std::exp(-(px - x) * (px - x) * inv2s2);
            for (int py = ya; py <= yb; ++py) wy[static_cast<std::size_t>(py - ya)] = std::exp(-(py - y) * (py - y) * inv2s2);
            const WindowSums s = windowPass(access, getI, number, x, y, rmax, xa, xb, ya, yb, wx.data(), wy.data(), vals, freeFlags);
            if (!(s.sw > 0.0)) return std::nullopt;
            const double ddx = 2.0 * s.sx / s.sw, ddy = 2.0 * s.sy / s.sw;
            x += ddx;
            y += ddy;
            if (!(x >= -0.5 && y >= -0.5 && x <= access.width() - 0.5 && y <= access.height() - 0.5) ||
                std::hypot(x - x0, y - y0) > rmax)
                return std::nullopt;
            if (ddx * ddx + ddy * ddy < kWindowStep * kWindowStep) break;
        }
        return std::make_pair(x, y);
    });
}

} // namespace glint::measure
