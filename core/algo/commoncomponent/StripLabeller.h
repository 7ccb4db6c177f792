// Largest 4-connected component of a bit mask, labelled strip by strip: the phases are written once,
// as functions of one 32-pixel mask word, and shared by the CPU backend (plain loops) and the CUDA kernel
// (one thread per word, a barrier between phases), so that the CPU tests exercise the GPU's logic.
//
// A strip holds `rows` mask rows: row 0 is the last row of the previous strip (the "carried" row) and
// rows 1.. are new. Union-find runs over horizontal runs: a run is represented by the node of its first
// pixel, node index r * (width + 1) + c. node[s] is the parent of run start s (the root is the smallest
// index of its tree); node[s + 1] holds the size of root s (that slot is never a run start, and the
// extra column per row makes this true at the row end too). A component carried from the previous strip
// enters as a star of its row-0 runs around one canonical run whose size slot holds the component's size
// so far; row-0 pixels are not counted again.
#pragma once

#include "core/util/HostDevice.h"

#include <cstdint>

namespace glint::common_component {

constexpr std::uint32_t kNoNode = 0xFFFFFFFFu;

GLINT_HD int popcount32(std::uint32_t v) {
#if defined(__CUDA_ARCH__)
    return __popc(v);
#else
    return __builtin_popcount(v);
#endif
}
// v != 0
GLINT_HD int highestBit32(std::uint32_t v) {
#if defined(__CUDA_ARCH__)
    return 31 - __clz(v);
#else
    return 31 - __builtin_clz(v);
#endif
}
// v != 0
GLINT_HD int lowestBit32(std::uint32_t v) {
#if defined(__CUDA_ARCH__)
    return __ffs(v) - 1;
#else
    return __builtin_ctz(v);
#endif
}

// Plain memory operations for the sequential CPU run; the CUDA file supplies atomic ones.
struct SequentialOps {
    static std::uint32_t load(const std::uint32_t* p) { return *p; }
    static std::uint32_t atomicMin(std::uint32_t* p, std::uint32_t v) {
        const std::uint32_t old = *p;
        if (v < old) *p = v;
        return old;
    }
    static void atomicAdd(std::uint32_t* p, std::uint32_t v) { *p += v; }
};

struct StripView {
    int width = 0;                     // pixels per row
    int words = 0;                     // 32-bit words per mask row
    int rows = 0;                      // rows in this strip, row 0 included
    std::uint32_t* mask = nullptr;     // rows * words; bits beyond width are 0
    std::uint32_t* runEntry = nullptr; // rows * words: start column of the run that enters word w at bit 0
    std::uint32_t* node = nullptr;     // rows * (width + 1)

