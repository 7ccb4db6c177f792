#include "core/algo/sources/Background.h"

#include "core/algo/sources/BackgroundMath.h"

#include "core/io/Image.h"
#include "core/util/Errors.h"
#include "core/util/Parallel.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace glint {

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
                                            const BackgroundParams& params, const std::vector<BackgroundCell>* previous,
                                            const std::vector<std::uint8_t>* previousExcluded) {
    const int W = image.width(), H = image.height();
    checkBackgroundParams(W, H, params);
    const int mesh = params.mesh;
    const int nx = (W + mesh - 1) / mesh, ny = (H + mesh - 1) / mesh;
    const std::size_t cells = static_cast<std::size_t>(nx) * ny;
    std::vector<BackgroundCell> out(cells);
    const std::uint8_t* blank = image.hasBlanks() ? image.blankMask().data() : nullptr;
    const std::uint8_t* mask = excluded.empty() ? nullptr : excluded.data();
    if (previous && previous->size() != cells) previous = nullptr;
    const std::uint8_t* before = previous && previousExcluded && !previousExcluded->empty() ? previousExcluded->data() : nullptr;
    // The cell's exclusions as in the earlier call: none then and none now, or the same bytes.
    auto sameExclusions = [&](int x0, int x1, int y0, int y1) {
        if (!previous) return false;
        if (!mask || !before) return !mask && (!before || previousExcluded->empty());
        for (int y = y0; y < y1; ++y) {
            const std::size_t base = static_cast<std::size_t>(y) * W;
            if (std::memcmp(mask + base + x0, before + base + x0, static_cast<std::size_t>(x1 - x0)) != 0) return false;
        }
        return true;
    };

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
                if (sameExclusions(x0, x1, y0, y1)) {
                    out[c] = (*previous)[c];
                    continue;
                }
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
    // arithmetic of BackgroundMath.h, which the device's rows share (cuda/BackgroundKernels.cuh).
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
