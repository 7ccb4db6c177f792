// The one place that lists every algorithm's CUDA backend.
#include "Backends.h"
#include "LineTraceCuda.h"
#include "CommonComponentCuda.h"
#include "MaxSubarrayCuda.cuh"

namespace glint::cuda {

void registerCudaBackends() {
    // Each algorithm adds its line here: registerXxxCuda();
    registerLineTraceCuda();
    registerCommonComponentCuda();
    registerBrightestCuda();
}

} // namespace glint::cuda
