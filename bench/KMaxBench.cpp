// glint-cli bench kmax1d / kmax: the K-MSP paper's two tables (1-D, N = 128^2..1024^2 at K = 50, and
// K = 10..100 at N = 1024^2) with its speed-ups beside ours, the 1-D target (N = 2^20, K = 10 000),
// and the overlap rectangles of the brightest bench images (K = 100). Every timed configuration is first
// checked against the reference (or the exact CPU backend where the reference would take too long).
// 1-D searches run on data already loaded (the CUDA upload is reported apart, in `extra`).
#include "core/algo/brightest/Brightest.h"
#include "core/algo/regions/WorkArray.h"
#include "core/algo/kmax/KMax.h"
#include "bench/Bench.h"
#include "bench/BenchImages.h"
#include "core/io/Image.h"
#include "core/util/Errors.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <ostream>
#include <string>

namespace glint {

namespace {

struct Case1d {
    std::size_t n;
    std::size_t k;
    std::string table;  // "paper table I", "paper table II", "target"
    double paper = 0.0; // the paper's speed-up (CUDA over its sequential algorithm), 0 when none
};

std::string sideText(std::size_t n) {
    const auto s = static_cast<std::size_t>(std::llround(std::sqrt(static_cast<double>(n))));
    return s * s == n ? std::to_string(s) + "^2" : std::to_string(n);
}

std::size_t parseLength(const std::string& text) {
    std::size_t pos = 0, x = text.find('x');
    try {
        if (x != std::string::npos) {
            const long long a = std::stoll(text.substr(0, x), &pos), b = std::stoll(text.substr(x + 1));
            if (a > 0 && b > 0 && a * b <= (1LL << 30)) return static_cast<std::size_t>(a * b);
        } else {
            const long long a = std::stoll(text, &pos);
            if (pos == text.size() && a > 0 && a <= (1LL << 30)) return static_cast<std::size_t>(a);
        }
    } catch (...) {
    }
    throw UsageError("bench kmax1d takes lengths N or AxB up to 2^30 (got '" + text + "')");
}

// Bytes a 1-D search must move at least (values read, prefix sums and best starts written and read
// back by the threshold passes), over the device's memory bandwidth.
double floor1dMs(std::size_t n, std::size_t elem) {
    const CudaDeviceInfo& d = cudaDevice();
    if (!d.usable) return -1.0;
    const double bandwidth = d.name.find("H200") != std::string::npos ? 4.8e12 : 3.35e12;
    return static_cast<double>(n) * elem * 7.0 / bandwidth * 1e3;
}

bool sameSums(const std::vector<KMaxSegment>& a, const std::vector<KMaxSegment>& b, bool integer) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (integer ? a[i].sumInt != b[i].sumInt : a[i].sum != b[i].sum) return false;
    return true;
}

std::vector<BenchRow> runKMax1dBench(const BenchOptions& options) {
    std::vector<Case1d> cases;
    if (options.sizes.empty()) {
        const double table1[] = {10.123, 11.124, 12.042, 13.123};
        for (int i = 0; i < 4; ++i) {
            const std::size_t side = std::size_t{128} << i;
            cases.push_back({side * side, 50, "paper table I", table1[i]});
        }
        const std::pair<int, double> table2[] = {{10, 13.223}, {30, 13.124}, {75, 12.931}, {100, 12.823}};
        for (const auto& [k, s] : table2) cases.push_back({1 << 20, static_cast<std::size_t>(k), "paper table II", s});
        cases.push_back({1 << 20, 10000, "target", 0.0});
    } else {
        for (const auto& s : options.sizes) {
            const std::size_t n = parseLength(s);
            cases.push_back({n, 50, "sizes", 0.0});
            cases.push_back({n, 10000, "sizes", 0.0});
        }
    }
    std::vector<BenchRow> rows;
    for (const Case1d& c : cases) {
        const KMaxSequence seq = KMaxSequence::random(c.n, 1);
        const std::string name = "N=" + sideText(c.n) + " K=" + std::to_string(c.k);
        std::vector<KMaxSegment> oracle;
        {
            auto solver = BackendRegistry<KMax1dSolver>::create(Backend::Reference);
            JobControl job;
            solver->load(seq, job);
            oracle = solver->topK(c.k, job);
        }
        if (options.log)
            *options.log << "  " << name << " (" << c.table << "): best " << oracle.front().sumInt << ", K-th "
                         << oracle.back().sumInt << std::endl;
        for (Backend b : {Backend::Reference, Backend::Cpu, Backend::Cuda}) {
            if (!options.wants(b) || (b == Backend::Cuda && !cudaDevice().usable)) continue;
            auto solver = BackendRegistry<KMax1dSolver>::create(b);
            JobControl loadJob;
            solver->load(seq, loadJob);
            std::vector<KMaxSegment> last;
            const int repeat = b == Backend::Reference ? std::min(options.repeat, 3) : options.repeat;
            BenchRow row = measure(
                "kmax1d", name, b, repeat,
                [&](JobControl& job) {
                    const auto start = std::chrono::steady_clock::now();
                    last = solver->topK(c.k, job);
                    job.timing().setTotal(msSince(start));
                },
                "");
            row.verified = sameSums(last, oracle, seq.integer);
            if (!row.verified) row.note = "MISMATCH against the reference; ";
            row.note += c.table + ", uniform integers in [-1000, 1000]";
            row.params = {{"n", c.n}, {"k", c.k}};
            row.extra = {{"table", c.table}, {"oracle", "reference"}};
            if (c.paper > 0) {
                row.extra["paper_speedup_cuda_vs_sequential"] = c.paper;
                if (b == Backend::Cuda) row.note += "; paper: " + std::to_string(c.paper).substr(0, 6) + "x";
            }
            if (b == Backend::Cuda) {
                // The search's GPU time (CUDA events): the graph replay, or the step medians summed.
                double device = 0.0;
                for (const auto& s : row.steps)
                    if (s.name == "search (graph)") device = s.ms;
                if (device == 0.0)
                    for (const auto& s : row.steps) device += s.name == "finish" ? 0.0 : s.ms;
                row.kernelMs = device;
                row.extra["upload_ms"] = loadJob.timing().step("upload");
                const double floor = floor1dMs(c.n, seq.maxAbs * static_cast<double>(c.n) < 1073741824.0 ? 4 : 8);
                if (floor > 0) row.floorMs = floor;
            }
            if (options.log)
                *options.log << "    " << row.backend << " " << row.totalMs << " ms" << (row.verified ? "" : " MISMATCH")
                             << std::endl;
            rows.push_back(row);
        }
    }
    return rows;
}

// ---- 2-D: overlap rectangles of the brightest bench images -----------------------------------------


// The same image with --distinct 0.2, K = 10 (the window's overlap mode). No oracle runs at this size (the
// reference is O(K rows^2 cols^2)): verified = every pair listed obeys the rule and rank 1 is plain overlap's
// rank 1; the cuda backend (the same search on the host) against the cpu one, region for region.
std::vector<BenchRow> distinctRows(const BenchOptions& options, const Image& image, BrightestParams params,
                                   const BrightestResult& plain, const std::string& plainName) {
    std::vector<BenchRow> rows;
    params.k = 10;
    params.distinct = 0.2;
    const std::string name = plainName.substr(0, plainName.find(", K=")) + ", K=10 distinct 0.2";
    BrightestResult cpu;
    for (Backend b : {Backend::Cpu, Backend::Cuda}) {
        if (!options.wants(b) || (b == Backend::Cuda && !cudaDevice().usable)) continue;
        BrightestResult last;
        BenchRow row = measure("kmax", name, b, options.repeat, [&](JobControl& job) { last = runBrightest(image, params, b, job); }, "");
        bool ok = !last.regions.empty() && !plain.regions.empty() && last.regions.front().sum == plain.regions.front().sum;
        for (std::size_t i = 0; ok && i < last.regions.size(); ++i)
            for (std::size_t j = 0; ok && j < i; ++j) {
                const auto &x = last.regions[i], &y = last.regions[j];
                const long long ox = std::max(0, std::min(x.x + x.width, y.x + y.width) - std::max(x.x, y.x));
                const long long oy = std::max(0, std::min(x.y + x.height, y.y + y.height) - std::max(x.y, y.y));
                ok = static_cast<long double>(ox * oy) <= 0.2L * static_cast<long double>(std::min(x.pixels(), y.pixels()));
            }
        if (b == Backend::Cpu) cpu = last;
        else ok = ok && sameRegionSums(last, cpu);
        row.verified = ok;
        row.note = ok ? "rule checked, rank 1 = plain overlap's" : "MISMATCH: the rule, rank 1 or cuda against cpu";
        row.params = {{"size", image.width()}, {"k", params.k}, {"distinct", *params.distinct}};
        if (options.log)
            *options.log << "    " << row.backend << " " << name << " " << row.totalMs << " ms" << (ok ? "" : " MISMATCH") << std::endl;
        rows.push_back(row);
    }
    return rows;
}

std::vector<BenchRow> runKMaxBench(const BenchOptions& options) {
    std::vector<int> sizes;
    for (const auto& s : options.sizes) sizes.push_back(parseBenchSide(s, "kmax", 1, 16384));
    if (sizes.empty()) sizes = options.wants(Backend::Cuda) ? std::vector<int>{512, 1024} : std::vector<int>{256, 512};
    constexpr int kReferenceMax = 512; // above, the reference's time is extrapolated as O(rows^2 cols)
    std::vector<BenchRow> rows;
    std::map<std::string, std::pair<int, double>> measuredAt;
    for (int n : sizes)
        for (const std::string kind : {"u8", "f32"}) {
            const Image image = kind == "u8" ? benchMammogram(n) : benchSkyField(n);
            BrightestParams params;
            params.mode = BrightestMode::Overlap;
            params.k = 100;
            if (kind == "u8") {
                params.pivot.kind = PivotSpec::Kind::Number;
                params.pivot.value = std::round(computePivot(image, params));
            }
            const WorkArray work = prepareWorkArray(image, params);
            const std::string name = kind + " " + std::to_string(n) + "x" + std::to_string(n) +
                                     (kind == "u8" ? ", integer pivot" : ", mean pivot") + ", K=100 overlap";
            const Backend oracleBackend = n <= kReferenceMax ? Backend::Reference : Backend::Cpu;
            BrightestResult oracle;
            {
                JobControl job;
                oracle = runBrightest(image, params, oracleBackend, job);
            }
            if (options.log)
                *options.log << "  " << name << ": best " << oracle.regions.front().sum << ", 100th "
                             << oracle.regions.back().sum << " (" << backendName(oracleBackend) << ")" << std::endl;
            for (Backend b : {Backend::Reference, Backend::Cpu, Backend::Cuda}) {
                if (!options.wants(b) || (b == Backend::Cuda && !cudaDevice().usable)) continue;
                const std::string key = std::string(backendName(b)) + "/" + kind;
                if (b == Backend::Reference && n > kReferenceMax) {
                    if (!measuredAt.count(key)) continue;
                    const auto [n0, ms0] = measuredAt[key];
                    BenchRow row;
                    row.algorithm = "kmax";
                    row.caseName = name;
                    row.backend = backendName(b);
                    row.device = deviceNameFor(b);
                    row.totalMs = ms0 * std::pow(static_cast<double>(n) / n0, 3.0);
                    row.minMs = row.totalMs;
                    row.extrapolated = true;
                    row.note = "O(rows^2*cols) from " + std::to_string(n0) + "x" + std::to_string(n0);
                    row.params = {{"size", n}, {"k", params.k}};
                    rows.push_back(row);
                    continue;
                }
                BrightestResult last;
                const int repeat = b == Backend::Reference ? std::min(options.repeat, 2) : options.repeat;
                BenchRow row = measure(
                    "kmax", name, b, repeat, [&](JobControl& job) { last = runBrightest(image, params, b, job); }, "");
                row.verified = sameRegionSums(last, oracle);
                if (!row.verified) row.note = "MISMATCH against " + std::string(backendName(oracleBackend)) + "; ";
                row.note += work.fitsInt32() ? "exact int32 strip maxima" : "float strip screen, exact sums";
                row.params = {{"size", n}, {"k", params.k}, {"pivot", oracle.pivot}};
                row.extra = {{"oracle", backendName(oracleBackend)}, {"best", oracle.regions.front().sum}};
                if (b == Backend::Cuda) {
                    double device = 0.0;
                    for (const auto& s : row.steps)
                        if (s.name != "preprocess") device += s.ms;
                    row.kernelMs = device; // GPU time (CUDA events), upload included
                    const double floor = stripKernelFloorMs(work);
                    if (floor > 0) row.floorMs = floor;
                }
                measuredAt[key] = {n, row.totalMs};
                if (options.log)
                    *options.log << "    " << row.backend << " " << row.totalMs << " ms" << (row.verified ? "" : " MISMATCH")
                                 << std::endl;
                rows.push_back(row);
            }
            for (BenchRow& row : distinctRows(options, image, params, oracle, name)) rows.push_back(std::move(row));
        }
    return rows;
}

} // namespace

bool sameRegionSums(const BrightestResult& a, const BrightestResult& b) {
    if (a.regions.size() != b.regions.size()) return false;
    for (std::size_t i = 0; i < a.regions.size(); ++i)
        if (a.regions[i].sumInt != b.regions[i].sumInt || a.regions[i].sum != b.regions[i].sum) return false;
    return true;
}

void registerKMaxBenches() {
    registerBench("kmax1d", &runKMax1dBench);
    registerBench("kmax", &runKMaxBench);
}

} // namespace glint
