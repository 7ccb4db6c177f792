#include "core/io/Image.h"

#include "core/util/Errors.h"

#include <cmath>
#include <string>

namespace glint {

const char* sampleTypeName(SampleType type) {
    switch (type) {
    case SampleType::UInt8: return "uint8";
    case SampleType::Int8: return "int8";
    case SampleType::UInt16: return "uint16";
    case SampleType::Int16: return "int16";
    case SampleType::UInt32: return "uint32";
    case SampleType::Int32: return "int32";
    case SampleType::Int64: return "int64";
    case SampleType::Float32: return "float32";
    case SampleType::Float64: return "float64";
    }
    return "unknown";
}

bool isIntegerSampleType(SampleType type) {
    return type != SampleType::Float32 && type != SampleType::Float64;
}

void checkImageDimensions(long long width, long long height, const std::string& what) {
    if (width <= 0 || height <= 0)
        throw InputError(what + " has zero or negative size (" + std::to_string(width) + "x" +
                         std::to_string(height) + ")");
    if (width > kMaxImageSide || height > kMaxImageSide || width * height > kMaxImagePixels)
        throw InputError(what + " has absurd dimensions (" + std::to_string(width) + "x" + std::to_string(height) +
                         "); Glint opens images up to " + std::to_string(kMaxImagePixels) + " pixels");
}

namespace {
template <class T>
Image::Storage makeStorage(std::size_t n) {
    return std::vector<T>(n);
}
} // namespace

Image::Image(int width, int height, SampleType type) : width_(width), height_(height), type_(type) {
    checkImageDimensions(width, height, "image");
    const std::size_t n = pixelCount();
    switch (type) {
    case SampleType::UInt8: storage_ = makeStorage<std::uint8_t>(n); break;
    case SampleType::Int8: storage_ = makeStorage<std::int8_t>(n); break;
    case SampleType::UInt16: storage_ = makeStorage<std::uint16_t>(n); break;
    case SampleType::Int16: storage_ = makeStorage<std::int16_t>(n); break;
    case SampleType::UInt32: storage_ = makeStorage<std::uint32_t>(n); break;
    case SampleType::Int32: storage_ = makeStorage<std::int32_t>(n); break;
    case SampleType::Int64: storage_ = makeStorage<std::int64_t>(n); break;
    case SampleType::Float32: storage_ = makeStorage<float>(n); break;
    case SampleType::Float64: storage_ = makeStorage<double>(n); break;
    }
    meta.bitDepth = static_cast<int>(visit([](const auto* p) { return sizeof(*p) * 8; }));
    meta.integerValued = true;
}

double Image::value(std::size_t index) const {
    return visit([index](const auto* p) { return static_cast<double>(p[index]); });
}

std::vector<double> Image::toDoubles() const {
    std::vector<double> out(pixelCount());
    visit([&](const auto* p) {
        for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<double>(p[i]);
    });
    return out;
}

void Image::setBlankMask(std::vector<std::uint8_t> mask) {
    if (mask.empty()) {
        blank_.clear();
        return;
    }
    if (mask.size() != pixelCount()) throw std::logic_error("blank mask size does not match the image");
    bool any = false;
    for (auto m : mask)
        if (m) {
            any = true;
            break;
        }
    if (any) blank_ = std::move(mask);
    else blank_.clear();
}

std::size_t Image::blankCount() const {
    std::size_t count = 0;
    for (auto m : blank_) count += m ? 1 : 0;
    return count;
}

void Image::updateIntegerValued() {
    if (isIntegerSampleType(type_)) {
        meta.integerValued = true;
        return;
    }
    meta.integerValued = visit([&](const auto* p) {
        const std::size_t n = pixelCount();
        for (std::size_t i = 0; i < n; ++i) {
            if (isBlank(i)) continue;
            const double v = static_cast<double>(p[i]);
            if (!std::isfinite(v) || v != std::nearbyint(v)) return false;
        }
        return true;
    });
}

} // namespace glint
