// Order-preserving 64-bit keys of sums and the log-spaced buckets of their distance below the largest
// sum: the threshold selection of the CPU and CUDA K-MSP backends. Plain inline code for host and device.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define GLINT_HD __host__ __device__ __forceinline__
#else
#define GLINT_HD inline
#endif

namespace glint::kmax {

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
