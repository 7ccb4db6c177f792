// What the suites of the disjoint search (test_fast_k, test_bounded) share: random test images, a solver run
// by backend (and RegionChecks.h's whole search), the comparison of two outcomes bit for bit, and the cache
// budget of the kept strips.
#pragma once

#include "tests/support/RegionChecks.h"
#include "tests/support/TestSupport.h"

#include "core/algo/brightest/Brightest.h"
#include "core/algo/maxsub/MaxSubarray.h"
#include "core/io/Image.h"
#include "core/jobs/Backend.h"
#include "core/jobs/JobControl.h"

#include <QtTest>

#include <cmath>
#include <random>
#include <vector>

namespace glint::test {

// Gaussian blobs on negative noise (the shape of a star field after the local pivot), in doubles: one blob
// per `pixelsPerBlob` pixels, plus 3.
inline Image blobImage(int w, int h, std::mt19937& rng, int pixelsPerBlob) {
    std::normal_distribution<double> noise(-1.0, 1.0);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<double> v(static_cast<std::size_t>(w) * h);
    for (auto& x : v) x = noise(rng);
    const int blobs = 3 + w * h / pixelsPerBlob;
    for (int i = 0; i < blobs; ++i) {
        const double cx = u(rng) * w, cy = u(rng) * h, s = 0.8 + 2.0 * u(rng), a = 2.0 + 40.0 * u(rng) * u(rng);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                v[static_cast<std::size_t>(y) * w + x] += a * std::exp(-((x - cx) * (x - cx) + (y - cy) * (y - cy)) / (2 * s * s));
    }
    return Image::fromSamples(w, h, std::move(v));
}

// `count` random excluded rectangles of a w x h image: widths 1 + x / widthDivisor, heights 1 + y / 3.
inline void excludeRandomRects(BrightestParams& p, int w, int h, int count, int widthDivisor, std::mt19937& rng) {
    std::uniform_int_distribution<int> x(0, w - 1), y(0, h - 1);
    for (int e = 0; e < count; ++e) p.excludeRects.push_back({x(rng), y(rng), 1 + x(rng) / widthDivisor, 1 + y(rng) / 3});
}

// A random image for the disjoint search, of one of six kinds (ties of small integers, with blanks too; wider
// integers with blanks; floats with blanks; Gaussian blobs in doubles; integers of a larger range), sides 1 to
// maxSide, with a random ROI and random exclusions, under the pivot 0.
struct RandomDisjointCase {
    Image image;
    BrightestParams params;
    QString what;
};
inline RandomDisjointCase randomDisjointCase(std::mt19937& rng, int trial, int maxSide, int pixelsPerBlob) {
    std::uniform_int_distribution<int> size(1, maxSide), kindD(0, 5), coin(0, 3);
    const int w = size(rng), h = size(rng);
    const int kind = kindD(rng);
    RandomDisjointCase c;
    c.image = kind == 0   ? randomIntImage(w, h, -2, 2, rng)
              : kind == 1 ? randomIntImage(w, h, -30, 31, rng, 0.05)
              : kind == 2 ? randomFloatImage(w, h, -1.0, 1.05, rng, 0.03)
              : kind == 3 ? blobImage(w, h, rng, pixelsPerBlob)
              : kind == 4 ? randomIntImage(w, h, -2, 2, rng, 0.1)
                          : randomIntImage(w, h, -200, 180, rng);
    c.params.pivot = PivotSpec::parse("0");
    if (coin(rng) == 0 && w > 3 && h > 3) {
        c.params.roi = PixelRect{1, 1, w - 2, h - 3};
    }
    if (coin(rng) <= 1) excludeRandomRects(c.params, w, h, 3, 3, rng);
    c.what = QString("trial %1: %2x%3 kind %4").arg(trial).arg(w).arg(h).arg(kind);
    return c;
}

// The same rectangles in the same order, bit-identical sums, and the same rounds, rejections and cap.
inline void checkSameOutcome(const DisjointOutcome& a, const DisjointOutcome& b, const QString& what) {
    QVERIFY2(a.found.size() == b.found.size(), qPrintable(what + QString(": %1 vs %2 found").arg(a.found.size()).arg(b.found.size())));
    for (std::size_t i = 0; i < a.found.size(); ++i) {
        const WorkRect &p = a.found[i], &q = b.found[i];
        QVERIFY2(p.row0 == q.row0 && p.col0 == q.col0 && p.rows == q.rows && p.cols == q.cols,
                 qPrintable(what + QString(": rectangle %1 differs: (%2,%3 %4x%5) vs (%6,%7 %8x%9)")
                                       .arg(i).arg(p.row0).arg(p.col0).arg(p.rows).arg(p.cols).arg(q.row0).arg(q.col0).arg(q.rows).arg(q.cols)));
        QCOMPARE(p.sumInt, q.sumInt);
        QVERIFY2(p.sum == q.sum, qPrintable(what + ": sums differ (must agree bit for bit): " + sumsText(p.sum, q.sum)));
    }
    QCOMPARE(a.rounds, b.rounds);
    QCOMPARE(a.rejected, b.rejected);
    QCOMPARE(a.capped, b.capped);
}

inline DisjointOutcome solveWith(Backend backend, const WorkArray& work, const DisjointRule& rule) {
    JobControl job;
    return BackendRegistry<MaxSubarraySolver>::create(backend)->solveDisjoint(work, rule, job, {});
}

// A random filter of the solver suites on `rule`: none (0), or one of three deterministic functions of the
// rectangle (as the significance filters are) under a round cap of K + 2 or capFor(K). Returns which.
inline int addRandomFilter(DisjointRule& rule, std::mt19937& rng) {
    std::uniform_int_distribution<int> coin(0, 3);
    const int filter = coin(rng);
    if (filter == 1) rule.accept = [](const WorkRect& r) { return r.rows * r.cols >= 2; };
    if (filter == 2) rule.accept = [](const WorkRect& r) { return (r.row0 + 3 * r.col0 + r.rows) % 3 != 0; };
    if (filter == 3) rule.accept = [](const WorkRect& r) { return r.cols <= 3 && r.rows <= 4; };
    if (filter != 0) rule.maxRounds = coin(rng) == 0 ? rule.k + 2 : DisjointRule::capFor(rule.k);
    return filter;
}

// Sets GLINT_MSP_CACHE_MB for the scope (0: the CPU backend searches every strip every round).
class CacheBudget {
public:
    explicit CacheBudget(const char* mb) { qputenv("GLINT_MSP_CACHE_MB", mb); }
    ~CacheBudget() { qunsetenv("GLINT_MSP_CACHE_MB"); }
    CacheBudget(const CacheBudget&) = delete;
    CacheBudget& operator=(const CacheBudget&) = delete;
};

// The kept strips (fast K) against the CPU backend searching every strip every round: the same regions, rounds
// and rejections. Returns the kept search's result.
inline BrightestResult checkKeptAgainstFullSearch(const Image& image, const BrightestParams& p, const QString& what) {
    const BrightestResult kept = runBrightestOn(image, p, Backend::Cpu);
    BrightestResult full;
    {
        CacheBudget off("0");
        full = runBrightestOn(image, p, Backend::Cpu);
    }
    checkSameRegions(full, kept, what);
    if (QTest::currentTestFailed()) return kept;
    [&] {
        QCOMPARE(kept.rounds, full.rounds);
        QCOMPARE(kept.rejected, full.rejected);
    }();
    return kept;
}

} // namespace glint::test
