// Which step a job is in, for a progress display ("Brightest region: measure"): Timing::Scope reports each step
// it starts to the listener set on its own thread. The window's job runner sets one on its worker thread; steps
// timed on other threads (an algorithm's helpers) are not reported. No listener: nothing happens.
#pragma once

#include <functional>
#include <string>

namespace glint {

using StepListener = std::function<void(const std::string& step)>;

// Sets this thread's listener (an empty one removes it); returns the one it replaces.
StepListener setThreadStepListener(StepListener listener);
// Tells this thread's listener, if any, that the step of that name starts.
void reportStep(const std::string& step);

} // namespace glint
