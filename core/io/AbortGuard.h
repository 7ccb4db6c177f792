// Runs third-party decoding code that may call abort() on a damaged file (Debian builds GDCM with its
// assertions enabled), or divide by zero on absurd header values (CFITSIO's tile decompression),
// and turns such a signal on the calling thread into a failure the caller reports.
#pragma once

#include <functional>

namespace glint {

// Calls fn(). Returns false when fn called abort() on this thread: the frames it was running are
// abandoned (their memory is leaked, never freed twice), so fn must hold no lock and own nothing the
// caller needs back. An abort() on any other thread, or outside fn, still ends the process as before.
// Exceptions thrown by fn pass through.
bool runGuardedAgainstAbort(const std::function<void()>& fn);

// The same for SIGFPE (an integer division by zero) raised by fn on this thread. A last resort behind
// the header checks: the library's state for the object fn worked on is abandoned with the frames.
bool runGuardedAgainstFpe(const std::function<void()>& fn);

} // namespace glint
