// The CUDA backend of the common component (cuda/CommonComponentCuda.cu): the cpu backend's search
// (patch seeds, code bound, exact counts, labelling in bound order) with each stage on the GPU.
#pragma once

namespace glint::cuda {

// Adds the cuda backend to CommonComponentRegistry (called from registerCudaBackends()).
void registerCommonComponentCuda();

} // namespace glint::cuda
