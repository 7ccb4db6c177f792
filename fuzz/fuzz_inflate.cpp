// The bounded decompression of session files' masks (core/util/BoundedInflate: Qt's qCompress form, a
// length then a zlib stream), on any bytes: the first 3 bytes give the size the caller expects (up to
// 16 MiB, as a mask's width x height would), the rest is the packed mask. It must never write more than
// that size, whatever the stream says, and give exactly that many bytes or nothing.
//
// The session reader itself (ui/session/SessionJson.cpp) cannot be built here: it works on Qt Gui types
// (QColor, QPolygonF) and the window's run records (ui/results), and needs all of glint_core, which the
// fuzz build does not compile; its only decompression is this one.
#include "core/util/BoundedInflate.h"

#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 3) return 0;
    const std::size_t expected = (std::size_t(data[0]) << 16 | std::size_t(data[1]) << 8 | data[2]) + 1;
    const auto out = glint::inflateQtCompressed(data + 3, size - 3, expected);
    if (out && out->size() != expected) std::abort();
    return 0;
}
