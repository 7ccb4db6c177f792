// The local pivot's preprocessing on the device (cuda/BackgroundCuda.cu, DeviceLocalPivot) against the host's,
// bit for bit: every background cell (mode, sigma, counts), the derived a = I - bkg - N rms over the ROI, and
// the work array's counts and bounds; on random fields of every sample family, blanks, NaN, excluded shapes,
// odd sizes, meshes that do not divide the size, ROIs (a tall one: transposed), and integer data (single-valued
// histogram bins). Then whole searches on the cuda backend against the cpu backend. Skips without a device.
#include "tests/support/TestSupport.h"

#include "core/algo/brightest/Brightest.h"
#include "core/algo/maxsub/MaxSubarray.h"
#include "core/algo/sources/Background.h"
#include "core/algo/regions/WorkArray.h"
#include "core/io/Image.h"
#include "cuda/Backends.h"

#include <QtTest>

#include <cmath>
#include <cstring>
#include <random>

using namespace glint;

namespace {

bool sameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// A sky with a gradient, noise and stars, in the sample type of `kind` (0 float, 1 double, 2 uint16, 3 int32).
Image field(int W, int H, int kind, std::mt19937& rng, bool blanks, bool nans) {
    std::normal_distribution<double> g(0.0, kind >= 2 ? 4.0 : 5.0);
    std::vector<double> v(static_cast<std::size_t>(W) * H);
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) v[static_cast<std::size_t>(y) * W + x] = 200.0 + 0.05 * x - 0.03 * y + g(rng);
    std::uniform_real_distribution<double> ux(0, W), uy(0, H), uf(50, 5000);
    for (int s = 0; s < W * H / 2000 + 2; ++s) {
        const double cx = ux(rng), cy = uy(rng), f = uf(rng);
        for (int y = std::max(0, int(cy) - 5); y < std::min(H, int(cy) + 6); ++y)
            for (int x = std::max(0, int(cx) - 5); x < std::min(W, int(cx) + 6); ++x)
                v[static_cast<std::size_t>(y) * W + x] += f * std::exp(-((x - cx) * (x - cx) + (y - cy) * (y - cy)) / 3.0);
    }
    if (nans && kind <= 1)
        for (int s = 0; s < 40; ++s) v[static_cast<std::size_t>(uy(rng)) * W + static_cast<std::size_t>(ux(rng))] = NAN;
    Image im = [&] {
        switch (kind) {
        case 0: {
            std::vector<float> f(v.begin(), v.end());
            return Image::fromSamples(W, H, std::move(f));
        }
        case 1: return Image::fromSamples(W, H, std::vector<double>(v));
        case 2: {
            std::vector<std::uint16_t> u(v.size());
            for (std::size_t i = 0; i < v.size(); ++i) u[i] = static_cast<std::uint16_t>(std::clamp(std::round(v[i]), 0.0, 65535.0));
            return Image::fromSamples(W, H, std::move(u));
        }
        default: {
            std::vector<std::int32_t> u(v.size());
            for (std::size_t i = 0; i < v.size(); ++i) u[i] = static_cast<std::int32_t>(std::round(v[i])) - 300;
            return Image::fromSamples(W, H, std::move(u));
        }
        }
    }();
    if (blanks) {
        std::vector<std::uint8_t> b(v.size(), 0);
        for (int y = H / 3; y < H / 3 + 9; ++y)
            for (int x = 0; x < W; ++x) b[static_cast<std::size_t>(y) * W + x] = 1; // a band, some cells mostly blank
        for (int s = 0; s < 50; ++s) b[static_cast<std::size_t>(uy(rng)) * W + static_cast<std::size_t>(ux(rng))] = 1;
        im.setBlankMask(std::move(b));
    }
    return im;
}

BrightestParams paramsFor(std::mt19937& rng, int W, int H, int trial) {
    BrightestParams p;
    p.pivot = PivotSpec::parse("local");
    p.threshold = trial % 5 == 0 ? 0.0 : 3.0;
    p.minSnr = 5.0;
    p.k = 30;
    p.maxBox = searchBox(15);
    const int meshes[] = {64, 33, 17, 50, 8};
    p.mesh = std::min({meshes[trial % 5], W, H});
    if (trial % 3 == 1) p.excludeRects.push_back({W / 4, H / 2, W / 5 + 3, H / 6 + 2});
    if (trial % 4 == 2) {
        std::uniform_int_distribution<int> ux(0, W / 3), uy(0, H / 3);
        const int x = ux(rng), y = uy(rng);
        p.roi = PixelRect{x, y, std::min(W - x, W / 2 + 7), std::min(H - y, H - H / 3)}; // taller than wide at times
    }
    if (trial % 4 == 3) p.excludePolygons.push_back(PixelPolygon{{{10.5, 12.0}, {W * 0.6, 20.25}, {W * 0.3, H * 0.7}}});
    return p;
}

// A trial's input: a field (field()'s kind, blanks and NaN) with random sides lo..hi, and paramsFor's parameters.
struct Trial {
    int W = 0;
    int H = 0;
    Image image;
    BrightestParams params;
};
Trial randomTrial(std::mt19937& rng, int lo, int hi, int trial, int kind, bool blanks, bool nans) {
    Trial t;
    t.W = std::uniform_int_distribution<int>(lo, hi)(rng);
    t.H = std::uniform_int_distribution<int>(lo, hi)(rng);
    t.image = field(t.W, t.H, kind, rng, blanks, nans);
    t.params = paramsFor(rng, t.W, t.H, trial);
    return t;
}

} // namespace

