// Where a region's measurement looks (the searched area and its exclusions) and the background it takes where
// no model was made; shared by RegionMeasure.cpp and RegionFilters.cpp. Internal to core/algo/sources.
#pragma once

#include "core/algo/regions/WorkArray.h"
#include "core/algo/sources/Background.h"

namespace glint::region_measure {

// The background where no model was made: the pivot, less the threshold's share (none without a model).
inline double measurePivot(const WorkArray& work, const BackgroundMap* model) {
    return work.pivot - (work.localPivot ? 0.0 : work.threshold * (model ? model->globalRms() : 0.0));
}

// Whether image pixel (x, y) lies in the searched area (the ROI), and whether an exclusion covers it (in the ROI).
inline bool inRoi(const WorkArray& work, int x, int y) {
    return x >= work.roi.x && x < work.roi.x + work.roi.width && y >= work.roi.y && y < work.roi.y + work.roi.height;
}
inline bool excludedAt(const WorkArray& work, int x, int y) {
    if (!work.hasExclusions()) return false;
    const int c = work.transposed ? y - work.roi.y : x - work.roi.x;
    const int r = work.transposed ? x - work.roi.x : y - work.roi.y;
    return work.isExcluded(r, c);
}

} // namespace glint::region_measure
