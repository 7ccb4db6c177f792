// The local pivot's preprocessing on the device (core/algo/regions/WorkArray.h, DeviceLocalPivot): the image
// uploaded once in its sample type, every background cell's sigma clipping (a warp a cell, the host's
// clippedStatsHistogram operation by operation), and a = I - bkg - N rms over the ROI built in device memory
// (a block a row, the host's spline arithmetic of BackgroundMath.h), where the bounded search reads it.
#pragma once

#include "core/algo/regions/WorkArray.h"

#include <memory>

namespace glint::cuda::background {

// One per solver; it holds its device buffers (a shared workspace, under a lease) from cells() until it is
// destroyed, so that the search that follows reads the derived samples in place.
std::unique_ptr<DeviceLocalPivot> makeCudaLocalPivot();

} // namespace glint::cuda::background
