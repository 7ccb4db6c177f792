#include "core/display/Display.h"

#include "core/io/DicomVoi.h"
#include "core/io/ImageStats.h"
#include "core/util/EnumNames.h"
#include "core/util/Errors.h"
#include "core/util/Parallel.h"

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace glint {

DisplaySettings dicomVoiSettings(const Image& image, int choice, DisplaySettings base) {
    const DicomVoi* voi = image.meta.voi.get();
    if (!voi || voi->choiceCount() == 0) return base;
    base.limits = LimitsMode::Window;
    base.voiChoice = std::clamp(choice, 0, voi->choiceCount() - 1);
    voi->storedRange(base.voiChoice, base.low, base.high);
    return base;
}

DisplaySettings defaultDisplaySettings(const Image& image) {
    DisplaySettings s;
    if (image.meta.voi && image.meta.voi->choiceCount() > 0) return dicomVoiSettings(image, 0, s);
    if (image.meta.windowCenter && image.meta.windowWidth && *image.meta.windowWidth > 0) {
        s.limits = LimitsMode::Window;
        s.low = *image.meta.windowCenter - *image.meta.windowWidth / 2.0;
        s.high = *image.meta.windowCenter + *image.meta.windowWidth / 2.0;
    }
    return s;
}

namespace {

// Every finite non-blank value in storage order (row 0 first), as astropy sees a masked array.
std::vector<double> finiteValues(const Image& image, std::size_t stride = 1) {
    std::vector<double> out;
    image.visit([&](const auto* p) {
        const std::size_t n = image.pixelCount();
        out.reserve(n / stride + 1);
        for (std::size_t i = 0; i < n; i += stride) {
            if (image.isBlank(i)) continue;
            const double v = static_cast<double>(p[i]);
            if (std::isfinite(v)) out.push_back(v);
        }
    });
    return out;
}

DisplayLimits ordered(DisplayLimits l) {
    if (!(l.high > l.low)) l.high = l.low + 1.0; // a flat image still maps to something
    return l;
}

} // namespace

DisplayLimits zscaleLimits(const Image& image, int nSamples, double contrast) {
    std::vector<double> values = finiteValues(image);
    if (values.empty()) return {0.0, 1.0};
    const std::size_t stride = std::max<std::size_t>(1, static_cast<std::size_t>(
                                                            static_cast<double>(values.size()) / nSamples));
    std::vector<double> samples;
    for (std::size_t i = 0; i < values.size() && samples.size() < static_cast<std::size_t>(nSamples); i += stride)
        samples.push_back(values[i]);
    std::sort(samples.begin(), samples.end());
    const long npix = static_cast<long>(samples.size());
    double vmin = samples.front();
    double vmax = samples.back();

    constexpr int kMinPixels = 5;
    constexpr double kMaxReject = 0.5;
    constexpr double kRej = 2.5;
    constexpr int kMaxIterations = 5;
    const long minpix = std::max<long>(kMinPixels, static_cast<long>(npix * kMaxReject));
    const long ngrow = std::max<long>(1, static_cast<long>(npix * 0.01));
    std::vector<char> bad(static_cast<std::size_t>(npix), 0);
    long ngood = npix;
    long lastNgood = npix + 1;
    double slope = 0.0;
    bool fitted = false;
    for (int iter = 0; iter < kMaxIterations; ++iter) {
        if (ngood >= lastNgood || ngood < minpix) break;
        // least-squares line through the good samples (x = index)
        double sx = 0, sy = 0, sxx = 0, sxy = 0, n = 0;
        for (long i = 0; i < npix; ++i) {
            if (bad[i]) continue;
            const double x = static_cast<double>(i);
            sx += x;
            sy += samples[i];
            sxx += x * x;
            sxy += x * samples[i];
            n += 1;
        }
        const double denom = n * sxx - sx * sx;
        const double b = denom != 0.0 ? (n * sxy - sx * sy) / denom : 0.0;
        const double a = (sy - b * sx) / n;
        slope = b;
        fitted = true;
        std::vector<double> flat(static_cast<std::size_t>(npix));
        double mean = 0.0;
        for (long i = 0; i < npix; ++i) {
            flat[i] = samples[i] - (a + b * static_cast<double>(i));
            if (!bad[i]) mean += flat[i];
        }
        mean /= n;
        double var = 0.0;
        for (long i = 0; i < npix; ++i)
            if (!bad[i]) var += (flat[i] - mean) * (flat[i] - mean);
        const double threshold = kRej * std::sqrt(var / n);
        for (long i = 0; i < npix; ++i)
            if (flat[i] < -threshold || flat[i] > threshold) bad[i] = 1;
        // dilate as numpy.convolve(bad, ones(ngrow), mode='same')
        std::vector<char> grown(static_cast<std::size_t>(npix), 0);
        const long c = (ngrow - 1) / 2;
        for (long i = 0; i < npix; ++i) {
            const long lo = std::max<long>(0, i + c - (ngrow - 1));
            const long hi = std::min<long>(npix - 1, i + c);
            for (long j = lo; j <= hi; ++j)
                if (bad[j]) {
                    grown[i] = 1;
                    break;
                }
        }
        bad.swap(grown);
        lastNgood = ngood;
        ngood = static_cast<long>(std::count(bad.begin(), bad.end(), 0));
    }
    if (fitted && ngood >= minpix) {
        if (contrast > 0) slope /= contrast;
        const long center = (npix - 1) / 2;
        double median = (npix % 2 == 1) ? samples[npix / 2] : 0.5 * (samples[npix / 2 - 1] + samples[npix / 2]);
        // numpy takes the median of float32 samples in float32: so must we, to give astropy's limits.
        if (image.sampleType() == SampleType::Float32 && npix % 2 == 0)
            median = (static_cast<float>(samples[npix / 2 - 1]) + static_cast<float>(samples[npix / 2])) / 2.0f;
        vmin = std::max(vmin, median - static_cast<double>(center - 1) * slope);
        vmax = std::min(vmax, median + static_cast<double>(npix - center) * slope);
    }
    return {vmin, vmax};
}

DisplayLimits computeLimits(const Image& image, const DisplaySettings& settings) {
    switch (settings.limits) {
    case LimitsMode::Manual:
    case LimitsMode::Window: return ordered({settings.low, settings.high});
    case LimitsMode::ZScale: return ordered(zscaleLimits(image));
    case LimitsMode::MinMax: {
        const ImageStats s = computeStats(image);
        return ordered({s.min, s.max});
    }
    case LimitsMode::Percentile: {
        // Large images: a regular subsample of about 4 million pixels is as good for display limits.
        const std::size_t stride = std::max<std::size_t>(1, image.pixelCount() / (1u << 22));
        std::vector<double> values = finiteValues(image, stride);
        if (values.empty()) return {0.0, 1.0};
        const double cut = (100.0 - std::clamp(settings.percentile, 0.0, 100.0)) / 2.0;
        DisplayLimits l;
        l.low = percentileOf(values, cut);
        l.high = percentileOf(values, 100.0 - cut);
        return ordered(l);
    }
    }
    return {0.0, 1.0};
}

double stretch(double value, const DisplayLimits& limits, DisplayScale scale) {
    double x = unitFraction(value, limits.low, limits.high);
    x = std::clamp(x, 0.0, 1.0);
    switch (scale) {
    case DisplayScale::Linear: return x;
    case DisplayScale::Log: return std::log10(1000.0 * x + 1.0) / std::log10(1000.0); // DS9, exponent 1000
    case DisplayScale::Sqrt: return std::sqrt(x);
    case DisplayScale::Asinh: return std::asinh(10.0 * x) / 3.0;                     // DS9
    }
    return x;
}

std::array<std::uint32_t, 256> colormapTable(Colormap colormap) {
    std::array<std::uint32_t, 256> table{};
    if (colormap == Colormap::Grey || colormap == Colormap::InvertedGrey) {
        for (int i = 0; i < 256; ++i) {
            const std::uint32_t g = colormap == Colormap::Grey ? i : 255 - i;
            table[i] = 0xFF000000u | (g << 16) | (g << 8) | g;
        }
        return table;
    }
    int cvMap = cv::COLORMAP_VIRIDIS;
    switch (colormap) {
    case Colormap::Heat: cvMap = cv::COLORMAP_HOT; break;
    case Colormap::Viridis: cvMap = cv::COLORMAP_VIRIDIS; break;
    case Colormap::Cool: cvMap = cv::COLORMAP_COOL; break;
    case Colormap::Rainbow: cvMap = cv::COLORMAP_TURBO; break;
    default: break;
    }
    cv::Mat ramp(1, 256, CV_8UC1);
    for (int i = 0; i < 256; ++i) ramp.at<std::uint8_t>(0, i) = static_cast<std::uint8_t>(i);
    cv::Mat colours;
    cv::applyColorMap(ramp, colours, cvMap);
    for (int i = 0; i < 256; ++i) {
        const cv::Vec3b bgr = colours.at<cv::Vec3b>(0, i);
        table[i] = 0xFF000000u | (std::uint32_t(bgr[2]) << 16) | (std::uint32_t(bgr[1]) << 8) | bgr[0];
    }
    return table;
}

DisplayRenderer::DisplayRenderer(const Image& image, const DisplaySettings& settings, const DisplayLimits& limits,
                                 std::uint32_t blankColour)
    : image_(image), limits_(limits), scale_(settings.scale), blank_(blankColour),
      table_(colormapTable(settings.colormap)) {
    if (settings.limits == LimitsMode::Window && image.meta.voi && image.meta.voi->choiceCount() > 0) {
        voi_ = image.meta.voi.get();
        voiChoice_ = std::clamp(settings.voiChoice, 0, voi_->choiceCount() - 1);
    }
    // Levels change at 255 thresholds of the normalised value; finding them once by bisection lets every
    // pixel skip the logarithm (or asinh, sqrt) of stretch() and still land on exactly its level.
    const DisplayLimits unit{0.0, 1.0};
    const auto levelOfUnit = [&](double x) { return static_cast<int>(std::lround(stretch(x, unit, scale_) * 255.0)); };
    thresholds_[0] = -std::numeric_limits<double>::infinity();
    for (int k = 1; k <= 255; ++k) {
        double lo = 0.0, hi = 1.0; // levelOfUnit(lo) < k <= levelOfUnit(hi), as stretch(1) = 1
        if (levelOfUnit(lo) >= k) {
            thresholds_[k] = lo;
            continue;
        }
        for (int i = 0; i < 200 && std::nextafter(lo, hi) < hi; ++i) {
            const double mid = 0.5 * (lo + hi);
            (levelOfUnit(mid) >= k ? hi : lo) = mid;
        }
        thresholds_[k] = hi;
    }
    thresholds_[256] = std::numeric_limits<double>::infinity();
    coarse_.resize(4096);
    int k = 0;
    for (std::size_t b = 0; b < coarse_.size(); ++b) {
        const double x = static_cast<double>(b) / static_cast<double>(coarse_.size());
        while (k < 255 && x >= thresholds_[k + 1]) ++k;
        coarse_[b] = static_cast<std::uint8_t>(k);
    }
    image.visit([&](const auto* p) {
        using T = std::remove_cv_t<std::remove_pointer_t<decltype(p)>>;
        if constexpr (std::is_integral_v<T> && sizeof(T) <= 2) {
            lut_.resize(std::size_t(1) << (8 * sizeof(T)));
            for (std::size_t v = 0; v < lut_.size(); ++v)
                lut_[v] = table_[static_cast<std::size_t>(level(static_cast<double>(static_cast<long>(v) + std::numeric_limits<T>::min())))];
        }
    });
}

int DisplayRenderer::level(double value) const {
    // The DICOM VOI gives the P-value in [0, 1] itself; the stretch applies to it as to a fraction.
    const double x = voi_ ? voi_->pValue(voiChoice_, value) : unitFraction(value, limits_.low, limits_.high);
    if (!(x > 0.0)) return static_cast<int>(coarse_[0]);
    if (x >= 1.0) return 255;
    int k = coarse_[static_cast<std::size_t>(x * static_cast<double>(coarse_.size()))];
    while (x >= thresholds_[k + 1]) ++k;
    return k;
}

std::uint32_t DisplayRenderer::colourOf(double value) const {
    return std::isnan(value) ? blank_ : table_[static_cast<std::size_t>(level(value))];
}

void DisplayRenderer::renderRow(int y, std::uint32_t* out) const {
    const std::size_t width = static_cast<std::size_t>(image_.width());
    const std::size_t first = static_cast<std::size_t>(y) * width;
    image_.visit([&](const auto* p) {
        using T = std::remove_cv_t<std::remove_pointer_t<decltype(p)>>;
        const T* row = p + first;
        for (std::size_t x = 0; x < width; ++x) {
            if constexpr (std::is_integral_v<T> && sizeof(T) <= 2)
                out[x] = lut_[static_cast<std::size_t>(static_cast<long>(row[x]) - std::numeric_limits<T>::min())];
            else
                out[x] = colourOf(static_cast<double>(row[x]));
        }
    });
    if (image_.hasBlanks()) {
        const std::uint8_t* mask = image_.blankMask().data() + first;
        for (std::size_t x = 0; x < width; ++x)
            if (mask[x]) out[x] = blank_;
    }
}

void DisplayRenderer::renderRows(int firstRow, int endRow, const std::function<std::uint32_t*(int y)>& rowOut) const {
    firstRow = std::max(firstRow, 0);
    endRow = std::min(endRow, image_.height());
    if (endRow <= firstRow) return;
    const std::size_t grain = std::max<std::size_t>(1, (std::size_t(1) << 16) / static_cast<std::size_t>(image_.width()));
    parallelFor(static_cast<std::size_t>(firstRow), static_cast<std::size_t>(endRow), grain,
                [&](std::size_t y0, std::size_t y1) {
                    for (std::size_t y = y0; y < y1; ++y) renderRow(static_cast<int>(y), rowOut(static_cast<int>(y)));
                });
}

std::vector<std::uint32_t> renderImage(const Image& image, const DisplaySettings& settings,
                                       const DisplayLimits& limits, std::uint32_t blankColour) {
    std::vector<std::uint32_t> out(image.pixelCount());
    const DisplayRenderer renderer(image, settings, limits, blankColour);
    renderer.renderRows(0, image.height(),
                        [&](int y) { return out.data() + static_cast<std::size_t>(y) * image.width(); });
    return out;
}

namespace {
constexpr EnumName<DisplayScale> kScaleNames[] = {
    {DisplayScale::Linear, "linear"}, {DisplayScale::Log, "log"}, {DisplayScale::Sqrt, "sqrt"}, {DisplayScale::Asinh, "asinh"}};
constexpr EnumName<LimitsMode> kLimitsNames[] = {{LimitsMode::MinMax, "minmax"},
                                                 {LimitsMode::ZScale, "zscale"},
                                                 {LimitsMode::Percentile, "percentile"},
                                                 {LimitsMode::Window, "window"},
                                                 {LimitsMode::Manual, "manual"}};
constexpr EnumName<Colormap> kColormapNames[] = {{Colormap::Grey, "grey"},       {Colormap::InvertedGrey, "inverted grey"},
                                                 {Colormap::Heat, "heat"},       {Colormap::Viridis, "viridis"},
                                                 {Colormap::Cool, "cool"},       {Colormap::Rainbow, "rainbow"}};
} // namespace

const char* displayScaleName(DisplayScale scale) { return enumName(kScaleNames, scale); }
const char* limitsModeName(LimitsMode mode) { return enumName(kLimitsNames, mode); }
const char* colormapName(Colormap colormap) { return enumName(kColormapNames, colormap); }

DisplayScale parseDisplayScale(const std::string& name) { return parseEnumName(kScaleNames, name, "display scale"); }
LimitsMode parseLimitsMode(const std::string& name) { return parseEnumName(kLimitsNames, name, "display limits"); }
Colormap parseColormap(const std::string& name) {
    if (name == "gray") return Colormap::Grey;
    return parseEnumName(kColormapNames, name, "colormap");
}

} // namespace glint
