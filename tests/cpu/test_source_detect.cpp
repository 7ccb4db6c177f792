// Detection of the source catalogue (core/algo/sources/SourceDetect.h) against brute force on random fields: the
// matched filter, the footprints, the segments' tiling and the model assignment below the branches, each core's exact brightest rectangle, the deblending of
// close pairs, and independence of the thread count.
#include "tests/support/TestSupport.h"

#include "core/algo/sources/SourceDetect.h"
#include "core/io/Image.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>
#include <random>
#include <set>
#include <vector>

using namespace glint;

namespace {

struct Field {
    int w = 0, h = 0;
    std::vector<float> v, rms;
    std::vector<std::uint8_t> bad;
};

// Gaussian noise of sigma 1 plus `stars` Gaussian stars (sigma 1.3 px), some pixels bad.
Field randomField(int w, int h, int stars, std::mt19937& rng, double badFraction) {
    Field f{w, h, std::vector<float>(static_cast<std::size_t>(w) * h), std::vector<float>(static_cast<std::size_t>(w) * h, 1.0f),
            std::vector<std::uint8_t>(static_cast<std::size_t>(w) * h, 0)};
    std::normal_distribution<double> noise(0.0, 1.0);
    std::uniform_real_distribution<double> ux(0, w), uy(0, h), flux(30, 600), u01(0, 1);
    for (auto& x : f.v) x = static_cast<float>(noise(rng));
    for (int s = 0; s < stars; ++s) {
        const double cx = ux(rng), cy = uy(rng), fl = flux(rng);
        for (int y = std::max(0, static_cast<int>(cy) - 6); y < std::min(h, static_cast<int>(cy) + 7); ++y)
            for (int x = std::max(0, static_cast<int>(cx) - 6); x < std::min(w, static_cast<int>(cx) + 7); ++x)
                f.v[static_cast<std::size_t>(y) * w + x] +=
                    static_cast<float>(fl / (2 * M_PI * 1.69) * std::exp(-((x - cx) * (x - cx) + (y - cy) * (y - cy)) / (2 * 1.69)));
    }
    for (auto& b : f.bad) b = u01(rng) < badFraction ? 1 : 0;
    return f;
}

// The 8-connected components of a pixel set, brute force (flood fill).
std::vector<std::set<std::int64_t>> components(const std::set<std::int64_t>& pixels, int w) {
    std::vector<std::set<std::int64_t>> out;
    std::set<std::int64_t> left = pixels;
    while (!left.empty()) {
        std::set<std::int64_t> comp;
        std::queue<std::int64_t> q;
        q.push(*left.begin());
        left.erase(left.begin());
        while (!q.empty()) {
            const std::int64_t p = q.front();
            q.pop();
            comp.insert(p);
            const int x = static_cast<int>(p % w);
            for (int dy = -1; dy <= 1; ++dy)
                for (int dx = -1; dx <= 1; ++dx) {
                    if (x + dx < 0 || x + dx >= w) continue;
                    const auto it = left.find(p + static_cast<std::int64_t>(dy) * w + dx);
                    if (it != left.end()) {
                        q.push(*it);
                        left.erase(it);
                    }
                }
        }
        out.push_back(std::move(comp));
    }
    return out;
}

} // namespace

class TestSourceDetect : public QObject {
    Q_OBJECT
private slots:
    void filterEqualsBruteForce() {
        std::mt19937 rng(7);
        for (int round = 0; round < 6; ++round) {
            const Field f = randomField(23 + round * 5, 17 + round * 3, 4, rng, 0.1);
            const double fwhm = 1.5 + round * 0.7;
            std::vector<float> d, s;
            filterDetectionImage(f.v, f.rms, f.bad, f.w, f.h, fwhm, d, s, 1 + round % 2);
            const std::vector<double> k = gaussianTaps(fwhm);
            const int r = static_cast<int>(k.size() / 2);
            double sum = 0;
            for (double t : k) sum += t;
            QVERIFY(std::abs(sum - 1.0) < 1e-12);
            for (int y = 0; y < f.h; ++y)
                for (int x = 0; x < f.w; ++x) {
                    const std::size_t i = static_cast<std::size_t>(y) * f.w + x;
                    if (f.bad[i]) {
                        QCOMPARE(s[i], 0.0f);
                        continue;
                    }
                    double a = 0, b = 0, c = 0;
                    for (int dy = -r; dy <= r; ++dy)
                        for (int dx = -r; dx <= r; ++dx) {
                            const int xx = x + dx, yy = y + dy;
                            if (xx < 0 || yy < 0 || xx >= f.w || yy >= f.h) continue;
                            const std::size_t j = static_cast<std::size_t>(yy) * f.w + xx;
                            if (f.bad[j]) continue;
                            const double wgt = k[static_cast<std::size_t>(dx + r)] * k[static_cast<std::size_t>(dy + r)];
                            a += wgt * f.v[j];
                            b += wgt;
                            c += wgt * wgt * f.rms[j] * f.rms[j];
                        }
                    QVERIFY2(std::abs(d[i] - a / b) < 1e-4 * (1 + std::abs(a / b)), qPrintable(QString("D at %1,%2").arg(x).arg(y)));
                    QVERIFY(std::abs(s[i] - std::sqrt(c) / b) < 1e-5 * std::sqrt(c) / b + 1e-7);
                }
        }
    }

