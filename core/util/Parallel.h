// parallelFor: splits [begin, end) into chunks handed out dynamically to cpuThreadCount() threads: the
// calling thread and the threads of one pool kept for the whole run (starting threads for every call
// cost ~0.5 ms on 16 cores, more than a 1024² pass). Exceptions from any chunk are rethrown on the
// caller (first one wins). Calls may nest and may come from several threads at once.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>

namespace glint {

int cpuThreadCount();

namespace detail {
// Calls work() on the caller and on up to `helpers` pool threads (fewer when the pool is busy or
// smaller); returns once every call has returned, and no call starts after that.
void runOnPool(std::size_t helpers, const std::function<void()>& work);
} // namespace detail

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
    detail::runOnPool(workers - 1, work);
    if (error) std::rethrow_exception(error);
}

} // namespace glint
