// The background and noise map (core/algo/sources/Background): every cell against the exact clipping, the
// model (fill of bad cells, median filter, column splines) against a plain oracle bit for bit, the rows
// against the former spline code bit for bit, the host arithmetic uncontracted (the device repeats it), a
// synthetic truth (a smooth sky with Gaussian noise and stars), the spline's exactness on a plane,
// exclusions, and the bad inputs (mesh larger than the image, a constant image, an all-blank image).
#include "tests/support/TestSupport.h"

#include "core/algo/sources/Background.h"
#include "core/algo/sources/BackgroundMath.h"
#include "core/io/Image.h"
#include "core/util/Errors.h"

#include <QtTest>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

using namespace glint;
using namespace glint::test;

namespace {

// Sky + noise + a few bright stars, as doubles.
Image skyImage(int W, int H, double noise, std::mt19937& rng, const std::function<double(int, int)>& sky, int stars) {
    std::vector<double> v(static_cast<std::size_t>(W) * H);
    std::normal_distribution<double> g(0.0, noise);
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) v[static_cast<std::size_t>(y) * W + x] = sky(x, y) + g(rng);
    std::uniform_real_distribution<double> ux(0, W), uy(0, H), uf(20 * noise, 500 * noise);
    for (int s = 0; s < stars; ++s) {
        const double cx = ux(rng), cy = uy(rng), f = uf(rng);
        for (int y = std::max(0, int(cy) - 6); y < std::min(H, int(cy) + 7); ++y)
            for (int x = std::max(0, int(cx) - 6); x < std::min(W, int(cx) + 7); ++x)
                v[static_cast<std::size_t>(y) * W + x] += f * std::exp(-((x - cx) * (x - cx) + (y - cy) * (y - cy)) / 4.5);
    }
    return Image::fromSamples(W, H, std::move(v));
}

// The spline code as it was before its arithmetic moved to BackgroundMath.h (shared with the device):
// BackgroundMap::row must still give these values bit for bit.
// Second derivatives of the natural cubic spline through (x[i], y[i * stride]), i < n, into d2[i * stride].
void naturalSpline(const double* x, const double* y, int n, int stride, double* d2, std::vector<double>& u) {
    for (int i = 0; i < n; ++i) d2[i * stride] = 0.0;
    if (n < 3) return;
    u.assign(static_cast<std::size_t>(n), 0.0);
    for (int i = 1; i < n - 1; ++i) {
        const double sig = (x[i] - x[i - 1]) / (x[i + 1] - x[i - 1]);
        const double p = sig * d2[(i - 1) * stride] + 2.0;
        d2[i * stride] = (sig - 1.0) / p;
        const double dy = (y[(i + 1) * stride] - y[i * stride]) / (x[i + 1] - x[i]) -
                          (y[i * stride] - y[(i - 1) * stride]) / (x[i] - x[i - 1]);
        u[i] = (6.0 * dy / (x[i + 1] - x[i - 1]) - sig * u[i - 1]) / p;
    }
    d2[(n - 1) * stride] = 0.0;
    for (int i = n - 2; i >= 0; --i) d2[i * stride] = d2[i * stride] * d2[(i + 1) * stride] + u[i];
}

// The spline at t in the interval [x[i], x[i+1]] (i from the caller), or extended linearly beyond the end
// knots with the end slopes.
double splineAt(const double* x, const double* y, const double* d2, int n, int stride, double t, int i) {
    if (n == 1) return y[0];
    if (t <= x[0]) {
        const double h = x[1] - x[0];
        const double slope = (y[stride] - y[0]) / h - h * (2.0 * d2[0] + d2[stride]) / 6.0;
        return y[0] + slope * (t - x[0]);
    }
    if (t >= x[n - 1]) {
        const double h = x[n - 1] - x[n - 2];
        const double slope =
            (y[(n - 1) * stride] - y[(n - 2) * stride]) / h + h * (d2[(n - 2) * stride] + 2.0 * d2[(n - 1) * stride]) / 6.0;
        return y[(n - 1) * stride] + slope * (t - x[n - 1]);
    }
    const double h = x[i + 1] - x[i];
    const double a = (x[i + 1] - t) / h, b = 1.0 - a;
    return a * y[i * stride] + b * y[(i + 1) * stride] +
           ((a * a * a - a) * d2[i * stride] + (b * b * b - b) * d2[(i + 1) * stride]) * h * h / 6.0;
}

