#include "ui/canvas/ShapeTools.h"

#include "ui/canvas/ImageCanvas.h"

#include <QKeyEvent>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace glint::ui {

namespace {
QPen rubberPen() {
    QPen pen(QColor(255, 220, 0), 1.5, Qt::DashLine);
    pen.setCosmetic(true);
    return pen;
}
} // namespace

bool ShapeTool::keyPress(QKeyEvent* e) {
    if (e->key() != Qt::Key_Escape) return false;
    dropShape();
    emit repaintNeeded();
    emit cancelled();
    finish();
    return true;
}

void ShapeTool::deactivated() {
    dropShape();
    CanvasTool::deactivated();
}

RectangleTool::RectangleTool(QObject* parent) : ShapeTool(parent) {}

QRect RectangleTool::pixelsBetween(QPointF a, QPointF b, QSize imageSize) {
    const QPoint pa = ViewTransform::pixelAt(a), pb = ViewTransform::pixelAt(b);
    const int x0 = std::max(std::min(pa.x(), pb.x()), 0), x1 = std::min(std::max(pa.x(), pb.x()), imageSize.width() - 1);
    const int y0 = std::max(std::min(pa.y(), pb.y()), 0), y1 = std::min(std::max(pa.y(), pb.y()), imageSize.height() - 1);
    if (x1 < x0 || y1 < y0) return {};
    return {x0, y0, x1 - x0 + 1, y1 - y0 + 1};
}

bool RectangleTool::mousePress(const CanvasMouseEvent& e) {
    if (e.button != Qt::LeftButton) return false;
    anchor_ = e.image;
    anchorWidget_ = e.widget;
    current_ = e.image;
    emit repaintNeeded();
    return true;
}

bool RectangleTool::mouseMove(const CanvasMouseEvent& e) {
    if (!anchor_) return false;
    current_ = e.image;
    emit repaintNeeded();
    return true;
}

bool RectangleTool::mouseRelease(const CanvasMouseEvent& e) {
    if (e.button != Qt::LeftButton || !anchor_ || !canvas()) return false;
    const QPointF anchor = *anchor_;
    anchor_.reset();
    emit repaintNeeded();
    // A click without a drag is not a rectangle.
    if ((e.widget - anchorWidget_).manhattanLength() < 3.0) return true;
    const QRect pixels = pixelsBetween(anchor, e.image, canvas()->view().imageSize());
    if (pixels.isEmpty()) return true;
    emit rectangleDrawn(pixels); // and stay armed for the next one
    return true;
}

void RectangleTool::paint(QPainter& painter, const ViewTransform& view) const {
    if (!anchor_) return;
    const QRect pixels = pixelsBetween(*anchor_, current_, view.imageSize());
    if (pixels.isEmpty()) return;
    painter.save();
    painter.setPen(rubberPen());
    painter.setBrush(QColor(255, 220, 0, 40));
    const QRectF r = view.imageToWidget(ViewTransform::pixelArea(pixels));
    painter.drawRect(r);
    painter.setPen(QColor(255, 220, 0));
    painter.drawText(r.bottomLeft() + QPointF(2, 14),
                     QStringLiteral("%1, %2  %3 × %4").arg(pixels.x()).arg(pixels.y()).arg(pixels.width()).arg(pixels.height()));
    painter.restore();
}

PolygonTool::PolygonTool(QObject* parent) : ShapeTool(parent) {}

bool PolygonTool::mousePress(const CanvasMouseEvent& e) {
    if (e.button != Qt::LeftButton) return false;
    vertices_ << e.image;
    emit repaintNeeded();
    return true;
}

bool PolygonTool::mouseMove(const CanvasMouseEvent& e) {
    hover_ = e.image;
    hovering_ = true;
    if (!vertices_.isEmpty()) emit repaintNeeded();
    return !vertices_.isEmpty();
}

bool PolygonTool::mouseDoubleClick(const CanvasMouseEvent& e) {
    if (e.button != Qt::LeftButton) return false;
    close();
    return true;
}

bool PolygonTool::keyPress(QKeyEvent* e) {
    switch (e->key()) {
    case Qt::Key_Return:
    case Qt::Key_Enter: close(); return true;
    case Qt::Key_Backspace:
        if (!vertices_.isEmpty()) vertices_.removeLast();
        emit repaintNeeded();
        return true;
    default: return ShapeTool::keyPress(e); // Esc
    }
}

void PolygonTool::close() {
    // The double-click's own press added a vertex on top of the last one: drop such repeats.
    QPolygonF clean;
    for (const QPointF& p : vertices_)
        if (clean.isEmpty() || std::hypot(p.x() - clean.last().x(), p.y() - clean.last().y()) > 1e-6) clean << p;
    if (clean.size() >= 2 && std::hypot(clean.first().x() - clean.last().x(), clean.first().y() - clean.last().y()) <= 1e-6)
        clean.removeLast();
    if (clean.size() < 3) return; // keep drawing
    vertices_.clear();
    emit repaintNeeded();
    emit polygonDrawn(clean); // and stay armed for the next one
}

void PolygonTool::paint(QPainter& painter, const ViewTransform& view) const {
    if (vertices_.isEmpty()) return;
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, true);
    painter.setPen(rubberPen());
    QPolygonF w = view.imageToWidget(vertices_);
    if (hovering_) w << view.imageToWidget(hover_);
    painter.drawPolyline(w);
    painter.setBrush(QColor(255, 220, 0));
    for (const QPointF& p : view.imageToWidget(vertices_)) painter.drawEllipse(p, 3.0, 3.0);
    painter.restore();
}

void PolygonTool::deactivated() {
    hovering_ = false;
    ShapeTool::deactivated();
}

} // namespace glint::ui
