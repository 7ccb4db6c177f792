// The pixel access and the aperture sums of the source measurements (SourceMeasure.cpp): which pixels count
// for a source, SExtractor's MASK_TYPE CORRECT for its neighbours and bad pixels, elliptical and circular
// apertures with a sub-sampled boundary, the Kron radius, the half-light radius and the windowed centroid.
#pragma once

#include "core/algo/sources/SourceCatalog.h"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

namespace glint::measure {

// What one pixel is to the source numbered n: its own or the sky's (free), another source's (a neighbour), bad
// (flagged, blank, a non-finite I or B, a non-finite or negative sigma) or outside the image.
enum class PixelState : std::uint8_t { Free, Neighbour, Bad, Outside };

// Reads a SourceField pixel by pixel (I - B, sigma^2, the label). Thread-safe (reads only).
class FieldAccess {
public:
    // Throws std::invalid_argument when the field's arrays do not match its size.
    explicit FieldAccess(const SourceField& field);
    int width() const { return width_; }
    int height() const { return height_; }
    bool inside(int x, int y) const { return x >= 0 && y >= 0 && x < width_ && y < height_; }
    std::size_t index(int x, int y) const { return static_cast<std::size_t>(y) * static_cast<std::size_t>(width_) + static_cast<std::size_t>(x); }
    bool usable(std::size_t i) const { return usable_[i] != 0; } // not bad (see PixelState)
    // I
    double raw(std::size_t i) const {
        switch (rawType_) {
        case RawType::Float: return static_cast<double>(static_cast<const float*>(raw_)[i]);
        case RawType::Int16: return static_cast<double>(static_cast<const std::int16_t*>(raw_)[i]);
        case RawType::UInt16: return static_cast<double>(static_cast<const std::uint16_t*>(raw_)[i]);
        case RawType::Int32: return static_cast<double>(static_cast<const std::int32_t*>(raw_)[i]);
        case RawType::Double: return static_cast<const double*>(raw_)[i];
        case RawType::Other: break;
        }
        return rawSlow(i);
    }
    double value(std::size_t i) const { return raw(i) - background(i); } // I - B
    // sigma^2 (NaN without an RMS map)
    double variance(std::size_t i) const {
        if (!rms_) return std::numeric_limits<double>::quiet_NaN();
        const double s = rms_[i];
        return s * s;
    }
    double background(std::size_t i) const { return background_ ? static_cast<double>(background_[i]) : 0.0; } // B
    std::int32_t label(std::size_t i) const { return (*field_.segmentation)[i]; }
    PixelState state(int x, int y, int number) const {
        if (!inside(x, y)) return PixelState::Outside;
        const std::size_t i = index(x, y);
        if (!usable(i)) return PixelState::Bad;
        const std::int32_t lab = label(i);
        return lab != 0 && lab != number ? PixelState::Neighbour : PixelState::Free;
    }
    const SourceField& field() const { return field_; }
    // For loops that read every pixel of a window (the windowed centroid): f(getI), getI(i) = I at index i, typed
    // for the common sample types (the same values as raw(i)); and the maps behind state() and background().
    template <class F>
    decltype(auto) withRaw(F&& f) const {
        switch (rawType_) {
        case RawType::Float: return f([p = static_cast<const float*>(raw_)](std::size_t i) { return static_cast<double>(p[i]); });
        case RawType::Int16: return f([p = static_cast<const std::int16_t*>(raw_)](std::size_t i) { return static_cast<double>(p[i]); });
        case RawType::UInt16: return f([p = static_cast<const std::uint16_t*>(raw_)](std::size_t i) { return static_cast<double>(p[i]); });
        case RawType::Int32: return f([p = static_cast<const std::int32_t*>(raw_)](std::size_t i) { return static_cast<double>(p[i]); });
        case RawType::Double: return f([p = static_cast<const double*>(raw_)](std::size_t i) { return p[i]; });
        case RawType::Other: break;
        }
        return f([this](std::size_t i) { return rawSlow(i); });
    }
    const std::uint8_t* usableMap() const { return usable_.data(); }
    const std::int32_t* labels() const { return field_.segmentation->data(); }
    const float* backgroundMap() const { return background_; } // null: B = 0

private:
    double rawSlow(std::size_t i) const; // I of any sample type

