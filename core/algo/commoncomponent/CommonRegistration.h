// Registration first: phase correlation proposes the offsets to label before the exact search (a strong
// lower bound from the start), and a match-count bound over every offset at once, by FFT, lets the exact
// search skip offsets without looking at their pixels. Neither changes the answer: candidates are only
// labelled first, and the bound is an upper bound of the exact match count (so of the component).
#pragma once

#include "core/algo/commoncomponent/CommonComponentCoding.h"
#include "core/io/Image.h"
#include "core/jobs/JobControl.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace glint::common_component {

struct Registration {
    // The highest value of the phase-correlation surface: the inverse DFT of the normalised cross-power
    // spectrum of the two (mean-removed, Hann-windowed) images, 1 for a pure cyclic translation, near 0
    // for unrelated images.
    double peak = 0.0;
    // Offsets to label first, strongest peak first: each peak's wrap-around aliases (the surface is
    // cyclic), those within the offset range, without repeats.
    std::vector<CommonOffset> candidates;
    // When not empty (the device registration computes them beside the surface): each candidate's
    // ranking score, candidateScore() of its overlap. Empty: findCommonComponent scores them on the host.
    std::vector<double> scores;
};

// Sums over the valid pairs of one overlap, of a - ca and b - cb (ca, cb: the images' means, so that the
// sums of squares do not cancel).
struct PairSums {
    double n = 0, a = 0, b = 0, aa = 0, bb = 0, ab = 0;
};
// How the candidates are ranked: the Pearson correlation of the overlap's valid pairs, discounted when
// they are under 5 % of the smaller image (a few pixels correlate by chance).
double candidateScore(const PairSums& sums, double smallerImagePixels);

// Phase correlation of A and B on a common size (no smaller than either image). peaks: how many local
// maxima of the surface are turned into candidates (each gives up to 4 aliases). Blank and non-finite
// samples count as the image's mean. Throws Cancelled through job.
Registration registerByPhaseCorrelation(const Image& a, const Image& b, const OffsetRange& range, JobControl& job,
                                        int peaks = 4);

// The transform size of each axis (OpenCV's optimal DFT size: 2^p 3^q 5^r, no smaller than n); a device
// registration uses the same, so that its surface is the host's.
int registrationSize(int n);
// A local maximum (3x3, cyclic) of a phase-correlation surface with a positive value.
struct SurfacePeak {
    float value;
    int x, y;
};
// The local maxima of a surface of sizeY rows of sizeX values (ties: the first in scan order).
std::vector<SurfacePeak> surfacePeaks(const float* surface, int sizeX, int sizeY);
// The registration from the local maxima: the strongest `peaks`, each with its wrap-around aliases in range.
Registration registrationFromPeaks(std::vector<SurfacePeak> found, int sizeX, int sizeY, const OffsetRange& range,
                                   int peaks);

// An upper bound of the exact match count at every offset, from K bins of the codes: a B pixel's code
// falls in one bin; an A pixel's matching codes [lo, lo + span] cover a run of bins. A pair that
// matches then has B's bin among A's bins, so sum over the bins of the correlation of "A covers bin k"
// with "B is in bin k" counts every matching pair once (and no pair twice). The correlations are cyclic
// (DFT size no smaller than either image): aliased offsets only add to a count, so it stays a bound.
// They are computed in double precision; at() adds a margin far above the rounding error.
class MatchCountBound {
public:
    // Empty when the transforms would be too large (then the search does without it) or nothing matches.
    static std::optional<MatchCountBound> build(const CommonCoding& coding, JobControl& job, int bins = 4);
    std::uint64_t at(int dx, int dy) const {
        const int x = ((dx % sizeX_) + sizeX_) % sizeX_;
        const int y = ((dy % sizeY_) + sizeY_) % sizeY_;
        return bound_[static_cast<std::size_t>(y) * sizeX_ + x];
    }
    int bins() const { return bins_; }

private:
    int sizeX_ = 0, sizeY_ = 0, bins_ = 0;
    std::vector<std::uint32_t> bound_; // cyclic index [dy mod sizeY][dx mod sizeX]
};

// How many bins the FFT bound should have once a component of `best` pixels is known (0: none, it would
// not prune). At unrelated offsets about 1/bins of the overlap agrees in bin, so the bins are chosen to
// bring that well below best / (largest overlap area).
int fftBoundBins(std::uint64_t best, const CommonCoding& coding);

// The FFT bound's bins: min(bins, codeCount) bins of equal population among B's codes (a monotone map
// code -> bin, so every bin is a run of codes), and the numbers of A's and B's pixels that are not blank. None when B
// has no code. The host's bound and the device's cut them the same way.
struct FftBoundBins {
    int k = 0;
    std::vector<std::uint8_t> binOf; // per code
    std::uint64_t validA = 0;
    std::uint64_t validB = 0; // B's pixels with a code
};
std::optional<FftBoundBins> equalPopulationBins(const CommonCoding& coding, int bins);

} // namespace glint::common_component
