// The CUDA building blocks every backend in cuda/ uses: owning device and pinned buffers, a stream, an
// event timer that records named timing steps into JobControl's timing, and workspaces (named device
// buffers kept from run to run) whose memory is counted in one process-wide budget, so that an
// algorithm short of memory can have the budget free what the others keep idle before it gives up.
// Every call is checked with GLINT_CUDA_CHECK (cuda/CudaDevice.h); destructors free without checking.
#pragma once

#include "cuda/CudaDevice.h"

#include "core/jobs/JobControl.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <typeindex>
#include <typeinfo>
#include <utility>
#include <vector>

namespace glint::cuda {

// ---- owning buffers ----------------------------------------------------------------------------------

// cudaMalloc of bytes (> 0). When the device is out of memory, the budget first frees the buffers of the
// shared workspaces that no run holds, and one more try then reports any failure as GLINT_CUDA_CHECK does.
void* allocateDevice(std::size_t bytes);

// count elements of T in device memory (Pinned false) or page-locked host memory (Pinned true); move-only,
// freed by its destructor. ensure() only grows, and does not keep the contents when it does.
template <class T, bool Pinned>
class OwningBuffer {
public:
    OwningBuffer() = default;
    explicit OwningBuffer(std::size_t count) { ensure(count); }
    OwningBuffer(OwningBuffer&& other) noexcept
        : p_(std::exchange(other.p_, nullptr)), count_(std::exchange(other.count_, 0)) {}
    OwningBuffer& operator=(OwningBuffer&& other) noexcept {
        if (this != &other) {
            reset();
            p_ = std::exchange(other.p_, nullptr);
            count_ = std::exchange(other.count_, 0);
        }
        return *this;
    }
    OwningBuffer(const OwningBuffer&) = delete;
    OwningBuffer& operator=(const OwningBuffer&) = delete;
    ~OwningBuffer() { reset(); }

    // Room for at least count elements (nothing to do when it has them already).
    void ensure(std::size_t count) {
        if (count <= count_) return;
        reset();
        void* raw = nullptr;
        const std::size_t bytes = std::max<std::size_t>(1, count) * sizeof(T);
        if constexpr (Pinned) GLINT_CUDA_CHECK(cudaMallocHost(&raw, bytes));
        else raw = allocateDevice(bytes);
        p_ = static_cast<T*>(raw);
        count_ = count;
    }
    // Frees the memory now (unchecked, as in a destructor).
    void reset() noexcept {
        if (p_) {
            if constexpr (Pinned) cudaFreeHost(p_);
            else cudaFree(p_);
        }
        p_ = nullptr;
        count_ = 0;
    }

    T* get() const noexcept { return p_; }
    std::size_t size() const noexcept { return count_; }
    std::size_t bytes() const noexcept { return count_ * sizeof(T); }
    // The memory at byteOffset, as U (tables packed into one buffer).
    template <class U>
    U* as(std::size_t byteOffset = 0) const noexcept {
        return reinterpret_cast<U*>(reinterpret_cast<char*>(p_) + byteOffset);
    }

private:
    T* p_ = nullptr;
    std::size_t count_ = 0;
};

template <class T>
using DeviceBuffer = OwningBuffer<T, false>;
template <class T>
using PinnedBuffer = OwningBuffer<T, true>;

// ---- stream ------------------------------------------------------------------------------------------

// An owning non-blocking stream (it does not wait for the legacy default stream); move-only.
class Stream {
public:
    Stream() { GLINT_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
    Stream(Stream&& other) noexcept : s_(std::exchange(other.s_, nullptr)) {}
    Stream& operator=(Stream&& other) noexcept {
        if (this != &other) {
            if (s_) cudaStreamDestroy(s_);
            s_ = std::exchange(other.s_, nullptr);
        }
        return *this;
    }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    ~Stream() {
        if (s_) cudaStreamDestroy(s_);
    }

    cudaStream_t get() const noexcept { return s_; }
    operator cudaStream_t() const noexcept { return s_; }
    void synchronize() const { GLINT_CUDA_CHECK(cudaStreamSynchronize(s_)); }

private:
    cudaStream_t s_ = nullptr;
};

// ---- small reads back --------------------------------------------------------------------------------

// Small device-to-host reads on the calling thread's stream, into page-locked memory of that thread. A cudaMemcpy
// into pageable memory is staged by the driver and serialised with every other thread's copies (a batch's workers
// each read tens of scalars and rows a frame, the search's dependent steps); into page-locked memory it is one DMA
// on the thread's own stream. fetch() queues a copy and returns where it lands; wait() synchronises the stream once
// for every read queued since. One Readback at a time on a thread (the area is the thread's; a second throws).
class Readback {
public:
    // Room for reads of `bytes` in all (each rounded up to 16 bytes: give the sum of the rounded sizes).
    explicit Readback(std::size_t bytes);
    Readback(const Readback&) = delete;
    Readback& operator=(const Readback&) = delete;
    ~Readback(); // waits, unchecked, for reads still queued (an exception between fetch and wait)

