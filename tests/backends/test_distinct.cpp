// brightest --mode overlap --distinct F on every backend (reference, cpu, cuda; the cuda rows skip without a
// usable device, and run the CPU search on the host): the reference and the other backends against brute force
// (every rectangle, ranked, filtered greedily) on many small random inputs, the cpu backend against the
// reference bit for bit on larger ones, a synthetic sky where plain overlap lists near-copies of one star and
// --distinct lists distinct objects, the rule's exact arithmetic, and the CLI.
#include "tests/support/RegionChecks.h"
#include "tests/support/TestSupport.h"

#include "core/algo/kmax/Distinct.h"
#include "core/algo/kmax/KMax.h"
#include "core/algo/regions/WorkArray.h"
#include "core/util/Errors.h"
#include "cuda/Backends.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <random>
#include <tuple>

using namespace glint;

namespace {

BrightestResult distinctRun(const Image& im, BrightestParams p, double f, Backend b) {
    p.mode = BrightestMode::Overlap;
    p.distinct = f;
    JobControl job;
    return runBrightest(im, p, b, job);
}

WorkArray workOf(const Image& im, BrightestParams p) {
    p.mode = BrightestMode::Overlap;
    JobControl job;
    return prepareRegionSearch(im, p, BrightestMode::Overlap, Backend::Reference, job).work;
}

// The brute force: every rectangle without an excluded cell, its sum in the canonical order of KMax.h
// (column prefix sums top to bottom, the strip's prefix Q left to right, fl(Q[r+1] - Q[l]) + 0.0), sorted by
// (larger sum, smaller top, bottom, first, last), then filtered greedily with the rule in long double (exact
// for these areas: 53 + 8 bits).
template <class V>
std::vector<WorkRect> bruteForce(const WorkArray& work, std::size_t k, double f) {
    const int rows = work.rows, cols = work.cols;
    std::vector<V> P;
    if constexpr (std::is_integral_v<V>) P = columnPrefixSumsInteger(work);
    else P = columnPrefixSumsReal(work);
    // Excluded cells counted by a 2-D prefix table.
    std::vector<int> ex(static_cast<std::size_t>(rows + 1) * (cols + 1), 0);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            ex[(r + 1) * (cols + 1) + c + 1] = ex[r * (cols + 1) + c + 1] + ex[(r + 1) * (cols + 1) + c] -
                                               ex[r * (cols + 1) + c] + (work.isExcluded(r, c) ? 1 : 0);
    struct Cand {
        V sum;
        int t, b, l, r;
    };
    std::vector<Cand> all;
    std::vector<V> q(static_cast<std::size_t>(cols) + 1);
    for (int t = 0; t < rows; ++t)
        for (int b = t; b < rows; ++b) {
            q[0] = V(0);
            for (int c = 0; c < cols; ++c) q[c + 1] = q[c] + (P[static_cast<std::size_t>(b + 1) * cols + c] - P[static_cast<std::size_t>(t) * cols + c]);
            for (int l = 0; l < cols; ++l)
                for (int r = l; r < cols; ++r) {
                    const int n = ex[(b + 1) * (cols + 1) + r + 1] - ex[t * (cols + 1) + r + 1] - ex[(b + 1) * (cols + 1) + l] +
                                  ex[t * (cols + 1) + l];
                    if (n > 0) continue;
                    V s = q[r + 1] - q[l];
                    if constexpr (std::is_floating_point_v<V>) s = s + 0.0;
                    all.push_back({s, t, b, l, r});
                }
        }
    std::sort(all.begin(), all.end(), [](const Cand& a, const Cand& b) {
        if (a.sum != b.sum) return a.sum > b.sum;
        return std::tie(a.t, a.b, a.l, a.r) < std::tie(b.t, b.b, b.l, b.r);
    });
    std::vector<WorkRect> listed;
    for (const Cand& c : all) {
        if (listed.size() >= k) break;
        const WorkRect rect = makeWorkRect(c.t, c.b, c.l, c.r, c.sum);
        bool ok = true;
        for (const WorkRect& L : listed) {
            const long long ov = static_cast<long long>(std::max(0, std::min(c.b, L.row0 + L.rows - 1) - std::max(c.t, L.row0) + 1)) *
                                 std::max(0, std::min(c.r, L.col0 + L.cols - 1) - std::max(c.l, L.col0) + 1);
            const long long m = std::min<long long>(static_cast<long long>(rect.rows) * rect.cols, static_cast<long long>(L.rows) * L.cols);
            if (static_cast<long double>(ov) > static_cast<long double>(f) * static_cast<long double>(m)) {
                ok = false;
                break;
            }
        }
        if (ok) listed.push_back(rect);
    }
    return listed;
}

BrightestResult expected(const Image& im, const BrightestParams& p, double f) {
    const WorkArray work = workOf(im, p);
    BrightestResult r;
    if (work.includedCount == 0) return r;
    const std::size_t k = static_cast<std::size_t>(p.k);
    r.regions = regionsOf(work, work.integer ? bruteForce<std::int64_t>(work, k, f) : bruteForce<double>(work, k, f));
    for (auto& g : r.regions) g.exactInteger = work.integer;
    return r;
}

// Large flat areas, where many rectangles tie: a background of -1 or 0 and one to three overlapping
// rectangles of 1 or 2 (pivot 0).
Image plateaus(int w, int h, std::mt19937& rng) {
    std::vector<std::int32_t> px(static_cast<std::size_t>(w) * h, static_cast<std::int32_t>(rng() % 2) - 1);
    const int n = 1 + static_cast<int>(rng() % 3);
    for (int i = 0; i < n; ++i) {
        const int x0 = static_cast<int>(rng() % w), y0 = static_cast<int>(rng() % h);
        const int x1 = x0 + static_cast<int>(rng() % (w - x0)), y1 = y0 + static_cast<int>(rng() % (h - y0));
        const std::int32_t v = 1 + static_cast<std::int32_t>(rng() % 2);
        for (int y = y0; y <= y1; ++y)
            for (int x = x0; x <= x1; ++x) px[static_cast<std::size_t>(y) * w + x] = v;
    }
    return test::intImage(w, h, std::move(px));
}

// Every pair of listed regions obeys the rule.
void checkRule(const BrightestResult& r, double f, const QString& what) {
    for (std::size_t i = 0; i < r.regions.size(); ++i)
        for (std::size_t j = 0; j < i; ++j) {
            const auto &a = r.regions[i], &b = r.regions[j];
            const long long ox = std::max(0, std::min(a.x + a.width, b.x + b.width) - std::max(a.x, b.x));
            const long long oy = std::max(0, std::min(a.y + a.height, b.y + b.height) - std::max(a.y, b.y));
            const long double m = static_cast<long double>(std::min(a.pixels(), b.pixels()));
            QVERIFY2(static_cast<long double>(ox * oy) <= static_cast<long double>(f) * m,
                     qPrintable(what + QString(": regions %1 and %2 overlap by %3 of %4").arg(j + 1).arg(i + 1).arg(ox * oy).arg(static_cast<double>(m))));
        }
}

// A sky of 128 x 128 pixels: flat sky 100 + Gaussian noise (sigma 5), three Moffat stars (beta 3, FWHM 3 px)
// and a faint elliptical galaxy (exponential profile). The objects' centres, brightest first.
struct Scene {
    Image image;
    std::vector<std::pair<double, double>> objects;
};

Scene makeScene(std::uint64_t seed) {
    const int w = 128, h = 128;
    std::mt19937 rng(static_cast<std::uint32_t>(seed));
    std::normal_distribution<double> noise(0.0, 5.0);
    struct Star {
        double x, y, flux;
    };
    // Far enough apart (65 px and more) that no thin box joining two cores pays for the pixels between them.
    // Fluxes within a factor 1.5: a star several times brighter than the next object also gives, under F = 0.2,
    // thin boxes that take a fifth of its box's core (a 30 x 2 box through the core of a 6000 e- star outranks
    // a 2000 e- star: the rule bounds the shared area, not the shared flux; NOTES.md).
    const std::vector<Star> stars = {{30.3, 35.6, 3000.0}, {100.2, 30.7, 2500.0}, {35.8, 100.1, 2000.0}};
    const double fwhm = 3.0, beta = 3.0, alpha = fwhm / (2.0 * std::sqrt(std::pow(2.0, 1.0 / beta) - 1.0));
    std::vector<float> px(static_cast<std::size_t>(w) * h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            double v = 100.0 + noise(rng);
            for (const Star& s : stars) {
                const double r2 = (x - s.x) * (x - s.x) + (y - s.y) * (y - s.y);
                v += s.flux * (beta - 1.0) / (M_PI * alpha * alpha) * std::pow(1.0 + r2 / (alpha * alpha), -beta);
            }
            // The galaxy at (95, 95): peak 60 / pixel (12 sigma), scale 6 px along x, 3.5 px along y.
            const double gx = (x - 95.0) / 6.0, gy = (y - 95.0) / 3.5;
            v += 60.0 * std::exp(-std::sqrt(gx * gx + gy * gy));
            px[static_cast<std::size_t>(y) * w + x] = static_cast<float>(v);
        }
    Scene s;
    s.image = Image::fromSamples<float>(w, h, std::move(px));
    for (const Star& star : stars) s.objects.emplace_back(star.x, star.y);
    s.objects.emplace_back(95.0, 95.0);
    return s;
}

// The object whose centre the region holds, or -1.
int objectIn(const BrightestRegion& g, const Scene& s) {
    int found = -1;
    for (std::size_t i = 0; i < s.objects.size(); ++i) {
        const auto [x, y] = s.objects[i];
        if (x >= g.x - 0.5 && x <= g.x + g.width - 0.5 && y >= g.y - 0.5 && y <= g.y + g.height - 0.5) {
            if (found >= 0) return -2; // two objects in one box
            found = static_cast<int>(i);
        }
    }
    return found;
}

} // namespace

