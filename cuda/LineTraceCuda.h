// The CUDA line tracer: the field is uploaded once per setField(); each trace uploads its small geometry
// tables, scores all segments and runs the interval DP on the GPU, and reads back only the path.
#pragma once

#include "core/algo/trace/LineTrace.h"

#include <memory>

namespace glint::cuda {

std::unique_ptr<LineTracer> makeLineTracerCuda();
// Registers the cuda backend with BackendRegistry<LineTracer> (called from registerCudaBackends()).
void registerLineTraceCuda();

} // namespace glint::cuda
