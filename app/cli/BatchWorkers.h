// How batch spreads its files: how many are in flight, the cores each gets, the GPUs (--jobs, --devices),
// and the memory gate that keeps several files' working copies within the one-image budget.
#pragma once

#include "app/cli/BatchPipeline.h"
#include "core/jobs/Backend.h"
#include "core/params/Options.h"

#include <cstdint>
#include <string>
#include <vector>

namespace glint::cli {

struct BatchWorkers {
    int workers = 1;          // files in flight (each on its own thread)
    int threadsEach = 0;      // cpuThreadCount() while a worker runs its file (0: all)
    std::vector<int> devices; // CUDA devices: worker w uses devices[w % size] (empty: the default device)
};

// From --jobs N|auto (auto: one file per CPU thread, at most the files) and --devices all|I,J,... (GPUs by
// index; needs --backend cuda or auto and a usable device). With --backend auto and several files, starts
// the CUDA probe in the background so that auto can move to the GPU once it is up (the warm rule,
// core/jobs/NOTES.md) instead of leaving every file of a batch on the CPU.
BatchWorkers batchWorkers(const ParsedArgs& a, Backend backend, const std::string& algorithm,
                          const std::vector<std::string>& files);

// orderedPipeline over the plan's workers: each worker selects its device first and runs each file with
// its share of the cores.
template <class T, class Produce, class Consume>
void runBatchPipeline(const BatchWorkers& plan, std::size_t count, Produce&& produce, Consume&& consume) {
    const std::function<T(std::size_t, int)> work = [&](std::size_t index, int worker) {
        const ScopedCpuThreads share(plan.threadsEach);
        return produce(index, worker);
    };
    const std::function<void(std::size_t, T&&)> take = [&](std::size_t index, T&& result) {
        consume(index, std::move(result));
    };
    const std::function<void(int)> start = [&](int worker) {
        if (!plan.devices.empty()) selectCudaDevice(plan.devices[static_cast<std::size_t>(worker) % plan.devices.size()]);
    };
    orderedPipeline<T>(count, plan.workers, 2 * static_cast<std::size_t>(plan.workers), work, take, start);
}

} // namespace glint::cli
