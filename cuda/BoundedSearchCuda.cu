// The CUDA bounded search (host side; kernels in cuda/BoundedSearchKernels.cuh, design in
// core/algo/brightest/NOTES.md, "Bounded search"). The column prefix sums are built on the device in the
// reference's order (the unbounded path's prefix kernel, in int64 or double), transposed so that a warp's
// strips of one top read consecutive values. Round 1 scans every strip (a thread a strip) and keeps, per
// strip and per segment of 32 columns, S at the segment's start and the best of the segments ending in it;
// each later round removes the last round's rectangle on the device (no host round trip: rejected
// rectangles are removed as well, so the device can run ahead while the host's accept() looks at the
// previous one) and scans again only the segments whose kept best it meets. The last block of a round writes
// its best (32 bytes) straight into pinned host memory, where the host polls for it (no copy, event or
// synchronisation a round); rounds run up to 8 ahead of the host.
#include "cuda/BoundedSearchCuda.cuh"

#include "cuda/BoundedSearchKernels.cuh"
#include "cuda/CudaToolkit.cuh"
#include "cuda/MaxSubarrayKernels.cuh"
#include "cuda/MaxSubarrayStrips.cuh"

#include "core/algo/regions/WorkArray.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace glint::cuda::maxsub {

namespace {

WorkspacePool& boundedWorkspace() { return Workspace::shared("bounded search"); }

// Waits for this thread's stream on every exit (speculative rounds may still run when the search stops or
// throws), before the workspace's lease ends. Other runs' streams go on.
struct DeviceIdleOnExit {
    ~DeviceIdleOnExit() { cudaStreamSynchronize(cudaStreamPerThread); }
};

using bounded::kRing; // rounds in flight at most

struct Kept {
    EventTimer timer{nullptr, 3};      // the rounds' device span: before round 1, after it, after the last
    PinnedBuffer<unsigned char> slots; // kRing results (32 bytes each, int64 or double sums), written by the device
    void* deviceSlots = nullptr;       // their device address
};
static_assert(sizeof(bounded::Result<long long>) == 32 && sizeof(bounded::Result<double>) == 32);

template <class V>
class BoundedRun {
public:
    BoundedRun(const WorkArray& w, const DisjointRule& rule, JobControl& job, ProgressSpan span)
        : w_(w), rule_(rule), job_(job), span_(span), rows_(w.rows), cols_(w.cols), pitch_(pitchFor(w.cols)),
          H_(std::min(rule.maxBox, w.rows)), L_(std::min(rule.maxBox, w.cols)),
          nseg_((w.cols + bounded::kSeg - 1) / bounded::kSeg), strips_(static_cast<std::size_t>(w.rows) * H_) {}

    // Whether the device can run it: the deques of a block of 32 threads in shared memory, and the memory.
    bool fits(Workspace& ws) {
        int optin = 0;
        GLINT_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
        threads_ = 0;
        for (const int t : {128, 64, 32})
            if (boundedSharedBytes<V>(t, L_) <= static_cast<std::size_t>(optin)) {
                threads_ = t;
                break;
            }
        // Few strips (a small bound): smaller blocks spread them over more multiprocessors.
        while (threads_ > 32 && strips_ / threads_ < 4u * std::max(1, cudaDevice().multiprocessors)) threads_ /= 2;
        if (threads_ == 0) return false;
        smem_ = boundedSharedBytes<V>(threads_, L_);
        const std::size_t perStrip = static_cast<std::size_t>(nseg_) * (2 * sizeof(V) + 2 * sizeof(int)) + sizeof(V) + 2 * sizeof(int) + 1;
        need_ = (w_.deviceSamples ? 0 : sampleBytes(w_)) + static_cast<std::size_t>(rows_) * cols_ + static_cast<std::size_t>(rows_ + 1) * pitch_ * (sizeof(V) + sizeof(int)) +
                static_cast<std::size_t>(rows_ + 1) * cols_ * sizeof(V) + strips_ * perStrip + static_cast<std::size_t>(rows_) * (sizeof(V) + sizeof(int)) + 4096;
        return ws.available() >= need_ + (std::size_t{256} << 20);
    }

