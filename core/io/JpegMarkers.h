// One step of a walk over a JPEG's marker segments, shared by the header probe (RasterHeader: the frame
// size before decoding) and the completeness check (RasterLoader: a cut file has no end-of-image marker).
#pragma once

#include <cstddef>
#include <cstdint>

namespace glint {

struct JpegStep {
    enum class Kind {
        NotMarker, // no 0xFF where a marker should be
        Fill,      // a fill byte or a stand-alone marker (SOI, TEM, RSTn): no length, go on at `next`
        Segment,   // a marker segment: `marker`, its `length` (the two length bytes included), then `next`
    };
    Kind kind = Kind::NotMarker;
    unsigned char marker = 0;
    std::uint64_t length = 0;
    std::uint64_t next = 0;
};

// m: the (at least 4) bytes at offset `at` of the file.
inline JpegStep jpegStep(const unsigned char* m, std::uint64_t at) {
    JpegStep s;
    if (m[0] != 0xFF) return s;
    s.marker = m[1];
    if (s.marker == 0xFF) {
        s.kind = JpegStep::Kind::Fill;
        s.next = at + 1;
    } else if (s.marker == 0xD8 || s.marker == 0x01 || (s.marker >= 0xD0 && s.marker <= 0xD7)) {
        s.kind = JpegStep::Kind::Fill;
        s.next = at + 2;
    } else {
        s.kind = JpegStep::Kind::Segment;
        s.length = (static_cast<std::uint64_t>(m[2]) << 8) | m[3];
        s.next = at + 2 + s.length;
    }
    return s;
}

} // namespace glint
