// The pieces TraceModule's files share (TraceModule.cpp: clicks, the session and its legs; TraceResults.cpp: the
// finished traces and the preview): the session's records and small conversions. Internal to ui/modules.
#pragma once

#include "ui/modules/TraceModule.h"

#include "core/jobs/Timing.h"

#include <QLineF>
#include <QList>
#include <QPolygonF>
#include <QStringList>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

namespace glint::ui {

struct TraceModule::LegOutcome {
    glint::TraceLeg leg;
    glint::Timing timing;
    std::string device;
    glint::Backend backend = glint::Backend::Cpu;
    std::shared_ptr<const glint::TraceField> field; // the field traced on (for snapping)
};

// What the first click resolves (core's resolveTrace, as glint-cli does): --width auto measured at the click as
// given, the field of that width, and the click snapped on it.
struct TraceModule::FirstClick {
    double width = 0.0;
    glint::TracePolarity polarity = glint::TracePolarity::Both; // measured with width auto (resolvedTraceField)
    double saturation = 0.0; // the clicked line's strength with width auto: every later leg's field saturates there
    std::shared_ptr<const glint::TraceField> field;
    glint::TracePoint snapped;
};

// One trace in progress: its clicks and the legs fixed between them. Its settings are frozen once a leg is
// fixed, so that the finished trace (and its timing record) has one set of parameters.
struct TraceModule::Session {
    std::shared_ptr<const glint::Image> image;
    std::shared_ptr<TraceWorker> worker;
    TraceSettings settings;               // resolved at the first click (width auto measured)
    bool resolved = false;                // the first click's resolution is in
    std::vector<glint::TracePoint> given; // the clicks as the user placed them
    std::vector<bool> joined;             // a click that joined an earlier trace at its vertex: never snapped
    std::vector<glint::TracePoint> clicks; // snapped on the session's field (as given while not resolved)
    std::vector<glint::TraceLeg> legs; // legs[i]: clicks[i] -> clicks[i + 1], full parameters
    std::vector<glint::Timing> legTimings;
    std::string device;
    glint::Backend backend = glint::Backend::Cpu;
    std::optional<glint::TraceLeg> live; // the newest live trace (it may start at an earlier click)
    bool finishRequested = false;        // Enter or a double-click while a leg was still being fixed
};

namespace trace_parts {

inline glint::TracePoint tracePoint(QPointF p) { return {p.x(), p.y()}; }
inline QPointF qpoint(glint::TracePoint p) { return {p.x, p.y}; }
inline bool samePoint(glint::TracePoint a, glint::TracePoint b) { return a.x == b.x && a.y == b.y; }

inline QPolygonF polygon(const std::vector<glint::TracePoint>& points) {
    QPolygonF out;
    out.reserve(static_cast<qsizetype>(points.size()));
    for (const glint::TracePoint& p : points) out.append(qpoint(p));
    return out;
}

// Every leg's points, the shared click points once (as TraceResult::polyline does).
inline QPolygonF legsPolyline(const std::vector<glint::TraceLeg>& legs) {
    glint::TraceResult result;
    result.legs = legs;
    return polygon(result.polyline());
}

inline double polylineLength(const QPolygonF& p) {
    double length = 0.0;
    for (qsizetype i = 1; i < p.size(); ++i) length += std::hypot(p[i].x() - p[i - 1].x(), p[i].y() - p[i - 1].y());
    return length;
}

// DESIGN.md's guides of a leg (where its trace was free to go), as the CLI's overlay draws them.
// A widened leg has more guides than the parameters asked for: its own count and half-width are drawn.
inline QList<QLineF> guideLines(const glint::TraceLeg& leg) {
    QList<QLineF> out;
    const int guides = static_cast<int>(leg.guideIndices.size());
    const double dx = leg.to.x - leg.from.x, dy = leg.to.y - leg.from.y;
    const double length = std::hypot(dx, dy);
    if (length <= 0.0) return out;
    const double px = -dy / length * leg.halfWidth, py = dx / length * leg.halfWidth;
    for (int k = 1; k <= guides; ++k) {
        const double f = static_cast<double>(k) / (guides + 1);
        const QPointF c(leg.from.x + f * dx, leg.from.y + f * dy);
        out.append(QLineF(c - QPointF(px, py), c + QPointF(px, py)));
    }
    return out;
}

inline QString clicksText(const std::vector<glint::TracePoint>& clicks) {
    QStringList parts;
    for (const glint::TracePoint& p : clicks) parts << QStringLiteral("%1,%2").arg(p.x, 0, 'f', 1).arg(p.y, 0, 'f', 1);
    return parts.join(QLatin1Char(' '));
}

inline bool weak(const glint::TraceLeg& leg) { return leg.confidence < TraceSettings::kWeakConfidence; }

inline QString confidencesText(const std::vector<glint::TraceLeg>& legs) {
    QStringList parts;
    for (const glint::TraceLeg& leg : legs) parts << QString::number(leg.confidence, 'f', 2);
    return parts.join(QStringLiteral(", "));
}

inline QString weakLegText(const glint::TraceLeg& leg) {
    return TraceModule::tr("weak leg: confidence %1 — the trace may have left the feature").arg(leg.confidence, 0, 'f', 2);
}

} // namespace trace_parts

} // namespace glint::ui
