#include "core/io/DicomPixels.h"

#include "core/util/Errors.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace glint {

std::size_t DicomPixelLayout::frameBytes() const {
    const std::size_t samples = static_cast<std::size_t>(columns) * static_cast<std::size_t>(rows) *
                                static_cast<std::size_t>(samplesPerPixel);
    return bitsAllocated == 1 ? (samples + 7) / 8 : samples * static_cast<std::size_t>(bitsAllocated / 8);
}

std::size_t DicomPixelLayout::bufferBytes() const {
    const std::size_t samples = static_cast<std::size_t>(columns) * static_cast<std::size_t>(rows) *
                                static_cast<std::size_t>(samplesPerPixel) * static_cast<std::size_t>(frames);
    // 1-bit frames follow each other bit by bit, not byte-aligned.
    return bitsAllocated == 1 ? (samples + 7) / 8 : samples * static_cast<std::size_t>(bitsAllocated / 8);
}

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what) {
    throw InputError("cannot open '" + path + "': " + what);
}

// One stored sample as its integer value: the bits between HighBit and HighBit - BitsStored + 1,
// sign-extended for signed data (the bits above may hold overlays).
class SampleReader {
public:
    SampleReader(const char* buffer, const DicomPixelLayout& layout) : buffer_(buffer), layout_(layout) {
        shift_ = std::max(0, layout.highBit + 1 - layout.bitsStored);
        mask_ = layout.bitsStored >= 64 ? ~0ULL : (1ULL << layout.bitsStored) - 1;
    }

    std::int64_t integer(std::size_t index) const {
        std::uint64_t u = 0;
        switch (layout_.bitsAllocated) {
        case 1: {
            const std::uint8_t byte = static_cast<std::uint8_t>(buffer_[index / 8]);
            return (byte >> (index % 8)) & 1; // DICOM packs the first pixel in the lowest bit
        }
        case 8: u = static_cast<std::uint8_t>(buffer_[index]); break;
        case 16: {
            std::uint16_t v;
            std::memcpy(&v, buffer_ + index * 2, 2);
            u = v;
            break;
        }
        default: {
            std::uint32_t v;
            std::memcpy(&v, buffer_ + index * 4, 4);
            if (layout_.swapWordHalves) v = (v >> 16) | (v << 16);
            u = v;
            break;
        }
        }
        u = (u >> shift_) & mask_;
        if (layout_.isSigned && layout_.bitsStored < 64 && ((u >> (layout_.bitsStored - 1)) & 1))
            return static_cast<std::int64_t>(u) - (static_cast<std::int64_t>(1) << layout_.bitsStored);
        return static_cast<std::int64_t>(u);
    }

    double floating(std::size_t index) const {
        if (layout_.bitsAllocated == 32) {
            float v;
            std::memcpy(&v, buffer_ + index * 4, 4);
            return v;
        }
        double v;
        std::memcpy(&v, buffer_ + index * 8, 8);
        return v;
    }

private:
    const char* buffer_;
    const DicomPixelLayout& layout_;
    int shift_ = 0;
    std::uint64_t mask_ = 0;
};

void checkLayout(const DicomPixelLayout& l, const std::string& path) {
    const std::string format = "Bits Allocated " + std::to_string(l.bitsAllocated) + ", Bits Stored " +
                               std::to_string(l.bitsStored) + ", High Bit " + std::to_string(l.highBit) +
                               ", Samples per Pixel " + std::to_string(l.samplesPerPixel);
    // What no valid file has (PS3.3 C.7.6.3.1) is damage, and said so; what is valid but not read here is
    // unsupported.
    const bool integerValid = l.bitsAllocated >= 1 && l.bitsStored >= 1 && l.bitsStored <= l.bitsAllocated &&
                              l.highBit >= l.bitsStored - 1 && l.highBit < l.bitsAllocated;
    const bool floatValid = l.bitsAllocated == 32 || l.bitsAllocated == 64;
    if (!(l.isFloat ? floatValid : integerValid) || l.samplesPerPixel < 1)
        fail(path, "the DICOM file is damaged: an impossible pixel format (" + format + ")");
    const bool integerOk = l.bitsAllocated == 1 || l.bitsAllocated == 8 || l.bitsAllocated == 16 || l.bitsAllocated == 32;
    if (!l.isFloat && !integerOk) fail(path, "unsupported pixel format (" + format + ")");
    if (l.samplesPerPixel != 1 && l.samplesPerPixel != 3) fail(path, "unsupported pixel format (" + format + ")");
    if (l.samplesPerPixel == 3 && (l.isFloat || l.bitsAllocated == 1))
        fail(path, "unsupported colour pixel format (" + format + ")");
    if (l.samplesPerPixel == 3 && l.colour == DicomColour::Monochrome)
        fail(path, "the DICOM file is damaged: a monochrome Photometric Interpretation with 3 samples per pixel");
    if (l.samplesPerPixel == 1 && l.colour != DicomColour::Monochrome)
        fail(path, "the DICOM file is damaged: a colour Photometric Interpretation with one sample per pixel");
}

} // namespace

