// Backend selection (auto|cuda|cpu|reference) and the per-algorithm registry of implementations.
// core registers the reference and CPU backends; the cuda library registers its own and the device probe
// (see cuda/Backends.h: initBackends()), so core never depends on CUDA.
#pragma once

#include "util/Errors.h"

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

namespace glint {

enum class Backend { Auto, Cuda, Cpu, Reference };

// "auto", "cuda", "cpu", "reference". parseBackend throws UsageError for anything else.
Backend parseBackend(std::string_view name);
const char* backendName(Backend backend);

struct CudaDeviceInfo {
    bool compiled = false;     // the CUDA backends were built into this program
    bool usable = false;       // a device answered and can run our kernels
    std::string name;          // "NVIDIA H100 80GB HBM3"
    int computeMajor = 0;
    int computeMinor = 0;
    int multiprocessors = 0;
    int clockKHz = 0;          // peak SM clock, for the bench's computed floors
    std::size_t totalMemory = 0;
    std::string reason;        // why not usable, in words
};

// Installed by the cuda library; without it the device is "not compiled".
void setCudaProbe(std::function<CudaDeviceInfo()> probe);
// The probe's answer, computed once and cached. Never throws, even without a driver.
const CudaDeviceInfo& cudaDevice();

// Worker threads the CPU backends use (hardware concurrency, at least 1; GLINT_THREADS overrides).
int cpuThreadCount();
// "CPU, 2 threads" — the device string of the CPU backends.
std::string cpuDeviceName();
// Status-bar text: "CUDA: NVIDIA H100 80GB HBM3" or "CPU, 2 threads — no CUDA device".
std::string backendStatusText();
// The device string of a resolved backend: the GPU name, or cpuDeviceName(), or "CPU, 1 thread".
std::string deviceNameFor(Backend resolved);

// One registry per algorithm interface. Factories are added at start-up by initBackends().
template <class Algorithm>
class BackendRegistry {
public:
    using Factory = std::function<std::unique_ptr<Algorithm>()>;

    static void add(Backend backend, Factory factory) { table()[backend] = std::move(factory); }
    static bool has(Backend backend) { return table().count(backend) != 0; }

    // auto → cuda when registered and a device is usable, else cpu. Throws BackendUnavailable when the
    // requested backend is not registered or (cuda) no device is usable.
    static Backend resolve(Backend requested) {
        if (requested == Backend::Auto) {
            if (has(Backend::Cuda) && cudaDevice().usable) return Backend::Cuda;
            return has(Backend::Cpu) ? Backend::Cpu : Backend::Reference;
        }
        if (requested == Backend::Cuda) {
            if (!has(Backend::Cuda))
                throw BackendUnavailable(cudaDevice().compiled ? "this algorithm has no CUDA backend"
                                                               : "this build of Glint has no CUDA backends");
            if (!cudaDevice().usable) throw BackendUnavailable("no usable CUDA device: " + cudaDevice().reason);
        }
        if (!has(requested))
            throw BackendUnavailable(std::string("backend '") + backendName(requested) + "' is not available");
        return requested;
    }
    static std::unique_ptr<Algorithm> create(Backend requested) { return table().at(resolve(requested))(); }

private:
    static std::map<Backend, Factory>& table() {
        static std::map<Backend, Factory> t;
        return t;
    }
};

// Registers the reference and CPU backends of every algorithm (core/jobs/Backend.cpp). Called by
// initBackends(); idempotent.
void registerCpuBackends();

} // namespace glint
