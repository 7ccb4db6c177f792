// The set-up every job function shares: resolve the backend, create it, record its device, report
// progress, time the run. Job functions (runBrightest, runKMax1d, findCommonComponent, runTrace, ...)
// keep only their own validation and work.
#pragma once

#include "core/jobs/Backend.h"
#include "core/jobs/JobControl.h"
#include "core/jobs/Timing.h"

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <utility>

namespace glint {

// Resolves `requested` with resolveForJob<Solver> (auto weighs cpuMsEstimate, the CPU backend's expected
// ms, negative = unknown; a GPU run records the device's set-up as device_init / device_wait, apart from
// the total), creates the backend from BackendRegistry<Solver>, records deviceNameFor(resolved) in
// job.device(), reports progress 0, runs body(solver, resolved), sets job.timing()'s total to the body's
// wall time (the whole call, not only the named steps) and reports progress 1. Returns what body returns;
// what body throws (Cancelled, UsageError, ...) passes through, and so does BackendUnavailable. When the
// backend declines the work (BackendDeclined), body runs again on the fallback the registry declares for it
// (the step "<backend> declined" holds the time spent, job.notes() says why); without one the job fails with
// BackendUnavailable.
template <class Solver, class Body>
auto runJob(Backend requested, JobControl& job, double cpuMsEstimate, Body&& body) {
    Backend resolved = resolveForJob<Solver>(requested, job, cpuMsEstimate);
    const auto start = std::chrono::steady_clock::now();
    for (;;) {
        const std::unique_ptr<Solver> solver = BackendRegistry<Solver>::create(resolved);
        job.setDevice(deviceNameFor(resolved));
        job.setProgress(0.0);
        const auto attempt = std::chrono::steady_clock::now();
        try {
            auto result = body(*solver, resolved);
            job.timing().setTotal(msSince(start));
            job.setProgress(1.0);
            return result;
        } catch (const BackendDeclined& e) {
            const std::optional<Backend> next = BackendRegistry<Solver>::fallback(resolved);
            if (!next) throw BackendUnavailable(e.what());
            job.timing().add(std::string(backendName(resolved)) + " declined", msSince(attempt));
            job.addNote(std::string(backendName(resolved)) + " declined (" + e.what() + "): ran on " + backendName(*next));
            resolved = *next;
        }
    }
}

} // namespace glint
