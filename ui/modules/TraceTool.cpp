#include "ui/modules/TraceTool.h"

#include <utility>

#include "ui/modules/TracePanel.h"

#include <QKeyEvent>
#include <QPainter>

namespace glint::ui {

void paintHaloPolyline(QPainter& painter, const QPolygonF& w, const QColor& colour, double width, Qt::PenStyle style) {
    if (w.size() < 2) return;
    QPen halo(QColor(0, 0, 0, 170), width + 2.5, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin);
    painter.setPen(halo);
    painter.drawPolyline(w);
    QPen pen(colour, width, style, Qt::RoundCap, Qt::RoundJoin);
    painter.setPen(pen);
    painter.drawPolyline(w);
}

Qt::PenStyle TraceTool::legStyle(double confidence) {
    return confidence < TraceSettings::kWeakConfidence ? Qt::DashLine : Qt::SolidLine;
}

TraceTool::TraceTool(QObject* parent) : ClickTool(tr("Trace line"), parent) {}

void TraceTool::setPreview(TracePreview preview) {
    preview_ = std::move(preview);
    emit repaintNeeded();
}

bool TraceTool::keyPress(QKeyEvent* e) {
    switch (e->key()) {
    case Qt::Key_Backspace:
    case Qt::Key_Delete:
        if (!tracing_) return deleteNode && deleteNode();
        emit undoRequested();
        return true;
    case Qt::Key_Escape:
    case Qt::Key_Return:
    case Qt::Key_Enter:
        // Nothing in progress: Esc falls through to the canvas, which hands it back to the pan tool.
        return tracing_ && ClickTool::keyPress(e);
    default: return false;
    }
}

bool TraceTool::mousePress(const CanvasMouseEvent& e) {
    if (!tracing_ && e.button == Qt::LeftButton && grabNode && grabNode(e.image)) {
        dragging_ = true;
        dragMoved_ = false;
        pressWidget_ = e.widget;
        pressImage_ = e.image;
        return true;
    }
    return ClickTool::mousePress(e);
}

bool TraceTool::mouseMove(const CanvasMouseEvent& e) {
    if (!dragging_) return ClickTool::mouseMove(e);
    if (!dragMoved_ && QLineF(pressWidget_, e.widget).length() < kDragStartPx) return true;
    dragMoved_ = true;
    emit nodeDragged(e.image);
    return true;
}

bool TraceTool::mouseRelease(const CanvasMouseEvent& e) {
    if (!dragging_ || e.button != Qt::LeftButton) return ClickTool::mouseRelease(e);
    dragging_ = false;
    if (dragMoved_) {
        emit nodeDropped(e.image);
    } else {
        emit nodeDragCancelled();
        emit clicked(pressImage_, Qt::LeftButton, e.modifiers);
    }
    return true;
}

void TraceTool::deactivated() {
    if (std::exchange(dragging_, false)) emit nodeDragCancelled();
    ClickTool::deactivated();
    emit toolDeactivated();
}

void TraceTool::paint(QPainter& painter, const ViewTransform& view) const {
    if (preview_.isEmpty()) return;
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, true);
    painter.setBrush(Qt::NoBrush);
    if (!preview_.guides.isEmpty()) {
        painter.setPen(QPen(QColor(79, 195, 247, 150), 1.0));
        for (const QLineF& g : preview_.guides) painter.drawLine(view.imageToWidget(g.p1()), view.imageToWidget(g.p2()));
    }
    for (const QPolygonF& leg : preview_.pending) paintHaloPolyline(painter, view.imageToWidget(leg), traceColour(), 2.0, Qt::DashLine);
    paintHaloPolyline(painter, view.imageToWidget(preview_.fixed), traceColour(), 2.0);
    for (const QPolygonF& leg : preview_.weak) {
        // Dashed: dark gaps cut into the fixed line's colour.
        QPen gaps(QColor(0, 0, 0), 2.6, Qt::CustomDashLine, Qt::FlatCap, Qt::RoundJoin);
        gaps.setDashPattern({2.0, 2.0});
        gaps.setDashOffset(2.0);
        painter.setPen(gaps);
        painter.drawPolyline(view.imageToWidget(leg));
    }
    paintHaloPolyline(painter, view.imageToWidget(preview_.live), liveColour(), 2.0,
                      preview_.liveWeak ? Qt::DashLine : Qt::SolidLine);
    if (preview_.snap) {
        const QPointF w = view.imageToWidget(*preview_.snap);
        painter.setPen(QPen(QColor(0, 0, 0, 170), 3.0));
        painter.drawRect(QRectF(w - QPointF(3.5, 3.5), QSizeF(7.0, 7.0)));
        painter.setPen(QPen(liveColour(), 1.5));
        painter.drawRect(QRectF(w - QPointF(3.5, 3.5), QSizeF(7.0, 7.0)));
    }
    for (const QPointF& c : preview_.clicks) {
        const QPointF w = view.imageToWidget(c);
        painter.setPen(QPen(QColor(0, 0, 0, 170), 4.0));
        painter.drawEllipse(w, 4.5, 4.5);
        painter.setPen(QPen(QColor(255, 82, 82), 2.0));
        painter.drawEllipse(w, 4.5, 4.5);
    }
    painter.restore();
}

} // namespace glint::ui
