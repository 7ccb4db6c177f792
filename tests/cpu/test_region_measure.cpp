// The region measurements (flux, SNR, peak, centroid, mean background, flags, sky position) against the
// plain per-region scan they replaced (the oracle below, the measurement code as it was), bit for bit, on
// random images of every sample type: blanks, NaN and infinities, wide float ranges (where sums round),
// saturated samples, with and without a background model, mean / percentile / numeric / local pivots, and
// random, overlapping, nested, edge and one-pixel rectangles, measured one by one and all together.
#include "tests/support/TestSupport.h"

#include "core/algo/sources/RegionMeasure.h"
#include "core/algo/regions/WorkArray.h"
#include "core/io/Image.h"
#include "core/io/Wcs.h"
#include "core/util/Parallel.h"

#include <QtTest>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <type_traits>
#include <vector>

// The measurements as they were before they shared passes between regions (commit a98db3e's
// RegionMeasure.cpp, verbatim but for the class name): the oracle of test_region_measure. Every figure of the
// fast measurement must equal this one's, bit for bit.
namespace oracle {

using namespace glint;

class OracleMeasurer {
public:
    explicit OracleMeasurer(const WorkArray& work);
    void measure(BrightestRegion& region, int rowThreads = 0) const;

private:
    const WorkArray& work_;
    const Image& image_;
    std::optional<double> saturation_;
};

namespace {

constexpr int kRowsPerChunk = 16; // rows of one task of a measurement pass

std::optional<double> headerNumber(const Image& image, const char* key) {
    for (const HeaderCard& card : image.meta.header) {
        if (card.key != key) continue;
        std::string v = card.value;
        v.erase(0, v.find_first_not_of(" '"));
        v.erase(v.find_last_not_of(" '") + 1);
        double out = 0.0;
        const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
        if (ec == std::errc() && end == v.data() + v.size() && std::isfinite(out)) return out;
    }
    return std::nullopt;
}

std::optional<double> saturationOf(const Image& image) {
    if (auto v = headerNumber(image, "SATURATE")) return v;
    if (auto v = headerNumber(image, "DATAMAX")) return v;
    return image.visit([](const auto* p) -> std::optional<double> {
        using T = std::remove_cv_t<std::remove_pointer_t<decltype(p)>>;
        if constexpr (std::is_integral_v<T>) return static_cast<double>(std::numeric_limits<T>::max());
        else return std::nullopt;
    });
}

// The figures without a background model and without blanks: the background is the constant pivot and the
// RMS 0, so every sum splits into sums of the samples (integers summed exactly) and counts, in loops the
// compiler vectorises. A row of a floating-point image whose sums are not finite (NaN or infinite samples)
// is measured again pixel by pixel, skipping those samples as the general pass does.
template <class T>
struct PlainMeasure {
    const T* p;
    int W;
    double pivot;
    // Exact integer sums for samples of at most 32 bits (a row's sum fits int64), double otherwise.
    static constexpr bool kSmallInteger = std::is_integral_v<T> && sizeof(T) <= 4;
    using Sum = std::conditional_t<kSmallInteger, std::int64_t, double>;
    // Centroid sums over a row: sum of x*v in int64 for samples of at most 16 bits, else in double.
    using XSum = std::conditional_t<std::is_integral_v<T> && sizeof(T) <= 2, std::int64_t, double>;

    struct Region {
        double flux = 0.0;
        double peak = -std::numeric_limits<double>::infinity();
        double maxValue = -std::numeric_limits<double>::infinity(); // the sample at the peak
        int peakX = 0, peakY = 0;
        std::int64_t count = 0; // finite samples
        bool nonFinite = false;
    };

    // Rows y0..y1-1, columns x0..x1-1.
    void region(int x0, int x1, int y0, int y1, Region& out) const {
        for (int y = y0; y < y1; ++y) {
            const T* row = p + static_cast<std::size_t>(y) * W;
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
                    out.nonFinite = true;
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
                    if (!any) continue;
                }
            }
            out.flux += static_cast<double>(s) - static_cast<double>(n) * pivot;
            out.count += n;
            const double d = static_cast<double>(m) - pivot;
            if (d > out.peak) {
                int x = x0;
                while (!(row[x] == m)) ++x;
                out.peak = d;
                out.maxValue = static_cast<double>(m);
                out.peakX = x;
                out.peakY = y;
            }
        }
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

