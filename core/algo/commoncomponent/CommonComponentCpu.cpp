// The cpu backend: exact, on all cores, and far from labelling every offset. Patch seeds give a strong
// first component; then every offset whose overlap area can beat it gets a bound (pixels whose quantised
// codes agree, 64 per popcount); offsets whose bound beats the best get their exact match count, and
// those whose count beats it are labelled, in decreasing bound order, until no bound can beat the best.
#include "core/algo/commoncomponent/CommonComponent.h"
#include "core/algo/commoncomponent/CommonComponentCoding.h"
#include "core/algo/commoncomponent/CommonRegistration.h"
#include "core/algo/commoncomponent/StripLabellerCpu.h"
#include "core/util/Errors.h"
#include "core/util/Parallel.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <mutex>
#include <optional>

namespace glint {

void registerCommonComponentReferenceBackend();

namespace common_component {
namespace {

// Bit planes of the quantised codes, 64 pixels a word: plane p < kCodePlanes is bit p of the bin byte;
// the last plane is the valid bit. Layout [row][word][plane].
template <int NP>
struct Planes {
    static constexpr int kCodePlanes = NP == 4 ? 3 : 6;
    int width = 0, height = 0, words = 0;
    std::vector<std::uint64_t> bits;

    void build(const PixelVector<std::uint8_t>& bins, int w, int h) {
        width = w;
        height = h;
        words = (w + 63) / 64;
        bits.assign(static_cast<std::size_t>(h) * words * NP, 0);
        parallelFor(0, static_cast<std::size_t>(h), 16, [&](std::size_t b, std::size_t e) {
            for (std::size_t y = b; y < e; ++y)
                for (int x = 0; x < w; ++x) {
                    const std::uint8_t v = bins[y * w + x];
                    std::uint64_t* word = &bits[(y * words + x / 64) * NP];
                    const std::uint64_t bit = std::uint64_t{1} << (x % 64);
                    for (int p = 0; p < kCodePlanes; ++p)
                        if (v & (1u << p)) word[p] |= bit;
                    if (v & kBinValid) word[NP == 4 ? 3 : 6] |= bit;
                }
        });
    }
    const std::uint64_t* at(int y, int j) const { return &bits[(static_cast<std::size_t>(y) * words + j) * NP]; }
};

// The bound runs in this many bands of offsets, progress moving after each.
constexpr int kProgressBands = 32;

struct Candidate {
    std::uint32_t bound;
    int dx, dy;
};

class Search {
public:
    Search(const CommonCoding& coding, const CommonComponentParams& params, JobControl& job)
        : c_(coding), job_(job), range_(offsetRange(coding.widthA, coding.heightA, coding.widthB, coding.heightB,
                                                    params.maxShift)),
          candidates_(params.candidates) {}

    CommonComponentResult run() {
        stats_.offsets = range_.count();
        if (c_.codeCount > 0) {
            {
                auto step = job_.timing().scope("seeds");
                seed();
            }
            {
                auto step = job_.timing().scope("fft bound");
                const int bins = fftBoundBins(best_.load(), c_);
                if (bins > 0) fftBound_ = MatchCountBound::build(c_, job_, bins);
            }
            job_.setProgress(0.05);
            if (c_.twoPartitions) searchWith<8>();
            else searchWith<4>();
        } else {
            stats_.prunedByArea = stats_.offsets; // nothing can match: no offset needs a look
        }
        auto step = job_.timing().scope("mask");
        CommonComponentResult result = componentFromSeed(c_, bestDx_, bestDy_, seedX_, seedY_, best_.load());
        result.stats = stats_;
        result.candidateSizes = candidateSizes_;
        return result;
    }

private:
    LabelOutcome labelOffset(int dx, int dy, CpuStripLabeller& labeller) const {
        const Overlap o = overlapOf(c_.widthA, c_.heightA, c_.widthB, c_.heightB, dx, dy);
        const bool exactOnly = c_.spanA.empty();
        LabelOutcome out = labeller.label(o.width, o.height, 0, [&](int y, std::uint32_t* words) {
            if ((y & 255) == 255) job_.throwIfCancelled();
            const std::size_t ia = static_cast<std::size_t>(o.y0 + y) * c_.widthA + o.x0;
            const std::size_t ib = static_cast<std::size_t>(o.y0 + y + dy) * c_.widthB + (o.x0 + dx);
            const std::uint32_t* lo = c_.loA.data() + ia;
            const std::uint32_t* code = c_.codeB.data() + ib;
            const std::uint32_t* span = exactOnly ? nullptr : c_.spanA.data() + ia;
            for (int w = 0; w * 32 < o.width; ++w) {
                const int n = std::min(32, o.width - w * 32);
                std::uint32_t bits = 0;
                if (exactOnly) {
                    for (int b = 0; b < n; ++b) bits |= static_cast<std::uint32_t>(code[w * 32 + b] == lo[w * 32 + b]) << b;
                } else {
                    for (int b = 0; b < n; ++b)
                        bits |= static_cast<std::uint32_t>(code[w * 32 + b] - lo[w * 32 + b] <= span[w * 32 + b]) << b;
                }
                words[w] = bits;
            }
        });
        out.x += o.x0;
        out.y += o.y0;
        return out;
    }

