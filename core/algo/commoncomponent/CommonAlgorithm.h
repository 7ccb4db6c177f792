// The common-component descriptor's result schema, shared with the window's sessions.
#pragma once

#include "core/algo/commoncomponent/CommonComponent.h"
#include "core/export/JsonOutput.h"

namespace glint {

// {"found","offset":{"dx","dy"}|null,"size","bbox":{"x","y","width","height"}|null,
//  "offsets":{"searched","pruned_by_area","pruned_by_bound","pruned_by_count","labelled","seed_candidates"}}.
// The mask is not part of it (sessions store it beside, compressed).
Json commonResultJson(const CommonComponentResult& result);
// Everything but the mask (maskWidth/maskHeight 0, mask empty).
CommonComponentResult commonResultFromJson(const Json& json); // InputError naming the field

} // namespace glint
