#include "core/io/AbortGuard.h"

#include <csetjmp>
#include <csignal>
#include <exception>
#include <mutex>

namespace glint {

namespace {

// The jump target of the guarded call running on this thread, if any, and the signal it guards
// against. abort() raises SIGABRT, and a division by zero SIGFPE, on the thread that caused it, so the
// handler finds the right target here.
thread_local sigjmp_buf* tlsTarget = nullptr;
thread_local int tlsSignal = 0;

struct Installed {
    std::mutex mutex;
    int count = 0;
    struct sigaction previous {};
};

Installed& installed(int signal) {
    static Installed abortState, fpeState;
    return signal == SIGABRT ? abortState : fpeState;
}

void onSignal(int signal) {
    if (sigjmp_buf* target = tlsTarget; target && tlsSignal == signal) {
        tlsTarget = nullptr;
        // POSIX lets abort() end in a handler that does not return; glibc released its lock before
        // raising. A SIGFPE handler must not return either (the division would run again).
        siglongjmp(*target, 1);
    }
    // Not ours: the previous disposition handles it (SIGABRT: once this handler returns, as the signal
    // is blocked here; SIGFPE: the faulting instruction runs again and raises it anew).
    sigaction(signal, &installed(signal).previous, nullptr);
    if (signal == SIGABRT) std::raise(signal);
}

// Installed while any guarded call runs, so that handlers set later by others (crash reporters,
// test frameworks) are replaced only for that time and then put back.
class HandlerScope {
public:
    explicit HandlerScope(int signal) : signal_(signal) {
        Installed& state = installed(signal_);
        std::lock_guard lock(state.mutex);
        if (state.count++ > 0) return;
        struct sigaction action {};
        action.sa_handler = onSignal;
        sigemptyset(&action.sa_mask);
        action.sa_flags = 0;
        sigaction(signal_, &action, &state.previous);
    }
    ~HandlerScope() {
        Installed& state = installed(signal_);
        std::lock_guard lock(state.mutex);
        if (--state.count == 0) sigaction(signal_, &state.previous, nullptr);
    }
    HandlerScope(const HandlerScope&) = delete;
    HandlerScope& operator=(const HandlerScope&) = delete;

private:
    int signal_;
};

bool runGuarded(int signal, const std::function<void()>& fn) {
    HandlerScope scope(signal);
    sigjmp_buf target;
    sigjmp_buf* const outer = tlsTarget;
    const int outerSignal = tlsSignal;
    // savemask = 1: the jump restores the signal mask, unblocking the signal again.
    if (sigsetjmp(target, 1) != 0) {
        tlsTarget = outer;
        tlsSignal = outerSignal;
        return false;
    }
    tlsTarget = &target;
    tlsSignal = signal;
    std::exception_ptr error;
    try {
        fn();
    } catch (...) {
        error = std::current_exception();
    }
    tlsTarget = outer;
    tlsSignal = outerSignal;
    if (error) std::rethrow_exception(error);
    return true;
}

} // namespace

bool runGuardedAgainstAbort(const std::function<void()>& fn) { return runGuarded(SIGABRT, fn); }

bool runGuardedAgainstFpe(const std::function<void()>& fn) { return runGuarded(SIGFPE, fn); }

} // namespace glint
