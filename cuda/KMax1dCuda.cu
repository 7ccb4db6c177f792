// The CUDA 1-D K-MSP backend. load() uploads the values once (step "upload"); each search then builds
// the prefix sums on the device (CUB scans for integers; the canonical chunked order for doubles, so
// that every backend reports the same double sums), the best start of every end (a min-scan, segmented
// at blanks), and hands them to the engine (KMaxEngine.cuh), which finds the k largest sums exactly.
// The whole usual search is queued without a synchronisation, so that a repeated search (same solver,
// same k) replays it as one CUDA graph.
#include "cuda/KMaxCuda.h"

#include "cuda/CudaToolkit.cuh"
#include "cuda/KMaxEngine.cuh"

#include "core/algo/kmax/KMax.h"

#include <cub/device/device_scan.cuh>

#include <memory>
#include <stdexcept>

namespace glint::cuda {
namespace kmax {

namespace {

struct MinOp {
    template <class T>
    __device__ T operator()(const T& a, const T& b) const { return b < a ? b : a; }
};

// A run of starts between blanks: the running minimum and where the run began (start < 0: it goes on).
template <class V>
struct MinRun {
    V v;
    int start;
};
struct MinRunOp {
    template <class T>
    __device__ T operator()(const T& a, const T& b) const {
        if (b.start >= 0) return b;
        return T{b.v < a.v ? b.v : a.v, a.start};
    }
};

// The prefix sums and every end's best start in one scan (integers without blanks). Element j of 0..n
// is x_j (x_0 = 0, x_j = a[j-1]); a run of elements is summed up as its sum s and the least sum mn of
// its proper prefixes (the empty one included), so that the scan's element j is (p[j], min p[0..j-1]).
// Three launches: each tile of 4096 elements sums itself up, one block scans the tiles' summaries, each
// tile scans itself from its prefix and writes p and m (m[0] = 0 is never read: end 0 has no start).
constexpr int kScanThreads = 512, kScanItems = 8, kScanTile = kScanThreads * kScanItems;

template <class V>
struct SumMin {
    V s, mn;
};
template <class V>
__device__ __forceinline__ SumMin<V> combine(const SumMin<V>& a, const SumMin<V>& b) {
    const V shifted = a.s + b.mn;
    return SumMin<V>{a.s + b.s, shifted < a.mn ? shifted : a.mn};
}
template <class V>
__device__ __forceinline__ SumMin<V> shuffleUp(const SumMin<V>& x, int by) {
    return SumMin<V>{__shfl_up_sync(0xffffffffu, x.s, by), __shfl_up_sync(0xffffffffu, x.mn, by)};
}

// Block-wide scan of one summary a thread, in thread order: what comes before this thread (hasBefore
// false for thread 0) and the whole block's.
template <class V>
__device__ void blockScan(const SumMin<V>& mine, SumMin<V>& before, bool& hasBefore, SumMin<V>& total) {
    __shared__ SumMin<V> warps[32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nWarps = blockDim.x >> 5;
    SumMin<V> inc = mine;
    for (int o = 1; o < 32; o <<= 1) {
        const SumMin<V> up = shuffleUp(inc, o);
        if (lane >= o) inc = combine(up, inc);
    }
    const SumMin<V> laneBefore = shuffleUp(inc, 1);
    if (lane == 31) warps[warp] = inc;
    __syncthreads();
    if (warp == 0) {
        SumMin<V> w = lane < nWarps ? warps[lane] : SumMin<V>{V(0), V(0)};
        for (int o = 1; o < 32; o <<= 1) {
            const SumMin<V> up = shuffleUp(w, o);
            if (lane >= o) w = combine(up, w);
        }
        if (lane < nWarps) warps[lane] = w;
    }
    __syncthreads();
    total = warps[nWarps - 1];
    hasBefore = warp > 0 || lane > 0;
    if (warp == 0) before = laneBefore;
    else before = lane > 0 ? combine(warps[warp - 1], laneBefore) : warps[warp - 1];
}

// One block a tile. Apply false: the tile's summary into tiles[]. Apply true: p and m of the tile,
// from the summary of everything before it (before[tile], for tiles after the first).
template <class V, bool Apply>
__global__ void __launch_bounds__(kScanThreads)
    sumMinTileKernel(const V* a, long long n, SumMin<V>* tiles, const SumMin<V>* before, V* p, V* m) {
    pdlEnter();
    __shared__ V sm[kScanTile + kScanTile / 32]; // one pad a 32: the threads read 8 apart
    const auto at = [](int i) { return i + (i >> 5); };
    const long long base = static_cast<long long>(blockIdx.x) * kScanTile;
    for (int r = 0; r < kScanItems; ++r) {
        const int i = r * kScanThreads + threadIdx.x;
        const long long j = base + i;
        sm[at(i)] = j >= 1 && j <= n ? a[j - 1] : V(0);
    }
    __syncthreads();
    V v[kScanItems];
    for (int i = 0; i < kScanItems; ++i) v[i] = sm[at(threadIdx.x * kScanItems + i)];
    SumMin<V> mine{v[0], V(0)};
    for (int i = 1; i < kScanItems; ++i) {
        mine.mn = mine.s < mine.mn ? mine.s : mine.mn;
        mine.s += v[i];
    }
    SumMin<V> pre, total;
    bool has = false;
    blockScan(mine, pre, has, total);
    if constexpr (!Apply) {
        if (threadIdx.x == 0) tiles[blockIdx.x] = total;
    } else {
        if (blockIdx.x > 0) {
            pre = has ? combine(before[blockIdx.x], pre) : before[blockIdx.x];
            has = true;
        }
        V pv[kScanItems], mv[kScanItems];
        for (int i = 0; i < kScanItems; ++i) {
            if (has) {
                mv[i] = pre.s < pre.mn ? pre.s : pre.mn;
                pv[i] = pre.s + v[i];
            } else { // element 0
                mv[i] = V(0);
                pv[i] = v[i];
                has = true;
            }
            pre = SumMin<V>{pv[i], mv[i]};
        }
        // Back through shared memory, so that the stores are coalesced: p, then m.
        for (int pass = 0; pass < 2; ++pass) {
            __syncthreads();
            for (int i = 0; i < kScanItems; ++i) sm[at(threadIdx.x * kScanItems + i)] = pass == 0 ? pv[i] : mv[i];
            __syncthreads();
            V* out = pass == 0 ? p : m;
            for (int r = 0; r < kScanItems; ++r) {
                const int i = r * kScanThreads + threadIdx.x;
                const long long j = base + i;
                if (j <= n) out[j] = sm[at(i)];
            }
        }
    }
}

// One block of 1024: before[t] = the summary of tiles 0..t-1 (t >= 1).
template <class V>
__global__ void sumMinTilesKernel(const SumMin<V>* tiles, int count, SumMin<V>* before) {
    pdlEnter();
    const int per = (count + blockDim.x - 1) / blockDim.x;
    const int t0 = min(count, static_cast<int>(threadIdx.x) * per), t1 = min(count, t0 + per);
    SumMin<V> mine{V(0), V(0)};
    for (int t = t0; t < t1; ++t) mine = t == t0 ? tiles[t] : combine(mine, tiles[t]);
    // Threads without tiles sit at the end: their summaries are never combined into a real one.
    SumMin<V> run, total;
    bool has = false;
    blockScan(mine, run, has, total);
    for (int t = t0; t < t1; ++t) {
        if (has) before[t] = run;
        run = has ? combine(run, tiles[t]) : tiles[t];
        has = true;
    }
}

// Canonical double prefix: each chunk summed from its start, then the chunk offsets in order.
__global__ void chunkLocalKernel(const double* a, long long n, double* p, double* totals, int chunks) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= chunks) return;
    const long long e0 = static_cast<long long>(c) * static_cast<long long>(kPrefixChunk);
    const long long e1 = min(n, e0 + static_cast<long long>(kPrefixChunk));
    double local = 0.0;
    for (long long e = e0; e < e1; ++e) {
        local = local + a[e];
        p[e + 1] = local;
    }
    totals[c] = local;
}
__global__ void chunkOffsetKernel(const double* totals, int chunks, double* offsets) {
    double off = 0.0;
    offsets[0] = 0.0;
    for (int c = 0; c < chunks; ++c) {
        off = off + totals[c];
        offsets[c + 1] = off;
    }
}
__global__ void chunkApplyKernel(double* p, long long n, const double* offsets) {
    for (long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; e < n;
         e += static_cast<long long>(gridDim.x) * blockDim.x)
        p[e + 1] = offsets[e / static_cast<long long>(kPrefixChunk)] + p[e + 1];
    if (blockIdx.x == 0 && threadIdx.x == 0) p[0] = 0.0;
}

template <class V>
__global__ void runInputKernel(const V* p, const unsigned char* blank, long long n, MinRun<V>* runs) {
    for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += static_cast<long long>(gridDim.x) * blockDim.x)
        runs[i] = {p[i], i == 0 || blank[i - 1] ? static_cast<int>(i) : -1};
}
// End j pairs with the starts of the run that holds j - 1, unless value j - 1 is blank.
template <class V>
__global__ void finishEndsKernel(const MinRun<V>* runs, const unsigned char* blank, const V* p, long long n, V* m, int* lo) {
    for (long long j = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; j <= n;
         j += static_cast<long long>(gridDim.x) * blockDim.x) {
        if (j == 0 || blank[j - 1]) {
            lo[j] = static_cast<int>(j);
            m[j] = p[j];
        } else {
            lo[j] = runs[j - 1].start;
            m[j] = runs[j - 1].v;
        }
    }
}

// Each solver owns its buffers and stream: a search it has run before with the same k is replayed as a
// CUDA graph (one launch instead of some thirty), whose captured pointers must stay valid (so its
// workspace is its own, which the memory budget never frees).
class Cuda1dSolver final : public KMax1dSolver {
public:
    ~Cuda1dSolver() override { dropGraph(); }

