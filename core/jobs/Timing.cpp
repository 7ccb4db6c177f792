#include "core/jobs/Timing.h"

#include "core/jobs/StepReport.h"

#include <algorithm>

namespace glint {

void Timing::add(const std::string& name, double ms) {
    for (auto& s : steps_)
        if (s.name == name) {
            s.ms += ms;
            return;
        }
    steps_.push_back({name, ms});
}

double Timing::step(const std::string& name) const {
    for (const auto& s : steps_)
        if (s.name == name) return s.ms;
    return 0.0;
}

double Timing::total() const {
    if (total_ >= 0.0) return total_;
    double sum = 0.0;
    for (const auto& s : steps_) sum += s.ms;
    return sum;
}

void Timing::merge(const Timing& other) {
    for (const auto& s : other.steps_) add(s.name, s.ms);
    if (other.total_ >= 0.0 || total_ >= 0.0) total_ = (total_ >= 0.0 ? total_ : 0.0) + other.total();
    if (other.deviceInitMs_ >= 0.0) {
        deviceInitMs_ = other.deviceInitMs_;
        deviceWaitMs_ = std::max(deviceWaitMs_, 0.0) + other.deviceWaitMs_;
    }
}

Timing::Scope::Scope(Timing& timing, std::string name)
    : timing_(&timing), name_(std::move(name)), start_(std::chrono::steady_clock::now()) {
    reportStep(name_); // the window's progress shows the step that runs
}

Timing::Scope::~Scope() { stop(); }

double Timing::Scope::stop() {
    if (stopped_) return 0.0;
    stopped_ = true;
    const double ms = msSince(start_);
    timing_->add(name_, ms);
    return ms;
}

} // namespace glint