    GLINT_HD std::uint32_t nodeIndex(int r, int c) const {
        return static_cast<std::uint32_t>(r) * static_cast<std::uint32_t>(width + 1) + static_cast<std::uint32_t>(c);
    }
    GLINT_HD std::uint32_t word(int r, int w) const { return mask[r * words + w]; }
    // Bits of word w that begin a run (their left neighbour, possibly in word w-1, is 0).
    GLINT_HD std::uint32_t runStarts(int r, int w) const {
        const std::uint32_t m = word(r, w);
        const std::uint32_t carry = w > 0 ? word(r, w - 1) >> 31 : 0u;
        return m & ~((m << 1) | carry);
    }
    // Column of the first pixel of the run holding the set pixel (r, c).
    GLINT_HD int runStartColumn(int r, int c) const {
        const int w = c >> 5;
        const int b = c & 31;
        const std::uint32_t zerosBelow = ~word(r, w) & ((1u << b) - 1u);
        if (zerosBelow) return (c & ~31) + highestBit32(zerosBelow) + 1;
        return static_cast<int>(runEntry[r * words + w]);
    }
};

// runEntry of one row, sequentially (the GPU uses a warp scan that computes the same numbers).
GLINT_HD void computeRunEntryRow(const StripView& s, int r) {
    int lastZero = -1;
    for (int w = 0; w < s.words; ++w) {
        s.runEntry[r * s.words + w] = static_cast<std::uint32_t>(lastZero + 1);
        const std::uint32_t zeros = ~s.word(r, w);
        if (zeros) lastZero = w * 32 + highestBit32(zeros);
    }
}

template <class Ops>
GLINT_HD std::uint32_t findRoot(std::uint32_t* node, std::uint32_t x) {
    for (;;) {
        const std::uint32_t p = Ops::load(node + x);
        if (p == x) return x;
        x = p;
    }
}

// Lock-free union of the trees of a and b: the larger root is linked below the smaller one. Safe when
// many threads merge at once (a failed link means another thread linked first: retry from there).
template <class Ops>
GLINT_HD void mergeTrees(std::uint32_t* node, std::uint32_t a, std::uint32_t b) {
    for (;;) {
        a = findRoot<Ops>(node, a);
        b = findRoot<Ops>(node, b);
        if (a == b) return;
        if (a < b) {
            const std::uint32_t t = a;
            a = b;
            b = t;
        }
        const std::uint32_t old = Ops::atomicMin(node + a, b);
        if (old == a) return;
        a = old;
    }
}

// Phase 1 (rows >= 1): every run start becomes its own root of size 0.
GLINT_HD void initWord(const StripView& s, int r, int w) {
    std::uint32_t starts = s.runStarts(r, w);
    while (starts) {
        const int b = lowestBit32(starts);
        starts &= starts - 1;
        const std::uint32_t i = s.nodeIndex(r, w * 32 + b);
        s.node[i] = i;
        s.node[i + 1] = 0;
    }
}

// Phase 2 (rows >= 1): one union per maximal stretch where row r and row r-1 are both set: such a
// stretch lies within one run of each row.
template <class Ops>
GLINT_HD void unionWord(const StripView& s, int r, int w) {
    const std::uint32_t both = s.word(r, w) & s.word(r - 1, w);
    const std::uint32_t carry = w > 0 ? (s.word(r, w - 1) & s.word(r - 1, w - 1)) >> 31 : 0u;
    std::uint32_t starts = both & ~((both << 1) | carry);
    while (starts) {
        const int b = lowestBit32(starts);
        starts &= starts - 1;
        const int c = w * 32 + b;
        mergeTrees<Ops>(s.node, s.nodeIndex(r, s.runStartColumn(r, c)), s.nodeIndex(r - 1, s.runStartColumn(r - 1, c)));
    }
}

// Phase 3 (all rows): every run start of word w points straight at its root, and sizes gather at the
// roots: new rows add their pixels, run piece by run piece (a run may span words); a carried canonical
// run that is no longer a root hands its size to its root. Other threads may follow a pointer that is
// being shortened: either value leads to the same root.
template <class Ops>
GLINT_HD void flattenAndSizeWord(const StripView& s, int r, int w) {
    if (r == 0) {
        std::uint32_t starts = s.runStarts(0, w);
        while (starts) {
            const int b = lowestBit32(starts);
            starts &= starts - 1;
            const std::uint32_t i = s.nodeIndex(0, w * 32 + b);
            const std::uint32_t root = findRoot<Ops>(s.node, i);
            const std::uint32_t carried = s.node[i + 1];
            s.node[i] = root;
            if (carried && root != i) Ops::atomicAdd(s.node + root + 1, carried);
        }
        return;
    }
    const std::uint32_t starts = s.runStarts(r, w);
    std::uint32_t m = s.word(r, w);
    while (m) {
        const int b = lowestBit32(m);
        const std::uint32_t rest = ~(m >> b);
        const int length = rest ? lowestBit32(rest) : 32;
        m &= length == 32 ? 0u : ~(((1u << length) - 1u) << b);
        const std::uint32_t start = s.nodeIndex(r, s.runStartColumn(r, w * 32 + b));
        const std::uint32_t root = findRoot<Ops>(s.node, start);
        if ((starts >> b) & 1u) s.node[start] = root; // the run starts in this word: this thread owns it
        Ops::atomicAdd(s.node + root + 1, static_cast<std::uint32_t>(length));
    }
}

// Phase 4 (all rows): the largest root of word w, packed as (size << 32) | (r * (width + 1) + c); 0 if none.
GLINT_HD std::uint64_t largestRootInWord(const StripView& s, int r, int w) {
    std::uint64_t best = 0;
    std::uint32_t starts = s.runStarts(r, w);
    while (starts) {
        const int b = lowestBit32(starts);
        starts &= starts - 1;
        const std::uint32_t i = s.nodeIndex(r, w * 32 + b);
        if (s.node[i] != i) continue;
        const std::uint64_t key = (static_cast<std::uint64_t>(s.node[i + 1]) << 32) | i;
        if (key > best) best = key;
    }
    return best;
}

// Carry phases: the last row (r = rows - 1) becomes row 0 of the next strip. tmpRoot has width entries.
// Carry 1: remember each last-row run's root, and give every last-row run start its component's size in
// its own size slot (a root's slot already holds it; a non-root's slot is free).
GLINT_HD void carryRootsWord(const StripView& s, int w, std::uint32_t* tmpRoot) {
    const int r = s.rows - 1;
    std::uint32_t starts = s.runStarts(r, w);
    while (starts) {
        const int b = lowestBit32(starts);
        starts &= starts - 1;
        const int c = w * 32 + b;
        const std::uint32_t i = s.nodeIndex(r, c);
        const std::uint32_t root = s.node[i];
        tmpRoot[c] = root;
        if (root != i) s.node[i + 1] = s.node[root + 1];
    }
}
// Carry 2: clear the root slots, which then collect the smallest last-row column of their component.
GLINT_HD void carryClearWord(const StripView& s, int w, const std::uint32_t* tmpRoot) {
    std::uint32_t starts = s.runStarts(s.rows - 1, w);
    while (starts) {
        const int b = lowestBit32(starts);
        starts &= starts - 1;
        s.node[tmpRoot[w * 32 + b]] = kNoNode;
    }
}
// Carry 3.
template <class Ops>
GLINT_HD void carryMinWord(const StripView& s, int w, const std::uint32_t* tmpRoot) {
    std::uint32_t starts = s.runStarts(s.rows - 1, w);
    while (starts) {
        const int b = lowestBit32(starts);
        starts &= starts - 1;
        const int c = w * 32 + b;
        Ops::atomicMin(s.node + tmpRoot[c], static_cast<std::uint32_t>(c));
    }
}
// Carry 4: tmpRoot[c] becomes the canonical column of c's component.
GLINT_HD void carryCanonicalWord(const StripView& s, int w, std::uint32_t* tmpRoot) {
    std::uint32_t starts = s.runStarts(s.rows - 1, w);
    while (starts) {
        const int b = lowestBit32(starts);
        starts &= starts - 1;
        const int c = w * 32 + b;
        tmpRoot[c] = s.node[tmpRoot[c]];
    }
}
// Carry 5: row 0 of the next strip: the mask word, and the star of each carried component (sizes come
// from the last row's size slots, which carry 2 and 3 did not touch).
GLINT_HD void carryWriteWord(const StripView& s, int w, const std::uint32_t* tmpRoot) {
    const int r = s.rows - 1;
    std::uint32_t starts = s.runStarts(r, w);
    s.mask[w] = s.word(r, w);
    while (starts) {
        const int b = lowestBit32(starts);
        starts &= starts - 1;
        const int c = w * 32 + b;
        const std::uint32_t canonical = tmpRoot[c];
        s.node[c] = canonical;
        s.node[c + 1] = canonical == static_cast<std::uint32_t>(c) ? s.node[s.nodeIndex(r, c) + 1] : 0u;
    }
}

} // namespace glint::common_component
