// The CUDA line tracer (see LineTraceCuda.h): host side. Buffers grow once and are reused, so a live trace
// under the mouse costs one small upload, a handful of launches and one small download.
#include "cuda/LineTraceCuda.h"

#include "cuda/CudaToolkit.cuh"
#include "cuda/LineTraceKernels.cuh"
#include "core/algo/trace/TraceGeometry.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>

namespace glint::cuda {
namespace trace {

namespace {

// Grow-only byte buffers: the tracer's own, freed with it (sizes in bytes, tables packed at offsets).
using Bytes = DeviceBuffer<unsigned char>;
using HostBytes = PinnedBuffer<unsigned char>;

std::size_t align16(std::size_t v) { return (v + 15) & ~static_cast<std::size_t>(15); }

// Where each table lives in the per-trace upload.
struct TableLayout {
    std::size_t interior, first, last, incoming, firstNext, lastPrev, single, total;
    explicit TableLayout(int d) {
        std::size_t at = 0;
        auto take = [&](std::size_t bytes) {
            const std::size_t here = at;
            at = align16(at + bytes);
            return here;
        };
        interior = take(sizeof(FloatShape) * (2 * d - 1));
        first = take(sizeof(FloatShape) * d);
        last = take(sizeof(FloatShape) * d);
        incoming = take(sizeof(int2) * (2 * d - 1));
        firstNext = take(sizeof(int2) * d);
        lastPrev = take(sizeof(int2) * d);
        single = take(sizeof(int) * d);
        total = at;
    }
};

// Work of one segment launch: at most about this many samples (a few ms on an H100), so that Cancel is
// seen between launches well within 100 ms even on the largest traces.
constexpr double kSamplesPerLaunch = 4e9;

class LineTracerCuda final : public LineTracer {
public:
    LineTracerCuda() = default;
    LineTracerCuda(const LineTracerCuda&) = delete;
    LineTracerCuda& operator=(const LineTracerCuda&) = delete;

    Backend backend() const override { return Backend::Cuda; }

