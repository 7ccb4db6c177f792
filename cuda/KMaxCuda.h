// The CUDA backends of the K-MSP (overlapping K maximum subarrays): the 1-D form (kmax1d) and the
// rectangles of brightest --mode overlap. Registration only; the engine is in KMaxEngine.cuh.
#pragma once

namespace glint::cuda {

// Adds the CUDA KMax1dSolver and KMaxRectSolver to their registries (called by registerCudaBackends()).
void registerKMax1dCuda();
void registerKMaxRectCuda();

} // namespace glint::cuda
