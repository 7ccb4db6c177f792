// The glint-cli commands. The image algorithms' commands (brightest, trace, common) are one generic
// command over their descriptors (core/algo/Algorithm.h, cli/AlgorithmCommand.cpp); the others live in
// their own files (cli/InfoCommand.cpp, ...). All are listed once in cli/Commands.cpp. A command returns
// its exit code or throws one of the errors of util/Errors.h.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace glint {
class Algorithm;
}

namespace glint::cli {

struct Command {
    std::string name;
    std::string usage;   // the synopsis line(s) of DESIGN.md
    std::string summary; // one line for the command list
    std::string help;    // what --help adds after the synopsis: one line per option (empty: the synopsis says it all)
    std::function<int(const std::vector<std::string>& args)> run;
};

const std::vector<Command>& commands();

int runInfo(const std::vector<std::string>& args);
int runBench(const std::vector<std::string>& args);
int runBatch(const std::vector<std::string>& args);
int runMerge(const std::vector<std::string>& args);
int runKMax1dCommand(const std::vector<std::string>& args);
std::string kmax1dHelp();
// `glint-cli NAME IMAGE...` for an image algorithm: its options, the shared ones (--backend, --json,
// --overlay, --regions, --hdu, --plane, --frame) and its own outputs.
int runAlgorithmCommand(const Algorithm& algorithm, const std::vector<std::string>& args);
std::string algorithmUsage(const Algorithm& algorithm);
std::string algorithmHelp(const Algorithm& algorithm);

} // namespace glint::cli
