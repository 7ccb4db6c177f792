// glint-cli bench ties / cancel: the product figures that unit tests must not time.
//
// ties: K-MSP (overlapping rectangles) on tie-heavy data, where thousands to billions of sums are equal:
// a saturated 16-bit flat field with the pivot at its 99th percentile (= the maximum), an all-equal
// image at its own value, and a long flat run ending in a spike. Every backend is checked against the
// cpu backend's sums, then timed; the GPU must stay within a few times the CPU.
//
// cancel: the latency from a cancel request to the job's end (Cancelled thrown), per algorithm and
// backend, the product target being 100 ms. A canceller thread waits until the job has reported
// progress, then a little longer (a different delay each repeat, so that requests land at different
// points of the work), requests the cancel and the latency is timed to the moment the job returns.
#include "core/algo/brightest/Brightest.h"
#include "core/algo/commoncomponent/CommonComponent.h"
#include "core/algo/kmax/KMax.h"
#include "bench/Bench.h"
#include "bench/BenchImages.h"
#include "core/io/Image.h"
#include "core/util/Errors.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <ostream>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace glint {

namespace {

// A 16-bit flat field: a smooth vignetted level with noise, clipped at 65535 over a bright centre
// (about 3% of the pixels saturate, so the 99th percentile is the maximum).
Image saturatedFlat(int w, int h) {
    std::vector<std::uint16_t> px(static_cast<std::size_t>(w) * h);
    std::mt19937 rng(12);
    std::normal_distribution<double> noise(0.0, 150.0);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const double dx = (x - 0.5 * w) / w, dy = (y - 0.5 * h) / h;
            const double v = 69000.0 * (1.0 - 2.2 * (dx * dx + dy * dy)) + noise(rng);
            px[static_cast<std::size_t>(y) * w + x] = static_cast<std::uint16_t>(std::clamp(v, 0.0, 65535.0));
        }
    return Image::fromSamples<std::uint16_t>(w, h, std::move(px));
}

Image flatThenSpike(int w, int h) {
    std::vector<std::int32_t> px(static_cast<std::size_t>(w) * h, 5);
    px.back() = 1000;
    return Image::fromSamples<std::int32_t>(w, h, std::move(px));
}

std::vector<BenchRow> runTiesBench(const BenchOptions& options) {
    struct Case {
        std::string name;
        Image image;
        std::string pivot;
        int k;
    };
    std::vector<Case> cases;
    cases.push_back({"u16 2148x2102 saturated flat field, pivot p99 (= max), K=30", saturatedFlat(2148, 2102), "p99", 30});
    cases.push_back({"i32 1024x1024 all equal, pivot = the value, K=1000",
                     Image::fromSamples<std::int32_t>(1024, 1024, std::vector<std::int32_t>(1024 * 1024, 7)), "7", 1000});
    cases.push_back({"i32 1024x1024 flat run then a spike, pivot = the flat value, K=100", flatThenSpike(1024, 1024), "5",
                     100});
    std::vector<BenchRow> rows;
    for (const Case& c : cases) {
        BrightestParams params;
        params.mode = BrightestMode::Overlap;
        params.k = c.k;
        params.pivot = PivotSpec::parse(c.pivot);
        BrightestResult oracle;
        {
            JobControl job;
            oracle = runBrightest(c.image, params, Backend::Cpu, job);
        }
        for (Backend b : {Backend::Cpu, Backend::Cuda}) {
            if (!options.wants(b) || (b == Backend::Cuda && !cudaDevice().usable)) continue;
            BrightestResult last;
            BenchRow row = measure(
                "ties", c.name, b, std::max(1, std::min(options.repeat, 5)),
                [&](JobControl& job) { last = runBrightest(c.image, params, b, job); }, "");
            row.verified = sameRegionSums(last, oracle);
            row.note = row.verified ? "sums equal the cpu backend's" : "MISMATCH against cpu";
            row.params = {{"k", c.k}, {"pivot", c.pivot}};
            row.extra = {{"best", oracle.regions.empty() ? 0.0 : oracle.regions.front().sum},
                         {"kth", oracle.regions.empty() ? 0.0 : oracle.regions.back().sum}};
            if (options.log)
                *options.log << "  " << c.name << " " << row.backend << " " << row.totalMs << " ms"
                             << (row.verified ? "" : " MISMATCH") << std::endl;
            rows.push_back(row);
        }
    }
    return rows;
}

