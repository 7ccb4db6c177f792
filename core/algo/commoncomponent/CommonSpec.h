// The common component's parameter spec: tolerance, search range and B's normalisation, declared once for the
// command line, batch, --params files, sessions, outputs and the window's form.
#pragma once

#include "core/algo/commoncomponent/CommonComponent.h"
#include "core/params/ParamSpec.h"

namespace glint {

const ParamSpec<CommonComponentParams>& commonSpec();

// A run from a request (the keys a user gave: the command line, batch, the window): the spec's preset for A's kind
// under the keys given, the max shift checked against the images (UsageError naming --max-shift), then
// findCommonComponent. `parameters` is what an output records, replayable with --params.
struct CommonRun {
    CommonComponentResult result;
    CommonComponentParams params;
    Json parameters;
};
CommonRun runCommonRequest(const Image& a, const Image& b, const Json& request, Backend backend, JobControl& job);

} // namespace glint
