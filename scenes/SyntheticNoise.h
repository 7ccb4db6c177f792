// The noise of the synthetic mammograms: the bundled sample's (make_synthetic_mammogram.cpp) and the scenes
// of test_auto_exclude. cv::RNG gives the same numbers with every standard library, so both stay
// deterministic.
#pragma once

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

namespace glint::synthetic {

// Zero-mean noise of `size` with structure between sigmaFine and sigmaCoarse pixels, normalised to unit
// spread (CV_32F).
inline cv::Mat bandPassNoise(cv::RNG& rng, cv::Size size, double sigmaFine, double sigmaCoarse) {
    cv::Mat white(size, CV_32F);
    rng.fill(white, cv::RNG::NORMAL, 0.0, 1.0);
    cv::Mat fine, coarse;
    cv::GaussianBlur(white, fine, cv::Size(), sigmaFine);
    cv::GaussianBlur(white, coarse, cv::Size(), sigmaCoarse);
    cv::Mat band = fine - coarse;
    cv::Scalar mean, stddev;
    cv::meanStdDev(band, mean, stddev);
    return (band - mean[0]) / stddev[0];
}

// Quantum noise on a CV_32F signal, in place: Gaussian, its spread growing with the square root of the
// signal (2 √signal).
inline void addQuantumNoise(cv::Mat& image, cv::RNG& rng) {
    cv::Mat noise(image.size(), CV_32F);
    rng.fill(noise, cv::RNG::NORMAL, 0.0, 1.0);
    cv::Mat sigma;
    cv::sqrt(cv::max(image, 1.0f), sigma);
    image += noise.mul(sigma) * 2.0;
}

} // namespace glint::synthetic
