// The CUDA brightest-region backend against the reference (and the exact CPU backend at 4096^2): the
// same rectangles and bit-identical sums on random images of many shapes and kinds, on both of its
// paths (exact int32; float screen with int64 or double recheck), K disjoint rounds, and Cancel.
#include "tests/support/TestSupport.h"

#include "cuda/Backends.h"
#include "core/algo/brightest/Brightest.h"
#include "core/algo/maxsub/WorkArray.h"
#include "core/util/Errors.h"

#include <QtTest>

#include <atomic>
#include <chrono>
#include <thread>

using namespace glint;

namespace {

BrightestResult run(const Image& im, const BrightestParams& p, Backend b) {
    JobControl job;
    return runBrightest(im, p, b, job);
}

void checkSame(const BrightestResult& a, const BrightestResult& b) {
    QCOMPARE(a.regions.size(), b.regions.size());
    for (std::size_t i = 0; i < a.regions.size(); ++i) {
        const auto &p = a.regions[i], &q = b.regions[i];
        QCOMPARE(p.x, q.x);
        QCOMPARE(p.y, q.y);
        QCOMPARE(p.width, q.width);
        QCOMPARE(p.height, q.height);
        QCOMPARE(p.sumInt, q.sumInt);
        QVERIFY2(p.sum == q.sum, qPrintable(QString("sums differ: %1 vs %2").arg(p.sum, 0, 'g', 17).arg(q.sum, 0, 'g', 17)));
    }
}

Image u8Image(int w, int h, std::mt19937& rng, int lo = 0, int hi = 255) {
    std::uniform_int_distribution<int> d(lo, hi);
    std::vector<std::uint8_t> v(static_cast<std::size_t>(w) * h);
    // Smooth structure plus noise, so that the best rectangle is large and its neighbours are close.
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const double s = 60.0 * std::sin(x * 0.013 + 1.0) * std::cos(y * 0.021);
            v[static_cast<std::size_t>(y) * w + x] = static_cast<std::uint8_t>(std::clamp(d(rng) / 2 + 64 + static_cast<int>(s), 0, 255));
        }
    return Image::fromSamples<std::uint8_t>(w, h, std::move(v));
}

Image floatImage(int w, int h, std::mt19937& rng, double blanks = 0.0) {
    std::normal_distribution<float> d(0.0f, 3.0f);
    std::vector<float> v(static_cast<std::size_t>(w) * h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const double gx = (x - 0.6 * w) / (0.1 * w + 1), gy = (y - 0.4 * h) / (0.08 * h + 1);
            v[static_cast<std::size_t>(y) * w + x] = 100.0f + d(rng) + static_cast<float>(20.0 * std::exp(-0.5 * (gx * gx + gy * gy)));
        }
    Image im = Image::fromSamples<float>(w, h, std::move(v));
    if (blanks > 0) {
        std::vector<std::uint8_t> m(im.pixelCount());
        std::bernoulli_distribution b(blanks);
        for (auto& x : m) x = b(rng);
        im.setBlankMask(std::move(m));
    }
    return im;
}

} // namespace

