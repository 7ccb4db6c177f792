// Helpers of the region measurement suites (test_region_measure, test_region_work_array): bit-for-bit
// comparison of measured regions, random images of every sample type (blanks, NaN and infinities, wide float
// ranges, saturated samples), random, overlapping, nested, edge and one-pixel rectangles, and the pivots.
#pragma once

#include "core/algo/sources/RegionMeasure.h"
#include "core/algo/regions/WorkArray.h"
#include "core/io/Image.h"

#include <QString>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

namespace glint::test::regionmeasure {

// Bit for bit (NaN equal to NaN).
inline bool same(double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b) || (std::isnan(a) && std::isnan(b)); }

inline QString describe(const BrightestRegion& g) {
    return QString("%1,%2 %3x%4").arg(g.x).arg(g.y).arg(g.width).arg(g.height);
}

// Every measured field equal; a message naming the first that differs.
inline QString difference(const BrightestRegion& a, const BrightestRegion& b) {
    const auto num = [](const char* name, double x, double y) {
        return QString("%1 %2 vs %3").arg(name).arg(x, 0, 'g', 17).arg(y, 0, 'g', 17);
    };
    if (a.measured != b.measured) return "measured";
    if (!same(a.flux, b.flux)) return num("flux", a.flux, b.flux);
    if (!same(a.snr, b.snr)) return num("snr", a.snr, b.snr);
    if (!same(a.peak, b.peak)) return num("peak", a.peak, b.peak);
    if (!same(a.centroidX, b.centroidX)) return num("centroidX", a.centroidX, b.centroidX);
    if (!same(a.centroidY, b.centroidY)) return num("centroidY", a.centroidY, b.centroidY);
    if (!same(a.meanBackground, b.meanBackground)) return num("meanBackground", a.meanBackground, b.meanBackground);
    if (a.flags != b.flags) return QString("flags %1 vs %2").arg(a.flags).arg(b.flags);
    if (a.hasSky != b.hasSky || !same(a.ra, b.ra) || !same(a.dec, b.dec)) return "sky";
    if (a.rank != b.rank || a.x != b.x || a.y != b.y || a.width != b.width || a.height != b.height) return "rectangle";
    return {};
}

enum class Kind { U8, I8, U16, I16, U32, I32, I64, I64Wide, F32, F32Wide, F32NonFinite, F32Integer, F64, F64Wide };

inline const char* kindName(Kind k) {
    switch (k) {
    case Kind::U8: return "u8";
    case Kind::I8: return "i8";
    case Kind::U16: return "u16";
    case Kind::I16: return "i16";
    case Kind::U32: return "u32";
    case Kind::I32: return "i32";
    case Kind::I64: return "i64";
    case Kind::I64Wide: return "i64-wide";
    case Kind::F32: return "f32";
    case Kind::F32Wide: return "f32-wide";
    case Kind::F32NonFinite: return "f32-nonfinite";
    case Kind::F32Integer: return "f32-integer";
    case Kind::F64: return "f64";
    case Kind::F64Wide: return "f64-wide";
    }
    return "?";
}

// A field in [0, 1]-ish: sky, a gradient, blobs of several sizes, noise; plus plateaus of equal values (ties
// of the peak) where the type keeps them.
inline std::vector<double> field(int W, int H, std::mt19937& rng) {
    std::uniform_real_distribution<double> u(0, 1);
    std::vector<double> v(static_cast<std::size_t>(W) * H);
    struct Blob {
        double x, y, s, a;
    };
    std::vector<Blob> blobs;
    for (int i = 0; i < 8; ++i) blobs.push_back({u(rng) * W, u(rng) * H, 1.0 + u(rng) * W / 6.0, 0.2 + 0.8 * u(rng)});
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
            double s = 0.25 + 0.05 * x / W + 0.08 * u(rng);
            for (const Blob& b : blobs) {
                const double dx = (x - b.x) / b.s, dy = (y - b.y) / b.s;
                s += b.a * std::exp(-0.5 * (dx * dx + dy * dy));
            }
            v[static_cast<std::size_t>(y) * W + x] = s;
        }
    // A plateau at the field's maximum: ties of the peak across rows and columns.
    const double top = *std::max_element(v.begin(), v.end());
    const int px = static_cast<int>(u(rng) * (W - 4)), py = static_cast<int>(u(rng) * (H - 4));
    for (int y = py; y < py + 3; ++y)
        for (int x = px; x < px + 4; x += 2) v[static_cast<std::size_t>(y) * W + x] = top;
    return v;
}

