// Checks of the common-component suite (every backend): run a backend (the one place the suite calls
// findCommonComponent, but for the test of its out-parameter), verify that a reported component is what
// DESIGN.md asks for (matching pixels, 4-connected, the reported size and box), and compare a backend
// with an oracle backend.
#pragma once

#include "core/algo/commoncomponent/CommonComponent.h"
#include "core/io/Image.h"

#include <QtTest>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace glint::test {

inline CommonComponentResult runCommon(const Image& a, const Image& b, const CommonComponentParams& p, Backend backend,
                                       JobControl& job) {
    return findCommonComponent(a, b, p, backend, job);
}

inline CommonComponentResult runCommon(const Image& a, const Image& b, const CommonComponentParams& p, Backend backend) {
    JobControl job;
    return runCommon(a, b, p, backend, job);
}

// For every pixel of a byte mask, the size of its 4-connected component (0 outside the mask).
inline std::vector<std::uint64_t> componentSizes(const std::vector<std::uint8_t>& mask, int w, int h) {
    std::vector<std::uint64_t> size(mask.size(), 0);
    std::vector<int> label(mask.size(), -1), queue;
    int next = 0;
    for (std::size_t s = 0; s < mask.size(); ++s) {
        if (!mask[s] || label[s] >= 0) continue;
        queue.assign(1, static_cast<int>(s));
        label[s] = next;
        for (std::size_t head = 0; head < queue.size(); ++head) {
            const int p = queue[head], x = p % w, y = p / w;
            const int nx[4] = {x - 1, x + 1, x, x}, ny[4] = {y, y, y - 1, y + 1};
            for (int k = 0; k < 4; ++k) {
                if (nx[k] < 0 || nx[k] >= w || ny[k] < 0 || ny[k] >= h) continue;
                const int q = ny[k] * w + nx[k];
                if (mask[q] && label[q] < 0) {
                    label[q] = next;
                    queue.push_back(q);
                }
            }
        }
        for (int p : queue) size[p] = queue.size();
        ++next;
    }
    return size;
}

// The component lies in A, every pixel matches B at the offset, it is one 4-connected piece of the
// reported size, and the box is its bounding box.
inline void checkComponent(const Image& a, const Image& b, const CommonComponentParams& p,
                           const CommonComponentResult& r) {
    if (!r.found) {
        QCOMPARE(r.size, std::uint64_t(0));
        QVERIFY(r.mask.empty());
        return;
    }
    if (p.maxShift >= 0) {
        QVERIFY(std::abs(r.dx) <= p.maxShift);
        QVERIFY(std::abs(r.dy) <= p.maxShift);
    }
    QCOMPARE(r.maskWidth, a.width());
    QCOMPARE(r.maskHeight, a.height());
    QCOMPARE(r.mask.size(), a.pixelCount());
    std::uint64_t count = 0;
    int x0 = a.width(), y0 = a.height(), x1 = -1, y1 = -1, first = -1;
    for (int y = 0; y < a.height(); ++y)
        for (int x = 0; x < a.width(); ++x) {
            if (!r.mask[static_cast<std::size_t>(y) * a.width() + x]) continue;
            ++count;
            if (first < 0) first = y * a.width() + x;
            x0 = std::min(x0, x), x1 = std::max(x1, x), y0 = std::min(y0, y), y1 = std::max(y1, y);
            const int xb = x + r.dx, yb = y + r.dy;
            QVERIFY(xb >= 0 && xb < b.width() && yb >= 0 && yb < b.height());
            QVERIFY(!a.isBlank(x, y) && !b.isBlank(xb, yb));
            QVERIFY(samplesMatch(a.value(x, y), b.value(xb, yb), p.tolerance));
        }
    QCOMPARE(count, r.size);
    QCOMPARE(componentSizes(r.mask, a.width(), a.height())[first], r.size);
    QCOMPARE(r.bboxX, x0);
    QCOMPARE(r.bboxY, y0);
    QCOMPARE(r.bboxWidth, x1 - x0 + 1);
    QCOMPARE(r.bboxHeight, y1 - y0 + 1);
}

// The backend's component is valid, its searched offsets are all accounted for (pruned or labelled), and
// (where the oracle is another backend) it has the oracle's size and searched the same offsets.
inline void checkAgainst(const Image& a, const Image& b, const CommonComponentParams& p, Backend backend, Backend oracle) {
    const auto got = runCommon(a, b, p, backend);
    checkComponent(a, b, p, got);
    QCOMPARE(got.stats.prunedByArea + got.stats.prunedByBound + got.stats.prunedByCount + got.stats.labelled,
             got.stats.offsets);
    if (backend == oracle) return;
    const auto expected = runCommon(a, b, p, oracle);
    if (got.size != expected.size)
        qWarning("A %dx%d, B %dx%d, t %g, shift %lld: %s %llu, %s %llu", a.width(), a.height(), b.width(), b.height(),
                 p.tolerance, static_cast<long long>(p.maxShift), backendName(backend),
                 static_cast<unsigned long long>(got.size), backendName(oracle),
                 static_cast<unsigned long long>(expected.size));
    QCOMPARE(got.size, expected.size);
    QCOMPARE(got.stats.offsets, expected.stats.offsets);
}

} // namespace glint::test