// The spline through (x[i], y[i]) (second derivatives d2) at every integer t in t0..t1-1 into out[0..]: the
// curve of splineAt, each interval's cubic written as y[i] + s (c1 + s (c2 + s c3)) with s = t - x[i] (one
// set of coefficients an interval, then three multiply-adds a pixel instead of splineAt's division and
// cubes), extended linearly beyond the end knots with the end slopes. The knots increase.
void splineRow(const double* x, const double* y, const double* d2, int n, int t0, int t1,
               double* out, std::vector<double>& coefficients) {
    if (t1 <= t0) return;
    if (n == 1) {
        std::fill(out, out + (t1 - t0), y[0]);
        return;
    }
    coefficients.resize(static_cast<std::size_t>(3 * (n - 1)));
    for (int i = 0; i + 1 < n; ++i) {
        const double h = x[i + 1] - x[i];
        coefficients[3 * i] = (y[i + 1] - y[i]) / h - h * (2.0 * d2[i] + d2[i + 1]) / 6.0;
        coefficients[3 * i + 1] = 0.5 * d2[i];
        coefficients[3 * i + 2] = (d2[i + 1] - d2[i]) / (6.0 * h);
    }
    const double hEnd = x[n - 1] - x[n - 2];
    const double endSlope = (y[n - 1] - y[n - 2]) / hEnd + hEnd * (d2[n - 2] + 2.0 * d2[n - 1]) / 6.0;
    int t = t0;
    for (; t < t1 && t <= x[0]; ++t) out[t - t0] = y[0] + coefficients[0] * (t - x[0]);
    for (int i = 0; i + 1 < n && t < t1; ++i) {
        // The integers of (x[i], x[i+1]] (the first interval also holds x[0] itself, handled above).
        const double xi = x[i], yi = y[i], c1 = coefficients[3 * i], c2 = coefficients[3 * i + 1], c3 = coefficients[3 * i + 2];
        const int stop = i + 2 < n ? std::min(t1, static_cast<int>(std::floor(x[i + 1])) + 1)
                                   : std::min(t1, static_cast<int>(std::ceil(x[n - 1])));
        for (; t < stop; ++t) {
            const double s = t - xi;
            out[t - t0] = yi + s * (c1 + s * (c2 + s * c3));
        }
    }
    for (; t < t1; ++t) out[t - t0] = y[n - 1] + endSlope * (t - x[n - 1]);
}


void oldRow(const BackgroundMap& m, int y, int x0, int x1, double* out, bool rms) {
    const auto& yc = m.knotsY();
    const int nx = m.cellsX(), ny = m.cellsY();
    int j = 0;
    if (ny >= 2) j = std::clamp(static_cast<int>(std::upper_bound(yc.begin(), yc.end(), double(y)) - yc.begin()) - 1, 0, ny - 2);
    const std::vector<double>& grid = rms ? m.cellRms() : m.cellBackground();
    const std::vector<double>& gridD2 = rms ? m.rmsD2() : m.backgroundD2();
    std::vector<double> nodes(nx), d2(nx), u, coefficients;
    for (int i = 0; i < nx; ++i) nodes[i] = splineAt(yc.data(), grid.data() + i, gridD2.data() + i, ny, nx, y, j);
    naturalSpline(m.knotsX().data(), nodes.data(), nx, 1, d2.data(), u);
    splineRow(m.knotsX().data(), nodes.data(), d2.data(), nx, x0, x1, out, coefficients);
    if (rms)
        for (int x = 0; x < x1 - x0; ++x) out[x] = std::max(0.0, out[x]);
}

} // namespace

