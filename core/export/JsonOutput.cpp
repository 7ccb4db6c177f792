#include "export/JsonOutput.h"

#include "util/AtomicFile.h"


namespace glint {

Json timingJson(const Timing& timing) {
    Json steps = Json::object();
    for (const auto& s : timing.steps()) steps[s.name] = s.ms;
    return Json{{"total", timing.total()}, {"steps", steps}};
}

Json resultDocument(const std::string& algorithm, const std::string& backend, const std::string& device,
                    const Timing& timing) {
    Json doc = Json::object();
    doc["algorithm"] = algorithm;
    doc["backend"] = backend;
    doc["device"] = device;
    doc["timing_ms"] = timingJson(timing);
    return doc;
}

void writeJson(const Json& doc, const std::string& dest) {
    // nlohmann writes doubles with max_digits10, so they round-trip exactly.
    const std::string text = doc.dump(2) + "\n";
    if (dest == "-") {
        writeStandardOutput(text);
        return;
    }
    writeFileAtomically(dest, text);
}

} // namespace glint
