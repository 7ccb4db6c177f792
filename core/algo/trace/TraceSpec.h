// The trace's parameter spec: the clicks, the DP's parameters (guides, points per guide, half-width, angle,
// objective, widenings), the field's (score, line width, polarity, sine threshold) and snapping, declared once for
// the command line, batch, --params files, sessions, outputs and the window's form.
#pragma once

#include "core/algo/trace/LineTrace.h"
#include "core/params/ParamSpec.h"

#include <optional>
#include <vector>

namespace glint {

class Image;
class JobControl;

// Everything a trace is asked with.
struct TraceRequest {
    std::optional<TracePoint> from;
    std::optional<TracePoint> to;
    std::vector<TracePoint> via;
    TraceParams params;
    TraceFieldOptions field;
    bool autoWidth = false; // --width auto (ridge): resolveTrace measures it
    double snap = 0.0;      // each click moves to the strongest field pixel within this many pixels (0: none)

    // from, via..., to (the clicks given; empty ends are left out).
    std::vector<TracePoint> clicks() const;
};

const ParamSpec<TraceRequest>& traceSpec();

// A request resolved for an image: --width auto (ridge score) measured at the first click as given (and the polarity
// when it is both, and the ridge field's saturation at the clicked line's strength: resolvedTraceField)
// (estimateTraceLineWidth at that point), the field computed with the resolved width (step "field"), and each click
// moved to the strongest field pixel within the snap radius (step "snap"). The window resolves the same way when
// the first click lands, so that its live preview, its fixed legs and `glint-cli trace` use one field.
struct ResolvedTrace {
    TraceRequest request;                    // autoWidth off: field.lineWidth is the width used
    std::vector<TracePoint> clicks;          // snapped (as given when snap is 0)
    std::shared_ptr<const TraceField> field; // of request.field
};
// UsageError for invalid parameters or clicks (fewer than two, outside the image, two consecutive equal ones).
ResolvedTrace resolveTrace(const Image& image, const TraceRequest& request, JobControl& job);
// The field options auto decides for a trace that starts at `first`: with --width auto and the ridge score, the
// polarity measured at `first` when it is "both" (estimateTraceLinePolarity), then the width for that polarity,
// then the saturation: the field scores no pixel above the clicked line's strength there (kTraceSaturationFactor
// x measureTraceLineStrength within kTraceSaturationRadius px). Like the width, it assumes the first click lies
// on the line (a click far beside it saturates the field at the background's level). A width given by hand
// gets no saturation (and a run replayed from its written parameters, which hold the resolved width, none).
// The window and resolveTrace both resolve through this, so the live preview and the committed trace share a field.
TraceFieldOptions resolvedTraceField(const Image& image, const TraceRequest& request, TracePoint first);

} // namespace glint