template <class T>
std::vector<T> cast(const std::vector<double>& v, double scale, double offset) {
    std::vector<T> out(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
        double s = v[i] * scale + offset;
        if constexpr (std::is_integral_v<T>) {
            s = std::clamp(std::round(s), static_cast<double>(std::numeric_limits<T>::lowest()),
                           static_cast<double>(std::numeric_limits<T>::max()));
            if (s >= static_cast<double>(std::numeric_limits<T>::max())) out[i] = std::numeric_limits<T>::max();
            else out[i] = static_cast<T>(s);
        } else {
            out[i] = static_cast<T>(s);
        }
    }
    return out;
}

inline Image makeImage(Kind kind, int W, int H, unsigned seed) {
    std::mt19937 rng(seed);
    const std::vector<double> v = field(W, H, rng);
    std::uniform_real_distribution<double> u(0, 1);
    Image im;
    switch (kind) {
    case Kind::U8: im = Image::fromSamples(W, H, cast<std::uint8_t>(v, 180, 0)); break; // saturates at 255
    case Kind::I8: im = Image::fromSamples(W, H, cast<std::int8_t>(v, 180, -100)); break;
    case Kind::U16: im = Image::fromSamples(W, H, cast<std::uint16_t>(v, 40000, 0)); break;
    case Kind::I16: im = Image::fromSamples(W, H, cast<std::int16_t>(v, 40000, -20000)); break;
    case Kind::U32: im = Image::fromSamples(W, H, cast<std::uint32_t>(v, 2.5e9, 1e6)); break;
    case Kind::I32: im = Image::fromSamples(W, H, cast<std::int32_t>(v, 2.0e9, -1.0e9)); break;
    case Kind::I64: im = Image::fromSamples(W, H, cast<std::int64_t>(v, 1000, -300)); break;
    case Kind::I64Wide: im = Image::fromSamples(W, H, cast<std::int64_t>(v, 3.0e17, -1.0e17)); break;
    case Kind::F32: im = Image::fromSamples(W, H, cast<float>(v, 300, 80)); break;
    case Kind::F32Integer: {
        std::vector<float> s = cast<float>(v, 300, 80);
        for (float& x : s) x = std::round(x);
        im = Image::fromSamples(W, H, std::move(s));
        im.updateIntegerValued();
        break;
    }
    case Kind::F32Wide: {
        // Values from 1e-30 to 1e9 in the same rows: double sums of them round.
        std::vector<float> s = cast<float>(v, 300, 80);
        for (std::size_t i = 0; i < s.size(); ++i) {
            const double r = u(rng);
            if (r < 0.05) s[i] = static_cast<float>(1e-30 * (1 + u(rng)));
            else if (r < 0.08) s[i] = static_cast<float>(1e9 * u(rng));
            else if (r < 0.10) s[i] = -0.0f;
            else if (r < 0.12) s[i] = static_cast<float>(-1e7 * u(rng));
        }
        im = Image::fromSamples(W, H, std::move(s));
        break;
    }
    case Kind::F32NonFinite: {
        std::vector<float> s = cast<float>(v, 300, 80);
        for (std::size_t i = 0; i < s.size(); ++i) {
            const double r = u(rng);
            if (r < 0.004) s[i] = std::numeric_limits<float>::quiet_NaN();
            else if (r < 0.006) s[i] = std::numeric_limits<float>::infinity();
            else if (r < 0.008) s[i] = -std::numeric_limits<float>::infinity();
            else if (r < 0.010) s[i] = -0.0f;
        }
        // A whole row and a whole column of NaN.
        for (int x = 0; x < W; ++x) s[static_cast<std::size_t>(H / 3) * W + x] = std::numeric_limits<float>::quiet_NaN();
        for (int y = 0; y < H; ++y) s[static_cast<std::size_t>(y) * W + W / 4] = std::numeric_limits<float>::quiet_NaN();
        im = Image::fromSamples(W, H, std::move(s));
        break;
    }
    case Kind::F64: im = Image::fromSamples(W, H, cast<double>(v, 1.0, 0.0)); break;
    case Kind::F64Wide: {
        std::vector<double> s = cast<double>(v, 1e3, 0.0);
        for (double& x : s)
            if (u(rng) < 0.1) x = (u(rng) - 0.3) * std::pow(10.0, 40 * u(rng) - 20);
        im = Image::fromSamples(W, H, std::move(s));
        break;
    }
    }
    if (kind == Kind::F32) im.meta.header.push_back({"SATURATE", "400.5", ""});
    return im;
}

