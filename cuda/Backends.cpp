#include "cuda/Backends.h"

#include "core/algo/RegisterAlgorithms.h"
#include "core/jobs/Backend.h"

#include <mutex>

#if GLINT_HAVE_CUDA
#include "cuda/CudaDevice.h"
#endif

namespace glint {

void initBackends() {
    static std::once_flag once;
    std::call_once(once, [] {
        registerCpuBackends();
#if GLINT_HAVE_CUDA
        setCudaProbe(&cuda::probeDevice);
        setCudaDeviceSelector(&cuda::selectDevice);
        cuda::registerCudaBackends();
#endif
    });
}

} // namespace glint
