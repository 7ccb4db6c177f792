// The out-of-line parts of cuda/CudaToolkit.cuh: the event timer, the workspaces and the budget.
#include "cuda/CudaToolkit.cuh"

#include "core/util/Errors.h"

#include <condition_variable>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>

namespace glint::cuda {

// ---- EventTimer ---------------------------------------------------------------------------------------

namespace {

// The thread's page-locked area for Readback (freed at the thread's end, the main thread's before the CUDA
// runtime's exit handlers run).
struct ReadbackArea {
    PinnedBuffer<unsigned char> buffer;
    bool inUse = false;
};
thread_local ReadbackArea readbackArea;

} // namespace

Readback::Readback(std::size_t bytes) {
    if (readbackArea.inUse) throw std::logic_error("Readback: a second one on the same thread");
    // At least 128 KiB from the first use: the search's prefix rows of images up to ~5000 columns fit, so the
    // area is not made again (cudaFreeHost and cudaMallocHost cost milliseconds).
    readbackArea.buffer.ensure(std::max<std::size_t>(bytes, std::size_t{128} << 10));
    readbackArea.inUse = true;
    area_ = readbackArea.buffer.get();
    capacity_ = bytes;
}

Readback::~Readback() {
    if (pending_) cudaStreamSynchronize(cudaStreamPerThread); // unchecked, as in any destructor
    readbackArea.inUse = false;
}

const void* Readback::fetchBytes(const void* device, std::size_t bytes) {
    const std::size_t at = used_;
    if (at + rounded(bytes) > capacity_) throw std::logic_error("Readback: more read than its room");
    used_ += rounded(bytes);
    if (bytes > 0) {
        GLINT_CUDA_CHECK(cudaMemcpyAsync(area_ + at, device, bytes, cudaMemcpyDeviceToHost, cudaStreamPerThread));
        pending_ = true;
    }
    return area_ + at;
}

void Readback::wait() {
    if (!pending_) return;
    pending_ = false;
    GLINT_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
}

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
    std::condition_variable leaseReturned; // a lease ended, or a run began to wait for memory
    std::vector<Workspace*> workspaces;
    std::map<std::pair<std::string, int>, WorkspacePool*> pools; // by name and device
    // Threads that wait (for a pool's workspace, or for memory): a run waiting for memory waits only while
    // a thread that holds a lease on its device is not itself waiting, so waits never form a cycle.
    std::map<std::thread::id, int> stalled;
};

// Marks the calling thread as waiting while it lives (under the budget's mutex); waking the others once,
// so that a run waiting for memory counts the runs that still go on again.
class Stall {
public:
    explicit Stall(Budget& b) : b_(b), me_(std::this_thread::get_id()) {
        ++b_.stalled[me_];
        b_.leaseReturned.notify_all();
    }
    ~Stall() {
        if (--b_.stalled[me_] == 0) b_.stalled.erase(me_);
    }
    Stall(const Stall&) = delete;
    Stall& operator=(const Stall&) = delete;

private:
    Budget& b_;
    std::thread::id me_;
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

Workspace& MemoryBudget::acquire(WorkspacePool& pool) {
    Budget& b = budget();
    std::unique_lock lock(b.mutex);
    std::optional<Stall> stall;
    for (;;) {
        Workspace* free = nullptr;
        for (Workspace* w : pool.members_)
            if (!w->leased_.load()) {
                free = w;
                break;
            }
        if (!free && pool.members_.size() < static_cast<std::size_t>(Workspace::kPoolSize)) {
            // A workspace holds nothing until its run asks for buffers: a new one costs no device memory.
            const std::string name = pool.members_.empty() ? pool.name_ : pool.name_ + " #" + std::to_string(pool.members_.size() + 1);
            free = new Workspace(name, pool.minBytes_, true, pool.device_);
            b.workspaces.push_back(free);
            pool.members_.push_back(free);
        }
        if (free) {
            free->leased_ = true;
            free->owner_ = std::this_thread::get_id();
            return *free;
        }
        if (!stall) stall.emplace(b);
        b.leaseReturned.wait(lock);
    }
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

std::size_t MemoryBudget::freeIdleLocked(int device, const Workspace* keep) {
    std::size_t freed = 0;
    for (Workspace* w : budget().workspaces)
        if (w != keep && w->shared_ && w->device_ == device && !w->leased_.load()) freed += w->freeAll();
    return freed;
}

std::size_t MemoryBudget::releaseIdle(int device, const Workspace* keep) {
    Budget& b = budget();
    std::lock_guard lock(b.mutex); // no lease can be taken while the buffers are freed
    return freeIdleLocked(device, keep);
}

std::size_t MemoryBudget::waitForRoom(Workspace& w, std::size_t need, bool& othersHold) {
    Budget& b = budget();
    std::unique_lock lock(b.mutex);
    const Stall stall(b);
    const std::thread::id me = std::this_thread::get_id();
    for (;;) {
        freeIdleLocked(w.device_, &w);
        const std::size_t have = w.available();
        // The other threads holding a lease on this device (their buffers are what is missing), and those of
        // them that go on (not waiting): only they can give memory back.
        bool running = false;
        othersHold = false;
        for (const Workspace* o : b.workspaces)
            if (o->shared_ && o->device_ == w.device_ && o->leased_.load() && o->owner_ != me) {
                othersHold = true;
                running = running || !b.stalled.contains(o->owner_);
            }
        if (have >= need || !running) return have;
        b.leaseReturned.wait(lock);
    }
}

// ---- Workspace ----------------------------------------------------------------------------------------

WorkspacePool& Workspace::shared(const std::string& name, std::size_t minBytes) {
    // One pool per device: a thread that selected another device (batch --devices) gets that device's buffers.
    int device = 0;
    GLINT_CUDA_CHECK(cudaGetDevice(&device));
    Budget& b = budget();
    std::lock_guard lock(b.mutex);
    WorkspacePool*& p = b.pools[{name, device}];
    if (!p) p = new WorkspacePool(device == 0 ? name : name + " (device " + std::to_string(device) + ")", minBytes, device);
    return *p;
}

// A shared workspace is registered by the budget when it makes it, under its mutex.
Workspace::Workspace(std::string name, std::size_t minBytes, bool shared, int device)
    : name_(std::move(name)), minBytes_(minBytes), shared_(shared), device_(device) {
    if (device_ < 0 && cudaGetDevice(&device_) != cudaSuccess) {
        cudaGetLastError();
        device_ = 0;
    }
    if (!shared_) MemoryBudget::add(this);
}

Workspace::~Workspace() {
    MemoryBudget::remove(this);
    freeAll();
}

Workspace::Lease::Lease(WorkspacePool& pool) : ws_(MemoryBudget::acquire(pool)) {}

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

void Workspace::require(std::size_t need, const std::string& what) {
    std::size_t have = available();
    if (need > have && MemoryBudget::releaseIdle(device_, this) > 0) have = available();
    bool othersHold = false;
    if (need > have && shared_) have = MemoryBudget::waitForRoom(*this, need, othersHold);
    if (need > have && othersHold)
        throw BackendDeclined(what + " needs " + std::to_string(need >> 20) + " MiB of GPU memory while other runs hold " +
                              "the device");
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
