// Order-preserving 64-bit keys of sums: integers and doubles as unsigned keys that sort as the values do
// (the percentile pivot's radix selection, the K-MSP threshold selection on the CPU and the GPU). Plain
// inline code for host and device.
#pragma once

#include "core/util/HostDevice.h"

#include <cstdint>
#include <cstring>

namespace glint {

// Keys that order as the values do: integers offset by 2^63, doubles by the usual sign flip (+0 and -0
// differ by one: sums are normalised to +0 before they get a key).
GLINT_HD std::uint64_t orderedKey(long long v) { return static_cast<std::uint64_t>(v) ^ 0x8000000000000000ull; }
GLINT_HD std::uint64_t orderedKey(int v) { return orderedKey(static_cast<long long>(v)); }
GLINT_HD std::uint64_t orderedKey(long v) { return orderedKey(static_cast<long long>(v)); }
GLINT_HD std::uint64_t orderedKey(double v) {
    std::uint64_t b;
#if defined(__CUDA_ARCH__)
    b = static_cast<std::uint64_t>(__double_as_longlong(v));
#else
    std::memcpy(&b, &v, sizeof(b));
#endif
    return (b & 0x8000000000000000ull) ? ~b : (b | 0x8000000000000000ull);
}

} // namespace glint
