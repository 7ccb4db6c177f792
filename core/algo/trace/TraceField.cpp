// The score fields of the three modes: Sobel gradient (magnitude), thresholded unit gradient (sine), and
// Steger's Hessian line measure with the line normal (ridge).
#include "core/algo/trace/LineTrace.h"

#include "core/io/ImageStats.h"
#include "core/util/EnumNames.h"
#include "core/util/Errors.h"

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <numbers>
#include <utility>

namespace glint {

namespace {

std::uint64_t nextFieldId() {
    static std::atomic<std::uint64_t> counter{1};
    return counter.fetch_add(1);
}

// The image as doubles, blanks (and NaN) replaced by the mean of the other pixels so that they make no
// edge of their own; `blank` is 255 where a pixel was blank.
cv::Mat imageForFiltering(const Image& image, cv::Mat& blank) {
    cv::Mat values(image.height(), image.width(), CV_64F);
    blank = cv::Mat::zeros(image.height(), image.width(), CV_8U);
    const std::vector<double> v = image.toDoubles();
    double sum = 0.0;
    std::size_t count = 0;
    for (std::size_t i = 0; i < v.size(); ++i)
        if (!image.isBlank(i) && std::isfinite(v[i])) {
            sum += v[i];
            ++count;
        }
    const double fill = count ? sum / count : 0.0;
    auto* out = values.ptr<double>();
    for (std::size_t i = 0; i < v.size(); ++i) {
        const bool isBlank = image.isBlank(i) || !std::isfinite(v[i]);
        out[i] = isBlank ? fill : v[i];
        if (isBlank) blank.data[i] = 255;
    }
    return values;
}

// Pixels whose filter support (radius r) reaches a blank get no score: their values are made up.
void clearNearBlanks(std::vector<float>& xy, const cv::Mat& blank, int radius) {
    if (cv::countNonZero(blank) == 0) return;
    cv::Mat near;
    cv::dilate(blank, near, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(2 * radius + 1, 2 * radius + 1)));
    for (std::size_t i = 0; i < near.total(); ++i)
        if (near.data[i]) xy[2 * i] = xy[2 * i + 1] = 0.0f;
}

void sobel(const cv::Mat& values, cv::Mat& gx, cv::Mat& gy) {
    // Scale 1/8 turns the Sobel kernel into a derivative: intensity per pixel.
    cv::Sobel(values, gx, CV_64F, 1, 0, 3, 1.0 / 8.0, 0.0, cv::BORDER_REPLICATE);
    cv::Sobel(values, gy, CV_64F, 0, 1, 3, 1.0 / 8.0, 0.0, cv::BORDER_REPLICATE);
}

// Sampled Gaussian and its first two derivatives as correlation kernels, corrected so that they give
// exactly 1, x and x^2/2 -> 1 on polynomials (sampling a narrow Gaussian is otherwise noticeably off).
void gaussianKernels(double sigma, int radius, cv::Mat& g0, cv::Mat& g1, cv::Mat& g2) {
    const int size = 2 * radius + 1;
    g0.create(size, 1, CV_64F);
    g1.create(size, 1, CV_64F);
    g2.create(size, 1, CV_64F);
    double sum0 = 0.0;
    for (int i = -radius; i <= radius; ++i) {
        const double g = std::exp(-0.5 * i * i / (sigma * sigma));
        g0.at<double>(i + radius) = g;
        sum0 += g;
    }
    g0 /= sum0;
    double m1 = 0.0, sum2 = 0.0;
    for (int i = -radius; i <= radius; ++i) {
        const double g = g0.at<double>(i + radius);
        g1.at<double>(i + radius) = i * g;                // correlation with f(x + i): odd, weights i
        g2.at<double>(i + radius) = (i * i - sigma * sigma) * g;
        m1 += i * i * g;
        sum2 += (i * i - sigma * sigma) * g;
    }
    g1 /= m1; // sum of i * g1 = 1: exact on f = x
    // Zero response to constants (remove the sum in proportion to g0, keeping the kernel even), then
    // normalise so that f = x^2 / 2 gives 1.
    double m2 = 0.0;
    for (int i = -radius; i <= radius; ++i) {
        g2.at<double>(i + radius) -= sum2 * g0.at<double>(i + radius);
        m2 += 0.5 * i * i * g2.at<double>(i + radius);
    }
    g2 /= m2;
}

// The Gaussian derivatives of an image at sigma (second: xx, yy, xy; first: x, y), reflected at the borders.
struct GaussianDerivatives {
    cv::Mat xx, yy, xy, x, y;
    GaussianDerivatives(const cv::Mat& image, double sigma, int radius) {
        cv::Mat g0, g1, g2;
        gaussianKernels(sigma, radius, g0, g1, g2);
        const auto filter = [&](cv::Mat& out, const cv::Mat& kx, const cv::Mat& ky) {
            cv::sepFilter2D(image, out, CV_64F, kx, ky, cv::Point(-1, -1), 0.0, cv::BORDER_REFLECT);
        };
        filter(xx, g2, g0);
        filter(yy, g0, g2);
        filter(xy, g1, g1);
        filter(x, g1, g0);
        filter(y, g0, g1);
    }
};

// k of the ridge mode's edge suppression (see TraceField::compute).
constexpr double kRidgeEdgeSuppression = 1.5;

// The slope across the line that the edge suppression charges pixel (x, y), whose unit line normal is
// (nx, ny), its signed slope along it `slope` (dI/dn) and its line eigenvalue `lambda`; gx, gy the first
// derivatives of the image (the neighbour's slope is read from them).
// A line's centre need not fall on a pixel: a thin line running between two pixel rows (width 2: sigma 0.58,
// both rows 0.5 px = 0.87 sigma off the centre) shows a slope of about |lambda| x 0.5 on both rows, and
// charging it suppressed both rows to zero, so the line vanished wherever it ran between rows. Near a
// centre the profile is I'(t) = slope + lambda t, so the centre lies at t* = -slope / lambda along n. When the
// centre lies between this pixel and its neighbour towards t*, nearer to this pixel (the slope changes sign
// from one to the other and is at least as steep there: the profile has its extremum between them, which an
// edge's monotone profile never has, and this is the pixel nearer to it), the part of the
// slope that the pixel's offset from a centre inside its own cell explains (|lambda| r, r = (|nx| + |ny|)
// / 2 the farthest point of the unit cell along n) is not charged. An edge's shoulder is charged in full.
double chargedSlope(const cv::Mat& gx, const cv::Mat& gy, int x, int y, double nx, double ny, double slope,
                    double lambda) {
    const double magnitude = std::fabs(slope);
    if (magnitude == 0.0 || lambda == 0.0) return magnitude;
    const double towards = -slope / lambda > 0.0 ? 1.0 : -1.0; // the side of t*
    const int qx = x + static_cast<int>(std::lround(towards * nx));
    const int qy = y + static_cast<int>(std::lround(towards * ny));
    if ((qx == x && qy == y) || qx < 0 || qy < 0 || qx >= gx.cols || qy >= gx.rows) return magnitude;
    const double neighbour = gx.at<double>(qy, qx) * nx + gy.at<double>(qy, qx) * ny;
    // The centre lies between the two and no farther from this pixel than from the neighbour (the slope
    // changes sign and is at least as steep there): else the pixel is charged in full.
    if ((neighbour > 0.0) == (slope > 0.0) || std::fabs(neighbour) < magnitude) return magnitude;
    return std::max(0.0, magnitude - std::fabs(lambda) * 0.5 * (std::fabs(nx) + std::fabs(ny)));
}

// The ridge mode's vectors of `values` (the image as doubles) into xy (2 floats a pixel, zeroed by the caller).
// Returns the filters' radius.
int ridgeVectors(const cv::Mat& values, const TraceFieldOptions& options, std::vector<float>& xy) {
    const int width = values.cols;
    const std::size_t pixels = values.total();
    // Steger: a line of width W is best seen at sigma = W / (2 sqrt 3); sigma^2 makes the measure
    // independent of the scale (intensity units).
    const double sigma = options.lineWidth / (2.0 * std::sqrt(3.0));
    const int radius = std::max(2, static_cast<int>(std::ceil(4.0 * sigma)));
    const GaussianDerivatives d(values, sigma, radius);
    const cv::Mat &rxx = d.xx, &ryy = d.yy, &rxy = d.xy, &rx = d.x, &ry = d.y;
    const auto* a = rxx.ptr<double>();
    const auto* c = ryy.ptr<double>();
    const auto* bxy = rxy.ptr<double>();
    const auto* gx = rx.ptr<double>();
    const auto* gy = ry.ptr<double>();
    const double norm = sigma * sigma;
    for (std::size_t i = 0; i < pixels; ++i) {
        const double mean = 0.5 * (a[i] + c[i]);
        const double r = std::hypot(0.5 * (a[i] - c[i]), bxy[i]);
        if (r <= 0.0) continue; // isotropic: no line direction
        const double lambdaMin = mean - r, lambdaMax = mean + r;
        double lambda = 0.0, strength = 0.0;
        switch (options.polarity) {
        case TracePolarity::Bright: lambda = lambdaMin; strength = std::max(0.0, -lambdaMin); break;
        case TracePolarity::Dark: lambda = lambdaMax; strength = std::max(0.0, lambdaMax); break;
        case TracePolarity::Both:
            lambda = std::fabs(lambdaMin) > std::fabs(lambdaMax) ? lambdaMin : lambdaMax;
            strength = std::fabs(lambda);
            break;
        }
        if (strength <= 0.0) continue;
        // Eigenvector of lambda (the line's normal), from whichever form is better conditioned.
        double nx = bxy[i], ny = lambda - a[i];
        const double mx = lambda - c[i], my = bxy[i];
        if (mx * mx + my * my > nx * nx + ny * ny) {
            nx = mx;
            ny = my;
        }
        const double len = std::hypot(nx, ny);
        if (len <= 0.0) continue;
        // Edge suppression: a line's centre has no slope across it, the shoulder of a step edge has.
        // sigma^2 |lambda| - k sigma |dI/dn| is zero or less on a step's shoulder for k >= 1 (at offset
        // u sigma from a step, sigma^2 |I''| / sigma |I'| = u), so a strong edge beside a faint line no
        // longer outscores it; a line's own centre keeps its full strength.
        const int px = static_cast<int>(i % static_cast<std::size_t>(width));
        const int py = static_cast<int>(i / static_cast<std::size_t>(width));
        const double slope =
            chargedSlope(rx, ry, px, py, nx / len, ny / len, (gx[i] * nx + gy[i] * ny) / len, lambda);
        const double suppressed = strength * norm - kRidgeEdgeSuppression * sigma * slope;
        if (suppressed <= 0.0) continue;
        const double s = suppressed / len;
        xy[2 * i] = static_cast<float>(nx * s);
        xy[2 * i + 1] = static_cast<float>(ny * s);
    }
    return radius;
}

} // namespace

