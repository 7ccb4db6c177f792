#include "ui/modules/TraceWorker.h"

#include "core/jobs/Backend.h"
#include "core/jobs/JobControl.h"

#include <chrono>

namespace glint::ui {

TraceWorker::TraceWorker(std::shared_ptr<const glint::Image> image, FieldReady onFieldReady)
    : image_(std::move(image)), onFieldReady_(std::move(onFieldReady)) {}

bool TraceWorker::sameField(const glint::TraceFieldOptions& a, const glint::TraceFieldOptions& b) {
    if (a.score != b.score) return false;
    switch (a.score) {
    case glint::TraceScore::Magnitude: return true;
    case glint::TraceScore::Sine: return a.sineThresholdFraction == b.sineThresholdFraction;
    case glint::TraceScore::Ridge:
        return a.lineWidth == b.lineWidth && a.polarity == b.polarity && a.saturation == b.saturation;
    }
    return false;
}

glint::LineTracer& TraceWorker::tracer(const glint::TraceFieldOptions& options, glint::Backend requested) {
    // Resolve first: a backend that cannot run should fail before the field is computed for nothing.
    const glint::Backend resolved = glint::BackendRegistry<glint::LineTracer>::resolve(requested);
    FieldReport report;
    report.options = options;
    report.backend = resolved;
    const auto start = std::chrono::steady_clock::now();
    if (!field_ || !sameField(field_->options(), options)) {
        glint::Timing timing;
        {
            auto step = timing.scope("field");
            field_ = glint::TraceField::compute(*image_, options);
        }
        ++fieldsComputed_;
        report.steps = timing.steps();
    }
    if (!tracer_ || resolved_ != resolved) {
        tracer_ = glint::BackendRegistry<glint::LineTracer>::create(resolved);
        resolved_ = resolved;
        boundFieldId_ = 0;
    }
    if (boundFieldId_ != field_->id()) {
        glint::JobControl bind;
        tracer_->setField(field_, bind);
        boundFieldId_ = field_->id();
        ++fieldsBound_;
        for (const glint::TimingStep& s : bind.timing().steps()) report.steps.push_back(s);
        report.device = bind.device();
    }
    if (!report.steps.empty() && onFieldReady_) {
        if (report.device.empty()) report.device = glint::deviceNameFor(resolved);
        report.totalMs = glint::msSince(start);
        onFieldReady_(report);
    }
    return *tracer_;
}

} // namespace glint::ui