    template <class T>
    const T* fetch(const T* device, std::size_t count = 1) {
        return static_cast<const T*>(fetchBytes(device, count * sizeof(T)));
    }
    void wait();

    static constexpr std::size_t rounded(std::size_t bytes) { return (bytes + 15) & ~std::size_t{15}; }

private:
    const void* fetchBytes(const void* device, std::size_t bytes);
    unsigned char* area_ = nullptr;
    std::size_t capacity_ = 0, used_ = 0;
    bool pending_ = false;
};

// One value read back (Readback).
template <class T>
T readBack(const T* device) {
    Readback r(Readback::rounded(sizeof(T)));
    const T* p = r.fetch(device);
    r.wait();
    return *p;
}

// ---- event timer -------------------------------------------------------------------------------------

// Named timing steps measured by CUDA events on one stream (the calling thread's default stream unless given).
// begin() marks the start; mark(step) ends the step `step` at that point of the stream (it began at the
// previous mark); report(job) waits for the last mark and adds each step's milliseconds to
// job.timing() (steps of one name add up). The events are created up front (`events` of them) or at the
// first mark that needs one, and kept: the next begin() measures again with the same events. Move-only.
class EventTimer {
public:
    explicit EventTimer(cudaStream_t stream = nullptr, int events = 2);
    EventTimer(EventTimer&& other) noexcept;
    EventTimer& operator=(EventTimer&&) = delete;
    EventTimer(const EventTimer&) = delete;
    EventTimer& operator=(const EventTimer&) = delete;
    ~EventTimer();

    void begin();
    void mark(const std::string& step);
    // Whether the work before the last mark has completed (polls; throws on a CUDA error).
    bool reached() const;
    // Waits for the last mark, adds the steps marked since begin() to job.timing() and returns the sum
    // of their milliseconds; the steps are then reported (a second report() adds nothing).
    float report(JobControl& job);
    // mark(step), then report(job): one step from begin() to here.
    float stop(JobControl& job, const std::string& step) {
        mark(step);
        return report(job);
    }

private:
    void record(std::size_t index);

    cudaStream_t stream_ = nullptr;
    std::vector<cudaEvent_t> events_;
    std::vector<std::string> steps_; // steps_[i]: the step that ends at events_[i] (i >= 1)
    std::size_t marks_ = 0;          // events recorded since begin()
    std::size_t reported_ = 0;       // marks already reported
};

// ---- workspaces and the memory budget -----------------------------------------------------------------

class MemoryBudget;

// Named device buffers kept from run to run (cudaMalloc and cudaFree cost more than a small search):
// get(name, bytes) returns the buffer of that name, grown when it is too small (the contents are not kept
// then). Every workspace is counted in the process-wide MemoryBudget.
//  - Workspace::shared(name): a pool of workspaces per algorithm and device (the calling thread's current
//    one) for the whole process; a Lease takes one that no other run holds, for one run. A pool grows to
//    kPoolSize workspaces, so that as many runs (batch's workers) share the device at once, each on its own
//    stream: glint_cuda is compiled with the per-thread default stream, so every launch and copy a thread
//    makes without naming a stream goes to that thread's stream, and one run's copies and host round trips
//    overlap another's kernels. While no lease holds a workspace, the budget may free its buffers for
//    another run (they are allocated again on next use). Never destroyed: freeing CUDA memory from a static
//    destructor can run after the CUDA runtime has shut down; the driver reclaims it at exit.
//  - Workspace(name): owned by one object (a solver) and freed with it; the budget never frees its
//    buffers (the owner may hold their addresses, e.g. in a CUDA graph).
class WorkspacePool;

class Workspace {
public:
    // Runs of one algorithm that may hold a device at once (each with its own workspace and stream). A run
    // spends much of its time in host round trips (a round's decisions), so a device is kept busy only by many
    // runs at once: batch's default is a file in flight per CPU thread (16 on the H100 hosts), and with 4 the
    // H100 stayed at 200-280 frames/s, 44 % busy, whatever --jobs asked. A workspace costs no device memory
    // until its run asks for buffers, and the budget frees idle ones for a run short of memory.
    static constexpr int kPoolSize = 32;
    static WorkspacePool& shared(const std::string& name, std::size_t minBytes = 0);

    explicit Workspace(std::string name, std::size_t minBytes = 0) : Workspace(std::move(name), minBytes, false, -1) {}
    Workspace(const Workspace&) = delete;
    Workspace& operator=(const Workspace&) = delete;
    ~Workspace();

