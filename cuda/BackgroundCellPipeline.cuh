// The samples' upload of the device's background cells (BackgroundCuda.cu), through page-locked staging slots,
// with each group of cell rows' kernel queued behind the copies that hold its pixel rows.
#pragma once

#include "cuda/CudaToolkit.cuh"

#include "core/util/Parallel.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace glint::cuda::background {
// Unnamed, as the kernels it launches (BackgroundKernels.cuh).
namespace {

// The samples' upload through page-locked staging slots (kept from run to run), decoupled from the cell
// kernels: `stagers` host threads copy chunks of ~kChunkBytes of whole pixel rows into the slots (a slot is
// reused once its copy has left), this thread queues each chunk's copy on one copy stream in order, and once
// the copies hold every pixel row of a group of cell rows it queues that group's cell kernel behind them
// (an event on the copy stream) on one of kComputeStreams streams. The chunks are small, so the copies start
// early and the host's memcpy into the slots overlaps the DMA; the groups are few and large, since a cell
// kernel's time is mostly one warp's latency: with every cell row its own launch, the launches queue behind
// each other. run() returns the kernels' milliseconds (events around each group's kernel, summed).
// GLINT_BACKGROUND_GROUPS=N sets the number of groups (1: one kernel after the whole upload),
// GLINT_BACKGROUND_STAGERS=N the host threads, GLINT_BACKGROUND_CHUNK_KB the chunk size (the bench's tuning).
struct CellPipeline {
    static constexpr std::size_t kChunkBytes = std::size_t{2} << 20;
    static constexpr int kGroups = 4;
    static constexpr int kMaxStagers = 8;
    static constexpr int kComputeStreams = 4;
    Stream copy, compute[kComputeStreams];
    PinnedBuffer<unsigned char> staging;
    std::vector<cudaEvent_t> slotFree, kernelStart, kernelEnd;

    CellPipeline() = default;
    CellPipeline(const CellPipeline&) = delete;
    CellPipeline& operator=(const CellPipeline&) = delete;
    ~CellPipeline() {
        for (auto* v : {&slotFree, &kernelStart, &kernelEnd})
            for (cudaEvent_t e : *v) cudaEventDestroy(e);
    }

    static void events(std::vector<cudaEvent_t>& v, std::size_t n, unsigned flags) {
        while (v.size() < n) {
            cudaEvent_t e = nullptr;
            GLINT_CUDA_CHECK(cudaEventCreateWithFlags(&e, flags));
            v.push_back(e);
        }
    }

    static int tuning(const char* name, int fallback) {
        const char* e = std::getenv(name);
        return e && std::atoi(e) > 0 ? std::atoi(e) : fallback;
    }

