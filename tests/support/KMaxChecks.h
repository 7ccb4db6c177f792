// Checks of the K-MSP suite (every backend): brute force over every segment / rectangle (with the
// canonical sums of KMax.h, so that double results must agree bit for bit), and the validity of a
// reported list (distinct, no blank or excluded cell inside, each sum recomputed, in order).
#pragma once

#include "core/algo/brightest/Brightest.h"
#include "core/algo/regions/WorkArray.h"
#include "core/algo/kmax/KMax.h"
#include "core/io/Image.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>
#include <vector>

namespace glint::test {

inline double canonicalPairSum(double hi, double lo) { return (hi - lo) + 0.0; }

// Rank r + 1 of a list: not above the previous rank's sum (updated), and equal to brute force's.
inline void checkRank(std::size_t r, long double sum, long double& previous, const std::vector<long double>& all,
                      const QString& what) {
    QVERIFY2(sum <= previous, qPrintable(what + ": not in decreasing order"));
    previous = sum;
    QVERIFY2(sum == all[r], qPrintable(what + QString(": rank %1 sum %2, brute force %3")
                                                 .arg(r + 1)
                                                 .arg(static_cast<double>(sum), 0, 'g', 17)
                                                 .arg(static_cast<double>(all[r]), 0, 'g', 17)));
}

// Every blank-free segment's sum (canonical), largest first; ints exact in integer mode.
inline std::vector<long double> allSegmentSums(const KMaxSequence& s) {
    std::vector<long double> out;
    const std::size_t n = s.size();
    std::vector<std::int64_t> pi;
    std::vector<double> pr;
    if (s.integer) pi = canonicalPrefix1dInteger(s);
    else pr = canonicalPrefix1dReal(s);
    for (std::size_t i = 0; i < n; ++i) {
        if (s.isBlank(i)) continue;
        for (std::size_t j = i + 1; j <= n && !s.isBlank(j - 1); ++j)
            out.push_back(s.integer ? static_cast<long double>(pi[j] - pi[i]) : canonicalPairSum(pr[j], pr[i]));
    }
    std::sort(out.begin(), out.end(), std::greater<>());
    return out;
}

// The reported segments against brute force: the same multiset of the k largest sums, distinct
// segments free of blanks, each sum equal to its canonical sum and close to the plain sum of its values.
inline void checkSegments(const KMaxSequence& s, const std::vector<KMaxSegment>& got, std::size_t k, const QString& what) {
    const std::vector<long double> all = allSegmentSums(s);
    const std::size_t want = std::min(k, all.size());
    QVERIFY2(got.size() == want, qPrintable(what + QString(": %1 segments, expected %2").arg(got.size()).arg(want)));
    std::vector<std::int64_t> pi;
    std::vector<double> pr;
    if (s.integer) pi = canonicalPrefix1dInteger(s);
    else pr = canonicalPrefix1dReal(s);
    std::set<std::pair<std::int64_t, std::int64_t>> seen;
    long double previous = INFINITY;
    for (std::size_t r = 0; r < got.size(); ++r) {
        const KMaxSegment& g = got[r];
        QVERIFY2(g.first >= 0 && g.first <= g.last && g.last < static_cast<std::int64_t>(s.size()),
                 qPrintable(what + QString(": bad segment %1..%2").arg(g.first).arg(g.last)));
        QVERIFY2(seen.insert({g.first, g.last}).second, qPrintable(what + ": a segment listed twice"));
        long double direct = 0;
        std::int64_t directInt = 0;
        for (std::int64_t i = g.first; i <= g.last; ++i) {
            QVERIFY2(!s.isBlank(static_cast<std::size_t>(i)), qPrintable(what + ": a segment holds a blank"));
            direct += s.value(static_cast<std::size_t>(i));
            if (s.integer) directInt += s.ints[static_cast<std::size_t>(i)];
        }
        const long double sum = s.integer ? static_cast<long double>(g.sumInt) : static_cast<long double>(g.sum);
        if (s.integer) {
            QVERIFY2(g.sumInt == pi[g.last + 1] - pi[g.first], qPrintable(what + ": integer sum does not recompute"));
            QVERIFY2(g.sumInt == directInt, qPrintable(what + ": integer sum differs from its values"));
            QCOMPARE(g.sum, static_cast<double>(g.sumInt));
        } else {
            QVERIFY2(g.sum == canonicalPairSum(pr[g.last + 1], pr[g.first]), qPrintable(what + ": double sum does not recompute"));
            QVERIFY2(std::fabs(static_cast<double>(sum - direct)) <= 1e-9 * (1.0 + s.absSum),
                     qPrintable(what + ": double sum far from its values"));
        }
        checkRank(r, sum, previous, all, what);
        if (QTest::currentTestFailed()) return;
    }
}

// Every rectangle of the work array free of excluded cells, by its canonical sum, largest first.
inline std::vector<long double> allRectangleSums(const WorkArray& w) {
    std::vector<long double> out;
    std::vector<std::int64_t> Pi;
    std::vector<double> Pr;
    if (w.integer) Pi = columnPrefixSumsInteger(w);
    else Pr = columnPrefixSumsReal(w);
    const int R = w.rows, C = w.cols;
    for (int t = 0; t < R; ++t)
        for (int b = t; b < R; ++b) {
            std::vector<std::int64_t> qi(C + 1, 0);
            std::vector<double> qr(C + 1, 0.0);
            std::vector<bool> blocked(C, false);
            for (int c = 0; c < C; ++c) {
                if (w.integer) qi[c + 1] = qi[c] + (Pi[(b + 1) * C + c] - Pi[t * C + c]);
                else qr[c + 1] = qr[c] + (Pr[(b + 1) * C + c] - Pr[t * C + c]);
                for (int r = t; r <= b; ++r) blocked[c] = blocked[c] || w.isExcluded(r, c);
            }
            for (int l = 0; l < C; ++l)
                for (int r = l; r < C && !blocked[r]; ++r)
                    out.push_back(w.integer ? static_cast<long double>(qi[r + 1] - qi[l]) : canonicalPairSum(qr[r + 1], qr[l]));
        }
    std::sort(out.begin(), out.end(), std::greater<>());
    return out;
}

// The reported regions against brute force: the multiset of the k largest sums, distinct rectangles free
// of excluded pixels, each sum close to the plain sum of I - pivot over it (exact in integer mode).
inline void checkRegions(const Image& im, const BrightestParams& p, const BrightestResult& got, const QString& what) {
    const WorkArray w = prepareWorkArray(im, p);
    const std::vector<long double> all = w.includedCount ? allRectangleSums(w) : std::vector<long double>{};
    const std::size_t want = std::min<std::size_t>(static_cast<std::size_t>(p.k), all.size());
    QVERIFY2(got.regions.size() == want,
             qPrintable(what + QString(": %1 regions, expected %2").arg(got.regions.size()).arg(want)));
    std::set<std::tuple<int, int, int, int>> seen;
    long double previous = INFINITY, absSum = 0;
    for (int y = 0; y < im.height(); ++y)
        for (int x = 0; x < im.width(); ++x)
            if (!im.isBlank(x, y) && std::isfinite(im.value(x, y))) absSum += std::fabs(im.value(x, y) - w.pivot);
    for (std::size_t r = 0; r < got.regions.size(); ++r) {
        const BrightestRegion& g = got.regions[r];
        QCOMPARE(g.rank, static_cast<int>(r + 1));
        QVERIFY2(g.width > 0 && g.height > 0 && g.x >= 0 && g.y >= 0 && g.x + g.width <= im.width() &&
                     g.y + g.height <= im.height(),
                 qPrintable(what + ": region outside the image"));
        QVERIFY2(seen.insert({g.x, g.y, g.width, g.height}).second, qPrintable(what + ": a rectangle listed twice"));
        long double direct = 0;
        for (int y = g.y; y < g.y + g.height; ++y)
            for (int x = g.x; x < g.x + g.width; ++x) {
                const int wr = w.transposed ? x - w.roi.x : y - w.roi.y, wc = w.transposed ? y - w.roi.y : x - w.roi.x;
                QVERIFY2(wr >= 0 && wc >= 0 && wr < w.rows && wc < w.cols && !w.isExcluded(wr, wc),
                         qPrintable(what + ": a region holds an excluded pixel"));
                direct += static_cast<long double>(im.value(x, y)) - static_cast<long double>(w.pivot);
            }
        const long double sum = w.integer ? static_cast<long double>(g.sumInt) : static_cast<long double>(g.sum);
        if (w.integer) QVERIFY2(sum == direct, qPrintable(what + ": integer sum differs from its pixels"));
        else
            QVERIFY2(std::fabs(static_cast<double>(sum - direct)) <= 1e-9 * (1.0 + static_cast<double>(absSum)),
                     qPrintable(what + ": double sum far from its pixels"));
        checkRank(r, sum, previous, all, what);
        if (QTest::currentTestFailed()) return;
    }
}

} // namespace glint::test
