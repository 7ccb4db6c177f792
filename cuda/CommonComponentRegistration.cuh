// The common component's registration on the GPU (cuda/CommonComponentRegistration.cu): phase correlation
// with cuFFT, the device twin of common_component::registerByPhaseCorrelation().
#pragma once

#include "core/algo/common/CommonComponentCoding.h"
#include "core/io/Image.h"
#include "core/jobs/JobControl.h"

namespace glint::common_component {
struct Registration;
}

namespace glint::cuda::common {

// Fills out as registerByPhaseCorrelation() would (same transform size, window and peak rule; the surface
// is computed in single precision on the device, so near-equal peaks may rank differently). False when
// cuFFT cannot plan the size: then the host registers. Throws Cancelled through job and the toolkit's
// errors (BackendUnavailable when the GPU memory is short).
bool registerOnDevice(const Image& a, const Image& b, const glint::common_component::OffsetRange& range, int peaks,
                      glint::common_component::Registration& out, JobControl& job);

} // namespace glint::cuda::common
