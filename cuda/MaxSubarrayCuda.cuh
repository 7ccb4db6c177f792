// The CUDA backend of the brightest-region search (MaxSubarraySolver): registration, and the tile
// shapes the strip kernel can run with (GLINT_MSP_TILE=TxB picks one, for measurements).
#pragma once

namespace glint::cuda {

// Adds the CUDA MaxSubarraySolver to BackendRegistry (called by registerCudaBackends()).
void registerBrightestCuda();

} // namespace glint::cuda