    void setField(std::shared_ptr<const TraceField> field, JobControl& job) override {
        if (field_ && field && field_->id() == field->id()) return; // already on the device
        auto step = job.timing().scope("upload field");
        const int w = field->width(), h = field->height();
        try {
            Bytes raw;
            raw.ensure(sizeof(float2) * static_cast<std::size_t>(w) * h);
            field4_.ensure(sizeof(float4) * static_cast<std::size_t>(w + 1) * (h + 2));
            GLINT_CUDA_CHECK(cudaMemcpyAsync(raw.get(), field->vectors(), raw.bytes(), cudaMemcpyHostToDevice, stream_));
            const dim3 block(256);
            const dim3 grid((w + 1 + 255) / 256, h + 2);
            packFieldKernel<<<grid, block, 0, stream_>>>(raw.as<float2>(), w, h, field4_.as<float4>());
            GLINT_CUDA_CHECK_LAUNCH();
            GLINT_CUDA_CHECK(cudaStreamSynchronize(stream_));
        } catch (...) {
            field_.reset();
            throw;
        }
        field_ = std::move(field);
        job.setDevice(deviceNameFor(Backend::Cuda));
    }

protected:
    // Uploads the geometry's tables and scores every segment; the scores stay on the device for optimize().
    void scoreSegments(const TraceGeometry& g, JobControl& job) override {
        const int n = g.guides(), d = g.points();
        const std::size_t dd = static_cast<std::size_t>(d) * d;
        const int width = field_->width(), height = field_->height();
        const TableLayout layout(d);
        // A trace that threw half-way may have left work queued; the pinned tables are rewritten below.
        GLINT_CUDA_CHECK(cudaStreamSynchronize(stream_));

        // Buffers (grow-only): every transition's segment scores, two DP layers, the back-pointers.
        tables_.ensure(layout.total);
        hostTables_.ensure(layout.total);
        seg_.ensure(sizeof(float) * std::max<std::size_t>(1, static_cast<std::size_t>(n - 1) * dd));
        ends_.ensure(sizeof(float) * 2 * d);
        scoreA_.ensure(sizeof(float) * dd);
        scoreB_.ensure(sizeof(float) * dd);
        back_.ensure(sizeof(std::uint16_t) * std::max<std::size_t>(1, static_cast<std::size_t>(std::max(0, n - 2)) * dd));
        final_.ensure((sizeof(float) + sizeof(int)) * d);
        result_.ensure(sizeof(int) * (n + 1));
        hostResult_.ensure(sizeof(int) * (n + 1));

        packShapes(g, layout);
        turnsUploaded_ = false; // the DP's turn tables follow in launchOptimize(), once the host has them
        DeviceGeometry dg{};
        dg.ax = g.a().x;
        dg.ay = g.a().y;
        dg.bx = g.b().x;
        dg.by = g.b().y;
        normal(g, dg.px, dg.py);
        dg.w = g.halfWidth();
        dg.s = g.spacing();
        dg.n = n;
        dg.d = d;

        const auto* interior = tables_.as<FloatShape>(layout.interior);
        const auto* first = tables_.as<FloatShape>(layout.first);
        const auto* last = tables_.as<FloatShape>(layout.last);
        const auto* field = field4_.as<float4>();
        float* seg = seg_.as<float>();
        float* ends = ends_.as<float>();

        timer_.begin();
        timerOpen_ = true;
        GLINT_CUDA_CHECK(
            cudaMemcpyAsync(tables_.get(), hostTables_.get(), layout.incoming, cudaMemcpyHostToDevice, stream_));
        timer_.mark("upload");

        // Segment scores, in launches of bounded work so that a cancel is seen between them.
        const int threads = std::min(256, (d + 31) / 32 * 32);
        const dim3 block(threads);
        endSegmentsKernel<<<dim3((d + threads - 1) / threads, 2), block, 0, stream_>>>(
            field, width, height, dg, first, last, ends);
        GLINT_CUDA_CHECK_LAUNCH();
        // The middle transitions 2 .. n-2 here; the first and the last (which score only the segments a
        // feasible turn can use) once the host has the turn tables (launchOptimize).
        const int perLaunch = static_cast<int>(
            std::clamp(kSamplesPerLaunch / std::max(1.0, g.samplesPerTransition()), 1.0, static_cast<double>(n)));
        for (int k = 2; k < n - 1; k += perLaunch) {
            const int count = std::min(perLaunch, n - 1 - k);
            segmentScoresKernel<<<dim3((d + threads - 1) / threads, d, count), block, 0, stream_>>>(
                field, width, height, dg, interior, k, seg);
            GLINT_CUDA_CHECK_LAUNCH();
            if (k + count < n - 1) {
                GLINT_CUDA_CHECK(cudaStreamSynchronize(stream_));
                job.throwIfCancelled();
                job.setProgress(0.9 * (k + count - 1) / std::max(1, n - 1));
            }
        }
        timer_.mark("segment scores");
        geometry_ = dg;
    }

    // The first and last interior transitions' segment scores, pruned by the turn tables (uploaded).
    void scoreEndTransitions(const TraceGeometry& g, const TableLayout& layout) {
        const int n = g.guides(), d = g.points();
        if (n < 2) return;
        const int threads = std::min(256, (d + 31) / 32 * 32);
        const auto* interior = tables_.as<FloatShape>(layout.interior);
        const auto* firstNext = tables_.as<int2>(layout.firstNext);
        const auto* lastPrev = tables_.as<int2>(layout.lastPrev);
        for (int k : {1, n - 1}) {
            segmentScoresKernel<<<dim3((d + threads - 1) / threads, d, 1), dim3(threads), 0, stream_>>>(
                field4_.as<float4>(), field_->width(), field_->height(), geometry_, interior, k, seg_.as<float>(),
                firstNext, lastPrev);
            GLINT_CUDA_CHECK_LAUNCH();
            if (n == 2) break; // one transition, both first and last
        }
        timer_.mark("segment scores");
    }