    // The filter runs tap by tap over bands of rows (vectorised): every figure equals, to the bit, the separable
    // filter computed pixel by pixel with the taps in order (a frame taller than a band, bad pixels and edges).
    void filterBandsEqualPixelLoopExactly() {
        std::mt19937 rng(19);
        for (int round = 0; round < 3; ++round) {
            const Field f = randomField(97 + round * 31, 150 + round * 40, 30, rng, 0.07);
            const double fwhm = 2.0 + round * 1.3;
            std::vector<float> d, s;
            filterDetectionImage(f.v, f.rms, f.bad, f.w, f.h, fwhm, d, s, 2);
            const std::vector<double> k = gaussianTaps(fwhm);
            const int r = static_cast<int>(k.size() / 2);
            const std::size_t n = static_cast<std::size_t>(f.w) * f.h;
            std::vector<float> hv(n), hg(n), hs(n);
            for (int y = 0; y < f.h; ++y)
                for (int x = 0; x < f.w; ++x) {
                    double a = 0, b = 0, c = 0;
                    for (int t = std::max(-r, -x); t <= std::min(r, f.w - 1 - x); ++t) {
                        const std::size_t j = static_cast<std::size_t>(y) * f.w + x + t;
                        const bool good = !f.bad[j];
                        const double w = k[static_cast<std::size_t>(t + r)];
                        a += w * (good ? static_cast<double>(f.v[j]) : 0.0);
                        b += w * (good ? 1.0 : 0.0);
                        c += w * w * (good ? static_cast<double>(f.rms[j]) * f.rms[j] : 0.0);
                    }
                    const std::size_t i = static_cast<std::size_t>(y) * f.w + x;
                    hv[i] = static_cast<float>(a);
                    hg[i] = static_cast<float>(b);
                    hs[i] = static_cast<float>(c);
                }
            for (int y = 0; y < f.h; ++y)
                for (int x = 0; x < f.w; ++x) {
                    const std::size_t i = static_cast<std::size_t>(y) * f.w + x;
                    double a = 0, b = 0, c = 0;
                    for (int t = std::max(-r, -y); t <= std::min(r, f.h - 1 - y); ++t) {
                        const std::size_t j = static_cast<std::size_t>(y + t) * f.w + x;
                        const double w = k[static_cast<std::size_t>(t + r)];
                        a += w * hv[j];
                        b += w * hg[j];
                        c += w * w * hs[j];
                    }
                    const bool keep = !f.bad[i] && b > 0.0;
                    QCOMPARE(d[i], keep ? static_cast<float>(a / b) : 0.0f);
                    QCOMPARE(s[i], keep ? static_cast<float>(std::sqrt(c) / b) : 0.0f);
                }
        }
    }

    // Without deblending, CLEAN and the SNR test, the segments are exactly the brute-force footprints.
    void footprintsEqualBruteForce() {
        std::mt19937 rng(11);
        for (int round = 0; round < 8; ++round) {
            const Field f = randomField(40, 30, 6, rng, 0.05);
            DetectParams p;
            p.threshold = 2.0 + 0.3 * round;
            p.filterFwhm = round % 2 ? 2.5 : 0.0;
            p.minArea = 1 + round % 4;
            p.deblendLevels = 1;
            p.minSnr = 0;
            p.clean = false;
            const Detection det = detectSources(f.v, f.rms, f.bad, f.w, f.h, p);
            std::set<std::int64_t> above;
            for (std::size_t i = 0; i < det.detectionImage.size(); ++i)
                if (det.detectionNoise[i] > 0 && det.detectionImage[i] > p.threshold * det.detectionNoise[i])
                    above.insert(static_cast<std::int64_t>(i));
            std::set<std::set<std::int64_t>> expected, got;
            for (auto& c : components(above, f.w))
                if (static_cast<int>(c.size()) >= p.minArea) expected.insert(c);
            std::vector<std::set<std::int64_t>> bySegment(det.segments.size());
            for (std::size_t i = 0; i < det.segmentation.size(); ++i)
                if (det.segmentation[i] > 0) bySegment[static_cast<std::size_t>(det.segmentation[i] - 1)].insert(static_cast<std::int64_t>(i));
            for (auto& s : bySegment) got.insert(s);
            QCOMPARE(got.size(), expected.size());
            QVERIFY(got == expected);
            QCOMPARE(det.footprints, static_cast<int>(expected.size()));
            for (const SourceSegment& s : det.segments) QVERIFY(!(s.flags & kSourceBlended));
        }
    }

