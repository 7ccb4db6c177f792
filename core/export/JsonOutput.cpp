#include "core/export/JsonOutput.h"

#include "core/util/AtomicFile.h"


namespace glint {

Json timingJson(const Timing& timing) {
    Json steps = Json::object();
    for (const auto& s : timing.steps()) steps[s.name] = s.ms;
    Json j{{"total", timing.total()}, {"steps", steps}};
    // The GPU's one-time set-up, apart from the algorithm's total (see Timing::setDeviceInit).
    if (timing.deviceInit() >= 0.0) {
        j["device_init"] = timing.deviceInit();
        j["device_wait"] = timing.deviceWait();
    }
    return j;
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
