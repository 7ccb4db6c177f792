// The list every layer loops over: one line per algorithm.
#include "core/algo/Algorithm.h"

#include "core/util/Errors.h"

namespace glint {

const std::vector<const Algorithm*>& algorithms() {
    static const std::vector<const Algorithm*> list = {
        &brightestAlgorithm(),
        &traceAlgorithm(),
        &commonAlgorithm(),
    };
    return list;
}

const Algorithm* findAlgorithm(const std::string& name) {
    for (const Algorithm* a : algorithms())
        if (name == a->name()) return a;
    return nullptr;
}

void AlgorithmOutcome::writeOutput(const std::string& option, const std::string&) const {
    throw UsageError("option '" + option + "' is not an output of this command");
}

} // namespace glint