class TestDistinct : public QObject {
    Q_OBJECT

private slots:
    // The rule's arithmetic: floor(F m) exactly, at borderline values where F m rounds to an integer.
    void capIsExact() {
        const kmax::DistinctCap zero(0.0), fifth(0.2), third(0.3), big(0.99);
        QCOMPARE(zero(1000), std::int64_t(0));
        QCOMPARE(fifth(5), std::int64_t(1));   // 0.2 is a little above 1/5: 5 F > 1
        QCOMPARE(fifth(4), std::int64_t(0));
        QCOMPARE(third(10), std::int64_t(2));  // 0.3 is a little below 3/10: 10 F < 3, so floor is 2
        QCOMPARE(big(100), std::int64_t(98));  // 0.99 is a little below: 99 - epsilon
        QCOMPARE(fifth(std::int64_t(1) << 40), static_cast<std::int64_t>(std::floor(0.2L * static_cast<long double>(std::int64_t(1) << 40))));
        QCOMPARE(kmax::DistinctCap(0.5)(7), std::int64_t(3));
        QCOMPARE(kmax::DistinctCap(std::ldexp(1.0, -200))(std::int64_t(1) << 60), std::int64_t(0));
        std::mt19937 rng(3);
        std::uniform_real_distribution<double> fd(0.0, 1.0);
        for (int i = 0; i < 20000; ++i) {
            const double f = fd(rng);
            const std::int64_t m = static_cast<std::int64_t>(rng() % 100000);
            const long double exact = static_cast<long double>(f) * static_cast<long double>(m); // exact: 53 + 17 bits
            QCOMPARE(kmax::DistinctCap(f)(m), static_cast<std::int64_t>(std::floor(exact)));
        }
    }

