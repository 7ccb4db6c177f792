#include "ui/display/ColourSamples.h"

#include "core/io/Codecs.h"
#include "core/util/InputFile.h"
#include "core/util/StderrSilencer.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <string>

#if GLINT_WITH_IMGCODECS
#include <opencv2/imgproc.hpp>
#endif

namespace glint::ui {

namespace {

bool isColourRaster(const glint::Image& image) {
    const std::string& f = image.meta.format;
    return image.meta.wasColour && !image.meta.path.empty() &&
           (f == "PNG" || f == "TIFF" || f == "JPEG" || f == "BMP");
}

#if GLINT_WITH_IMGCODECS
// Whether the luminance of `colour` (OpenCV's, as core/io/RasterLoader computes it) is the image's, sample
// for sample: then these are the pixels the image was loaded from.
template <class T>
bool sameLuminance(const cv::Mat& colour, const glint::Image& image) {
    cv::Mat grey;
    cv::cvtColor(colour, grey, colour.channels() == 3 ? cv::COLOR_BGR2GRAY : cv::COLOR_BGRA2GRAY);
    const T* samples = image.samples<T>();
    for (int y = 0; y < grey.rows; ++y)
        if (std::memcmp(grey.ptr<T>(y), samples + static_cast<std::size_t>(y) * image.width(),
                        sizeof(T) * static_cast<std::size_t>(image.width())) != 0)
            return false;
    return true;
}

template <class T>
void copyRgb(const cv::Mat& colour, std::vector<T>& rgb) {
    const int channels = colour.channels();
    rgb.resize(static_cast<std::size_t>(colour.rows) * colour.cols * 3);
    T* out = rgb.data();
    for (int y = 0; y < colour.rows; ++y) {
        const T* row = colour.ptr<T>(y);
        for (int x = 0; x < colour.cols; ++x, row += channels, out += 3) {
            out[0] = row[2]; // OpenCV keeps B, G, R(, A)
            out[1] = row[1];
            out[2] = row[0];
        }
    }
}
#endif

std::shared_ptr<const ColourSamples> readColour(const glint::Image& image) {
#if !GLINT_WITH_IMGCODECS
    (void)image;
    return nullptr;
#else
    const glint::Codecs* codecs = glint::codecs();
    if (!codecs) return nullptr; // the luminance is drawn
    cv::Mat colour;
    try {
        const glint::InputFile file(image.meta.path); // a regular file, as the loader required
        (void)file;
        glint::StderrSilencer quiet;
        colour = codecs->read(image.meta.path);
    } catch (const std::exception&) {
        return nullptr; // gone or unreadable since it was loaded: the luminance is drawn
    }
    if (colour.empty() || colour.cols != image.width() || colour.rows != image.height() ||
        (colour.channels() != 3 && colour.channels() != 4))
        return nullptr;
    auto out = std::make_shared<ColourSamples>();
    out->width = colour.cols;
    out->height = colour.rows;
    if (colour.depth() == CV_8U && image.sampleType() == glint::SampleType::UInt8) {
        if (!sameLuminance<std::uint8_t>(colour, image)) return nullptr;
        copyRgb(colour, out->rgb8);
    } else if (colour.depth() == CV_16U && image.sampleType() == glint::SampleType::UInt16) {
        if (!sameLuminance<std::uint16_t>(colour, image)) return nullptr;
        out->sixteenBit = true;
        copyRgb(colour, out->rgb16);
    } else {
        return nullptr; // float or signed colour: drawn as luminance
    }
    return out;
#endif
}

struct CacheEntry {
    std::weak_ptr<const glint::Image> image;
    std::shared_ptr<const ColourSamples> samples; // null: the image has none
};

std::mutex mutex;
std::vector<CacheEntry> cache; // guarded by mutex

} // namespace

std::shared_ptr<const ColourSamples> cachedColourSamplesOf(const std::shared_ptr<const glint::Image>& image) {
    if (!image || !isColourRaster(*image)) return nullptr;
    const std::lock_guard<std::mutex> lock(mutex);
    for (const CacheEntry& e : cache)
        if (!e.image.owner_before(image) && !image.owner_before(e.image)) return e.samples;
    return nullptr;
}

std::shared_ptr<const ColourSamples> colourSamplesOf(const std::shared_ptr<const glint::Image>& image) {
    if (!image || !isColourRaster(*image)) return nullptr;
    const auto same = [&](const CacheEntry& e) { return !e.image.owner_before(image) && !image.owner_before(e.image); };
    {
        const std::lock_guard<std::mutex> lock(mutex);
        cache.erase(std::remove_if(cache.begin(), cache.end(), [](const CacheEntry& e) { return e.image.expired(); }),
                    cache.end());
        const auto it = std::find_if(cache.begin(), cache.end(), same);
        if (it != cache.end()) return it->samples;
    }
    // Read outside the lock (two threads may both read an image the first time; the first one stored wins).
    std::shared_ptr<const ColourSamples> samples;
    try {
        samples = readColour(*image);
    } catch (const std::bad_alloc&) {
        samples = nullptr; // no room for the colour: the luminance is drawn
    }
    const std::lock_guard<std::mutex> lock(mutex);
    const auto it = std::find_if(cache.begin(), cache.end(), same);
    if (it != cache.end()) return it->samples;
    cache.push_back({image, samples});
    return samples;
}

bool colormapShowsColour(glint::Colormap colormap) {
    return colormap == glint::Colormap::Grey || colormap == glint::Colormap::InvertedGrey;
}

ColourRenderer::ColourRenderer(const ColourSamples& samples, const glint::Image& image,
                               const glint::DisplayRenderer& renderer, std::uint32_t blankColour)
    : samples_(samples), image_(image), blank_(blankColour) {
    // A grey colormap's colour of a value is its display level in each of R, G and B.
    level_.resize(samples.sixteenBit ? 65536 : 256);
    for (std::size_t v = 0; v < level_.size(); ++v)
        level_[v] = static_cast<std::uint8_t>(renderer.colourOf(static_cast<double>(v)) & 0xFFu);
}

void ColourRenderer::renderRow(int y, std::uint32_t* out) const {
    const std::size_t start = static_cast<std::size_t>(y) * samples_.width;
    for (int x = 0; x < samples_.width; ++x) {
        const std::size_t i = start + x;
        if (image_.isBlank(i)) {
            out[x] = blank_;
            continue;
        }
        out[x] = 0xFF000000u | (std::uint32_t{level_[samples_.channel(i, 0)]} << 16) |
                 (std::uint32_t{level_[samples_.channel(i, 1)]} << 8) | level_[samples_.channel(i, 2)];
    }
}

} // namespace glint::ui
