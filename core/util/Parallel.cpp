// The process's pool of parallelFor threads (Parallel.h): started on first use, parked between calls.
#include "core/util/Parallel.h"

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace glint::detail {

namespace {

thread_local bool onPoolThread = false;

// One job at a time: a parallelFor publishes its chunk loop, the parked threads it asks for run it beside the caller,
// and the caller returns only once every thread that entered the loop has left it (the loop lives on its stack).
class Pool {
public:
    bool run(std::size_t helpers, void (*fn)(void*), void* context) {
        if (onPoolThread || helpers == 0) return false;
        std::unique_lock lock(mutex_);
        if (busy_) return false; // another thread's parallelFor has it: that one starts its own threads
        busy_ = true;
        try {
            while (threads_.size() < helpers) threads_.emplace_back([this] { park(); });
        } catch (...) {
            // Fewer threads than asked: those there take part (none: the caller runs every chunk).
        }
        fn_ = fn;
        context_ = context;
        wanted_ = std::min(helpers, threads_.size());
        ++generation_;
        lock.unlock();
        wake_.notify_all();
        fn(context);
        lock.lock();
        wanted_ = 0; // a thread not yet woken stays parked: every chunk is taken
        done_.wait(lock, [this] { return active_ == 0; });
        fn_ = nullptr;
        context_ = nullptr;
        busy_ = false;
        return true;
    }

private:
    void park() {
        onPoolThread = true;
        std::uint64_t seen = 0;
        std::unique_lock lock(mutex_);
        for (;;) {
            wake_.wait(lock, [&] { return generation_ != seen && wanted_ > 0; });
            seen = generation_;
            --wanted_;
            ++active_;
            void (*fn)(void*) = fn_;
            void* context = context_;
            lock.unlock();
            fn(context);
            lock.lock();
            if (--active_ == 0) done_.notify_all();
        }
    }

    std::mutex mutex_;
    std::condition_variable wake_, done_;
    std::vector<std::thread> threads_; // never joined: the pool lives as long as the process
    void (*fn_)(void*) = nullptr;
    void* context_ = nullptr;
    std::uint64_t generation_ = 0;
    std::size_t wanted_ = 0, active_ = 0;
    bool busy_ = false;
};

} // namespace

bool runOnPool(std::size_t helpers, void (*fn)(void*), void* context) {
    // Made once and never destroyed: its threads stay parked on it until the process ends (a static's destructor
    // would run under them).
    static Pool* pool = new Pool;
    return pool->run(helpers, fn, context);
}

} // namespace glint::detail
