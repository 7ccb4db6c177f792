// Summary statistics over the non-blank pixels of an image (info, pivots, display limits). NaN and ±inf
// samples count as blank here: every function below leaves them out alike.
#pragma once

#include "core/io/Image.h"

#include <cstddef>
#include <vector>

namespace glint {

struct ImageStats {
    std::size_t count = 0; // non-blank, finite pixels
    double min = 0.0;
    double max = 0.0;
    double mean = 0.0;     // computed in long double, exact to double rounding
    double median = 0.0;   // the mean of the two middle values for even counts
};

ImageStats computeStats(const Image& image);

// The p-th percentile (0..100) of the non-blank values, linear interpolation between order statistics
// (NumPy's default). Throws UsageError when p is outside [0, 100]; returns 0 for an all-blank image.
double percentile(const Image& image, double p);
// The same, over a prepared list of values (which it reorders).
double percentileOf(std::vector<double>& values, double p);

// The non-blank, finite values in storage order.
std::vector<double> nonBlankValues(const Image& image);

} // namespace glint
