// What a running job shares with whoever started it: a cancel flag and a progress fraction (both safe
// to touch from any thread), plus the job's timing record and the device it ran on (worker side only).
#pragma once

#include "core/jobs/Timing.h"

#include <atomic>
#include <functional>
#include <string>
#include <vector>

namespace glint {

class JobControl {
public:
    // Any thread.
    void requestCancel() { cancel_.store(true, std::memory_order_relaxed); }
    bool cancelRequested() const { return cancel_.load(std::memory_order_relaxed); }
    // Throws Cancelled when a cancel was requested. Algorithms call it between chunks of work.
    void throwIfCancelled() const;
    void setProgress(double fraction) {
        progress_.store(fraction, std::memory_order_relaxed);
        if (observed_.load(std::memory_order_relaxed) || globalObserverSet()) notifyObserver(fraction);
    }
    double progress() const { return progress_.load(std::memory_order_relaxed); }

    // The worker thread only, until the job has finished.
    Timing& timing() { return timing_; }
    const Timing& timing() const { return timing_; }
    void setDevice(std::string device) { device_ = std::move(device); }
    const std::string& device() const { return device_; }
    // What a result should say about how it was made (a backend declined and another ran it).
    void addNote(std::string note) { notes_.push_back(std::move(note)); }
    const std::vector<std::string>& notes() const { return notes_; }

    // Called on the worker thread with every progress report of this job (set before the job starts).
    // Tests and the cancel-latency bench use it to act at a known point *inside* a running job, so that
    // what they check does not depend on how fast the machine is.
    void setProgressObserver(std::function<void(JobControl&, double)> observer);
    // The same for every JobControl of the process (jobs whose JobControl a test cannot reach, such as
    // the window's). Pass an empty function to remove it.
    static void setGlobalProgressObserver(std::function<void(JobControl&, double)> observer);

private:
    void notifyObserver(double fraction);

    std::atomic<bool> observed_{false};
    static bool globalObserverSet();
    std::function<void(JobControl&, double)> observer_;
    std::atomic<bool> cancel_{false};
    std::atomic<double> progress_{0.0};
    Timing timing_;
    std::string device_;
    std::vector<std::string> notes_;
};

} // namespace glint
