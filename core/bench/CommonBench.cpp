// glint-cli bench common: "crops" (two 1024x1024 crops of a 1536x1536 fractal-noise picture, 512 px apart:
// a known answer) and "random4" (two 512x512 images of values 0..3: little pruning). The reference is
// too slow at these sizes: it runs on small versions of the same cases and is extrapolated by its own
// cost model; those small runs also check cpu and cuda against it.
#include "core/bench/Bench.h"

#include "core/algo/common/CommonComponent.h"
#include "core/algo/common/CommonComponentCases.h"
#include "core/algo/common/CommonComponentCoding.h"
#include "core/util/Errors.h"

#include <chrono>
#include <optional>
#include <cstdlib>
#include <ostream>
#include <string>

namespace glint {

namespace {

using common_component::overlapOf;

struct Case {
    std::string kind; // "crops" or "random4"
    int side = 0;
    Image a, b;
    bool known = false; // the answer is known by construction
    int dx = 0, dy = 0;
    std::uint64_t size = 0;

    std::string name() const {
        const std::string s = std::to_string(side) + "x" + std::to_string(side);
        if (kind == "crops") return "crops " + s + " of " + std::to_string(side + side / 2) + "^2, t=0";
        return "random4 " + s + ", t=0";
    }
};

Case makeCase(const std::string& kind, int side) {
    Case c;
    c.kind = kind;
    c.side = side;
    if (kind == "crops") {
        auto [a, b] = common_component::overlappingCrops(side);
        c.a = std::move(a);
        c.b = std::move(b);
        c.known = true;
        c.dx = c.dy = -(side / 2);
        c.size = static_cast<std::uint64_t>(side - side / 2) * (side - side / 2);
    } else {
        auto [a, b] = common_component::randomValuePair(side, 4);
        c.a = std::move(a);
        c.b = std::move(b);
    }
    return c;
}

// The reference's work: every offset visits every pixel of A.
double referenceWork(const Case& c) {
    return static_cast<double>(c.a.pixelCount()) * (c.a.width() + c.b.width() - 1) * (c.a.height() + c.b.height() - 1);
}

// Sum of overlap areas of the offsets whose area exceeds `above` (what the code bound must visit).
double overlapSum(const Case& c, std::uint64_t above) {
    double sum = 0;
    for (int dy = -(c.a.height() - 1); dy < c.b.height(); ++dy)
        for (int dx = -(c.a.width() - 1); dx < c.b.width(); ++dx) {
            const auto area = overlapOf(c.a.width(), c.a.height(), c.b.width(), c.b.height(), dx, dy).area();
            if (area > above) sum += static_cast<double>(area);
        }
    return sum;
}

// Every reported component is checked: matching pixels, one 4-connected piece, the reported size.
bool validComponent(const Case& c, const CommonComponentResult& r) {
    if (!r.found) return r.size == 0;
    const int w = c.a.width(), h = c.a.height();
    std::vector<std::uint8_t> seen(r.mask.size(), 0);
    std::vector<int> stack;
    std::uint64_t count = 0;
    for (std::size_t i = 0; i < r.mask.size(); ++i) {
        if (!r.mask[i]) continue;
        ++count;
        const int x = static_cast<int>(i % w), y = static_cast<int>(i / w), xb = x + r.dx, yb = y + r.dy;
        if (xb < 0 || xb >= c.b.width() || yb < 0 || yb >= c.b.height() || c.a.isBlank(i) || c.b.isBlank(xb, yb) ||
            !samplesMatch(c.a.value(i), c.b.value(xb, yb), 0.0))
            return false;
        if (stack.empty() && count == 1) stack.push_back(static_cast<int>(i)), seen[i] = 1;
    }
    std::uint64_t reached = 0;
    while (!stack.empty()) {
        const int p = stack.back();
        stack.pop_back();
        ++reached;
        const int x = p % w, y = p / w;
        const int nx[4] = {x - 1, x + 1, x, x}, ny[4] = {y, y, y - 1, y + 1};
        for (int k = 0; k < 4; ++k) {
            if (nx[k] < 0 || nx[k] >= w || ny[k] < 0 || ny[k] >= h) continue;
            const int q = ny[k] * w + nx[k];
            if (r.mask[q] && !seen[q]) seen[q] = 1, stack.push_back(q);
        }
    }
    return count == r.size && reached == r.size;
}

Json statsJson(const CommonComponentResult& r) {
    Json j = Json::object();
    j["offset"] = r.found ? Json{{"dx", r.dx}, {"dy", r.dy}} : Json(nullptr);
    j["size"] = r.size;
    j["offsets"] = r.stats.offsets;
    j["pruned_area"] = r.stats.prunedByArea;
    j["pruned_bound"] = r.stats.prunedByBound;
    j["pruned_count"] = r.stats.prunedByCount;
    j["labelled"] = r.stats.labelled;
    j["seed_candidates"] = r.stats.seedCandidates;
    return j;
}

CommonComponentResult runOnce(const Case& c, Backend backend, JobControl& job) {
    return findCommonComponent(c.a, c.b, {}, backend, job);
}

// One timed run, for backends too slow to repeat (the cpu on the big cases).
BenchRow singleRun(const Case& c, Backend backend, CommonComponentResult& result) {
    BenchRow row;
    row.algorithm = "common";
    row.caseName = c.name();
    row.backend = backendName(backend);
    JobControl job;
    result = runOnce(c, backend, job);
    row.device = job.device();
    row.repeats = 1;
    row.totalMs = row.minMs = job.timing().total();
    row.steps = job.timing().steps();
    row.note = "one run";
    return row;
}

std::vector<BenchRow> runCommonBench(const BenchOptions& options) {
    // --sizes: a side for both cases ("512"), or one case at a side ("crops:1024", "random4:256").
    std::vector<std::pair<std::string, int>> specs;
    for (const auto& item : options.sizes) {
        const auto colon = item.find(':');
        const std::string kind = colon == std::string::npos ? "" : item.substr(0, colon);
        const std::string side = colon == std::string::npos ? item : item.substr(colon + 1);
        char* end = nullptr;
        const long v = std::strtol(side.c_str(), &end, 10);
        if (side.empty() || *end != '\0' || v < 16 || v > 8192 || (!kind.empty() && kind != "crops" && kind != "random4"))
            throw UsageError("bench common: --sizes takes sides from 16 to 8192, optionally as crops:N or random4:N (got '" +
                             item + "')");
        if (kind.empty() || kind == "crops") specs.push_back({"crops", static_cast<int>(v)});
        if (kind.empty() || kind == "random4") specs.push_back({"random4", static_cast<int>(v)});
    }
    if (specs.empty()) specs = {{"crops", 1024}, {"random4", 512}};
    const double clockHz = 1.755e9; // H100 boost clock; the floor is an estimate
    const int sms = cudaDevice().usable ? cudaDevice().multiprocessors : 0;

    std::vector<BenchRow> rows;
    for (const auto& [kind, side] : specs) {
        const Case c = makeCase(kind, side);
        if (options.log) *options.log << "  case " << c.name() << "\n";
        Json params = Json::object();
        params["width_a"] = c.a.width();
        params["width_b"] = c.b.width();
        params["tolerance"] = 0.0;
        if (c.known) params["expected"] = {{"dx", c.dx}, {"dy", c.dy}, {"size", c.size}};

        // Reference on small versions of the case, extrapolated by its work; cpu and cuda checked there.
        bool smallOk = true;
        std::string smallNote;
        std::optional<BenchRow> reference;
        if (options.wants(Backend::Reference) || options.wants(Backend::Cuda) || options.wants(Backend::Cpu)) {
            for (int small : {24, 40}) {
                const Case s = makeCase(kind, small);
                CommonComponentResult ref;
                BenchRow r = measure("common", c.name(), Backend::Reference, std::min(options.repeat, 3),
                                     [&](JobControl& job) { ref = runOnce(s, Backend::Reference, job); });
                for (Backend other : {Backend::Cpu, Backend::Cuda}) {
                    if (!options.wants(other)) continue;
                    JobControl job;
                    const auto o = runOnce(s, other, job);
                    const bool ok = o.size == ref.size && validComponent(s, o);
                    smallOk = smallOk && ok;
                    smallNote += std::string(backendName(other)) + (ok ? " = " : " != ") + "reference at " +
                                 std::to_string(small) + "; ";
                }
                if (small == 40) {
                    const double scale = referenceWork(c) / referenceWork(s);
                    r.totalMs *= scale;
                    r.minMs *= scale;
                    for (auto& step : r.steps) step.ms *= scale;
                    r.extrapolated = true;
                    r.verified = validComponent(s, ref) && (!s.known || (ref.size == s.size));
                    r.note = "from " + std::to_string(small) + "x" + std::to_string(small) + " (" +
                             std::to_string(r.totalMs / scale) + " ms) x " + std::to_string(scale) +
                             " (pixels of A x offsets)";
                    reference = r;
                }
            }
        }
        if (reference && options.wants(Backend::Reference)) rows.push_back(*reference);

        std::optional<CommonComponentResult> cpuResult;
        if (options.wants(Backend::Cpu)) {
            CommonComponentResult result;
            BenchRow row = singleRun(c, Backend::Cpu, result);
            row.params = params;
            row.extra = statsJson(result);
            row.verified = validComponent(c, result) && (!c.known || (result.size == c.size && result.dx == c.dx &&
                                                                      result.dy == c.dy));
            if (!c.known) row.note += "; checked against the reference at small sizes";
            row.verified = row.verified && smallOk;
            cpuResult = result;
            rows.push_back(row);
        }
        if (options.wants(Backend::Cuda)) {
            CommonComponentResult result;
            BenchRow row = measure("common", c.name(), Backend::Cuda, options.repeat,
                                   [&](JobControl& job) { result = runOnce(c, Backend::Cuda, job); }, "kernel");
            row.params = params;
            row.extra = statsJson(result);
            bool ok = validComponent(c, result) && smallOk;
            if (c.known) ok = ok && result.size == c.size && result.dx == c.dx && result.dy == c.dy;
            if (cpuResult) ok = ok && cpuResult->size == result.size;
            row.verified = ok;
            row.note = smallNote + (c.known ? "known answer" : (cpuResult ? "size = cpu" : "no full-size oracle"));
            if (sms > 0) {
                // Floor: crops, the code bound over offsets that can beat the known answer (5 integer
                // operations per 32 pixel pairs); random4, one comparison per pixel pair of every offset.
                const double units = c.known ? overlapSum(c, c.size) / 32.0 * 5.0 : overlapSum(c, 0);
                row.floorMs = units / (sms * 64.0 * clockHz) * 1e3;
            }
            rows.push_back(row);
        }
    }
    return rows;
}

} // namespace

void registerCommonBench() { registerBench("common", runCommonBench); }

} // namespace glint
