// initBackends(): registers every backend this build has (reference, CPU, and CUDA when compiled) and
// the CUDA device probe. Programs and tests call it once at start; it is idempotent and never fails
// when there is no GPU or no driver.
#pragma once

namespace glint {

void initBackends();

namespace cuda {
// Registers the CUDA implementations of every algorithm. Defined only in CUDA builds.
void registerCudaBackends();
} // namespace cuda

} // namespace glint
