#include "core/io/RasterHeader.h"

#include "core/io/JpegMarkers.h"
#include "core/util/Errors.h"
#include "core/util/InputFile.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <optional>
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

} // namespace

std::optional<HeaderCard> pngPhysicalPixelSize(const InputFile& file) {
    std::uint64_t at = 8; // past the signature
    for (int chunk = 0; chunk < 64; ++chunk) {
        const std::string head = file.read(8, at);
        if (head.size() < 8) return std::nullopt;
        const std::uint32_t length = be32(head, 0);
        const std::string type = head.substr(4, 4);
        if (type == "IDAT" || type == "IEND" || length > (1u << 24)) return std::nullopt;
        if (type == "pHYs" && length == 9) {
            const std::string body = file.read(9, at + 8);
            if (body.size() < 9) return std::nullopt;
            const std::uint32_t x = be32(body, 0), y = be32(body, 4);
            if (static_cast<unsigned char>(body[8]) != 1 || x == 0 || y == 0) return std::nullopt;
            return HeaderCard{"PNG pHYs", std::to_string(x) + " " + std::to_string(y), "pixels per metre (x, y)"};
        }
        at += 8 + static_cast<std::uint64_t>(length) + 4; // the head, the data and the CRC
    }
    return std::nullopt;
}

namespace {

// Reads a file a byte at a time through 64 KiB blocks (the walks below jump around the file).
class FileBytes {
public:
    explicit FileBytes(const InputFile& file) : file_(file) {}
    int operator()(std::uint64_t i) const {
        if (i >= file_.size()) return -1;
        if (!loaded_ || i < blockAt_ || i >= blockAt_ + block_.size()) {
            blockAt_ = i & ~std::uint64_t(0xFFFF);
            block_ = file_.read(0x10000, blockAt_);
            loaded_ = true;
            if (i >= blockAt_ + block_.size()) return -1;
        }
        return static_cast<unsigned char>(block_[i - blockAt_]);
    }

private:
    const InputFile& file_;
    mutable std::string block_;
    mutable std::uint64_t blockAt_ = 0;
    mutable bool loaded_ = false;
};

[[noreturn]] void refuse(const std::string& where, const std::string& why) { throw InputError(where + ": " + why); }

// Classic TIFF and BigTIFF, either byte order: the first image directory's ImageWidth (256),
// ImageLength (257), BitsPerSample (258), SamplesPerPixel (277), TileWidth (322) and TileLength (323).
// libtiff reads these tags in any integer type (SHORT and LONG as the standard says, but also BYTE,
// SSHORT, SLONG, LONG8 …, refusing negative values), so they are read here in every integer type too;
// a size tag of another type, a negative size or a directory that cannot be read is refused rather
// than left to the decoder.
DecodedSize tiff(const InputFile& file, const std::string& where) {
    const std::string h = file.read(16);
    if (h.size() < 8) refuse(where, "the TIFF header is cut short");
    const bool big = h[0] == 'M';
    const auto u16 = [big](const std::string& b, std::size_t i) { return big ? be16(b, i) : le16(b, i); };
    const auto u32 = [big](const std::string& b, std::size_t i) { return big ? be32(b, i) : le32(b, i); };
    const auto u64 = [&](const std::string& b, std::size_t i) {
        return big ? (std::uint64_t(u32(b, i)) << 32 | u32(b, i + 4)) : (std::uint64_t(u32(b, i + 4)) << 32 | u32(b, i));
    };
    const bool bigTiff = u16(h, 2) == 43;
    if (bigTiff && (h.size() < 16 || u16(h, 4) != 8 || u16(h, 6) != 0))
        refuse(where, "the BigTIFF header is damaged (its offsets are not 8 bytes)");
    const std::uint64_t ifd = bigTiff ? u64(h, 8) : u32(h, 4);
    if (ifd < 8 || ifd >= file.size()) refuse(where, "the TIFF file's first image directory lies outside the file");
    const std::string countBytes = file.read(bigTiff ? 8 : 2, ifd);
    if (countBytes.size() < (bigTiff ? 8u : 2u)) refuse(where, "the TIFF file's image directory is cut short");
    const std::uint64_t count = bigTiff ? u64(countBytes, 0) : u16(countBytes, 0);
    const std::size_t entrySize = bigTiff ? 20 : 12;
    if (count == 0 || count > 65535) refuse(where, "the TIFF file's image directory is damaged (" + std::to_string(count) + " entries)");
    const std::string entries = file.read(static_cast<std::size_t>(count) * entrySize, ifd + (bigTiff ? 8 : 2));
    if (entries.size() < count * entrySize) refuse(where, "the TIFF file's image directory is cut short");

    // Largest value of each tag of interest (a tag given twice counts at its larger value).
    long long width = -1, height = -1, tileWidth = -1, tileHeight = -1, bits = 1, samples = 1;
    for (std::size_t e = 0; e < count; ++e) {
        const std::size_t at = e * entrySize;
        const std::uint32_t tag = u16(entries, at);
        const char* name = tag == 256 ? "ImageWidth" : tag == 257 ? "ImageLength" : tag == 258 ? "BitsPerSample"
                         : tag == 277 ? "SamplesPerPixel" : tag == 322 ? "TileWidth" : tag == 323 ? "TileLength" : nullptr;
        if (!name) continue;
        const std::uint32_t type = u16(entries, at + 2);
        const std::uint64_t n = bigTiff ? u64(entries, at + 4) : u32(entries, at + 4);
        // BYTE, SHORT, LONG, SBYTE, SSHORT, SLONG, IFD, LONG8, SLONG8, IFD8.
        const std::size_t unit = (type == 1 || type == 6) ? 1 : (type == 3 || type == 8) ? 2
                               : (type == 4 || type == 9 || type == 13) ? 4 : (type == 16 || type == 17 || type == 18) ? 8 : 0;
        const bool isSigned = type == 6 || type == 8 || type == 9 || type == 17;
        if (unit == 0)
            refuse(where, std::string("the TIFF tag ") + name + " is of type " + std::to_string(type) + ", not an integer");
        if (n == 0) refuse(where, std::string("the TIFF tag ") + name + " has no value");
        const std::size_t values = static_cast<std::size_t>(std::min<std::uint64_t>(n, tag == 258 ? 64 : 1));
        const std::size_t valueAt = at + (bigTiff ? 12 : 8);
        std::string bytes;
        if (n * unit > (bigTiff ? 8u : 4u)) {
            const std::uint64_t offset = bigTiff ? u64(entries, valueAt) : u32(entries, valueAt);
            bytes = file.read(values * unit, offset);
            if (bytes.size() < values * unit) refuse(where, std::string("the TIFF tag ") + name + "'s value lies outside the file");
        } else {
            bytes = entries.substr(valueAt, values * unit);
        }
        for (std::size_t k = 0; k < values; ++k) {
            const std::size_t i = k * unit;
            long long v = 0;
            switch (unit) {
            case 1: v = isSigned ? static_cast<std::int8_t>(bytes[i]) : static_cast<unsigned char>(bytes[i]); break;
            case 2: v = isSigned ? static_cast<std::int16_t>(u16(bytes, i)) : static_cast<long long>(u16(bytes, i)); break;
            case 4: v = isSigned ? static_cast<std::int32_t>(u32(bytes, i)) : static_cast<long long>(u32(bytes, i)); break;
            default: {
                const std::uint64_t raw = u64(bytes, i);
                v = isSigned ? static_cast<long long>(raw)
                             : static_cast<long long>(std::min<std::uint64_t>(raw, std::uint64_t(1) << 62));
            }
            }
            if (v < 0) refuse(where, std::string("the TIFF tag ") + name + " is negative (" + std::to_string(v) + ")");
            v = std::min(v, 1LL << 40);
            long long& slot = tag == 256 ? width : tag == 257 ? height : tag == 258 ? bits : tag == 277 ? samples
                            : tag == 322 ? tileWidth : tileHeight;
            slot = std::max(slot, v);
        }
    }
    if (width < 0) refuse(where, "the TIFF file has no ImageWidth");
    if (height < 0) refuse(where, "the TIFF file has no ImageLength");
    DecodedSize s;
    s.width = width;
    s.height = height;
    s.bitsPerSample = bits <= 8 ? 8 : bits <= 16 ? 16 : bits <= 32 ? 32 : 64;
    s.channels = static_cast<int>(std::clamp(samples, 1LL, 1LL << 16));
    if (tileWidth >= 0 || tileHeight >= 0) {
        // A tile larger than the image is legal, and libtiff and OpenCV allocate it whole.
        s.tileWidth = std::max(tileWidth, 1LL);
        s.tileHeight = std::max(tileHeight, 1LL);
    }
    return s;
}

// The frame header (SOFn) of a JPEG, found by walking the markers as libjpeg does (JpegMarkers.h): the
// first frame header is the one libjpeg decodes (it refuses a second). A file whose frame header cannot
// be found that way is refused, as libjpeg would refuse it.
DecodedSize jpeg(const InputFile& file, const std::string& where) {
    const FileBytes byteAt(file);
    if (byteAt(0) != 0xFF || byteAt(1) != 0xD8) refuse(where, "the JPEG file does not start with a start-of-image marker");
    std::uint64_t at = 2;
    for (int markers = 0; markers < 1000000; ++markers) {
        const auto m = nextJpegMarker(byteAt, at);
        if (!m) refuse(where, "the JPEG file ends before its frame header");
        if (m->code == 0xD8) refuse(where, "the JPEG file has a second start-of-image marker before its frame header");
        if (m->code == 0xD9 || m->code == 0xDA)
            refuse(where, "the JPEG file has no frame header before its " + std::string(m->code == 0xDA ? "first scan" : "end"));
        if (jpegMarkerStandsAlone(m->code)) {
            at = m->after;
            continue;
        }
        const int hi = byteAt(m->after), lo = byteAt(m->after + 1);
        if (hi < 0 || lo < 0) refuse(where, "the JPEG file ends before its frame header");
        const int length = hi << 8 | lo;
        if (length < 2) refuse(where, "the JPEG file has a marker segment of length " + std::to_string(length));
        if (jpegIsFrameHeader(m->code)) {
            int f[6];
            for (int k = 0; k < 6; ++k)
                if ((f[k] = byteAt(m->after + 2 + static_cast<std::uint64_t>(k))) < 0)
                    refuse(where, "the JPEG file ends inside its frame header");
            if (length < 8) refuse(where, "the JPEG file's frame header is too short");
            DecodedSize s;
            s.bitsPerSample = f[0] <= 8 ? 8 : 16;
            s.height = f[1] << 8 | f[2];
            s.width = f[3] << 8 | f[4];
            s.channels = std::max(1, std::min(4, f[5]));
            if (s.channels == 2) s.channels = 3;
            return s;
        }
        at = m->after + static_cast<std::uint64_t>(length);
    }
    refuse(where, "the JPEG file has too many markers before its frame header");
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

void checkPnmSamples(const InputFile& file, const std::string& where) {
    const FileBytes byteAt(file);
    if (byteAt(0) != 'P') return;
    const int kind = byteAt(1);
    if (kind == '1' || kind == '4' || kind < '1' || kind > '6') return; // bitmaps have no largest value
    const bool colour = kind == '3' || kind == '6';
    const std::string name = colour ? "PPM" : "PGM";
    std::uint64_t i = 2;
    // One number of the text (header or P2/P3 samples) after white space and comments; -1 at the end.
    const auto number = [&]() -> long long {
        for (;;) {
            int c = byteAt(i);
            while (c >= 0 && std::isspace(c)) c = byteAt(++i);
            if (c == '#') {
                while (c >= 0 && c != '\n' && c != '\r') c = byteAt(++i);
                continue;
            }
            if (c < 0) return -1;
            if (!std::isdigit(c)) refuse(where, "the " + name + " file has '" + std::string(1, static_cast<char>(c)) + "' where a number should be");
            long long v = 0;
            while (c >= 0 && std::isdigit(c)) {
                if (v > (1LL << 40)) refuse(where, "the " + name + " file has a number too large to be a sample");
                v = v * 10 + (c - '0');
                c = byteAt(++i);
            }
            return v;
        }
    };
    const long long width = number(), height = number(), maxval = number();
    if (width <= 0 || height <= 0 || maxval < 0) return; // the dimension checks and the decoder say what is wrong
    if (maxval == 0 || maxval > 65535)
        refuse(where, "the " + name + " file's largest value is " + std::to_string(maxval) + " (it must be 1 to 65535)");
    const auto over = [&](long long v, std::uint64_t sample) {
        refuse(where, "the " + name + " file has a value of " + std::to_string(v) + " above its largest value " +
                          std::to_string(maxval) + " (sample " + std::to_string(sample + 1) + ")");
    };
    const std::uint64_t samples = static_cast<std::uint64_t>(width) * static_cast<std::uint64_t>(height) * (colour ? 3 : 1);
    if (kind == '2' || kind == '3') {
        for (std::uint64_t k = 0; k < samples; ++k) {
            const long long v = number();
            if (v < 0) return; // cut short: the decoder refuses it
            if (v > maxval) over(v, k);
        }
        return;
    }
    if (maxval == 255 || maxval == 65535) return; // every value a sample can hold is allowed
    ++i; // the one white-space byte before the samples
    const std::uint64_t unit = maxval < 256 ? 1 : 2;
    constexpr std::size_t kChunk = 1 << 20;
    for (std::uint64_t k = 0; k < samples;) {
        const std::uint64_t want = std::min<std::uint64_t>((samples - k) * unit, kChunk);
        const std::string b = file.read(static_cast<std::size_t>(want), i + k * unit);
        if (b.size() < unit) return; // cut short: the decoder refuses it
        for (std::size_t j = 0; j + unit <= b.size(); j += unit, ++k) {
            const long long v = unit == 1 ? static_cast<long long>(static_cast<unsigned char>(b[j])) : static_cast<long long>(be16(b, j));
            if (v > maxval) over(v, k);
        }
        if (b.size() < want) return;
    }
}

std::optional<DecodedSize> rasterDecodedSize(const InputFile& file, FileFormat format, const std::string& where) {
    switch (format) {
    case FileFormat::Png: return png(file);
    case FileFormat::Tiff: return tiff(file, where);
    case FileFormat::Jpeg: return jpeg(file, where);
    case FileFormat::Bmp: return bmp(file);
    case FileFormat::Pnm: return pnm(file);
    default: return std::nullopt;
    }
}

} // namespace glint
