// The instruction sets the hand-vectorised loops dispatch on, asked of the CPU once. AVX-512 means the
// subsets the kernels use together (F, BW, DQ, VL).
#pragma once

namespace glint {

inline bool cpuHasAvx2() {
    static const bool avx2 = __builtin_cpu_supports("avx2");
    return avx2;
}

inline bool cpuHasAvx512() {
    static const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                               __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
    return avx512;
}

} // namespace glint
