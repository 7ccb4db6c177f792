// Temporary files are removed when the process is killed by SIGTERM, SIGINT or SIGHUP.
//
// Every temporary Glint writes (AtomicFile's hidden ".NAME.tmp-..." beside each target) is registered here
// before it is created and cleared once it has been renamed over its target or removed. The handlers that
// installSignalCleanup() sets unlink every registered path, then restore the signal's default action and
// raise it again, so the process still ends as killed by that signal (exit status, core dumps, shells'
// messages unchanged). A target being replaced is never touched: it is either the old file or, once the
// rename happened, the complete new one.
//
// The table is a fixed array of slots written and read without locks (async-signal-safe): a slot is claimed
// by a compare-and-swap (free → writing), its path copied, then published (live) with a release store; the
// handler reads only live slots. A path is published before its file is created, so there is no moment at
// which a temporary exists unregistered. Signals that were ignored when the handlers were installed (nohup's
// SIGHUP, a background job's SIGINT) stay ignored.
#pragma once

namespace glint {

// Installs the handlers (once per process; later calls do nothing). glint-cli and glint call it first thing.
void installSignalCleanup();

// Registers `path` (copied; at most 4095 bytes) to be unlinked if a handled signal kills the process.
// Returns the slot to pass to unregisterTemporary(), or -1 when the path is too long or every slot is taken
// (the file is then still removed by the normal paths, only not on a signal).
int registerTemporary(const char* path);

// Forgets the slot (after the file was renamed or unlinked); -1 is ignored.
void unregisterTemporary(int slot);

// How many paths are registered now (for tests).
int registeredTemporaryCount();

} // namespace glint