    struct Moments {
        double w = 0.0, wx = 0.0, wy = 0.0;
    };
    // Weights v - pivot where v > pivot (the general pass's rule with the RMS 0).
    void moments(int x0, int x1, int y0, int y1, Moments& out) const {
        for (int y = y0; y < y1; ++y) {
            const T* row = p + static_cast<std::size_t>(y) * W;
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
            const double w = static_cast<double>(sv) - static_cast<double>(count) * pivot;
            out.w += w;
            out.wx += static_cast<double>(sxv) - pivot * static_cast<double>(sx);
            out.wy += w * y;
        }
    }
};

} // namespace

OracleMeasurer::OracleMeasurer(const WorkArray& work)
    : work_(work), image_(work.source ? *work.source : *work.image), saturation_(saturationOf(image_)) {}

void OracleMeasurer::measure(BrightestRegion& g, int rowThreads) const {
    const int W = image_.width(), H = image_.height();
    const BackgroundMap* model = work_.background && !work_.background->empty() ? work_.background.get() : nullptr;
    const double pivot = work_.pivot - (work_.localPivot ? 0.0 : work_.threshold * (model ? model->globalRms() : 0.0));
    const std::uint8_t* blankMask = image_.blankMask().empty() ? nullptr : image_.blankMask().data();
    // Threads as the pass's size warrants (starting one costs as much as ~60 000 pixels of this work).
    const int regionThreads = rowThreads > 0 ? rowThreads : threadsForPixels(static_cast<double>(g.width) * g.height);
    // No model and no blanks: the vectorised passes of PlainMeasure (same figures up to rounding).
    const bool plain = !model && !blankMask;
    double flux = 0.0, noise2 = 0.0, peak = -std::numeric_limits<double>::infinity(), sumBack = 0.0;
    int peakX = g.x, peakY = g.y;
    bool saturated = false;
    bool blank = false;
    g.centroidX = g.x + (g.width - 1) / 2.0;
    g.centroidY = g.y + (g.height - 1) / 2.0;
    // One typed pass per loop (no per-pixel dispatch on the sample type): every region of a run is measured,
    // and a large one covers most of the image.
    image_.visit([&](const auto* p) {
        // Rows in fixed chunks, summed in chunk order: the figures do not depend on the thread count.
        struct Part {
            double flux = 0.0, noise2 = 0.0, sumBack = 0.0, peak = -std::numeric_limits<double>::infinity();
            int peakX = 0, peakY = 0;
            bool saturated = false, blank = false;
        };
        const int chunks = (g.height + kRowsPerChunk - 1) / kRowsPerChunk;
        std::vector<Part> parts(static_cast<std::size_t>(std::max(chunks, 0)));
        using T = std::remove_cv_t<std::remove_pointer_t<decltype(p)>>;
        PlainMeasure<T> plainPass{p, W, pivot};
        plainPass.setPivot(pivot);
        if (plain) {
            parallelFor(
                0, parts.size(), 1,
                [&](std::size_t c0, std::size_t c1) {
                    for (std::size_t c = c0; c < c1; ++c) {
                        const int y0 = g.y + static_cast<int>(c) * kRowsPerChunk;
                        typename PlainMeasure<T>::Region r;
                        plainPass.region(g.x, g.x + g.width, y0, std::min(g.y + g.height, y0 + kRowsPerChunk), r);
                        Part& part = parts[c];
                        part.flux = r.flux;
                        part.sumBack = static_cast<double>(r.count) * pivot;
                        part.peak = r.peak;
                        part.peakX = r.peakX;
                        part.peakY = r.peakY;
                        part.saturated = saturation_ && std::isfinite(r.peak) && r.maxValue >= *saturation_;
                        part.blank = r.nonFinite;
                    }
                },
                regionThreads);
        } else
        parallelFor(
            0, parts.size(), 1,
            [&](std::size_t c0, std::size_t c1) {
                std::vector<double> back(static_cast<std::size_t>(std::max(g.width, 1)), pivot), rms(back.size(), 0.0);
                for (std::size_t c = c0; c < c1; ++c) {
                    Part& part = parts[c];
                    const int yEnd = std::min(g.y + g.height, g.y + static_cast<int>(c + 1) * kRowsPerChunk);
                    for (int y = g.y + static_cast<int>(c) * kRowsPerChunk; y < yEnd; ++y) {
                        if (model) model->row(y, g.x, g.x + g.width, back.data(), rms.data());
                        const auto* row = p + static_cast<std::size_t>(y) * W;
                        const std::uint8_t* rowBlank = blankMask ? blankMask + static_cast<std::size_t>(y) * W : nullptr;
                        for (int i = 0; i < g.width; ++i) {
                            const int x = g.x + i;
                            const double v = static_cast<double>(row[x]);
                            if ((rowBlank && rowBlank[x]) || !std::isfinite(v)) {
                                part.blank = true;
                                continue;
                            }
                            const double b = model ? back[static_cast<std::size_t>(i)] : pivot;
                            const double d = v - b;
                            part.flux += d;
                            part.sumBack += b;
                            if (model) part.noise2 += rms[static_cast<std::size_t>(i)] * rms[static_cast<std::size_t>(i)];
                            if (d > part.peak) {
                                part.peak = d;
                                part.peakX = x;
                                part.peakY = y;
                            }
                            if (saturation_ && v >= *saturation_) part.saturated = true;
                        }
                    }
                }
            },
            regionThreads);
        for (const Part& part : parts) {
            flux += part.flux;
            noise2 += part.noise2;
            sumBack += part.sumBack;
            if (part.peak > peak) {
                peak = part.peak;
                peakX = part.peakX;
                peakY = part.peakY;
            }
            saturated = saturated || part.saturated;
            blank = blank || part.blank;
        }
        // Blanks, non-finite and excluded pixels on the rectangle's one-pixel border (inside, the search never
        // takes an excluded pixel, and the pass above saw the blanks).
        const auto outside = [&](int x, int y) {
            if ((blankMask && blankMask[static_cast<std::size_t>(y) * W + x]) ||
                !std::isfinite(static_cast<double>(p[static_cast<std::size_t>(y) * W + x])))
                return true;
            const bool inRoi = x >= work_.roi.x && x < work_.roi.x + work_.roi.width && y >= work_.roi.y &&
                               y < work_.roi.y + work_.roi.height;
            if (!inRoi || !work_.hasExclusions()) return false;
            const int c = work_.transposed ? y - work_.roi.y : x - work_.roi.x;
            const int r = work_.transposed ? x - work_.roi.x : y - work_.roi.y;
            return work_.isExcluded(r, c);
        };
        const int bx0 = std::max(0, g.x - 1), bx1 = std::min(W, g.x + g.width + 1);
        const int by0 = std::max(0, g.y - 1), by1 = std::min(H, g.y + g.height + 1);
        for (int y = by0; y < by1 && !blank; ++y) {
            const bool edgeRow = y < g.y || y >= g.y + g.height;
            for (int x = bx0; x < bx1 && !blank; x += (edgeRow || x >= g.x + g.width) ? 1 : std::max(1, g.x + g.width - x))
                if (outside(x, y)) blank = true;
        }
        // The centroid: weights I - background where above the local RMS, in a square window centred on the peak
        // (half-size max(2, half the larger side), clipped to the image), then once more centred on that
        // centroid. A window symmetric about the source, not the rectangle itself: the rectangle cuts a round
        // source unevenly.
        if (!std::isfinite(peak)) return;
        const int half = std::max(2, (std::max(g.width, g.height) + 1) / 2);
        double cx = peakX, cy = peakY;
        int last[4] = {-1, -1, -1, -1};
        for (int pass = 0; pass < 2; ++pass) {
            const int x0 = std::max(0, static_cast<int>(std::lround(cx)) - half);
            const int x1 = std::min(W, static_cast<int>(std::lround(cx)) + half + 1);
            const int y0 = std::max(0, static_cast<int>(std::lround(cy)) - half);
            const int y1 = std::min(H, static_cast<int>(std::lround(cy)) + half + 1);
            // The same window as the first pass: the same centroid again.
            if (x0 == last[0] && x1 == last[1] && y0 == last[2] && y1 == last[3]) break;
            last[0] = x0;
            last[1] = x1;
            last[2] = y0;
            last[3] = y1;
            struct Moments {
                double w = 0.0, wx = 0.0, wy = 0.0;
            };
            const int windowChunks = (y1 - y0 + kRowsPerChunk - 1) / kRowsPerChunk;
            std::vector<Moments> moments(static_cast<std::size_t>(std::max(windowChunks, 0)));
            if (plain) {
                parallelFor(
                    0, moments.size(), 1,
                    [&](std::size_t c0, std::size_t c1) {
                        for (std::size_t c = c0; c < c1; ++c) {
                            typename PlainMeasure<T>::Moments m;
                            const int ya = y0 + static_cast<int>(c) * kRowsPerChunk;
                            plainPass.moments(x0, x1, ya, std::min(y1, ya + kRowsPerChunk), m);
                            moments[c] = {m.w, m.wx, m.wy};
                        }
                    },
                    rowThreads > 0 ? rowThreads : threadsForPixels(static_cast<double>(x1 - x0) * (y1 - y0)));
            } else
            parallelFor(
                0, moments.size(), 1,
                [&](std::size_t c0, std::size_t c1) {
                    std::vector<double> back(static_cast<std::size_t>(std::max(x1 - x0, 1)), pivot), rms(back.size(), 0.0);
                    for (std::size_t c = c0; c < c1; ++c) {
                        Moments& m = moments[c];
                        const int yEnd = std::min(y1, y0 + static_cast<int>(c + 1) * kRowsPerChunk);
                        for (int y = y0 + static_cast<int>(c) * kRowsPerChunk; y < yEnd; ++y) {
                            if (model) model->row(y, x0, x1, back.data(), rms.data());
                            const auto* row = p + static_cast<std::size_t>(y) * W;
                            const std::uint8_t* rowBlank = blankMask ? blankMask + static_cast<std::size_t>(y) * W : nullptr;
                            for (int x = x0; x < x1; ++x) {
                                if (rowBlank && rowBlank[x]) continue;
                                const double d = static_cast<double>(row[x]) - back[static_cast<std::size_t>(x - x0)];
                                // Pixels above 1 RMS only: the noise of the window would pull the centroid to its centre.
                                if (!(d > rms[static_cast<std::size_t>(x - x0)]) || !(d > 0.0) || !std::isfinite(d)) continue;
                                m.w += d;
                                m.wx += d * x;
                                m.wy += d * y;
                            }
                        }
                    }
                },
                rowThreads > 0 ? rowThreads : threadsForPixels(static_cast<double>(x1 - x0) * (y1 - y0)));
            double w = 0.0, wx = 0.0, wy = 0.0;
            for (const Moments& m : moments) {
                w += m.w;
                wx += m.wx;
                wy += m.wy;
            }
            if (!(w > 0.0)) break;
            cx = wx / w;
            cy = wy / w;
            g.centroidX = cx;
            g.centroidY = cy;
        }
    });
    const double n = static_cast<double>(g.pixels());
    g.measured = true;
    g.flux = flux;
    g.peak = std::isfinite(peak) ? peak : 0.0;
    g.meanBackground = sumBack / n;
    if (!model) g.snr = std::numeric_limits<double>::quiet_NaN();
    else if (noise2 > 0.0) g.snr = flux / std::sqrt(noise2);
    else g.snr = flux > 0.0 ? std::numeric_limits<double>::infinity() : flux < 0.0 ? -std::numeric_limits<double>::infinity() : 0.0;
    g.hasSky = false;
    if (image_.meta.wcs)
        if (auto sky = image_.meta.wcs->pixelToSky(g.centroidX, g.centroidY)) {
            g.hasSky = true;
            g.ra = sky->ra;
            g.dec = sky->dec;
        }
    g.flags = 0;
    if (saturated) g.flags |= kRegionFlagSaturated;
    if (g.x == 0 || g.y == 0 || g.x + g.width == W || g.y + g.height == H) g.flags |= kRegionFlagEdge;
    if (blank) g.flags |= kRegionFlagBlank;
}

} // namespace oracle

