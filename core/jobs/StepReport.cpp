#include "core/jobs/StepReport.h"

#include <utility>

namespace glint {

namespace {
thread_local StepListener threadListener;
} // namespace

StepListener setThreadStepListener(StepListener listener) { return std::exchange(threadListener, std::move(listener)); }

void reportStep(const std::string& step) {
    if (threadListener) threadListener(step);
}

} // namespace glint
