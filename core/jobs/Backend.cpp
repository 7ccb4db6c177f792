#include "jobs/Backend.h"

#include <cstdlib>
#include <mutex>
#include <thread>

namespace glint {

Backend parseBackend(std::string_view name) {
    if (name == "auto") return Backend::Auto;
    if (name == "cuda") return Backend::Cuda;
    if (name == "cpu") return Backend::Cpu;
    if (name == "reference") return Backend::Reference;
    throw UsageError("unknown backend '" + std::string(name) + "' (expected auto, cuda, cpu or reference)");
}

const char* backendName(Backend backend) {
    switch (backend) {
    case Backend::Auto: return "auto";
    case Backend::Cuda: return "cuda";
    case Backend::Cpu: return "cpu";
    case Backend::Reference: return "reference";
    }
    return "auto";
}

namespace {
std::function<CudaDeviceInfo()>& probeFunction() {
    static std::function<CudaDeviceInfo()> probe;
    return probe;
}
std::mutex& probeMutex() {
    static std::mutex m;
    return m;
}
} // namespace

void setCudaProbe(std::function<CudaDeviceInfo()> probe) {
    std::lock_guard lock(probeMutex());
    probeFunction() = std::move(probe);
}

const CudaDeviceInfo& cudaDevice() {
    static CudaDeviceInfo info;
    static bool probed = false;
    std::lock_guard lock(probeMutex());
    if (!probed) {
        probed = true;
        if (probeFunction()) info = probeFunction()();
        else info.reason = "this build of Glint has no CUDA backends";
    }
    return info;
}

int cpuThreadCount() {
    static const int count = [] {
        if (const char* env = std::getenv("GLINT_THREADS")) {
            const int n = std::atoi(env);
            if (n > 0) return n;
        }
        const unsigned hw = std::thread::hardware_concurrency();
        return hw == 0 ? 1 : static_cast<int>(hw);
    }();
    return count;
}

std::string cpuDeviceName() {
    const int n = cpuThreadCount();
    return "CPU, " + std::to_string(n) + (n == 1 ? " thread" : " threads");
}

std::string backendStatusText() {
    const CudaDeviceInfo& dev = cudaDevice();
    if (dev.usable) return "CUDA: " + dev.name;
    return cpuDeviceName() + " \u2014 no CUDA device";
}

std::string deviceNameFor(Backend resolved) {
    switch (resolved) {
    case Backend::Cuda: return cudaDevice().name;
    case Backend::Reference: return "CPU, 1 thread";
    default: return cpuDeviceName();
    }
}

} // namespace glint
