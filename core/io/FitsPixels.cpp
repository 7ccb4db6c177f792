// A FITS image plane's samples (FitsReading.h): read as stored (CFITSIO's scaling off), then BSCALE and BZERO
// applied in the narrowest type that holds them without loss, or in double.
#include "core/io/FitsReading.h"

#include "core/io/IntegerRange.h"

#include <fitsio.h>

#include <cmath>
#include <cstdio>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace glint::fits {

namespace {

// Raw samples exactly as stored (CFITSIO's own scaling is switched off). Floating images come back
// with NaN where CFITSIO knows of undefined pixels (ZBLANK of quantised tile-compressed images).
template <class Raw>
std::vector<Raw> readRaw(fitsfile* f, int datatype, std::vector<LONGLONG>& first, std::size_t count,
                         const std::string& path) {
    std::vector<Raw> raw(count);
    int anyNull = 0;
    int status = 0;
    Raw nan = std::numeric_limits<Raw>::quiet_NaN();
    fits_set_bscale(f, 1.0, 0.0, &status);
    fits_read_pixll(f, datatype, first.data(), static_cast<LONGLONG>(count), std::is_floating_point_v<Raw> ? &nan : nullptr,
                    raw.data(), &anyNull, &status);
    if (status) failCfitsio(path, "the image data are truncated or corrupt", status);
    return raw;
}

// Which raw values are undefined: BLANK for integer images, NaN for floating ones.
template <class Raw>
struct BlankTest {
    std::optional<long long> blank;
    bool operator()(Raw v) const {
        if constexpr (std::is_floating_point_v<Raw>) return std::isnan(v);
        else return blank && static_cast<long long>(v) == *blank;
    }
};

// A sample that cannot be read exactly: a finite one that BSCALE and BZERO turn into an infinity. Glint
// refuses the file rather than report statistics of infinities. (Infinities stored in a floating-point
// image never get here: CFITSIO hands every IEEE special value over as undefined, so they become blanks
// like NaN; the first branch is for a CFITSIO that would not.)
[[noreturn]] void notFinite(const std::string& path, int width, std::size_t i, double raw) {
    const std::string where = "pixel (" + std::to_string(i % static_cast<std::size_t>(width) + 1) + ", " +
                              std::to_string(i / static_cast<std::size_t>(width) + 1) + ")";
    if (std::isinf(raw))
        fail(path, "the image holds an infinite value at FITS " + where +
                       " (only NaN may mark an undefined pixel; infinities cannot be measured)");
    char value[40];
    std::snprintf(value, sizeof value, "%.17g", raw);
    fail(path, "BSCALE and BZERO overflow the value " + std::string(value) + " at FITS " + where +
                   " to infinity (the scaling is damaged)");
}

// Converts in place when the type does not change, so that a large image is held once, not twice; the
// blank mask is only allocated when a blank turns up.
template <class T, class Raw, class F>
Image buildImage(int width, int height, std::vector<Raw>& raw, const BlankTest<Raw>& isBlank, const std::string& path,
                 F&& convert) {
    std::vector<T> samples;
    if constexpr (std::is_same_v<T, Raw>) samples = std::move(raw);
    else samples.resize(raw.size());
    std::vector<std::uint8_t> blank;
    for (std::size_t i = 0; i < samples.size(); ++i) {
        Raw v;
        if constexpr (std::is_same_v<T, Raw>) v = samples[i];
        else v = raw[i];
        if (isBlank(v)) {
            if (blank.empty()) blank.assign(samples.size(), 0);
            blank[i] = 1;
            samples[i] = std::numeric_limits<T>::has_quiet_NaN ? std::numeric_limits<T>::quiet_NaN() : T(0);
            continue;
        }
        samples[i] = static_cast<T>(convert(v));
        if constexpr (std::numeric_limits<T>::has_quiet_NaN) {
            if (std::isinf(samples[i])) notFinite(path, width, i, static_cast<double>(v));
            if (std::isnan(samples[i])) {
                if (blank.empty()) blank.assign(samples.size(), 0);
                blank[i] = 1;
            }
        }
    }
    std::vector<Raw>().swap(raw);
    Image image = Image::fromSamples<T>(width, height, std::move(samples));
    image.setBlankMask(std::move(blank));
    return image;
}

template <class Raw>
Image toPhysical(int width, int height, std::vector<Raw> raw, const BlankTest<Raw>& isBlank, double bscale,
                 double bzero, const std::string& path) {
    const bool identity = bscale == 1.0 && bzero == 0.0;
    if constexpr (std::is_floating_point_v<Raw>) {
        if (identity) return buildImage<Raw>(width, height, raw, isBlank, path, [](Raw v) { return v; });
    } else {
        if (bscale == 1.0 && bzero == std::nearbyint(bzero)) {
            const long double z = bzero;
            const long double lo = static_cast<long double>(std::numeric_limits<Raw>::min()) + z;
            const long double hi = static_cast<long double>(std::numeric_limits<Raw>::max()) + z;
            if (const auto type = narrowestIntegerType(lo, hi)) {
                // The declared range fits, so the offset fits int64 and raw + offset cannot overflow.
                const std::int64_t offset = static_cast<std::int64_t>(z);
                const auto shifted = [offset](Raw v) { return static_cast<std::int64_t>(v) + offset; };
                switch (*type) {
                case SampleType::UInt8: return buildImage<std::uint8_t>(width, height, raw, isBlank, path, shifted);
                case SampleType::Int8: return buildImage<std::int8_t>(width, height, raw, isBlank, path, shifted);
                case SampleType::UInt16: return buildImage<std::uint16_t>(width, height, raw, isBlank, path, shifted);
                case SampleType::Int16: return buildImage<std::int16_t>(width, height, raw, isBlank, path, shifted);
                case SampleType::UInt32: return buildImage<std::uint32_t>(width, height, raw, isBlank, path, shifted);
                case SampleType::Int32: return buildImage<std::int32_t>(width, height, raw, isBlank, path, shifted);
                default: return buildImage<std::int64_t>(width, height, raw, isBlank, path, shifted);
                }
            }
            // BITPIX 64 with an offset (the unsigned 64-bit convention, BZERO = 2^63): int64 when the
            // actual values allow it; otherwise double, which rounds beyond 2^53.
            bool fits = true;
            for (std::size_t i = 0; i < raw.size() && fits; ++i) {
                const long double v = static_cast<long double>(raw[i]) + z;
                fits = isBlank(raw[i]) || (v >= -9223372036854775808.0L && v <= 9223372036854775807.0L);
            }
            if (fits)
                return buildImage<std::int64_t>(width, height, raw, isBlank, path, [z](Raw v) {
                    return static_cast<std::int64_t>(static_cast<long double>(v) + z);
                });
            return buildImage<double>(width, height, raw, isBlank, path, [z](Raw v) {
                return static_cast<double>(static_cast<long double>(v) + z);
            });
        }
    }
    // Any other scaling: double, computed as the FITS standard and astropy do (raw * BSCALE + BZERO).
    return buildImage<double>(width, height, raw, isBlank, path,
                              [bscale, bzero](Raw v) { return static_cast<double>(v) * bscale + bzero; });
}

} // namespace