    // Exclusive use of one of the pool's workspaces for one run: waits while kPoolSize runs hold them.
    class Lease {
    public:
        explicit Lease(WorkspacePool& pool);
        Lease(const Lease&) = delete;
        Lease& operator=(const Lease&) = delete;
        ~Lease();
        Workspace& operator*() const noexcept { return ws_; }
        Workspace* operator->() const noexcept { return &ws_; }

    private:
        Workspace& ws_;
    };

    // The buffer `name` of at least bytes (at least minBytes when allocated); bytes 0 gives the buffer as
    // it is (null when it was never allocated).
    void* get(const std::string& name, std::size_t bytes);
    template <class T>
    T* get(const std::string& name, std::size_t count) {
        return static_cast<T*>(get(name, count * sizeof(T)));
    }
    // Bytes this workspace holds.
    std::size_t held() const noexcept { return held_.load(); }
    // Free device memory (cudaMemGetInfo) plus what this workspace holds: what one run may use.
    std::size_t available() const;
    // The memory check before a run that needs `need` bytes: when available() is short, the budget frees
    // the buffers of the other shared workspaces of this device that no run holds (another device's memory
    // would not help). When it is still short and other runs hold the device, it waits for them to end
    // (a run waits only while a thread that holds a lease on the device is not itself waiting, for memory
    // or for a workspace, so waits never form a cycle).
    // Then, still short: BackendDeclined when other runs' buffers are what is missing (the registry runs
    // the work on its fallback, the CPU), else BackendUnavailable("<what> needs N MiB of GPU memory, M MiB
    // are free; use --backend cpu").
    void require(std::size_t need, const std::string& what);

    // An object X the algorithm keeps with this workspace (its stream, events, flags): constructed on
    // first use, destroyed with the workspace; the budget never touches it.
    template <class X>
    X& keep() {
        checkUse();
        std::unique_ptr<KeptBase>& slot = kept_[std::type_index(typeid(X))];
        if (!slot) slot = std::make_unique<Kept<X>>();
        return static_cast<Kept<X>*>(slot.get())->value;
    }

    const std::string& name() const noexcept { return name_; }
    // The CUDA device that was current when the workspace was made: its buffers live there.
    int device() const noexcept { return device_; }

private:
    friend class MemoryBudget;
    struct Slot {
        void* ptr = nullptr;
        std::size_t bytes = 0;
    };
    struct KeptBase {
        virtual ~KeptBase() = default;
    };
    template <class X>
    struct Kept final : KeptBase {
        X value;
    };

    Workspace(std::string name, std::size_t minBytes, bool shared, int device);
    void checkUse() const;       // a shared workspace is used only under a Lease
    std::size_t freeAll() noexcept; // unchecked; returns the bytes freed

    std::string name_;
    std::size_t minBytes_ = 0;
    bool shared_ = false;
    int device_ = 0;
    std::atomic<bool> leased_{false};     // written under the budget's mutex
    std::thread::id owner_;               // the thread that holds the lease (budget's mutex)
    std::atomic<std::size_t> held_{0};
    std::map<std::string, Slot> slots_;   // the lease holder's, or the budget's while no lease holds it
    std::map<std::type_index, std::unique_ptr<KeptBase>> kept_;
};

// The shared workspaces of one algorithm on one device (Workspace::shared); made and filled by the budget.
class WorkspacePool {
public:
    const std::string& name() const noexcept { return name_; }
    int device() const noexcept { return device_; }

private:
    friend class MemoryBudget;
    friend class Workspace;
    WorkspacePool(std::string name, std::size_t minBytes, int device)
        : name_(std::move(name)), minBytes_(minBytes), device_(device) {}
    std::string name_;
    std::size_t minBytes_ = 0;
    int device_ = 0;
    std::vector<Workspace*> members_; // at most Workspace::kPoolSize; under the budget's mutex
};

// The process-wide account of the workspaces' memory, behind one mutex (which also hands out the leases).
class MemoryBudget {
public:
    // Bytes all workspaces hold.
    static std::size_t held();
    // Frees the buffers of every shared workspace of `device` that no lease holds, except `keep`; returns
    // the bytes.
    static std::size_t releaseIdle(int device, const Workspace* keep = nullptr);

private:
    friend class Workspace;
    static void add(Workspace* w);
    static void remove(Workspace* w);
    static Workspace& acquire(WorkspacePool& pool);
    static void release(Workspace& w);
    // require()'s wait for the memory that other runs on the device hold; returns available() at the end
    // and whether other runs still held the device then.
    static std::size_t waitForRoom(Workspace& w, std::size_t need, bool& othersHold);
    static std::size_t freeIdleLocked(int device, const Workspace* keep); // under the budget's mutex
};

} // namespace glint::cuda
