// glint-cli bench common: "crops" (two 1024x1024 crops of a 1536x1536 fractal-noise picture, 512 px apart:
// a known answer) and "random4" (two 512x512 images of values 0..3: little pruning). The reference is
// too slow at these sizes: it runs on small versions of the same cases and is extrapolated by its own
// cost model; those small runs also check cpu and cuda against it.
#include "bench/Bench.h"

#include "core/algo/commoncomponent/CommonComponent.h"
#include "scenes/CommonComponentCases.h"
#include "core/algo/commoncomponent/CommonComponentCoding.h"
#include "core/algo/commoncomponent/CommonRegistration.h"
#include "core/export/CsvTable.h"
#include "core/io/ImageLoader.h"
#include "core/util/Errors.h"

#include <chrono>
#include <cstdio>
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
    // The answer in full, for comparing builds run for run: the bounding box, a digest of the mask
    // (FNV-1a of its bytes), the fitted line (exact, as hexadecimal floating point) and the runner-up.
    j["bbox"] = {r.bboxX, r.bboxY, r.bboxWidth, r.bboxHeight};
    std::uint64_t digest = 1469598103934665603ull;
    for (std::uint8_t m : r.mask) digest = (digest ^ m) * 1099511628211ull;
    char text[96];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(digest));
    j["mask_fnv"] = std::string(text);
    std::snprintf(text, sizeof text, "%a %a", r.confidence.gain, r.confidence.bias);
    j["gain_bias"] = std::string(text);
    j["runner_up"] = r.confidence.hasRunnerUp ? Json{{"dx", r.confidence.runnerUp.dx}, {"dy", r.confidence.runnerUp.dy},
                                                     {"size", r.confidence.runnerUpSize}}
                                              : Json(nullptr);
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