    std::uint64_t countMatches(int dx, int dy) const {
        const Overlap o = overlapOf(c_.widthA, c_.heightA, c_.widthB, c_.heightB, dx, dy);
        std::uint64_t count = 0;
        for (int y = 0; y < o.height; ++y) {
            const std::size_t ia = static_cast<std::size_t>(o.y0 + y) * c_.widthA + o.x0;
            const std::size_t ib = static_cast<std::size_t>(o.y0 + y + dy) * c_.widthB + (o.x0 + dx);
            if (c_.spanA.empty()) {
                for (int x = 0; x < o.width; ++x) count += c_.codeB[ib + x] == c_.loA[ia + x];
            } else {
                for (int x = 0; x < o.width; ++x) count += c_.codeB[ib + x] - c_.loA[ia + x] <= c_.spanA[ia + x];
            }
        }
        return count;
    }

    void offer(const LabelOutcome& out, int dx, int dy) {
        std::lock_guard lock(bestMutex_);
        if (out.size <= best_.load()) return;
        best_.store(out.size);
        bestDx_ = dx;
        bestDy_ = dy;
        seedX_ = out.x;
        seedY_ = out.y;
    }

    bool boundBeatsBest(int dx, int dy) const {
        return !fftBound_ || fftBound_->at(dx, dy) > best_.load(std::memory_order_relaxed);
    }

    // The registration's candidates, then offsets where several textured patches of A reappear in B, are
    // labelled first.
    void seed() {
        CpuStripLabeller labeller;
        std::vector<std::pair<int, int>> tried;
        for (const CommonOffset& d : candidates_) {
            if (!range_.contains(d.dx, d.dy) ||
                std::find(tried.begin(), tried.end(), std::make_pair(d.dx, d.dy)) != tried.end())
                continue;
            tried.push_back({d.dx, d.dy});
            ++stats_.seedCandidates;
            // The first few are labelled whatever their count: their sizes give the runner-up.
            if (tried.size() <= kCommonLabelledCandidates) {
                const LabelOutcome out = labelOffset(d.dx, d.dy, labeller);
                candidateSizes_.push_back({d, out.size});
                offer(out, d.dx, d.dy);
            } else if (countMatches(d.dx, d.dy) > best_.load()) {
                offer(labelOffset(d.dx, d.dy, labeller), d.dx, d.dy);
            }
        }
        // Patches are worth looking up unless a candidate's component already covers most of its overlap.
        if (best_.load() > 0) {
            const Overlap o = overlapOf(c_.widthA, c_.heightA, c_.widthB, c_.heightB, bestDx_, bestDy_);
            if (best_.load() * 2 > o.area()) return;
        }
        const std::vector<SeedPatch> patches = chooseSeedPatches(c_);
        if (patches.empty()) return;
        constexpr int s = kSeedPatchSize;
        std::vector<std::pair<int, int>> hits;
        std::mutex hitsMutex;
        parallelFor(0, static_cast<std::size_t>(c_.heightB - s + 1), 8, [&](std::size_t b, std::size_t e) {
            job_.throwIfCancelled();
            std::vector<std::pair<int, int>> local;
            for (int by = static_cast<int>(b); by < static_cast<int>(e); ++by)
                for (int bx = 0; bx + s <= c_.widthB; ++bx)
                    for (const SeedPatch& p : patches) {
                        bool all = true;
                        for (int y = 0; y < s && all; ++y) {
                            const std::size_t ia = static_cast<std::size_t>(p.y + y) * c_.widthA + p.x;
                            const std::size_t ib = static_cast<std::size_t>(by + y) * c_.widthB + bx;
                            for (int x = 0; x < s && all; ++x)
                                all = codesMatch(c_.loA[ia + x], c_.span(ia + x), c_.codeB[ib + x]);
                        }
                        if (all) local.push_back({bx - p.x, by - p.y});
                    }
            std::lock_guard lock(hitsMutex);
            for (const auto& h : local)
                if (hits.size() < kMaxSeedHits) hits.push_back(h);
        });
        for (const auto& [dx, dy] : rankSeedOffsets(hits, range_)) {
            if (std::find(tried.begin(), tried.end(), std::make_pair(dx, dy)) != tried.end()) continue;
            ++stats_.seedCandidates;
            if (countMatches(dx, dy) > best_.load()) offer(labelOffset(dx, dy, labeller), dx, dy);
        }
    }