constexpr EnumName<TraceScore> kScoreNames[] = {
    {TraceScore::Magnitude, "magnitude"}, {TraceScore::Sine, "sine"}, {TraceScore::Ridge, "ridge"}};
constexpr EnumName<TracePolarity> kPolarityNames[] = {
    {TracePolarity::Bright, "bright"}, {TracePolarity::Dark, "dark"}, {TracePolarity::Both, "both"}};

const char* traceScoreName(TraceScore score) { return enumName(kScoreNames, score); }
const char* tracePolarityName(TracePolarity polarity) { return enumName(kPolarityNames, polarity); }
TraceScore parseTraceScore(std::string_view name) { return parseEnumName(kScoreNames, name, "score"); }
TracePolarity parseTracePolarity(std::string_view name) { return parseEnumName(kPolarityNames, name, "polarity"); }

void validateTraceFieldOptions(const TraceFieldOptions& options) {
    if (!std::isfinite(options.lineWidth) || options.lineWidth <= 0.0 || options.lineWidth > 1000.0)
        throw UsageError("the line width must be more than 0 and at most 1000 pixels");
    if (!(options.sineThresholdFraction >= 0.0 && options.sineThresholdFraction <= 1.0))
        throw UsageError("the sine threshold fraction must be between 0 and 1");
    if (!std::isfinite(options.saturation) || options.saturation < 0.0)
        throw UsageError("the field's saturation must be 0 (none) or more");
}

