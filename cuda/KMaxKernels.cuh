// Device kernels of the CUDA K-MSP engine. The input is a prefix array p[0..L] with, for each end j, the
// first start lo[j] it may pair with and m[j] = min p[lo[j]..j-1]; a pair (i, j), lo[j] <= i < j, is a
// segment of sum p[j] - p[i]. Sums are ranked by their distance d below the largest one (in order-
// preserving key units), and a min-tree of fan-out 32 over p lets one warp per end walk exactly the
// starts whose d is within a bound: counting them into a histogram of d, or collecting them.
// The kernels come in three parts: KMaxDeviceTypes.cuh (the sequence, the min-tree and the search's state),
// KMaxBracketKernels.cuh (the tree's levels, the largest key, the histograms and the choice of each pass's
// bracket) and KMaxWalkKernels.cuh (the warps' walks that count or collect the pairs).
#pragma once

#include "cuda/KMaxBracketKernels.cuh"
#include "cuda/KMaxDeviceTypes.cuh"
#include "cuda/KMaxWalkKernels.cuh"