    // Many random small inputs (sides 1..12) of every kind, F in {0, 0.1, 0.5, 0.99}, K from 1 to past the
    // count: the backend's list equals brute force's, rectangle for rectangle, sums bit for bit.
    void bruteForce_data() {
        test::addBackendColumn();
        QTest::addColumn<QString>("kind");
        for (Backend b : test::allBackends)
            for (const char* k : {"int", "float", "negative", "equal", "blanks", "big", "plateaus", "exclusions", "roi", "pivot"})
                test::newBackendRow(b, k) << k;
    }
    void bruteForce() {
        GLINT_FETCH_BACKEND(backend);
        QFETCH(QString, kind);
        std::mt19937 rng(qHash(kind) + 7);
        std::uniform_int_distribution<int> side(1, 12);
        int checked = 0, multi = 0;
        for (int trial = 0; trial < 20; ++trial) {
            const int w = trial < 3 ? 1 + trial : side(rng), h = trial < 3 ? 3 - trial : side(rng);
            Image im;
            BrightestParams p;
            p.pivot = PivotSpec::parse("0");
            if (kind == "exclusions") {
                im = test::randomIntImage(w, h, -5, 6, rng);
                p.excludeRects.push_back({w / 3, h / 3, 1 + w / 4, 1 + h / 4});
            } else if (kind == "roi") {
                im = test::randomIntImage(w + 3, h + 2, -6, 6, rng, 0.05);
                p.roi = PixelRect{2, 1, w, h};
            } else if (kind == "pivot") {
                im = test::randomFloatImage(w, h, 0.0, 255.0, rng);
                p.pivot = PivotSpec::parse(trial % 2 ? "mean" : "median");
            } else if (kind == "plateaus") {
                im = plateaus(w, h, rng);
            } else {
                im = test::randomImageOfKind(kind, w, h, rng);
            }
            if (kind == "equal") p.pivot = PivotSpec::parse(trial % 2 ? "3" : "2");
            for (double f : {0.0, 0.1, 0.2, 0.5, 0.99})
                for (int k : {1, 3, 10, 1000}) {
                    p.k = k;
                    const QString what = QString("%1 %2x%3 F=%4 K=%5 trial %6").arg(kind).arg(w).arg(h).arg(f).arg(k).arg(trial);
                    const BrightestResult got = distinctRun(im, p, f, backend);
                    test::checkSameRegions(got, expected(im, p, f), what);
                    if (QTest::currentTestFailed()) return;
                    checkRule(got, f, what);
                    if (QTest::currentTestFailed()) return;
                    QVERIFY(got.distinct && *got.distinct == f);
                    ++checked;
                    if (got.regions.size() > 2) ++multi;
                }
        }
        QVERIFY(checked >= 300);
        if (kind != "negative" && kind != "equal") QVERIFY(multi > 20);
    }