// Real pairs: 1024^2 crops overlapping by 50 % (512 px apart in x) of the bundled aerial photo (upscaled
// 3x: it is 512^2) and of a 1536x1024 synthetic scene, unchanged (t = 0 and 2) and with each camera change
// (gain/gamma, +-2 noise, JPEG at 90, all three; linear, and rank for all three) at t = 2; verified: the
// true offset with >= 90 % of the overlap. An unrelated pair (two 256^2 scenes) must come out below 5 %
// coverage and flagged. Each row also times phase correlation alone.
void addRegistrationRows(const BenchOptions& options, std::vector<BenchRow>& rows) {
    std::vector<std::pair<std::string, Image>> scenes;
    try {
        const char* env = std::getenv("GLINT_AERO");
        scenes.push_back({"aero", common_component::upscaledImage(loadImage(env ? env : "resources/samples/aero.png"), 3)});
    } catch (const std::exception& e) {
        if (options.log) *options.log << "  aero photo not found (" << e.what() << "; set GLINT_AERO): skipped\n";
    }
    scenes.push_back({"scene", common_component::fractalNoiseImage(1536, 1024, 7)});
    struct Pair {
        std::string name;
        Image a, b;
        bool related;
        bool changed;
        CommonNormalize normalize = CommonNormalize::Linear;
    };
    std::vector<Pair> pairs;
    struct Change {
        const char* name;
        double gain, bias, gamma;
        int noise, jpeg;
    };
    const Change changes[] = {{"gain 0.8 + 10, gamma 1.1", 0.8, 10, 1.1, 0, 0},
                              {"+-2 noise", 1, 0, 1, 2, 0},
                              {"JPEG 90", 1, 0, 1, 0, 90},
                              {"all three", 0.8, 10, 1.1, 2, 90}};
    for (const auto& [name, scene] : scenes) {
        const Image a = common_component::cropImage(scene, 0, 0, 1024, 1024);
        const Image b = common_component::cropImage(scene, 512, 0, 1024, 1024);
        pairs.push_back({name + " 1024^2 crops, 50% overlap", a, b, true, false});
        for (const Change& c : changes) {
            Image changed = b;
            common_component::changeImage(changed, c.gain, c.bias, c.gamma, c.noise, c.jpeg, 3);
            pairs.push_back({name + " 1024^2, " + c.name, a, changed, true, true});
            // rank beside linear where the change is not linear (gamma).
            if (c.gamma != 1.0)
                pairs.push_back({name + " 1024^2, " + c.name + ", rank", a, changed, true, true, CommonNormalize::Rank});
        }
    }
    pairs.push_back({"unrelated 256^2 scenes", common_component::fractalNoiseImage(256, 256, 11),
                     common_component::fractalNoiseImage(256, 256, 12), false, true});
    for (const Pair& p : pairs) {
        if (options.log) *options.log << "  case " << p.name << "\n";
        for (Backend backend : {Backend::Cpu, Backend::Cuda}) {
            if (!options.wants(backend) || (backend == Backend::Cuda && !cudaDevice().usable)) continue;
            // Tolerance 0 only where pixels are equal (after a camera change no pixel is, and the search
            // would have no strong component to prune with).
            for (double tolerance : {0.0, 2.0}) {
                if (p.changed && tolerance == 0.0) continue;
                CommonComponentParams params;
                params.tolerance = tolerance;
                params.normalize = p.normalize;
                CommonComponentResult r;
                BenchRow row = measure("common", p.name + ", " + commonNormalizeName(p.normalize) + ", t=" + formatNumber(tolerance), backend,
                                       options.repeat,
                                       [&](JobControl& job) { r = findCommonComponent(p.a, p.b, params, backend, job); });
                row.extra = statsJson(r);
                row.extra["coverage"] = r.confidence.coverage;
                row.extra["reliable"] = r.confidence.reliable;
                row.extra["peak"] = r.confidence.registrationPeak;
                // The crops: the true offset (-512, 0) with >= 90 % of the overlap at t = 2; unrelated: flagged.
                row.verified = p.related ? (tolerance == 0.0 || (r.dx == -512 && r.dy == 0 && r.confidence.coverage >= 0.9))
                                         : !r.confidence.reliable;
                JobControl pcJob;
                const auto t0 = std::chrono::steady_clock::now();
                common_component::registerByPhaseCorrelation(
                    p.a, p.b, common_component::offsetRange(p.a.width(), p.a.height(), p.b.width(), p.b.height(), -1), pcJob);
                const double pcMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
                row.note = "coverage " + formatNumber(r.confidence.coverage) + (r.confidence.reliable ? "" : " (not reliable)") +
                           ", offset " + std::to_string(r.dx) + "," + std::to_string(r.dy) + "; phase correlation alone " +
                           formatNumber(pcMs) + " ms";
                if (options.log)
                    *options.log << "    " << backendName(backend) << " t=" << tolerance << ": " << row.totalMs << " ms, "
                                 << row.note << ", labelled " << r.stats.labelled << "\n";
                rows.push_back(row);
            }
        }
    }
}

std::vector<BenchRow> runCommonBench(const BenchOptions& options) {
    // --sizes: a side for both cases ("512"), or one case at a side ("crops:1024", "random4:256"), or
    // "real" (the registration cases). Without --sizes: all of them.
    std::vector<std::pair<std::string, int>> specs;
    bool registration = false;
    for (const auto& item : options.sizes) {
        const auto colon = item.find(':');
        const std::string kind = colon == std::string::npos ? "" : item.substr(0, colon);
        const std::string side = colon == std::string::npos ? item : item.substr(colon + 1);
        char* end = nullptr;
        const long v = std::strtol(side.c_str(), &end, 10);
        if (item == "real") {
            registration = true;
            continue;
        }
        if (side.empty() || *end != '\0' || v < 16 || v > 8192 || (!kind.empty() && kind != "crops" && kind != "random4"))
            throw UsageError("bench common: --sizes takes sides from 16 to 8192, optionally as crops:N or random4:N, or real (got '" +
                             item + "')");
        if (kind.empty() || kind == "crops") specs.push_back({"crops", static_cast<int>(v)});
        if (kind.empty() || kind == "random4") specs.push_back({"random4", static_cast<int>(v)});
    }
    if (specs.empty() && (options.sizes.empty() || !registration)) specs = {{"crops", 1024}, {"random4", 512}};
    if (options.sizes.empty()) registration = true;
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
    if (registration) addRegistrationRows(options, rows);
    return rows;
}

} // namespace

void registerCommonBench() { registerBench("common", runCommonBench); }

} // namespace glint