    // The DP on the device's segment scores with edge weight score - lambda * length; reads back the path.
    Optimum optimize(const TraceGeometry& g, double lambdaValue, JobControl& job) override {
        launchOptimize(g, lambdaValue, job);
        return finishOptimize(g, lambdaValue, job);
    }

    bool optimizesAsynchronously() const override { return true; }

    // Queues the DP and the path's download on the stream; finishOptimize() waits for them.
    void launchOptimize(const TraceGeometry& g, double lambdaValue, JobControl&) override {
        const int n = g.guides(), d = g.points();
        const std::size_t dd = static_cast<std::size_t>(d) * d;
        const TableLayout layout(d);
        const float lambda = static_cast<float>(lambdaValue);
        const auto* interior = tables_.as<FloatShape>(layout.interior);
        const auto* first = tables_.as<FloatShape>(layout.first);
        const auto* last = tables_.as<FloatShape>(layout.last);
        const auto* incoming = tables_.as<int2>(layout.incoming);
        const auto* firstNext = tables_.as<int2>(layout.firstNext);
        const auto* lastPrev = tables_.as<int2>(layout.lastPrev);
        const auto* single = tables_.as<int>(layout.single);
        float* seg = seg_.as<float>();
        float* ends = ends_.as<float>();
        if (!timerOpen_) timer_.begin();
        timerOpen_ = false;
        if (!turnsUploaded_) {
            // The turn tables, computed on the host while the segment kernels ran (stream order puts them
            // before the DP; the shapes' earlier copy reads another part of the pinned buffer).
            packTurns(g, layout);
            GLINT_CUDA_CHECK(cudaMemcpyAsync(tables_.get() + layout.incoming, hostTables_.get() + layout.incoming,
                                             layout.total - layout.incoming, cudaMemcpyHostToDevice, stream_));
            timer_.mark("upload");
            turnsUploaded_ = true;
            scoreEndTransitions(g, layout);
        }
        const int threads = std::min(256, (d + 31) / 32 * 32);
        const dim3 block(threads);

        // The DP: the first turn (a test only), then one interval-maximum step per interior guide.
        float* score = scoreA_.as<float>();
        float* next = scoreB_.as<float>();
        auto* back = back_.as<std::uint16_t>();
        float* bestScore = final_.as<float>();
        int* bestPrev = reinterpret_cast<int*>(bestScore + d);
        if (n >= 2) {
            dpFirstKernel<<<dim3((d + threads - 1) / threads, d), block, 0, stream_>>>(ends, seg, firstNext, first,
                                                                                    interior, lambda, d, score);
            GLINT_CUDA_CHECK_LAUNCH();
        }
        int levels = 0;
        while ((2 << levels) <= d) ++levels; // floor(log2 d)
        const std::size_t tableEntries =
            levels > 0 ? static_cast<std::size_t>(levels) * (d + 1) - ((std::size_t{2} << levels) - 2) : 0;
        const std::size_t sharedBytes = sizeof(float) * d + sizeof(std::uint16_t) * tableEntries;
        if (sharedBytes > 48 * 1024)
            GLINT_CUDA_CHECK(cudaFuncSetAttribute(dpStepKernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                  static_cast<int>(sharedBytes)));
        for (int k = 2; k < n; ++k) {
            dpStepKernel<<<d, 256, sharedBytes, stream_>>>(score, seg + static_cast<std::size_t>(k - 1) * dd, incoming,
                                                           interior, lambda, d, levels, next,
                                                           back + static_cast<std::size_t>(k - 2) * dd);
            GLINT_CUDA_CHECK_LAUNCH();
            std::swap(score, next);
        }
        dpFinalKernel<<<d, 256, 0, stream_>>>(score, ends, lastPrev, single, first, last, lambda, n, d, bestScore,
                                              bestPrev);
        GLINT_CUDA_CHECK_LAUNCH();
        backtrackKernel<<<1, 1024, 0, stream_>>>(bestScore, bestPrev, back, n, d, result_.as<int>());
        GLINT_CUDA_CHECK_LAUNCH();
        timer_.mark("dp");
        GLINT_CUDA_CHECK(
            cudaMemcpyAsync(hostResult_.get(), result_.get(), sizeof(int) * (n + 1), cudaMemcpyDeviceToHost, stream_));
        timer_.mark("download");
    }

