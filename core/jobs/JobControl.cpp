#include "core/jobs/JobControl.h"

#include "core/util/Errors.h"

#include <memory>
#include <mutex>

namespace glint {

namespace {
std::mutex& globalMutex() {
    static std::mutex m;
    return m;
}
std::shared_ptr<const std::function<void(JobControl&, double)>>& globalObserver() {
    static std::shared_ptr<const std::function<void(JobControl&, double)>> observer;
    return observer;
}
std::atomic<bool> globalSet{false};
} // namespace

void JobControl::throwIfCancelled() const {
    if (cancelRequested()) throw Cancelled();
}

void JobControl::setProgressObserver(std::function<void(JobControl&, double)> observer) {
    observer_ = std::move(observer);
    observed_.store(true, std::memory_order_relaxed);
}

void JobControl::setGlobalProgressObserver(std::function<void(JobControl&, double)> observer) {
    std::lock_guard lock(globalMutex());
    globalObserver() = observer ? std::make_shared<const std::function<void(JobControl&, double)>>(std::move(observer))
                                : nullptr;
    globalSet.store(static_cast<bool>(globalObserver()), std::memory_order_relaxed);
}

bool JobControl::globalObserverSet() { return globalSet.load(std::memory_order_relaxed); }

void JobControl::notifyObserver(double fraction) {
    if (observer_) observer_(*this, fraction);
    if (!globalSet.load(std::memory_order_relaxed)) return;
    std::shared_ptr<const std::function<void(JobControl&, double)>> global;
    {
        std::lock_guard lock(globalMutex());
        global = globalObserver();
    }
    if (global) (*global)(*this, fraction);
}

} // namespace glint