class TestBrightestGpu : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        if (!test::cudaUsable()) QSKIP("no usable CUDA device");
    }

    void againstReference_data() {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<int>("width");
        QTest::addColumn<int>("height");
        QTest::addColumn<int>("k");
        const std::vector<std::pair<int, int>> shapes = {{1, 1},   {1, 300},  {300, 1},  {33, 17},  {17, 33},
                                                         {64, 64}, {65, 63},  {257, 129}, {100, 700}, {512, 512}};
        for (const char* kind : {"u8", "float", "big", "ties", "excluded", "roi"})
            for (const auto& [w, h] : shapes)
                QTest::newRow(qPrintable(QString("%1 %2x%3").arg(kind).arg(w).arg(h))) << kind << w << h << 1;
        QTest::newRow("u8 1024x1024") << "u8" << 1024 << 1024 << 1;
        QTest::newRow("float 1024x1024") << "float" << 1024 << 1024 << 1;
        QTest::newRow("big 1024x1024") << "big" << 1024 << 1024 << 1;
        QTest::newRow("u8 K=6 300x200") << "excluded" << 300 << 200 << 6;
        QTest::newRow("float K=5 200x260") << "float" << 200 << 260 << 5;
        QTest::newRow("big K=4 250x250") << "big" << 250 << 250 << 4;
        QTest::newRow("ties K=5 120x90") << "ties" << 120 << 90 << 5;
    }
    void againstReference() {
        QFETCH(QString, kind);
        QFETCH(int, width);
        QFETCH(int, height);
        QFETCH(int, k);
        std::mt19937 rng(static_cast<unsigned>(width * 7919 + height + k));
        Image im;
        BrightestParams p;
        p.k = k;
        if (kind == "u8" || kind == "excluded" || kind == "roi") {
            im = u8Image(width, height, rng);
            p.pivot = PivotSpec::parse("96");
        } else if (kind == "float") {
            im = floatImage(width, height, rng, 0.01);
            p.pivot = PivotSpec::parse("mean");
        } else if (kind == "big") {
            im = test::randomIntImage(width, height, 0, 2000000, rng, 0.01); // sums beyond int32
            p.pivot = PivotSpec::parse("999999");
        } else {
            im = test::randomIntImage(width, height, 0, 2, rng);
            p.pivot = PivotSpec::parse("1");
        }
        if (kind == "excluded") {
            p.excludeRects.push_back({width / 4, height / 3, width / 3 + 1, height / 4 + 1});
            p.excludePolygons.push_back({{{0.0, 0.0}, {width * 0.6, 0.0}, {0.0, height * 0.7}}});
        }
        if (kind == "roi" && width > 2 && height > 2) {
            p.hasRoi = true;
            p.roi = {1, 2, width - 2, height - 2};
        }
        const auto ref = run(im, p, Backend::Reference);
        const auto gpu = run(im, p, Backend::Cuda);
        QCOMPARE(gpu.backend, Backend::Cuda);
        checkSame(gpu, ref);
    }

    // Integer exactness at 4096^2, on both paths, against the exact CPU backend.
    void integerExactness4096_data() {
        QTest::addColumn<QString>("kind");
        QTest::newRow("8-bit, int32 path") << "u8";
        QTest::newRow("16-bit, sums beyond 2^31") << "u16";
    }
    void integerExactness4096() {
        QFETCH(QString, kind);
        std::mt19937 rng(4096);
        Image im;
        BrightestParams p;
        if (kind == "u8") {
            im = u8Image(4096, 4096, rng);
            p.pivot = PivotSpec::parse("100");
        } else {
            std::vector<std::uint16_t> v(4096u * 4096u);
            std::uniform_int_distribution<int> d(0, 65535);
            for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::uint16_t>(d(rng) / 2 + ((i / 4096) % 1000 < 600 ? 30000 : 0));
            im = Image::fromSamples<std::uint16_t>(4096, 4096, std::move(v));
            p.pivot = PivotSpec::parse("32000");
        }
        const WorkArray w = prepareWorkArray(im, p);
        QCOMPARE(w.fitsInt32(), kind == "u8");
        const auto cpu = run(im, p, Backend::Cpu);
        const auto gpu = run(im, p, Backend::Cuda);
        QVERIFY(!gpu.regions.empty());
        QVERIFY(gpu.exactInteger);
        if (kind == "u16") QVERIFY(gpu.regions[0].sumInt > (std::int64_t(1) << 31));
        checkSame(gpu, cpu);
    }

    void cancelActsQuickly() {
        std::mt19937 rng(1);
        const Image im = u8Image(8192, 4096, rng);
        BrightestParams p;
        p.k = 20;
        p.pivot = PivotSpec::parse("90");
        {
            JobControl pre;
            pre.requestCancel();
            QVERIFY_THROWS_EXCEPTION(Cancelled, runBrightest(im, p, Backend::Cuda, pre));
        }
        // Cancelled from inside the run (its first progress report): it must stop with Cancelled, whatever
        // the device's speed. The 100 ms target is a bench row (glint-cli bench cancel).
        JobControl job;
        test::CancelInsideRun cancel(job);
        bool cancelled = false;
        try {
            runBrightest(im, p, Backend::Cuda, job);
        } catch (const Cancelled&) {
            cancelled = true;
        }
        QVERIFY(cancel.requested());
        QVERIFY(cancelled);
        QVERIFY2(cancel.msSinceRequest() < 1000, qPrintable(QString("cancel took %1 ms").arg(cancel.msSinceRequest())));
    }
};

QTEST_GUILESS_MAIN(TestBrightestGpu)
#include "test_brightest_gpu.moc"
