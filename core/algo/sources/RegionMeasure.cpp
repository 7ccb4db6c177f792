#include "core/algo/sources/RegionMeasure.h"

#include "core/algo/sources/PlainTables.h"
#include "core/algo/sources/RegionMeasureArea.h"
#include "core/io/Image.h"
#include "core/io/Wcs.h"
#include "core/util/Parallel.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace glint {

using region_measure::excludedAt;
using region_measure::inRoi;
using region_measure::kHasTables;
using region_measure::measurePivot;
using region_measure::PlainMeasure;
using region_measure::PlainTables;

namespace {

constexpr int kRowsPerChunk = 16; // rows of one task of a measurement pass

} // namespace

std::optional<double> headerNumber(const Image& image, const std::string& key) {
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

std::optional<double> saturationLevel(const Image& image) {
    if (auto v = headerNumber(image, "SATURATE")) return v;
    if (auto v = headerNumber(image, "DATAMAX")) return v;
    return image.visit([](const auto* p) -> std::optional<double> {
        using T = std::remove_cv_t<std::remove_pointer_t<decltype(p)>>;
        if constexpr (std::is_integral_v<T>) return static_cast<double>(std::numeric_limits<T>::max());
        else return std::nullopt;
    });
}

RegionMeasurer::RegionMeasurer(const WorkArray& work)
    : work_(work), image_(work.source ? *work.source : *work.image), saturation_(saturationLevel(image_)) {}

void RegionMeasurer::measure(BrightestRegion& g, int rowThreads) const {
    const int W = image_.width(), H = image_.height();
    const BackgroundMap* model = work_.background && !work_.background->empty() ? work_.background.get() : nullptr;
    const double pivot = measurePivot(work_, model);
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
        using T = std::remove_cv_t<std::remove_pointer_t<decltype(p)>>;
        struct Part {
            double flux = 0.0, noise2 = 0.0, sumBack = 0.0, peak = -std::numeric_limits<double>::infinity();
            int peakX = 0, peakY = 0;
            T peakSample{}; // the plain pass's peak sample (its column found once, for the region's peak)
            bool saturated = false, blank = false;
        };
        const int chunks = (g.height + kRowsPerChunk - 1) / kRowsPerChunk;
        std::vector<Part> parts(static_cast<std::size_t>(std::max(chunks, 0)));
        PlainMeasure<T> plainPass{p, W, pivot};
        plainPass.setPivot(pivot);
        if constexpr (kHasTables<T>)
            if (plain && tables_) plainPass.tables = static_cast<const PlainTables<T>*>(tables_.get());
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
                        part.peakY = r.peakY;
                        part.peakSample = r.peakSample;
                        part.saturated = saturation_ && std::isfinite(r.peak) && r.maxValue >= *saturation_;
                        part.blank = r.nonFinite;
                    }
                },
                plainPass.tables ? 1 : regionThreads);
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
        T peakSample{};
        for (const Part& part : parts) {
            flux += part.flux;
            noise2 += part.noise2;
            sumBack += part.sumBack;
            if (part.peak > peak) {
                peak = part.peak;
                peakX = part.peakX;
                peakY = part.peakY;
                peakSample = part.peakSample;
            }
            saturated = saturated || part.saturated;
            blank = blank || part.blank;
        }
        if (plain && std::isfinite(peak)) peakX = plainPass.peakColumn(g.x, peakY, peakSample);
        // Blanks, non-finite and excluded pixels on the rectangle's one-pixel border (inside, the search never
        // takes an excluded pixel, and the pass above saw the blanks).
        const auto outside = [&](int x, int y) {
            if ((blankMask && blankMask[static_cast<std::size_t>(y) * W + x]) ||
                !std::isfinite(static_cast<double>(p[static_cast<std::size_t>(y) * W + x])))
                return true;
            return inRoi(work_, x, y) && excludedAt(work_, x, y);
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
            // Near copies (kmax) often share a window (clipped at the image's edges): its sums once.
            double w = 0.0, wx = 0.0, wy = 0.0;
            const std::array<int, 4> key{x0, x1, y0, y1};
            if (!(plainPass.tables && tables_->findWindow(key, w, wx, wy))) {
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
                        plainPass.tables ? 1 : rowThreads > 0 ? rowThreads : threadsForPixels(static_cast<double>(x1 - x0) * (y1 - y0)));
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
                for (const Moments& m : moments) {
                    w += m.w;
                    wx += m.wx;
                    wy += m.wy;
                }
                if (plainPass.tables) tables_->keepWindow(key, w, wx, wy);
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
    g.peakX = peakX;
    g.peakY = peakY;
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

bool RegionMeasurer::shareAmong(const std::vector<BrightestRegion>& regions) {
    tables_.reset();
    const bool model = work_.background && !work_.background->empty();
    if (model || image_.hasBlanks() || regions.empty()) return false;
    const int W = image_.width(), H = image_.height();
    // The scan reads each rectangle and up to two centroid windows (about twice the larger side, clipped).
    double scanned = 0.0;
    for (const BrightestRegion& g : regions) {
        const double side = 2.0 * std::max(2, (std::max(g.width, g.height) + 1) / 2) + 1.0;
        scanned += static_cast<double>(g.width) * g.height + 2.0 * std::min<double>(side, W) * std::min<double>(side, H);
    }
    const double pixels = static_cast<double>(W) * H;
    // The tables cost about 4 passes over the image; memory at most 1 GiB.
    if (scanned < 6.0 * pixels) return false;
    const double pivot = measurePivot(work_, nullptr);
    return image_.visit([&](const auto* p) {
        using T = std::remove_cv_t<std::remove_pointer_t<decltype(p)>>;
        if constexpr (kHasTables<T>) {
            if (PlainTables<T>::bytesFor(W, H) > 1024.0 * 1024.0 * 1024.0) return false;
            PlainMeasure<T> plain{p, W, pivot};
            plain.setPivot(pivot);
            tables_ = PlainTables<T>::build(p, W, H, plain);
            return tables_ != nullptr;
        } else {
            return false;
        }
    });
}

void measureRegions(const WorkArray& work, std::vector<BrightestRegion>& regions) {
    if (!work.image) return;
    RegionMeasurer m(work);
    m.shareAmong(regions);
    // Many regions: one per task, each on one thread; a few: one after the other, each over every core.
    if (regions.size() >= static_cast<std::size_t>(cpuThreadCount())) {
        parallelFor(0, regions.size(), 1, [&](std::size_t begin, std::size_t end) {
            for (std::size_t i = begin; i < end; ++i) m.measure(regions[i], 1);
        });
    } else {
        for (BrightestRegion& g : regions) m.measure(g);
    }
}

} // namespace glint
