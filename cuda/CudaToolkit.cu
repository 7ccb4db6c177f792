// The out-of-line parts of cuda/CudaToolkit.cuh: the event timer, the workspaces and the budget.
#include "cuda/CudaToolkit.cuh"

#include "core/util/Errors.h"

#include <condition_variable>
#include <mutex>
#include <stdexcept>

namespace glint::cuda {

// ---- EventTimer ---------------------------------------------------------------------------------------

EventTimer::EventTimer(cudaStream_t stream, int events) : stream_(stream) {
    try {
        for (int i = 0; i < events; ++i) {
            cudaEvent_t e = nullptr;
            GLINT_CUDA_CHECK(cudaEventCreate(&e));
            events_.push_back(e);
        }
    } catch (...) {
        for (cudaEvent_t e : events_) cudaEventDestroy(e);
        throw;
    }
    steps_.resize(events_.size());
}

EventTimer::EventTimer(EventTimer&& other) noexcept
    : stream_(other.stream_), events_(std::move(other.events_)), steps_(std::move(other.steps_)),
      marks_(std::exchange(other.marks_, 0)), reported_(std::exchange(other.reported_, 0)) {
    other.events_.clear();
    other.steps_.clear();
}

EventTimer::~EventTimer() {
    for (cudaEvent_t e : events_) cudaEventDestroy(e);
}

void EventTimer::record(std::size_t index) {
    if (index == events_.size()) {
        cudaEvent_t e = nullptr;
        GLINT_CUDA_CHECK(cudaEventCreate(&e));
        events_.push_back(e);
        steps_.emplace_back();
    }
    GLINT_CUDA_CHECK(cudaEventRecord(events_[index], stream_));
}

void EventTimer::begin() {
    marks_ = 0;
    reported_ = 0;
    record(0);
    marks_ = 1;
}

void EventTimer::mark(const std::string& step) {
    if (marks_ == 0) throw std::logic_error("EventTimer: mark() before begin()");
    record(marks_);
    steps_[marks_] = step;
    ++marks_;
}

bool EventTimer::reached() const {
    if (marks_ == 0) throw std::logic_error("EventTimer: reached() before begin()");
    const cudaError_t e = cudaEventQuery(events_[marks_ - 1]);
    if (e == cudaErrorNotReady) return false;
    GLINT_CUDA_CHECK(e);
    return true;
}

float EventTimer::report(JobControl& job) {
    if (marks_ == 0) throw std::logic_error("EventTimer: report() before begin()");
    GLINT_CUDA_CHECK(cudaEventSynchronize(events_[marks_ - 1]));
    float sum = 0.0f;
    for (std::size_t i = std::max<std::size_t>(reported_, 1); i < marks_; ++i) {
        float ms = 0.0f;
        GLINT_CUDA_CHECK(cudaEventElapsedTime(&ms, events_[i - 1], events_[i]));
        job.timing().add(steps_[i], ms);
        sum += ms;
    }
    reported_ = marks_;
    return sum;
}

// ---- allocation ---------------------------------------------------------------------------------------

void* allocateDevice(std::size_t bytes) {
    void* p = nullptr;
    const cudaError_t first = cudaMalloc(&p, bytes);
    if (first == cudaSuccess) return p;
    cudaGetLastError();
    int device = 0;
    if (first != cudaErrorMemoryAllocation || cudaGetDevice(&device) != cudaSuccess ||
        MemoryBudget::releaseIdle(device) == 0)
        throwCudaError(static_cast<int>(first), "cudaMalloc(&p, bytes)", __FILE__, __LINE__);
    GLINT_CUDA_CHECK(cudaMalloc(&p, bytes));
    return p;
}

// ---- the budget ---------------------------------------------------------------------------------------

namespace {

struct Budget {
    std::mutex mutex;
    std::condition_variable leaseReturned;
    std::vector<Workspace*> workspaces;
    std::map<std::string, Workspace*> shared;
};

Budget& budget() {
    static Budget* b = new Budget; // never destroyed: the shared workspaces in it live as long as the process
    return *b;
}

} // namespace

void MemoryBudget::add(Workspace* w) {
    Budget& b = budget();
    std::lock_guard lock(b.mutex);
    b.workspaces.push_back(w);
}

void MemoryBudget::remove(Workspace* w) {
    Budget& b = budget();
    std::lock_guard lock(b.mutex);
    b.workspaces.erase(std::remove(b.workspaces.begin(), b.workspaces.end(), w), b.workspaces.end());
}

void MemoryBudget::acquire(Workspace& w) {
    Budget& b = budget();
    std::unique_lock lock(b.mutex);
    b.leaseReturned.wait(lock, [&] { return !w.leased_.load(); });
    w.leased_ = true;
}

void MemoryBudget::release(Workspace& w) {
    Budget& b = budget();
    {
        std::lock_guard lock(b.mutex);
        w.leased_ = false;
    }
    b.leaseReturned.notify_all();
}

std::size_t MemoryBudget::held() {
    Budget& b = budget();
    std::lock_guard lock(b.mutex);
    std::size_t n = 0;
    for (const Workspace* w : b.workspaces) n += w->held();
    return n;
}

std::size_t MemoryBudget::releaseIdle(int device, const Workspace* keep) {
    Budget& b = budget();
    std::lock_guard lock(b.mutex); // no lease can be taken while the buffers are freed
    std::size_t freed = 0;
    for (Workspace* w : b.workspaces)
        if (w != keep && w->shared_ && w->device_ == device && !w->leased_.load()) freed += w->freeAll();
    return freed;
}

// ---- Workspace ----------------------------------------------------------------------------------------

Workspace& Workspace::shared(const std::string& name, std::size_t minBytes) {
    // One per device: a thread that selected another device (batch --devices) gets that device's buffers.
    int device = 0;
    GLINT_CUDA_CHECK(cudaGetDevice(&device));
    Budget& b = budget();
    std::lock_guard lock(b.mutex);
    Workspace*& w = b.shared[device == 0 ? name : name + " (device " + std::to_string(device) + ")"];
    if (!w) {
        w = new Workspace(name, minBytes, true);
        b.workspaces.push_back(w);
    }
    return *w;
}

// A shared workspace is registered by shared(), under the budget's mutex.
Workspace::Workspace(std::string name, std::size_t minBytes, bool shared)
    : name_(std::move(name)), minBytes_(minBytes), shared_(shared) {
    if (cudaGetDevice(&device_) != cudaSuccess) {
        cudaGetLastError();
        device_ = 0;
    }
    if (!shared_) MemoryBudget::add(this);
}

Workspace::~Workspace() {
    MemoryBudget::remove(this);
    freeAll();
}

Workspace::Lease::Lease(Workspace& workspace) : ws_(workspace) { MemoryBudget::acquire(ws_); }

Workspace::Lease::~Lease() { MemoryBudget::release(ws_); }

void Workspace::checkUse() const {
    if (shared_ && !leased_.load())
        throw std::logic_error("the CUDA workspace \"" + name_ + "\" is used without a lease");
}

void* Workspace::get(const std::string& name, std::size_t bytes) {
    checkUse();
    Slot& s = slots_[name];
    if (s.bytes < bytes) {
        if (s.ptr) {
            void* old = std::exchange(s.ptr, nullptr);
            held_ -= s.bytes;
            s.bytes = 0;
            GLINT_CUDA_CHECK(cudaFree(old));
        }
        const std::size_t size = std::max(bytes, minBytes_);
        s.ptr = allocateDevice(size);
        s.bytes = size;
        held_ += size;
    }
    return s.ptr;
}

std::size_t Workspace::available() const {
    std::size_t freeBytes = 0, total = 0;
    GLINT_CUDA_CHECK(cudaMemGetInfo(&freeBytes, &total));
    return freeBytes + held();
}

void Workspace::require(std::size_t need, const std::string& what) const {
    std::size_t have = available();
    if (need > have && MemoryBudget::releaseIdle(device_, this) > 0) have = available();
    if (need > have)
        throw BackendUnavailable(what + " needs " + std::to_string(need >> 20) + " MiB of GPU memory, " +
                                 std::to_string(have >> 20) + " MiB are free; use --backend cpu");
}

std::size_t Workspace::freeAll() noexcept {
    std::size_t freed = 0;
    for (auto& [name, s] : slots_)
        if (s.ptr) {
            cudaFree(s.ptr); // unchecked: a destructor's, or the budget's on another algorithm's behalf
            freed += s.bytes;
        }
    slots_.clear();
    held_ = 0;
    return freed;
}

} // namespace glint::cuda
