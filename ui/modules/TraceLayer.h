// The finished traces of an image: a ShapeLayer of polylines (one item per trace, linked to the results
// rows), drawn over a dark halo so that a thin line stays readable on bright roads and dark water alike.
#pragma once

#include "ui/overlay/ShapeLayer.h"

namespace glint::ui {

class TraceLayer : public ShapeLayer {
    Q_OBJECT
public:
    using ShapeLayer::ShapeLayer;
    void paint(QPainter& painter, const ViewTransform& view) const override;
};

} // namespace glint::ui
