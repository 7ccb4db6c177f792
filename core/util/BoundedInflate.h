// Bounded decompression: a zlib stream inflated into exactly the size the caller expects, never more, so
// that a small input that inflates to gigabytes (a zlib bomb) costs no more than the expected size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace glint {

// The zlib stream `data` inflated, when it holds exactly `expected` bytes (at most `expected` are ever
// written); nothing when it holds more or fewer, is damaged, or `expected` is 0 or over 4 GiB.
std::optional<std::vector<std::uint8_t>> inflateExactly(const std::uint8_t* data, std::size_t size, std::size_t expected);

// Qt's qCompress form (the length, 4 bytes big-endian, then a zlib stream), inflated as inflateExactly
// does: nothing also when the length written differs from `expected`.
std::optional<std::vector<std::uint8_t>> inflateQtCompressed(const std::uint8_t* data, std::size_t size,
                                                             std::size_t expected);

} // namespace glint
