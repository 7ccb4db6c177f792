// The image model: samples in their native type (never rounded through float), a blank mask, and the
// metadata every later stage needs (bit depth, integer-valued flag, header cards, WCS, display hints).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace glint {

struct DicomVoi;
class Georef;
class Wcs;

enum class SampleType : std::uint8_t { UInt8, Int8, UInt16, Int16, UInt32, Int32, Int64, Float32, Float64 };

const char* sampleTypeName(SampleType type);
bool isIntegerSampleType(SampleType type);

struct HeaderCard {
    std::string key;
    std::string value;
    std::string comment;
};

// One HDU of a FITS file as astropy numbers them (0 = primary).
struct HduInfo {
    int index = 0;
    std::string kind;          // "image", "table", "bintable", "compressed image"
    std::string name;          // EXTNAME, if any
    int bitpix = 0;
    std::vector<long> axes;    // NAXISn
    bool hasImage() const { return kind == "image" || kind == "compressed image"; }
};

struct ImageMetadata {
    std::string path;
    std::string format;        // "FITS", "DICOM", "PNG", "PGM", "TIFF", "JPEG", "BMP", "CSV"
    int bitDepth = 8;          // bits per sample of the stored data (FITS: |BITPIX|)
    bool integerValued = true; // every non-blank sample is an integer (after BSCALE/BZERO)
    bool wasColour = false;    // converted from colour to luminance on load

    // FITS: the HDU read and the list of all HDUs; cubes by plane (0-based).
    int hdu = -1;
    std::vector<HduInfo> hdus;
    int plane = 0;
    int planeCount = 1;
    // DICOM: multi-frame files by frame (0-based).
    int frame = 0;
    int frameCount = 1;

    // FITS cards, DICOM tags ("(0028,0010) Rows"), or for PNG/TIFF/JPEG what GDAL reads (TIFF tags, text
    // chunks) and the georeferencing (GEOREF, CRS, EPSG, GEOTRANSFORM, ... from Georef::headerCards()).
    std::vector<HeaderCard> header;
    std::shared_ptr<const Wcs> wcs;    // null when the image has no usable WCS
    std::shared_ptr<const Georef> georef; // GeoTIFF / world file georeferencing; null when none
    bool displayYUp = false;           // FITS: row 0 is drawn at the bottom, as DS9 does
    std::optional<double> windowCenter; // DICOM default display window
    std::optional<double> windowWidth;
    std::shared_ptr<const DicomVoi> voi; // DICOM: VOI function, windows, VOI LUTs, polarity (null when none)
};

class Image {
public:
    using Storage = std::variant<std::vector<std::uint8_t>, std::vector<std::int8_t>, std::vector<std::uint16_t>,
                                 std::vector<std::int16_t>, std::vector<std::uint32_t>, std::vector<std::int32_t>,
                                 std::vector<std::int64_t>, std::vector<float>, std::vector<double>>;

    Image() = default;
    // Zero-filled image. Throws InputError for zero-sized or absurd dimensions.
    Image(int width, int height, SampleType type);
    template <class T>
    static Image fromSamples(int width, int height, std::vector<T> samples);

    int width() const { return width_; }
    int height() const { return height_; }
    std::size_t pixelCount() const { return static_cast<std::size_t>(width_) * static_cast<std::size_t>(height_); }
    bool empty() const { return pixelCount() == 0; }
    SampleType sampleType() const { return type_; }

    double value(std::size_t index) const;
    double value(int x, int y) const { return value(static_cast<std::size_t>(y) * width_ + x); }

    // Calls f(const T* samples) with the native sample pointer.
    template <class F>
    decltype(auto) visit(F&& f) const {
        return std::visit([&](const auto& v) -> decltype(auto) { return f(v.data()); }, storage_);
    }
    template <class F>
    decltype(auto) visitMutable(F&& f) {
        return std::visit([&](auto& v) -> decltype(auto) { return f(v.data()); }, storage_);
    }
    template <class T>
    const T* samples() const { return std::get<std::vector<T>>(storage_).data(); }
    template <class T>
    T* mutableSamples() { return std::get<std::vector<T>>(storage_).data(); }

    std::vector<double> toDoubles() const;

    // Blank mask: empty when no pixel is blank; otherwise one byte a pixel, 1 = blank (FITS BLANK, NaN).
    bool hasBlanks() const { return !blank_.empty(); }
    bool isBlank(std::size_t index) const { return !blank_.empty() && blank_[index] != 0; }
    bool isBlank(int x, int y) const { return isBlank(static_cast<std::size_t>(y) * width_ + x); }
    const std::vector<std::uint8_t>& blankMask() const { return blank_; }
    // Takes a mask of pixelCount() bytes; an all-zero mask is stored as "no blanks".
    void setBlankMask(std::vector<std::uint8_t> mask);
    std::size_t blankCount() const;

    // Scans the non-blank samples and sets meta.integerValued.
    void updateIntegerValued();

    ImageMetadata meta;

private:
    int width_ = 0;
    int height_ = 0;
    SampleType type_ = SampleType::UInt8;
    Storage storage_;
    std::vector<std::uint8_t> blank_;
};

// Largest image Glint accepts: beyond this a file is reported as absurd rather than exhausting memory.
constexpr long long kMaxImageSide = 1 << 20;
constexpr long long kMaxImagePixels = 1LL << 31;
// Throws InputError unless 1 <= width, height and the image is not absurdly large.
void checkImageDimensions(long long width, long long height, const std::string& what);

template <class T>
constexpr SampleType sampleTypeOf() {
    if constexpr (std::is_same_v<T, std::uint8_t>) return SampleType::UInt8;
    else if constexpr (std::is_same_v<T, std::int8_t>) return SampleType::Int8;
    else if constexpr (std::is_same_v<T, std::uint16_t>) return SampleType::UInt16;
    else if constexpr (std::is_same_v<T, std::int16_t>) return SampleType::Int16;
    else if constexpr (std::is_same_v<T, std::uint32_t>) return SampleType::UInt32;
    else if constexpr (std::is_same_v<T, std::int32_t>) return SampleType::Int32;
    else if constexpr (std::is_same_v<T, std::int64_t>) return SampleType::Int64;
    else if constexpr (std::is_same_v<T, float>) return SampleType::Float32;
    else {
        static_assert(std::is_same_v<T, double>, "unsupported sample type");
        return SampleType::Float64;
    }
}

template <class T>
Image Image::fromSamples(int width, int height, std::vector<T> samples) {
    checkImageDimensions(width, height, "image");
    Image image;
    image.width_ = width;
    image.height_ = height;
    image.type_ = sampleTypeOf<T>();
    samples.resize(image.pixelCount());
    image.storage_ = std::move(samples);
    image.meta.bitDepth = static_cast<int>(sizeof(T) * 8);
    image.updateIntegerValued();
    return image;
}

} // namespace glint
