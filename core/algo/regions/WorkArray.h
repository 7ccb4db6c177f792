// Preprocessing shared by every maximum-subarray search (brightest, K-MSP): the pivot, the ROI crop, the
// exclusion mask (shapes, blanks, NaN) and the column prefix sums of a = I - pivot.
#pragma once

#include "core/algo/sources/Background.h"
#include "core/algo/regions/RegionSearch.h"
#include "core/jobs/JobControl.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

namespace glint {

// The work array is a view of the image: cell (r, c) is the ROI pixel (c, r), or (r, c) when the
// frame is transposed. It is transposed when the ROI is taller than wide so that rows <= cols: the
// algorithms are cubic in rows and linear in cols.
struct WorkArray {
    const Image* image = nullptr; // the samples the backends read (a = image - pivot)
    // The image the user gave: `image` itself, unless the local pivot made `derived`, the double image of
    // I - bkg(x, y) - threshold * rms(x, y) over the ROI (blank where the source is), read with pivot 0.
    const Image* source = nullptr;
    std::shared_ptr<const Image> derived;
    // The local pivot's a over the ROI in a backend's device memory (roi.width x roi.height doubles, row-major,
    // bit for bit `derived`'s samples) when the backend built it there (the CUDA backend's bounded search,
    // DeviceLocalPivot below): `image` and `derived` are then null, and only that backend reads the samples.
    std::shared_ptr<const void> deviceSamples;
    // The background and noise model (null when no option needs it), the local pivot, and the threshold in
    // RMS.
    std::shared_ptr<const BackgroundMap> background;
    bool localPivot = false;
    double threshold = 0.0;
    PixelRect roi;           // in image coordinates (the whole image when no ROI was given)
    int rows = 0;
    int cols = 0;
    bool transposed = false;

    // integer: a = v - pivotInt is computed in exact 64-bit integers (integer-valued samples, integer
    // pivot, and every sum provably inside int64); otherwise a = double(v) - pivot.
    bool integer = false;
    double pivot = 0.0;
    std::int64_t pivotInt = 0;

    // rows*cols bytes in work coordinates, 1 = excluded; empty when nothing is excluded.
    std::vector<std::uint8_t> excluded;

    // Over the included cells: their number, max |a|, and the sum of the positive a (rounded up in
    // the double case). The positive sum bounds every rectangle's sum.
    std::size_t includedCount = 0;
    double maxAbs = 0.0;
    double positiveSum = 0.0;
    std::int64_t positiveSumInt = 0; // exact, in integer mode

    bool hasExclusions() const { return !excluded.empty(); }
    bool isExcluded(int r, int c) const {
        return !excluded.empty() && excluded[static_cast<std::size_t>(r) * cols + c] != 0;
    }
    int imageX(int r, int c) const { return roi.x + (transposed ? r : c); }
    int imageY(int r, int c) const { return roi.y + (transposed ? c : r); }
    // The image rectangle of a work rectangle.
    PixelRect toImage(int row0, int col0, int nrows, int ncols) const;

    // Row r of a, columns c0..c1-1 (all by default) into out[0..]; excluded cells read 0 (their
    // value never counts: backends block them).
    void rowInteger(int r, std::int64_t* out, int c0 = 0, int c1 = -1) const;
    void rowReal(int r, double* out, int c0 = 0, int c1 = -1) const;

