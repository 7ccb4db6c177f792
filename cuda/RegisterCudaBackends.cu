// The one place that lists every algorithm's CUDA backend.
#include "Backends.h"
#include "LineTraceCuda.h"
#include "CommonComponentCuda.h"
#include "MaxSubarrayCuda.cuh"
#include "KMaxCuda.h"

namespace glint::cuda {

void registerCudaBackends() {
    // Each algorithm adds its line here: registerXxxCuda();
    registerLineTraceCuda();
    registerCommonComponentCuda();
    registerBrightestCuda();
    registerKMax1dCuda();
    registerKMaxRectCuda();
}

} // namespace glint::cuda