    // Larger inputs: the backend against the reference, rectangle for rectangle, bit for bit.
    void agreesWithTheReference_data() {
        test::addBackendColumn();
        QTest::addColumn<QString>("kind");
        for (Backend b : {Backend::Cpu, Backend::Cuda})
            for (const char* k : {"u8 noise", "float blanks", "exclusions", "tall", "int ties", "plateaus"}) test::newBackendRow(b, k) << k;
    }
    void agreesWithTheReference() {
        GLINT_FETCH_BACKEND(backend);
        QFETCH(QString, kind);
        std::mt19937 rng(qHash(kind));
        Image im;
        BrightestParams p;
        if (kind == "u8 noise") {
            im = test::randomIntImage(48, 36, 0, 255, rng);
            p.pivot = PivotSpec::parse("p60");
        } else if (kind == "float blanks") {
            im = test::randomFloatImage(40, 30, -3, 3.3, rng, 0.02);
            p.pivot = PivotSpec::parse("mean");
        } else if (kind == "exclusions") {
            im = test::randomIntImage(44, 32, -20, 22, rng);
            p.pivot = PivotSpec::parse("0");
            p.excludeRects.push_back({10, 8, 9, 6});
            p.excludePolygons.push_back({{{25, 5}, {40.5, 12}, {30, 28.2}}});
        } else if (kind == "tall") { // transposed work array
            im = test::randomIntImage(24, 50, -9, 10, rng);
            p.pivot = PivotSpec::parse("0");
        } else if (kind == "plateaus") {
            im = plateaus(45, 33, rng); // large flat areas: near-copies of one rectangle tie
            p.pivot = PivotSpec::parse("0");
        } else {
            im = test::randomIntImage(36, 28, -1, 1, rng); // many equal sums: the tie order decides
            p.pivot = PivotSpec::parse("0");
        }
        for (double f : {0.0, 0.2, 0.6, 0.99})
            for (int k : {1, 12, 40}) {
                p.k = k;
                const QString what = QString("%1 F=%2 K=%3").arg(kind).arg(f).arg(k);
                const BrightestResult got = distinctRun(im, p, f, backend);
                test::checkSameRegions(got, distinctRun(im, p, f, Backend::Reference), what);
                if (QTest::currentTestFailed()) return;
                checkRule(got, f, what);
                if (QTest::currentTestFailed()) return;
            }
    }

