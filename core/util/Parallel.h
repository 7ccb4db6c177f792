// parallelFor: splits [begin, end) into chunks handed out dynamically to cpuThreadCount() threads.
// The calling thread works too. Exceptions from any chunk are rethrown on the caller (first one wins).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace glint {

int cpuThreadCount();

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
    std::vector<std::thread> pool;
    pool.reserve(workers - 1);
    for (std::size_t t = 1; t < workers; ++t) pool.emplace_back(work);
    work();
    for (auto& th : pool) th.join();
    if (error) std::rethrow_exception(error);
}

} // namespace glint