using namespace glint;

namespace {

// Bit for bit (NaN equal to NaN).
bool same(double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b) || (std::isnan(a) && std::isnan(b)); }

QString describe(const BrightestRegion& g) {
    return QString("%1,%2 %3x%4").arg(g.x).arg(g.y).arg(g.width).arg(g.height);
}

// Every measured field equal; a message naming the first that differs.
QString difference(const BrightestRegion& a, const BrightestRegion& b) {
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

const char* kindName(Kind k) {
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
std::vector<double> field(int W, int H, std::mt19937& rng) {
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

Image makeImage(Kind kind, int W, int H, unsigned seed) {
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
void addBlanks(Image& im, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    std::vector<std::uint8_t> m(im.pixelCount(), 0);
    for (auto& b : m) b = u(rng) < 0.01;
    const int bx = im.width() / 2, by = im.height() / 2;
    for (int y = by; y < std::min(im.height(), by + 5); ++y)
        for (int x = bx; x < std::min(im.width(), bx + 7); ++x) m[static_cast<std::size_t>(y) * im.width() + x] = 1;
    im.setBlankMask(std::move(m));
}

BrightestRegion rect(int x, int y, int w, int h) {
    BrightestRegion g;
    g.x = x;
    g.y = y;
    g.width = w;
    g.height = h;
    return g;
}

// Random rectangles; near copies of one large one (kmax's overlapping answers), rectangles nested in it,
// one-pixel ones, edge strips and the whole image.
std::vector<BrightestRegion> regionsFor(int W, int H, unsigned seed, int randomCount) {
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

BrightestParams paramsFor(Pivot pivot, double numberPivot) {
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

} // namespace

class TestRegionMeasure : public QObject {
    Q_OBJECT
private slots:
    void matchesOracle_data() {
        QTest::addColumn<int>("kind");
        QTest::addColumn<int>("pivot");
        QTest::addColumn<bool>("blanks");
        const char* pivots[] = {"mean", "p70", "number", "integer", "local", "mean+model"};
        for (int k = 0; k <= static_cast<int>(Kind::F64Wide); ++k)
            for (int p = 0; p < 6; ++p)
                for (bool blanks : {false, true})
                    QTest::newRow(QString("%1 %2%3").arg(kindName(static_cast<Kind>(k))).arg(pivots[p]).arg(blanks ? " blanks" : "").toUtf8())
                        << k << p << blanks;
    }
    void matchesOracle() {
        QFETCH(int, kind);
        QFETCH(int, pivot);
        QFETCH(bool, blanks);
        const unsigned seed = static_cast<unsigned>(1000 * kind + 10 * pivot + blanks);
        for (const auto& [W, H] : {std::pair{97, 61}, std::pair{150, 203}}) {
            Image im = makeImage(static_cast<Kind>(kind), W, H, seed + static_cast<unsigned>(W));
            if (blanks) addBlanks(im, seed + 7);
            const double median = im.value(W / 2, H / 2);
            const BrightestParams params = paramsFor(static_cast<Pivot>(pivot), std::isfinite(median) ? median : 100.0);
            const WorkArray work = prepareWorkArray(im, params);
            const std::vector<BrightestRegion> regions = regionsFor(W, H, seed + 3, 40);
            const oracle::OracleMeasurer reference(work);
            std::vector<BrightestRegion> expected = regions;
            for (BrightestRegion& g : expected) reference.measure(g);
            // The shared passes are made where they serve: no model, no blanks, samples of at most 32 bits and
            // not a float image whose range is too wide for exact sums.
            const Kind k = static_cast<Kind>(kind);
            const bool tableKind = k != Kind::I64 && k != Kind::I64Wide && k != Kind::F64 && k != Kind::F64Wide && k != Kind::F32Wide;
            const bool model = work.background && !work.background->empty();
            QCOMPARE(RegionMeasurer(work).shareAmong(regions), tableKind && !model && !blanks);
            // All together (the shared passes), then one by one on one thread and on several.
            std::vector<BrightestRegion> all = regions;
            measureRegions(work, all);
            const RegionMeasurer measurer(work);
            for (std::size_t i = 0; i < regions.size(); ++i) {
                QString why = difference(all[i], expected[i]);
                QVERIFY2(why.isEmpty(), qPrintable(QString("%1x%2, all, %3: %4").arg(W).arg(H).arg(describe(regions[i])).arg(why)));
                for (int threads : {1, 3}) {
                    BrightestRegion one = regions[i];
                    measurer.measure(one, threads);
                    why = difference(one, expected[i]);
                    QVERIFY2(why.isEmpty(),
                             qPrintable(QString("%1x%2, one on %3 threads, %4: %5").arg(W).arg(H).arg(threads).arg(describe(regions[i])).arg(why)));
                }
            }
        }
    }

    // The work array's float and 32-bit statistics (mean pivot, positive sum), summed in vectorised partial
    // sums where proven exact, against the one chain per row they replaced.
    void workArrayMatchesChains_data() {
        QTest::addColumn<int>("kind");
        for (Kind k : {Kind::F32, Kind::F32Wide, Kind::F32Integer, Kind::I32, Kind::U32})
            QTest::newRow(kindName(k)) << static_cast<int>(k);
    }
    void workArrayMatchesChains() {
        QFETCH(int, kind);
        for (const auto& [W, H] : {std::pair{97, 61}, std::pair{517, 300}}) {
            const Image im = makeImage(static_cast<Kind>(kind), W, H, 31u + static_cast<unsigned>(W));
            for (const char* pivot : {"mean", "117.3"}) {
                BrightestParams params;
                params.pivot = PivotSpec::parse(pivot);
                const WorkArray work = prepareWorkArray(im, params);
                // The mean: long double chains per row, rows in order.
                long double total = 0.0L;
                std::size_t count = 0;
                for (int y = 0; y < H; ++y) {
                    long double row = 0.0L;
                    for (int x = 0; x < W; ++x) row += static_cast<long double>(im.value(x, y));
                    total += row;
                    count += static_cast<std::size_t>(W);
                }
                if (params.pivot.kind == PivotSpec::Kind::Mean)
                    QVERIFY(same(work.pivot, static_cast<double>(total / static_cast<long double>(count))));
                if (work.integer) continue;
                // The positive sum: four chains per row (x mod 4, the tail on the first), rows in order.
                double rows = 0.0;
                for (int y = 0; y < H; ++y) {
                    double c[4] = {0.0, 0.0, 0.0, 0.0};
                    int x = 0;
                    for (; x + 4 <= W; x += 4)
                        for (int k = 0; k < 4; ++k) {
                            const double a = im.value(x + k, y) - work.pivot;
                            c[k] += !(a > 0) ? 0.0 : a;
                        }
                    for (; x < W; ++x) {
                        const double a = im.value(x, y) - work.pivot;
                        c[0] += !(a > 0) ? 0.0 : a;
                    }
                    rows += (c[0] + c[1]) + (c[2] + c[3]);
                }
                QVERIFY2(same(work.positiveSum, rows * (1.0 + 1e-9) + 1e-300),
                         qPrintable(QString("%1 vs %2").arg(work.positiveSum, 0, 'g', 17).arg(rows * (1.0 + 1e-9) + 1e-300, 0, 'g', 17)));
            }
        }
    }

    // Large images (rows in many chunks, several threads) and many overlapping regions, as kmax reports them.
    void largeAndOverlapping_data() {
        QTest::addColumn<int>("kind");
        QTest::addColumn<int>("pivot");
        for (Kind k : {Kind::U8, Kind::U16, Kind::I32, Kind::F32, Kind::F32NonFinite, Kind::F64})
            for (int p : {0, 3, 5})
                QTest::newRow(QString("%1 %2").arg(kindName(k)).arg(p).toUtf8()) << static_cast<int>(k) << p;
    }
    void largeAndOverlapping() {
        QFETCH(int, kind);
        QFETCH(int, pivot);
        const int W = 700, H = 420;
        Image im = makeImage(static_cast<Kind>(kind), W, H, 77u + static_cast<unsigned>(kind));
        const BrightestParams params = paramsFor(static_cast<Pivot>(pivot), 100.0);
        const WorkArray work = prepareWorkArray(im, params);
        const std::vector<BrightestRegion> regions = regionsFor(W, H, 5u + static_cast<unsigned>(pivot), 60);
        const oracle::OracleMeasurer reference(work);
        std::vector<BrightestRegion> all = regions;
        measureRegions(work, all);
        const RegionMeasurer measurer(work);
        for (std::size_t i = 0; i < regions.size(); ++i) {
            BrightestRegion expected = regions[i];
            reference.measure(expected);
            QString why = difference(all[i], expected);
            QVERIFY2(why.isEmpty(), qPrintable(QString("all, %1: %2").arg(describe(regions[i])).arg(why)));
            if (i % 7 == 0) {
                BrightestRegion one = regions[i];
                measurer.measure(one);
                why = difference(one, expected);
                QVERIFY2(why.isEmpty(), qPrintable(QString("one, %1: %2").arg(describe(regions[i])).arg(why)));
            }
        }
    }

    // The source finder's slope rule (RegionMeasurer::peakIsLocalMaximum) by hand: a star (peak 1000 at
    // (20, 20), cut at 8 px) on a flat 100, the pivot 100. A box on the star holds its peak; a box on its left wing has its
    // brightest pixel at its right edge, with the brighter pixel just outside; that pixel left out (excluded,
    // blank, outside the ROI, or level with the box's peak) leaves the box's peak a local maximum. A box whose
    // peak is interior never fails, whatever lies around it. Both the plain pass and blanks' pass.
    void peakIsLocalMaximumByHand() {
        for (const bool blankElsewhere : {false, true}) {
            const int W = 40, H = 40;
            auto scene = [&](double plateau) {
                std::vector<double> v(static_cast<std::size_t>(W) * H, 100.0);
                for (int y = 0; y < H; ++y)
                    for (int x = 0; x < W; ++x) {
                        const double r2 = (x - 20) * (x - 20) + (y - 20) * (y - 20);
                        v[static_cast<std::size_t>(y) * W + x] += plateau > 0 ? (std::abs(x - 18) <= 6 && std::abs(y - 20) <= 1 ? plateau : 0.0)
                                                                              : (r2 <= 64 ? 900.0 * std::exp(-r2 / 18.0) : 0.0);
                    }
                if (blankElsewhere) v[0] = std::numeric_limits<double>::quiet_NaN();
                return Image::fromSamples(W, H, std::move(v));
            };
            BrightestParams params;
            params.pivot = PivotSpec::parse("100");
            auto check = [&](const Image& im, const BrightestParams& p, PixelRect box, bool expected, const char* what) {
                const WorkArray work = prepareWorkArray(im, p);
                BrightestRegion g;
                g.x = box.x;
                g.y = box.y;
                g.width = box.width;
                g.height = box.height;
                const RegionMeasurer measurer(work);
                measurer.measure(g);
                QVERIFY2(measurer.peakIsLocalMaximum(g) == expected,
                         qPrintable(QString("%1 (blank elsewhere %2): peak at %3,%4").arg(what).arg(blankElsewhere).arg(g.peakX).arg(g.peakY)));
            };
            const Image star = scene(0.0);
            const PixelRect wing{10, 18, 5, 5}; // x 10..14: the brightest pixel at x = 14, y = 20
            check(star, params, {17, 17, 7, 7}, true, "the box on the star");
            check(star, params, wing, false, "the box on the wing");
            check(star, params, {2, 2, 5, 5}, true, "a box on flat sky");
            BrightestParams excluded = params;
            excluded.excludeRects.push_back({15, 15, 2, 11});
            check(star, excluded, wing, true, "the wing, its brighter neighbours excluded");
            BrightestParams roi = params;
            roi.roi = PixelRect{0, 0, 15, H};
            check(star, roi, wing, true, "the wing, its brighter neighbours outside the ROI");
            Image blanked = scene(0.0);
            std::vector<std::uint8_t> mask(static_cast<std::size_t>(W) * H, 0);
            for (int y = 0; y < H; ++y) mask[static_cast<std::size_t>(y) * W + 15] = 1;
            if (blankElsewhere) mask[0] = 1;
            blanked.setBlankMask(mask);
            check(blanked, params, wing, true, "the wing, its brighter neighbours blank");
            // A plateau (a saturated star's flat top) running out of the box: level, so the box keeps it.
            check(scene(5000.0), params, {10, 18, 5, 5}, true, "a box on a plateau that runs on outside it");
        }
    }
};

GLINT_BACKEND_TEST_MAIN(TestRegionMeasure)
#include "test_region_measure.moc"