    // footprints() (runs joined by a union-find) against the flood fill on random masks of every density, with
    // shapes that join late (U shapes, spirals of noise at 55 %), one-row and one-column images, NaN and zero noise:
    // the same sets, each in increasing order, the list in the order of the first pixels, minArea applied, on
    // 1, 2 and 3 threads.
    void footprintsAsRunsEqualFloodFill() {
        std::mt19937 rng(12);
        std::uniform_real_distribution<double> u01(0, 1);
        const int sizes[][2] = {{1, 1}, {1, 17}, {23, 1}, {7, 5}, {40, 30}, {64, 64}, {3, 90}};
        for (const auto& size : sizes)
            for (double density : {0.0, 0.1, 0.35, 0.55, 0.8, 1.0}) {
                const int w = size[0], h = size[1];
                const std::size_t n = static_cast<std::size_t>(w) * h;
                std::vector<float> d(n), s(n, 1.0f);
                for (std::size_t i = 0; i < n; ++i) {
                    d[i] = u01(rng) < density ? 3.0f : 1.0f;
                    const double r = u01(rng);
                    if (r < 0.03) s[i] = 0.0f;
                    else if (r < 0.05) s[i] = std::numeric_limits<float>::quiet_NaN();
                }
                std::set<std::int64_t> above;
                for (std::size_t i = 0; i < n; ++i)
                    if (s[i] > 0.0f && d[i] > 2.0 * s[i]) above.insert(static_cast<std::int64_t>(i));
                for (int minArea : {1, 3}) {
                    std::vector<std::vector<std::int64_t>> expected;
                    for (const auto& c : components(above, w))
                        if (static_cast<int>(c.size()) >= minArea) expected.emplace_back(c.begin(), c.end());
                    std::sort(expected.begin(), expected.end(), [](const auto& a, const auto& b) { return a.front() < b.front(); });
                    for (int threads : {1, 2, 3}) {
                        const auto got = footprints(d, s, w, h, 2.0, minArea, threads);
                        QVERIFY2(got == expected, qPrintable(QString("%1x%2 density %3 minArea %4 threads %5: %6 vs %7 footprints")
                                                                 .arg(w).arg(h).arg(density).arg(minArea).arg(threads)
                                                                 .arg(got.size()).arg(expected.size())));
                    }
                }
            }
        // A U whose arms meet only at the bottom row, and a comb joined by its last row: one footprint each.
        {
            const int w = 9, h = 6;
            std::vector<float> d(static_cast<std::size_t>(w) * h, 0.0f), s(d.size(), 1.0f);
            for (int y = 0; y < h; ++y) {
                for (int x : {0, 2, 4, 6, 8}) d[static_cast<std::size_t>(y) * w + x] = 5.0f;
            }
            for (int x = 0; x < w; ++x) d[static_cast<std::size_t>(h - 1) * w + x] = 5.0f;
            const auto got = footprints(d, s, w, h, 2.0, 1, 2);
            QCOMPARE(got.size(), std::size_t{1});
            QCOMPARE(got[0].size(), std::size_t{5 * (h - 1) + w});
            QVERIFY(std::is_sorted(got[0].begin(), got[0].end()));
        }
    }

