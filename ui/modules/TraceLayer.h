// The finished traces of an image: a ShapeLayer of polylines (one item per trace, linked to the results
// rows), drawn over a dark halo so that a thin line stays readable on bright roads and dark water alike.
// Weak legs (low confidence: the trace may have left the feature) are drawn dashed.
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
    void paint(QPainter& painter, const ViewTransform& view) const override;

private:
    QHash<int, QList<QPolygonF>> weak_;
};

} // namespace glint::ui
