#include "core/io/RasterHeader.h"

#include "core/io/JpegMarkers.h"
#include "core/util/InputFile.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace glint {

namespace {

std::uint32_t be16(const std::string& b, std::size_t i) {
    return std::uint32_t(static_cast<unsigned char>(b[i])) << 8 | static_cast<unsigned char>(b[i + 1]);
}
std::uint32_t be32(const std::string& b, std::size_t i) { return be16(b, i) << 16 | be16(b, i + 2); }
std::uint32_t le16(const std::string& b, std::size_t i) {
    return std::uint32_t(static_cast<unsigned char>(b[i + 1])) << 8 | static_cast<unsigned char>(b[i]);
}
std::uint32_t le32(const std::string& b, std::size_t i) { return le16(b, i + 2) << 16 | le16(b, i); }

std::optional<DecodedSize> png(const InputFile& file) {
    const std::string b = file.read(33);
    if (b.size() < 26 || b.compare(12, 4, "IHDR") != 0) return std::nullopt;
    DecodedSize s;
    s.width = be32(b, 16);
    s.height = be32(b, 20);
    s.bitsPerSample = static_cast<unsigned char>(b[24]) == 16 ? 16 : 8;
    switch (static_cast<unsigned char>(b[25])) {
    case 0: s.channels = 1; break;
    case 2: s.channels = 3; break;
    default: s.channels = 4; break; // palette (with transparency), grey + alpha, RGBA
    }
    return s;
}

// Classic TIFF and BigTIFF, either byte order: the first image directory's ImageWidth (256),
// ImageLength (257), BitsPerSample (258) and SamplesPerPixel (277).
std::optional<DecodedSize> tiff(const InputFile& file) {
    const std::string h = file.read(16);
    if (h.size() < 8) return std::nullopt;
    const bool big = h[0] == 'M';
    const auto u16 = [big](const std::string& b, std::size_t i) { return big ? be16(b, i) : le16(b, i); };
    const auto u32 = [big](const std::string& b, std::size_t i) { return big ? be32(b, i) : le32(b, i); };
    const auto u64 = [&](const std::string& b, std::size_t i) {
        return big ? (std::uint64_t(u32(b, i)) << 32 | u32(b, i + 4)) : (std::uint64_t(u32(b, i + 4)) << 32 | u32(b, i));
    };
    const bool bigTiff = u16(h, 2) == 43;
    if (bigTiff && h.size() < 16) return std::nullopt;
    const std::uint64_t ifd = bigTiff ? u64(h, 8) : u32(h, 4);
    if (ifd >= file.size()) return std::nullopt;
    const std::string countBytes = file.read(bigTiff ? 8 : 2, ifd);
    if (countBytes.size() < (bigTiff ? 8u : 2u)) return std::nullopt;
    const std::uint64_t count = bigTiff ? u64(countBytes, 0) : u16(countBytes, 0);
    const std::size_t entrySize = bigTiff ? 20 : 12;
    if (count == 0 || count > 4096) return std::nullopt;
    const std::string entries = file.read(static_cast<std::size_t>(count) * entrySize, ifd + (bigTiff ? 8 : 2));
    DecodedSize s;
    s.width = s.height = -1;
    int bits = 8, samples = 1;
    for (std::size_t e = 0; (e + 1) * entrySize <= entries.size(); ++e) {
        const std::size_t at = e * entrySize;
        const std::uint32_t tag = u16(entries, at);
        const std::uint32_t type = u16(entries, at + 2);
        const std::size_t valueAt = at + (bigTiff ? 12 : 8);
        // The first value, where it is inline (always so for the counts of 1 these tags have, and for
        // BitsPerSample of up to 2 (classic) or 4 (BigTIFF) samples); else read from its offset.
        std::uint64_t value = 0;
        const std::uint64_t n = bigTiff ? u64(entries, at + 4) : u32(entries, at + 4);
        const std::size_t unit = type == 3 ? 2 : type == 4 ? 4 : type == 16 ? 8 : 0;
        if (unit == 0 || n == 0) continue;
        std::string valueBytes = entries.substr(valueAt, unit);
        if (n * unit > (bigTiff ? 8u : 4u)) {
            const std::uint64_t offset = bigTiff ? u64(entries, valueAt) : u32(entries, valueAt);
            valueBytes = file.read(unit, offset);
            if (valueBytes.size() < unit) continue;
        }
        value = unit == 2 ? u16(valueBytes, 0) : unit == 4 ? u32(valueBytes, 0) : u64(valueBytes, 0);
        if (tag == 256) s.width = static_cast<long long>(std::min<std::uint64_t>(value, 1ULL << 40));
        else if (tag == 257) s.height = static_cast<long long>(std::min<std::uint64_t>(value, 1ULL << 40));
        else if (tag == 258) bits = static_cast<int>(std::min<std::uint64_t>(value, 64));
        else if (tag == 277) samples = static_cast<int>(std::min<std::uint64_t>(value, 64));
    }
    if (s.width < 0 || s.height < 0) return std::nullopt;
    s.bitsPerSample = bits <= 8 ? 8 : bits <= 16 ? 16 : bits <= 32 ? 32 : 64;
    s.channels = samples;
    return s;
}

// The frame header (SOFn) of a JPEG, found by walking the marker segments.
std::optional<DecodedSize> jpeg(const InputFile& file) {
    std::uint64_t at = 2;
    for (int segments = 0; segments < 10000 && at + 4 <= file.size(); ++segments) {
        const std::string m = file.read(10, at);
        if (m.size() < 4) return std::nullopt;
        const JpegStep step = jpegStep(reinterpret_cast<const unsigned char*>(m.data()), at);
        if (step.kind == JpegStep::Kind::NotMarker) return std::nullopt;
        at = step.next;
        if (step.kind == JpegStep::Kind::Fill) continue;
        const unsigned char marker = step.marker;
        if (marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC) {
            if (m.size() < 10) return std::nullopt;
            DecodedSize s;
            s.bitsPerSample = static_cast<unsigned char>(m[4]) <= 8 ? 8 : 16;
            s.height = be16(m, 5);
            s.width = be16(m, 7);
            s.channels = std::max(1, std::min(4, static_cast<int>(static_cast<unsigned char>(m[9]))));
            if (s.channels == 2) s.channels = 3;
            return s;
        }
        if (marker == 0xDA || marker == 0xD9) return std::nullopt; // scan data before any frame header
    }
    return std::nullopt;
}

std::optional<DecodedSize> bmp(const InputFile& file) {
    const std::string b = file.read(30);
    if (b.size() < 26) return std::nullopt;
    const std::uint32_t headerSize = le32(b, 14);
    DecodedSize s;
    int bpp = 24;
    if (headerSize == 12) { // OS/2 BITMAPCOREHEADER
        s.width = le16(b, 18);
        s.height = le16(b, 20);
        bpp = static_cast<int>(le16(b, 24));
    } else if (headerSize >= 40 && b.size() >= 30) {
        s.width = static_cast<std::int32_t>(le32(b, 18));
        s.height = std::llabs(static_cast<std::int32_t>(le32(b, 22))); // negative: stored top-down
        bpp = static_cast<int>(le16(b, 28));
    } else {
        return std::nullopt;
    }
    s.channels = bpp == 32 ? 4 : 3;
    return s;
}

// P1-P6: magic, width, height and (except for bitmaps) the largest value, separated by white space
// and comments.
std::optional<DecodedSize> pnm(const InputFile& file) {
    const std::string b = file.read(4096);
    if (b.size() < 2) return std::nullopt;
    const char kind = b[1];
    std::size_t i = 2;
    long long numbers[3] = {0, 0, 255};
    const int needed = (kind == '1' || kind == '4') ? 2 : 3;
    for (int k = 0; k < needed; ++k) {
        for (;;) {
            while (i < b.size() && std::isspace(static_cast<unsigned char>(b[i]))) ++i;
            if (i < b.size() && b[i] == '#') {
                while (i < b.size() && b[i] != '\n' && b[i] != '\r') ++i;
                continue;
            }
            break;
        }
        if (i >= b.size() || !std::isdigit(static_cast<unsigned char>(b[i]))) return std::nullopt;
        long long v = 0;
        while (i < b.size() && std::isdigit(static_cast<unsigned char>(b[i])) && v < (1LL << 40)) v = v * 10 + (b[i++] - '0');
        numbers[k] = v;
    }
    DecodedSize s;
    s.width = numbers[0];
    s.height = numbers[1];
    s.channels = (kind == '3' || kind == '6') ? 3 : 1;
    s.bitsPerSample = numbers[2] > 255 ? 16 : 8;
    return s;
}

} // namespace

std::optional<DecodedSize> rasterDecodedSize(const InputFile& file, FileFormat format) {
    switch (format) {
    case FileFormat::Png: return png(file);
    case FileFormat::Tiff: return tiff(file);
    case FileFormat::Jpeg: return jpeg(file);
    case FileFormat::Bmp: return bmp(file);
    case FileFormat::Pnm: return pnm(file);
    default: return std::nullopt;
    }
}

} // namespace glint