    Optimum finishOptimize(const TraceGeometry& g, double, JobControl& job) override {
        const int n = g.guides(), d = g.points();
        timer_.report(job); // waits for the download
        job.setProgress(1.0);

        const int* r = hostResult_.as<const int>();
        float best;
        std::memcpy(&best, r, sizeof best);
        Optimum optimum;
        optimum.score = best;
        if (best == -std::numeric_limits<float>::infinity()) return optimum;
        optimum.indices.assign(r + 1, r + 1 + n);
        for (int v : optimum.indices)
            if (v < 0 || v >= d) throw std::runtime_error("CUDA trace: invalid path index from the device");
        return optimum;
    }

private:
    // The unit normal of ab exactly as TraceGeometry computes it (p = (-u.y, u.x)).
    static void normal(const TraceGeometry& g, double& px, double& py) {
        const double dx = g.b().x - g.a().x, dy = g.b().y - g.a().y;
        const double length = std::sqrt(dx * dx + dy * dy);
        px = -(dy / length);
        py = dx / length;
    }

    // The segment shapes (the layout's tables before `incoming`): all the segment kernels need.
    void packShapes(const TraceGeometry& g, const TableLayout& layout) {
        const int d = g.points();
        auto* base = hostTables_.as<char>();
        auto* interior = reinterpret_cast<FloatShape*>(base + layout.interior);
        auto* first = reinterpret_cast<FloatShape*>(base + layout.first);
        auto* last = reinterpret_cast<FloatShape*>(base + layout.last);
        for (int delta = -(d - 1); delta < d; ++delta) interior[delta + d - 1] = toFloatShape(g.interiorShape(delta));
        for (int c = 0; c < d; ++c) {
            first[c] = toFloatShape(g.firstShape(c));
            last[c] = toFloatShape(g.lastShape(c));
        }
    }

    // The turn intervals (from `incoming` on): the DP's. The geometry must have its turns.
    void packTurns(const TraceGeometry& g, const TableLayout& layout) {
        if (!g.hasTurns()) throw std::logic_error("CUDA trace: the DP before the geometry's turns");
        const int d = g.points();
        auto* base = hostTables_.as<char>();
        auto* incoming = reinterpret_cast<int2*>(base + layout.incoming);
        auto* firstNext = reinterpret_cast<int2*>(base + layout.firstNext);
        auto* lastPrev = reinterpret_cast<int2*>(base + layout.lastPrev);
        auto* single = reinterpret_cast<int*>(base + layout.single);
        for (int delta = -(d - 1); delta < d; ++delta) {
            const IndexRange m = g.allowedIncomingDeltas(delta);
            incoming[delta + d - 1] = make_int2(m.lo, m.hi);
        }
        for (int c = 0; c < d; ++c) {
            const IndexRange f = g.firstTurnSuccessors(c), l = g.lastTurnPredecessors(c);
            firstNext[c] = make_int2(f.lo, f.hi);
            lastPrev[c] = make_int2(l.lo, l.hi);
            single[c] = g.singleGuideAllowed(c) ? 1 : 0;
        }
    }

    Stream stream_;
    EventTimer timer_{stream_, 5}; // upload, segment scores, dp, download
    bool timerOpen_ = false;       // scoreSegments() began the timer and the first optimize() reports it
    bool turnsUploaded_ = false;   // the current geometry's turn tables are on the device
    DeviceGeometry geometry_{};    // the current geometry's, for the end transitions' launch
    Bytes field4_, tables_, seg_, ends_, scoreA_, scoreB_, back_, final_, result_;
    HostBytes hostTables_, hostResult_;
};

} // namespace
} // namespace trace

std::unique_ptr<LineTracer> makeLineTracerCuda() { return std::make_unique<trace::LineTracerCuda>(); }

void registerLineTraceCuda() {
    BackendRegistry<LineTracer>::add(Backend::Cuda, [] { return makeLineTracerCuda(); });
}

} // namespace glint::cuda
