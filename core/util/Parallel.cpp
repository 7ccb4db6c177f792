#include "util/Parallel.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <thread>
#include <vector>

namespace glint::detail {

namespace {

// cpuThreadCount() - 1 threads that wait for tasks. A task asks for some helpers; each helper that
// takes it calls its work once. The caller withdraws the task when its own call returns (the work is
// then done: every chunk was claimed) and waits for the helpers already in it.
class Pool {
public:
    explicit Pool(std::size_t threads) {
        threads_.reserve(threads);
        for (std::size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { serve(); });
    }

    std::size_t size() const { return threads_.size(); }

    void run(std::size_t helpers, const std::function<void()>& work) {
        Task task{&work, std::min(helpers, threads_.size())};
        if (task.wanted == 0) {
            work();
            return;
        }
        {
            std::lock_guard lock(mutex_);
            tasks_.push_back(&task);
        }
        wake_.notify_all();
        work();
        std::unique_lock lock(mutex_);
        task.closed = true;
        if (task.taken < task.wanted) tasks_.erase(std::find(tasks_.begin(), tasks_.end(), &task));
        task.done.wait(lock, [&] { return task.running == 0; });
    }

private:
    struct Task {
        const std::function<void()>* work;
        std::size_t wanted;
        std::size_t taken = 0;
        std::size_t running = 0;
        bool closed = false;
        std::condition_variable done;
    };

    void serve() {
        std::unique_lock lock(mutex_);
        for (;;) {
            wake_.wait(lock, [&] { return !tasks_.empty(); });
            Task* task = tasks_.front();
            if (++task->taken == task->wanted) tasks_.pop_front();
            ++task->running;
            lock.unlock();
            (*task->work)(); // parallelFor's work catches what its chunks throw
            lock.lock();
            // The caller cannot leave run() before this, under the same lock.
            if (--task->running == 0 && task->closed) task->done.notify_all();
        }
    }

    std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<Task*> tasks_;
    std::vector<std::thread> threads_;
};

Pool& pool() {
    // Never destroyed: its threads wait for work until the process ends, so that no static destructor
    // has to join a thread that some other thread's parallelFor may still be using.
    static Pool* p = new Pool(static_cast<std::size_t>(std::max(1, cpuThreadCount()) - 1));
    return *p;
}

} // namespace

void runOnPool(std::size_t helpers, const std::function<void()>& work) { pool().run(helpers, work); }

} // namespace glint::detail
