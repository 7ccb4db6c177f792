// Detection of a source catalogue: the matched filter, the footprints, the deblending and the brightest core of
// every source. From the background-subtracted image v = I - B and its noise sigma:
//   1. the detection image D = k (x) v, k a normalised Gaussian of the filter's FWHM (or none), over the good
//      pixels only (D = sum k v g / sum k g, g = 1 on good pixels), with its own noise
//      sigma_D = sqrt(sum k^2 sigma^2 g) / sum k g: D / sigma_D is the significance of a point source under k;
//   2. footprints: the 8-connected sets of good pixels where D > threshold x sigma_D, of at least minArea pixels;
//   3. deblending (SExtractor's multi-threshold tree): levels t_i = T (Dmax / T)^(i / N), i = 1..N-1, between the
//      footprint's lowest and highest D; a node splits where at least two of its branches above a level each
//      hold more than `contrast` of the footprint's flux (sum of D), or rise `prominence` sigma_D above the level, and
//      minArea pixels; the leaves are the
//      sources' markers, each with its branch (the node where it parted from its siblings); a branch's pixels go
//      to its marker and every other pixel of the footprint to the marker whose Gaussian model (the branch's flux,
//      barycentre and second moments) is largest there, as SExtractor does, so the segments tile the footprint
//      (a segment may hold pixels apart from its branch);
//   4. every source's core: the exact brightest rectangle of a = D - threshold x sigma_D over its segment's
//      pixels (the brightest-region search of the local pivot with a threshold, confined to the segment and to
//      a window of coreRadius around its peak), and the core's SNR = sum (v - p) / sqrt(sum sigma^2) over it, p the local pedestal (the median
//      of v, at least 0, on a ring 2-5 px around the core among the pixels below the threshold: a bump on a galaxy's
//      faint wing stands on the wing's light). A marker
//      whose core has SNR < minSnr is no source: the assignment runs again without it, and a footprint left
//      with no marker is dropped;
//   5. SExtractor's CLEAN (clean.c; with `clean`): over all segments, brightest flux of D first, a segment within
//      10 (a + a') of a brighter one is merged into it (its pixels join that segment) when the brighter one's Moffat
//      profile -- its flux of D, its moments' ellipse, index cleanBeta, falling to the detection threshold at its
//      area -- stands above the fainter one's mthresh there (how far its minArea-th brightest pixel rises above the
//      threshold): a bump on a bright object's wing, which that object's light explains.
// The result does not depend on the thread count.
#pragma once

#include "core/algo/sources/SourceCatalog.h"

#include <cstdint>
#include <vector>

