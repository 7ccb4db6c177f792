#include "core/algo/sources/SourceMeasure.h"

#include "core/algo/sources/SourceApertures.h"
#include "core/io/Wcs.h"
#include "core/util/Parallel.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <optional>

namespace glint {

namespace {

using measure::Ellipse;
using measure::FieldAccess;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kKronScale = 6.0;      // the Kron radius's ellipse, in units of A and B
constexpr double kCrowdedFraction = 0.1; // FLAGS 1: masked pixels over this fraction of the AUTO aperture
constexpr double kMinWindowSigma = 0.5; // px
const double kFwhmPerSigma = 2.0 * std::sqrt(2.0 * std::numbers::ln2);

struct SegmentPixel {
    int x, y;
    double v;
};

// The isophotal pass: the segment's pixels and what is read from them alone.
struct Isophotal {
    std::vector<SegmentPixel> pixels; // the usable ones
    std::int64_t area = 0;
    int xmin = 0, ymin = 0, xmax = 0, ymax = 0;
    double flux = 0.0, variance = 0.0, poisson = 0.0, peak = kNaN;
    bool saturated = false, border = false, badNear = false;
};

Isophotal isophotal(const FieldAccess& a, const SourceSegment& seg, const std::optional<double>& saturation) {
    Isophotal iso;
    const int W = a.width(), H = a.height();
    const int x0 = std::max(seg.xmin, 0), x1 = std::min(seg.xmax, W - 1);
    const int y0 = std::max(seg.ymin, 0), y1 = std::min(seg.ymax, H - 1);
    iso.xmin = W;
    iso.ymin = H;
    iso.xmax = iso.ymax = -1;
    for (int y = y0; y <= y1; ++y) {
        for (int x = x0; x <= x1; ++x) {
            const std::size_t i = a.index(x, y);
            if (a.label(i) != seg.number) continue;
            ++iso.area;
            iso.xmin = std::min(iso.xmin, x);
            iso.xmax = std::max(iso.xmax, x);
            iso.ymin = std::min(iso.ymin, y);
            iso.ymax = std::max(iso.ymax, y);
            const double raw = a.raw(i);
            if (saturation && raw >= *saturation) iso.saturated = true;
            for (int dy = -1; dy <= 1 && !iso.badNear; ++dy)
                for (int dx = -1; dx <= 1; ++dx)
                    if (a.inside(x + dx, y + dy) && !a.usable(a.index(x + dx, y + dy))) {
                        iso.badNear = true;
                        break;
                    }
            if (!a.usable(i)) continue;
            const double v = a.value(i);
            iso.pixels.push_back({x, y, v});
            iso.flux += v;
            iso.variance += a.variance(i);
            iso.poisson += std::max(v, 0.0);
            if (!(iso.peak >= v)) iso.peak = v;
        }
    }
    iso.border = iso.area > 0 && (iso.xmin == 0 || iso.ymin == 0 || iso.xmax == W - 1 || iso.ymax == H - 1);
    return iso;
}

// Barycentre and shape from the isophotal pixels (weights max(v, 0), or 1 when none is positive).
void shape(const Isophotal& iso, SourceRecord& r) {
    double sw = 0.0;
    for (const SegmentPixel& p : iso.pixels) sw += std::max(p.v, 0.0);
    const bool geometric = !(sw > 0.0);
    auto weight = [geometric](const SegmentPixel& p) { return geometric ? 1.0 : std::max(p.v, 0.0); };
    if (geometric) sw = static_cast<double>(iso.pixels.size());
    // Two passes about the bounding box's corner, then the barycentre: no cancellation far from the origin.
    double sx = 0.0, sy = 0.0;
    for (const SegmentPixel& p : iso.pixels) {
        sx += weight(p) * (p.x - iso.xmin);
        sy += weight(p) * (p.y - iso.ymin);
    }
    const double mx = sx / sw, my = sy / sw;
    double x2 = 0.0, y2 = 0.0, xy = 0.0;
    for (const SegmentPixel& p : iso.pixels) {
        const double dx = p.x - iso.xmin - mx, dy = p.y - iso.ymin - my, w = weight(p);
        x2 += w * dx * dx;
        y2 += w * dy * dy;
        xy += w * dx * dy;
    }
    x2 /= sw;
    y2 /= sw;
    xy /= sw;
    r.x = iso.xmin + mx;
    r.y = iso.ymin + my;
    if (x2 * y2 - xy * xy < 1.0 / 144.0) { // analyse.c: a line or a single pixel
        x2 += 1.0 / 12.0;
        y2 += 1.0 / 12.0;
    }
    const double det = x2 * y2 - xy * xy;
    const double half = 0.5 * (x2 + y2), root = std::sqrt(0.25 * (x2 - y2) * (x2 - y2) + xy * xy);
    r.a = std::sqrt(half + root);
    r.b = std::sqrt(std::max(half - root, 0.0));
    double theta = std::atan2(2.0 * xy, x2 - y2) / 2.0 * 180.0 / std::numbers::pi;
    if (theta <= -90.0) theta += 180.0;
    r.theta = theta;
    r.cxx = y2 / det;
    r.cyy = x2 / det;
    r.cxy = -2.0 * xy / det;
    r.ellipticity = 1.0 - r.b / r.a;
}

// FWHM_IMAGE (the rule in SourceMeasure.h).
double fwhmOf(const Isophotal& iso, const SourceRecord& r, double cx, double cy) {
    if (!(iso.peak > 0.0)) return kNaN;
    const double half = 0.5 * iso.peak;
    double n = 0.0, su = 0.0, sl = 0.0, suu = 0.0, sul = 0.0;
    for (const SegmentPixel& p : iso.pixels) {
        if (!(p.v >= half)) continue;
        const double dx = p.x - cx, dy = p.y - cy;
        const double u = r.cxx * dx * dx + r.cyy * dy * dy + r.cxy * dx * dy, l = std::log(p.v);
        n += 1.0;
        su += u;
        sl += l;
        suu += u * u;
        sul += u * l;
    }
    const double varU = n >= 3.0 ? suu - su * su / n : 0.0, cov = n >= 3.0 ? sul - su * sl / n : 0.0;
    if (varU > 1e-12 * suu) {
        const double slope = cov / varU;
        // The Gaussian's variance along the geometric mean axis, less the pixel's 1/12 px^2 (the pixel integration
        // widens a profile by that much): the FWHM of the profile the pixels sample.
        const double variance = -0.5 / slope * r.a * r.b - 1.0 / 12.0;
        if (slope < 0.0 && variance > 0.0 && std::isfinite(variance)) return kFwhmPerSigma * std::sqrt(variance);
    }
    return 2.0 * std::sqrt(n / std::numbers::pi);
}

void setMagnitude(double flux, double err, double zp, double& mag, double& magErr) {
    mag = flux > 0.0 ? zp - 2.5 * std::log10(flux) : kNaN;
    magErr = flux > 0.0 ? 1.0857 * err / flux : kNaN;
}

double errorOf(double variance) { return variance >= 0.0 ? std::sqrt(variance) : kNaN; }

SourceRecord measureOne(const FieldAccess& a, const SourceSegment& seg, const MeasureParams& p) {
    SourceRecord r;
    r.number = seg.number;
    r.xmin = seg.xmin;
    r.ymin = seg.ymin;
    r.xmax = seg.xmax;
    r.ymax = seg.ymax;
    r.threshold = seg.threshold;
    r.flags = seg.flags;
    const std::size_t nAper = p.apertures.size();
    r.fluxAper.assign(nAper, kNaN);
    r.fluxErrAper.assign(nAper, kNaN);
    r.magAper.assign(nAper, kNaN);
    r.magErrAper.assign(nAper, kNaN);

    const SourceField& field = a.field();
    const Isophotal iso = isophotal(a, seg, field.saturation);
    if (iso.area == 0) return r;
    r.isoArea = iso.area;
    r.xmin = iso.xmin;
    r.ymin = iso.ymin;
    r.xmax = iso.xmax;
    r.ymax = iso.ymax;
    if (iso.saturated) r.flags |= kSourceSaturated;
    if (iso.border) r.flags |= kSourceTruncated;
    if (iso.badNear) r.flags |= kSourceIsoIncomplete;
    if (iso.pixels.empty()) return r;

    r.fluxIso = iso.flux;
    r.fluxErrIso = errorOf(iso.variance + (p.gain > 0.0 ? iso.poisson / p.gain : 0.0));
    r.peak = iso.peak;
    shape(iso, r);
    const int bx = std::clamp(static_cast<int>(std::lround(r.x)), 0, a.width() - 1);
    const int by = std::clamp(static_cast<int>(std::lround(r.y)), 0, a.height() - 1);
    r.background = a.background(a.index(bx, by));
    if (field.wcs) {
        if (const auto sky = field.wcs->pixelToSky(r.x, r.y)) {
            r.ra = sky->ra;
            r.dec = sky->dec;
        }
    }

    // Kron radius and the AUTO aperture.
    Ellipse e{r.x, r.y, r.cxx, r.cyy, r.cxy, kKronScale};
    // KRON_RADIUS as SExtractor writes it: the AUTO ellipse's scale, kronFactor x the first moment r1, at least
    // kronMinRadius (the AUTO ellipse's semi-axes are KRON_RADIUS x A and KRON_RADIUS x B).
    const double r1 = measure::kronRadius(a, seg.number, e);
    const double kronScale = p.kronFactor * r1;
    e.r = kronScale >= p.kronMinRadius ? kronScale : p.kronMinRadius;
    r.kronRadius = e.r;
    const measure::ApertureSum autoSum = measure::sumAperture(a, seg.number, e, p.gain);
    r.fluxAuto = autoSum.flux;
    r.fluxErrAuto = errorOf(autoSum.variance);
    setMagnitude(r.fluxAuto, r.fluxErrAuto, p.magZeropoint, r.magAuto, r.magErrAuto);
    r.snr = r.fluxErrAuto > 0.0 ? r.fluxAuto / r.fluxErrAuto : kNaN;
    if (autoSum.outside || autoSum.overBad) r.flags |= kSourceAperIncomplete;
    if (autoSum.maskedArea > kCrowdedFraction * autoSum.area) r.flags |= kSourceNeighbours;

    for (std::size_t k = 0; k < nAper; ++k) {
        const Ellipse circle{r.x, r.y, 1.0, 1.0, 0.0, 0.5 * p.apertures[k]};
        const measure::ApertureSum s = measure::sumAperture(a, seg.number, circle, p.gain);
        r.fluxAper[k] = s.flux;
        r.fluxErrAper[k] = errorOf(s.variance);
        setMagnitude(r.fluxAper[k], r.fluxErrAper[k], p.magZeropoint, r.magAper[k], r.magErrAper[k]);
        if (s.outside || s.overBad) r.flags |= kSourceAperIncomplete;
    }

    // The windowed centroid, its window from the half-light radius: as SExtractor's, the radius holding half of
    // FLUX_AUTO within 6 A (GROWTH_NSIG), capped there. (It was half of the flux within the AUTO ellipse's radius,
    // up to 15 A: on a galaxy's halo, where the mesh's model leaves a pedestal, that half lay at ~ 0.7 of the radius
    // whatever the source, windows of 300 px were iterated 16 times, and NGC 1316's 380 sources took 56 M window
    // pixels.)
    r.xWin = r.x;
    r.yWin = r.y;
    const double rHalf = measure::halfLightRadius(a, seg.number, r.x, r.y, kKronScale * r.a, 0.5 * r.fluxAuto);
    if (std::isfinite(rHalf)) {
        const double sigmaWin = std::max(2.0 * rHalf / kFwhmPerSigma, kMinWindowSigma);
        // A window that wanders out of the source's own segment (drawn by a brighter neighbour's wings on the
        // sky between them) is no centroid of it: the barycentre stays.
        if (const auto win = measure::windowedCentroid(a, seg.number, r.x, r.y, sigmaWin);
            win && win->first >= r.xmin - 0.5 && win->first <= r.xmax + 0.5 && win->second >= r.ymin - 0.5 &&
            win->second <= r.ymax + 0.5) {
            r.xWin = win->first;
            r.yWin = win->second;
        }
    }
    r.fwhm = fwhmOf(iso, r, r.xWin, r.yWin);
    return r;
}

} // namespace

std::vector<SourceRecord> measureSources(const SourceField& field, const std::vector<SourceSegment>& segments,
                                         const MeasureParams& params) {
    const FieldAccess access(field);
    std::vector<SourceRecord> records(segments.size());
    // Each record is computed by one thread from the field alone: the figures do not depend on the thread count.
    parallelFor(0, segments.size(), 4, [&](std::size_t b, std::size_t e) {
        for (std::size_t i = b; i < e; ++i) records[i] = measureOne(access, segments[i], params);
    }, params.threads);
    return records;
}

} // namespace glint
