#include "core/algo/commoncomponent/CommonRegistration.h"

#include "core/util/Parallel.h"

#include <opencv2/core.hpp>

#include <algorithm>
#include <cmath>
#include <mutex>

namespace glint::common_component {

namespace {

// Samples minus their mean (blanks and non-finite samples at the mean, so 0), times a Hann window over
// the image's own extent, in the top-left corner of a zero plane of the transform size.
cv::Mat windowedPlane(const Image& image, int sizeX, int sizeY) {
    const std::vector<double> v = image.toDoubles();
    double sum = 0.0;
    std::size_t n = 0;
    for (std::size_t i = 0; i < v.size(); ++i)
        if (!image.isBlank(i) && std::isfinite(v[i])) sum += v[i], ++n;
    const double mean = n ? sum / static_cast<double>(n) : 0.0;
    auto hann = [](int i, int count) {
        return count < 2 ? 1.0 : 0.5 - 0.5 * std::cos(2.0 * 3.14159265358979323846 * i / (count - 1));
    };
    std::vector<double> wx(static_cast<std::size_t>(image.width())), wy(static_cast<std::size_t>(image.height()));
    for (int x = 0; x < image.width(); ++x) wx[x] = hann(x, image.width());
    for (int y = 0; y < image.height(); ++y) wy[y] = hann(y, image.height());
    cv::Mat plane = cv::Mat::zeros(sizeY, sizeX, CV_32F);
    for (int y = 0; y < image.height(); ++y) {
        float* row = plane.ptr<float>(y);
        for (int x = 0; x < image.width(); ++x) {
            const std::size_t i = static_cast<std::size_t>(y) * image.width() + x;
            if (image.isBlank(i) || !std::isfinite(v[i])) continue;
            row[x] = static_cast<float>((v[i] - mean) * wx[x] * wy[y]);
        }
    }
    return plane;
}

} // namespace

Registration registerByPhaseCorrelation(const Image& a, const Image& b, const OffsetRange& range, JobControl& job,
                                        int peaks) {
    if (a.empty() || b.empty() || range.count() == 0) return {};
    const int sizeX = cv::getOptimalDFTSize(std::max(a.width(), b.width()));
    const int sizeY = cv::getOptimalDFTSize(std::max(a.height(), b.height()));
    cv::Mat fa, fb;
    cv::dft(windowedPlane(a, sizeX, sizeY), fa, cv::DFT_COMPLEX_OUTPUT, sizeX > 1 ? a.height() : 0);
    job.throwIfCancelled();
    cv::dft(windowedPlane(b, sizeX, sizeY), fb, cv::DFT_COMPLEX_OUTPUT, sizeX > 1 ? b.height() : 0);
    job.throwIfCancelled();
    // c(d) = sum_x a(x) b(x + d): its transform is conj(FA) FB; phase correlation keeps the phase only.
    cv::Mat cross(sizeY, sizeX, CV_32FC2);
    for (int y = 0; y < sizeY; ++y) {
        const cv::Vec2f* pa = fa.ptr<cv::Vec2f>(y);
        const cv::Vec2f* pb = fb.ptr<cv::Vec2f>(y);
        cv::Vec2f* pc = cross.ptr<cv::Vec2f>(y);
        for (int x = 0; x < sizeX; ++x) {
            const double re = static_cast<double>(pa[x][0]) * pb[x][0] + static_cast<double>(pa[x][1]) * pb[x][1];
            const double im = static_cast<double>(pa[x][0]) * pb[x][1] - static_cast<double>(pa[x][1]) * pb[x][0];
            const double mag = std::hypot(re, im);
            pc[x] = mag > 1e-30 ? cv::Vec2f(static_cast<float>(re / mag), static_cast<float>(im / mag)) : cv::Vec2f(0, 0);
        }
    }
    cv::Mat surface;
    cv::idft(cross, surface, cv::DFT_REAL_OUTPUT | cv::DFT_SCALE);
    job.throwIfCancelled();

    return registrationFromPeaks(surfacePeaks(surface.ptr<float>(0), sizeX, sizeY), sizeX, sizeY,
                                 range, peaks);
}

int registrationSize(int n) { return cv::getOptimalDFTSize(n); }

double candidateScore(const PairSums& s, double smallerImagePixels) {
    if (s.n < 2) return 0.0;
    const double sxy = s.ab - s.a * s.b / s.n, sxx = s.aa - s.a * s.a / s.n, syy = s.bb - s.b * s.b / s.n;
    // Rounding leaves a constant side a tiny variance of either sign: no correlation then.
    if (!(sxx > 1e-12 * s.aa) || !(syy > 1e-12 * s.bb)) return 0.0;
    const double share = smallerImagePixels > 0 ? s.n / smallerImagePixels : 0.0;
    return sxy / std::sqrt(sxx * syy) * std::min(1.0, share / kCommonReliableCoverage);
}

std::vector<SurfacePeak> surfacePeaks(const float* surface, int sizeX, int sizeY) {
    std::vector<SurfacePeak> found;
    for (int y = 0; y < sizeY; ++y) {
        const float* row = surface + static_cast<std::size_t>(y) * sizeX;
        for (int x = 0; x < sizeX; ++x) {
            const float v = row[x];
            if (!(v > 0.0f)) continue;
            bool isMax = true;
            for (int ny = -1; ny <= 1 && isMax; ++ny)
                for (int nx = -1; nx <= 1 && isMax; ++nx) {
                    if (!nx && !ny) continue;
                    const int qx = (x + nx + sizeX) % sizeX, qy = (y + ny + sizeY) % sizeY;
                    const float w = surface[static_cast<std::size_t>(qy) * sizeX + qx];
                    // Ties: the first in scan order is the maximum.
                    isMax = w < v || (w == v && (qy > y || (qy == y && qx > x)));
                }
            if (isMax) found.push_back({v, x, y});
        }
    }
    return found;
}

Registration registrationFromPeaks(std::vector<SurfacePeak> found, int sizeX, int sizeY, const OffsetRange& range,
                                   int peaks) {
    Registration out;
    const std::size_t keep = std::min<std::size_t>(found.size(), static_cast<std::size_t>(std::max(peaks, 0)));
    std::partial_sort(found.begin(), found.begin() + static_cast<std::ptrdiff_t>(keep), found.end(),
                      [](const SurfacePeak& p, const SurfacePeak& q) {
                          if (p.value != q.value) return p.value > q.value;
                          return p.y != q.y ? p.y < q.y : p.x < q.x;
                      });
    if (!found.empty()) out.peak = std::clamp(static_cast<double>(found.front().value), 0.0, 1.0);
    for (std::size_t i = 0; i < keep; ++i) {
        const SurfacePeak& p = found[i];
        // The surface is cyclic: d = p or p - size on each axis (no other alias has any overlap).
        for (int ay = 0; ay < 2; ++ay)
            for (int ax = 0; ax < 2; ++ax) {
                const CommonOffset o{p.x - ax * sizeX, p.y - ay * sizeY};
                if (!range.contains(o.dx, o.dy)) continue;
                if (std::find(out.candidates.begin(), out.candidates.end(), o) != out.candidates.end()) continue;
                out.candidates.push_back(o);
            }
    }
    return out;
}

int fftBoundBins(std::uint64_t best, const CommonCoding& c) {
    const double largest = static_cast<double>(std::min(c.widthA, c.widthB)) * std::min(c.heightA, c.heightB);
    if (best == 0 || largest <= 0) return 0;
    const double share = static_cast<double>(best) / largest;
    const double bins = std::ceil(4.0 / share);
    if (bins > 64) return 0; // a bound that prunes at this share would cost more than it saves
    return static_cast<int>(std::clamp(bins, 4.0, 32.0));
}

std::optional<FftBoundBins> equalPopulationBins(const CommonCoding& c, int bins) {
    std::vector<std::uint64_t> countB(c.codeCount, 0);
    std::uint64_t totalB = 0;
    for (std::uint32_t code : c.codeB)
        if (code < c.codeCount) ++countB[code], ++totalB;
    if (totalB == 0) return std::nullopt;
    FftBoundBins out;
    out.k = static_cast<int>(std::min<std::uint64_t>(static_cast<std::uint64_t>(bins), c.codeCount));
    out.binOf.resize(c.codeCount);
    std::uint64_t before = 0;
    for (std::uint64_t code = 0; code < c.codeCount; ++code) {
        out.binOf[code] = static_cast<std::uint8_t>(std::min<std::uint64_t>(before * out.k / totalB, out.k - 1));
        before += countB[code];
    }
    for (std::uint32_t lo : c.loA) out.validA += lo != kBlankLo;
    out.validB = totalB;
    return out;
}

std::optional<MatchCountBound> MatchCountBound::build(const CommonCoding& c, JobControl& job, int bins) {
    if (c.codeCount == 0 || bins < 1) return std::nullopt;
    const int sizeX = cv::getOptimalDFTSize(std::max(c.widthA, c.widthB));
    const int sizeY = cv::getOptimalDFTSize(std::max(c.heightA, c.heightB));
    if (static_cast<std::uint64_t>(sizeX) * static_cast<std::uint64_t>(sizeY) > (std::uint64_t{1} << 22))
        return std::nullopt; // the transforms would take more memory and time than the bound saves

    const std::optional<FftBoundBins> cut = equalPopulationBins(c, bins);
    if (!cut) return std::nullopt;
    const int k = cut->k;
    const std::vector<std::uint8_t>& binOf = cut->binOf;
    const std::uint64_t validA = cut->validA, totalB = cut->validB;
    std::mutex merge;
    cv::Mat total;
    parallelFor(0, static_cast<std::size_t>(k), 1, [&](std::size_t first, std::size_t last) {
        cv::Mat planeA(sizeY, sizeX, CV_64F), planeB(sizeY, sizeX, CV_64F), fa, fb, product, acc;
        for (std::size_t bin = first; bin < last; ++bin) {
            job.throwIfCancelled();
            planeA.setTo(0.0);
            planeB.setTo(0.0);
            for (int y = 0; y < c.heightA; ++y) {
                double* row = planeA.ptr<double>(y);
                for (int x = 0; x < c.widthA; ++x) {
                    const std::size_t i = static_cast<std::size_t>(y) * c.widthA + x;
                    const std::uint32_t lo = c.loA[i];
                    if (lo == kBlankLo) continue;
                    const std::uint64_t hi = std::min<std::uint64_t>(std::uint64_t{lo} + c.span(i), c.codeCount - 1);
                    row[x] = binOf[lo] <= bin && bin <= binOf[hi] ? 1.0 : 0.0;
                }
            }
            for (int y = 0; y < c.heightB; ++y) {
                double* row = planeB.ptr<double>(y);
                for (int x = 0; x < c.widthB; ++x) {
                    const std::uint32_t code = c.codeB[static_cast<std::size_t>(y) * c.widthB + x];
                    row[x] = code < c.codeCount && binOf[code] == bin ? 1.0 : 0.0;
                }
            }
            cv::dft(planeA, fa, 0, sizeX > 1 ? c.heightA : 0); // OpenCV refuses row hints on one column
            cv::dft(planeB, fb, 0, sizeX > 1 ? c.heightB : 0);
            cv::mulSpectrums(fb, fa, product, 0, true); // conj(FA) FB: sum_x a(x) b(x + d)
            if (acc.empty()) acc = product.clone();
            else acc += product;
        }
        if (acc.empty()) return;
        std::lock_guard lock(merge);
        if (total.empty()) total = acc;
        else total += acc;
    });
    job.throwIfCancelled();
    cv::Mat counts;
    cv::idft(total, counts, cv::DFT_REAL_OUTPUT | cv::DFT_SCALE);

    MatchCountBound out;
    out.sizeX_ = sizeX;
    out.sizeY_ = sizeY;
    out.bins_ = k;
    out.bound_.resize(static_cast<std::size_t>(sizeX) * sizeY);
    // The rounding error of a double-precision FFT correlation is about eps * log2(n) * ||a|| ||b||, here
    // below 1e-8 * sqrt(|A| |B|); the margin is 100 times that, plus one count.
    const double margin = 1.0 + 1e-6 * std::sqrt(static_cast<double>(validA) * static_cast<double>(totalB));
    for (int y = 0; y < sizeY; ++y) {
        const double* row = counts.ptr<double>(y);
        for (int x = 0; x < sizeX; ++x)
            out.bound_[static_cast<std::size_t>(y) * sizeX + x] =
                static_cast<std::uint32_t>(std::floor(std::max(0.0, row[x]) + margin));
    }
    return out;
}

} // namespace glint::common_component
