// The source finder's rejections of a measured region (RegionMeasure.h): the slope rule (a peak with a
// brighter neighbour outside its rectangle) and the significance filters.
#include "core/algo/sources/RegionMeasure.h"

#include "core/algo/sources/RegionMeasureArea.h"
#include "core/export/CsvTable.h"
#include "core/io/Image.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

namespace glint {

using region_measure::excludedAt;
using region_measure::inRoi;
using region_measure::measurePivot;

bool RegionMeasurer::peakIsLocalMaximum(const BrightestRegion& g) const {
    if (!g.measured) return true;
    const int W = image_.width(), H = image_.height();
    const BackgroundMap* model = work_.background && !work_.background->empty() ? work_.background.get() : nullptr;
    const double pivot = measurePivot(work_, model);
    const std::uint8_t* blankMask = image_.blankMask().empty() ? nullptr : image_.blankMask().data();
    // A neighbour counts as brighter when it is so both above the background and as stored: a saturated
    // plateau (a bright star's flat top, its bleed trail) is level as stored, whatever the background's slope.
    const double top = image_.value(g.peakX, g.peakY);
    const int xa = std::max(0, g.peakX - 1), xb = std::min(W, g.peakX + 2);
    for (int y = std::max(0, g.peakY - 1); y < std::min(H, g.peakY + 2); ++y) {
        // The background as measure() takes it (a row piece of the model equals the whole row's values).
        double back[3] = {pivot, pivot, pivot};
        if (model) model->row(y, xa, xb, back, nullptr);
        for (int x = xa; x < xb; ++x) {
            if (x >= g.x && x < g.x + g.width && y >= g.y && y < g.y + g.height) continue;
            if (blankMask && blankMask[static_cast<std::size_t>(y) * W + x]) continue;
            const double v = image_.value(x, y);
            if (!std::isfinite(v)) continue;
            if (!inRoi(work_, x, y) || excludedAt(work_, x, y)) continue;
            if (v - back[x - xa] > g.peak && v > top) return false;
        }
    }
    return true;
}

bool hasFilters(const BrightestParams& params) {
    return params.minSnr > 0.0 || params.minArea > 0 || params.maxSize > 0 || params.minPeak > 0.0;
}

std::string describeFilters(const BrightestParams& params) {
    std::string text = "min SNR " + formatNumber(params.minSnr) + ", min area " + std::to_string(params.minArea);
    if (params.maxSize > 0) text += ", max size " + std::to_string(params.maxSize);
    if (params.minPeak > 0.0) text += ", min peak " + formatNumber(params.minPeak);
    return text;
}

bool passesFilters(const BrightestRegion& g, const BrightestParams& params) {
    if (params.minArea > 0 && g.pixels() < params.minArea) return false;
    if (params.maxSize > 0 && std::max(g.width, g.height) > params.maxSize) return false;
    if (params.minSnr > 0.0 && !(g.snr >= params.minSnr)) return false;
    if (params.minPeak > 0.0 && !(g.peak >= params.minPeak)) return false;
    return true;
}

} // namespace glint
