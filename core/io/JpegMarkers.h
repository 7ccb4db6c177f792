// Walking a JPEG's markers the way libjpeg does (jdmarker.c's next_marker), shared by the header probe
// (RasterHeader: the frame size before decoding) and the completeness check (RasterLoader). libjpeg does
// not stop at bytes that are not a marker where one should be: it warns ("extraneous bytes before
// marker") and skips to the next 0xFF. A walker that gave up there would lose the frame header that the
// decoder goes on to use, so this one skips exactly as libjpeg does.
#pragma once

#include <cstdint>
#include <optional>

namespace glint {

struct JpegMarker {
    unsigned char code = 0;  // the byte after the 0xFF(s)
    std::uint64_t after = 0; // offset just after the code: a segment's two length bytes start here
};

// The next marker at or after `at`, as libjpeg's next_marker finds it: bytes up to a 0xFF are skipped,
// then fill bytes (0xFF); 0xFF 0x00 is stuffed data, not a marker, and skipped too. byteAt(i) gives the
// byte at offset i, or -1 past the end. Nothing when the data ends first.
template <class ByteAt>
std::optional<JpegMarker> nextJpegMarker(const ByteAt& byteAt, std::uint64_t at) {
    for (;;) {
        int c = byteAt(at);
        while (c >= 0 && c != 0xFF) c = byteAt(++at);
        if (c < 0) return std::nullopt;
        do c = byteAt(++at);
        while (c == 0xFF);
        if (c < 0) return std::nullopt;
        if (c != 0) return JpegMarker{static_cast<unsigned char>(c), at + 1};
        ++at; // FF 00: data
    }
}

// Markers without a length: SOI, EOI, TEM and RST0-7.
inline bool jpegMarkerStandsAlone(unsigned char code) {
    return code == 0xD8 || code == 0xD9 || code == 0x01 || (code >= 0xD0 && code <= 0xD7);
}

// A frame header (SOF0-SOF15 but DHT C4, JPG C8 and DAC CC).
inline bool jpegIsFrameHeader(unsigned char code) {
    return code >= 0xC0 && code <= 0xCF && code != 0xC4 && code != 0xC8 && code != 0xCC;
}

} // namespace glint
