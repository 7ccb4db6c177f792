// The one error type of the SAMP library: every failure (no hub, a bad lockfile, a timeout, an HTTP error,
// an XML-RPC fault, a file that cannot be sent) as a message a user can act on.
#pragma once

#include <stdexcept>
#include <string>

namespace glint::samp {

class SampError : public std::runtime_error {
public:
    explicit SampError(const std::string& message) : std::runtime_error(message) {}
};

// The hint every "no hub" message ends with.
inline constexpr const char* kNoHubMessage = "no SAMP hub running (start TOPCAT or DS9, or astropy's samp_hub)";

} // namespace glint::samp