Image readPlane(fitsfile* f, const std::string& path, int bitpix, const std::vector<LONGLONG>& axes, int plane,
                double bscale, double bzero, std::optional<long long> blank) {
    const int width = static_cast<int>(axes[0]);
    const int height = axes.size() > 1 ? static_cast<int>(axes[1]) : 1;
    std::vector<LONGLONG> first(axes.size(), 1);
    long long rest = plane;
    for (std::size_t k = 2; k < axes.size(); ++k) {
        first[k] = rest % axes[k] + 1;
        rest /= axes[k];
    }
    const std::size_t n = static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
    // Reads the plane as `Raw` samples (CFITSIO's `datatype`) and scales them (a float's blanks are its NaN).
    const auto physical = [&]<class Raw>(Raw, int datatype) {
        return toPhysical(width, height, readRaw<Raw>(f, datatype, first, n, path), BlankTest<Raw>{blank}, bscale,
                          bzero, path);
    };
    switch (bitpix) {
    case BYTE_IMG: return physical(std::uint8_t{}, TBYTE);
    case SHORT_IMG: return physical(std::int16_t{}, TSHORT);
    case LONG_IMG: return physical(std::int32_t{}, TINT);
    case LONGLONG_IMG: return physical(std::int64_t{}, TLONGLONG);
    case FLOAT_IMG: return physical(float{}, TFLOAT);
    case DOUBLE_IMG: return physical(double{}, TDOUBLE);
    default: fail(path, "BITPIX = " + std::to_string(bitpix) + " is not a valid FITS sample type");
    }
}

} // namespace glint::fits
