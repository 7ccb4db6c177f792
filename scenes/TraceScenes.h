// Synthetic images with known geometry for the trace's accuracy tests and bench: bright roads and dark
// rivers of a given width along a curve, and a curved boundary between two textures, with noise and clutter.
#pragma once

#include "core/algo/trace/LineTrace.h"
#include "core/io/Image.h"

#include <cstdint>
#include <string>
#include <vector>

namespace glint {

enum class TraceSceneKind { BrightRoad, DarkRiver, TexturedBoundary };

struct TraceScene {
    std::string name;
    Image image;                                   // 8-bit
    std::vector<TracePoint> centre;                // dense polyline: the road's centre line, or the boundary
    std::vector<std::vector<TracePoint>> edges;    // dense polylines of every true edge
    TracePoint from, to;                           // two clicks (on the centre line, or jittered off it)
    TracePoint trueFrom, trueTo;                   // the clicks before any jitter, on the centre line
};

// A width x height 8-bit image; `lineWidth` is the road/river width (ignored for boundaries). The same
// seed always draws the same scene.
TraceScene makeTraceScene(TraceSceneKind kind, double lineWidth, std::uint32_t seed, int width = 480, int height = 360);

// Mean distance from points spaced `step` pixels along `path` to the nearest of the polylines.
double meanDistanceToPolylines(const std::vector<TracePoint>& path, const std::vector<std::vector<TracePoint>>& truth,
                               double step = 0.5);

// ---- the evaluation scenes (issue 15): hard cases with one known centre line to follow -----------------
//   parallel roads:  the target and a parallel road 10-40 px away (centre to centre, at least width + 4) of
//                    0.8-1 times its contrast (no stronger per pixel: else it would be the better road);
//   street grid:     a slightly rotated grid of equal streets, 45-70 px apart; the clicks on one street;
//   meander:         an arch whose amplitude (0.28-0.4 |ab|) exceeds the default half-width |ab| / 4 (straight
//                    beyond the clicks);
//   faint track:     a faint line (contrast 22) in texture, a strong edge (contrast 90) 8-15 px beside it;
//   river inlets:    a river with 4-6 tapering side inlets 30-80 px long leaving at 30-70 degrees.
// Every scene draws its lines bright or dark with the given width, on shaded, noisy 8-bit backgrounds.
enum class TraceEvalKind { ParallelRoads, StreetGrid, Meander, FaintTrack, RiverInlets };
constexpr TraceEvalKind kTraceEvalKinds[] = {TraceEvalKind::ParallelRoads, TraceEvalKind::StreetGrid,
                                             TraceEvalKind::Meander, TraceEvalKind::FaintTrack,
                                             TraceEvalKind::RiverInlets};
const char* traceEvalKindName(TraceEvalKind kind);

struct TraceEvalCase {
    TraceEvalKind kind = TraceEvalKind::ParallelRoads;
    double lineWidth = 5.0; // 2-16 px
    bool bright = true;
    std::uint32_t seed = 1; // draws the scene and the click jitter
    double jitter = 3.0;    // each click moves by up to this many pixels in x and in y
};
std::string traceEvalCaseName(const TraceEvalCase& c);

// The case's scene (480 x 360): `centre` is the target's centre line, `edges` its two edges, `from`/`to`
// the jittered clicks, `trueFrom`/`trueTo` the clicks on the centre line.
TraceScene makeEvaluationScene(const TraceEvalCase& c);

// Distance of a path to a centre line: the path sampled every `step` pixels (both ends included), each
// sample's distance to the nearest point of the polyline; mean and max over the samples.
struct TraceDistance {
    double mean = 0.0;
    double max = 0.0;
};
TraceDistance distanceToPolyline(const std::vector<TracePoint>& path, const std::vector<TracePoint>& truth,
                                 double step = 0.25);

// One evaluation run: the case's scene, its field (ridge, the case's polarity and true width), the trace
// between the jittered clicks on `backend` with `params`, and the distance of the result to the centre line.
struct TraceEvalOutcome {
    TraceDistance distance;
    double traceMs = 0.0;   // the trace alone (the field is computed once per image, as in the window)
    TraceLeg leg;
};
TraceEvalOutcome evaluateTraceCase(const TraceEvalCase& c, const TraceParams& params, Backend backend);

} // namespace glint
