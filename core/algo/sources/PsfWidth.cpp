#include "core/algo/sources/PsfWidth.h"

#include "core/algo/sources/Background.h"
#include "core/algo/sources/RegionMeasure.h"
#include "core/jobs/JobControl.h"
#include "core/io/Image.h"
#include "core/util/Parallel.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <mutex>
#include <type_traits>
#include <vector>

namespace glint {

namespace {

constexpr int kWindow = 8;        // a star's window: (2 kWindow + 1)^2 pixels around its peak
constexpr double kBrightPeakRms = 25; // the stars the width comes from when there are kPsfMinStars of them
constexpr std::size_t kMaxStars = 200;
constexpr double kFitLevel = 0.25; // a narrow star's fitted pixels: connected to the peak, at least this fraction of it
constexpr std::size_t kMinFitPixels = 5;
constexpr double kShapeTolerance = 0.05; // ln v: 5 % of a pixel's value
constexpr double kMaxChi2 = 3.0;

struct Peak {
    double significance; // (peak - bkg) / rms at the peak's cell
    int x, y;
};

// A finite, not blank, sample as double; NaN otherwise.
template <class T>
double sampleAt(const T* p, const Image& image, int x, int y) {
    const std::size_t i = static_cast<std::size_t>(y) * image.width() + x;
    if (image.isBlank(i)) return std::nan("");
    return static_cast<double>(p[i]);
}

// The pixels that are the strict maximum of their 5x5 neighbourhood, kPsfMinPeakRms above the cell's background,
// at least kWindow from the ROI's edges.
template <class T>
std::vector<Peak> findPeaks(const T* p, const Image& image, const BackgroundMap& model, const PixelRect& roi) {
    const int x0 = roi.x + kWindow, x1 = roi.x + roi.width - kWindow, y0 = roi.y + kWindow, y1 = roi.y + roi.height - kWindow;
    if (x1 <= x0 || y1 <= y0) return {};
    const int mesh = model.mesh(), nx = model.cellsX();
    const std::vector<double>& back = model.cellBackground();
    const std::vector<double>& rms = model.cellRms();
    std::vector<Peak> peaks;
    std::mutex m;
    parallelFor(static_cast<std::size_t>(y0), static_cast<std::size_t>(y1), 32, [&](std::size_t ya, std::size_t yb) {
        std::vector<Peak> found;
        for (int y = static_cast<int>(ya); y < static_cast<int>(yb); ++y) {
            const T* row = p + static_cast<std::size_t>(y) * image.width();
            // Cell by cell: one threshold a cell, compared with every pixel of its row segment.
            for (int cx = x0 / mesh; cx * mesh < x1; ++cx) {
                const std::size_t c = static_cast<std::size_t>(y / mesh) * nx + cx;
                if (!(rms[c] > 0.0)) continue;
                const double floor = back[c] + kPsfMinPeakRms * rms[c];
                for (int x = std::max(x0, cx * mesh); x < std::min(x1, (cx + 1) * mesh); ++x) {
                    const double v = static_cast<double>(row[x]);
                    if (!(v >= floor)) continue;
                    bool strict = !image.isBlank(static_cast<std::size_t>(y) * image.width() + x);
                    for (int dy = -2; dy <= 2 && strict; ++dy)
                        for (int dx = -2; dx <= 2 && strict; ++dx) {
                            if (dx == 0 && dy == 0) continue;
                            const double u = sampleAt(p, image, x + dx, y + dy);
                            strict = std::isfinite(u) && u < v;
                        }
                    if (strict) found.push_back({(v - back[c]) / rms[c], x, y});
                }
            }
        }
        std::lock_guard lock(m);
        peaks.insert(peaks.end(), found.begin(), found.end());
    }, threadsForPixels(static_cast<double>(x1 - x0) * (y1 - y0)));
    // The most significant first; ties by position, so that the order does not depend on the threads.
    std::sort(peaks.begin(), peaks.end(), [](const Peak& a, const Peak& b) {
        if (a.significance != b.significance) return a.significance > b.significance;
        return a.y != b.y ? a.y < b.y : a.x < b.x;
    });
    return peaks;
}

// The FWHM of one star (0: not a clean, isolated, unsaturated star).
template <class T>
double starFwhm(const T* p, const Image& image, const BackgroundMap& model, const Peak& peak,
                std::optional<double> saturation) {
    constexpr int side = 2 * kWindow + 1;
    // Fixed-size scratch (no allocation a candidate: thousands are tried on a crowded field).
    constexpr std::size_t area = static_cast<std::size_t>(side) * side;
    std::array<double, area> v;
    for (int dy = -kWindow; dy <= kWindow; ++dy)
        for (int dx = -kWindow; dx <= kWindow; ++dx) {
            const double s = sampleAt(p, image, peak.x + dx, peak.y + dy);
            if (!std::isfinite(s) || (saturation && s >= *saturation)) return 0.0;
            v[static_cast<std::size_t>(dy + kWindow) * side + dx + kWindow] = s;
        }
    double b = 0.0, noise = 0.0;
    model.row(peak.y, peak.x, peak.x + 1, &b, &noise);
    for (double& x : v) x -= b;
    const double top = v[static_cast<std::size_t>(kWindow) * side + kWindow], half = 0.5 * top;
    if (!(top > 0.0)) return 0.0;
    // The pixels connected to the peak (8-connected) at `level` or above, into `mask`; false when they reach
    // the window's border.
    std::array<int, area> stack; // each pixel is pushed at most once
    auto islandAt = [&](double level, std::array<std::uint8_t, area>& mask) {
        mask.fill(0);
        std::size_t depth = 0;
        stack[depth++] = kWindow * side + kWindow;
        mask[static_cast<std::size_t>(stack[0])] = 1;
        while (depth > 0) {
            const int i = stack[--depth];
            const int x = i % side, y = i / side;
            if (x == 0 || y == 0 || x == side - 1 || y == side - 1) return false;
            for (int dy = -1; dy <= 1; ++dy)
                for (int dx = -1; dx <= 1; ++dx) {
                    const int j = (y + dy) * side + x + dx;
                    if (!mask[static_cast<std::size_t>(j)] && v[static_cast<std::size_t>(j)] >= level) {
                        mask[static_cast<std::size_t>(j)] = 1;
                        stack[depth++] = j;
                    }
                }
        }
        return true;
    };
    // The half-maximum island: it must not reach the window's border, and no other pixel of the window may reach
    // half the peak (a neighbour that bright would be in its wings).
    std::array<std::uint8_t, area> island, fit;
    if (!islandAt(half, island)) return 0.0;
    for (std::size_t i = 0; i < v.size(); ++i)
        if (!island[i] && v[i] >= half) return 0.0;
    // The fit's pixels: the half-maximum island (a Moffat's wings beyond it would widen the fit), or where that
    // has fewer than kMinFitPixels (a narrow star), the island at a quarter of the peak.
    std::size_t halfCount = 0;
    for (std::size_t i = 0; i < v.size(); ++i) halfCount += island[i] && v[i] > 0.0;
    if (halfCount >= kMinFitPixels) fit = island;
    else if (!islandAt(kFitLevel * top, fit)) return 0.0;
    // ln v = a + b x + c y + d (x^2 + y^2) over those pixels, least squares weighted by v^2 (the noise of ln v
    // is about the pixel noise over v): sigma^2 = -1 / (2 d).
    double m[4][5] = {};
    int n = 0;
    for (int dy = -kWindow; dy <= kWindow; ++dy)
        for (int dx = -kWindow; dx <= kWindow; ++dx) {
            const std::size_t i = static_cast<std::size_t>(dy + kWindow) * side + dx + kWindow;
            if (!fit[i] || !(v[i] > 0.0)) continue;
            const double w = v[i], row[5] = {w, w * dx, w * dy, w * (dx * dx + dy * dy), w * std::log(v[i])};
            for (int a = 0; a < 4; ++a)
                for (int b = 0; b < 5; ++b) m[a][b] += row[a] * row[b];
            ++n;
        }
    if (n < 5) return 0.0;
    // Gaussian elimination with partial pivoting.
    for (int c = 0; c < 4; ++c) {
        int best = c;
        for (int r = c + 1; r < 4; ++r)
            if (std::fabs(m[r][c]) > std::fabs(m[best][c])) best = r;
        if (!(std::fabs(m[best][c]) > 0.0)) return 0.0;
        for (int k = 0; k < 5; ++k) std::swap(m[c][k], m[best][k]);
        for (int r = 0; r < 4; ++r) {
            if (r == c) continue;
            const double f = m[r][c] / m[c][c];
            for (int k = c; k < 5; ++k) m[r][k] -= f * m[c][k];
        }
    }
    const double coef[4] = {m[0][4] / m[0][0], m[1][4] / m[1][1], m[2][4] / m[2][2], m[3][4] / m[3][3]};
    const double d = coef[3];
    if (!(d < 0.0)) return 0.0;
    // The fit must describe the star: chi^2 per degree of freedom of ln v against the noise (rms / v) and a
    // shape allowance (kShapeTolerance: a Moffat core is no parabola in ln v either). A saturated star's flat
    // top, a blend, or a cosmic ray's spike fails it.
    double chi2 = 0.0; // n >= 5: at least one degree of freedom
    for (int dy = -kWindow; dy <= kWindow; ++dy)
        for (int dx = -kWindow; dx <= kWindow; ++dx) {
            const std::size_t i = static_cast<std::size_t>(dy + kWindow) * side + dx + kWindow;
            if (!fit[i] || !(v[i] > 0.0)) continue;
            const double model = coef[0] + coef[1] * dx + coef[2] * dy + coef[3] * (dx * dx + dy * dy);
            const double e = std::log(v[i]) - model, sn = noise / v[i];
            chi2 += e * e / (sn * sn + kShapeTolerance * kShapeTolerance);
        }
    if (!(chi2 / (n - 4) <= kMaxChi2)) return 0.0;
    const double sigma2 = -0.5 / d;
    return 2.0 * std::sqrt(2.0 * std::log(2.0)) * std::sqrt(sigma2);
}

} // namespace

PsfWidth measurePsfWidth(const Image& image, const BackgroundMap& model, const PixelRect& roi,
                         std::optional<double> saturation) {
    PsfWidth out;
    if (model.empty()) return out;
    // Widths of the most significant stars first; the faint ones' (noise widens the island) only when fewer
    // than kPsfMinStars reach kBrightPeakRms.
    // The candidates are measured in batches on the threads, taken in significance order.
    std::vector<double> widths;
    std::size_t bright = 0;
    image.visit([&](const auto* p) {
        const std::vector<Peak> peaks = findPeaks(p, image, model, roi);
        std::vector<double> w(peaks.size(), 0.0);
        for (std::size_t next = 0; next < peaks.size() && widths.size() < kMaxStars;) {
            const std::size_t end = std::min(peaks.size(), next + 512);
            parallelFor(next, end, 32, [&](std::size_t a, std::size_t b) {
                for (std::size_t i = a; i < b; ++i) w[i] = starFwhm(p, image, model, peaks[i], saturation);
            });
            for (std::size_t i = next; i < end && widths.size() < kMaxStars; ++i) {
                if (!(w[i] > 0.0) || !std::isfinite(w[i])) continue;
                widths.push_back(w[i]);
                bright += peaks[i].significance >= kBrightPeakRms;
            }
            next = end;
        }
    });
    if (bright >= static_cast<std::size_t>(kPsfMinStars)) widths.resize(bright);
    if (static_cast<int>(widths.size()) < kPsfMinStars) return out;
    const auto mid = widths.begin() + static_cast<std::ptrdiff_t>((widths.size() - 1) / 2);
    std::nth_element(widths.begin(), mid, widths.end());
    out.fwhm = *mid;
    out.stars = static_cast<int>(widths.size());
    return out;
}

int autoSearchBound(double fwhm) {
    return std::max(3, static_cast<int>(std::floor(kAutoBoxFwhm * fwhm + 1e-9)));
}

SearchBound measureSearchBound(const Image& image, const BackgroundMap* model, const PixelRect& roi, int mesh, JobControl& job) {
    SearchBound out;
    out.automatic = true;
    out.maxBox = mesh;
    if (!model || model->empty()) return out;
    auto step = job.timing().scope("psf width");
    out.psf = measurePsfWidth(image, *model, roi, saturationLevel(image));
    if (out.psf.measured()) out.maxBox = autoSearchBound(out.psf.fwhm);
    return out;
}

void recordSearchBound(const SearchBound& bound, int used, BrightestResult& result) {
    result.maxBox = used;
    result.maxBoxAuto = bound.automatic;
    result.psfFwhm = bound.psf.fwhm;
    result.psfStars = bound.psf.stars;
}

} // namespace glint