class TestBackgroundMap : public QObject {
    Q_OBJECT
private slots:
    void cellsMatchTheOracle() {
        std::mt19937 rng(11);
        for (int trial = 0; trial < 6; ++trial) {
            const int W = std::uniform_int_distribution<int>(40, 200)(rng);
            const int H = std::uniform_int_distribution<int>(40, 200)(rng);
            const int mesh = std::uniform_int_distribution<int>(8, 40)(rng);
            const Image im = skyImage(W, H, 4.0, rng, [](int x, int y) { return 50 + 0.1 * x - 0.05 * y; }, 10);
            BackgroundParams p;
            p.mesh = mesh;
            p.filterSize = 1;
            const BackgroundMap m = estimateBackground(im, {}, p);
            QVERIFY(!m.empty());
            QCOMPARE(m.cellsX(), (W + mesh - 1) / mesh);
            QCOMPARE(m.cellsY(), (H + mesh - 1) / mesh);
            for (int j = 0; j < m.cellsY(); ++j)
                for (int i = 0; i < m.cellsX(); ++i) {
                    std::vector<double> v;
                    for (int y = j * mesh; y < std::min(H, (j + 1) * mesh); ++y)
                        for (int x = i * mesh; x < std::min(W, (i + 1) * mesh); ++x) v.push_back(im.value(x, y));
                    const ClippedStats e = clippedStatsExact(v, 3.0, 30);
                    const std::size_t c = static_cast<std::size_t>(j) * m.cellsX() + i;
                    QVERIFY(m.cellGood()[c]);
                    QVERIFY2(std::fabs(m.cellBackground()[c] - e.mode) <= 0.1 * e.sigma,
                             qPrintable(QString("cell %1,%2: %3 vs %4").arg(i).arg(j).arg(m.cellBackground()[c]).arg(e.mode)));
                    QVERIFY(std::fabs(m.cellRms()[c] - e.sigma) <= 0.05 * e.sigma);
                }
        }
    }

