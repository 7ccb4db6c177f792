#include "core/params/ParamsFile.h"

#include "core/util/Errors.h"
#include "core/util/InputFile.h"
#include "core/util/Printable.h"

namespace glint {

namespace {

constexpr std::uint64_t kMaxParamsBytes = 64ULL << 20; // an output with every exclusion polygon fits easily

} // namespace

Json readParamsFile(const ParamSpecBase& spec, const std::string& path) {
    const std::string where = "--params '" + printableMessage(path, 200) + "'";
    std::string text;
    try {
        const InputFile file(path);
        if (file.size() > kMaxParamsBytes) throw UsageError(where + ": the file is larger than 64 MiB");
        text = file.read(static_cast<std::size_t>(file.size()));
    } catch (const InputError& e) {
        throw UsageError(std::string("option '--params': ") + e.what());
    }
    Json doc;
    try {
        doc = Json::parse(text);
    } catch (const Json::exception& e) {
        throw UsageError(where + ": not JSON (" + printableMessage(e.what(), 120) + ")");
    }
    if (!doc.is_object()) throw UsageError(where + ": the parameters must be a JSON object");
    if (doc.contains("parameters")) {
        if (doc.contains("algorithm") && doc["algorithm"] != spec.algorithm())
            throw UsageError(where + ": the parameters of " + jsonText(doc["algorithm"]) + ", not of " + spec.algorithm());
        doc = doc["parameters"];
    }
    spec.checkRequest(doc, where);
    return doc;
}

Json requestFromArgs(const ParamSpecBase& spec, const ParsedArgs& args) {
    Json request = Json::object();
    if (auto path = args.value("--params")) request = readParamsFile(spec, *path);
    const Json given = spec.request(args);
    for (const auto& [key, value] : given.items()) request[key] = value;
    return request;
}

} // namespace glint
