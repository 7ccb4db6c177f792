// Helpers of the line trace suites (test_trace_optimum, test_trace_scenes, test_trace_inputs): a backend's
// tracer with its field set.
#pragma once

#include "core/algo/trace/LineTrace.h"
#include "core/jobs/Backend.h"
#include "core/jobs/JobControl.h"

#include <memory>
#include <utility>

namespace glint::test {

inline std::unique_ptr<LineTracer> tracerFor(Backend backend, std::shared_ptr<const TraceField> field) {
    auto tracer = BackendRegistry<LineTracer>::create(backend);
    JobControl job;
    tracer->setField(std::move(field), job);
    return tracer;
}

} // namespace glint::test
