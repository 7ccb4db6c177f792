// The brightest-regions descriptor's result schema, shared with the window's sessions: the one JSON form
// of a BrightestResult and its strict reader.
#pragma once

#include "core/algo/brightest/Brightest.h"
#include "core/export/JsonOutput.h"

namespace glint {

// {"image":{"width","height"},"backend","device","pivot","pivot_spec","mode","exact_integer",
//  "included_pixels","regions":[{"rank","x","y","width","height","sum","mean","pixels"}]}; sum is an exact
// integer when exact_integer.
Json brightestResultJson(const BrightestResult& result);
BrightestResult brightestResultFromJson(const Json& json); // InputError naming the field
// The header line of a region file: "brightest, pivot 120 (mean), mode disjoint, k 3".
std::string brightestDescription(const BrightestResult& result, int k);

} // namespace glint