    void modelMatchesTheOracle() {
        // backgroundFromCells (the fill of bad cells, the median filter, the column splines) against a plain
        // oracle, bit for bit: bad cells take the mean of all nearest good cells by a scan of every cell, the
        // filter sorts each window, the splines are solved column by column. Random grids of 1 to 70 cells a
        // side; values drawn from a few levels (ties in every window) or continuous; bad cells scattered, in
        // blank borders, or all but one; filter sizes 1, 3 and 5.
        std::mt19937 rng(31);
        for (int trial = 0; trial < 300; ++trial) {
            const int mesh = std::uniform_int_distribution<int>(2, 9)(rng);
            const int nx = std::uniform_int_distribution<int>(1, trial < 30 ? 4 : 70)(rng);
            const int ny = std::uniform_int_distribution<int>(1, trial < 30 ? 4 : 70)(rng);
            // The last cell partial, but the image at least a mesh wide and high (a larger mesh is refused).
            const int W = nx == 1 ? mesh : nx * mesh - std::uniform_int_distribution<int>(0, mesh - 1)(rng);
            const int H = ny == 1 ? mesh : ny * mesh - std::uniform_int_distribution<int>(0, mesh - 1)(rng);
            BackgroundParams p;
            p.mesh = mesh;
            p.filterSize = std::array{1, 3, 3, 5}[static_cast<std::size_t>(trial % 4)];
            const std::size_t cells = static_cast<std::size_t>(nx) * ny;
            const bool levels = trial % 2 == 0;
            const int pattern = (trial / 2) % 4; // 0: few bad, 1: many bad, 2: blank border, 3: one good cell
            std::uniform_real_distribution<double> u01(0.0, 1.0);
            std::vector<BackgroundCell> in(cells);
            const int border = std::uniform_int_distribution<int>(0, std::max(nx, ny) / 2)(rng);
            const std::size_t keep = std::uniform_int_distribution<std::size_t>(0, cells - 1)(rng);
            for (int j = 0; j < ny; ++j)
                for (int i = 0; i < nx; ++i) {
                    BackgroundCell& c = in[static_cast<std::size_t>(j) * nx + i];
                    c.area = static_cast<std::uint32_t>(mesh * mesh);
                    c.back = levels ? 100.0 + std::uniform_int_distribution<int>(0, 3)(rng) : 100.0 + 10.0 * u01(rng);
                    c.rms = levels ? 2.0 + 0.5 * std::uniform_int_distribution<int>(0, 2)(rng) : 2.0 + u01(rng);
                    const bool inBorder = i < border || j < border || i >= nx - border || j >= ny - border;
                    const bool bad = pattern == 0   ? u01(rng) < 0.1
                                     : pattern == 1 ? u01(rng) < 0.7
                                     : pattern == 2 ? inBorder
                                                    : static_cast<std::size_t>(j) * nx + i != keep;
                    c.good = bad ? (u01(rng) < 0.5 ? 0u : c.area / 2 - 1) : c.area - std::uniform_int_distribution<std::uint32_t>(0, c.area / 2)(rng);
                }
            const BackgroundMap m = backgroundFromCells(W, H, p, in);

            // The oracle.
            std::vector<std::uint8_t> good(cells), measured(cells);
            for (std::size_t c = 0; c < cells; ++c) {
                measured[c] = in[c].good > 0;
                good[c] = in[c].good > 0 && 2 * static_cast<std::uint64_t>(in[c].good) >= in[c].area;
            }
            if (std::count(good.begin(), good.end(), 1) == 0) good = measured;
            const QString at = QString("trial %1 (%2 x %3 cells, pattern %4, filter %5)").arg(trial).arg(nx).arg(ny).arg(pattern).arg(p.filterSize);
            if (std::count(good.begin(), good.end(), 1) == 0) {
                QVERIFY2(m.empty(), qPrintable(at));
                continue;
            }
            QVERIFY2(!m.empty(), qPrintable(at));
            QVERIFY2(m.cellGood() == good, qPrintable(at));
            std::vector<double> back(cells), rms(cells);
            for (int j = 0; j < ny; ++j)
                for (int i = 0; i < nx; ++i) {
                    const std::size_t c = static_cast<std::size_t>(j) * nx + i;
                    if (good[c]) {
                        back[c] = in[c].back;
                        rms[c] = in[c].rms;
                        continue;
                    }
                    long best = -1;
                    for (std::size_t g = 0; g < cells; ++g) {
                        if (!good[g]) continue;
                        const long dx = static_cast<long>(g % nx) - i, dy = static_cast<long>(g / nx) - j;
                        if (best < 0 || dx * dx + dy * dy < best) best = dx * dx + dy * dy;
                    }
                    double sb = 0.0, sr = 0.0;
                    int count = 0;
                    for (std::size_t g = 0; g < cells; ++g) {
                        const long dx = static_cast<long>(g % nx) - i, dy = static_cast<long>(g / nx) - j;
                        if (!good[g] || dx * dx + dy * dy != best) continue;
                        sb += in[g].back;
                        sr += in[g].rms;
                        ++count;
                    }
                    back[c] = sb / count;
                    rms[c] = sr / count;
                }
            // The filter over the grid extended linearly beyond its edges (along x, then along y).
            auto filtered = [&](const std::vector<double>& grid) {
                const int h = p.filterSize / 2;
                auto padded = [&](int i, int j) {
                    auto along = [](double edge, double inner, int steps) { return edge + (edge - inner) * steps; };
                    auto rowValue = [&](int ii, int jj) {
                        const double* row = grid.data() + static_cast<std::size_t>(jj) * nx;
                        if (ii >= 0 && ii < nx) return row[ii];
                        if (nx == 1) return row[0];
                        return ii < 0 ? along(row[0], row[1], -ii) : along(row[nx - 1], row[nx - 2], ii - nx + 1);
                    };
                    if (j >= 0 && j < ny) return rowValue(i, j);
                    if (ny == 1) return rowValue(i, 0);
                    return j < 0 ? along(rowValue(i, 0), rowValue(i, 1), -j) : along(rowValue(i, ny - 1), rowValue(i, ny - 2), j - ny + 1);
                };
                std::vector<double> out(cells);
                for (int j = 0; j < ny; ++j)
                    for (int i = 0; i < nx; ++i) {
                        std::vector<double> w;
                        for (int q = j - h; q <= j + h; ++q)
                            for (int pp = i - h; pp <= i + h; ++pp) w.push_back(padded(pp, q));
                        std::sort(w.begin(), w.end());
                        out[static_cast<std::size_t>(j) * nx + i] = w[w.size() / 2];
                    }
                return out;
            };
            back = filtered(back);
            rms = filtered(rms);
            for (std::size_t c = 0; c < cells; ++c) {
                QVERIFY2(std::memcmp(&back[c], &m.cellBackground()[c], 8) == 0,
                         qPrintable(at + QString(": cell %1 background %2 vs %3").arg(c).arg(m.cellBackground()[c], 0, 'g', 17).arg(back[c], 0, 'g', 17)));
                QVERIFY2(std::memcmp(&rms[c], &m.cellRms()[c], 8) == 0, qPrintable(at + QString(": cell %1 rms").arg(c)));
            }
            std::vector<double> sorted = back;
            std::sort(sorted.begin(), sorted.end());
            const double median = cells % 2 ? sorted[cells / 2] : 0.5 * (sorted[cells / 2] + sorted[cells / 2 - 1]);
            QCOMPARE(m.globalBackground(), median);
            // The splines along y, one cell column at a time.
            std::vector<double> d2(cells), scratch;
            for (int i = 0; i < nx; ++i) naturalSpline(m.knotsY().data(), back.data() + i, ny, nx, d2.data() + i, scratch);
            QVERIFY2(std::memcmp(d2.data(), m.backgroundD2().data(), cells * 8) == 0, qPrintable(at + ": background d2"));
            for (int i = 0; i < nx; ++i) naturalSpline(m.knotsY().data(), rms.data() + i, ny, nx, d2.data() + i, scratch);
            QVERIFY2(std::memcmp(d2.data(), m.rmsD2().data(), cells * 8) == 0, qPrintable(at + ": rms d2"));
        }
    }

