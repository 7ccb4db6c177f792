// The one place that lists every algorithm's CUDA backend.
#include "cuda/Backends.h"
#include "cuda/LineTraceCuda.h"
#include "cuda/CommonComponentCuda.h"
#include "cuda/MaxSubarrayCuda.cuh"
#include "cuda/KMaxCuda.h"

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