FrameValues extractFrame(const char* buffer, std::size_t length, const DicomPixelLayout& layout, int frame,
                         const std::string& path) {
    checkLayout(layout, path);
    if (length < layout.bufferBytes())
        fail(path, "the decoded pixel data are too short (" + std::to_string(length) + " bytes, " +
                       std::to_string(layout.bufferBytes()) + " needed)");
    const std::size_t pixels = static_cast<std::size_t>(layout.columns) * static_cast<std::size_t>(layout.rows);
    const std::size_t spp = static_cast<std::size_t>(layout.samplesPerPixel);
    const std::size_t first = static_cast<std::size_t>(frame) * pixels * spp; // in samples
    const SampleReader reader(buffer, layout);

    FrameValues out;
    out.values.resize(pixels);
    if (layout.isFloat) {
        out.integer = false;
        double lo = std::numeric_limits<double>::infinity(), hi = -lo;
        for (std::size_t i = 0; i < pixels; ++i) {
            const double v = reader.floating(first + i);
            out.values[i] = v;
            if (std::isfinite(v)) {
                lo = std::min(lo, v);
                hi = std::max(hi, v);
            }
        }
        out.lowest = lo <= hi ? lo : 0.0;
        out.highest = lo <= hi ? hi : 0.0;
        return out;
    }

    const int bits = layout.bitsStored;
    if (spp == 1) {
        for (std::size_t i = 0; i < pixels; ++i) out.values[i] = static_cast<double>(reader.integer(first + i));
        out.lowest = layout.isSigned ? -std::ldexp(1.0L, bits - 1) : 0.0L;
        out.highest = layout.isSigned ? std::ldexp(1.0L, bits - 1) - 1 : std::ldexp(1.0L, bits) - 1;
        return out;
    }

    // Colour: luminance with the weights of ITU-R BT.601 (OpenCV's and ImageJ's weighted grey), which
    // is exactly the Y of YBR_FULL, rounded to an integer of the stored depth.
    const double top = std::ldexp(1.0, bits) - 1;
    const auto sample = [&](std::size_t pixel, std::size_t channel) {
        const std::size_t index = layout.planar ? first + channel * pixels + pixel : first + pixel * spp + channel;
        return static_cast<double>(reader.integer(index));
    };
    for (std::size_t i = 0; i < pixels; ++i) {
        double y = 0;
        switch (layout.colour) {
        case DicomColour::Rgb: y = std::nearbyint(0.299 * sample(i, 0) + 0.587 * sample(i, 1) + 0.114 * sample(i, 2)); break;
        case DicomColour::YbrFull: y = sample(i, 0); break;
        case DicomColour::YbrPartial: {
            // Y from [16, 235] (scaled to the depth) back to the full range.
            const double scale = std::ldexp(1.0, bits - 8);
            y = std::nearbyint((sample(i, 0) - 16.0 * scale) * 255.0 / 219.0);
            break;
        }
        case DicomColour::Monochrome: y = sample(i, 0); break;
        }
        out.values[i] = std::clamp(y, 0.0, top);
    }
    out.lowest = 0;
    out.highest = top;
    return out;
}

