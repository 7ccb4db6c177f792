// Comparisons of two backends' answers: brightest regions (the same rectangles, bit-identical sums) and
// K-MSP lists (the same multiset of sums, bit for bit, where ties may list different places).
#pragma once

#include "core/algo/brightest/Brightest.h"
#include "core/algo/kmax/KMax.h"
#include "core/io/Image.h"
#include "core/jobs/JobControl.h"

#include <QtTest>

#include <vector>

namespace glint::test {

// The example of the maximum-subarray paper (4 rows of 8): its brightest rectangle sums to 15 at x 4..5,
// y 2..3. As an image and as the text of a CSV file.
inline const char* brightestPaperCsv() {
    return "-1,2,-3,5,-4,-8,3,-3\n2,-4,-6,-8,2,-5,4,1\n3,-2,9,-9,3,6,-5,2\n1,-3,5,-7,8,-2,2,-6\n";
}
inline Image brightestPaperImage() {
    return Image::fromSamples<std::int32_t>(8, 4, {-1, 2, -3, 5, -4, -8, 3, -3, 2, -4, -6, -8, 2, -5, 4, 1,
                                                   3, -2, 9, -9, 3, 6, -5, 2, 1, -3, 5, -7, 8, -2, 2, -6});
}

// A whole search through runBrightest on one backend.
inline BrightestResult runBrightestOn(const Image& im, const BrightestParams& p, Backend b = Backend::Cpu) {
    JobControl job;
    return runBrightest(im, p, b, job);
}

// The parameters of a search of the samples themselves (pivot 0) for k regions, the others at their defaults.
inline BrightestParams zeroPivotParams(int k = 1) {
    BrightestParams p;
    p.pivot = PivotSpec::parse("0");
    p.k = k;
    return p;
}

// Whether a region holds the point (x, y) (pixel frame, pixel centres at integers).
inline bool regionHolds(const BrightestRegion& g, double x, double y) {
    return x >= g.x - 0.5 && x < g.x + g.width - 0.5 && y >= g.y - 0.5 && y < g.y + g.height - 0.5;
}

inline QString sumsText(double a, double b) { return QString("%1 vs %2").arg(a, 0, 'g', 17).arg(b, 0, 'g', 17); }

// The same rectangles in the same order, with bit-identical sums.
inline void checkSameRegions(const BrightestResult& a, const BrightestResult& b, const QString& what = {}) {
    QVERIFY2(a.regions.size() == b.regions.size(),
             qPrintable(what + QString(": %1 vs %2 regions").arg(a.regions.size()).arg(b.regions.size())));
    for (std::size_t i = 0; i < a.regions.size(); ++i) {
        const auto &p = a.regions[i], &q = b.regions[i];
        QCOMPARE(p.x, q.x);
        QCOMPARE(p.y, q.y);
        QCOMPARE(p.width, q.width);
        QCOMPARE(p.height, q.height);
        QCOMPARE(p.sumInt, q.sumInt);
        QVERIFY2(p.sum == q.sum, qPrintable(what + ": sums differ (must agree bit for bit): " + sumsText(p.sum, q.sum)));
    }
}

// The same sums rank by rank, bit for bit (overlap mode: ties may list other rectangles).
inline void checkSameRegionSums(const BrightestResult& a, const BrightestResult& b, const QString& what) {
    QVERIFY2(a.regions.size() == b.regions.size(),
             qPrintable(what + QString(": %1 vs %2 regions").arg(a.regions.size()).arg(b.regions.size())));
    for (std::size_t i = 0; i < a.regions.size(); ++i)
        QVERIFY2(a.regions[i].sumInt == b.regions[i].sumInt && a.regions[i].sum == b.regions[i].sum,
                 qPrintable(what + QString(": rank %1: ").arg(i + 1) + sumsText(a.regions[i].sum, b.regions[i].sum)));
}

// The same multiset of segment sums, bit for bit (ties may list different segments).
inline void checkSameSegmentSums(const std::vector<KMaxSegment>& a, const std::vector<KMaxSegment>& b, bool integer,
                                 const QString& what) {
    QVERIFY2(a.size() == b.size(), qPrintable(what + QString(": %1 vs %2 segments").arg(a.size()).arg(b.size())));
    for (std::size_t i = 0; i < a.size(); ++i) {
        const bool same = integer ? a[i].sumInt == b[i].sumInt : a[i].sum == b[i].sum;
        QVERIFY2(same, qPrintable(what + QString(": rank %1: ").arg(i + 1) + sumsText(a[i].sum, b[i].sum)));
    }
}

} // namespace glint::test