    // The failure of the issue on a synthetic sky: plain overlap lists near-copies of the brightest star;
    // --distinct 0.2 lists one region per object, brightest first, the galaxy among them.
    void distinctObjects_data() { test::addBackendRows(); }
    void distinctObjects() {
        GLINT_FETCH_BACKEND(backend);
        const Scene scene = makeScene(11);
        BrightestParams p;
        p.pivot = PivotSpec::parse("local");
        p.threshold = 3;
        p.k = 10;
        p.mode = BrightestMode::Overlap;
        JobControl job;
        const BrightestResult plain = runBrightest(scene.image, p, Backend::Cpu, job);
        QCOMPARE(plain.regions.size(), std::size_t(10));
        for (const auto& g : plain.regions)
            qInfo("plain #%d %d,%d %dx%d sum %g object %d", g.rank, g.x, g.y, g.width, g.height, g.sum, objectIn(g, scene));
        for (const auto& g : plain.regions) QCOMPARE(objectIn(g, scene), 0); // ten boxes round star 1
        p.k = 4;
        const BrightestResult got = distinctRun(scene.image, p, 0.2, backend);
        for (const auto& g : got.regions)
            qInfo("distinct #%d %d,%d %dx%d sum %g object %d", g.rank, g.x, g.y, g.width, g.height, g.sum, objectIn(g, scene));
        QCOMPARE(got.regions.size(), std::size_t(4));
        std::vector<int> seen;
        for (const auto& g : got.regions) {
            const int o = objectIn(g, scene);
            QVERIFY2(o >= 0, qPrintable(QString("region %1 at %2,%3 %4x%5 holds no single object").arg(g.rank).arg(g.x).arg(g.y).arg(g.width).arg(g.height)));
            QVERIFY2(std::find(seen.begin(), seen.end(), o) == seen.end(), qPrintable(QString("object %1 twice").arg(o)));
            seen.push_back(o);
        }
        QCOMPARE(seen[0], 0); // the brightest star first
        QVERIFY(std::find(seen.begin(), seen.end(), 3) != seen.end()); // the faint galaxy is found
        checkRule(got, 0.2, "scene");
        if (backend != Backend::Reference) test::checkSameRegions(got, distinctRun(scene.image, p, 0.2, Backend::Reference), "scene");
    }

    // Fewer than K allowed: all of them, with a note; every rectangle excluded: nothing.
    void fewerThanK() {
        std::mt19937 rng(5);
        const Image im = test::randomIntImage(6, 5, -3, 3, rng);
        BrightestParams p;
        p.pivot = PivotSpec::parse("0");
        p.k = 500;
        const BrightestResult r = distinctRun(im, p, 0.0, Backend::Cpu);
        QVERIFY(r.regions.size() < 30);       // F = 0: disjoint rectangles, at most one per pixel
        QVERIFY(!r.note.empty());
        test::checkSameRegions(r, expected(im, p, 0.0), "F = 0");
        p.excludeRects.push_back({0, 0, 6, 5});
        QVERIFY(distinctRun(im, p, 0.3, Backend::Cpu).regions.empty());
    }

