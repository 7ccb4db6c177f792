// The 1-D reference backend, the oracle of the tests: one heap entry per end index holding the best sum
// ending there (its smallest earlier prefix, by a segment tree); each pop yields the largest sum left
// and splits its range of starts in two. O(n log n + k log n), one thread.
#include "core/algo/kmax/KMax.h"
#include "core/algo/kmax/SegmentHeap.h"

namespace glint {

namespace {

template <class V>
std::vector<KMaxSegment> referenceTopK(const KMaxSequence& seq, std::size_t k, JobControl& job) {
    const std::vector<V> p = kmax::timedCanonicalPrefix1d<V>(seq, job);
    auto step = job.timing().scope("search");
    const std::int64_t n = static_cast<std::int64_t>(seq.size());
    const kmax::RangeMinTree<V> rmq(p.data(), n);
    kmax::SegmentHeap<V, kmax::RangeMinTree<V>> heap(p.data(), rmq);
    std::int64_t lo = 0; // first start allowed: segments may not hold a blank
    for (std::int64_t j = 1; j <= n; ++j) {
        if (seq.isBlank(static_cast<std::size_t>(j - 1))) {
            lo = j;
            continue;
        }
        heap.addEnd(j, lo);
        if ((j & 0xffff) == 0) job.throwIfCancelled();
    }
    return kmax::drainTopK(heap, k, job);
}

} // namespace

std::unique_ptr<KMax1dSolver> makeReferenceKMax1dSolver() {
    return std::make_unique<kmax::HostKMax1dSolver<&referenceTopK<std::int64_t>, &referenceTopK<double>>>();
}

} // namespace glint
