// The one list of the algorithms: registers every algorithm's reference and CPU backends with its
// BackendRegistry (the CUDA backends register in cuda/RegisterCudaBackends.cu). Called by initBackends()
// (cuda/Backends.cpp); idempotent. An explicit call, not static self-registration: glint_core is a static
// library, and a registrar object nothing references would be dropped by the linker.
#pragma once

namespace glint {

void registerCpuBackends();

} // namespace glint
