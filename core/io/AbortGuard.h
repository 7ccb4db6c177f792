// Runs third-party decoding code that may call abort() on a damaged file (Debian builds GDCM with its
// assertions enabled) and turns such an abort on the calling thread into a failure the caller reports.
#pragma once

#include <functional>

namespace glint {

// Calls fn(). Returns false when fn called abort() on this thread: the frames it was running are
// abandoned (their memory is leaked, never freed twice), so fn must hold no lock and own nothing the
// caller needs back. An abort() on any other thread, or outside fn, still ends the process as before.
// Exceptions thrown by fn pass through.
bool runGuardedAgainstAbort(const std::function<void()>& fn);

} // namespace glint
