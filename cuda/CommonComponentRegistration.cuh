// The common component's registration on the GPU (cuda/CommonComponentRegistration.cu): phase correlation
// with cuFFT, the device twin of common_component::registerByPhaseCorrelation().
#pragma once

#include "core/algo/commoncomponent/CommonComponentCoding.h"
#include "core/io/Image.h"
#include "core/jobs/JobControl.h"
#include "cuda/CufftLibrary.h"

#include <cuda_runtime.h>

namespace glint::common_component {
struct Registration;
}

namespace glint::cuda::common {

// A cuFFT plan pair kept between runs for the last shape asked for: `batch` forward transforms of one type
// (real to complex) and one inverse of another (complex to real), on one stream. The registration uses
// R2C/C2R, the FFT bound of the search D2Z (a batch)/Z2D. The transforms go through it too: it holds the library
// (cufftApi()) its plans came from.
class CufftPlanPair {
public:
    CufftPlanPair() = default;
    CufftPlanPair(const CufftPlanPair&) = delete;
    CufftPlanPair& operator=(const CufftPlanPair&) = delete;
    ~CufftPlanPair() { reset(); }
    // False when cuFFT cannot be opened or cannot plan it (the caller then does without).
    bool ensure(int sizeX, int sizeY, int batch, cufftType forwardType, cufftType inverseType, cudaStream_t stream) {
        if (ready_ && sizeX == sizeX_ && sizeY == sizeY_ && batch == batch_ && forwardType == forwardType_ &&
            inverseType == inverseType_)
            return true;
        reset();
        api_ = cufftApi();
        if (!api_) return false;
        int n[2] = {sizeY, sizeX};
        if (api_->planMany(&forward_, 2, n, nullptr, 1, 0, nullptr, 1, 0, forwardType, batch) != CUFFT_SUCCESS) return false;
        if (api_->plan2d(&inverse_, sizeY, sizeX, inverseType) != CUFFT_SUCCESS) {
            api_->destroy(forward_);
            return false;
        }
        if (api_->setStream(forward_, stream) != CUFFT_SUCCESS || api_->setStream(inverse_, stream) != CUFFT_SUCCESS) {
            api_->destroy(forward_);
            api_->destroy(inverse_);
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
    // The transforms, after a successful ensure() of their types: true when cuFFT launched them.
    bool forward(float* in, cufftComplex* out) const { return api_->execR2C(forward_, in, out) == CUFFT_SUCCESS; }
    bool forward(double* in, cufftDoubleComplex* out) const { return api_->execD2Z(forward_, in, out) == CUFFT_SUCCESS; }
    bool inverse(cufftComplex* in, float* out) const { return api_->execC2R(inverse_, in, out) == CUFFT_SUCCESS; }
    bool inverse(cufftDoubleComplex* in, double* out) const { return api_->execZ2D(inverse_, in, out) == CUFFT_SUCCESS; }

private:
    void reset() {
        if (!ready_) return;
        api_->destroy(forward_);
        api_->destroy(inverse_);
        ready_ = false;
    }
    const CufftApi* api_ = nullptr;
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
