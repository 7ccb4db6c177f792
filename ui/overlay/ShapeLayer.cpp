#include "ui/overlay/ShapeLayer.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>
#include <limits>

namespace glint::ui {

OverlayShape OverlayShape::pixelRectangle(const QRect& pixels, const QString& label) {
    const QRectF r = ViewTransform::pixelArea(pixels);
    return {Kind::Rectangle, QPolygonF{r.topLeft(), r.topRight(), r.bottomRight(), r.bottomLeft()}, label};
}

OverlayShape OverlayShape::polygon(const QPolygonF& points, const QString& label) {
    return {Kind::Polygon, points, label};
}

OverlayShape OverlayShape::polyline(const QPolygonF& points, const QString& label) {
    return {Kind::Polyline, points, label};
}

OverlayShape OverlayShape::point(QPointF at, const QString& label) { return {Kind::Point, QPolygonF{at}, label}; }

QRectF OverlayShape::bounds() const { return points.boundingRect(); }

QRect OverlayShape::pixelRect() const {
    const QRectF b = bounds();
    return {static_cast<int>(std::lround(b.x() + 0.5)), static_cast<int>(std::lround(b.y() + 0.5)),
            static_cast<int>(std::lround(b.width())), static_cast<int>(std::lround(b.height()))};
}

double distanceToSegment(QPointF p, QPointF a, QPointF b) {
    const QPointF ab = b - a;
    const double len2 = QPointF::dotProduct(ab, ab);
    const double t = len2 > 0 ? std::clamp(QPointF::dotProduct(p - a, ab) / len2, 0.0, 1.0) : 0.0;
    const QPointF d = p - (a + t * ab);
    return std::hypot(d.x(), d.y());
}

ShapeLayer::ShapeLayer(const QString& name, const QColor& colour, QObject* parent) : OverlayLayer(name, colour, parent) {}

int ShapeLayer::add(const OverlayShape& shape) {
    shapes_.append(shape);
    itemsChanged();
    return static_cast<int>(shapes_.size()) - 1;
}

void ShapeLayer::setShapes(QVector<OverlayShape> shapes) {
    shapes_ = std::move(shapes);
    itemsChanged();
}

void ShapeLayer::clear() {
    shapes_.clear();
    itemsChanged();
}

void ShapeLayer::setFilled(bool filled) {
    filled_ = filled;
    emit changed();
}

void ShapeLayer::setShowLabels(bool show) {
    showLabels_ = show;
    emit changed();
}

QRectF ShapeLayer::itemBounds(int index) const {
    return index >= 0 && index < shapes_.size() ? shapes_[index].bounds() : QRectF();
}

int ShapeLayer::hitTest(QPointF p, double tolerance) const {
    // Topmost = drawn last. Edges within tolerance win; then the smallest closed shape containing the point,
    // so that a region nested in a bigger one can still be picked.
    int best = -1;
    double bestArea = std::numeric_limits<double>::infinity();
    for (int i = static_cast<int>(shapes_.size()) - 1; i >= 0; --i) {
        const OverlayShape& s = shapes_[i];
        const QPolygonF& pts = s.points;
        if (s.kind == OverlayShape::Kind::Point) {
            if (!pts.isEmpty() && std::hypot(p.x() - pts[0].x(), p.y() - pts[0].y()) <= tolerance + 2.0) return i;
            continue;
        }
        const bool closed = s.kind != OverlayShape::Kind::Polyline;
        const int segments = closed ? static_cast<int>(pts.size()) : static_cast<int>(pts.size()) - 1;
        for (int k = 0; k < segments; ++k)
            if (distanceToSegment(p, pts[k], pts[(k + 1) % pts.size()]) <= tolerance) return i;
        if (closed && pts.containsPoint(p, Qt::OddEvenFill)) {
            const QRectF b = pts.boundingRect();
            if (b.width() * b.height() < bestArea) {
                bestArea = b.width() * b.height();
                best = i;
            }
        }
    }
    return best;
}

void ShapeLayer::paint(QPainter& painter, const ViewTransform& view) const {
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, true);
    const QColor colour = this->colour();
    QColor fill = colour;
    fill.setAlpha(60);
    const QFontMetricsF metrics(painter.font());
    for (int i = 0; i < shapes_.size(); ++i) {
        const OverlayShape& s = shapes_[i];
        if (s.points.isEmpty()) continue;
        const bool isSelected = i == selected();
        const QPolygonF w = view.imageToWidget(s.points);
        if (isSelected) { // a dark halo keeps the highlight visible on bright and dark images alike
            painter.setPen(QPen(QColor(0, 0, 0, 160), 5.0));
            painter.setBrush(Qt::NoBrush);
            if (s.kind == OverlayShape::Kind::Polyline) painter.drawPolyline(w);
            else if (s.kind == OverlayShape::Kind::Point) painter.drawEllipse(w[0], 6.0, 6.0);
            else painter.drawPolygon(w);
        }
        painter.setPen(QPen(isSelected ? colour.lighter(150) : colour, isSelected ? 2.5 : 1.5));
        painter.setBrush(filled_ && s.kind != OverlayShape::Kind::Polyline ? QBrush(fill) : Qt::NoBrush);
        switch (s.kind) {
        case OverlayShape::Kind::Point:
            painter.drawLine(w[0] + QPointF(-6, 0), w[0] + QPointF(6, 0));
            painter.drawLine(w[0] + QPointF(0, -6), w[0] + QPointF(0, 6));
            break;
        case OverlayShape::Kind::Polyline: painter.drawPolyline(w); break;
        default: painter.drawPolygon(w); break;
        }
        if (showLabels_ && !s.label.isEmpty()) {
            const QRectF b = w.boundingRect();
            const QPointF at(b.left(), b.top() - 3.0);
            const QRectF box(at - QPointF(0, metrics.ascent()), QSizeF(metrics.horizontalAdvance(s.label) + 4, metrics.height()));
            painter.setPen(Qt::NoPen);
            painter.setBrush(QColor(0, 0, 0, 150));
            painter.drawRect(box.translated(-2, 0));
            painter.setPen(isSelected ? colour.lighter(150) : colour);
            painter.drawText(at, s.label);
        }
    }
    painter.restore();
}

} // namespace glint::ui