    template <int NP>
    void searchWith() {
        Planes<NP> planesA, planesB;
        {
            auto step = job_.timing().scope("bound");
            planesA.build(c_.binA, c_.widthA, c_.heightA);
            planesB.build(c_.binB, c_.widthB, c_.heightB);
        }
        // Groups of dx columns keep the candidate list bounded whatever the image sizes (one group up to
        // 2^24 offsets); within a group the bound runs in bands and progress moves after each, then the
        // group's candidates are labelled in bound order (all of them: the order prunes best), progress
        // moving after each batch. Half of the progress is the bound's, half the labelling's.
        const int group = progressBand(range_, 1);
        const int band = progressBand(range_, kProgressBands);
        const double total = 2.0 * static_cast<double>(range_.dxCount());
        double done = 0;
        auto report = [&](double more) { job_.setProgress(0.05 + 0.95 * std::min(1.0, (done + more) / total)); };
        for (int gLo = range_.dxMin; gLo <= range_.dxMax; gLo += group) {
            const int gHi = std::min(range_.dxMax, gLo + group - 1);
            std::vector<Candidate> candidates;
            for (int dxLo = gLo; dxLo <= gHi; dxLo += band) {
                const int dxHi = std::min(gHi, dxLo + band - 1);
                auto step = job_.timing().scope("bound");
                const std::vector<Candidate> part = boundBand<NP>(planesA, planesB, dxLo, dxHi);
                candidates.insert(candidates.end(), part.begin(), part.end());
                done += dxHi - dxLo + 1;
                report(0);
            }
            std::sort(candidates.begin(), candidates.end(), [](const Candidate& x, const Candidate& y) {
                if (x.bound != y.bound) return x.bound > y.bound;
                return x.dx != y.dx ? x.dx < y.dx : x.dy < y.dy;
            });
            auto step = job_.timing().scope("label");
            const double share = gHi - gLo + 1;
            labelCandidates(candidates, [&](double fraction) { report(fraction * share); });
            done += share;
            report(0);
        }
    }

    template <int NP>
    std::vector<Candidate> boundBand(const Planes<NP>& A, const Planes<NP>& B, int dxLo, int dxHi) {
        std::vector<Candidate> candidates;
        std::mutex candidatesMutex;
        std::atomic<std::uint64_t> prunedArea{0}, prunedBound{0};
        parallelFor(0, static_cast<std::size_t>(dxHi - dxLo + 1), 1, [&](std::size_t b, std::size_t e) {
            std::vector<std::uint64_t> aligned;
            std::vector<Candidate> local;
            std::uint64_t area = 0, bound = 0;
            for (int dx = dxLo + static_cast<int>(b); dx < dxLo + static_cast<int>(e); ++dx) {
                job_.throwIfCancelled();
                const int xa0 = std::max(0, -dx), xa1 = std::min(c_.widthA, c_.widthB - dx);
                const int j0 = xa0 / 64, j1 = (xa1 + 63) / 64, nj = j1 - j0;
                bool alignedReady = false;
                for (int dy = range_.dyMin; dy <= range_.dyMax; ++dy) {
                    const Overlap o = overlapOf(c_.widthA, c_.heightA, c_.widthB, c_.heightB, dx, dy);
                    if (o.area() <= best_.load(std::memory_order_relaxed)) {
                        ++area;
                        continue;
                    }
                    if (!boundBeatsBest(dx, dy)) {
                        ++bound;
                        continue;
                    }
                    job_.throwIfCancelled();
                    if (!alignedReady) {
                        alignB(B, dx, j0, nj, aligned);
                        alignedReady = true;
                    }
                    std::uint64_t agree = 0;
                    for (int ya = o.y0; ya < o.y0 + o.height; ++ya) {
                        const std::uint64_t* a = A.at(ya, j0);
                        const std::uint64_t* bb = &aligned[static_cast<std::size_t>(ya + dy) * nj * NP];
                        for (int j = 0; j < nj; ++j) agree += std::popcount(agreeBits<NP>(a + j * NP, bb + j * NP));
                    }
                    if (agree <= best_.load(std::memory_order_relaxed)) ++bound;
                    else local.push_back({static_cast<std::uint32_t>(agree), dx, dy});
                }
            }
            prunedArea += area;
            prunedBound += bound;
            std::lock_guard lock(candidatesMutex);
            candidates.insert(candidates.end(), local.begin(), local.end());
        });
        stats_.prunedByArea += prunedArea.load();
        stats_.prunedByBound += prunedBound.load();
        return candidates;
    }