// Blanks: scattered pixels and a small block.
inline void addBlanks(Image& im, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    std::vector<std::uint8_t> m(im.pixelCount(), 0);
    for (auto& b : m) b = u(rng) < 0.01;
    const int bx = im.width() / 2, by = im.height() / 2;
    for (int y = by; y < std::min(im.height(), by + 5); ++y)
        for (int x = bx; x < std::min(im.width(), bx + 7); ++x) m[static_cast<std::size_t>(y) * im.width() + x] = 1;
    im.setBlankMask(std::move(m));
}

inline BrightestRegion rect(int x, int y, int w, int h) {
    BrightestRegion g;
    g.x = x;
    g.y = y;
    g.width = w;
    g.height = h;
    return g;
}

// Random rectangles; near copies of one large one (kmax's overlapping answers), rectangles nested in it,
// one-pixel ones, edge strips and the whole image.
inline std::vector<BrightestRegion> regionsFor(int W, int H, unsigned seed, int randomCount) {
    std::mt19937 rng(seed);
    std::vector<BrightestRegion> out;
    const auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    for (int i = 0; i < randomCount; ++i) {
        const int x = pick(0, W - 1), y = pick(0, H - 1);
        out.push_back(rect(x, y, pick(1, W - x), pick(1, H - y)));
    }
    const int x0 = W / 8, y0 = H / 7, w0 = W * 3 / 4, h0 = H * 2 / 3;
    for (int i = 0; i < 30; ++i) {
        const int l = std::clamp(x0 + pick(-3, 3), 0, W - 1), t = std::clamp(y0 + pick(-3, 3), 0, H - 1);
        const int r = std::clamp(x0 + w0 + pick(-3, 3), l + 1, W), b = std::clamp(y0 + h0 + pick(-3, 3), t + 1, H);
        out.push_back(rect(l, t, r - l, b - t));
    }
    for (int k = 1; k < 12; ++k)
        if (w0 > 2 * k && h0 > 2 * k) out.push_back(rect(x0 + k, y0 + k, w0 - 2 * k, h0 - 2 * k));
    for (int i = 0; i < 6; ++i) out.push_back(rect(pick(0, W - 1), pick(0, H - 1), 1, 1));
    out.push_back(rect(0, 0, W, H));
    out.push_back(rect(0, 0, W, 1));
    out.push_back(rect(W - 1, 0, 1, H));
    out.push_back(rect(0, H - 2, W, 2));
    for (std::size_t i = 0; i < out.size(); ++i) out[i].rank = static_cast<int>(i) + 1;
    return out;
}

enum class Pivot { Mean, Percentile, Number, Integer, Local, MeanModel };

inline BrightestParams paramsFor(Pivot pivot, double numberPivot) {
    BrightestParams p;
    p.mesh = 16;
    switch (pivot) {
    case Pivot::Mean: p.pivot = PivotSpec::parse("mean"); break;
    case Pivot::Percentile: p.pivot = PivotSpec::parse("p70"); break;
    case Pivot::Number:
        p.pivot = PivotSpec::parse("0");
        p.pivot.value = numberPivot + 0.37;
        break;
    case Pivot::Integer:
        p.pivot = PivotSpec::parse("0");
        p.pivot.value = std::round(numberPivot);
        break;
    case Pivot::Local:
        p.pivot = PivotSpec::parse("local");
        p.threshold = 2;
        break;
    case Pivot::MeanModel:
        p.pivot = PivotSpec::parse("mean");
        p.minSnr = 3; // makes the model: flux against it, SNR
        break;
    }
    return p;
}

} // namespace glint::test::regionmeasure
