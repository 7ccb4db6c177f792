// The log-spaced buckets of a sum's key distance below the largest sum: the threshold selection of the
// CPU and CUDA K-MSP backends. Plain inline code for host and device.
#pragma once

#include "core/algo/maxsub/OrderedKey.h"
#include "core/util/HostDevice.h"

#include <cstdint>

namespace glint::kmax {

// The order-preserving keys (core/algo/maxsub/OrderedKey.h), as the K-MSP code names them.
using glint::orderedKey;

// Distance of a value below the largest one, in key units (exact value units for integers). The larger
// the sum, the smaller the distance; never negative.
GLINT_HD std::uint64_t keyDistance(std::uint64_t maxKey, std::uint64_t key) { return key >= maxKey ? 0 : maxKey - key; }

// Log-spaced buckets of a distance d: exact below 64, then 32 buckets per power of two (relative width
// 1/32), 1920 in all; non-decreasing in d.
constexpr int kLogBuckets = 1920;
GLINT_HD int logBucket(std::uint64_t d) {
    if (d < 64) return static_cast<int>(d);
#if defined(__CUDA_ARCH__)
    const int e = 63 - __clzll(static_cast<long long>(d));
#else
    const int e = 63 - __builtin_clzll(d);
#endif
    const int shift = e - 5;
    return shift * 32 + static_cast<int>(d >> shift);
}
// The smallest distance of bucket b (0 <= b <= kLogBuckets; b = kLogBuckets gives 2^64 - 1 as an end).
GLINT_HD std::uint64_t logBucketLow(int b) {
    if (b < 64) return static_cast<std::uint64_t>(b);
    if (b >= kLogBuckets) return ~0ull;
    const int shift = b / 32 - 1;
    return static_cast<std::uint64_t>(b - shift * 32) << shift;
}
// The largest distance of bucket b.
GLINT_HD std::uint64_t logBucketHigh(int b) { return b + 1 >= kLogBuckets ? ~0ull : logBucketLow(b + 1) - 1; }

} // namespace glint::kmax