    DisjointOutcome solve(Workspace& ws) {
        DeviceIdleOnExit idle;
        ws.require(need_, "the bounded search");
        setUp(ws);
        const int cap = rule_.rounds();
        const double firstShare = cap > 1 ? 0.5 : 1.0;
        // The rounds' timer and result slots (pinned, written by the device), kept with the workspace.
        Kept& kept = ws.keep<Kept>();
        if (kept.slots.size() == 0) {
            kept.slots.ensure(kRing * sizeof(bounded::Result<V>));
            GLINT_CUDA_CHECK(cudaHostGetDevicePointer(&kept.deviceSlots, kept.slots.get(), 0));
        }
        auto* const slotBase = kept.slots.template as<bounded::Result<V>>();
        // No round of this run has written a slot yet (the last run's rounds have all finished).
        std::memset(static_cast<void*>(slotBase), 0, kRing * sizeof(bounded::Result<V>));
        a_.slots = static_cast<bounded::Result<V>*>(kept.deviceSlots);
        EventTimer& timer = kept.timer;
        timer.begin();
        double waitMs = 0.0;
        int enqueued = 0;
        // GLINT_BOUNDED_PROFILE (diagnostics): the kernels' profiling instantiations time each round's phases
        // on the device's clock into a small buffer, read once at the end (see reportProfile).
        const bool profile = std::getenv("GLINT_BOUNDED_PROFILE") != nullptr;
        if (profile) {
            a_.profRounds = cap;
            a_.prof = ws.get<unsigned long long>("profile", static_cast<std::size_t>(cap) * bounded::kProfSlots);
            GLINT_CUDA_CHECK(cudaMemset(a_.prof, 0, static_cast<std::size_t>(cap) * bounded::kProfSlots * sizeof(unsigned long long)));
        }
        auto later = [&](auto rescan, auto reduce) {
            const long long items = static_cast<long long>(bounded::rescanSpan(L_)) * (2 * H_ - 1) * H_;
            launchDependent(rescan, static_cast<unsigned>((items + threads_ - 1) / threads_), static_cast<unsigned>(threads_), smem_, a_);
            launchDependent(reduce, static_cast<unsigned>(2 * H_ - 1), static_cast<unsigned>(kBoundedReduceThreads), 0, a_, 0);
        };
        auto enqueue = [&](int round) {
            if (round == 0) {
                const unsigned blocks = static_cast<unsigned>((strips_ + threads_ - 1) / threads_);
                boundedScanKernel<V><<<blocks, threads_, smem_>>>(a_);
                GLINT_CUDA_CHECK_LAUNCH();
                if (profile) launchDependent(boundedReduceKernel<V, true>, static_cast<unsigned>(rows_), static_cast<unsigned>(kBoundedReduceThreads), 0, a_, 1);
                else launchDependent(boundedReduceKernel<V>, static_cast<unsigned>(rows_), static_cast<unsigned>(kBoundedReduceThreads), 0, a_, 1);
                timer.mark("kernel");
            } else if (profile) {
                later(boundedRescanKernel<V, true>, boundedReduceKernel<V, true>);
            } else {
                later(boundedRescanKernel<V>, boundedReduceKernel<V>);
            }
        };
        // Round `round`'s result, once the device has written it: the host polls its slot's pad (no event or
        // copy a round), asking the stream between polls so that a device error or a missing write surfaces.
        auto awaitResult = [&](int round) -> bounded::Result<V> {
            const volatile bounded::Result<V>* slot = slotBase + round % kRing;
            if (slot->pad != round + 1) {
                const auto start = std::chrono::steady_clock::now();
                while (slot->pad != round + 1) {
                    const cudaError_t e = cudaStreamQuery(nullptr);
                    if (e == cudaSuccess) {
                        if (slot->pad == round + 1) break;
                        throw std::logic_error("the bounded search: the device finished without round " + std::to_string(round + 1) + "'s result");
                    }
                    if (e != cudaErrorNotReady) GLINT_CUDA_CHECK(e);
                }
                waitMs += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
            }
            std::atomic_thread_fence(std::memory_order_acquire);
            bounded::Result<V> r;
            r.sum = slot->sum;
            r.valid = slot->valid;
            r.top = slot->top;
            r.bottom = slot->bottom;
            r.first = slot->first;
            r.last = slot->last;
            r.pad = 0;
            return r;
        };
        auto search = [&](const DisjointOutcome& soFar) -> std::optional<WorkRect> {
            job_.throwIfCancelled();
            const int round = soFar.rounds;
            // Ahead: as many rounds as may still be wanted (K left to report), at most the ring.
            const int ahead = std::min(kRing, std::max(1, rule_.k - static_cast<int>(soFar.found.size())));
            while (enqueued < cap && enqueued < round + ahead) enqueue(enqueued++);
            const bounded::Result<V> r = awaitResult(round);
            const double f = round == 0 ? firstShare
                                        : firstShare + (1.0 - firstShare) * std::max(static_cast<double>(soFar.found.size() + 1) / rule_.k,
                                                                                     static_cast<double>(round + 1) / cap);
            setProgress(span_.begin + (span_.end - span_.begin) * std::min(f, 1.0));
            if (!r.valid) return std::nullopt;
            if constexpr (std::is_integral_v<V>)
                return makeWorkRect(r.top, r.bottom, r.first, r.last, static_cast<std::int64_t>(r.sum));
            else
                return makeWorkRect(r.top, r.bottom, r.first, r.last, r.sum);
        };
        // The device removes each round's rectangle at the start of the next round (rejected ones too).
        DisjointOutcome out = runDisjointRounds(rule_, search, [](const WorkRect&) {});
        // "kernel": the device's span from round 1 to the last round enqueued (speculative ones included),
        // gaps where it waited for the host's launches included; "device wait": the host's polling.
        if (enqueued > 1) timer.mark("kernel");
        timer.report(job_);
        if (profile) reportProfile(std::min(enqueued, cap));
        job_.timing().add("device wait", waitMs);
        setProgress(span_.end);
        return out;
    }

private:
    // A kernel on the default stream as a programmatic dependent launch where the device has it (sm_90; off
    // with GLINT_BOUNDED_PDL=0): its launch overlaps the end of the kernel before it (boundedPdlEnter).
    template <class... Params, class... Args>
    void launchDependent(void (*kernel)(Params...), unsigned grid, unsigned block, std::size_t smem, Args&&... args) {
        cudaLaunchAttribute attr[1] = {};
        attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
        attr[0].val.programmaticStreamSerializationAllowed = 1;
        cudaLaunchConfig_t config = {};
        config.gridDim = dim3(grid);
        config.blockDim = dim3(block);
        config.dynamicSmemBytes = smem;
        config.stream = nullptr;
        config.attrs = attr;
        config.numAttrs = pdl_ ? 1 : 0;
        GLINT_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...));
    }

    // GLINT_BOUNDED_PROFILE: each later round's phases on the device's clock (medians and 90th percentiles over
    // the rounds, to standard error): the rescan kernel, the gap to the reduce kernel, its strips' bests, the
    // blocks' arrival, the last block's reduction and slot write, the gap to the next round's rescan.
    void reportProfile(int rounds) {
        if (rounds < 3) return;
        std::vector<unsigned long long> p(static_cast<std::size_t>(rounds) * bounded::kProfSlots);
        GLINT_CUDA_CHECK(cudaStreamSynchronize(cudaStreamPerThread));
        GLINT_CUDA_CHECK(cudaMemcpy(p.data(), a_.prof, p.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
        const char* names[] = {"rescan kernel (first block start .. last block end)", "gap rescan end .. reduce start",
                               "reduce: strips' bests + block best (latest block)", "reduce: fence + counter (latest block)",
                               "reduce: last block start (after the counter)", "reduce: final over tops + slot write",
                               "gap slot written .. next rescan start", "round period (rescan start to next)",
                               "dirty segments", "columns a dirty segment", "strips formed again"};
        constexpr int kRows = 11;
        std::vector<double> m[kRows];
        for (int n = 1; n + 1 < rounds; ++n) {
            const unsigned long long* q = p.data() + static_cast<std::size_t>(n) * bounded::kProfSlots;
            const unsigned long long* q1 = q + bounded::kProfSlots;
            if (q[bounded::kProfRescanStart] == 0 || q[bounded::kProfSlotWritten] == 0 || q1[bounded::kProfRescanStart] == 0) continue;
            const double rs = static_cast<double>(~q[bounded::kProfRescanStart]), re = static_cast<double>(q[bounded::kProfRescanEnd]);
            const double ds = static_cast<double>(~q[bounded::kProfReduceStart]), sd = static_cast<double>(q[bounded::kProfStripsDone]);
            const double bd = static_cast<double>(q[bounded::kProfBlocksDone]), fs = static_cast<double>(q[bounded::kProfFinalStart]);
            const double sw = static_cast<double>(q[bounded::kProfSlotWritten]), nrs = static_cast<double>(~q1[bounded::kProfRescanStart]);
            const double dirty = static_cast<double>(q[bounded::kProfDirty]);
            const double v[kRows] = {re - rs, ds - re, sd - ds, bd - sd, fs - bd, sw - fs, nrs - sw, nrs - rs, dirty,
                                     dirty > 0 ? static_cast<double>(q[bounded::kProfColumns]) / dirty : 0.0,
                                     static_cast<double>(q[bounded::kProfTouched])};
            for (int k = 0; k < kRows; ++k) m[k].push_back(v[k]);
        }
        std::fprintf(stderr, "bounded profile (%s, %d rounds, %s launches; times in us):\n", std::is_integral_v<V> ? "int64" : "double",
                     static_cast<int>(m[0].size()), pdl_ ? "dependent" : "plain");
        for (int k = 0; k < kRows; ++k) {
            if (m[k].empty()) continue;
            std::sort(m[k].begin(), m[k].end());
            const double scale = k < 8 ? 1e-3 : 1.0;
            std::fprintf(stderr, "  %-55s median %9.2f  p10 %9.2f  p90 %9.2f\n", names[k], m[k][m[k].size() / 2] * scale,
                         m[k][m[k].size() / 10] * scale, m[k][m[k].size() * 9 / 10] * scale);
        }
    }

    void setProgress(double f) {
        if (f > progress_) {
            progress_ = f;
            job_.setProgress(f);
        }
    }

    void setUp(Workspace& ws) {
        void* samples = nullptr;
        std::uint8_t* mask = nullptr;
        {
            auto step = job_.timing().scope("upload");
            if (w_.deviceSamples) {
                // The local pivot's a, built on the device (cuda/BackgroundCuda.cu): read in place.
                samples = const_cast<void*>(w_.deviceSamples.get());
            } else {
                samples = ws.get("samples", sampleBytes(w_));
                uploadSamples(w_, samples);
            }
            mask = ws.get<std::uint8_t>("mask", static_cast<std::size_t>(rows_) * cols_);
            uploadMask(w_, mask);
        }
        EventTimer timer;
        timer.begin();
        V* P = ws.get<V>("P", static_cast<std::size_t>(rows_ + 1) * pitch_);
        PrefixArgs p = prefixArgsOf(w_, samples, mask, pitch_);
        p.exact = P;
        if (w_.deviceSamples) {
            if constexpr (std::is_same_v<V, double>) {
                prefixKernel<double, double><<<(p.pitch + 127) / 128, 128>>>(p, 0.0);
                GLINT_CUDA_CHECK_LAUNCH();
            } else {
                throw std::logic_error("the bounded search: device samples are doubles");
            }
        } else {
            launchPrefix<V>(w_, p);
        }
        a_.ptPitch = static_cast<std::size_t>(rows_) + 1;
        V* PT = ws.get<V>("PT", static_cast<std::size_t>(cols_) * a_.ptPitch);
        boundedTransposeKernel<V><<<dim3((cols_ + 31) / 32, (rows_ + 1 + 31) / 32), dim3(32, 8)>>>(P, pitch_, rows_ + 1, cols_, PT,
                                                                                                  a_.ptPitch);
        GLINT_CUDA_CHECK_LAUNCH();
        a_.PT = PT;
        a_.next = ws.get<int>("next", static_cast<std::size_t>(rows_ + 1) * pitch_);
        a_.nextPitch = pitch_;
        nextExcludedKernel<<<(pitch_ + 127) / 128, 128>>>(mask, rows_, cols_, pitch_, a_.next, 0, pitch_, rows_ - 1);
        GLINT_CUDA_CHECK_LAUNCH();
        bounded::layOutState(a_, rows_, cols_, H_, L_, [&]<class T>(T*& p, const char* name, std::size_t n) { p = ws.get<T>(name, n); });
        GLINT_CUDA_CHECK(cudaMemset(a_.touched, 0, strips_));
        a_.best = ws.get<bounded::Result<V>>("best", 1);
        GLINT_CUDA_CHECK(cudaMemset(a_.best, 0, sizeof(bounded::Result<V>)));
        a_.counter = ws.get<unsigned>("counter", 2);
        GLINT_CUDA_CHECK(cudaMemset(a_.counter, 0, 2 * sizeof(unsigned)));
        GLINT_CUDA_CHECK(cudaFuncSetAttribute(boundedScanKernel<V>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem_)));
        GLINT_CUDA_CHECK(cudaFuncSetAttribute(boundedRescanKernel<V>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem_)));
        GLINT_CUDA_CHECK(cudaFuncSetAttribute(boundedRescanKernel<V, true>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem_)));
        const char* pdl = std::getenv("GLINT_BOUNDED_PDL");
        pdl_ = cudaDevice().computeMajor >= 9 && !(pdl && std::strcmp(pdl, "0") == 0);
        timer.stop(job_, "prefix sums");
    }

    const WorkArray& w_;
    const DisjointRule& rule_;
    JobControl& job_;
    ProgressSpan span_;
    int rows_, cols_, pitch_, H_, L_, nseg_;
    std::size_t strips_;
    int threads_ = 0;
    bool pdl_ = false;
    std::size_t smem_ = 0, need_ = 0;
    double progress_ = -1.0;
    bounded::Args<V> a_{};
};

template <class V>
std::optional<DisjointOutcome> run(const WorkArray& work, const DisjointRule& rule, JobControl& job, ProgressSpan span) {
    Workspace::Lease ws(boundedWorkspace());
    BoundedRun<V> r(work, rule, job, span);
    if (!r.fits(*ws)) return std::nullopt;
    return r.solve(*ws);
}

} // namespace

std::optional<DisjointOutcome> solveBoundedDisjointCuda(const WorkArray& work, const DisjointRule& rule, JobControl& job,
                                                        ProgressSpan span) {
    if (rule.maxBox <= 0) throw std::logic_error("solveBoundedDisjointCuda: no search bound");
    if (work.includedCount == 0) return DisjointOutcome{};
    return work.integer ? run<long long>(work, rule, job, span) : run<double>(work, rule, job, span);
}

} // namespace glint::cuda::maxsub