    void load(const KMaxSequence& seq, JobControl& job) override {
        job.setDevice(cudaDevice().name);
        auto step = job.timing().scope("upload");
        dropGraph();
        lastK_ = 0;
        if (!res_) res_ = std::make_unique<Resources>();
        n_ = static_cast<long long>(seq.size());
        if (n_ >= (1LL << 30))
            throw BackendUnavailable("the CUDA backend takes sequences of up to 2^30 values; use --backend cpu");
        kind_ = !seq.integer ? Kind::Real : seq.maxAbs * static_cast<double>(n_) < 1073741824.0 ? Kind::Int32 : Kind::Int64;
        const std::size_t elem = kind_ == Kind::Int32 ? 4 : 8;
        // p, m, the input, a run per value when there are blanks, the tree and the end list.
        const std::size_t need = static_cast<std::size_t>(n_ + 1) * (3 * elem + 4 + (seq.blank.empty() ? 0 : 21)) +
                                 static_cast<std::size_t>(n_) * elem / 16 + (std::size_t{64} << 20);
        ws_.require(need, "the sequence");
        values_.reset();
        blank_.reset();
        values_.ensure(std::max<std::size_t>(1, static_cast<std::size_t>(n_) * elem));
        if (kind_ == Kind::Int32) upload<int>(seq);
        else if (kind_ == Kind::Int64) upload<long long>(seq);
        else upload<double>(seq);
        if (!seq.blank.empty()) {
            blank_.ensure(static_cast<std::size_t>(n_));
            GLINT_CUDA_CHECK(cudaMemcpy(blank_.get(), seq.blank.data(), static_cast<std::size_t>(n_), cudaMemcpyHostToDevice));
        }
    }