std::vector<char> decodeRleFrame(const unsigned char* fragment, std::size_t length, const DicomPixelLayout& layout,
                                 const std::string& path) {
    if (layout.bitsAllocated % 8 != 0 || layout.isFloat)
        fail(path, "RLE with " + std::to_string(layout.bitsAllocated) + " bits allocated is not supported");
    const std::size_t bytesPerSample = static_cast<std::size_t>(layout.bitsAllocated / 8);
    const std::size_t spp = static_cast<std::size_t>(layout.samplesPerPixel);
    const std::size_t pixels = static_cast<std::size_t>(layout.columns) * static_cast<std::size_t>(layout.rows);
    const std::size_t segments = spp * bytesPerSample;
    const auto u32 = [&](std::size_t at) {
        return static_cast<std::uint32_t>(fragment[at]) | (static_cast<std::uint32_t>(fragment[at + 1]) << 8) |
               (static_cast<std::uint32_t>(fragment[at + 2]) << 16) | (static_cast<std::uint32_t>(fragment[at + 3]) << 24);
    };
    if (length < 64 || u32(0) != segments)
        fail(path, "the RLE frame is damaged (" + std::string(length < 64 ? "no header" : "wrong number of segments") + ")");

    std::vector<char> out(pixels * segments);
    std::vector<unsigned char> plane(pixels);
    for (std::size_t s = 0; s < segments; ++s) {
        const std::size_t begin = u32(4 + 4 * s);
        const std::size_t end = s + 1 < segments ? u32(8 + 4 * s) : length;
        if (begin < 64 || begin > end || end > length) fail(path, "the RLE frame is damaged or truncated");
        std::size_t in = begin, produced = 0;
        while (produced < pixels && in < end) {
            const int n = static_cast<signed char>(fragment[in++]);
            if (n >= 0) { // n + 1 literal bytes
                const std::size_t count = static_cast<std::size_t>(n) + 1;
                if (in + count > end || produced + count > pixels) break;
                std::memcpy(plane.data() + produced, fragment + in, count);
                in += count;
                produced += count;
            } else if (n != -128) { // the next byte, 1 - n times
                const std::size_t count = static_cast<std::size_t>(1 - n);
                if (in >= end || produced + count > pixels) break;
                std::memset(plane.data() + produced, fragment[in++], count);
                produced += count;
            }
        }
        if (produced != pixels) fail(path, "the RLE frame is damaged or truncated");
        // Segment s holds byte (most significant first) s % bytesPerSample of sample s / bytesPerSample.
        const std::size_t sample = s / bytesPerSample;
        const std::size_t byte = bytesPerSample - 1 - s % bytesPerSample; // little-endian position
        for (std::size_t p = 0; p < pixels; ++p)
            out[(p * spp + sample) * bytesPerSample + byte] = static_cast<char>(plane[p]);
    }
    return out;
}

bool jpegComponentsAreYcbcr(const unsigned char* s, std::size_t n) {
    bool jfif = false, adobe = false;
    int transform = -1;
    int ids[3] = {-1, -1, -1};
    std::size_t i = 0;
    while (i + 4 <= n) {
        if (s[i] != 0xFF) {
            ++i;
            continue;
        }
        const unsigned char marker = s[i + 1];
        if (marker == 0xFF) { // fill byte
            ++i;
            continue;
        }
        if (marker == 0xD8 || marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7)) { // no length
            i += 2;
            continue;
        }
        if (marker == 0xDA || marker == 0xD9) break; // start of scan: all tables and markers seen
        const std::size_t length = (static_cast<std::size_t>(s[i + 2]) << 8) | s[i + 3];
        if (length < 2 || i + 2 + length > n) break;
        const unsigned char* p = s + i + 4;
        const std::size_t size = length - 2;
        if (marker == 0xE0 && size >= 5 && std::memcmp(p, "JFIF\0", 5) == 0) jfif = true;
        if (marker == 0xEE && size >= 12 && std::memcmp(p, "Adobe", 5) == 0) {
            adobe = true;
            transform = p[11];
        }
        const bool startOfFrame = marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
        if (startOfFrame && size >= 15 && p[5] == 3) {
            ids[0] = p[6];
            ids[1] = p[9];
            ids[2] = p[12];
        }
        i += 2 + length;
    }
    if (jfif) return true;
    if (adobe) return transform != 0;
    if (ids[0] == 'R' && ids[1] == 'G' && ids[2] == 'B') return false;
    return true; // component ids 1, 2, 3 or anything else: libjpeg assumes YCbCr
}

} // namespace glint