    // The pixels below the branches go to the branch whose Gaussian model is largest there (SExtractor's rule): a
    // faint star on a bright, wide galaxy's halo keeps its branch and the pixels next to it, while the halo beyond
    // it, downhill of the star, goes to the galaxy (a watershed gave it to the star); every pixel labelled once;
    // branch pixels keep their branch; one branch takes everything.
    void belowTheBranchesByModel() {
        const int w = 80, h = 60;
        std::vector<float> d(static_cast<std::size_t>(w) * h, 0.0f);
        const double gx = 25, gy = 30, sx = 55, sy = 30;
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const double rg2 = (x - gx) * (x - gx) + (y - gy) * (y - gy), rs2 = (x - sx) * (x - sx) + (y - sy) * (y - sy);
                d[static_cast<std::size_t>(y) * w + x] = static_cast<float>(200.0 * std::exp(-rg2 / (2 * 15.0 * 15.0)) +
                                                                            60.0 * std::exp(-rs2 / (2 * 1.5 * 1.5)) + 1.0);
            }
        std::vector<std::int64_t> pixels;
        for (std::int64_t i = 0; i < static_cast<std::int64_t>(d.size()); ++i) pixels.push_back(i);
        std::vector<std::int64_t> galaxy, star;
        for (std::int64_t i : pixels) {
            const int x = static_cast<int>(i % w), y = static_cast<int>(i / w);
            if ((x - gx) * (x - gx) + (y - gy) * (y - gy) <= 12.0 * 12.0) galaxy.push_back(i);
            else if ((x - sx) * (x - sx) + (y - sy) * (y - sy) <= 2.0 * 2.0) star.push_back(i);
        }
        const std::vector<std::int32_t> labels = modelAssignFootprint(pixels, {galaxy, star}, d.data(), w);
        QCOMPARE(labels.size(), pixels.size());
        for (std::int64_t i : galaxy) QCOMPARE(labels[static_cast<std::size_t>(i)], 1);
        for (std::int64_t i : star) QCOMPARE(labels[static_cast<std::size_t>(i)], 2);
        for (std::int32_t l : labels) QVERIFY(l == 1 || l == 2);
        auto at = [&](int x, int y) { return labels[static_cast<std::size_t>(y) * w + x]; };
        QCOMPARE(at(58, 30), 2);  // beside the star
        QCOMPARE(at(70, 30), 1);  // the halo beyond it
        QCOMPARE(at(55, 45), 1);  // the halo below it
        QCOMPARE(at(2, 2), 1);
        const std::vector<std::int32_t> one = modelAssignFootprint(pixels, {pixels}, d.data(), w);
        for (std::int32_t l : one) QCOMPARE(l, 1);
    }

    // A galaxy with faint knots on it that only the prominence rule separates (too faint for the contrast rule): one
    // near the core, parting at a high level, and one far out on the halo. The galaxy keeps the branch it had before
    // the knots parted (less theirs), so the halo beyond the far knot is the galaxy's; its branch had shrunk to the
    // core above the near knot's level, and its model gave that halo to the far knot.
    void knotsLeaveTheGalaxyItsHalo() {
        const int w = 100, h = 90;
        const double gx = 40, gy = 40;
        std::vector<float> d(static_cast<std::size_t>(w) * h), noise(d.size(), 1.0f);
        auto knot = [](double x, double y, double kx, double ky, double amp) {
            return amp * std::exp(-((x - kx) * (x - kx) + (y - ky) * (y - ky)) / (2 * 1.4 * 1.4));
        };
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                d[static_cast<std::size_t>(y) * w + x] =
                    static_cast<float>(200.0 * std::exp(-((x - gx) * (x - gx) + (y - gy) * (y - gy)) / (2 * 15.0 * 15.0)) +
                                       knot(x, y, gx + 14, gy, 70.0) + knot(x, y, gx, gy + 25, 60.0));
        std::vector<std::int64_t> pixels;
        for (std::int64_t i = 0; i < static_cast<std::int64_t>(d.size()); ++i)
            if (d[static_cast<std::size_t>(i)] > 3.0f) pixels.push_back(i);
        DetectParams p;
        p.deblendProminence = 5.0;
        const DeblendResult r = deblendFootprint(pixels, d.data(), noise.data(), w, p);
        QVERIFY2(r.markers.size() == 3, qPrintable(QString("%1 markers").arg(r.markers.size()))); // the galaxy and both knots
        const std::vector<std::int32_t> labels = modelAssignFootprint(pixels, r.branches, d.data(), w);
        auto labelAt = [&](int x, int y) {
            const std::int64_t i = static_cast<std::int64_t>(y) * w + x;
            return labels[static_cast<std::size_t>(std::lower_bound(pixels.begin(), pixels.end(), i) - pixels.begin())];
        };
        const std::int32_t galaxy = labelAt(40, 40), nearKnot = labelAt(54, 40), farKnot = labelAt(40, 65);
        QVERIFY(galaxy != nearKnot && galaxy != farKnot && nearKnot != farKnot);
        QCOMPARE(labelAt(40, 72), galaxy); // the halo beyond the far knot
        QCOMPARE(labelAt(47, 65), galaxy); // and beside it
        QCOMPARE(labelAt(40, 20), galaxy);
        std::size_t farArea = 0;
        for (std::int32_t l : labels) farArea += l == farKnot ? 1 : 0;
        QVERIFY2(farArea < 60, qPrintable(QString("the far knot's segment: %1 px").arg(farArea)));
    }

    // modelAssignFootprint's pruned search (cells, bounds, the last winner first) against trying every model at
    // every pixel, on random fields of 2-300 branches (discs at random places; some with no flux).
    void modelAssignmentEqualsBruteForce() {
        std::mt19937 rng(17);
        std::uniform_real_distribution<double> u(0, 1);
        for (int round = 0; round < 12; ++round) {
            const int w = 40 + static_cast<int>(u(rng) * 160), h = 30 + static_cast<int>(u(rng) * 120);
            const int count = 2 + static_cast<int>(u(rng) * (round < 6 ? 20 : 300));
            std::vector<float> d(static_cast<std::size_t>(w) * h);
            for (auto& v : d) v = static_cast<float>(1.0 + u(rng));
            std::vector<int> owner(d.size(), 0);
            std::vector<std::vector<std::int64_t>> branches;
            for (int k = 0; k < count; ++k) {
                const double cx = u(rng) * w, cy = u(rng) * h, r = 0.5 + 4 * u(rng), amp = u(rng) < 0.1 ? -1.0 : 5 + 500 * u(rng);
                std::vector<std::int64_t> disc;
                for (int y = std::max(0, static_cast<int>(cy - r)); y <= std::min(h - 1, static_cast<int>(cy + r)); ++y)
                    for (int x = std::max(0, static_cast<int>(cx - r)); x <= std::min(w - 1, static_cast<int>(cx + r)); ++x) {
                        const std::size_t i = static_cast<std::size_t>(y) * w + x;
                        if (owner[i] || (x - cx) * (x - cx) + (y - cy) * (y - cy) > r * r) continue;
                        owner[i] = k + 1;
                        d[i] = static_cast<float>(amp * std::exp(-((x - cx) * (x - cx) + (y - cy) * (y - cy)) / (r * r)));
                        disc.push_back(static_cast<std::int64_t>(i));
                    }
                if (!disc.empty()) branches.push_back(std::move(disc));
            }
            if (branches.size() < 2) continue;
            std::vector<std::int64_t> pixels(d.size());
            for (std::size_t i = 0; i < d.size(); ++i) pixels[i] = static_cast<std::int64_t>(i);
            const std::vector<std::int32_t> got = modelAssignFootprint(pixels, branches, d.data(), w);
            // The oracle: the same models, every one tried at every pixel.
            struct G {
                double flux = 0, cx = 0, cy = 0, ixx = 0, iyy = 0, ixy = 0, logNorm = 0;
            };
            std::vector<G> g(branches.size());
            for (std::size_t m = 0; m < branches.size(); ++m) {
                double sx = 0, sy = 0;
                for (std::int64_t p : branches[m]) {
                    const double v = std::max(0.0, static_cast<double>(d[static_cast<std::size_t>(p)]));
                    g[m].flux += v;
                    sx += v * static_cast<double>(p % w);
                    sy += v * static_cast<double>(p / w);
                }
                if (!(g[m].flux > 0)) continue;
                g[m].cx = sx / g[m].flux;
                g[m].cy = sy / g[m].flux;
                double xx = 0, yy = 0, xy = 0;
                for (std::int64_t p : branches[m]) {
                    const double v = std::max(0.0, static_cast<double>(d[static_cast<std::size_t>(p)]));
                    const double dx = static_cast<double>(p % w) - g[m].cx, dy = static_cast<double>(p / w) - g[m].cy;
                    xx += v * dx * dx;
                    yy += v * dy * dy;
                    xy += v * dx * dy;
                }
                const double x2 = xx / g[m].flux + 1.0 / 12.0, y2 = yy / g[m].flux + 1.0 / 12.0, c = xy / g[m].flux;
                const double det = std::max(x2 * y2 - c * c, 1e-6);
                g[m].ixx = y2 / det;
                g[m].iyy = x2 / det;
                g[m].ixy = -c / det;
                g[m].logNorm = std::log(g[m].flux / (2.0 * M_PI * std::sqrt(det)));
            }
            std::vector<std::int32_t> inBranch(d.size(), 0);
            for (std::size_t m = 0; m < branches.size(); ++m)
                for (std::int64_t p : branches[m]) inBranch[static_cast<std::size_t>(p)] = static_cast<std::int32_t>(m + 1);
            int mismatches = 0;
            for (std::size_t i = 0; i < d.size(); ++i) {
                std::int32_t want = inBranch[i];
                if (!want) {
                    double best = -INFINITY;
                    want = 1;
                    for (std::size_t m = 0; m < g.size(); ++m) {
                        if (!(g[m].flux > 0)) continue;
                        const double dx = static_cast<double>(i % w) - g[m].cx, dy = static_cast<double>(i / w) - g[m].cy;
                        const double v = g[m].logNorm - 0.5 * (g[m].ixx * dx * dx + g[m].iyy * dy * dy + 2.0 * g[m].ixy * dx * dy);
                        if (v > best) {
                            best = v;
                            want = static_cast<std::int32_t>(m + 1);
                        }
                    }
                }
                if (got[i] != want) ++mismatches;
            }
            QVERIFY2(mismatches == 0, qPrintable(QString("round %1 (%2 branches): %3 pixels differ").arg(round).arg(branches.size()).arg(mismatches)));
        }
    }

    // With deblending and the SNR test: the segments tile the footprints they came from, each is 8-connected, and
    // each core is the brute-force brightest rectangle of its segment's window.
    void segmentsTileAndCoresAreExact() {
        std::mt19937 rng(5);
        for (int round = 0; round < 6; ++round) {
            const Field f = randomField(48, 40, 14, rng, 0.02);
            DetectParams p;
            p.threshold = 2.5;
            p.filterFwhm = 2.0;
            p.minSnr = round % 2 ? 3.0 : 0.0;
            p.coreRadius = 4;
            const Detection det = detectSources(f.v, f.rms, f.bad, f.w, f.h, p);
            QCOMPARE(det.cores.size(), det.segments.size());
            for (const SourceSegment& seg : det.segments) {
                std::set<std::int64_t> pixels;
                for (std::size_t i = 0; i < det.segmentation.size(); ++i)
                    if (det.segmentation[i] == seg.number) pixels.insert(static_cast<std::int64_t>(i));
                QCOMPARE(static_cast<std::int64_t>(pixels.size()), seg.area);
                QVERIFY(!pixels.empty()); // (a segment need not be 8-connected: pixels below the branches go by model)
                for (std::int64_t px : pixels) {
                    const std::size_t i = static_cast<std::size_t>(px);
                    QVERIFY(det.detectionImage[i] > p.threshold * det.detectionNoise[i]);
                }
                // The core: the best rectangle in the window around the peak holding only segment pixels.
                std::int64_t peak = *pixels.begin();
                for (std::int64_t px : pixels)
                    if (det.detectionImage[static_cast<std::size_t>(px)] > det.detectionImage[static_cast<std::size_t>(peak)]) peak = px;
                const int cx = static_cast<int>(peak % f.w), cy = static_cast<int>(peak / f.w);
                double best = -INFINITY;
                for (int y0 = std::max(0, cy - 4); y0 <= std::min(f.h - 1, cy + 4); ++y0)
                    for (int y1 = y0; y1 <= std::min(f.h - 1, cy + 4); ++y1)
                        for (int x0 = std::max(0, cx - 4); x0 <= std::min(f.w - 1, cx + 4); ++x0)
                            for (int x1 = x0; x1 <= std::min(f.w - 1, cx + 4); ++x1) {
                                double sum = 0;
                                bool inside = true;
                                for (int y = y0; y <= y1 && inside; ++y)
                                    for (int x = x0; x <= x1; ++x) {
                                        const std::size_t i = static_cast<std::size_t>(y) * f.w + x;
                                        if (!pixels.count(static_cast<std::int64_t>(i))) {
                                            inside = false;
                                            break;
                                        }
                                        sum += static_cast<double>(det.detectionImage[i]) - p.threshold * det.detectionNoise[i];
                                    }
                                if (inside) best = std::max(best, sum);
                            }
                const SourceCore& core = det.cores[static_cast<std::size_t>(seg.number - 1)];
                QVERIFY2(std::abs(core.sum - best) <= 1e-9 * std::max(1.0, std::abs(best)),
                         qPrintable(QString("core %1 vs brute force %2").arg(core.sum).arg(best)));
                if (p.minSnr > 0) QVERIFY(core.snr >= p.minSnr);
                QCOMPARE(seg.threshold, p.threshold * det.detectionNoise[static_cast<std::size_t>(peak)]);
                // The core's SNR: its v above the pedestal, the median v of the ring 2-5 px around it over the
                // pixels with sigma_D > 0 and D not above the threshold (none under 8 such pixels).
                double flux = 0.0, variance = 0.0;
                std::vector<float> ring;
                for (int y = std::max(0, core.y - 5); y <= std::min(f.h - 1, core.y + core.height + 4); ++y)
                    for (int x = std::max(0, core.x - 5); x <= std::min(f.w - 1, core.x + core.width + 4); ++x) {
                        const std::size_t i = static_cast<std::size_t>(y) * f.w + x;
                        if (x >= core.x && x < core.x + core.width && y >= core.y && y < core.y + core.height) {
                            flux += f.v[i];
                            variance += static_cast<double>(f.rms[i]) * f.rms[i];
                        } else if ((x < core.x - 1 || x > core.x + core.width || y < core.y - 1 || y > core.y + core.height) &&
                                   det.detectionNoise[i] > 0.0f && !(det.detectionImage[i] > p.threshold * det.detectionNoise[i])) {
                            ring.push_back(f.v[i]);
                        }
                    }
                double pedestal = 0.0;
                if (ring.size() >= 8) {
                    std::nth_element(ring.begin(), ring.begin() + static_cast<std::ptrdiff_t>(ring.size() / 2), ring.end());
                    pedestal = std::max(0.0, static_cast<double>(ring[ring.size() / 2]));
                }
                flux -= pedestal * core.width * core.height;
                QCOMPARE(core.snr, flux / std::sqrt(variance));
            }
        }
    }

    // Two equal stars 5 px apart in one footprint are two sources; a faint bump below the contrast is not.
    void deblendsPairsAndRespectsContrast() {
        const int w = 60, h = 40;
        auto scene = [&](double f2, double sep) {
            Field f{w, h, std::vector<float>(static_cast<std::size_t>(w) * h, 0.0f), std::vector<float>(static_cast<std::size_t>(w) * h, 1.0f), {}};
            for (const auto& [cx, fl] : {std::pair{25.0, 4000.0}, std::pair{25.0 + sep, f2}})
                for (int y = 0; y < h; ++y)
                    for (int x = 0; x < w; ++x)
                        f.v[static_cast<std::size_t>(y) * w + x] += static_cast<float>(
                            fl / (2 * M_PI * 2.25) * std::exp(-((x - cx) * (x - cx) + (y - 20.0) * (y - 20.0)) / 4.5));
            return f;
        };
        DetectParams p;
        p.filterFwhm = 2.0;
        const Field pair = scene(4000.0, 5.0);
        const Detection two = detectSources(pair.v, pair.rms, pair.bad, w, h, p);
        QCOMPARE(two.segments.size(), std::size_t{2});
        QCOMPARE(two.footprints, 1);
        for (const SourceSegment& s : two.segments) QVERIFY(s.flags & kSourceBlended);
        // Each star's peak lies in its own segment.
        QVERIFY(two.segmentation[20 * w + 25] != two.segmentation[20 * w + 30]);
        const Field faint = scene(4000.0 * 0.002, 6.0); // 0.2 % of the flux: under the 0.5 % contrast
        const Detection one = detectSources(faint.v, faint.rms, faint.bad, w, h, p);
        QCOMPARE(one.segments.size(), std::size_t{1});
        // A star on a large bright galaxy (0.3 % of the footprint's flux, under the contrast) is its own source when
        // it rises well above the level where it parts from the galaxy (the prominence rule), and not without it.
        {
            const int gw = 120, gh = 80;
            Field g{gw, gh, std::vector<float>(static_cast<std::size_t>(gw) * gh), std::vector<float>(static_cast<std::size_t>(gw) * gh, 1.0f), {}};
            for (int y = 0; y < gh; ++y)
                for (int x = 0; x < gw; ++x)
                    g.v[static_cast<std::size_t>(y) * gw + x] = static_cast<float>(
                        1e6 / (2 * M_PI * 225.0) * std::exp(-((x - 40.0) * (x - 40.0) + (y - 40.0) * (y - 40.0)) / 450.0) +
                        3000.0 / (2 * M_PI * 2.25) * std::exp(-((x - 70.0) * (x - 70.0) + (y - 40.0) * (y - 40.0)) / 4.5));
            DetectParams q;
            q.filterFwhm = 2.0;
            QCOMPARE(detectSources(g.v, g.rms, g.bad, gw, gh, q).segments.size(), std::size_t{1});
            q.deblendProminence = 5.0;
            const Detection split = detectSources(g.v, g.rms, g.bad, gw, gh, q);
            QCOMPARE(split.segments.size(), std::size_t{2});
            QVERIFY(split.segmentation[40 * gw + 40] != split.segmentation[40 * gw + 70]);
        }
        // A close pair (4.5 px at sigma 1.5 px) that a 4.5-px filter blurs into one peak is split on the
        // image under a narrower filter.
        {
            const Field close = scene(4000.0, 4.5);
            DetectParams q;
            q.filterFwhm = 4.5;
            QCOMPARE(detectSources(close.v, close.rms, close.bad, w, h, q).segments.size(), std::size_t{1});
            q.deblendFilterFwhm = 1.0;
            QCOMPARE(detectSources(close.v, close.rms, close.bad, w, h, q).segments.size(), std::size_t{2});
        }
        p.deblendProminence = 0.0;
        p.deblendLevels = 1; // no deblending: the pair stays one source
        QCOMPARE(detectSources(pair.v, pair.rms, pair.bad, w, h, p).segments.size(), std::size_t{1});
    }

    // The deblending reads its narrower filter's image footprint by footprint, from a band of the footprint's rows
    // (PixelValues with an origin): the same markers, branches and model assignment as from the whole image; and a
    // detection that gives D and sigma_D back before the segmentation map (keepMaps off) finds the same sources.
    void deblendingFromBandsEqualsWholeImage() {
        std::mt19937 rng(11);
        for (int round = 0; round < 4; ++round) {
            const Field f = randomField(160, 120, 90, rng, 0.01);
            DetectParams p;
            p.filterFwhm = 3.0;
            p.deblendFilterFwhm = 1.5;
            p.deblendProminence = round % 2 ? 3.0 : 0.0;
            std::vector<float> d, s, dn, sn;
            filterDetectionImage(f.v, f.rms, f.bad, f.w, f.h, p.filterFwhm, d, s, 1);
            filterDetectionImage(f.v, f.rms, f.bad, f.w, f.h, p.deblendFilterFwhm, dn, sn, 1);
            const auto prints = footprints(d, s, f.w, f.h, p.threshold, p.minArea, 1);
            QVERIFY(prints.size() > 10);
            int split = 0;
            for (const auto& pixels : prints) {
                const std::int64_t origin = pixels.front() / f.w * f.w, end = pixels.back() / f.w * f.w + f.w;
                // The band holds the footprint's rows alone; outside the footprint it is NaN (never to be read).
                std::vector<float> bd(static_cast<std::size_t>(end - origin), NAN), bs(bd.size(), NAN);
                for (const std::int64_t q : pixels) {
                    bd[static_cast<std::size_t>(q - origin)] = dn[static_cast<std::size_t>(q)];
                    bs[static_cast<std::size_t>(q - origin)] = sn[static_cast<std::size_t>(q)];
                }
                const DeblendResult whole = deblendFootprint(pixels, dn.data(), sn.data(), f.w, p);
                const DeblendResult band = deblendFootprint(pixels, PixelValues(bd.data(), origin), PixelValues(bs.data(), origin), f.w, p);
                QVERIFY(whole.markers == band.markers);
                QVERIFY(whole.branches == band.branches);
                QCOMPARE(band.overflow, whole.overflow);
                QVERIFY(modelAssignFootprint(pixels, whole.branches, dn.data(), f.w) ==
                        modelAssignFootprint(pixels, band.branches, PixelValues(bd.data(), origin), f.w));
                if (whole.markers.size() > 1) ++split;
            }
            QVERIFY(split > 0);
            const Detection kept = detectSources(f.v, f.rms, f.bad, f.w, f.h, p);
            p.keepMaps = false;
            const Detection given = detectSources(f.v, f.rms, f.bad, f.w, f.h, p);
            QVERIFY(given.detectionImage.empty() && given.detectionNoise.empty());
            QVERIFY(given.segmentation == kept.segmentation);
            QCOMPARE(given.segments.size(), kept.segments.size());
            for (std::size_t k = 0; k < kept.segments.size(); ++k) {
                QCOMPARE(given.segments[k].area, kept.segments[k].area);
                QCOMPARE(given.segments[k].threshold, kept.segments[k].threshold);
                QCOMPARE(given.cores[k].sum, kept.cores[k].sum);
            }
        }
    }

    // The pipeline's detection reads v = I - B from the image (of any sample type) and the background map, made
    // where it is read: the same detection as from the map of float(I - B), on random fields with a sloped sky.
    void residualFromImageAndBackground() {
        std::mt19937 rng(17);
        for (int round = 0; round < 4; ++round) {
            const Field f = randomField(150, 110, 60, rng, 0.01);
            const std::size_t n = f.v.size();
            std::vector<float> background(n);
            std::vector<double> real(n);
            std::vector<std::int16_t> counts(n);
            for (std::size_t i = 0; i < n; ++i) {
                background[i] = static_cast<float>(1000.0 + 0.37 * static_cast<double>(i % f.w) + 0.011 * static_cast<double>(i / f.w));
                real[i] = static_cast<double>(f.v[i]) * 10.0 + background[i];
                counts[i] = static_cast<std::int16_t>(std::lround(real[i]));
            }
            const Image doubles = Image::fromSamples(f.w, f.h, real);
            const Image shorts = Image::fromSamples(f.w, f.h, counts);
            DetectParams p;
            p.filterFwhm = round % 2 ? 0.0 : 2.5; // the unfiltered path too
            p.deblendFilterFwhm = round % 2 ? 0.0 : 1.2;
            const std::vector<float> rms(n, 10.0f);
            for (const Image* image : {&doubles, &shorts}) {
                std::vector<float> v(n);
                for (std::size_t i = 0; i < n; ++i)
                    v[i] = static_cast<float>((image == &doubles ? real[i] : static_cast<double>(counts[i])) - static_cast<double>(background[i]));
                const ResidualView view(*image, background);
                QCOMPARE(view.size(), n);
                float scratch[7];
                for (std::size_t i = 0; i < n; i += 97) {
                    QCOMPARE(view.at(i), v[i]);
                    if (i + 7 <= n) QCOMPARE(view.row(i, 7, scratch)[3], v[i + 3]);
                }
                const Detection fromMap = detectSources(v, rms, f.bad, f.w, f.h, p);
                const Detection fromImage = detectSources(view, rms, f.bad, f.w, f.h, p);
                QVERIFY(fromMap.segments.size() > 10);
                QVERIFY(fromImage.segmentation == fromMap.segmentation);
                QVERIFY(fromImage.detectionImage == fromMap.detectionImage);
                QVERIFY(fromImage.detectionNoise == fromMap.detectionNoise);
                QCOMPARE(fromImage.cores.size(), fromMap.cores.size());
                for (std::size_t k = 0; k < fromMap.cores.size(); ++k) QCOMPARE(fromImage.cores[k].snr, fromMap.cores[k].snr);
            }
        }
    }

    void threadCountDoesNotMatter() {
        std::mt19937 rng(3);
        const Field f = randomField(200, 150, 120, rng, 0.01);
        DetectParams p;
        p.filterFwhm = 2.5;
        p.threads = 1;
        const Detection a = detectSources(f.v, f.rms, f.bad, f.w, f.h, p);
        p.threads = 3;
        const Detection b = detectSources(f.v, f.rms, f.bad, f.w, f.h, p);
        QVERIFY(a.segmentation == b.segmentation);
        QVERIFY(a.detectionImage == b.detectionImage);
        QCOMPARE(a.segments.size(), b.segments.size());
        QVERIFY(a.segments.size() > 20);
    }

    // SExtractor's CLEAN (step 5): a faint detection just off a bright star, which the star's Moffat profile (its flux
    // and moments) explains, is merged into the star -- its pixels join the star's segment; with clean off it is a
    // source of its own; a real star as far off, brighter than that profile there, stays a source with clean on.
    void cleanMergesWhatABrighterProfileExplains() {
        const int w = 120, h = 120;
        constexpr double kDist = 14.0; // the companion's distance from the star
        auto scene = [&](double amp2) {
            Field f{w, h, std::vector<float>(static_cast<std::size_t>(w) * h), std::vector<float>(static_cast<std::size_t>(w) * h, 1.0f), {}};
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) {
                    const double r1 = (x - 60.0) * (x - 60.0) + (y - 60.0) * (y - 60.0);
                    const double r2 = (x - 60.0 - kDist) * (x - 60.0 - kDist) + (y - 60.0) * (y - 60.0);
                    f.v[static_cast<std::size_t>(y) * w + x] =
                        static_cast<float>(5000.0 * std::exp(-r1 / (2 * 2.0 * 2.0)) + amp2 * std::exp(-r2 / (2 * 1.5 * 1.5)));
                }
            return f;
        };
        DetectParams p;
        p.filterFwhm = 2.0;
        p.minSnr = 0.0;
        p.deblendProminence = 5.0;
        const std::size_t star = 60 * static_cast<std::size_t>(w) + 60, bump = 60 * static_cast<std::size_t>(w) + 60 + static_cast<std::size_t>(kDist);
        {
            // Amplitude 2 (its brightest pixels barely above the threshold, where the star's Moffat stands higher).
            const Field f = scene(2.0);
            p.clean = false;
            const Detection off = detectSources(f.v, f.rms, f.bad, f.w, f.h, p);
            QCOMPARE(off.segments.size(), std::size_t(2));
            QVERIFY(off.segmentation[bump] != 0 && off.segmentation[bump] != off.segmentation[star]);
            QCOMPARE(off.cleaned, 0);
            p.clean = true;
            const Detection on = detectSources(f.v, f.rms, f.bad, f.w, f.h, p);
            QCOMPARE(on.segments.size(), std::size_t(1));
            QCOMPARE(on.cleaned, 1);
            QCOMPARE(on.segmentation[bump], on.segmentation[star]); // its pixels joined the star's segment
            QCOMPARE(on.segments[0].area, off.segments[0].area + off.segments[1].area);
            QVERIFY(on.segments[0].flags & kSourceBlended);
            QCOMPARE(on.rejectedFootprints, 0); // a footprint cleaned away is not one rejected
        }
        for (double amp2 : {10.0, 30.0}) { // a star of its own
            const Field f = scene(amp2);
            const Detection on = detectSources(f.v, f.rms, f.bad, f.w, f.h, p);
            QCOMPARE(on.segments.size(), std::size_t(2));
            QCOMPARE(on.cleaned, 0);
        }
    }

    void emptyAndAllBadFields() {
        Field f{30, 20, std::vector<float>(600, 0.0f), std::vector<float>(600, 1.0f), std::vector<std::uint8_t>(600, 1)};
        DetectParams p;
        const Detection allBad = detectSources(f.v, f.rms, f.bad, f.w, f.h, p);
        QVERIFY(allBad.segments.empty());
        f.bad.assign(600, 0);
        std::fill(f.rms.begin(), f.rms.end(), 0.0f); // zero RMS: no significance anywhere, no division by zero
        QVERIFY(detectSources(f.v, f.rms, f.bad, f.w, f.h, p).segments.empty());
    }
};

QTEST_GUILESS_MAIN(TestSourceDetect)
#include "test_source_detect.moc"
