#include "cuda/CudaDevice.h"

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace glint::cuda {

CudaDeviceInfo probeDevice() {
    CudaDeviceInfo info;
    info.compiled = true;
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        cudaGetLastError(); // clear the sticky error so later calls start clean
        info.reason = std::string("no CUDA device (") + cudaGetErrorString(err) + ")";
        return info;
    }
    if (count == 0) {
        info.reason = "no CUDA device";
        return info;
    }
    info.deviceCount = count;
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
        cudaGetLastError();
        info.reason = "the CUDA device could not be queried";
        return info;
    }
    info.name = prop.name;
    info.computeMajor = prop.major;
    info.computeMinor = prop.minor;
    info.multiprocessors = prop.multiProcessorCount;
    if (cudaDeviceGetAttribute(&info.clockKHz, cudaDevAttrClockRate, 0) != cudaSuccess) {
        cudaGetLastError();
        info.clockKHz = 0;
    }
    info.totalMemory = prop.totalGlobalMem;
    // A device we have no machine code or PTX for would fail at the first launch: test one now.
    void* probe = nullptr;
    if (cudaMalloc(&probe, 16) != cudaSuccess) {
        cudaGetLastError();
        info.reason = "the CUDA device " + info.name + " cannot allocate memory";
        return info;
    }
    cudaFree(probe);
    info.usable = true;
    return info;
}

void selectDevice(int device) { GLINT_CUDA_CHECK(cudaSetDevice(device)); }

void throwCudaError(int code, const char* call, const char* file, int line) {
    const auto err = static_cast<cudaError_t>(code);
    cudaGetLastError();
    const std::string where = std::string(call) + " at " + file + ":" + std::to_string(line);
    if (err == cudaErrorMemoryAllocation)
        throw BackendUnavailable("the GPU ran out of memory (" + where + ")");
    throw std::runtime_error(std::string("CUDA error: ") + cudaGetErrorString(err) + " (" + where + ")");
}

} // namespace glint::cuda
