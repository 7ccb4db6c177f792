// The background and noise model of an image, as SExtractor, SEP and photutils' Background2D make it:
// per mesh cell a sigma-clipped background (the mode estimate 2.5 median - 1.5 mean, or the median when the
// clipped distribution is skewed) and RMS, blank and excluded pixels left out; cells with too few good pixels
// filled from their nearest good neighbours; a median filter over the cells; and a natural bicubic spline
// through the cell centres to every pixel (SExtractor's interpolation). Used by the local pivot
// (a = I - bkg(x, y) - N rms(x, y)), the threshold of the other pivots (N x the global RMS) and the
// per-region measurements (flux, SNR). Lives in maxsub because the work array (shared by brightest and
// kmax) is built from it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace glint {

class Image;

struct BackgroundParams {
    int mesh = 64;          // cell side in pixels (the last cell of a row or column may be smaller)
    int filterSize = 3;     // median filter over filterSize x filterSize cells (1: none; odd)
    double clipSigma = 3.0; // the clipping bound, in sigmas around the median
    int maxIterations = 30; // clipping iterations per cell
};

// The sigma-clipped statistics of one set of values.
struct ClippedStats {
    std::size_t count = 0; // values kept after clipping
    double mean = 0.0;
    double median = 0.0;
    double sigma = 0.0;    // of the clipped values (population form)
    double mode = 0.0;     // 2.5 median - 1.5 mean when |mean - median| < 0.3 sigma, else the median
    bool valid() const { return count > 0; }
};

// Histogram-based sigma clipping (what every cell uses): the clipping interval is [median - k sigma,
// median + k sigma] on a fine histogram (1024 bins over +-5 sigma of the current estimate, rebuilt when
// sigma shrinks), iterated until the kept set no longer changes; the median comes from the bins' counts,
// the means and sigmas from the values themselves. Non-finite values must be left out by the caller. The
// sums are formed in 32 lanes and a fixed tree (BackgroundMath.h), the order of the device's warps
// (cuda/BackgroundKernels.cuh), so that its cells equal these bit for bit. `scratch` is reused between calls.
struct ClippingScratch {
    std::vector<std::int16_t> slot;  // each value's bin
    std::vector<std::int32_t> order; // the values' indices by bin
    std::vector<std::int64_t> count, start; // the bins' counts and first places in order
    std::vector<std::int32_t> part;         // the counts and cursors of runs of the values
};
ClippedStats clippedStatsHistogram(const double* values, std::size_t n, double clipSigma, int maxIterations,
                                   ClippingScratch* scratch = nullptr);
// The clipping's sums over the kept values, vmin <= value <= vmax, of values[0, n) (n a multiple of 32): of
// d = value - origin into a1 and of d^2 into a2, value k in lane k % 32, each lane in increasing k, a value left
// out adding +0.0; a1 and a2 start at zero. The variants ("scalar", "sse2", "avx2", "avx512") give the same bits;
// nullptr for one this CPU or build lacks. clippedStatsHistogram runs the widest (the tests compare them all).
using KeptLaneSumsFunction = void (*)(const double* values, std::size_t n, double origin, double vmin, double vmax,
                                      double* a1, double* a2);
KeptLaneSumsFunction keptLaneSumsVariant(std::string_view name);
// Each value's histogram bin (bgmath::binOf: -1 below, 1024 above) into slot; the variants ("scalar", "avx2",
// "avx512") give the same bins when binWidth > 0 (clippedStatsHistogram runs the scalar one otherwise).
using BinSlotsFunction = void (*)(const double* values, std::size_t n, double lo, double binWidth, std::int16_t* slot);
BinSlotsFunction binSlotsVariant(std::string_view name);
// The same rule on sorted values with exact medians: the tests' oracle (O(n log n)).
ClippedStats clippedStatsExact(std::vector<double> values, double clipSigma, int maxIterations);

