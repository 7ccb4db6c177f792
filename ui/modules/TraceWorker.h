// The worker-thread side of the Trace tool on one image: the score field of the chosen mode and the
// backend bound to it, built on first use and then shared by every live and fixed trace on that image.
#pragma once

#include "core/algo/trace/LineTrace.h"
#include "core/jobs/Timing.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace glint::ui {

class TraceWorker {
public:
    // What preparing a field cost (computing it, and binding it to the backend), for the timing log.
    struct FieldReport {
        glint::TraceFieldOptions options;
        glint::Backend backend = glint::Backend::Cpu;
        std::string device;
        std::vector<glint::TimingStep> steps; // "field" when computed, "upload field" on the GPU
        double totalMs = 0.0;
    };
    // Called on the worker thread after a field was computed or bound to a new backend.
    using FieldReady = std::function<void(const FieldReport&)>;

    TraceWorker(std::shared_ptr<const glint::Image> image, FieldReady onFieldReady);

    // Worker thread. Calls must not overlap: the Trace module runs them one at a time through a single
    // LatestRequestRunner, which is what makes the unlocked cache below safe. The field is computed only
    // when the options differ from the cached field's, and setField runs once per field and backend,
    // so a trace under the mouse pays for the trace alone. Throws what TraceField::compute and
    // BackendRegistry::resolve throw (UsageError, BackendUnavailable).
    glint::LineTracer& tracer(const glint::TraceFieldOptions& options, glint::Backend requested);

    const std::shared_ptr<const glint::Image>& image() const { return image_; }
    // The backend of the last tracer() call (worker thread, or the UI thread once that call has returned).
    glint::Backend resolvedBackend() const { return resolved_; }
    // How many fields were computed and how many times a field was bound (tests check the reuse).
    int fieldsComputed() const { return fieldsComputed_; }
    int fieldsBound() const { return fieldsBound_; }

    static bool sameField(const glint::TraceFieldOptions& a, const glint::TraceFieldOptions& b);

private:
    std::shared_ptr<const glint::Image> image_;
    FieldReady onFieldReady_;
    std::shared_ptr<const glint::TraceField> field_;
    std::unique_ptr<glint::LineTracer> tracer_;
    glint::Backend resolved_ = glint::Backend::Cpu;
    std::uint64_t boundFieldId_ = 0;
    int fieldsComputed_ = 0;
    int fieldsBound_ = 0;
};

} // namespace glint::ui