    std::vector<KMaxSegment> topK(std::size_t k, JobControl& job) override {
        job.setDevice(cudaDevice().name);
        if (!res_) throw std::logic_error("K-MSP (CUDA): topK() before load()");
        if (kind_ == Kind::Int32) return run<int>(k, job);
        if (kind_ == Kind::Int64) return run<long long>(k, job);
        return run<double>(k, job);
    }

private:
    enum class Kind { Int32, Int64, Real };
    static constexpr std::size_t kPreview = 16384; // pairs copied back with the state in one go

    // Created by the first load().
    struct Resources {
        Stream stream;
        EventTimer timer{stream};
        PinnedBuffer<State> header{1};
    };

    template <class V>
    void upload(const KMaxSequence& seq) {
        std::vector<V> host(static_cast<std::size_t>(n_));
        for (std::size_t i = 0; i < host.size(); ++i) {
            if (seq.isBlank(i)) host[i] = V(0);
            else if constexpr (std::is_floating_point_v<V>) host[i] = seq.integer ? static_cast<double>(seq.ints[i]) : seq.reals[i];
            else host[i] = static_cast<V>(seq.ints[i]);
        }
        GLINT_CUDA_CHECK(cudaMemcpy(values_.get(), host.data(), host.size() * sizeof(V), cudaMemcpyHostToDevice));
    }

