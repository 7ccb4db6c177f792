#include "core/algo/maxsub/Background.h"

#include "core/algo/maxsub/BackgroundMath.h"

#include "core/io/Image.h"
#include "core/util/Errors.h"
#include "core/util/Parallel.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace glint {

namespace {

// The mode estimate of SExtractor and SEP: 2.5 median - 1.5 mean unless the clipped distribution is
// skewed (|mean - median| >= 0.3 sigma, a crowded cell), then the median.
double modeOf(double mean, double median, double sigma) {
    if (!(sigma > 0.0)) return mean;
    return std::fabs(mean - median) < 0.3 * sigma ? 2.5 * median - 1.5 * mean : median;
}

ClippedStats finish(std::size_t count, double mean, double median, double sigma) {
    ClippedStats s;
    s.count = count;
    s.mean = mean;
    s.median = median;
    s.sigma = sigma;
    s.mode = modeOf(mean, median, sigma);
    return s;
}

constexpr int kBins = 1024;      // histogram bins over +-kSpan sigma
constexpr double kSpan = 5.0;
constexpr int kRebuilds = 4;     // histograms made again around a much smaller sigma

} // namespace

ClippedStats clippedStatsHistogram(const double* values, std::size_t n, double clipSigma, int maxIterations,
                                   std::vector<double>* scratch) {
    if (n == 0) return {};
    // The plain mean and sigma (shifted by the first value for accuracy).
    const double shift = values[0];
    double s = 0.0, ss = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        const double d = values[i] - shift;
        s += d;
        ss += d * d;
    }
    const double dn = static_cast<double>(n);
    double mean = shift + s / dn;
    double sigma = std::sqrt(std::max(0.0, ss / dn - (s / dn) * (s / dn)));
    if (!(sigma > 0.0)) return finish(n, mean, mean, 0.0);

    std::vector<double> local;
    std::vector<double>& hist = scratch ? *scratch : local;
    hist.assign(3 * kBins, 0.0); // count, sum, sum of squares (relative to the centre) per bin
    double centre = mean, width = sigma;
    std::size_t count = n;
    double median = mean;
    // The clipping interval as bin indices; the first pass of the first histogram keeps everything (the
    // values outside the histogram are counted apart, in under and over).
    int b0 = 0, b1 = kBins - 1;
    bool all = true;
    int iterations = 0;
    double lo = 0.0, binWidth = 1.0;
    int medianBin = -1, medianNext = -1; // bins holding a single value that give the median (-1: none)
    for (int rebuild = 0; rebuild <= kRebuilds; ++rebuild) {
        lo = centre - kSpan * width;
        binWidth = 2.0 * kSpan * width / kBins;
        std::fill(hist.begin(), hist.end(), 0.0);
        double under[3] = {0, 0, 0}, over[3] = {0, 0, 0};
        for (std::size_t i = 0; i < n; ++i) {
            const double d = values[i] - centre;
            const double f = (values[i] - lo) / binWidth;
            double* h;
            if (f < 0.0) h = under;
            else if (f >= kBins) h = over;
            else h = hist.data() + 3 * static_cast<std::size_t>(f);
            h[0] += 1.0;
            h[1] += d;
            h[2] += d * d;
        }
        if (rebuild > 0) { // the interval found so far, in the new bins
            const double cl = median - clipSigma * sigma, ch = median + clipSigma * sigma;
            b0 = std::max(0, static_cast<int>(std::ceil((cl - lo) / binWidth - 0.5)));
            b1 = std::min(kBins - 1, static_cast<int>(std::floor((ch - lo) / binWidth - 0.5)));
            if (b0 > b1) b0 = b1 = std::clamp(static_cast<int>((median - lo) / binWidth), 0, kBins - 1);
            all = false;
        }
        for (; iterations < maxIterations; ++iterations) {
            double c = 0.0, sum = 0.0, sq = 0.0;
            if (all) {
                c = under[0] + over[0];
                sum = under[1] + over[1];
                sq = under[2] + over[2];
            }
            for (int b = b0; b <= b1; ++b) {
                c += hist[3 * b];
                sum += hist[3 * b + 1];
                sq += hist[3 * b + 2];
            }
            if (!(c > 0.0)) break;
            count = static_cast<std::size_t>(c);
            mean = centre + sum / c;
            sigma = std::sqrt(std::max(0.0, sq / c - (sum / c) * (sum / c)));
            // The median, interpolated inside its bin (values outside the histogram sit at its ends). A bin
            // that holds one value only (integer data: bins are narrower than 1 when sigma < ~100) gives that
            // value, and when the rank ends exactly at its end (an even count) the mean of it and the next.
            auto binMean = [&](int b) { return centre + hist[3 * b + 1] / hist[3 * b]; };
            auto spike = [&](int b) {
                const double m = hist[3 * b + 1] / hist[3 * b];
                return hist[3 * b + 2] / hist[3 * b] - m * m <= 1e-4 * binWidth * binWidth;
            };
            auto binMedian = [&](int b, double inBin) {
                const double h = hist[3 * b];
                medianBin = medianNext = -1;
                if (!spike(b)) return lo + (b + inBin / h) * binWidth;
                medianBin = b;
                if (inBin < h) return binMean(b);
                for (int q = b + 1; q <= b1; ++q)
                    if (hist[3 * q] > 0.0) {
                        if (!spike(q)) {
                            medianBin = -1;
                            return 0.5 * (binMean(b) + lo + q * binWidth);
                        }
                        medianNext = q;
                        return 0.5 * (binMean(b) + binMean(q));
                    }
                return binMean(b);
            };
            const double rank = 0.5 * c;
            double below = all ? under[0] : 0.0;
            medianBin = medianNext = -1;
            if (below >= rank) {
                median = lo;
            } else {
                median = lo + 2.0 * kSpan * width;
                for (int b = b0; b <= b1; ++b) {
                    const double h = hist[3 * b];
                    if (below + h >= rank) {
                        median = binMedian(b, rank - below);
                        break;
                    }
                    below += h;
                }
            }
            const double cl = median - clipSigma * sigma, ch = median + clipSigma * sigma;
            int n0 = std::max(0, static_cast<int>(std::ceil((cl - lo) / binWidth - 0.5)));
            int n1 = std::min(kBins - 1, static_cast<int>(std::floor((ch - lo) / binWidth - 0.5)));
            if (n0 > n1) n0 = n1 = std::clamp(static_cast<int>((median - lo) / binWidth), 0, kBins - 1);
            if (!all && n0 == b0 && n1 == b1) break; // converged
            b0 = n0;
            b1 = n1;
            all = false;
        }
        // Bins much wider than sigma blur the clipping: histogram the values again around the new estimate.
        if (!(sigma > 0.0) || sigma * 16.0 > width || iterations >= maxIterations) break;
        centre = median;
        width = sigma;
    }
    // The kept values once more, exactly (shifted by the first one): a constant cell gives its value bit for
    // bit, and a median in a single-valued bin that value.
    double keptShift = 0.0, s1 = 0.0, s2 = 0.0, first = 0.0, next = 0.0;
    std::size_t kept = 0;
    bool haveFirst = false, haveNext = false;
    for (std::size_t i = 0; i < n; ++i) {
        const double f = (values[i] - lo) / binWidth;
        const int bin = f < 0.0 ? -1 : f >= kBins ? kBins : static_cast<int>(f);
        if (!all && (bin < b0 || bin > b1)) continue;
        if (kept == 0) keptShift = values[i];
        const double d = values[i] - keptShift;
        s1 += d;
        s2 += d * d;
        ++kept;
        if (bin == medianBin && !haveFirst) {
            first = values[i];
            haveFirst = true;
        }
        if (bin == medianNext && !haveNext) {
            next = values[i];
            haveNext = true;
        }
    }
    if (kept > 0) {
        const double k = static_cast<double>(kept);
        count = kept;
        mean = keptShift + s1 / k;
        sigma = std::sqrt(std::max(0.0, s2 / k - (s1 / k) * (s1 / k)));
        if (medianBin >= 0 && haveFirst) median = medianNext >= 0 && haveNext ? 0.5 * (first + next) : first;
    }
    return finish(count, mean, median, sigma);
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
            std::vector<double> values;
            std::vector<double> scratch;
            values.reserve(static_cast<std::size_t>(mesh) * mesh);
            for (std::size_t c = c0; c < c1; ++c) {
                const int i = static_cast<int>(c % nx), j = static_cast<int>(c / nx);
                const int x0 = i * mesh, x1 = std::min(W, x0 + mesh), y0 = j * mesh, y1 = std::min(H, y0 + mesh);
                values.clear();
                for (int y = y0; y < y1; ++y) {
                    const std::size_t base = static_cast<std::size_t>(y) * W;
                    for (int x = x0; x < x1; ++x) {
                        const std::size_t idx = base + x;
                        if ((blank && blank[idx]) || (mask && mask[idx])) continue;
                        const double v = static_cast<double>(p[idx]);
                        if constexpr (std::is_floating_point_v<T>)
                            if (!std::isfinite(v)) continue;
                        values.push_back(v);
                    }
                }
                BackgroundCell& cell = out[c];
                cell.area = static_cast<std::uint32_t>((x1 - x0) * (y1 - y0));
                cell.good = static_cast<std::uint32_t>(values.size());
                if (values.empty()) continue;
                const ClippedStats s = clippedStatsHistogram(values.data(), values.size(), params.clipSigma,
                                                             params.maxIterations, &scratch);
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

    // Bad cells: the mean of the nearest good cells.
    std::vector<double> back = m.back_, rms = m.rms_;
    for (int j = 0; j < ny; ++j)
        for (int i = 0; i < nx; ++i) {
            const std::size_t c = static_cast<std::size_t>(j) * nx + i;
            if (m.good_[c]) continue;
            long best = -1;
            double sb = 0.0, sr = 0.0;
            int count = 0;
            for (int q = 0; q < ny; ++q)
                for (int p = 0; p < nx; ++p) {
                    const std::size_t g = static_cast<std::size_t>(q) * nx + p;
                    if (!m.good_[g]) continue;
                    const long d = static_cast<long>(q - j) * (q - j) + static_cast<long>(p - i) * (p - i);
                    if (best >= 0 && d > best) continue;
                    if (d < best || best < 0) {
                        best = d;
                        sb = sr = 0.0;
                        count = 0;
                    }
                    sb += m.back_[g];
                    sr += m.rms_[g];
                    ++count;
                }
            back[c] = sb / count;
            rms[c] = sr / count;
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
    std::vector<double> u(static_cast<std::size_t>(ny));
    for (int i = 0; i < nx; ++i) {
        bgmath::naturalSpline(m.yc_.data(), m.back_.data() + i, ny, nx, m.backD2_.data() + i, u.data());
        bgmath::naturalSpline(m.yc_.data(), m.rms_.data() + i, ny, nx, m.rmsD2_.data() + i, u.data());
    }
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
