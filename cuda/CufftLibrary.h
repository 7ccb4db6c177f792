// cuFFT, opened with dlopen the first time a plan is made (the common component's phase correlation and its FFT
// bound are its only users). Linked into the programs, libcufft and its initialisers cost every process ~14 ms at
// start-up -- a FITS catalogue, a CPU-only run on a machine without a GPU -- for a library few runs use.
#pragma once

#include <cufft.h>

namespace glint::cuda {

// The functions Glint calls, from the toolkit's libcufft.so.<CUFFT_VER_MAJOR> (the one its headers describe).
struct CufftApi {
    decltype(&::cufftPlan2d) plan2d;
    decltype(&::cufftPlanMany) planMany;
    decltype(&::cufftSetStream) setStream;
    decltype(&::cufftDestroy) destroy;
    decltype(&::cufftExecR2C) execR2C;
    decltype(&::cufftExecC2R) execC2R;
    decltype(&::cufftExecD2Z) execD2Z;
    decltype(&::cufftExecZ2D) execZ2D;
};

// The library, opened once per process (thread-safe); nullptr when it cannot be opened or lacks a function (the
// callers then do without cuFFT, as when it cannot plan a size).
const CufftApi* cufftApi();

} // namespace glint::cuda