    void rowsMatchTheFormerSplineBitForBit() {
        // The interpolation's arithmetic moved to BackgroundMath.h (host and device share it): every row, whole
        // and in parts, equals the former code's, on odd sizes, meshes that do not divide them, 1 to many cells.
        std::mt19937 rng(23);
        for (int trial = 0; trial < 12; ++trial) {
            const int W = std::uniform_int_distribution<int>(20, 260)(rng);
            const int H = std::uniform_int_distribution<int>(20, 260)(rng);
            const int mesh = std::uniform_int_distribution<int>(2, std::min(W, H))(rng);
            const Image im = skyImage(W, H, 3.0, rng, [](int x, int y) { return 20 + 0.07 * x + 1e-3 * x * y; }, 5);
            BackgroundParams p;
            p.mesh = trial % 4 == 0 ? std::min(W, H) : mesh;
            const BackgroundMap m = estimateBackground(im, {}, p);
            QVERIFY(!m.empty());
            std::vector<double> b(W), r(W), ob(W), orr(W);
            for (int y = 0; y < H; ++y) {
                const int x0 = y % 3 == 0 ? 0 : std::uniform_int_distribution<int>(0, W - 1)(rng);
                const int x1 = y % 3 == 0 ? W : std::uniform_int_distribution<int>(x0 + 1, W)(rng);
                m.row(y, x0, x1, b.data(), r.data());
                oldRow(m, y, x0, x1, ob.data(), false);
                oldRow(m, y, x0, x1, orr.data(), true);
                for (int x = 0; x < x1 - x0; ++x) {
                    QVERIFY2(std::memcmp(&b[x], &ob[x], 8) == 0, qPrintable(QString("trial %1 y %2 x %3").arg(trial).arg(y).arg(x0 + x)));
                    QVERIFY(std::memcmp(&r[x], &orr[x], 8) == 0);
                }
            }
        }
    }

    void hostArithmeticIsNotContracted() {
        // The device repeats the host's double arithmetic operation by operation (BackgroundMath.h); that holds
        // only while the host compiler does not fuse a * b + c into one rounding (an FMA).
        volatile double a = 1.0 + std::ldexp(1.0, -30), b = 1.0 - std::ldexp(1.0, -30), c = -1.0;
        const double x = a, y = b, z = c;
        QCOMPARE(x * y + z, 0.0); // fused: -2^-60
    }

