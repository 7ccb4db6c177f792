// The list every layer loops over: one line per algorithm.
#include "core/algo/Algorithm.h"

#include "core/util/Errors.h"

namespace glint {

const std::vector<const Algorithm*>& algorithms() {
    static const std::vector<const Algorithm*> list = {
        &brightestAlgorithm(),
        &traceAlgorithm(),
        &commonAlgorithm(),
        &sourcesAlgorithm(),
    };
    return list;
}

const Algorithm* findAlgorithm(const std::string& name) {
    for (const Algorithm* a : algorithms())
        if (name == a->name()) return a;
    return nullptr;
}

namespace {

// The task of a request: the algorithm's run() for each image.
class RequestTask final : public AlgorithmTask {
public:
    RequestTask(const Algorithm& algorithm, Json request) : algorithm_(algorithm), request_(std::move(request)) {}
    std::unique_ptr<AlgorithmOutcome> run(const AlgorithmInputs& inputs, Backend backend, JobControl& job) const override {
        return algorithm_.run(request_, inputs, backend, job);
    }

private:
    const Algorithm& algorithm_;
    Json request_;
};

} // namespace

std::unique_ptr<AlgorithmTask> Algorithm::prepare(const Json& request) const {
    spec().checkEarly(request);
    checkRequest(request);
    return std::make_unique<RequestTask>(*this, request);
}

void AlgorithmOutcome::writeOutput(const std::string& option, const std::string&) const {
    throw UsageError("option '" + option + "' is not an output of this command");
}

} // namespace glint
