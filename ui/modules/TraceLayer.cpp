#include "ui/modules/TraceLayer.h"

#include <QPainter>

namespace glint::ui {

void TraceLayer::paint(QPainter& painter, const ViewTransform& view) const {
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, true);
    painter.setBrush(Qt::NoBrush);
    painter.setPen(QPen(QColor(0, 0, 0, 150), 4.0, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
    for (const OverlayShape& s : shapes())
        if (s.kind == OverlayShape::Kind::Polyline) painter.drawPolyline(view.imageToWidget(s.points));
    painter.restore();
    ShapeLayer::paint(painter, view);
}

} // namespace glint::ui
