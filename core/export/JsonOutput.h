// JSON documents of the command line and the bench: the fields every document carries (algorithm,
// backend, device, timing_ms) and writing to a file (atomically) or to standard output.
#pragma once

#include "core/jobs/Timing.h"

#include <nlohmann/json.hpp>

#include <string>

namespace glint {

using Json = nlohmann::ordered_json;

// {"total":T,"steps":{"name":ms,...}}
Json timingJson(const Timing& timing);
// {"algorithm":..,"backend":..,"device":..,"timing_ms":{..}} to which a command adds its own fields.
Json resultDocument(const std::string& algorithm, const std::string& backend, const std::string& device,
                    const Timing& timing);
// dest "-" = standard output (and nothing else is written there); otherwise an atomic file write.
// Doubles are written with 17 significant digits so that they read back to the same value.
void writeJson(const Json& doc, const std::string& dest);

} // namespace glint
