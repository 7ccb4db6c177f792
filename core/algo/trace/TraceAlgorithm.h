// The line-trace descriptor's result schema, shared with the window's sessions.
#pragma once

#include "core/algo/trace/LineTrace.h"
#include "core/export/JsonOutput.h"

namespace glint {

// {"points":[[x,y]...],"score","segment_scores",
//  "legs":[{"from","to","half_width","points","guide_indices","score","segment_scores","optimum_score",
//           "length","mean_score","iterations","widened","background_score","confidence"}]}
// The reader accepts documents without the later fields (length, mean_score, iterations, widened,
// background_score, confidence: a leg without one reads as confident).
Json traceResultJson(const TraceResult& result);
TraceResult traceResultFromJson(const Json& json); // InputError naming the field
// The trace's parameters as its JSON documents give them.
Json traceParamsJson(const TraceParams& params, const TraceFieldOptions& field);

} // namespace glint
