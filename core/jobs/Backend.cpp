#include "core/jobs/Backend.h"

#include "core/util/ResourceLimits.h"

#include "core/util/EnumNames.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <system_error>
#include <thread>

namespace glint {

namespace {
constexpr EnumName<Backend> kBackendNames[] = {
    {Backend::Auto, "auto"}, {Backend::Cuda, "cuda"}, {Backend::Cpu, "cpu"}, {Backend::Reference, "reference"}};
} // namespace

Backend parseBackend(std::string_view name) { return parseEnumName(kBackendNames, name, "backend"); }
const char* backendName(Backend backend) { return enumName(kBackendNames, backend); }

namespace {
std::function<CudaDeviceInfo()>& probeFunction() {
    static std::function<CudaDeviceInfo()> probe;
    return probe;
}
std::mutex& probeMutex() {
    static std::mutex m;
    return m;
}
std::condition_variable& probeDone() {
    static std::condition_variable c;
    return c;
}
enum class ProbeState { NotStarted, Running, Done };
ProbeState probeState = ProbeState::NotStarted; // guarded by probeMutex
std::atomic<bool> probeFinishedFlag{false};
std::atomic<double> probeMs{0.0};
CudaDeviceInfo& probeInfo() {
    static CudaDeviceInfo info;
    return info;
}

// Runs the probe outside the lock and publishes its answer.
void runProbe(std::function<CudaDeviceInfo()> probe) {
    const auto start = std::chrono::steady_clock::now();
    CudaDeviceInfo info;
    if (probe) {
        try {
            info = probe();
        } catch (...) {
            info = {};
            info.compiled = true;
            info.reason = "the CUDA device probe failed";
        }
    } else {
        info.reason = "this build of Glint has no CUDA backends";
    }
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    {
        std::lock_guard lock(probeMutex());
        probeInfo() = std::move(info);
        probeState = ProbeState::Done;
        probeMs.store(ms);
        probeFinishedFlag.store(true);
    }
    probeDone().notify_all();
}
} // namespace

void setCudaProbe(std::function<CudaDeviceInfo()> probe) {
    std::lock_guard lock(probeMutex());
    probeFunction() = std::move(probe);
}

void startCudaProbeInBackground() {
    std::function<CudaDeviceInfo()> probe;
    {
        std::lock_guard lock(probeMutex());
        if (probeState != ProbeState::NotStarted) return;
        probeState = ProbeState::Running;
        probe = probeFunction();
    }
    // Load every kernel module with the context, on the probe's thread, rather than lazily at each
    // kernel's first launch inside a timed run. Set here, before the thread starts (setenv is not safe
    // beside other threads' getenv); the user's own setting wins.
    setenv("CUDA_MODULE_LOADING", "EAGER", 0);
    try {
        std::thread(runProbe, std::move(probe)).detach();
    } catch (const std::system_error&) {
        runProbe(probeFunction()); // no thread to be had: probe here
    }
}

const CudaDeviceInfo& cudaDevice() {
    std::unique_lock lock(probeMutex());
    if (probeState == ProbeState::NotStarted) {
        probeState = ProbeState::Running;
        auto probe = probeFunction();
        lock.unlock();
        runProbe(std::move(probe));
        lock.lock();
    }
    probeDone().wait(lock, [] { return probeState == ProbeState::Done; });
    return probeInfo();
}

bool cudaProbeFinished() { return probeFinishedFlag.load(); }

bool cudaProbeInFlight() {
    std::lock_guard lock(probeMutex());
    return probeState == ProbeState::Running;
}

double cudaProbeMs() { return probeMs.load(); }

bool autoPrefersCuda(bool cudaRegistered, double cpuMs) {
    if (!cudaRegistered) return false;
    if (cpuMs >= 0.0) {
        if (!cudaProbeFinished()) {
            if (cpuMs < kAutoColdCpuMs) return false; // done on the CPU before the device would be up
        } else if (cpuMs < kAutoWarmCpuMs) {
            return false;
        }
    }
    return cudaDevice().usable;
}

namespace {
thread_local int threadCap = 0; // ScopedCpuThreads' limit on this thread (0: none)
std::function<void(int)>& deviceSelector() {
    static std::function<void(int)> select;
    return select;
}
} // namespace

ScopedCpuThreads::ScopedCpuThreads(int limit) : previous_(threadCap) {
    if (limit > 0) threadCap = limit;
}

ScopedCpuThreads::~ScopedCpuThreads() { threadCap = previous_; }

void setCudaDeviceSelector(std::function<void(int)> select) { deviceSelector() = std::move(select); }

void selectCudaDevice(int device) {
    const CudaDeviceInfo& info = cudaDevice();
    if (!info.usable || !deviceSelector()) throw BackendUnavailable("no usable CUDA device: " + info.reason);
    if (device < 0 || device >= info.deviceCount)
        throw BackendUnavailable("no CUDA device " + std::to_string(device) + " (this host has " +
                                 std::to_string(info.deviceCount) + ")");
    deviceSelector()(device);
}

int cpuThreadCount() {
    const int all = allCpuThreads();
    return threadCap > 0 ? std::min(threadCap, all) : all;
}

int allCpuThreads() {
    static const int count = [] {
        if (const char* env = std::getenv("GLINT_THREADS")) {
            const int n = std::atoi(env);
            if (n > 0) return n;
        }
        // The CPUs this process may run on (affinity) and the cgroup's CPU quota, not all the machine's.
        return processCpuCount();
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
