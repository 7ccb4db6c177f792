// The CUDA bounded search (--max-box P > 0): the brightest backend's disjoint search with both sides of
// every rectangle <= P, on the device, bit for bit the CPU backend's and the reference's answers.
#pragma once

#include "core/algo/maxsub/MaxSubarray.h"

#include <optional>

namespace glint::cuda::maxsub {

// The greedy disjoint search of `rule` (rule.maxBox > 0) on the device; nullopt, before any work, when the
// device lacks the memory (or the shared memory for a bound this large): the caller then runs the host
// search.
std::optional<DisjointOutcome> solveBoundedDisjointCuda(const WorkArray& work, const DisjointRule& rule, JobControl& job,
                                                        ProgressSpan span);

} // namespace glint::cuda::maxsub
