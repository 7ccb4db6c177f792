#include "ui/modules/TraceLayer.h"

#include <QFontMetricsF>
#include <QPainter>

#include <cmath>

namespace glint::ui {

void TraceLayer::setWeakLegs(int item, QList<QPolygonF> legs) {
    if (legs.isEmpty()) weak_.remove(item);
    else weak_.insert(item, std::move(legs));
    emit changed();
}

// Drawn beside the line, never over it: a node is a ring around the line's end (its radius clears the 4-px
// halo), a leg's confidence is text set off the leg to its left.
void TraceLayer::paintMarks(QPainter& painter, const ViewTransform& view) const {
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, true);
    painter.setBrush(Qt::NoBrush);
    painter.setPen(QPen(QColor(255, 255, 255, 220), 1.2));
    for (const QList<QPointF>& nodes : nodes_)
        for (const QPointF& n : nodes) painter.drawEllipse(view.imageToWidget(n), 6.0, 6.0);
    QFont font = painter.font();
    font.setPointSizeF(8.0);
    painter.setFont(font);
    const QFontMetricsF metrics(font);
    for (const QList<LegMark>& legs : legs_)
        for (const LegMark& m : legs) {
            const QString text = QString::number(m.confidence, 'f', 2);
            const QPointF w = view.imageToWidget(m.at);
            QPointF normal(-m.direction.y(), m.direction.x());
            const double length = std::hypot(normal.x(), normal.y());
            normal = length > 0.0 ? normal / length : QPointF(0.0, -1.0);
            // The text's centre 12 px off the line, its box then clear of it whatever the leg's direction.
            const QRectF box = metrics.boundingRect(text);
            const QPointF centre = w + 12.0 * normal + QPointF(0.0, 0.0);
            const QPointF origin = centre - QPointF(box.width() / 2.0, -metrics.ascent() / 2.0 + metrics.descent() / 2.0);
            painter.setPen(m.confidence < kWeakConfidence ? QColor(255, 82, 82) : QColor(255, 255, 255));
            painter.drawText(origin, text);
        }
    painter.restore();
}

void TraceLayer::setNodes(int item, QList<QPointF> nodes, QList<LegMark> legs) {
    nodes_.insert(item, std::move(nodes));
    legs_.insert(item, std::move(legs));
    emit changed();
}

void TraceLayer::clearMarks() {
    weak_.clear();
    nodes_.clear();
    legs_.clear();
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
    if (!isVisible()) return;
    paintMarks(painter, view);
    if (weak_.isEmpty()) return;
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
