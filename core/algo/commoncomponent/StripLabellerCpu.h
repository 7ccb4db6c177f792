// Largest 4-connected component of a mask given row by row, on one CPU thread, through the strip phases
// of StripLabeller.h (the same code the CUDA kernel runs). The strip height is a parameter so that the
// tests can force many strips and exercise the carry between them.
#pragma once

#include "core/algo/commoncomponent/StripLabeller.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace glint::common_component {

struct LabelOutcome {
    std::uint64_t size = 0; // pixels in the largest component (0: the mask is empty)
    int x = 0, y = 0;       // one pixel of it, in mask coordinates
};

class CpuStripLabeller {
public:
    // Strip height that keeps the node array near 256 KB.
    static int defaultStripRows(int width, int height) {
        return std::max(1, std::min(height, (1 << 16) / (width + 1) - 1));
    }

    // rowMask(y, words) fills the ceil(width/32) mask words of row y (0 <= y < height), bits beyond width
    // 0. stripRows <= 0 picks defaultStripRows.
    template <class RowFn>
    LabelOutcome label(int width, int height, int stripRows, RowFn&& rowMask) {
        LabelOutcome out;
        if (width <= 0 || height <= 0) return out;
        if (stripRows <= 0) stripRows = defaultStripRows(width, height);
        stripRows = std::min(stripRows, height);
        const int words = (width + 31) / 32;
        const std::size_t rowsCap = static_cast<std::size_t>(stripRows) + 1;
        mask_.resize(rowsCap * words);
        runEntry_.resize(rowsCap * words);
        node_.resize(rowsCap * static_cast<std::size_t>(width + 1));
        tmpRoot_.resize(width);
        std::fill(mask_.begin(), mask_.begin() + words, 0u); // the first strip carries nothing
        StripView s;
        s.width = width;
        s.words = words;
        s.mask = mask_.data();
        s.runEntry = runEntry_.data();
        s.node = node_.data();
        for (int y0 = 0; y0 < height; y0 += stripRows) {
            const int fresh = std::min(stripRows, height - y0);
            s.rows = fresh + 1;
            for (int r = 1; r <= fresh; ++r) rowMask(y0 + r - 1, mask_.data() + static_cast<std::size_t>(r) * words);
            for (int r = 0; r <= fresh; ++r) computeRunEntryRow(s, r);
            for (int r = 1; r <= fresh; ++r)
                for (int w = 0; w < words; ++w) initWord(s, r, w);
            for (int r = 1; r <= fresh; ++r)
                for (int w = 0; w < words; ++w) unionWord<SequentialOps>(s, r, w);
            for (int r = 0; r <= fresh; ++r)
                for (int w = 0; w < words; ++w) flattenAndSizeWord<SequentialOps>(s, r, w);
            for (int r = 0; r <= fresh; ++r)
                for (int w = 0; w < words; ++w) {
                    const std::uint64_t key = largestRootInWord(s, r, w);
                    if ((key >> 32) <= out.size) continue;
                    const std::uint32_t i = static_cast<std::uint32_t>(key);
                    out.size = key >> 32;
                    out.x = static_cast<int>(i % static_cast<std::uint32_t>(width + 1));
                    out.y = y0 + static_cast<int>(i / static_cast<std::uint32_t>(width + 1)) - 1;
                }
            if (y0 + fresh >= height) break;
            for (int w = 0; w < words; ++w) carryRootsWord(s, w, tmpRoot_.data());
            for (int w = 0; w < words; ++w) carryClearWord(s, w, tmpRoot_.data());
            for (int w = 0; w < words; ++w) carryMinWord<SequentialOps>(s, w, tmpRoot_.data());
            for (int w = 0; w < words; ++w) carryCanonicalWord(s, w, tmpRoot_.data());
            for (int w = 0; w < words; ++w) carryWriteWord(s, w, tmpRoot_.data());
        }
        return out;
    }

private:
    std::vector<std::uint32_t> mask_, runEntry_, node_, tmpRoot_;
};

} // namespace glint::common_component