class TestLocalPivot : public QObject {
    Q_OBJECT
private slots:
    void deviceMatchesHostBitForBit() {
        GLINT_REQUIRE_CUDA();
        std::mt19937 rng(2026);
        for (int trial = 0; trial < 24; ++trial) {
            const int kind = trial % 4;
            const auto [W, H, im, p] = randomTrial(rng, 70, 420, trial, kind, trial % 3 == 2, trial % 2 == 0);
            const QString what = QString("trial %1: %2x%3 kind %4 mesh %5").arg(trial).arg(W).arg(H).arg(kind).arg(p.mesh);
            auto solver = BackendRegistry<MaxSubarraySolver>::create(Backend::Cuda);
            DeviceLocalPivot* device = solver->deviceLocalPivot(p);
            QVERIFY2(device && device->accepts(im, p), qPrintable(what));
            JobControl job;
            const std::vector<std::uint8_t> mask = imageExclusionMask(im, p);
            const BackgroundParams bp = backgroundParamsOf(p);
            const std::vector<BackgroundCell> host = backgroundCells(im, mask, bp);
            const std::vector<BackgroundCell> dev = device->cells(im, mask, bp, job);
            QCOMPARE(dev.size(), host.size());
            for (std::size_t c = 0; c < host.size(); ++c) {
                QVERIFY2(dev[c].good == host[c].good && dev[c].area == host[c].area, qPrintable(what));
                QVERIFY2(sameBits(dev[c].back, host[c].back) && sameBits(dev[c].rms, host[c].rms),
                         qPrintable(what + QString(" cell %1: back %2 / %3, rms %4 / %5")
                                               .arg(c)
                                               .arg(dev[c].back, 0, 'g', 17)
                                               .arg(host[c].back, 0, 'g', 17)
                                               .arg(dev[c].rms, 0, 'g', 17)
                                               .arg(host[c].rms, 0, 'g', 17)));
            }
            // The work arrays: the host path's (derived image, counts) against the device's.
            const WorkArray h = prepareWorkArray(im, p);
            const WorkArray d = prepareWorkArray(im, p, device, &job);
            QVERIFY2(d.deviceSamples && !d.image, qPrintable(what));
            QCOMPARE(d.roi.x, h.roi.x);
            QCOMPARE(d.roi.width, h.roi.width);
            QCOMPARE(d.roi.height, h.roi.height);
            QCOMPARE(d.transposed, h.transposed);
            QCOMPARE(d.includedCount, h.includedCount);
            QVERIFY2(sameBits(d.maxAbs, h.maxAbs), qPrintable(what + QString(" maxAbs %1 / %2").arg(d.maxAbs).arg(h.maxAbs)));
            QVERIFY2(sameBits(d.positiveSum, h.positiveSum),
                     qPrintable(what + QString(" positive sum %1 / %2").arg(d.positiveSum, 0, 'g', 17).arg(h.positiveSum, 0, 'g', 17)));
            QVERIFY(d.excluded == h.excluded);
            QVERIFY(d.background && h.background);
            QVERIFY(d.background->cellBackground() == h.background->cellBackground());
            const std::vector<double> a = device->derivedSamples();
            const double* ref = h.image->visit([](const auto* q) -> const double* {
                if constexpr (std::is_same_v<std::remove_cv_t<std::remove_pointer_t<decltype(q)>>, double>) return q;
                else return nullptr;
            });
            QVERIFY(ref);
            std::size_t differ = 0;
            for (int y = 0; y < d.roi.height; ++y)
                for (int x = 0; x < d.roi.width; ++x) {
                    const double dv = a[static_cast<std::size_t>(y) * d.roi.width + x];
                    const double hv = ref[static_cast<std::size_t>(d.roi.y + y) * W + d.roi.x + x];
                    if (!sameBits(dv, hv) && !(std::isnan(dv) && std::isnan(hv))) ++differ;
                }
            QVERIFY2(differ == 0, qPrintable(what + QString(": %1 derived values differ").arg(differ)));
        }
    }

    void searchesMatchCpu() {
        GLINT_REQUIRE_CUDA();
        std::mt19937 rng(77);
        for (int trial = 0; trial < 8; ++trial) {
            auto [W, H, im, p] = randomTrial(rng, 100, 300, trial, trial % 4, trial % 2 == 1, trial % 3 == 0);
            p.maxBox = searchBox(trial % 2 ? 64 : 9);
            JobControl j1, j2;
            const BrightestResult cpu = runBrightest(im, p, Backend::Cpu, j1);
            const BrightestResult gpu = runBrightest(im, p, Backend::Cuda, j2);
            QCOMPARE(gpu.regions.size(), cpu.regions.size());
            QCOMPARE(gpu.rounds, cpu.rounds);
            for (std::size_t i = 0; i < cpu.regions.size(); ++i) {
                const BrightestRegion &a = gpu.regions[i], &b = cpu.regions[i];
                QVERIFY2(a.x == b.x && a.y == b.y && a.width == b.width && a.height == b.height && sameBits(a.sum, b.sum) &&
                             sameBits(a.flux, b.flux),
                         qPrintable(QString("trial %1 region %2").arg(trial).arg(i)));
            }
            QVERIFY(sameBits(gpu.globalBackground, cpu.globalBackground));
        }
    }
};

GLINT_BACKEND_TEST_MAIN(TestLocalPivot)
#include "test_local_pivot.moc"
