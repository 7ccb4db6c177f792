#include "app/cli/Commands.h"

#include "core/algo/Algorithm.h"
#include "bench/Bench.h"

namespace glint::cli {

namespace {

Command algorithmCommand(const Algorithm& algorithm) {
    return {algorithm.name(), algorithmUsage(algorithm), algorithm.summary(), algorithmHelp(algorithm),
            [&algorithm](const std::vector<std::string>& args) { return runAlgorithmCommand(algorithm, args); }};
}

} // namespace

const std::vector<Command>& commands() {
    static const std::vector<Command> list = [] {
        std::vector<Command> l = {
            {"info", "glint-cli info IMAGE [--hdu N] [--plane N] [--frame N] [--json FILE|-]",
             "describe an image: size, depth, statistics, HDUs, WCS", {}, &runInfo},
        };
        l.push_back(algorithmCommand(brightestAlgorithm()));
        l.push_back({"kmax1d",
                     "glint-cli kmax1d (FILE | --random N [--seed S]) --k K [--backend auto|cuda|cpu|reference] "
                     "[--json FILE|-]",
                     "the K largest sums of distinct contiguous segments of a sequence (values in reading order)",
                     kmax1dHelp(), &runKMax1dCommand});
        registerAllBenches();
        std::string benchNames;
        for (const auto& b : benches()) benchNames += b.first + "|";
        l.push_back({"bench",
                     "glint-cli bench [" + benchNames + "all] [--sizes LIST] [--backends LIST] "
                     "[--repeat R]\n"
                     "          [--fields sparse,crowded,galaxies] [--report OUT.json|OUT.csv|OUT.html|OUT.md]",
                     "time the algorithms on generated cases, with speed-ups against reference and cpu", {}, &runBench});
        for (const Algorithm* a : algorithms())
            if (a != &brightestAlgorithm()) l.push_back(algorithmCommand(*a));
        std::string names;
        for (const Algorithm* a : algorithms()) names += std::string("|") + a->name();
        l.push_back({"batch",
                     "glint-cli batch --algo info" + names +
                         " [ALGO OPTIONS] [--shard I/N] [--hdu N] [--plane N] [--frame N]\n"
                         "          [--resume] [--failures FILE] [--files-from LIST|-] [--jobs N|auto] [--devices all|I,J]\n"
                         "          --out RESULTS.csv|- FILE_OR_DIR...\n"
                         "          (trace: the same --from/--to/--via for every file; common: --with IMAGE_B, "
                         "every file against it)",
                     "one algorithm over many files into one CSV; bad files are reported and skipped",
                     "  --shard I/N        every N-th file of the sorted list from the I-th (cluster job arrays)\n"
                     "  --resume           keep the files an interrupted or earlier run finished (same path and content)\n"
                     "  --failures FILE    list the files that failed, each after a '#' line with its reason\n"
                     "  --files-from LIST  also process the paths in LIST (one a line, '#' lines ignored; - for stdin)\n"
                     "  --jobs N|auto      files in flight at once, each with its share of the cores (default auto: one a\n"
                     "                     CPU thread); the output is the same for any N\n"
                     "  --devices all|I,J  CUDA devices to spread the files over (with --backend cuda or auto)\n",
                     &runBatch});
        l.push_back({"merge", "glint-cli merge OUT.csv|- PART.csv...",
                     "join the CSVs of batch --shard 1/N .. N/N into the CSV of the unsharded run", {}, &runMerge});
        return l;
    }();
    return list;
}

} // namespace glint::cli
