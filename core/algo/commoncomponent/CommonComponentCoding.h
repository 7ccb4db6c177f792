// What the fast common-component backends share: samples turned into integer codes whose comparison is
// exactly the match relation, quantised codes for the cheap upper bound, offset geometry, the patch
// seeds that find a strong first candidate, and the final component mask.
#pragma once

#include "core/algo/commoncomponent/CommonComponent.h"
#include "core/util/HostDevice.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

namespace glint::common_component {

// Leaves new elements uninitialised, so that the per-pixel arrays are first touched (and their pages
// faulted in) by the parallel loops that fill them, not by a zero fill on one thread.
template <class T>
struct UninitialisedAllocator : std::allocator<T> {
    template <class U>
    struct rebind {
        using other = UninitialisedAllocator<U>;
    };
    UninitialisedAllocator() = default;
    template <class U>
    UninitialisedAllocator(const UninitialisedAllocator<U>&) noexcept {}
    template <class U>
    void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
        ::new (static_cast<void*>(p)) U;
    }
    template <class U, class... Args>
    void construct(U* p, Args&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
};
template <class T>
using PixelVector = std::vector<T, UninitialisedAllocator<T>>;

// A blank (or non-finite) pixel of A has lo = kBlankLo and span 0; of B, code kBlankCode. With unsigned
// arithmetic code - lo <= span then never holds for a blank on either side.
constexpr std::uint32_t kBlankLo = 0xFFFFFFFFu;
constexpr std::uint32_t kBlankCode = 0xFFFFFFFEu;

// Every sample value present becomes its rank among the distinct values (its code). For tolerance t the
// codes that match a value form one interval of ranks [lo, lo + span], because |a - b| <= t is monotone
// in b. So A(x, y) matches B(x', y') exactly when codeB - loA <= spanA (unsigned).
inline bool codesMatch(std::uint32_t lo, std::uint32_t span, std::uint32_t code) { return code - lo <= span; }

// Per-pixel byte of the quantised codes: bit 7 = valid (not blank), bits 0-2 = bin of the first
// partition of the values (mod 8), bits 3-5 = bin of the second partition (tolerance > 0 only).
// Two matching pixels always share the first bin (tolerance 0) or one of the two bins (tolerance > 0),
// so counting such pixels bounds the match count, 32 or 64 pixels per popcount.
constexpr std::uint8_t kBinValid = 0x80;

// The pixels (bits of a word of 32 or 64) that agree in a bin, from the bin bytes as NP bit planes of such
// words: NP = 4, planes 0-2 the first bin and plane 3 valid; otherwise planes 0-2 and 3-5 the two bins and
// plane 6 valid. Two valid pixels agree when their first bins are equal (NP = 4) or one of their bins is.
// Shared by the CPU backend (64-bit words) and the CUDA bound kernel (32-bit words).
template <int NP, class Word>
GLINT_HD Word agreeBits(const Word* a, const Word* b) {
    if constexpr (NP == 4) {
        const Word differ = (a[0] ^ b[0]) | (a[1] ^ b[1]) | (a[2] ^ b[2]);
        return ~differ & a[3] & b[3];
    } else {
        const Word differ1 = (a[0] ^ b[0]) | (a[1] ^ b[1]) | (a[2] ^ b[2]);
        const Word differ2 = (a[3] ^ b[3]) | (a[4] ^ b[4]) | (a[5] ^ b[5]);
        return ~(differ1 & differ2) & a[6] & b[6];
    }
}

struct CommonCoding {
    int widthA = 0, heightA = 0, widthB = 0, heightB = 0;
    double tolerance = 0.0;
    std::uint64_t codeCount = 0;      // distinct matchable values in A and B
    PixelVector<std::uint32_t> loA;   // per A pixel
    PixelVector<std::uint32_t> spanA; // per A pixel; empty when the tolerance is 0 (all spans 0)
    PixelVector<std::uint32_t> codeB; // per B pixel
    PixelVector<std::uint8_t> binA;   // per A pixel, see kBinValid
    PixelVector<std::uint8_t> binB;
    bool twoPartitions = false;       // tolerance > 0: a pair matches when either bin agrees
    bool boundExact = false;          // the bin test is the match relation itself (tolerance 0, <= 8 codes)

