// Inputs and brute force shared by the suites of brightest --mode overlap (test_kmax, test_distinct,
// test_overlap_bound, test_distinct_scenes): random small inputs of the brute-force kinds, the larger inputs that
// a backend is compared on with the reference, the brute-force list of --distinct F and --max-box P (every
// rectangle, ranked, filtered greedily), and the rule checked between every pair of listed regions.
#pragma once

#include "tests/support/TestSupport.h"

#include "core/algo/brightest/Brightest.h"
#include "core/algo/kmax/KMax.h"
#include "core/algo/regions/WorkArray.h"

#include <QString>
#include <QtTest>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <tuple>
#include <type_traits>
#include <vector>

namespace glint::test {

// The work array an overlap search of the image runs on.
inline WorkArray overlapWork(const Image& im, BrightestParams p) {
    p.mode = BrightestMode::Overlap;
    JobControl job;
    return prepareRegionSearch(im, p, BrightestMode::Overlap, Backend::Reference, job).work;
}

// Rectangles of the work array as the regions a backend reports.
inline BrightestResult resultOf(const WorkArray& work, const std::vector<WorkRect>& rects) {
    BrightestResult r;
    r.regions = regionsOf(work, rects);
    for (auto& g : r.regions) g.exactInteger = work.integer;
    return r;
}

// Large flat areas, where many rectangles tie: a background of -1 or 0 and one to three overlapping
// rectangles of 1 or 2 (pivot 0).
inline Image plateaus(int w, int h, std::mt19937& rng) {
    std::vector<std::int32_t> px(static_cast<std::size_t>(w) * h, static_cast<std::int32_t>(rng() % 2) - 1);
    const int n = 1 + static_cast<int>(rng() % 3);
    for (int i = 0; i < n; ++i) {
        const int x0 = static_cast<int>(rng() % w), y0 = static_cast<int>(rng() % h);
        const int x1 = x0 + static_cast<int>(rng() % (w - x0)), y1 = y0 + static_cast<int>(rng() % (h - y0));
        const std::int32_t v = 1 + static_cast<std::int32_t>(rng() % 2);
        for (int y = y0; y <= y1; ++y)
            for (int x = x0; x <= x1; ++x) px[static_cast<std::size_t>(y) * w + x] = v;
    }
    return intImage(w, h, std::move(px));
}

// A random w x h input of the brute-force kinds, its pivot set in p (0 unless said): randomImageOfKind's kinds
// ("equal" with the pivot 3 or 2 by `odd`), "exclusions" (-5..6, a rectangle excluded), "roi" (-6..6 with
// blanks, the w x h ROI of a larger image), "pivot" (0..255 floats, the mean or the median pivot by `odd`),
// "ties" (-1..1) and "plateaus".
inline Image randomSearchInput(const QString& kind, int w, int h, bool odd, std::mt19937& rng, BrightestParams& p) {
    Image im;
    p.pivot = PivotSpec::parse("0");
    if (kind == "exclusions") {
        im = randomIntImage(w, h, -5, 6, rng);
        p.excludeRects.push_back({w / 3, h / 3, 1 + w / 4, 1 + h / 4});
    } else if (kind == "roi") {
        im = randomIntImage(w + 3, h + 2, -6, 6, rng, 0.05);
        p.roi = PixelRect{2, 1, w, h};
    } else if (kind == "pivot") {
        im = randomFloatImage(w, h, 0.0, 255.0, rng);
        p.pivot = PivotSpec::parse(odd ? "mean" : "median");
    } else if (kind == "ties") {
        im = randomIntImage(w, h, -1, 1, rng);
    } else if (kind == "plateaus") {
        im = plateaus(w, h, rng);
    } else {
        im = randomImageOfKind(kind, w, h, rng);
    }
    if (kind == "equal") p.pivot = PivotSpec::parse(odd ? "3" : "2");
    return im;
}

// The larger inputs on which a backend is compared with the reference bit for bit: the backend and kind rows
// (cpu, cuda), and the input of a kind with its pivot set in p.
inline void addAgreementRows() {
    addBackendKindRows({Backend::Cpu, Backend::Cuda}, {"u8 noise", "float blanks", "exclusions", "tall", "int ties", "plateaus"});
}
inline Image agreementInput(const QString& kind, std::mt19937& rng, BrightestParams& p) {
    p.pivot = PivotSpec::parse("0");
    if (kind == "u8 noise") {
        p.pivot = PivotSpec::parse("p60");
        return randomIntImage(48, 36, 0, 255, rng);
    }
    if (kind == "float blanks") {
        p.pivot = PivotSpec::parse("mean");
        return randomFloatImage(40, 30, -3, 3.3, rng, 0.02);
    }
    if (kind == "exclusions") {
        p.excludeRects.push_back({10, 8, 9, 6});
        p.excludePolygons.push_back({{{25, 5}, {40.5, 12}, {30, 28.2}}});
        return randomIntImage(44, 32, -20, 22, rng);
    }
    if (kind == "tall") return randomIntImage(24, 50, -9, 10, rng); // transposed work array
    if (kind == "plateaus") return plateaus(45, 33, rng);            // large flat areas: near-copies of one rectangle tie
    return randomIntImage(36, 28, -1, 1, rng);                       // "int ties": many equal sums, the tie order decides
}

// Brute force of the listed forms: every rectangle with no excluded cell (maxBox > 0: with both sides <= maxBox),
// its sum in the canonical order of KMax.h (column prefix sums top to bottom, the strip's prefix Q left to right,
// fl(Q[r+1] - Q[l]) + 0.0), sorted by (larger sum, smaller top, bottom, first, last); f unset, the first k; with
// F, filtered greedily with the rule in long double (exact for these areas: 53 + 8 bits).
template <class V>
std::vector<WorkRect> bruteForceListOf(const WorkArray& work, std::size_t k, std::optional<double> f, int maxBox) {
    const int rows = work.rows, cols = work.cols;
    const int box = maxBox > 0 ? maxBox : std::max(rows, cols);
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
        for (int b = t; b < rows && b - t < box; ++b) {
            q[0] = V(0);
            for (int c = 0; c < cols; ++c) q[c + 1] = q[c] + (P[static_cast<std::size_t>(b + 1) * cols + c] - P[static_cast<std::size_t>(t) * cols + c]);
            for (int l = 0; l < cols; ++l)
                for (int r = l; r < cols && r - l < box; ++r) {
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
        if (f)
            for (const WorkRect& L : listed) {
                const long long ov = static_cast<long long>(std::max(0, std::min(c.b, L.row0 + L.rows - 1) - std::max(c.t, L.row0) + 1)) *
                                     std::max(0, std::min(c.r, L.col0 + L.cols - 1) - std::max(c.l, L.col0) + 1);
                const long long m = std::min<long long>(static_cast<long long>(rect.rows) * rect.cols, static_cast<long long>(L.rows) * L.cols);
                if (static_cast<long double>(ov) > static_cast<long double>(*f) * static_cast<long double>(m)) {
                    ok = false;
                    break;
                }
            }
        if (ok) listed.push_back(rect);
    }
    return listed;
}
inline std::vector<WorkRect> bruteForceList(const WorkArray& work, std::size_t k, std::optional<double> f, int maxBox = 0) {
    return work.integer ? bruteForceListOf<std::int64_t>(work, k, f, maxBox) : bruteForceListOf<double>(work, k, f, maxBox);
}

// Every pair of listed regions obeys the rule of --distinct F (in long double: exact for these areas).
inline void checkDistinctRule(const BrightestResult& r, double f, const QString& what) {
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

} // namespace glint::test
