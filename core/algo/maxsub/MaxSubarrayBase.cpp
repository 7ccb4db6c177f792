#include "core/algo/maxsub/MaxSubarrayBase.h"

#include <algorithm>

namespace glint {

ExclusionIndex::ExclusionIndex(int rows, int cols, const std::vector<std::uint8_t>& excluded)
    : rows_(rows), cols_(cols), mask_(excluded) {
    next_.assign((static_cast<std::size_t>(rows) + 1) * cols, rows);
    if (mask_.empty()) return;
    any_ = true;
    for (int r = rows - 1; r >= 0; --r) {
        const std::uint8_t* m = mask_.data() + static_cast<std::size_t>(r) * cols;
        std::int32_t* out = next_.data() + static_cast<std::size_t>(r) * cols;
        const std::int32_t* below = out + cols;
        for (int c = 0; c < cols; ++c) out[c] = m[c] ? r : below[c];
    }
}

void ExclusionIndex::exclude(const WorkRect& rect) {
    if (mask_.empty()) mask_.assign(static_cast<std::size_t>(rows_) * cols_, 0);
    any_ = true;
    for (int r = rect.row0; r < rect.row0 + rect.rows; ++r)
        std::fill_n(mask_.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(r) * cols_ + rect.col0),
                    rect.cols, std::uint8_t{1});
    // Only rows at or above the rectangle's last row can change, and only in its columns; above its first row,
    // a row that keeps all its values keeps every row above it too (each row follows from the one below).
    for (int r = rect.row0 + rect.rows - 1; r >= 0; --r) {
        const std::uint8_t* m = mask_.data() + static_cast<std::size_t>(r) * cols_;
        std::int32_t* out = next_.data() + static_cast<std::size_t>(r) * cols_;
        const std::int32_t* below = out + cols_;
        bool changed = false;
        for (int c = rect.col0; c < rect.col0 + rect.cols; ++c) {
            const std::int32_t v = m[c] ? r : below[c];
            changed = changed || v != out[c];
            out[c] = v;
        }
        if (!changed && r < rect.row0) break;
    }
}

std::vector<BrightestRegion> regionsOf(const WorkArray& work, const std::vector<WorkRect>& rects) {
    std::vector<BrightestRegion> regions;
    regions.reserve(rects.size());
    for (const WorkRect& w : rects) {
        const PixelRect r = work.toImage(w.row0, w.col0, w.rows, w.cols);
        regions.push_back({.rank = static_cast<int>(regions.size()) + 1, .x = r.x, .y = r.y, .width = r.width,
                           .height = r.height, .sum = work.integer ? static_cast<double>(w.sumInt) : w.sum,
                           .sumInt = w.sumInt, .exactInteger = work.integer});
    }
    return regions;
}


} // namespace glint