    void errors() {
        std::mt19937 rng(1);
        const Image im = test::randomIntImage(5, 5, -3, 3, rng);
        BrightestParams p;
        p.k = 3;
        for (double f : {-0.1, 1.0, 1.5, std::nan("")})
            QVERIFY_THROWS_EXCEPTION(UsageError, distinctRun(im, p, f, Backend::Cpu));
        p.distinct = 0.2; // disjoint mode
        JobControl job;
        QVERIFY_THROWS_EXCEPTION(UsageError, runBrightest(im, p, Backend::Cpu, job));
        // Overlap mode lists every rectangle by its sum: the disjoint search's filters are refused, not ignored
        // (the message names them); the search bound (--max-box) applies to both modes (test_overlap_bound).
        p.mode = BrightestMode::Overlap;
        p.minSnr = 5;
        try {
            runBrightest(im, p, Backend::Cpu, job);
            QFAIL("--min-snr in overlap mode was accepted");
        } catch (const UsageError& e) {
            QVERIFY2(std::string(e.what()).find("--min-snr") != std::string::npos, e.what());
        }
    }

    void cancelActsQuickly_data() { test::addBackendRows({Backend::Reference, Backend::Cpu}); }
    void cancelActsQuickly() {
        GLINT_FETCH_BACKEND(backend);
        std::mt19937 rng(2);
        const Image im = test::randomIntImage(backend == Backend::Reference ? 120 : 500, backend == Backend::Reference ? 120 : 500, 0, 255, rng);
        BrightestParams p;
        p.k = 200;
        p.mode = BrightestMode::Overlap;
        p.pivot = PivotSpec::parse("p40");
        p.distinct = 0.1;
        test::checkCancelInsideRun([&](JobControl& job) { runBrightest(im, p, backend, job); }, backendName(backend));
    }

    void cli() {
        const QString m = test::writeTempFile("distinct.csv", test::brightestPaperCsv());
        const QString dir = test::tempDir();
        auto r = test::runCli({"brightest", m, "--pivot", "0", "--mode", "overlap", "--distinct", "0.2", "--k", "3", "--json", "-",
                               "--regions", dir + "/distinct-regions.csv", "--backend", "cpu"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject doc = test::jsonOf(r);
        QCOMPARE(doc["distinct"].toDouble(), 0.2);
        const QJsonArray regions = doc["regions"].toArray();
        QCOMPARE(regions.size(), 3);
        QCOMPARE(regions[0].toObject()["sum"].toInteger(), 15); // the best rectangle first, as without the rule
        QFile csv(dir + "/distinct-regions.csv");
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = csv.readAll().split('\n');
        const int col = lines[0].split(',').indexOf("distinct");
        QVERIFY(col >= 0);
        QCOMPARE(lines[1].split(',').value(col), QByteArray("0.2"));
        // The usage text names the option.
        const auto usage = test::runCli({"brightest", "--help"});
        QVERIFY((usage.out + usage.err).contains("--distinct F"));
        // Bad values and modes: exit 2, one line on stderr.
        for (const QStringList& bad : {QStringList{"--mode", "overlap", "--distinct", "1"},
                                       QStringList{"--mode", "overlap", "--distinct", "-0.5"},
                                       QStringList{"--mode", "overlap", "--distinct", "nan"},
                                       QStringList{"--mode", "overlap", "--distinct", "x"},
                                       QStringList{"--mode", "overlap", "--distinct"},
                                       QStringList{"--distinct", "0.2"},
                                       QStringList{"--mode", "disjoint", "--distinct", "0.2"},
                                       // The disjoint search's filters, which overlap mode would ignore.
                                       QStringList{"--mode", "overlap", "--min-snr", "5"},
                                       QStringList{"--mode", "overlap", "--distinct", "0.2", "--max-size", "4"},
                                       QStringList{"--mode", "overlap", "--min-area", "9"}}) {
            const auto e = test::runCli(QStringList{"brightest", m} + bad);
            QVERIFY2(e.exitCode == 2, qPrintable(bad.join(' ') + ": exit " + QString::number(e.exitCode)));
            const QByteArray first = e.err.split('\n').value(0); // the error's line
            QVERIFY2(first.startsWith("glint-cli: ") && first.contains("--distinct"), e.err.constData());
        }
    }
};

GLINT_BACKEND_TEST_MAIN(TestDistinct)
#include "test_distinct.moc"
