// brightest --mode overlap --distinct F on scenes too large for the reference (200 x 200 and so on: blobs on
// noise, large flat plateaus where near-copies of a rectangle tie, exclusions, a tall frame): the cpu and cuda
// backends (the cuda rows skip without a usable device, and run the CPU search on the host) against the
// previous CPU search kept as an oracle (tests/support/DistinctOracle.h), rectangle for rectangle, sums bit
// for bit, and the rule between every pair listed.
#include "tests/support/DistinctOracle.h"
#include "tests/support/OverlapChecks.h"
#include "tests/support/RegionChecks.h"
#include "tests/support/TestSupport.h"

#include "core/algo/kmax/KMax.h"
#include "core/algo/regions/WorkArray.h"
#include "cuda/Backends.h"

#include <QtTest>

#include <cmath>
#include <random>

using namespace glint;

namespace {

// Gaussian blobs of several sizes and heights on noise; integer samples when `integer` (rounded), else floats.
// `plateau`: a few large flat rectangles on top, so that many rectangles tie.
Image blobs(int w, int h, std::uint32_t seed, bool integer, bool plateau) {
    std::mt19937 rng(seed);
    std::normal_distribution<double> noise(0.0, 3.0);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    struct Blob {
        double x, y, sigma, peak;
    };
    std::vector<Blob> list;
    for (int i = 0; i < 7; ++i) list.push_back({u(rng) * w, u(rng) * h, 1.5 + 12.0 * u(rng), 15.0 + 60.0 * u(rng)});
    std::vector<double> v(static_cast<std::size_t>(w) * h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            double s = 100.0 + noise(rng);
            for (const Blob& b : list) s += b.peak * std::exp(-((x - b.x) * (x - b.x) + (y - b.y) * (y - b.y)) / (2.0 * b.sigma * b.sigma));
            v[static_cast<std::size_t>(y) * w + x] = s;
        }
    if (plateau)
        for (int i = 0; i < 3; ++i) {
            const int x0 = static_cast<int>(u(rng) * w * 0.7), y0 = static_cast<int>(u(rng) * h * 0.7);
            const int x1 = x0 + 10 + static_cast<int>(u(rng) * w * 0.3), y1 = y0 + 10 + static_cast<int>(u(rng) * h * 0.3);
            for (int y = y0; y <= std::min(y1, h - 1); ++y)
                for (int x = x0; x <= std::min(x1, w - 1); ++x) v[static_cast<std::size_t>(y) * w + x] = 110.0 + 5.0 * i;
        }
    if (!integer) {
        std::vector<float> px(v.begin(), v.end());
        return Image::fromSamples<float>(w, h, std::move(px));
    }
    std::vector<std::int32_t> px(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) px[i] = static_cast<std::int32_t>(std::lround(v[i]));
    return test::intImage(w, h, std::move(px));
}

BrightestResult oracle(const Image& im, const BrightestParams& p, double f) {
    const WorkArray work = test::overlapWork(im, p);
    return test::resultOf(work, test::distinct_oracle::distinctTopKOracle(work, static_cast<std::size_t>(p.k), f));
}

} // namespace

class TestDistinctScenes : public QObject {
    Q_OBJECT

private slots:
    void agreesWithTheOracle_data() {
        test::addBackendKindRows({Backend::Cpu, Backend::Cuda}, {"blobs int", "blobs float", "plateaus", "exclusions", "tall", "odd rows"});
    }
    void agreesWithTheOracle() {
        GLINT_FETCH_BACKEND(backend);
        QFETCH(QString, kind);
        Image im;
        BrightestParams p;
        p.pivot = PivotSpec::parse("100");
        if (kind == "blobs int") {
            im = blobs(200, 200, 1, true, false);
        } else if (kind == "blobs float") {
            im = blobs(200, 200, 2, false, false);
            p.pivot = PivotSpec::parse("mean");
        } else if (kind == "plateaus") {
            im = blobs(200, 160, 3, true, true);
            p.pivot = PivotSpec::parse("104");
        } else if (kind == "exclusions") {
            im = blobs(180, 150, 4, true, false);
            p.excludeRects.push_back({40, 30, 50, 20});
            p.excludePolygons.push_back({{{100, 60}, {170.5, 80}, {120, 140.2}}});
        } else if (kind == "tall") { // transposed work array
            im = blobs(90, 200, 5, false, true);
            p.pivot = PivotSpec::parse("median");
        } else {
            im = blobs(150, 97, 6, true, false); // rows not a power of two: families clipped at the last row
        }
        int full = 0;
        for (double f : {0.0, 0.2, 0.99})
            for (int k : {1, 10, 30}) {
                p.k = k;
                const QString what = QString("%1 F=%2 K=%3").arg(kind).arg(f).arg(k);
                BrightestParams q = p;
                q.mode = BrightestMode::Overlap;
                q.distinct = f;
                JobControl job;
                const BrightestResult got = runBrightest(im, q, backend, job);
                test::checkSameRegions(got, oracle(im, p, f), what);
                if (QTest::currentTestFailed()) return;
                test::checkDistinctRule(got, f, what);
                if (QTest::currentTestFailed()) return;
                if (got.regions.size() == std::size_t(k)) ++full;
            }
        QVERIFY(full >= 7); // K listed, except where a listed rectangle holds every other (F = 0.99: the frame)
    }
};

GLINT_BACKEND_TEST_MAIN(TestDistinctScenes)
#include "test_distinct_scenes.moc"
