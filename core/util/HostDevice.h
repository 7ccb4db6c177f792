// GLINT_HD: plain inline code that nvcc also compiles for the device (headers shared by a CPU backend and
// its CUDA kernels, so that the CPU tests exercise the GPU's logic).
#pragma once

#ifndef GLINT_HD
#if defined(__CUDACC__)
#define GLINT_HD __host__ __device__ __forceinline__
#else
#define GLINT_HD inline
#endif
#endif
