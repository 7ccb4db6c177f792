// The backend interface of the brightest-region search (disjoint regions): the reference, CPU and CUDA
// backends. The pieces every maximum-subarray backend shares are in core/algo/maxsub/MaxSubarrayBase.h.
#pragma once

#include "core/algo/maxsub/MaxSubarrayBase.h"
#include "core/jobs/JobControl.h"
#include "core/jobs/ProgressSpan.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace glint {

// The greedy disjoint search: each round finds the best rectangle of what is left and excludes its cells;
// a rectangle `accept` refuses (the significance filters) is excluded but not reported. The search stops
// when k are reported, no rectangle with a positive sum is left, or after maxRounds rounds.
struct DisjointRule {
    int k = 1;
    int maxRounds = 0;                            // 0: k (every rectangle is accepted)
    std::function<bool(const WorkRect&)> accept;  // null: every rectangle
    // The search bound (--max-box): > 0, each round finds the best rectangle among those with both sides
    // <= maxBox (the bounded search, rule in core/algo/maxsub/MaxSubarrayBase.h); 0: every rectangle.
    int maxBox = 0;
    int rounds() const { return maxRounds > 0 ? maxRounds : k; }
    // The cap the search uses with filters: 20 K + 1000 rounds.
    static int capFor(int k) { return static_cast<int>(std::min<long long>(20LL * k + 1000, 1LL << 30)); }
};

struct DisjointOutcome {
    std::vector<WorkRect> found; // the reported rectangles, in turn
    int rounds = 0;              // rectangles found (reported and rejected)
    int rejected = 0;
    bool capped = false;         // stopped at maxRounds with fewer than k reported
    // The CPU bounded search's looks that scanned or chose: one a round, fewer with GLINT_BOUNDED_ROUNDS=parallel
    // (core/algo/maxsub/NOTES.md); 0 where not counted.
    int passes = 0;
};

// The shared loop of every backend: `search(round)` gives the best rectangle of what is left (nullopt when
// none has a positive sum), `exclude(rect)` removes its cells.
template <class Search, class Exclude>
DisjointOutcome runDisjointRounds(const DisjointRule& rule, Search&& search, Exclude&& exclude) {
    DisjointOutcome out;
    const int k = rule.k;
    while (static_cast<int>(out.found.size()) < k) {
        if (out.rounds >= rule.rounds()) {
            out.capped = true;
            break;
        }
        const std::optional<WorkRect> rect = search(out);
        if (!rect) break;
        ++out.rounds;
        const bool ok = !rule.accept || rule.accept(*rect);
        if (ok) out.found.push_back(*rect);
        else ++out.rejected;
        if (static_cast<int>(out.found.size()) < k && out.rounds < rule.rounds()) exclude(*rect);
    }
    return out;
}

// Every backend reports the same rectangle: the strip rule of core/algo/maxsub/MaxSubarrayBase.h.
class MaxSubarraySolver {
public:
    virtual ~MaxSubarraySolver() = default;
    // The greedy disjoint search of `rule` (runDisjointRounds). Throws Cancelled.
    virtual DisjointOutcome solveDisjoint(const WorkArray& work, const DisjointRule& rule, JobControl& job,
                                          ProgressSpan span) = 0;
    // The backend's device preprocessing of the local pivot (core/algo/regions/WorkArray.h), when it has one
    // for searches like `params`: the work array is then built where its solveDisjoint reads it. Null (the
    // reference and CPU backends): the host prepares.
    virtual DeviceLocalPivot* deviceLocalPivot(const BrightestParams& params) {
        (void)params;
        return nullptr;
    }
};

// The CPU backend's bounded search (rule.maxBox > 0): strips of at most maxBox rows, a bounded segment
// per strip, each strip's best kept between rounds (stepPrefix names its timing steps: "prefix sums", "search",
// "update", "exclude" after the prefix).
DisjointOutcome solveBoundedDisjointCpu(const WorkArray& work, const DisjointRule& rule, JobControl& job,
                                        ProgressSpan span, const std::string& stepPrefix = {});

std::unique_ptr<MaxSubarraySolver> makeReferenceMaxSubarraySolver();
std::unique_ptr<MaxSubarraySolver> makeCpuMaxSubarraySolver();

} // namespace glint