namespace glint {

class Image;
class JobControl;

// v = I - B, the background-subtracted image the detection reads: a map of v, or the image and its background map,
// v = float(I - B) made where it is read (no image-sized map of its own; the values the measurements take as I - B).
class ResidualView {
public:
    ResidualView(const std::vector<float>& residual) : residual_(&residual) {} // NOLINT: implicit
    ResidualView(const Image& image, const std::vector<float>& background) : image_(&image), background_(&background) {}
    std::size_t size() const;
    // v at pixels first .. first + count - 1: a pointer into the map, or `scratch` (count values) filled.
    const float* row(std::size_t first, std::size_t count, float* scratch) const;
    float at(std::size_t i) const;

private:
    const std::vector<float>* residual_ = nullptr;
    const Image* image_ = nullptr;
    const std::vector<float>* background_ = nullptr;
};

struct DetectParams {
    double threshold = 3.0;       // in units of sigma_D (the detection image's own noise)
    double filterFwhm = 0.0;      // px; 0: no filter
    double deblendFilterFwhm = 0.0; // px: the deblending's image under this (narrower) filter; 0: D itself
    int minArea = 5;              // pixels of a footprint and of a deblended branch
    int deblendLevels = 32;       // N; 1: no deblending
    double deblendContrast = 0.005;
    double deblendProminence = 0.0; // sigma_D: a branch this far above its split level is significant whatever its flux; 0: off
    double minSnr = 5.0;          // of the core; 0: none
    int coreRadius = 8;           // the core's window around the peak: (2 r + 1)^2 px
    int maxMarkers = 4096;        // deblending bound per footprint (beyond: kSourceDeblendOverflow)
    bool clean = true;            // step 5, SExtractor's CLEAN
    double cleanBeta = 1.0;       // the Moffat index of CLEAN's profiles (SExtractor's CLEAN_PARAM)
    int threads = 0;              // 0: every core
    bool keepMaps = true;         // off: no image-sized maps of D and sigma_D (empty in the result): they are kept only at the footprints
};

// The brightest rectangle of a source's segment.
struct SourceCore {
    int x = 0, y = 0, width = 0, height = 0;
    double sum = 0.0; // of a = D - threshold x sigma_D
    double snr = 0.0; // sum v / sqrt(sum sigma^2) over the rectangle
};

struct Detection {
    std::vector<std::int32_t> segmentation; // width*height; 0 sky, n = segments[n - 1]
    std::vector<SourceSegment> segments;
    std::vector<SourceCore> cores;           // one per segment
    std::vector<float> detectionImage;       // D (empty without DetectParams::keepMaps)
    std::vector<float> detectionNoise;       // sigma_D (the same)
    int footprints = 0;        // footprints of at least minArea pixels
    std::vector<std::vector<std::int64_t>> footprintPixels; // their pixels (increasing indices), for sourceMask
    int rejectedFootprints = 0; // footprints whose every marker failed minSnr
    int rejectedMarkers = 0;   // markers that failed minSnr
    int cleaned = 0;           // segments merged into a brighter one by CLEAN
};

// The Gaussian kernel's taps (odd length, sums to 1) of a FWHM in px: radius ceil(3 sigma), at least 1.
std::vector<double> gaussianTaps(double fwhm);

// D and sigma_D of v (good where bad[i] == 0 and sigma > 0). Empty `bad`: every pixel good.
void filterDetectionImage(const ResidualView& residual, const std::vector<float>& rms,
                          const std::vector<std::uint8_t>& bad, int width, int height, double filterFwhm,
                          std::vector<float>& detection, std::vector<float>& noise, int threads = 0);

// Step 2: the 8-connected components of the pixels with noise > 0 and detection > threshold x noise, each as
// increasing pixel indices, in the order of their first pixel; those under minArea pixels left out. threads: 0,
// every core. (detectSources finds the same runs as the filter makes its rows, without these maps.)
std::vector<std::vector<std::int64_t>> footprints(const std::vector<float>& detection, const std::vector<float>& noise,
                                                  int width, int height, double threshold, int minArea, int threads = 0);

// Steps 1-4. Throws Cancelled through `job` (may be null).
Detection detectSources(const ResidualView& residual, const std::vector<float>& rms,
                        const std::vector<std::uint8_t>& bad, int width, int height, const DetectParams& params,
                        JobControl* job = nullptr);

// The pixels of every footprint (Detection::footprintPixels), each footprint grown by half its equivalent
// radius sqrt(area / pi) (at least 2 px, at most 64): what the background model leaves out on its second pass,
// so that a large galaxy's wings are not taken for sky. width*height bytes, 1 = masked.
std::vector<std::uint8_t> sourceMask(const std::vector<std::vector<std::int64_t>>& footprints, int width, int height);

// Gives a vector's memory back (clear() and `= {}` keep its capacity).
template <class T>
void releaseMemory(std::vector<T>& v) {
    std::vector<T>().swap(v);
}

// Image values read at pixel indices: base[p - origin] -- a whole image (origin 0) or a band of its rows that
// starts at pixel index origin (the deblending's narrower filter, made footprint by footprint).
struct PixelValues {
    const float* base = nullptr;
    std::int64_t origin = 0;
    PixelValues(const float* values, std::int64_t first = 0) : base(values), origin(first) {} // NOLINT: implicit
    float operator[](std::size_t p) const { return base[static_cast<std::int64_t>(p) - origin]; }
};

// Step 3 alone, for one footprint (its pixel indices in the image, increasing): the markers' pixel lists
// (each a subset of the footprint) and whether the bound stopped it. Exposed for the tests.
struct DeblendResult {
    std::vector<std::vector<std::int64_t>> markers;
    // Per marker, its branch: the node of the tree where it parted from its siblings (the marker is that node
    // climbed to the last level where it stays one piece) -- or, for a node that parted only from siblings significant
    // by prominence alone, the branch it came in with less theirs; disjoint, each holding its marker. The whole
    // footprint for a footprint of one marker.
    std::vector<std::vector<std::int64_t>> branches;
    bool overflow = false;
};
// detection and noise: read at the footprint's pixels only.
DeblendResult deblendFootprint(const std::vector<std::int64_t>& pixels, PixelValues detection, PixelValues noise,
                               int width, const DetectParams& params);
// The flux of D > 0 over `pixels` (image indices), its barycentre and central second moments (x2, y2, xy, each
// divided by the flux; zero when the flux is not positive): the deblending's Gaussian models and CLEAN's profiles.
struct DetectionMoments {
    double flux = 0.0, cx = 0.0, cy = 0.0, x2 = 0.0, y2 = 0.0, xy = 0.0;
};
DetectionMoments detectionMoments(const std::vector<std::int64_t>& pixels, PixelValues detection, int width);

// The first of `pixels` (non-empty) where D is largest.
std::int64_t peakPixel(const std::vector<std::int64_t>& pixels, PixelValues detection);

// Step 3's assignment as SExtractor's: each branch's pixels go to its marker; every other pixel of the footprint
// to the marker whose Gaussian (its branch's flux, barycentre and second moments of D > 0, plus 1/12 px^2) is
// largest there (ties: the lower label). labels[i] in 1..branches.size(), in `pixels`' order.
std::vector<std::int32_t> modelAssignFootprint(const std::vector<std::int64_t>& pixels,
                                               const std::vector<std::vector<std::int64_t>>& branches,
                                               PixelValues detection, int width);

} // namespace glint