// Latency from cancel request to the job's return, `repeat` samples (requests at 5, 15, 25, ... ms after
// the first progress report, into a job that repeats its run until cancelled).
BenchRow cancelRow(const std::string& caseName, Backend backend, int repeat,
                   const std::function<void(JobControl&)>& run) {
    std::vector<double> latencies;
    int finishedFirst = 0;
    std::string error;
    for (int i = 0; i < repeat; ++i) {
        JobControl job;
        std::atomic<bool> done{false};
        std::chrono::steady_clock::time_point requested{}, ended{};
        std::atomic<bool> cancelled{false}, wasRequested{false};
        // The job runs again and again until the cancel lands in one of the runs: no run can end the
        // sample before the request, however fast the device.
        std::thread worker([&] {
            try {
                for (;;) run(job);
            } catch (const Cancelled&) {
                cancelled = true;
            } catch (const std::exception& e) {
                error = e.what(); // reported in the row's note
            }
            ended = std::chrono::steady_clock::now();
            done = true;
        });
        while (!done && job.progress() <= 0.0) std::this_thread::sleep_for(std::chrono::microseconds(200));
        const auto delay = std::chrono::milliseconds(5 + 10 * (i % 6));
        const auto until = std::chrono::steady_clock::now() + delay;
        while (!done && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(std::chrono::microseconds(200));
        if (!done) {
            requested = std::chrono::steady_clock::now();
            wasRequested = true;
            job.requestCancel();
        }
        worker.join();
        if (wasRequested && cancelled)
            latencies.push_back(std::chrono::duration<double, std::milli>(ended - requested).count());
        else
            ++finishedFirst;
    }
    BenchRow row;
    row.algorithm = "cancel";
    row.caseName = caseName;
    row.backend = backendName(backend);
    row.device = deviceNameFor(backend);
    row.repeats = static_cast<int>(latencies.size());
    if (!latencies.empty()) {
        std::sort(latencies.begin(), latencies.end());
        row.totalMs = latencies[latencies.size() / 2];
        row.minMs = latencies.front();
        row.extra = {{"max_ms", latencies.back()}, {"target_ms", 100}, {"finished_before_request", finishedFirst}};
    }
    row.verified = !latencies.empty();
    row.note = "cancel request to return; median of " + std::to_string(latencies.size()) + ", max " +
               (latencies.empty() ? std::string("-") : std::to_string(latencies.back())) + " ms" +
               (error.empty() ? std::string() : "; failed: " + error);
    return row;
}

std::vector<BenchRow> runCancelBench(const BenchOptions& options) {
    const int repeat = std::max(6, options.repeat);
    std::mt19937 rng(3);
    std::uniform_int_distribution<int> byte(0, 255), four(0, 3);
    auto randomImage = [&](int w, int h, std::uniform_int_distribution<int>& d) {
        std::vector<std::int32_t> px(static_cast<std::size_t>(w) * h);
        for (auto& v : px) v = d(rng);
        return Image::fromSamples<std::int32_t>(w, h, std::move(px));
    };
    const Image big = randomImage(4096, 4096, byte), mid = randomImage(1500, 1500, byte);
    const Image a = randomImage(512, 512, four), b = randomImage(512, 512, four);
    const Image sa = randomImage(160, 160, four), sb = randomImage(160, 160, four);
    std::vector<BenchRow> rows;
    for (Backend be : {Backend::Reference, Backend::Cpu, Backend::Cuda}) {
        if (!options.wants(be) || (be == Backend::Cuda && !cudaDevice().usable)) continue;
        const bool gpu = be == Backend::Cuda;
        const Image& img = be == Backend::Reference ? mid : big;
        const std::string size = be == Backend::Reference ? "1500x1500" : "4096x4096";
        BrightestParams disjoint;
        disjoint.k = gpu ? 50 : 20;
        disjoint.pivot = PivotSpec::parse("128");
        rows.push_back(cancelRow("brightest u8 " + size + ", K=" + std::to_string(disjoint.k), be, repeat,
                                 [&](JobControl& job) { runBrightest(img, disjoint, be, job); }));
        BrightestParams overlap = disjoint;
        overlap.mode = BrightestMode::Overlap;
        overlap.k = 100;
        rows.push_back(cancelRow("kmax u8 " + size + ", K=100 overlap", be, repeat,
                                 [&](JobControl& job) { runBrightest(img, overlap, be, job); }));
        const Image& ca = be == Backend::Reference ? sa : a;
        const Image& cb = be == Backend::Reference ? sb : b;
        rows.push_back(cancelRow(std::string("common random4 ") + (be == Backend::Reference ? "160x160" : "512x512"), be,
                                 repeat, [&](JobControl& job) { findCommonComponent(ca, cb, {}, be, job); }));
        if (options.log)
            for (std::size_t i = rows.size() - 3; i < rows.size(); ++i)
                *options.log << "  " << rows[i].caseName << " " << rows[i].backend << ": " << rows[i].note << std::endl;
    }
    return rows;
}

} // namespace

void registerRobustnessBenches() {
    registerBench("ties", &runTiesBench);
    registerBench("cancel", &runCancelBench);
}

} // namespace glint
