#include "io/AbortGuard.h"

#include <csetjmp>
#include <csignal>
#include <exception>
#include <mutex>

namespace glint {

namespace {

// The jump target of the guarded call running on this thread, if any. abort() raises SIGABRT on the
// thread that called it, so the handler finds the right one here.
thread_local sigjmp_buf* tlsTarget = nullptr;

std::mutex installMutex;
int installCount = 0;
struct sigaction previousAction;

void onAbort(int) {
    if (sigjmp_buf* target = tlsTarget) {
        tlsTarget = nullptr;
        // POSIX lets abort() end in a handler that does not return; glibc released its lock before raising.
        siglongjmp(*target, 1);
    }
    // Not ours: the previous disposition handles it once this handler returns (SIGABRT is blocked here).
    sigaction(SIGABRT, &previousAction, nullptr);
    std::raise(SIGABRT);
}

// Installed while any guarded call runs, so that handlers set later by others (crash reporters,
// test frameworks) are replaced only for that time and then put back.
class HandlerScope {
public:
    HandlerScope() {
        std::lock_guard lock(installMutex);
        if (installCount++ > 0) return;
        struct sigaction action {};
        action.sa_handler = onAbort;
        sigemptyset(&action.sa_mask);
        action.sa_flags = 0;
        sigaction(SIGABRT, &action, &previousAction);
    }
    ~HandlerScope() {
        std::lock_guard lock(installMutex);
        if (--installCount == 0) sigaction(SIGABRT, &previousAction, nullptr);
    }
    HandlerScope(const HandlerScope&) = delete;
    HandlerScope& operator=(const HandlerScope&) = delete;
};

} // namespace

bool runGuardedAgainstAbort(const std::function<void()>& fn) {
    HandlerScope scope;
    sigjmp_buf target;
    sigjmp_buf* const outer = tlsTarget;
    // savemask = 1: the jump restores the signal mask, unblocking SIGABRT again.
    if (sigsetjmp(target, 1) != 0) {
        tlsTarget = outer;
        return false;
    }
    tlsTarget = &target;
    std::exception_ptr error;
    try {
        fn();
    } catch (...) {
        error = std::current_exception();
    }
    tlsTarget = outer;
    if (error) std::rethrow_exception(error);
    return true;
}

} // namespace glint