    template <class T, class Launch>
    float run(const T* host, void* dst, int W, int H, int mesh, int ny, Launch&& launch) {
        const std::size_t rowBytes = static_cast<std::size_t>(W) * sizeof(T);
        const std::size_t chunkBytes = static_cast<std::size_t>(tuning("GLINT_BACKGROUND_CHUNK_KB", static_cast<int>(kChunkBytes >> 10))) << 10;
        const int chunkRows = static_cast<int>(std::clamp<std::size_t>(chunkBytes / rowBytes, 1, static_cast<std::size_t>(H)));
        const int chunks = (H + chunkRows - 1) / chunkRows;
        const int wantGroups = std::clamp(tuning("GLINT_BACKGROUND_GROUPS", kGroups), 1, ny);
        const int cellRowsPerGroup = (ny + wantGroups - 1) / wantGroups;
        const int groups = (ny + cellRowsPerGroup - 1) / cellRowsPerGroup;
        const std::size_t slotBytes = rowBytes * static_cast<std::size_t>(chunkRows);
        const int stagers = std::min(chunks - 1, std::clamp(tuning("GLINT_BACKGROUND_STAGERS", cpuThreadCount() - 1), 1, kMaxStagers));
        const int slots = std::min(chunks, std::max(stagers, 1) + 2);
        staging.ensure(slotBytes * static_cast<std::size_t>(slots));
        events(slotFree, static_cast<std::size_t>(slots), cudaEventDisableTiming);
        events(kernelStart, static_cast<std::size_t>(groups), cudaEventDefault);
        events(kernelEnd, static_cast<std::size_t>(groups), cudaEventDefault);
        auto rowsOf = [&](int chunk) { return std::min(H, (chunk + 1) * chunkRows) - chunk * chunkRows; };
        auto offsetOf = [&](int chunk) { return static_cast<std::size_t>(chunk) * chunkRows * rowBytes; };
        // The last chunk a group's cells read: the one holding its last pixel row.
        auto lastChunkOf = [&](int group) { return (std::min(H, (group + 1) * cellRowsPerGroup * mesh) - 1) / chunkRows; };
        const auto* src = reinterpret_cast<const unsigned char*>(host);
        // Chunk states: 0 waiting, 1 in its staging slot, 2 its copy queued (slotFree recorded).
        std::mutex m;
        std::condition_variable cv;
        std::vector<int> state(static_cast<std::size_t>(chunks), 0);
        bool failed = false;
        std::exception_ptr error;
        auto stage = [&](int i) {
            const int s = i % slots;
            if (i >= slots) {
                {
                    std::unique_lock lock(m);
                    cv.wait(lock, [&] { return failed || state[i - slots] == 2; });
                    if (failed) return false;
                }
                GLINT_CUDA_CHECK(cudaEventSynchronize(slotFree[s]));
            }
            std::memcpy(staging.get() + s * slotBytes, src + offsetOf(i), rowsOf(i) * rowBytes);
            std::lock_guard lock(m);
            state[i] = 1;
            cv.notify_all();
            return true;
        };
        auto fail = [&] {
            std::lock_guard lock(m);
            if (!error) error = std::current_exception();
            failed = true;
            cv.notify_all();
        };
        std::vector<std::thread> threads;
        for (int w = 0; w < stagers; ++w)
            threads.emplace_back([&, w] {
                try {
                    for (int i = w; i < chunks; i += stagers)
                        if (!stage(i)) return;
                } catch (...) {
                    fail();
                }
            });
        try {
            int group = 0;
            for (int i = 0; i < chunks; ++i) {
                const int s = i % slots;
                if (stagers == 0) {
                    stage(i);
                } else {
                    std::unique_lock lock(m);
                    cv.wait(lock, [&] { return failed || state[i] == 1; });
                    if (failed) break;
                }
                GLINT_CUDA_CHECK(cudaMemcpyAsync(static_cast<unsigned char*>(dst) + offsetOf(i), staging.get() + s * slotBytes,
                                                 rowsOf(i) * rowBytes, cudaMemcpyHostToDevice, copy));
                GLINT_CUDA_CHECK(cudaEventRecord(slotFree[s], copy));
                {
                    std::lock_guard lock(m);
                    state[i] = 2;
                    cv.notify_all();
                }
                // Every group whose rows have all been queued now: its kernel behind this copy (the wait takes
                // the event as recorded now, so the slot's next record does not move it).
                for (; group < groups && lastChunkOf(group) == i; ++group) {
                    const Stream& stream = compute[group % kComputeStreams];
                    GLINT_CUDA_CHECK(cudaStreamWaitEvent(stream, slotFree[s], 0));
                    GLINT_CUDA_CHECK(cudaEventRecord(kernelStart[group], stream));
                    launch(group * cellRowsPerGroup, std::min(ny, (group + 1) * cellRowsPerGroup) - group * cellRowsPerGroup, stream.get());
                    GLINT_CUDA_CHECK(cudaEventRecord(kernelEnd[group], stream));
                }
            }
        } catch (...) {
            fail();
        }
        for (std::thread& t : threads) t.join();
        if (error) {
            cudaStreamSynchronize(copy); // the staging slots stay in use until their copies have left
            for (const Stream& stream : compute) cudaStreamSynchronize(stream.get());
            std::rethrow_exception(error);
        }
        for (const Stream& stream : compute) stream.synchronize();
        float total = 0.0f;
        for (int g = 0; g < groups; ++g) {
            float ms = 0.0f;
            GLINT_CUDA_CHECK(cudaEventElapsedTime(&ms, kernelStart[g], kernelEnd[g]));
            total += ms;
        }
        return total;
    }
};

} // namespace
} // namespace glint::cuda::background