    void syntheticTruth() {
        // A curved sky with noise 5 and 60 stars: the interpolated map follows the sky to a fraction of the noise.
        std::mt19937 rng(5);
        const int W = 512, H = 384;
        auto sky = [](double x, double y) { return 200 + 10 * std::sin(x / 150.0) + 0.03 * y + 5e-5 * (x - 256) * (y - 100); };
        const Image im = skyImage(W, H, 5.0, rng, sky, 60);
        BackgroundParams p; // mesh 64, 3x3 filter
        const BackgroundMap m = estimateBackground(im, {}, p);
        double err = 0, rmsErr = 0, worst = 0;
        std::vector<double> b(W), r(W);
        for (int y = 0; y < H; ++y) {
            m.row(y, 0, W, b.data(), r.data());
            for (int x = 0; x < W; ++x) {
                const double e = b[x] - sky(x, y);
                err += e * e;
                worst = std::max(worst, std::fabs(e));
                rmsErr += std::fabs(r[x] - 5.0);
            }
        }
        err = std::sqrt(err / (W * H));
        rmsErr /= W * H;
        QVERIFY2(err < 0.4, qPrintable(QString("background rms error %1").arg(err)));
        QVERIFY2(worst < 1.5, qPrintable(QString("worst background error %1").arg(worst)));
        QVERIFY2(rmsErr < 0.25, qPrintable(QString("rms map error %1").arg(rmsErr)));
        QVERIFY(std::fabs(m.globalRms() - 5.0) < 0.3);
        // row() over a part of a row is the same as the whole row's values.
        std::vector<double> part(50);
        m.row(100, 200, 250, part.data(), nullptr);
        m.row(100, 0, W, b.data(), nullptr);
        for (int x = 0; x < 50; ++x) QCOMPARE(part[x], b[200 + x]);
        QCOMPARE(m.backgroundAt(17, 100), b[17]);
    }

    void planeIsReproduced() {
        // No noise, a plane: every cell's mode is the plane at its centre and the spline (linear extension
        // at the ends) reproduces it everywhere, partial last cells included.
        const int W = 300, H = 170;
        std::vector<double> v(static_cast<std::size_t>(W) * H);
        for (int y = 0; y < H; ++y)
            for (int x = 0; x < W; ++x) v[static_cast<std::size_t>(y) * W + x] = 1000 + 3.0 * x - 2.0 * y;
        const Image im = Image::fromSamples(W, H, std::move(v));
        BackgroundParams p;
        p.mesh = 32;
        p.filterSize = 1;
        p.clipSigma = 10; // keep every value of the ramp
        const BackgroundMap m = estimateBackground(im, {}, p);
        for (int y = 0; y < H; y += 7)
            for (int x = 0; x < W; x += 5)
                QVERIFY2(std::fabs(m.backgroundAt(x, y) - (1000 + 3.0 * x - 2.0 * y)) < 0.5,
                         qPrintable(QString("%1,%2: %3").arg(x).arg(y).arg(m.backgroundAt(x, y))));
    }

    void exclusionsAndBlanksAreLeftOut() {
        std::mt19937 rng(9);
        Image im = skyImage(256, 256, 3.0, rng, [](int, int) { return 100.0; }, 0);
        // A huge excluded block and blank pixels of absurd value: the background stays at 100.
        std::vector<std::uint8_t> excluded(256 * 256, 0), blank(256 * 256, 0);
        double* s = im.mutableSamples<double>();
        for (int y = 10; y < 120; ++y)
            for (int x = 10; x < 200; ++x) {
                s[y * 256 + x] = 1e6;
                excluded[y * 256 + x] = 1;
            }
        for (int y = 150; y < 250; ++y)
            for (int x = 0; x < 256; x += 2) {
                s[y * 256 + x] = -1e6;
                blank[y * 256 + x] = 1;
            }
        s[255 * 256 + 255] = std::nan("");
        im.setBlankMask(blank);
        const BackgroundMap m = estimateBackground(im, excluded, {});
        QVERIFY(!m.empty());
        for (int y = 0; y < 256; y += 9)
            for (int x = 0; x < 256; x += 9) QVERIFY(std::fabs(m.backgroundAt(x, y) - 100) < 1.0);
        // Cells with too few good pixels were filled, not measured.
        QVERIFY(std::count(m.cellGood().begin(), m.cellGood().end(), 0) > 0);
    }