    void dropGraph() {
        if (graph_) cudaGraphExecDestroy(graph_);
        graph_ = nullptr;
    }

    template <class V>
    Seq sequence() {
        const std::size_t n = static_cast<std::size_t>(n_);
        return Seq{ws_.get<V>("1d p", n + 1), ws_.get<V>("1d m", n + 1), blank_.get() ? ws_.get<int>("1d lo", n + 1) : nullptr,
                   static_cast<int>(n)};
    }

    // The prefix sums and every end's best start (a min-scan, segmented at blanks), queued on the stream.
    template <class V>
    void enqueuePrefix(const Seq& q) {
        const std::size_t n = static_cast<std::size_t>(n_);
        const cudaStream_t stream = res_->stream;
        const unsigned char* blank = blank_.get();
        V* p = const_cast<V*>(static_cast<const V*>(q.p));
        V* m = const_cast<V*>(static_cast<const V*>(q.m));
        const V* a = reinterpret_cast<const V*>(values_.get());
        const int grid = gridFor(n_ + 1, 256);
        if constexpr (std::is_floating_point_v<V>) {
            const int chunks = static_cast<int>((n + kPrefixChunk - 1) / kPrefixChunk);
            double* totals = ws_.get<double>("1d chunk totals", static_cast<std::size_t>(chunks));
            double* offsets = ws_.get<double>("1d chunk offsets", static_cast<std::size_t>(chunks) + 1);
            chunkLocalKernel<<<(chunks + 127) / 128, 128, 0, stream>>>(a, n_, p, totals, chunks);
            chunkOffsetKernel<<<1, 1, 0, stream>>>(totals, chunks, offsets);
            chunkApplyKernel<<<grid, 256, 0, stream>>>(p, n_, offsets);
            GLINT_CUDA_CHECK_LAUNCH();
        } else if (!blank) {
            const int tiles = static_cast<int>((n + 1 + kScanTile - 1) / kScanTile);
            SumMin<V>* sums = ws_.get<SumMin<V>>("1d tile sums", static_cast<std::size_t>(tiles));
            SumMin<V>* before = ws_.get<SumMin<V>>("1d tile prefixes", static_cast<std::size_t>(tiles));
            launchOn(stream, sumMinTileKernel<V, false>, tiles, kScanThreads, a, n_, sums, nullptr, nullptr, nullptr);
            launchOn(stream, sumMinTilesKernel<V>, 1, 1024, sums, tiles, before);
            launchOn(stream, sumMinTileKernel<V, true>, tiles, kScanThreads, a, n_, nullptr, before, p, m);
            return;
        } else {
            GLINT_CUDA_CHECK(cudaMemsetAsync(p, 0, sizeof(V), stream));
            std::size_t bytes = 0;
            GLINT_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes, a, p + 1, static_cast<int>(n), stream));
            void* temp = ws_.get("1d sum temp", bytes);
            GLINT_CUDA_CHECK(cub::DeviceScan::InclusiveSum(temp, bytes, a, p + 1, static_cast<int>(n), stream));
        }
        std::size_t bytes = 0;
        if (!blank) {
            GLINT_CUDA_CHECK(cub::DeviceScan::InclusiveScan(nullptr, bytes, p, m + 1, MinOp{}, static_cast<int>(n), stream));
            void* temp = ws_.get("1d min temp", bytes);
            GLINT_CUDA_CHECK(cub::DeviceScan::InclusiveScan(temp, bytes, p, m + 1, MinOp{}, static_cast<int>(n), stream));
        } else {
            MinRun<V>* runs = ws_.get<MinRun<V>>("1d runs", n);
            MinRun<V>* scanned = ws_.get<MinRun<V>>("1d runs scanned", n);
            runInputKernel<V><<<grid, 256, 0, stream>>>(p, blank, n_, runs);
            GLINT_CUDA_CHECK_LAUNCH();
            GLINT_CUDA_CHECK(cub::DeviceScan::InclusiveScan(nullptr, bytes, runs, scanned, MinRunOp{}, static_cast<int>(n), stream));
            void* temp = ws_.get("1d min temp", bytes);
            GLINT_CUDA_CHECK(cub::DeviceScan::InclusiveScan(temp, bytes, runs, scanned, MinRunOp{}, static_cast<int>(n), stream));
            finishEndsKernel<V><<<grid, 256, 0, stream>>>(scanned, blank, p, n_, m, const_cast<int*>(q.lo));
            GLINT_CUDA_CHECK_LAUNCH();
        }
    }

    template <class V>
    std::vector<KMaxSegment> run(std::size_t k, JobControl& job) {
        const cudaStream_t stream = res_->stream;
        State* header = res_->header.get();
        EventTimer& timer = res_->timer;
        const Seq q = sequence<V>();
        const std::size_t preview = std::min(k, kPreview);
        if (preview_.size() < preview) {
            dropGraph();
            preview_.ensure(preview);
        }
        Engine<V> engine(ws_, job, stream);
        if (k != graphK_) dropGraph();
        if (!graph_ && k == lastK_ && graphsWork_) {
            // The same search again: capture it once (every buffer already exists), replay from now on.
            // Should capturing fail here, the searches simply run without a graph.
            cudaGraph_t graph = nullptr;
            try {
                GLINT_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed));
                enqueuePrefix<V>(q);
                engine.enqueue(q, k, header, preview_.get(), preview, nullptr);
                GLINT_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
                GLINT_CUDA_CHECK(cudaGraphInstantiate(&graph_, graph, 0));
                graphK_ = k;
            } catch (const std::exception&) {
                cudaStreamCaptureStatus status;
                if (cudaStreamIsCapturing(stream, &status) == cudaSuccess && status != cudaStreamCaptureStatusNone) {
                    cudaGraph_t broken = nullptr;
                    cudaStreamEndCapture(stream, &broken);
                    if (broken) cudaGraphDestroy(broken);
                }
                cudaGetLastError();
                graph_ = nullptr;
                graphsWork_ = false;
            }
            if (graph) cudaGraphDestroy(graph);
        }
        if (graph_) {
            timer.begin();
            GLINT_CUDA_CHECK(cudaGraphLaunch(graph_, stream));
            timer.mark("search (graph)");
            GLINT_CUDA_CHECK(cudaStreamSynchronize(stream));
            timer.report(job);
        } else {
            timer.begin();
            enqueuePrefix<V>(q);
            timer.mark("prefix sums");
            engine.enqueue(q, k, header, preview_.get(), preview, &timer);
            GLINT_CUDA_CHECK(cudaStreamSynchronize(stream));
            timer.report(job);
        }
        lastK_ = k;
        job.setProgress(0.8);
        const auto post = job.timing().scope("finish");
        const std::vector<PairFound<V>> pairs = engine.finish(q, k, header, preview_.get(), preview);
        std::vector<KMaxSegment> out(pairs.size());
        for (std::size_t i = 0; i < pairs.size(); ++i) {
            KMaxSegment& s = out[i];
            s.first = pairs[i].start;
            s.last = pairs[i].end - 1;
            if constexpr (std::is_floating_point_v<V>) {
                s.sum = pairs[i].value;
            } else {
                s.sumInt = pairs[i].value;
                s.sum = static_cast<double>(pairs[i].value);
            }
        }
        return out;
    }

    // Destroyed in reverse: the values, the preview, the stream's resources, then the workspace.
    Workspace ws_{"kmax 1d", 256};
    std::unique_ptr<Resources> res_;
    PinnedBuffer<Found> preview_;
    DeviceBuffer<unsigned char> values_;
    DeviceBuffer<unsigned char> blank_;
    cudaGraphExec_t graph_ = nullptr;
    bool graphsWork_ = true;
    std::size_t graphK_ = 0, lastK_ = 0;
    long long n_ = 0;
    Kind kind_ = Kind::Int64;
};

} // namespace
} // namespace kmax

void registerKMax1dCuda() {
    BackendRegistry<KMax1dSolver>::add(Backend::Cuda, [] { return std::make_unique<kmax::Cuda1dSolver>(); });
}

} // namespace glint::cuda
