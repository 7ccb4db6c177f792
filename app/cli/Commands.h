// The glint-cli commands. Each lives in its own file (cli/InfoCommand.cpp, ...) and is listed once in
// cli/Commands.cpp. A command returns its exit code or throws one of the errors of util/Errors.h.
#pragma once

#include <string>
#include <vector>

namespace glint::cli {

struct Command {
    const char* name;
    const char* usage;   // the synopsis line(s) of DESIGN.md
    const char* summary; // one line for the command list
    int (*run)(const std::vector<std::string>& args);
};

const std::vector<Command>& commands();

int runInfo(const std::vector<std::string>& args);
int runBench(const std::vector<std::string>& args);
int runTrace(const std::vector<std::string>& args);
int runCommon(const std::vector<std::string>& args);
int runBrightestCommand(const std::vector<std::string>& args);
int runBatch(const std::vector<std::string>& args);
int runKMax1dCommand(const std::vector<std::string>& args);

} // namespace glint::cli
