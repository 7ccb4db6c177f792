// The common component's parameter spec: tolerance, search range and B's normalisation, declared once for the
// command line, batch, --params files, sessions, outputs and the window's form.
#pragma once

#include "core/algo/commoncomponent/CommonComponent.h"
#include "core/params/ParamSpec.h"

namespace glint {

const ParamSpec<CommonComponentParams>& commonSpec();

} // namespace glint
