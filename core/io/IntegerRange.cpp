#include "core/io/IntegerRange.h"

#include <cstdint>
#include <limits>

namespace glint {

namespace {
template <class T>
bool holds(long double lo, long double hi) {
    return lo >= static_cast<long double>(std::numeric_limits<T>::min()) &&
           hi <= static_cast<long double>(std::numeric_limits<T>::max());
}
} // namespace

std::optional<SampleType> narrowestIntegerType(long double lo, long double hi) {
    if (holds<std::uint8_t>(lo, hi)) return SampleType::UInt8;
    if (holds<std::int8_t>(lo, hi)) return SampleType::Int8;
    if (holds<std::uint16_t>(lo, hi)) return SampleType::UInt16;
    if (holds<std::int16_t>(lo, hi)) return SampleType::Int16;
    if (holds<std::uint32_t>(lo, hi)) return SampleType::UInt32;
    if (holds<std::int32_t>(lo, hi)) return SampleType::Int32;
    if (holds<std::int64_t>(lo, hi)) return SampleType::Int64;
    return std::nullopt;
}

} // namespace glint
