// Backend selection (auto|cuda|cpu|reference) and the per-algorithm registry of implementations.
// core registers the reference and CPU backends (core/algo/RegisterAlgorithms.h: registerCpuBackends());
// the cuda library registers its own and the device probe (see cuda/Backends.h: initBackends()), so core
// never depends on CUDA, and jobs/ on no algorithm.
#pragma once

#include "core/util/Errors.h"

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
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
    int deviceCount = 0;       // devices the runtime sees (the fields above are device 0's)
    std::string reason;        // why not usable, in words
};

// Installed by the cuda library; without it the device is "not compiled".
void setCudaProbe(std::function<CudaDeviceInfo()> probe);
// The probe's answer, computed once and cached. Never throws, even without a driver. Waits for the
// background probe when one was started.
const CudaDeviceInfo& cudaDevice();

// Starts the probe (driver, context, kernel modules: ~0.2-0.3 s on an H100 host) on a background thread,
// so that it runs while the image loads instead of inside the first algorithm call. Programs call it
// once at start; idempotent, and a no-op after the probe has run. Never throws.
void startCudaProbeInBackground();
// Whether the probe has finished (never waits).
bool cudaProbeFinished();
// Whether the probe is running now on the background thread (a program that ends should not wait for
// it: see app/cli/main.cpp).
bool cudaProbeInFlight();
// How long the probe took, ms (0 before it finished).
double cudaProbeMs();

// What `auto` weighs (see resolveAuto): the CPU backend's expected time for the work at hand, in ms,
// from the measured rates in core/algo/*/NOTES.md; negative when unknown (auto then takes the GPU when
// there is one, as before).
// The crossovers, measured on an H100 host (core/jobs/NOTES.md):
//  * device still coming up (the CLI: nothing touches the driver until auto asks): the set-up costs
//    0.24-0.26 s, so the GPU pays only when the CPU would take longer: above kAutoColdCpuMs;
//  * device ready (the window, which probes at start; batch after its first GPU file): the GPU was
//    faster end to end down to 128^2 (brightest u8 0.74 vs 1.22 ms, f32 1.05 vs 1.40 ms), so only the
//    tiniest work stays on the CPU: below kAutoWarmCpuMs.
inline constexpr double kAutoColdCpuMs = 300.0;
inline constexpr double kAutoWarmCpuMs = 0.25;
// auto's choice between cuda (registered, usable) and cpu for work the CPU would finish in cpuMs.
// Waits for the probe only when the GPU might be chosen.
bool autoPrefersCuda(bool cudaRegistered, double cpuMs);

// Worker threads of the CPU backends: the CPU affinity capped by the cgroup's quota (GLINT_THREADS wins), or
// fewer on a thread that runs under a ScopedCpuThreads.
int cpuThreadCount();
// The process's CPU threads, whatever ScopedCpuThreads says.
int allCpuThreads();
// Caps cpuThreadCount() on the calling thread while it lives (batch runs one file per worker thread, each
// with its share of the cores). limit <= 0 leaves it as it was.
class ScopedCpuThreads {
public:
    explicit ScopedCpuThreads(int limit);
    ~ScopedCpuThreads();
    ScopedCpuThreads(const ScopedCpuThreads&) = delete;
    ScopedCpuThreads& operator=(const ScopedCpuThreads&) = delete;

private:
    int previous_;
};

// Makes `device` (0 .. deviceCount - 1) the CUDA device of the calling thread: its runs use that GPU and
// its own workspaces. Installed by the cuda library; throws BackendUnavailable without CUDA or for an
// index the runtime does not have.
void setCudaDeviceSelector(std::function<void(int)> select);
void selectCudaDevice(int device);
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

    // `fallback`: the backend that runs the work this one declines (BackendDeclined: memory, a search it has no
    // kernel for); the one place a backend's fallback is decided (runJob follows it).
    static void add(Backend backend, Factory factory, std::optional<Backend> fallback = std::nullopt) {
        table()[backend] = std::move(factory);
        if (fallback) fallbacks()[backend] = *fallback;
    }
    static bool has(Backend backend) { return table().count(backend) != 0; }
    static std::optional<Backend> fallback(Backend backend) {
        const auto it = fallbacks().find(backend);
        if (it == fallbacks().end() || !has(it->second)) return std::nullopt;
        return it->second;
    }

    // auto → cuda when registered and a device is usable, else cpu. Throws BackendUnavailable when the
    // requested backend is not registered or (cuda) no device is usable.
    // cpuMs: the CPU backend's expected time for this work (negative: unknown), for auto's choice.
    static Backend resolve(Backend requested, double cpuMs = -1.0) {
        if (requested == Backend::Auto) {
            if (autoPrefersCuda(has(Backend::Cuda), cpuMs)) return Backend::Cuda;
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
    static std::map<Backend, Backend>& fallbacks() {
        static std::map<Backend, Backend> f;
        return f;
    }
};

// resolve() for a job: records the device's set-up in the job's timing when the GPU is chosen
// (Timing::setDeviceInit), apart from the algorithm's total.
template <class Algorithm, class Job>
Backend resolveForJob(Backend requested, Job& job, double cpuMs = -1.0) {
    const auto start = std::chrono::steady_clock::now();
    const Backend resolved = BackendRegistry<Algorithm>::resolve(requested, cpuMs);
    if (resolved == Backend::Cuda)
        job.timing().setDeviceInit(cudaProbeMs(),
                                   std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    return resolved;
}

} // namespace glint