// One mesh cell's statistics before filling and filtering: its pixels (area), the good ones among them
// (not blank, finite, not excluded), and, when it has any, the clipped mode and sigma.
struct BackgroundCell {
    double back = 0.0;
    double rms = 0.0;
    std::uint32_t good = 0;
    std::uint32_t area = 0;
};

class BackgroundMap {
public:
    int width() const { return width_; }
    int height() const { return height_; }
    int mesh() const { return mesh_; }
    int cellsX() const { return nx_; }
    int cellsY() const { return ny_; }
    // No cell had any good pixel (an all-blank or all-excluded image): no background exists.
    bool empty() const { return empty_; }
    // The cell grids after filling and filtering, row-major (cellsY rows of cellsX).
    const std::vector<double>& cellBackground() const { return back_; }
    const std::vector<double>& cellRms() const { return rms_; }
    // Cells whose own statistics were used (not filled from neighbours).
    const std::vector<std::uint8_t>& cellGood() const { return good_; }
    // The median over the cells of the background and of the RMS (SEP's global values).
    double globalBackground() const { return globalBack_; }
    double globalRms() const { return globalRms_; }

    // The spline knots (cell centres) and the second derivatives along y of every cell column (row-major like
    // the grids): what the device's rows interpolate from.
    const std::vector<double>& knotsX() const { return xc_; }
    const std::vector<double>& knotsY() const { return yc_; }
    const std::vector<double>& backgroundD2() const { return backD2_; }
    const std::vector<double>& rmsD2() const { return rmsD2_; }

    // Row y, columns x0..x1-1 of the interpolated background and RMS into back[0..] and rms[0..] (either may
    // be null). The RMS is clamped at 0. Thread-safe.
    void row(int y, int x0, int x1, double* back, double* rms) const;
    double backgroundAt(int x, int y) const;
    double rmsAt(int x, int y) const;

private:
    friend BackgroundMap backgroundFromCells(int, int, const BackgroundParams&, const std::vector<BackgroundCell>&);
    int width_ = 0, height_ = 0, mesh_ = 0, nx_ = 0, ny_ = 0;
    bool empty_ = true;
    double globalBack_ = 0.0, globalRms_ = 0.0;
    std::vector<double> back_, rms_;
    std::vector<std::uint8_t> good_;
    std::vector<double> xc_, yc_;        // cell centres (spline knots)
    std::vector<double> backD2_, rmsD2_; // second derivatives along y of each cell column, row-major like the grids
};

// The model over the whole image. excluded: width*height bytes in the image frame, 1 = left out (blank,
// non-finite or excluded by a shape), or empty; blank and non-finite samples are left out in any case.
// Throws UsageError when the mesh is below 2 or larger than the image's width or height (the message says
// which --mesh would fit), or the filter size is not a positive odd number.
BackgroundMap estimateBackground(const Image& image, const std::vector<std::uint8_t>& excluded,
                                 const BackgroundParams& params);

// estimateBackground in its two steps: the cells' clipped statistics (row-major, cellsY x cellsX; what the
// device computes too), then the model from them (filling, median filter, global values, spline knots).
// Both throw UsageError as estimateBackground does.
void checkBackgroundParams(int width, int height, const BackgroundParams& params);
// previous (optional): the cells of an earlier call on the same image with the same parameters and the exclusions
// previousExcluded; a cell whose exclusions are the same bytes keeps its earlier statistics (they would come out the
// same) -- a second model that leaves out only the sources recomputes only the cells that hold some.
std::vector<BackgroundCell> backgroundCells(const Image& image, const std::vector<std::uint8_t>& excluded,
                                            const BackgroundParams& params,
                                            const std::vector<BackgroundCell>* previous = nullptr,
                                            const std::vector<std::uint8_t>* previousExcluded = nullptr);
BackgroundMap backgroundFromCells(int width, int height, const BackgroundParams& params,
                                  const std::vector<BackgroundCell>& cells);

} // namespace glint
