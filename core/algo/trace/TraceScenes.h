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
    TracePoint from, to;                           // two clicks on the centre line
};

// A width x height 8-bit image; `lineWidth` is the road/river width (ignored for boundaries). The same
// seed always draws the same scene.
TraceScene makeTraceScene(TraceSceneKind kind, double lineWidth, std::uint32_t seed, int width = 480, int height = 360);

// Mean distance from points spaced `step` pixels along `path` to the nearest of the polylines.
double meanDistanceToPolylines(const std::vector<TracePoint>& path, const std::vector<std::vector<TracePoint>>& truth,
                               double step = 0.5);

} // namespace glint