    std::uint32_t span(std::size_t i) const { return spanA.empty() ? 0u : spanA[i]; }
    bool matchAt(int xa, int ya, int dx, int dy) const {
        const std::size_t ia = static_cast<std::size_t>(ya) * widthA + xa;
        const std::size_t ib = static_cast<std::size_t>(ya + dy) * widthB + (xa + dx);
        return codesMatch(loA[ia], span(ia), codeB[ib]);
    }
};

// Codes both images (on all CPU threads). Throws Cancelled through job.
CommonCoding codeImages(const Image& a, const Image& b, double tolerance, JobControl& job);

struct Overlap {
    int x0 = 0, y0 = 0;      // first overlapping pixel of A
    int width = 0, height = 0;
    std::uint64_t area() const { return static_cast<std::uint64_t>(width) * static_cast<std::uint64_t>(height); }
};
inline Overlap overlapOf(int wA, int hA, int wB, int hB, int dx, int dy) {
    Overlap o;
    o.x0 = dx < 0 ? -dx : 0;
    o.y0 = dy < 0 ? -dy : 0;
    const int x1 = wA < wB - dx ? wA : wB - dx;
    const int y1 = hA < hB - dy ? hA : hB - dy;
    o.width = x1 > o.x0 ? x1 - o.x0 : 0;
    o.height = y1 > o.y0 ? y1 - o.y0 : 0;
    return o;
}

// The offsets searched: every (dx, dy) with overlap, clipped to the maximum shift.
struct OffsetRange {
    int dxMin = 0, dxMax = -1, dyMin = 0, dyMax = -1;
    std::uint64_t dxCount() const { return dxMax >= dxMin ? static_cast<std::uint64_t>(dxMax - dxMin + 1) : 0; }
    std::uint64_t dyCount() const { return dyMax >= dyMin ? static_cast<std::uint64_t>(dyMax - dyMin + 1) : 0; }
    std::uint64_t count() const { return dxCount() * dyCount(); }
    bool contains(int dx, int dy) const { return dx >= dxMin && dx <= dxMax && dy >= dyMin && dy <= dyMax; }
};
OffsetRange offsetRange(int wA, int hA, int wB, int hB, long long maxShift);
// The fast backends bound the offsets in bands of dx columns and report progress after each (cuda labels
// each band's candidates after its bound; cpu labels a group of up to 2^24 offsets in one order): at most
// 2^24 offsets a band (memory), and `bands` bands where there are that many columns, so that progress moves
// in steps of about 1/bands.
int progressBand(const OffsetRange& range, int bands);

// Patch seeds: small textured patches of A looked up in B; offsets where several agree are labelled
// first, so that the overlap-area and code bounds prune the rest from the start.
constexpr int kSeedPatchSize = 8;
constexpr std::size_t kMaxSeedHits = 1u << 16;
constexpr std::size_t kMaxSeedOffsets = 8;
struct SeedPatch {
    int x = 0, y = 0; // top-left corner in A
};
std::vector<SeedPatch> chooseSeedPatches(const CommonCoding& coding);
// hits: the offsets (dx, dy) at which some patch matched. Returns the most voted offsets in range.
std::vector<std::pair<int, int>> rankSeedOffsets(const std::vector<std::pair<int, int>>& hits, const OffsetRange& range);

// The component through A pixel (seedX, seedY) at offset (dx, dy) (4-connected), as the result the
// backends return: runs of matching pixels per row, united with the runs they touch in the row above,
// in strips of rows on `threads` threads (0: as many as the overlap is worth), the strips joined at their
// borders. Throws std::logic_error when its size differs from expectedSize (a backend's labelling
// disagreeing with the search would be a bug, never a result).
CommonComponentResult componentFromSeed(const CommonCoding& coding, int dx, int dy, int seedX, int seedY,
                                        std::uint64_t expectedSize, int threads = 0);

} // namespace glint::common_component
