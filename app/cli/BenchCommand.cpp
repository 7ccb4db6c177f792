// glint-cli bench: times the algorithms on generated cases and writes a report.
#include "bench/Bench.h"
#include "core/params/Options.h"
#include "app/cli/Commands.h"
#include "core/util/AtomicFile.h"
#include "core/util/Errors.h"

#include <iostream>

namespace glint::cli {

int runBench(const std::vector<std::string>& args) {
    const ParsedArgs a = parseArgs(args, {{"--sizes", "--backends", "--repeat", "--report", "--fields"}, {}});
    registerAllBenches();
    std::string which = "all";
    if (a.positionals.size() > 1) throw UsageError("bench takes at most one algorithm name");
    if (a.positionals.size() == 1) which = a.positionals[0];

    BenchOptions options;
    options.log = &std::cerr;
    if (auto v = a.value("--repeat")) {
        const long long r = parseInteger(*v, "--repeat");
        if (r < 1 || r > 10000) throw UsageError("option '--repeat' must be between 1 and 10000");
        options.repeat = static_cast<int>(r);
    }
    auto splitList = [](const std::string& text) {
        std::vector<std::string> items;
        std::size_t start = 0;
        while (start <= text.size()) {
            const std::size_t comma = text.find(',', start);
            std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
            if (!item.empty()) items.push_back(item);
            if (comma == std::string::npos) break;
            start = comma + 1;
        }
        return items;
    };
    if (auto v = a.value("--sizes")) options.sizes = splitList(*v);
    if (auto v = a.value("--fields")) options.fields = splitList(*v);
    if (auto v = a.value("--backends")) {
        for (const auto& name : splitList(*v)) {
            const Backend b = parseBackend(name);
            if (b == Backend::Auto) throw UsageError("--backends lists concrete backends (cuda, cpu, reference)");
            if (b == Backend::Cuda && !cudaDevice().usable)
                throw BackendUnavailable("no usable CUDA device: " + cudaDevice().reason);
            options.backends.push_back(b);
        }
    }
    // Checked before the (long) run: an unknown extension is a usage error, not a lost bench.
    if (auto report = a.value("--report")) {
        timingReportFormatForPath(*report);
        // The table goes to standard output: a report there would be mixed into it.
        checkOutputTargets(std::vector<NamedFile>{}, {{"the bench's table", "-"}, {"--report", *report}});
    }

    std::vector<BenchRow> rows;
    bool found = false;
    for (const auto& [name, fn] : benches()) {
        if (which != "all" && which != name) continue;
        found = true;
        std::cerr << "bench " << name << " on " << backendStatusText() << "\n";
        auto part = fn(options);
        rows.insert(rows.end(), part.begin(), part.end());
    }
    if (!found) {
        std::string names;
        for (const auto& b : benches()) names += (names.empty() ? "" : ", ") + b.first;
        throw UsageError("unknown bench '" + which + "' (available: " + (names.empty() ? "none" : names) + ", all)");
    }
    std::cout << benchTextTable(rows);
    if (auto report = a.value("--report")) writeBenchReport(rows, *report);
    return 0;
}

} // namespace glint::cli
