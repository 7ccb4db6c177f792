// What a running job shares with whoever started it: a cancel flag and a progress fraction (both safe
// to touch from any thread), plus the job's timing record and the device it ran on (worker side only).
#pragma once

#include "jobs/Timing.h"

#include <atomic>
#include <string>

namespace glint {

class JobControl {
public:
    // Any thread.
    void requestCancel() { cancel_.store(true, std::memory_order_relaxed); }
    bool cancelRequested() const { return cancel_.load(std::memory_order_relaxed); }
    // Throws Cancelled when a cancel was requested. Algorithms call it between chunks of work.
    void throwIfCancelled() const;
    void setProgress(double fraction) { progress_.store(fraction, std::memory_order_relaxed); }
    double progress() const { return progress_.load(std::memory_order_relaxed); }

    // The worker thread only, until the job has finished.
    Timing& timing() { return timing_; }
    const Timing& timing() const { return timing_; }
    void setDevice(std::string device) { device_ = std::move(device); }
    const std::string& device() const { return device_; }

private:
    std::atomic<bool> cancel_{false};
    std::atomic<double> progress_{0.0};
    Timing timing_;
    std::string device_;
};

} // namespace glint