    // A second call given the first's cells and exclusions recomputes exactly the cells whose exclusions changed
    // (the others keep the given cells: marked ones come back marked) and gives the cells of a call without them.
    void cellsReusedWhereTheExclusionsAreTheSame() {
        std::mt19937 rng(21);
        for (int trial = 0; trial < 8; ++trial) {
            const int W = std::uniform_int_distribution<int>(60, 220)(rng), H = std::uniform_int_distribution<int>(60, 220)(rng);
            const Image im = skyImage(W, H, 4.0, rng, [](int x, int y) { return 80 + 0.2 * x + 0.1 * y; }, 12);
            BackgroundParams p;
            p.mesh = std::uniform_int_distribution<int>(12, 40)(rng);
            const std::size_t n = static_cast<std::size_t>(W) * H;
            auto addBlocks = [&](std::vector<std::uint8_t>& m, int count) {
                if (m.empty()) m.assign(n, 0);
                for (int b = 0; b < count; ++b) {
                    const int x0 = std::uniform_int_distribution<int>(0, W - 1)(rng), y0 = std::uniform_int_distribution<int>(0, H - 1)(rng);
                    for (int y = y0; y < std::min(H, y0 + 7); ++y)
                        for (int x = x0; x < std::min(W, x0 + 7); ++x) m[static_cast<std::size_t>(y) * W + x] = 1;
                }
            };
            std::vector<std::uint8_t> first;
            if (trial % 2) addBlocks(first, 3);
            std::vector<std::uint8_t> second = first;
            addBlocks(second, 4);
            const std::vector<BackgroundCell> cells1 = backgroundCells(im, first, p);
            const std::vector<BackgroundCell> fresh = backgroundCells(im, second, p);
            const std::vector<BackgroundCell> again = backgroundCells(im, second, p, &cells1, &first);
            std::vector<BackgroundCell> marked = cells1;
            for (BackgroundCell& c : marked) c.back = -12345.0;
            const std::vector<BackgroundCell> probe = backgroundCells(im, second, p, &marked, &first);
            QCOMPARE(again.size(), fresh.size());
            const int nx = (W + p.mesh - 1) / p.mesh;
            std::size_t kept = 0, redone = 0;
            for (std::size_t c = 0; c < fresh.size(); ++c) {
                QCOMPARE(again[c].back, fresh[c].back);
                QCOMPARE(again[c].rms, fresh[c].rms);
                QCOMPARE(again[c].good, fresh[c].good);
                QCOMPARE(again[c].area, fresh[c].area);
                bool changed = false;
                const int x0 = static_cast<int>(c % nx) * p.mesh, y0 = static_cast<int>(c / nx) * p.mesh;
                for (int y = y0; y < std::min(H, y0 + p.mesh); ++y)
                    for (int x = x0; x < std::min(W, x0 + p.mesh); ++x) {
                        const std::size_t i = static_cast<std::size_t>(y) * W + x;
                        changed |= (first.empty() ? 0 : first[i]) != second[i];
                    }
                // Without exclusions the first time, every cell is recomputed (conservative).
                const bool reused = !changed && !first.empty();
                QCOMPARE(probe[c].back == -12345.0, reused);
                (reused ? kept : redone) += 1;
            }
            QVERIFY(redone > 0);
            if (!first.empty()) QVERIFY(kept > 0);
        }
    }

    void badInputs() {
        const Image small = intImage(40, 30, std::vector<std::int32_t>(1200, 5));
        BackgroundParams p;
        QVERIFY_THROWS_EXCEPTION(UsageError, estimateBackground(small, {}, p)); // mesh 64 > 30
        p.mesh = 1;
        QVERIFY_THROWS_EXCEPTION(UsageError, estimateBackground(small, {}, p));
        p.mesh = 30;
        // Constant image: background 5, RMS 0, no division anywhere.
        const BackgroundMap c = estimateBackground(small, {}, p);
        QVERIFY(!c.empty());
        QCOMPARE(c.backgroundAt(3, 3), 5.0);
        QCOMPARE(c.rmsAt(39, 29), 0.0);
        QCOMPARE(c.globalRms(), 0.0);
        // All blank: an empty model.
        Image blank = small;
        blank.setBlankMask(std::vector<std::uint8_t>(1200, 1));
        const BackgroundMap b = estimateBackground(blank, {}, p);
        QVERIFY(b.empty());
        p.filterSize = 2;
        QVERIFY_THROWS_EXCEPTION(UsageError, estimateBackground(small, {}, p));
    }
};

QTEST_GUILESS_MAIN(TestBackgroundMap)
#include "test_background_map.moc"
