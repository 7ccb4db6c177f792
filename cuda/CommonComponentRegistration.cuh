// The common component's registration on the GPU (cuda/CommonComponentRegistration.cu): phase correlation
// with cuFFT, the device twin of common_component::registerByPhaseCorrelation().
#pragma once

#include "core/algo/commoncomponent/CommonComponentCoding.h"
#include "core/io/Image.h"
#include "core/jobs/JobControl.h"

#include <cuda_runtime.h>
#include <cufft.h>

namespace glint::common_component {
struct Registration;
}

namespace glint::cuda::common {

// A cuFFT plan pair kept between runs for the last shape asked for: `batch` forward transforms of one type
// (real to complex) and one inverse of another (complex to real), on one stream. The registration uses
// R2C/C2R, the FFT bound of the search D2Z (a batch)/Z2D.
class CufftPlanPair {
public:
    CufftPlanPair() = default;
    CufftPlanPair(const CufftPlanPair&) = delete;
    CufftPlanPair& operator=(const CufftPlanPair&) = delete;
    ~CufftPlanPair() { reset(); }
    // False when cuFFT cannot plan it (the caller then does without).
    bool ensure(int sizeX, int sizeY, int batch, cufftType forwardType, cufftType inverseType, cudaStream_t stream) {
        if (ready_ && sizeX == sizeX_ && sizeY == sizeY_ && batch == batch_ && forwardType == forwardType_ &&
            inverseType == inverseType_)
            return true;
        reset();
        int n[2] = {sizeY, sizeX};
        if (cufftPlanMany(&forward_, 2, n, nullptr, 1, 0, nullptr, 1, 0, forwardType, batch) != CUFFT_SUCCESS) return false;
        if (cufftPlan2d(&inverse_, sizeY, sizeX, inverseType) != CUFFT_SUCCESS) {
            cufftDestroy(forward_);
            return false;
        }
        if (cufftSetStream(forward_, stream) != CUFFT_SUCCESS || cufftSetStream(inverse_, stream) != CUFFT_SUCCESS) {
            cufftDestroy(forward_);
            cufftDestroy(inverse_);
            return false;
        }
        ready_ = true;
        sizeX_ = sizeX;
        sizeY_ = sizeY;
        batch_ = batch;
        forwardType_ = forwardType;
        inverseType_ = inverseType;
        return true;
    }
    cufftHandle forward() const { return forward_; }
    cufftHandle inverse() const { return inverse_; }

private:
    void reset() {
        if (!ready_) return;
        cufftDestroy(forward_);
        cufftDestroy(inverse_);
        ready_ = false;
    }
    cufftHandle forward_ = 0, inverse_ = 0;
    bool ready_ = false;
    int sizeX_ = 0, sizeY_ = 0, batch_ = 0;
    cufftType forwardType_ = CUFFT_R2C, inverseType_ = CUFFT_C2R;
};

// Fills out as registerByPhaseCorrelation() would (same transform size, window and peak rule; the surface
// is computed in single precision on the device, so near-equal peaks may rank differently). False when
// cuFFT cannot plan the size: then the host registers. Throws Cancelled through job and the toolkit's
// errors (BackendUnavailable when the GPU memory is short).
bool registerOnDevice(const Image& a, const Image& b, const glint::common_component::OffsetRange& range, int peaks,
                      glint::common_component::Registration& out, JobControl& job);

} // namespace glint::cuda::common