    SourceField field_; // a copy (pointers): the access may outlive the SourceField it was made from
    int width_ = 0, height_ = 0;
    std::vector<std::uint8_t> usable_; // 1 = usable, a byte a pixel, worked out by the constructor
    // I read directly for the common FITS sample types (BITPIX -32, 16, 32, -64); through the Image otherwise.
    enum class RawType : std::uint8_t { Float, Int16, UInt16, Int32, Double, Other };
    RawType rawType_ = RawType::Other;
    const void* raw_ = nullptr;
    const float* background_ = nullptr; // B, or null: 0
    const float* rms_ = nullptr;        // sigma, or null: no RMS map
};

// The value and variance that stand for pixel (x, y) in an aperture centred on (cx, cy), MASK_TYPE CORRECT: the
// pixel's own when free; when it is a neighbour's or bad, those of the pixel symmetric about the centre (nearest
// pixel to (2cx - x, 2cy - y)) when that one is free; none (dropped) otherwise and outside the image.
struct MaskedPixel {
    double value = 0.0, variance = 0.0;
    bool counted = false; // a value stands for the pixel
    PixelState state = PixelState::Free;
};
MaskedPixel maskedPixel(const FieldAccess& access, int number, int x, int y, double cx, double cy);

// The ellipse cxx dx^2 + cyy dy^2 + cxy dx dy <= r^2 about (cx, cy); a circle of radius r has cxx = cyy = 1, cxy = 0.
struct Ellipse {
    double cx = 0.0, cy = 0.0, cxx = 1.0, cyy = 1.0, cxy = 0.0, r = 0.0;
    bool valid() const; // finite, positive definite, r > 0
};

struct ApertureSum {
    double flux = 0.0;       // sum of v x (the pixel's area inside), masked pixels corrected
    double variance = 0.0;   // sum of sigma^2 x area (+ max(v, 0) x area / gain)
    double area = 0.0;       // the aperture's area inside the image (px^2)
    double maskedArea = 0.0; // the part of it on neighbours' or bad pixels (corrected or dropped)
    bool outside = false;    // the aperture reaches outside the image
    bool overBad = false;    // the aperture covers bad pixels
};

// The aperture's sums. Pixels whose centre lies farther than half a pixel diagonal (in the ellipse's metric)
// from the boundary count whole or not at all; the others are sampled on a 5 x 5 grid (SExtractor's
// APER_OVERSAMP), each sub-sample weighing 1/25. Throws nothing; an invalid ellipse gives NaN sums.
ApertureSum sumAperture(const FieldAccess& access, int number, const Ellipse& e, double gain);

// KRON_RADIUS: sum r v / sum v over the pixel centres inside the ellipse (r the ellipse's radius, in units of its
// axes), masked as above; NaN when sum v <= 0 or sum r v <= 0 or no pixel counts.
double kronRadius(const FieldAccess& access, int number, const Ellipse& e);

// The half-light radius as SExtractor's growth curve gives it (growth.c): the radius of the circle about (cx, cy)
// whose pixel centres (masked as above) hold halfFlux (half of FLUX_AUTO): the cumulative sum over the pixels
// within rmax sorted by radius, interpolated linearly from (0, 0); rmax when the sum stays below halfFlux there.
// NaN when halfFlux is not > 0.
double halfLightRadius(const FieldAccess& access, int number, double cx, double cy, double rmax, double halfFlux);

// The pixel centres inside ellipse e (within a width x height image) that the segmentation gives to source `number`
// (first) and to other sources (second); sky pixels count in neither.
std::pair<std::int64_t, std::int64_t> segmentShares(const Ellipse& e, const std::vector<std::int32_t>& segmentation, int width,
                                                    int height, int number);

// SExtractor's windowed centroid: from (x0, y0), x += 2 sum w v dx / sum w v with w = exp(-r^2 / (2 sigma^2)) over
// the pixel centres within 4 sigma (masked as above), until the step is below 2e-4 px or after 16 steps. None when
// sum w v <= 0 or the centre leaves the image or moves farther than 4 sigma from (x0, y0).
std::optional<std::pair<double, double>> windowedCentroid(const FieldAccess& access, int number, double x0,
                                                          double y0, double sigma);

} // namespace glint::measure
