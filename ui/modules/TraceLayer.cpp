#include "ui/modules/TraceLayer.h"

#include <QPainter>

namespace glint::ui {

void TraceLayer::setWeakLegs(int item, QList<QPolygonF> legs) {
    if (legs.isEmpty()) weak_.remove(item);
    else weak_.insert(item, std::move(legs));
    emit changed();
}

void TraceLayer::paint(QPainter& painter, const ViewTransform& view) const {
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, true);
    painter.setBrush(Qt::NoBrush);
    painter.setPen(QPen(QColor(0, 0, 0, 150), 4.0, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
    for (const OverlayShape& s : shapes())
        if (s.kind == OverlayShape::Kind::Polyline) painter.drawPolyline(view.imageToWidget(s.points));
    painter.restore();
    ShapeLayer::paint(painter, view);
    if (weak_.isEmpty() || !isVisible()) return;
    // Weak legs: dark gaps cut into the trace's line make it dashed.
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, true);
    QPen gaps(QColor(0, 0, 0), 3.0, Qt::CustomDashLine, Qt::FlatCap, Qt::RoundJoin);
    gaps.setDashPattern({2.0, 2.0});
    gaps.setDashOffset(2.0);
    painter.setPen(gaps);
    for (auto it = weak_.cbegin(); it != weak_.cend(); ++it)
        for (const QPolygonF& leg : it.value()) painter.drawPolyline(view.imageToWidget(leg));
    painter.restore();
}

} // namespace glint::ui
