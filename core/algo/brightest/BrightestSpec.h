// The brightest search's parameter spec: the one declaration of its options, defaults, ranges, help lines,
// presets and keys, which the command line, batch, --params files, sessions, outputs and the window read.
#pragma once

#include "core/algo/regions/RegionSearch.h"
#include "core/params/ParamSpec.h"

namespace glint {

const ParamSpec<BrightestParams>& brightestSpec();

// The pivot as a parameter: "mean", "median", "pNN", "local" or a number (JSON: the text, or a number).
struct PivotCodec {
    using Value = PivotSpec;
    Json toJson(const Value& p) const;
    Value fromJson(const Json& j, const std::string& what) const;
    Value fromText(const std::string& text, const std::string& what) const;
    void check(const Value& p, const std::string& what) const;
    std::string text(const Value& p) const { return p.text(); }
    void describe(FieldInfo&) const {}
};

} // namespace glint
