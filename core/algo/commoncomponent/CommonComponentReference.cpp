// The reference backend: every offset, its match mask, and a breadth-first labelling. Plain and
// obviously right; the oracle of the tests and the baseline of the speed-ups.
#include "core/algo/commoncomponent/CommonComponent.h"

#include <algorithm>
#include <vector>

namespace glint {

namespace {

class CommonComponentReference : public CommonComponentAlgorithm {
public:
    CommonComponentResult run(const Image& a, const Image& b, const CommonComponentParams& params,
                              JobControl& job) override {
        beginCommonComponentRun(params, Backend::Reference, job);
        auto step = job.timing().scope("search");
        const int wA = a.width(), hA = a.height(), wB = b.width(), hB = b.height();
        const std::vector<double> va = a.toDoubles();
        const std::vector<double> vb = b.toDoubles();
        int dxMin = -(wA - 1), dxMax = wB - 1, dyMin = -(hA - 1), dyMax = hB - 1;
        if (params.maxShift >= 0) {
            const long long s = params.maxShift;
            dxMin = static_cast<int>(std::max<long long>(dxMin, -s));
            dxMax = static_cast<int>(std::min<long long>(dxMax, s));
            dyMin = static_cast<int>(std::max<long long>(dyMin, -s));
            dyMax = static_cast<int>(std::min<long long>(dyMax, s));
        }

        CommonComponentResult best;
        best.maskWidth = wA;
        best.maskHeight = hA;
        std::vector<std::uint8_t> match(static_cast<std::size_t>(wA) * hA);
        std::vector<int> label(match.size());
        std::vector<int> queue;
        for (int dy = dyMin; dy <= dyMax; ++dy) {
            job.setProgress(static_cast<double>(dy - dyMin) / (dyMax - dyMin + 1));
            for (int dx = dxMin; dx <= dxMax; ++dx) {
                // Per offset, not per row of offsets: one row of a 512² pair is about a second of work.
                job.throwIfCancelled();
                ++best.stats.offsets;
                // The match mask in A's frame: A(x, y) against B(x + dx, y + dy).
                for (int y = 0; y < hA; ++y) {
                    for (int x = 0; x < wA; ++x) {
                        const std::size_t i = static_cast<std::size_t>(y) * wA + x;
                        const int xb = x + dx, yb = y + dy;
                        bool m = false;
                        if (xb >= 0 && xb < wB && yb >= 0 && yb < hB) {
                            const std::size_t j = static_cast<std::size_t>(yb) * wB + xb;
                            m = !a.isBlank(i) && !b.isBlank(j) && samplesMatch(va[i], vb[j], params.tolerance);
                        }
                        match[i] = m ? 1 : 0;
                        label[i] = -1;
                    }
                }
                ++best.stats.labelled;
                int components = 0;
                for (std::size_t start = 0; start < match.size(); ++start) {
                    if (!match[start] || label[start] >= 0) continue;
                    const int id = components++;
                    label[start] = id;
                    queue.assign(1, static_cast<int>(start));
                    for (std::size_t head = 0; head < queue.size(); ++head) {
                        const int p = queue[head];
                        const int x = p % wA, y = p / wA;
                        const int nx[4] = {x - 1, x + 1, x, x};
                        const int ny[4] = {y, y, y - 1, y + 1};
                        for (int k = 0; k < 4; ++k) {
                            if (nx[k] < 0 || nx[k] >= wA || ny[k] < 0 || ny[k] >= hA) continue;
                            const int q = ny[k] * wA + nx[k];
                            if (!match[q] || label[q] >= 0) continue;
                            label[q] = id;
                            queue.push_back(q);
                        }
                    }
                    if (queue.size() <= best.size) continue;
                    best.found = true;
                    best.dx = dx;
                    best.dy = dy;
                    best.size = queue.size();
                    best.mask.assign(match.size(), 0);
                    int x0 = wA, y0 = hA, x1 = -1, y1 = -1;
                    for (int p : queue) {
                        best.mask[p] = 1;
                        x0 = std::min(x0, p % wA);
                        x1 = std::max(x1, p % wA);
                        y0 = std::min(y0, p / wA);
                        y1 = std::max(y1, p / wA);
                    }
                    best.bboxX = x0;
                    best.bboxY = y0;
                    best.bboxWidth = x1 - x0 + 1;
                    best.bboxHeight = y1 - y0 + 1;
                }
            }
        }
        return best;
    }
};

} // namespace

void registerCommonComponentReferenceBackend() {
    CommonComponentRegistry::add(Backend::Reference, [] { return std::make_unique<CommonComponentReference>(); });
}

} // namespace glint