    // Whether every column-strip sum, every prefix sum and every Kadane partial sum (r + s included)
    // provably fits a signed 32-bit integer: integer mode, rows*maxAbs < 2^30 and
    // positiveSum + rows*maxAbs < 2^31 - 1.
    bool fitsInt32() const;
};

// Whether every sum of n finite float samples (times integers below 2^extraBits) is exact in double, in any
// order: with biased exponents in [lo, hi] (of the non-zero samples; lo 255: all zero) each is a multiple of
// 2^(max(lo, 1) - 150) below 2^(hi - 126), so a sum is a multiple of the first below n 2^(hi - 126 + extraBits):
// exact when that spans at most 53 bits. Lets float sums be added in any order (vectorised) and still equal
// the one chain's, bit for bit.
inline bool exactFloatSums(std::int64_t n, std::uint32_t hi, std::uint32_t lo, int extraBits) {
    if (lo == 255) return true;
    int nBits = 0;
    while ((std::int64_t{1} << nBits) < n) ++nBits;
    return nBits + extraBits + static_cast<int>(hi) - static_cast<int>(lo < 1 ? 1u : lo) + 24 <= 53;
}

// One pass over n float samples: their sum (in partial sums, so it equals the one left-to-right chain's only
// where `exact`), minimum and maximum (the value; for a zero its sign may be either zero's), the range of the
// biased exponents of the non-zero ones (lo 255: none; hi 255 when one is not finite), and whether all are
// finite. AVX2 where the processor has it.
struct FloatRowStats {
    double sum = 0.0;
    float min = 0.0f, max = 0.0f;
    std::uint32_t hi = 0, lo = 255;
    bool finite = true;
    bool exact(std::int64_t n) const { return finite && exactFloatSums(n, hi, lo, 0); }
};
FloatRowStats floatRowStats(const float* row, int n);

// Every rectangle sum of a (and every partial sum a backend forms) must stay finite. In double mode the
// bound is maxAbs * includedCount; beyond 1e300 this throws: UsageError when a numeric pivot is what
// makes a large (the message names the largest |pivot| the image allows), InputError when the image's
// own values do. Integer mode is proven to fit int64 and always passes.
void checkSumRange(const WorkArray& work, const PivotSpec& pivot);

// A backend that makes the local pivot's preprocessing on its device (the CUDA backend): the image uploaded
// once in its own sample type, the background cells' clipped statistics, and a = I - bkg - N rms built in
// device memory where its search reads it. The host keeps what it needs afterwards: the model (from the
// cells: filling, median filter and spline knots stay on the host), the exclusion mask and the counts. Every
// value equals the host path's bit for bit (Background.cpp, BackgroundClipping.cpp, BackgroundMath.h).
struct DeviceDerivedStats {
    std::size_t included = 0;  // ROI pixels not excluded
    std::size_t nonFinite = 0; // of those, where a is not finite (the host path would exclude them too)
    double maxAbs = 0.0;       // max |a| over the included pixels
    double positiveSum = 0.0;  // as positiveSums() forms it (4 chains a row, rows in order, rounded up)
    std::shared_ptr<const void> samples; // WorkArray::deviceSamples
};
class DeviceLocalPivot {
public:
    virtual ~DeviceLocalPivot() = default;
    // Whether it takes this image and search (sample type, mesh, memory); false: the host prepares.
    virtual bool accepts(const Image& image, const BrightestParams& params) = 0;
    // The cells of backgroundCells(image, excluded, params) (uploads the image; excluded as there).
    virtual std::vector<BackgroundCell> cells(const Image& image, const std::vector<std::uint8_t>& excluded,
                                              const BackgroundParams& params, JobControl& job) = 0;
    // Uploads the image alone, when the model came from elsewhere (resolveBrightest made it on the host).
    virtual void upload(const Image& image, JobControl& job) = 0;
    // a = I - bkg - threshold * rms over the ROI of the image cells() or upload() uploaded; roiMask as the ROI's
    // exclusion mask.
    virtual DeviceDerivedStats derive(const BackgroundMap& model, const PixelRect& roi, double threshold,
                                      const std::vector<std::uint8_t>& roiMask, JobControl& job) = 0;
    // The last derive()'s a, downloaded (roi.width x roi.height, row-major): the tests, and the host's search
    // when the device's declines.
    virtual std::vector<double> derivedSamples() = 0;
};

// Validates the ROI (UsageError when it does not lie inside the image), computes the pivot over the
// included pixels and builds the work array. `image` must outlive the result.
// The background model is made (over the whole image, blank, non-finite and excluded pixels left out) when
// the local pivot, a threshold or a minimum SNR needs it (UsageError when the mesh does not fit the image);
// otherwise there is none and the measurements use the pivot as the background, with no SNR. The local
// pivot builds `derived`; a threshold with the other pivots adds threshold * the global RMS to the pivot.
// With `device` (which accepts the search), the local pivot is prepared on the device.
// `model`: the background model resolveBrightest made for these parameters, used instead of making it again.
WorkArray prepareWorkArray(const Image& image, const BrightestParams& params, DeviceLocalPivot* device = nullptr,
                           JobControl* job = nullptr, std::shared_ptr<const BackgroundMap> model = nullptr);

// The ROI a search covers: params.roi, or the whole image; UsageError when it does not lie inside the image.
PixelRect searchRoi(const Image& image, const BrightestParams& params);
// Whether the search needs the background model: the local pivot, a threshold or a minimum SNR.
bool needsBackgroundModel(const BrightestParams& params);

// What every region search does first, whatever its mode: the result's header (pivot spec, mode, image
// size, backend, job.device()), then the work array prepared as step "preprocess" and checked with
// checkSumRange, and the result's pivot, exactInteger and includedPixels from it. Throws Cancelled.
struct PreparedRegionSearch {
    BrightestResult result; // no regions yet
    WorkArray work;
};
PreparedRegionSearch prepareRegionSearch(const Image& image, const BrightestParams& params, BrightestMode mode,
                                         Backend resolved, JobControl& job, DeviceLocalPivot* device = nullptr,
                                         std::shared_ptr<const BackgroundMap> model = nullptr);

// The pivot's value over the included pixels (values of the ROI that are not excluded), plus the threshold
// times the global RMS; for the local pivot the global background plus threshold times the global RMS.
// Exposed for the window's pivot readout and the tests; prepareWorkArray uses the same computation.
double computePivot(const Image& image, const BrightestParams& params);

// Column prefix sums P[r][c] = sum of a[0..r-1][c] over rows 0..rows, row-major ((rows+1) x cols),
// computed top to bottom (every backend adds in this order, so double sums agree bit for bit).
std::vector<std::int64_t> columnPrefixSumsInteger(const WorkArray& work);
std::vector<double> columnPrefixSumsReal(const WorkArray& work);
// The one of the two that V (std::int64_t or double) names, timed as step "prefix sums".
template <class V>
std::vector<V> timedColumnPrefixSums(const WorkArray& work, JobControl& job) {
    auto step = job.timing().scope("prefix sums");
    if constexpr (std::is_integral_v<V>) return columnPrefixSumsInteger(work);
    else return columnPrefixSumsReal(work);
}

// The exclusion mask of the whole image (blank and non-finite samples, shapes), width*height bytes, or
// empty when nothing is excluded.
std::vector<std::uint8_t> imageExclusionMask(const Image& image, const BrightestParams& params);

// The background model's parameters of a search.
BackgroundParams backgroundParamsOf(const BrightestParams& params);


} // namespace glint
