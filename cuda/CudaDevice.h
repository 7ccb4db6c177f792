// CUDA device detection and the error checks every .cu file shares (they throw instead of aborting); the
// buffers, streams, timers and workspaces built on them are in cuda/CudaToolkit.cuh.
#pragma once

#include "core/jobs/Backend.h"

#include <cstddef>
#include <string>

namespace glint::cuda {

// Asks the runtime for device 0. Never throws: without a driver or device it says why in `reason`.
CudaDeviceInfo probeDevice();
// cudaSetDevice for the calling thread (checked).
void selectDevice(int device);

// Throws BackendUnavailable (out of memory, no device) or std::runtime_error (any other CUDA error)
// with the failing call's text. Used through GLINT_CUDA_CHECK.
void throwCudaError(int code, const char* call, const char* file, int line);

} // namespace glint::cuda

#define GLINT_CUDA_CHECK(call)                                                                      \
    do {                                                                                            \
        const auto glint_cuda_status_ = (call);                                                     \
        if (glint_cuda_status_ != 0)                                                                \
            ::glint::cuda::throwCudaError(static_cast<int>(glint_cuda_status_), #call, __FILE__, __LINE__); \
    } while (0)
// After a kernel launch: launch errors (bad configuration) are reported at once.
#define GLINT_CUDA_CHECK_LAUNCH() GLINT_CUDA_CHECK(cudaGetLastError())