    // B's planes shifted so that word j holds the B pixels facing A's word j0 + j at this dx.
    template <int NP>
    static void alignB(const Planes<NP>& B, int dx, int j0, int nj, std::vector<std::uint64_t>& out) {
        out.assign(static_cast<std::size_t>(B.height) * nj * NP, 0);
        auto word = [&](int y, int q, int p) -> std::uint64_t {
            return q >= 0 && q < B.words ? B.at(y, q)[p] : 0;
        };
        for (int y = 0; y < B.height; ++y)
            for (int j = 0; j < nj; ++j) {
                const long long start = 64LL * (j0 + j) + dx; // B column facing bit 0
                const long long q = start >= 0 ? start / 64 : -((-start + 63) / 64);
                const int s = static_cast<int>(start - 64 * q);
                std::uint64_t* o = &out[(static_cast<std::size_t>(y) * nj + j) * NP];
                for (int p = 0; p < NP; ++p) {
                    const std::uint64_t lo = word(y, static_cast<int>(q), p);
                    o[p] = s == 0 ? lo : (lo >> s) | (word(y, static_cast<int>(q) + 1, p) << (64 - s));
                }
            }
    }

    // progress(fraction of the candidates settled) after each batch.
    template <class Progress>
    void labelCandidates(const std::vector<Candidate>& candidates, Progress&& progress) {
        std::atomic<std::uint64_t> prunedBound{0}, prunedCount{0}, labelled{0};
        // Chunks in bound order: later chunks see the best that earlier ones found.
        std::size_t next = 0;
        while (next < candidates.size() && candidates[next].bound > best_.load()) {
            std::size_t end = next;
            std::uint64_t pixels = 0;
            while (end < candidates.size() && pixels < (std::uint64_t{1} << 26)) {
                const Overlap o = overlapOf(c_.widthA, c_.heightA, c_.widthB, c_.heightB, candidates[end].dx,
                                            candidates[end].dy);
                pixels += o.area();
                ++end;
            }
            job_.throwIfCancelled();
            parallelFor(next, end, 1, [&](std::size_t b, std::size_t e) {
                thread_local CpuStripLabeller labeller; // keeps its buffers from one offset to the next
                for (std::size_t i = b; i < e; ++i) {
                    const Candidate& k = candidates[i];
                    if (k.bound <= best_.load()) {
                        ++prunedBound;
                        continue;
                    }
                    if (!c_.boundExact && countMatches(k.dx, k.dy) <= best_.load()) {
                        ++prunedCount;
                        continue;
                    }
                    ++labelled;
                    offer(labelOffset(k.dx, k.dy, labeller), k.dx, k.dy);
                }
            });
            next = end;
            progress(static_cast<double>(next) / static_cast<double>(candidates.size()));
        }
        stats_.prunedByBound += prunedBound.load() + (candidates.size() - next);
        stats_.prunedByCount += prunedCount.load();
        stats_.labelled += labelled.load();
    }

    const CommonCoding& c_;
    JobControl& job_;
    OffsetRange range_;
    std::vector<CommonOffset> candidates_;
    std::optional<MatchCountBound> fftBound_;
    CommonComponentStats stats_;
    std::vector<CommonCandidateSize> candidateSizes_;
    std::mutex bestMutex_;
    std::atomic<std::uint64_t> best_{0};
    int bestDx_ = 0, bestDy_ = 0, seedX_ = 0, seedY_ = 0;
};

class CommonComponentCpu : public CommonComponentAlgorithm {
public:
    CommonComponentResult run(const Image& a, const Image& b, const CommonComponentParams& params,
                              JobControl& job) override {
        beginCommonComponentRun(params, Backend::Cpu, job);
        CommonCoding coding;
        {
            auto step = job.timing().scope("prepare");
            coding = codeImages(a, b, params.tolerance, job);
        }
        return Search(coding, params, job).run();
    }
};

} // namespace
} // namespace common_component

void registerCommonComponentCpuBackends() {
    registerCommonComponentReferenceBackend();
    CommonComponentRegistry::add(Backend::Cpu, [] { return std::make_unique<common_component::CommonComponentCpu>(); });
}

} // namespace glint
