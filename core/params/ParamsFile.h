// Requests from the command line: a spec's options, on top of a --params FILE.json (the "parameters" object of an
// earlier output, or the object alone), with --preset among the options. One path for every algorithm command and
// batch, so that `--params` replays what an output recorded.
#pragma once

#include "core/params/ParamSpec.h"

#include <string>

namespace glint {

// The request of `args` for `spec`: the --params file's keys (when given), then the options given. UsageError
// naming the file and the key for a file that cannot be read as JSON, holds an unknown key, a value of the wrong
// type or out of range, or is the output of another algorithm; naming the option for a bad option value.
Json requestFromArgs(const ParamSpecBase& spec, const ParsedArgs& args);

// The parameters object of a --params file: its "parameters" when it is an output document (whose "algorithm",
// when present, must be the spec's), else the object itself. Checked against the spec.
Json readParamsFile(const ParamSpecBase& spec, const std::string& path);

} // namespace glint
