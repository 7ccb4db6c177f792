#include "core/util/BoundedInflate.h"

#include <climits>

#include <zlib.h>

namespace glint {

std::optional<std::vector<std::uint8_t>> inflateExactly(const std::uint8_t* data, std::size_t size, std::size_t expected) {
    if (expected == 0 || expected > UINT_MAX || size > UINT_MAX || !data) return std::nullopt;
    std::vector<std::uint8_t> out(expected);
    z_stream z{};
    if (inflateInit(&z) != Z_OK) return std::nullopt;
    z.next_in = const_cast<Bytef*>(data);
    z.avail_in = static_cast<uInt>(size);
    z.next_out = out.data();
    z.avail_out = static_cast<uInt>(expected);
    // Stops when the output is full: Z_BUF_ERROR (or Z_OK) then says that more would come.
    const int rc = inflate(&z, Z_FINISH);
    const bool whole = rc == Z_STREAM_END && z.total_out == expected;
    inflateEnd(&z);
    if (!whole) return std::nullopt;
    return out;
}

std::optional<std::vector<std::uint8_t>> inflateQtCompressed(const std::uint8_t* data, std::size_t size,
                                                             std::size_t expected) {
    if (!data || size < 4) return std::nullopt;
    const std::uint64_t declared = std::uint64_t(data[0]) << 24 | std::uint64_t(data[1]) << 16 | std::uint64_t(data[2]) << 8 | data[3];
    if (declared != expected) return std::nullopt;
    return inflateExactly(data + 4, size - 4, expected);
}

} // namespace glint