TraceField::TraceField(int width, int height, std::vector<float> xy, const TraceFieldOptions& options)
    : width_(width), height_(height), xy_(std::move(xy)), options_(options), id_(nextFieldId()) {}

std::shared_ptr<const TraceField> TraceField::fromVectors(int width, int height, std::vector<float> xy,
                                                          const TraceFieldOptions& options) {
    checkImageDimensions(width, height, "trace field");
    if (xy.size() != 2 * static_cast<std::size_t>(width) * height)
        throw InputError("trace field: expected 2 values per pixel");
    for (float v : xy)
        if (!std::isfinite(v)) throw InputError("trace field: values must be finite");
    return std::shared_ptr<const TraceField>(new TraceField(width, height, std::move(xy), options));
}

std::shared_ptr<const TraceField> TraceField::compute(const Image& image, const TraceFieldOptions& options) {
    validateTraceFieldOptions(options);
    if (image.empty()) throw InputError("trace: the image is empty");
    cv::Mat blank;
    const cv::Mat values = imageForFiltering(image, blank);
    const std::size_t pixels = image.pixelCount();
    std::vector<float> xy(2 * pixels, 0.0f);
    double threshold = 0.0;

    if (options.score == TraceScore::Magnitude || options.score == TraceScore::Sine) {
        cv::Mat gx, gy;
        sobel(values, gx, gy);
        const auto* px = gx.ptr<double>();
        const auto* py = gy.ptr<double>();
        if (options.score == TraceScore::Magnitude) {
            for (std::size_t i = 0; i < pixels; ++i) {
                xy[2 * i] = static_cast<float>(px[i]);
                xy[2 * i + 1] = static_cast<float>(py[i]);
            }
        } else {
            std::vector<double> magnitude(pixels);
            for (std::size_t i = 0; i < pixels; ++i) magnitude[i] = std::hypot(px[i], py[i]);
            std::vector<double> sorted = magnitude;
            threshold = options.sineThresholdFraction * percentileOf(sorted, 99.0);
            for (std::size_t i = 0; i < pixels; ++i)
                if (magnitude[i] > threshold) {
                    xy[2 * i] = static_cast<float>(px[i] / magnitude[i]);
                    xy[2 * i + 1] = static_cast<float>(py[i] / magnitude[i]);
                }
        }
        clearNearBlanks(xy, blank, 1);
    } else {
        const int radius = ridgeVectors(values, options, xy);
        clearNearBlanks(xy, blank, radius);
        if (options.saturation > 0.0)
            for (std::size_t i = 0; i < pixels; ++i) {
                const double m = std::hypot(xy[2 * i], xy[2 * i + 1]);
                if (m > options.saturation) {
                    xy[2 * i] = static_cast<float>(xy[2 * i] * (options.saturation / m));
                    xy[2 * i + 1] = static_cast<float>(xy[2 * i + 1] * (options.saturation / m));
                }
            }
    }
    auto field = std::shared_ptr<TraceField>(new TraceField(image.width(), image.height(), std::move(xy), options));
    field->sineThreshold_ = threshold;
    return field;
}

