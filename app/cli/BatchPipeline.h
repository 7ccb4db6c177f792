// Batch's pipeline: many files in flight, results taken in file order.
//
// orderedPipeline(count, workers, window, produce, consume): produce(i, worker) runs on `workers` threads
// (each file's decoding and its run: the CPU parts of files overlap each other and the GPU's part of
// another file), consume(i, result) runs on the calling thread for i = 0, 1, … in order, so whatever the
// consumer writes (progress, the journal, the CSV's rows) is in the same order as one file at a time.
// At most `window` results wait for the consumer (bounded memory: a slow consumer or one slow file holds
// back the producers instead of letting decoded images pile up). An exception from produce is rethrown
// by the consumer at that file's turn; an exception from consume stops the workers (they finish the file
// at hand) and is rethrown once they have stopped. With one worker everything runs on the calling thread,
// one file after another, as before.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace glint::cli {

template <class T>
void orderedPipeline(std::size_t count, int workers, std::size_t window,
                     const std::function<T(std::size_t index, int worker)>& produce,
                     const std::function<void(std::size_t index, T&& result)>& consume,
                     const std::function<void(int worker)>& workerStart = {}) {
    if (count == 0) return;
    workers = std::max(1, std::min<int>(workers, static_cast<int>(std::min<std::size_t>(count, 1 << 16))));
    window = std::max<std::size_t>(window, static_cast<std::size_t>(workers));
    if (workers == 1) {
        if (workerStart) workerStart(0);
        for (std::size_t i = 0; i < count; ++i) consume(i, produce(i, 0));
        return;
    }

    struct Slot {
        std::optional<T> value;
        std::exception_ptr error;
        bool ready = false;
    };
    std::vector<Slot> cells(window); // file i lives in cells[i % window] between its production and consumption
    std::mutex mutex;
    std::condition_variable produced, consumed;
    std::size_t next = 0;     // the next file a worker takes
    std::size_t consumer = 0; // the next file the consumer takes
    bool stop = false;
    std::exception_ptr startError;

    auto work = [&](int worker) {
        try {
            if (workerStart) workerStart(worker);
        } catch (...) {
            std::lock_guard lock(mutex);
            if (!startError) startError = std::current_exception();
            stop = true;
            produced.notify_all();
            consumed.notify_all();
            return;
        }
        for (;;) {
            std::size_t i;
            {
                std::unique_lock lock(mutex);
                consumed.wait(lock, [&] { return stop || next >= count || next < consumer + window; });
                if (stop || next >= count) return;
                i = next++;
            }
            Slot result;
            try {
                result.value.emplace(produce(i, worker));
            } catch (...) {
                result.error = std::current_exception();
            }
            result.ready = true;
            {
                std::lock_guard lock(mutex);
                cells[i % window] = std::move(result);
            }
            produced.notify_all();
        }
    };

    std::vector<std::thread> pool;
    pool.reserve(static_cast<std::size_t>(workers));
    std::exception_ptr consumeError;
    try {
        for (int w = 0; w < workers; ++w) pool.emplace_back(work, w);
        for (std::size_t i = 0; i < count; ++i) {
            Slot slot;
            {
                std::unique_lock lock(mutex);
                produced.wait(lock, [&] { return cells[i % window].ready || startError; });
                if (startError) break;
                slot = std::move(cells[i % window]);
                cells[i % window] = Slot{};
                consumer = i + 1;
            }
            consumed.notify_all();
            if (slot.error) std::rethrow_exception(slot.error);
            consume(i, std::move(*slot.value));
        }
    } catch (...) {
        consumeError = std::current_exception();
    }
    {
        std::lock_guard lock(mutex);
        stop = true;
    }
    consumed.notify_all();
    for (std::thread& t : pool) t.join();
    if (consumeError) std::rethrow_exception(consumeError);
    if (startError) std::rethrow_exception(startError);
}

// Bytes of working memory held by the files in flight, at most `limit` together; one file alone may hold
// more (it passed its own check), and then runs alone.
class MemoryGate {
public:
    explicit MemoryGate(std::uint64_t limit) : limit_(limit) {}
    class Hold {
    public:
        Hold(MemoryGate& gate, std::uint64_t bytes) : gate_(gate), bytes_(bytes) {
            std::unique_lock lock(gate_.mutex_);
            gate_.freed_.wait(lock, [&] { return gate_.used_ == 0 || gate_.used_ + bytes_ <= gate_.limit_; });
            gate_.used_ += bytes_;
        }
        ~Hold() {
            {
                std::lock_guard lock(gate_.mutex_);
                gate_.used_ -= bytes_;
            }
            gate_.freed_.notify_all();
        }
        Hold(const Hold&) = delete;
        Hold& operator=(const Hold&) = delete;

    private:
        MemoryGate& gate_;
        std::uint64_t bytes_;
    };

private:
    std::mutex mutex_;
    std::condition_variable freed_;
    std::uint64_t limit_;
    std::uint64_t used_ = 0;
};

} // namespace glint::cli
