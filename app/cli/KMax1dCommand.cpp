// glint-cli kmax1d: the K largest sums of distinct contiguous segments of a sequence: a file's values in
// reading order (CSV/TXT, any image), or a random sequence.
#include "core/algo/kmax/KMax.h"
#include "core/algo/Options.h"
#include "app/cli/Commands.h"
#include "core/export/JsonOutput.h"
#include "core/io/ImageLoader.h"
#include "core/util/Errors.h"

#include <climits>
#include <iomanip>
#include <iostream>

namespace glint::cli {

namespace {

int nonNegative(const ParsedArgs& a, const std::string& name) {
    return static_cast<int>(parseInteger(*a.value(name), name, 0, INT_MAX));
}

constexpr int kTextRows = 20; // segments listed on the terminal; the JSON holds them all

} // namespace

int runKMax1dCommand(const std::vector<std::string>& args) {
    const ParsedArgs a =
        parseArgs(args, {{"--k", "--random", "--seed", "--backend", "--json", "--hdu", "--plane", "--frame"}, {}});
    const bool random = a.has("--random");
    if (random == (a.positionals.size() == 1) || a.positionals.size() > 1)
        throw UsageError("kmax1d takes one FILE or --random N");
    if (a.has("--seed") && !random) throw UsageError("option '--seed' goes with --random");
    const auto kText = a.value("--k");
    if (!kText) throw UsageError("kmax1d needs --k K");
    const long long k = parseResultCount(*kText, "--k");
    const Backend backend = parseBackend(a.valueOr("--backend", "auto"));

    KMaxSequence sequence;
    std::string input;
    if (random) {
        // The sequence and the search's tables are held in memory: N is bounded by the budget of KMax.h.
        const long long n = parseInteger(*a.value("--random"), "--random");
        if (n < 1 || static_cast<unsigned long long>(n) > kMaxKMaxRandomLength)
            throw UsageError("option '--random' takes a length from 1 to " + std::to_string(kMaxKMaxRandomLength) +
                             " (got " + std::to_string(n) + "): about " + std::to_string(kKMaxValueBytes) +
                             " bytes a value are held in memory, within " + std::to_string(kKMaxMemoryBudget >> 30) +
                             " GiB");
        long long seed = 1;
        if (auto v = a.value("--seed")) seed = parseInteger(*v, "--seed");
        sequence = KMaxSequence::random(static_cast<std::size_t>(n), static_cast<std::uint64_t>(seed));
        input = "random " + std::to_string(n) + " seed " + std::to_string(seed);
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
