#include "core/util/ImageBudget.h"

#include "core/util/Errors.h"
#include "core/util/ResourceLimits.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

namespace glint {

namespace {

std::atomic<std::uint64_t> explicitLimit{0};

std::uint64_t parseByteCount(const std::string& text) {
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(text.c_str(), &end);
    long double factor = 1;
    if (end != text.c_str()) {
        switch (*end) {
        case 'k': case 'K': factor = 1024.0L; ++end; break;
        case 'm': case 'M': factor = 1024.0L * 1024; ++end; break;
        case 'g': case 'G': factor = 1024.0L * 1024 * 1024; ++end; break;
        case 't': case 'T': factor = 1024.0L * 1024 * 1024 * 1024; ++end; break;
        default: break;
        }
        if (*end == 'i' || *end == 'I') ++end;
        if (*end == 'b' || *end == 'B') ++end;
    }
    const long double bytes = static_cast<long double>(v) * factor;
    if (end == text.c_str() || *end != '\0' || !std::isfinite(v) || bytes < 1 || bytes > 1.8e19L)
        throw UsageError("GLINT_MAX_IMAGE_BYTES='" + text.substr(0, 40) +
                         "' is not a byte count (write e.g. 4000000000 or 4G)");
    return static_cast<std::uint64_t>(bytes);
}

} // namespace

MemoryLimit imageByteLimit() {
    if (const std::uint64_t v = explicitLimit.load()) return {v, "GLINT_MAX_IMAGE_BYTES"}; // as the variable would
    if (const char* env = std::getenv("GLINT_MAX_IMAGE_BYTES"); env && *env)
        return {parseByteCount(env), "GLINT_MAX_IMAGE_BYTES"};
    return processMemoryLimit();
}

std::uint64_t maxImageBytes() { return imageByteLimit().bytes; }

void setMaxImageBytes(std::uint64_t bytes) { explicitLimit.store(bytes); }

std::string formatByteSize(long double bytes) {
    static const char* units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (bytes < 1024) return std::to_string(static_cast<long long>(bytes)) + " bytes";
    int unit = -1;
    while (bytes >= 1024 && unit < 5) {
        bytes /= 1024;
        ++unit;
    }
    char buf[48];
    std::snprintf(buf, sizeof buf, bytes < 10 ? "%.1Lf %s" : "%.0Lf %s", bytes, units[unit]);
    return buf;
}

void checkImageBudget(const DecodedSize& size, const std::string& where) {
    if (size.width <= 0 || size.height <= 0) return; // the dimension checks say what is wrong
    const long double pixels = static_cast<long double>(size.width) * static_cast<long double>(size.height);
    const long double sampleBytes = (std::max(size.bitsPerSample, 1) + 7) / 8;
    const long double decoded =
        pixels * std::max(size.channels, 1) * sampleBytes * static_cast<long double>(std::max(size.frames, 1LL));
    const long double tile = size.tileWidth > 0 && size.tileHeight > 0
                                 ? static_cast<long double>(size.tileWidth) * static_cast<long double>(size.tileHeight) *
                                       std::max(size.channels, 4) * sampleBytes
                                 : 0.0L;
    const long double needed = decoded + tile + pixels * static_cast<long double>(kWorkBytesPerPixel);
    const MemoryLimit limit = imageByteLimit();
    if (needed <= static_cast<long double>(limit.bytes)) return;
    std::string shape = std::to_string(size.width) + " \xC3\x97 " + std::to_string(size.height);
    if (size.frames > 1) shape += " \xC3\x97 " + std::to_string(size.frames) + " frames";
    if (size.channels > 1) shape += " \xC3\x97 " + std::to_string(size.channels) + " channels";
    shape += " \xC3\x97 " + std::to_string(size.bitsPerSample) + " bit";
    if (tile > 0)
        shape += " in tiles of " + std::to_string(size.tileWidth) + " \xC3\x97 " + std::to_string(size.tileHeight) +
                 " (" + formatByteSize(tile) + " a tile)";
    throw InputError(where + ": the image is too large: " + shape + " = " + formatByteSize(decoded) + " decoded, " +
                     formatByteSize(needed) + " with Glint's working copies (" + std::to_string(kWorkBytesPerPixel) +
                     " bytes a pixel), over the " + formatByteSize(static_cast<long double>(limit.bytes)) +
                     " limit (" + limit.source +
                     (limit.source == "GLINT_MAX_IMAGE_BYTES" ? ")" : "; GLINT_MAX_IMAGE_BYTES sets another)"));
}

} // namespace glint
