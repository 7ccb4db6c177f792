#include "scenes/CommonComponentCases.h"

#include "core/io/Codecs.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace glint::common_component {

namespace {

// A reproducible hash of a lattice point (no dependence on the standard library's distributions).
double latticeValue(std::uint32_t seed, int octave, int gx, int gy) {
    std::uint64_t h = seed * 0x9E3779B97F4A7C15ull ^ (static_cast<std::uint64_t>(octave) << 40) ^
                      (static_cast<std::uint64_t>(static_cast<std::uint32_t>(gx)) << 20) ^ static_cast<std::uint32_t>(gy);
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDull;
    h ^= h >> 33;
    h *= 0xC4CEB9FE1A85EC53ull;
    h ^= h >> 33;
    return static_cast<double>(h >> 11) / static_cast<double>(1ull << 53) - 0.5;
}

} // namespace

Image fractalNoiseImage(int width, int height, std::uint32_t seed) {
    std::vector<double> acc(static_cast<std::size_t>(width) * height, 0.0);
    double amplitude = 1.0;
    int octave = 0;
    for (int period = 256; period >= 1; period /= 2, amplitude *= 0.6, ++octave) {
        for (int y = 0; y < height; ++y) {
            const double fy = static_cast<double>(y) / period;
            const int gy = static_cast<int>(std::floor(fy));
            double ty = fy - gy;
            ty = ty * ty * (3 - 2 * ty);
            for (int x = 0; x < width; ++x) {
                const double fx = static_cast<double>(x) / period;
                const int gx = static_cast<int>(std::floor(fx));
                double tx = fx - gx;
                tx = tx * tx * (3 - 2 * tx);
                const double v00 = latticeValue(seed, octave, gx, gy), v10 = latticeValue(seed, octave, gx + 1, gy);
                const double v01 = latticeValue(seed, octave, gx, gy + 1), v11 = latticeValue(seed, octave, gx + 1, gy + 1);
                const double top = v00 + (v10 - v00) * tx, bottom = v01 + (v11 - v01) * tx;
                acc[static_cast<std::size_t>(y) * width + x] += amplitude * (top + (bottom - top) * ty);
            }
        }
    }
    // Stretch the central 99% to 0..255, as a camera's auto exposure would.
    std::vector<double> sorted = acc;
    std::sort(sorted.begin(), sorted.end());
    const double lo = sorted[sorted.size() / 200], hi = sorted[sorted.size() - 1 - sorted.size() / 200];
    std::vector<std::uint8_t> pixels(acc.size());
    for (std::size_t i = 0; i < acc.size(); ++i)
        pixels[i] = static_cast<std::uint8_t>(std::clamp(std::lround((acc[i] - lo) / (hi - lo) * 255.0), 0L, 255L));
    return Image::fromSamples<std::uint8_t>(width, height, std::move(pixels));
}

std::pair<Image, Image> overlappingCrops(int side, std::uint32_t seed) {
    const int half = side / 2;
    const Image source = fractalNoiseImage(side + half, side + half, seed);
    auto crop = [&](int x0, int y0) {
        std::vector<std::uint8_t> v(static_cast<std::size_t>(side) * side);
        const std::uint8_t* s = source.samples<std::uint8_t>();
        for (int y = 0; y < side; ++y)
            std::copy_n(s + static_cast<std::size_t>(y0 + y) * source.width() + x0, side, v.begin() + static_cast<std::size_t>(y) * side);
        return Image::fromSamples<std::uint8_t>(side, side, std::move(v));
    };
    return {crop(0, 0), crop(half, half)};
}

std::pair<Image, Image> randomValuePair(int side, int values, std::uint32_t seed) {
    std::mt19937 rng(seed);
    auto make = [&] {
        std::vector<std::uint8_t> v(static_cast<std::size_t>(side) * side);
        for (auto& p : v) p = static_cast<std::uint8_t>(rng() % static_cast<unsigned>(values));
        return Image::fromSamples<std::uint8_t>(side, side, std::move(v));
    };
    Image a = make();
    Image b = make();
    return {std::move(a), std::move(b)};
}

namespace {

cv::Mat bytesOf(const Image& image) {
    cv::Mat m(image.height(), image.width(), CV_8U);
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x)
            m.at<std::uint8_t>(y, x) = static_cast<std::uint8_t>(std::clamp(std::lround(image.value(x, y)), 0L, 255L));
    return m;
}

Image imageOf(const cv::Mat& m) {
    std::vector<std::uint8_t> v(static_cast<std::size_t>(m.rows) * m.cols);
    for (int y = 0; y < m.rows; ++y) std::copy_n(m.ptr<std::uint8_t>(y), m.cols, v.begin() + static_cast<std::size_t>(y) * m.cols);
    return Image::fromSamples<std::uint8_t>(m.cols, m.rows, std::move(v));
}

} // namespace

Image cropImage(const Image& source, int x0, int y0, int width, int height) {
    return imageOf(bytesOf(source)(cv::Rect(x0, y0, width, height)).clone());
}

bool changeImage(Image& image, double gain, double bias, double gamma, int noise, int jpegQuality, std::uint32_t seed) {
    cv::Mat m = bytesOf(image);
    std::mt19937 rng(seed);
    for (int y = 0; y < m.rows; ++y)
        for (int x = 0; x < m.cols; ++x) {
            const double v = m.at<std::uint8_t>(y, x) / 255.0;
            const int n = noise > 0 ? static_cast<int>(rng() % static_cast<unsigned>(2 * noise + 1)) - noise : 0;
            const double out = gain * 255.0 * std::pow(v, gamma) + bias + n;
            m.at<std::uint8_t>(y, x) = static_cast<std::uint8_t>(std::clamp(std::lround(out), 0L, 255L));
        }
    bool ok = true;
    if (jpegQuality > 0) {
        if (const Codecs* codecs = glint::codecs()) m = codecs->decodeGrey(codecs->encodeJpeg(m, jpegQuality));
        else ok = false;
    }
    image = imageOf(m);
    return ok;
}

Image upscaledImage(const Image& source, int factor) {
    cv::Mat big;
    cv::resize(bytesOf(source), big, cv::Size(), factor, factor, cv::INTER_CUBIC);
    return imageOf(big);
}

} // namespace glint::common_component
