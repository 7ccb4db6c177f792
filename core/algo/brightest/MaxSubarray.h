// The backend interface of the brightest-region search (disjoint regions): the reference, CPU and CUDA
// backends. The pieces every maximum-subarray backend shares are in core/algo/maxsub/MaxSubarrayBase.h.
#pragma once

#include "core/algo/maxsub/MaxSubarrayBase.h"
#include "core/jobs/JobControl.h"
#include "core/jobs/ProgressSpan.h"

#include <memory>
#include <vector>

namespace glint {

// Every backend reports the same rectangle: the strip rule of core/algo/maxsub/MaxSubarrayBase.h.
class MaxSubarraySolver {
public:
    virtual ~MaxSubarraySolver() = default;
    // The k best rectangles that share no cell, in turn (each one's cells are excluded for the next);
    // stops early when no rectangle with a positive sum is left. Throws Cancelled.
    virtual std::vector<WorkRect> solveDisjoint(const WorkArray& work, int k, JobControl& job, ProgressSpan span) = 0;
};

std::unique_ptr<MaxSubarraySolver> makeReferenceMaxSubarraySolver();
std::unique_ptr<MaxSubarraySolver> makeCpuMaxSubarraySolver();

} // namespace glint
