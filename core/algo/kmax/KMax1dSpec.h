// glint-cli kmax1d's parameter spec: K, and the random sequence (length and seed) when no file is given.
#pragma once

#include "core/params/ParamSpec.h"

#include <optional>

namespace glint {

struct KMax1dRequest {
    long long k = 1;
    std::optional<long long> random; // a random sequence of this length instead of a file's values
    long long seed = 1;
};

const ParamSpec<KMax1dRequest>& kmax1dSpec();

} // namespace glint