namespace {

constexpr int kWidthSearch = 6; // pixels around each point where the width estimate looks for the line

// The width estimate's weighted-median width and the total of its votes' responses (0 when nothing scores).
std::pair<double, double> estimateWidthAndResponse(const Image& image, const std::vector<TracePoint>& clicks,
                                                   TracePolarity polarity, int search) {
    if (image.empty()) throw InputError("trace: the image is empty");
    if (clicks.empty()) throw UsageError("the line width is measured at one click or more");
    for (const TracePoint& p : clicks)
        if (!std::isfinite(p.x) || !std::isfinite(p.y) || p.x < -0.5 || p.y < -0.5 || p.x > image.width() - 0.5 ||
            p.y > image.height() - 0.5)
            throw UsageError("the line width is measured at a point inside the image");
    cv::Mat blank;
    const cv::Mat values = imageForFiltering(image, blank);
    std::vector<TracePoint> at;
    for (std::size_t i = 0; i < clicks.size(); ++i) {
        at.push_back(clicks[i]);
        if (i + 1 < clicks.size())
            for (int k = 1; k <= 3; ++k) {
                const double f = k / 4.0;
                at.push_back({clicks[i].x + f * (clicks[i + 1].x - clicks[i].x),
                              clicks[i].y + f * (clicks[i + 1].y - clicks[i].y)});
            }
    }
    std::vector<double> sigmas;
    for (double sigma = 0.8; sigma <= 20.0; sigma *= 1.25) sigmas.push_back(sigma);
    std::vector<std::pair<double, double>> votes; // (sigma, weight)
    for (const TracePoint& p : at) {
        const int cx = std::clamp(static_cast<int>(std::lround(p.x)), 0, image.width() - 1);
        const int cy = std::clamp(static_cast<int>(std::lround(p.y)), 0, image.height() - 1);
        double bestResponse = 0.0, bestSigma = 0.0;
        for (double sigma : sigmas) {
            const int radius = std::max(2, static_cast<int>(std::ceil(4.0 * sigma)));
            // The patch around the point that the filters need (reflected at the image's border as the field is).
            const int half = search + radius;
            const cv::Rect rect(std::max(0, cx - half), std::max(0, cy - half), 0, 0);
            const cv::Rect clipped(rect.x, rect.y, std::min(image.width(), cx + half + 1) - rect.x,
                                   std::min(image.height(), cy + half + 1) - rect.y);
            const cv::Mat patch = values(clipped);
            const GaussianDerivatives d(patch, sigma, radius);
            const cv::Mat &rxx = d.xx, &ryy = d.yy, &rxy = d.xy, &rx = d.x, &ry = d.y;
            double response = 0.0;
            for (int y = std::max(0, cy - search - clipped.y); y <= std::min(clipped.height - 1, cy + search - clipped.y); ++y)
                for (int x = std::max(0, cx - search - clipped.x); x <= std::min(clipped.width - 1, cx + search - clipped.x);
                     ++x) {
                    if (std::hypot(clipped.x + x - p.x, clipped.y + y - p.y) > search) continue;
                    const double a = rxx.at<double>(y, x), c = ryy.at<double>(y, x), b = rxy.at<double>(y, x);
                    const double mean = 0.5 * (a + c), r = std::hypot(0.5 * (a - c), b);
                    const double lambdaMin = mean - r, lambdaMax = mean + r;
                    double lambda = 0.0;
                    switch (polarity) {
                    case TracePolarity::Bright: lambda = lambdaMin < 0.0 ? lambdaMin : 0.0; break;
                    case TracePolarity::Dark: lambda = lambdaMax > 0.0 ? lambdaMax : 0.0; break;
                    case TracePolarity::Both: lambda = std::fabs(lambdaMin) > std::fabs(lambdaMax) ? lambdaMin : lambdaMax; break;
                    }
                    if (lambda == 0.0) continue;
                    // The normal (eigenvector of lambda) for the edge-suppression term.
                    double nx = b, ny = lambda - a;
                    const double mx = lambda - c, my = b;
                    if (mx * mx + my * my > nx * nx + ny * ny) {
                        nx = mx;
                        ny = my;
                    }
                    const double len = std::hypot(nx, ny);
                    const double slope =
                        len > 0.0 ? chargedSlope(rx, ry, x, y, nx / len, ny / len,
                                                 (rx.at<double>(y, x) * nx + ry.at<double>(y, x) * ny) / len, lambda)
                                  : 0.0;
                    response = std::max(response, sigma * sigma * std::fabs(lambda) - kRidgeEdgeSuppression * sigma * slope);
                }
            if (response > bestResponse) {
                bestResponse = response;
                bestSigma = sigma;
            }
        }
        if (bestResponse > 0.0) votes.push_back({bestSigma, bestResponse});
    }
    if (votes.empty()) return {TraceFieldOptions{}.lineWidth, 0.0}; // nothing line-like anywhere: the default
    std::sort(votes.begin(), votes.end());
    double total = 0.0;
    for (const auto& v : votes) total += v.second;
    double running = 0.0;
    for (const auto& v : votes) {
        running += v.second;
        if (running >= 0.5 * total) return {2.0 * v.first, total};
    }
    return {2.0 * votes.back().first, total};
}

} // namespace

