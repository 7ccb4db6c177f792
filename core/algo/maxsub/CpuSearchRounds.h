// What the CPU strip searches share (MaxSubarrayCpu.cpp, BoundedSearchCpu.cpp): the greedy rounds and their
// progress, and the memory budget of the bests kept between rounds. Internal to core/algo/maxsub.
#pragma once

#include "core/algo/maxsub/MaxSubarray.h"
#include "core/jobs/JobControl.h"
#include "core/jobs/ProgressSpan.h"

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <mutex>

namespace glint::maxsub {

// The job's progress within a span, never moving back (the tiles report from every thread).
class MonotoneProgress {
public:
    MonotoneProgress(JobControl& job, ProgressSpan span) : job_(job), span_(span) {}
    void set(double fraction) {
        std::lock_guard lock(mutex_);
        fraction = std::min(fraction, 1.0);
        if (!(fraction > last_)) return;
        last_ = fraction;
        span_.set(job_, fraction);
    }

private:
    JobControl& job_;
    ProgressSpan span_;
    std::mutex mutex_;
    double last_ = -1.0;
};

// How far the greedy loop is after `rounds` rounds with `found` reported: it ends at k reported or at the
// round cap, whichever comes first.
inline double roundsFraction(const DisjointRule& rule, std::size_t found, int rounds) {
    return std::max(static_cast<double>(found) / rule.k, static_cast<double>(rounds) / rule.rounds());
}

// The greedy rounds (runDisjointRounds) of a CPU search, which then reports the whole span done.
template <class Search, class Exclude>
DisjointOutcome runCpuRounds(const DisjointRule& rule, Search& search, Exclude& exclude, JobControl& job, ProgressSpan span) {
    DisjointOutcome out = runDisjointRounds(rule, search, exclude);
    span.set(job, 1.0);
    return out;
}

// The bytes the bests kept between rounds may take; beyond this budget (1 GiB; GLINT_MSP_CACHE_MB=N sets N MiB,
// 0 turns the cache off, for measurements and the tests' comparisons) every round is a full search.
inline std::size_t cachedBudget() {
    if (const char* env = std::getenv("GLINT_MSP_CACHE_MB")) {
        char* end = nullptr;
        const unsigned long long mb = std::strtoull(env, &end, 10);
        if (end != env && *end == '\0') return static_cast<std::size_t>(std::min<unsigned long long>(mb, 1ULL << 40)) << 20;
    }
    return std::size_t{1} << 30;
}

} // namespace glint::maxsub
