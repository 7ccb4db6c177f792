// Error types shared by every layer. Each maps to one exit code of glint-cli and one kind of message
// in the window, so callers never have to guess how to report a failure.
#pragma once

#include <stdexcept>
#include <string>

namespace glint {

// Bad usage or an invalid option value (K <= 0, negative tolerance, ...): exit code 2.
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Bad input: unreadable, corrupt, unsupported or absurd file contents: exit code 3.
class InputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The requested backend cannot run here (e.g. --backend cuda with no usable GPU): exit code 4.
class BackendUnavailable : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A backend cannot take this work (the device lacks the memory, or the backend has no kernel for the search
// asked): the job runs it on the backend the registry declares as this one's fallback (BackendRegistry::add),
// or, without one, reports it as unavailable. Thrown before the backend has produced anything.
class BackendDeclined : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A job was cancelled through its token. Not an error the user needs to be told about.
class Cancelled : public std::runtime_error {
public:
    Cancelled() : std::runtime_error("cancelled") {}
};

// Writing an output file failed (read-only folder, full disk). Reported like bad input: exit code 3.
class OutputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

} // namespace glint
