// glint-cli kmax1d: the K largest sums of distinct contiguous segments of a sequence: a file's values in
// reading order (CSV/TXT, any image), or a random sequence.
#include "core/algo/kmax/KMax.h"
#include "core/algo/kmax/KMax1dSpec.h"
#include "core/params/ParamsFile.h"
#include "core/params/Options.h"
#include "app/cli/Commands.h"
#include "core/export/JsonOutput.h"
#include "core/io/ImageLoader.h"
#include "core/util/AtomicFile.h"
#include "core/util/Errors.h"

#include <climits>
#include <iomanip>
#include <iostream>
#include <set>

namespace glint::cli {

namespace {

int nonNegative(const ParsedArgs& a, const std::string& name) {
    return static_cast<int>(parseInteger(*a.value(name), name, 0, INT_MAX));
}

constexpr int kTextRows = 20; // segments listed on the terminal; the JSON holds them all

} // namespace

std::string kmax1dHelp() {
    return "parameters (the JSON \"parameters\" of the output, replayable with --params):\n" + kmax1dSpec().helpText() +
           "\n  --params FILE.json  parameters of an earlier output\n  --backend auto|cuda|cpu|reference\n"
           "  --json FILE|-\n  --hdu N, --plane N, --frame N  which image of FILE\n";
}

int runKMax1dCommand(const std::vector<std::string>& args) {
    std::set<std::string> options = {"--params", "--backend", "--json", "--hdu", "--plane", "--frame"};
    for (const std::string& o : kmax1dSpec().options()) options.insert(o);
    const ParsedArgs a = parseArgs(args, {options, {}});
    const Json request = requestFromArgs(kmax1dSpec(), a);
    const KMax1dRequest params = kmax1dSpec().read(request);
    const bool random = params.random.has_value();
    if (random == (a.positionals.size() == 1) || a.positionals.size() > 1)
        throw UsageError("kmax1d takes one FILE or --random N");
    if (request.contains("seed") && !random) throw UsageError("option '--seed' goes with --random");
    if (!request.contains("k")) throw UsageError("kmax1d needs --k K");
    {
        std::vector<NamedFile> inputs, outputs;
        for (const std::string& file : a.positionals) inputs.push_back({"", file});
        if (auto v = a.value("--params")) inputs.push_back({"--params", *v});
        for (const std::string& v : a.values("--json")) outputs.push_back({"--json", v});
        checkOutputTargets(inputs, outputs);
    }
    const long long k = params.k;
    const Backend backend = parseBackend(a.valueOr("--backend", "auto"));

    KMaxSequence sequence;
    std::string input;
    if (random) {
        const long long n = *params.random;
        sequence = KMaxSequence::random(static_cast<std::size_t>(n), static_cast<std::uint64_t>(params.seed));
        input = "random " + std::to_string(n) + " seed " + std::to_string(params.seed);
    } else {
        LoadOptions options;
        if (a.has("--hdu")) options.hdu = nonNegative(a, "--hdu");
        if (a.has("--plane")) options.plane = nonNegative(a, "--plane");
        if (a.has("--frame")) options.frame = nonNegative(a, "--frame");
        input = a.positionals[0];
        sequence = KMaxSequence::fromImage(loadImage(input, options));
    }

    JobControl job;
    const KMax1dResult result = runKMax1d(sequence, static_cast<std::uint64_t>(k), backend, job);

    Json doc = resultDocument("kmax1d", backendName(result.backend), result.device, job.timing());
    doc["input"] = input;
    doc["n"] = result.length;
    doc["k"] = k;
    doc["exact_integer"] = result.exactInteger;
    doc["segment_count"] = result.segmentCount;
    Json segments = Json::array();
    for (std::size_t i = 0; i < result.segments.size(); ++i) {
        const KMaxSegment& s = result.segments[i];
        segments.push_back({{"rank", i + 1},
                            {"first", s.first},
                            {"last", s.last},
                            {"sum", result.exactInteger ? Json(s.sumInt) : Json(s.sum)}});
    }
    doc["segments"] = segments;
    doc["parameters"] = kmax1dSpec().write(params);
    if (auto dest = a.value("--json")) writeJson(doc, *dest);
    if (!a.value("--json") || *a.value("--json") != "-") {
        std::cout << input << ": " << result.length << " values, " << result.segments.size() << " of "
                  << result.segmentCount << " segments, " << backendName(result.backend) << " on " << result.device
                  << ", " << std::fixed << std::setprecision(3) << job.timing().total() << " ms\n"
                  << std::defaultfloat << std::setprecision(17);
        for (std::size_t i = 0; i < result.segments.size() && i < kTextRows; ++i) {
            const KMaxSegment& s = result.segments[i];
            std::cout << "  #" << i + 1 << "  " << s.first << ".." << s.last << "  sum ";
            if (result.exactInteger) std::cout << s.sumInt << "\n";
            else std::cout << s.sum << "\n";
        }
        if (result.segments.size() > kTextRows)
            std::cout << "  ... " << result.segments.size() - kTextRows << " more (--json lists them all)\n";
    }
    return 0;
}

} // namespace glint::cli
