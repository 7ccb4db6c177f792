// The finished traces of an image: a ShapeLayer of polylines (one item per trace, linked to the results
// rows), drawn over a dark halo so that a thin line stays readable on bright roads and dark water alike.
// Weak legs (low confidence: the trace may have left the feature) are drawn dashed. Each trace's nodes (its
// clicks: the ends and via points, which the Trace tool drags and deletes) are drawn as small rings, and each
// leg's confidence is written at its middle (red when weak).
#pragma once

#include "ui/overlay/ShapeLayer.h"

#include <QHash>
#include <QList>
#include <QPolygonF>

namespace glint::ui {

class TraceLayer : public ShapeLayer {
    Q_OBJECT
public:
    using ShapeLayer::ShapeLayer;
    // The legs of item `item` to draw dashed (image coordinates).
    void setWeakLegs(int item, QList<QPolygonF> legs);
    QList<QPolygonF> weakLegs(int item) const { return weak_.value(item); }
    // A leg's confidence, written at `at` (image coordinates).
    struct LegMark {
        QPointF at;          // the leg's middle vertex
        double confidence = 1.0;
        QPointF direction;   // of the leg there (image coordinates), to set the text off to its side
    };
    void setNodes(int item, QList<QPointF> nodes, QList<LegMark> legs);
    QList<QPointF> nodes(int item) const { return nodes_.value(item); }
    QList<LegMark> legMarks(int item) const { return legs_.value(item); }
    void clearMarks(); // every item's weak legs, nodes and leg marks
    void paint(QPainter& painter, const ViewTransform& view) const override;

    // Below this confidence a leg's mark is red (TraceSettings::kWeakConfidence).
    static constexpr double kWeakConfidence = 0.7;

private:
    void paintMarks(QPainter& painter, const ViewTransform& view) const;
    QHash<int, QList<QPolygonF>> weak_;
    QHash<int, QList<QPointF>> nodes_;
    QHash<int, QList<LegMark>> legs_;
};

} // namespace glint::ui
