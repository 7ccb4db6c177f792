#include "core/util/SignalCleanup.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <signal.h>
#include <unistd.h>

namespace glint {

namespace {

constexpr int kSlots = 256;
constexpr std::size_t kPathBytes = 4096;

enum SlotState : int { Free = 0, Writing = 1, Live = 2 };

// Constant-initialised, all zero (the path too): the slots sit in .bss, untouched until used. (With the path left
// uninitialised the slots needed a dynamic initialiser that wrote each state at start-up, faulting in 1 MB: ~3.5 ms
// of every process's start.)
struct Slot {
    std::atomic<int> state{Free};
    char path[kPathBytes] = {};
};

static_assert(std::atomic<int>::is_always_lock_free, "the signal handler reads the slots' states");

constinit Slot gSlots[kSlots];
std::atomic<int> gCleaning{0};

constexpr int kSignals[] = {SIGTERM, SIGINT, SIGHUP};

extern "C" void onTerminatingSignal(int sig) {
    const int savedErrno = errno;
    // The first signal removes the files; another one arriving meanwhile (on another thread) only waits
    // to be re-raised below, after the default action is back.
    if (gCleaning.exchange(1) == 0) {
        for (Slot& slot : gSlots)
            if (slot.state.load(std::memory_order_acquire) == Live) ::unlink(slot.path);
    }
    // The default action, raised again: the process ends as killed by `sig`.
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    ::sigaction(sig, &dfl, nullptr);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    ::sigprocmask(SIG_UNBLOCK, &set, nullptr);
    ::raise(sig);
    errno = savedErrno; // not reached for SIGTERM/SIGINT/SIGHUP, whose default action ends the process
}

} // namespace

void installSignalCleanup() {
    static const bool installed = [] {
        for (const int sig : kSignals) {
            struct sigaction old {};
            if (::sigaction(sig, nullptr, &old) != 0) continue;
            if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_IGN) continue; // nohup, background jobs
            struct sigaction action {};
            action.sa_handler = onTerminatingSignal;
            sigemptyset(&action.sa_mask);
            for (const int other : kSignals) sigaddset(&action.sa_mask, other); // one handler at a time per thread
            action.sa_flags = 0;
            ::sigaction(sig, &action, nullptr);
        }
        return true;
    }();
    (void)installed;
}

int registerTemporary(const char* path) {
    const std::size_t n = std::strlen(path);
    if (n >= kPathBytes) return -1;
    for (int i = 0; i < kSlots; ++i) {
        int expected = Free;
        if (!gSlots[i].state.compare_exchange_strong(expected, Writing, std::memory_order_acquire)) continue;
        std::memcpy(gSlots[i].path, path, n + 1);
        gSlots[i].state.store(Live, std::memory_order_release);
        return i;
    }
    return -1;
}

void unregisterTemporary(int slot) {
    if (slot < 0 || slot >= kSlots) return;
    gSlots[slot].state.store(Free, std::memory_order_release);
}

int registeredTemporaryCount() {
    int count = 0;
    for (const Slot& slot : gSlots)
        if (slot.state.load(std::memory_order_acquire) == Live) ++count;
    return count;
}

} // namespace glint
