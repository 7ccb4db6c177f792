// The oracle of test_region_measure: the region measurements as a plain per-region scan, the code as it was
// before the measurements shared passes between regions.
#pragma once

#include "core/algo/sources/RegionMeasure.h"
#include "core/algo/regions/WorkArray.h"
#include "core/io/Image.h"
#include "core/io/Wcs.h"
#include "core/util/Parallel.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

// The measurements as they were before they shared passes between regions (commit a98db3e's
// RegionMeasure.cpp, verbatim but for the class name, `inline` and no anonymous namespace in a header): the
// oracle of test_region_measure. Every figure of the fast measurement must equal this one's, bit for bit.
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

constexpr int kRowsPerChunk = 16; // rows of one task of a measurement pass

inline std::optional<double> headerNumber(const Image& image, const char* key) {
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

inline std::optional<double> saturationOf(const Image& image) {
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

inline OracleMeasurer::OracleMeasurer(const WorkArray& work)
    : work_(work), image_(work.source ? *work.source : *work.image), saturation_(saturationOf(image_)) {}

inline void OracleMeasurer::measure(BrightestRegion& g, int rowThreads) const {
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
