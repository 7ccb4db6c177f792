// parallelFor: splits [begin, end) into chunks handed out dynamically to cpuThreadCount() threads (the process's
// pool's, or threads of its own when another thread's parallelFor holds the pool).
// The calling thread works too. Exceptions from any chunk are rethrown on the caller (first one wins).
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace glint {

int cpuThreadCount();

namespace detail {
// Runs fn(context) on `helpers` threads of the process's pool and on the caller, and returns once every one of them
// has left it (Parallel.cpp; the threads are started on first use and then parked, not started and joined per call:
// 15 threads cost ~0.5 ms a call on a 16-core host). False, with nothing run, when the pool is taken by another
// thread's parallelFor or the caller is one of the pool's threads (a parallelFor inside a chunk).
bool runOnPool(std::size_t helpers, void (*fn)(void*), void* context);
} // namespace detail

// The threads worth starting for one pass of light work over `pixels` pixels (~0.5 ns a pixel on one core):
// a thread costs up to ~30 us to start and join (15 threads: 0.41-0.53 ms on the 16-core H100 host; the pool's parked
// threads cost less to wake, so this is the bound when another parallelFor holds the pool), so k threads
// take about 30 (k - 1) + work / k us, least at k = sqrt(work / 30 us). At most cpuThreadCount().
inline int threadsForPixels(double pixels) {
    const double workUs = pixels * 0.5e-3;
    const double k = std::sqrt(std::max(workUs, 0.0) / 30.0);
    return static_cast<int>(std::clamp(std::floor(k + 0.5), 1.0, static_cast<double>(cpuThreadCount())));
}

// fn(chunkBegin, chunkEnd) is called for consecutive chunks of at most `grain` indices.
template <class Fn>
void parallelFor(std::size_t begin, std::size_t end, std::size_t grain, Fn&& fn, int threads = 0) {
    if (end <= begin) return;
    grain = std::max<std::size_t>(grain, 1);
    const std::size_t chunks = (end - begin + grain - 1) / grain;
    std::size_t workers = static_cast<std::size_t>(threads > 0 ? threads : cpuThreadCount());
    workers = std::min(workers, chunks);
    if (workers <= 1) {
        for (std::size_t b = begin; b < end; b += grain) fn(b, std::min(end, b + grain));
        return;
    }
    std::atomic<std::size_t> next{0};
    std::exception_ptr error;
    std::mutex errorMutex;
    auto work = [&] {
        for (;;) {
            const std::size_t c = next.fetch_add(1, std::memory_order_relaxed);
            if (c >= chunks) return;
            const std::size_t b = begin + c * grain;
            try {
                fn(b, std::min(end, b + grain));
            } catch (...) {
                std::lock_guard lock(errorMutex);
                if (!error) error = std::current_exception();
                next.store(chunks, std::memory_order_relaxed);
                return;
            }
        }
    };
    using Work = decltype(work);
    if (!detail::runOnPool(workers - 1, [](void* w) { (*static_cast<Work*>(w))(); }, &work)) {
        std::vector<std::thread> pool;
        pool.reserve(workers - 1);
        for (std::size_t t = 1; t < workers; ++t) pool.emplace_back(work);
        work();
        for (auto& th : pool) th.join();
    }
    if (error) std::rethrow_exception(error);
}

} // namespace glint