double estimateTraceLineWidth(const Image& image, const std::vector<TracePoint>& clicks, TracePolarity polarity) {
    return estimateWidthAndResponse(image, clicks, polarity, kWidthSearch).first;
}

double measureTraceLineStrength(const Image& image, TracePoint point, const TraceFieldOptions& options, double radius) {
    if (image.empty()) throw InputError("trace: the image is empty");
    validateTraceFieldOptions(options);
    if (!std::isfinite(point.x) || !std::isfinite(point.y) || point.x < -0.5 || point.y < -0.5 ||
        point.x > image.width() - 0.5 || point.y > image.height() - 0.5)
        throw UsageError("the line strength is measured at a point inside the image");
    if (!(radius >= 0.0 && radius <= 100.0)) throw UsageError("the line strength is measured within 0 to 100 pixels");
    TraceFieldOptions ridge = options;
    ridge.score = TraceScore::Ridge;
    ridge.saturation = 0.0;
    const double sigma = ridge.lineWidth / (2.0 * std::sqrt(3.0));
    const int filterRadius = std::max(2, static_cast<int>(std::ceil(4.0 * sigma)));
    const int cx = std::clamp(static_cast<int>(std::lround(point.x)), 0, image.width() - 1);
    const int cy = std::clamp(static_cast<int>(std::lround(point.y)), 0, image.height() - 1);
    // The patch the filters need around the disc (reflected at the image's border as the field is; one pixel
    // more for the edge suppression's neighbour).
    const int half = static_cast<int>(std::ceil(radius)) + filterRadius + 1;
    cv::Mat blank;
    const cv::Mat values = imageForFiltering(image, blank);
    const int x0 = std::max(0, cx - half), y0 = std::max(0, cy - half);
    const cv::Rect rect(x0, y0, std::min(image.width(), cx + half + 1) - x0, std::min(image.height(), cy + half + 1) - y0);
    const cv::Mat patch = values(rect).clone();
    std::vector<float> xy(2 * patch.total(), 0.0f);
    ridgeVectors(patch, ridge, xy);
    double best = 0.0;
    for (int y = 0; y < rect.height; ++y)
        for (int x = 0; x < rect.width; ++x) {
            if (std::hypot(rect.x + x - point.x, rect.y + y - point.y) > radius) continue;
            const std::size_t i = static_cast<std::size_t>(y) * rect.width + x;
            best = std::max(best, std::hypot(static_cast<double>(xy[2 * i]), static_cast<double>(xy[2 * i + 1])));
        }
    return best;
}

TracePolarity estimateTraceLinePolarity(const Image& image, const std::vector<TracePoint>& clicks) {
    const double bright = estimateWidthAndResponse(image, clicks, TracePolarity::Bright, kTracePolaritySearch).second;
    const double dark = estimateWidthAndResponse(image, clicks, TracePolarity::Dark, kTracePolaritySearch).second;
    return dark > bright ? TracePolarity::Dark : TracePolarity::Bright;
}

} // namespace glint
