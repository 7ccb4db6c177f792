#include "ui/canvas/CanvasTool.h"

#include "ui/canvas/ImageCanvas.h"

#include <QKeyEvent>

namespace glint::ui {

void CanvasTool::finish() {
    if (canvas_) canvas_->resetTool();
}

bool PanTool::mousePress(const CanvasMouseEvent& e) {
    if (e.button != Qt::LeftButton) return false;
    pressed_ = true;
    dragging_ = false;
    pressWidget_ = lastWidget_ = e.widget;
    return true;
}

bool PanTool::mouseMove(const CanvasMouseEvent& e) {
    if (!pressed_ || !canvas()) return false;
    if (!dragging_ && (e.widget - pressWidget_).manhattanLength() >= 3.0) {
        dragging_ = true;
        canvas()->updateCursor();
    }
    if (dragging_) canvas()->panBy(e.widget - lastWidget_);
    lastWidget_ = e.widget;
    return true;
}

bool PanTool::mouseRelease(const CanvasMouseEvent& e) {
    if (e.button != Qt::LeftButton || !pressed_) return false;
    pressed_ = false;
    if (!dragging_ && canvas()) canvas()->selectAt(e.image);
    dragging_ = false;
    if (canvas()) canvas()->updateCursor();
    return true;
}

bool PanTool::mouseDoubleClick(const CanvasMouseEvent& e) {
    if (e.button != Qt::LeftButton) return false;
    emit doubleClicked(e.image);
    return true;
}

bool ClickTool::mousePress(const CanvasMouseEvent& e) {
    if (e.button != Qt::LeftButton && e.button != Qt::RightButton) return false;
    emit clicked(e.image, e.button, e.modifiers);
    return true;
}

bool ClickTool::mouseMove(const CanvasMouseEvent& e) {
    emit hovered(e.image);
    return true;
}

bool ClickTool::mouseDoubleClick(const CanvasMouseEvent& e) {
    if (e.button != Qt::LeftButton) return false;
    emit finished();
    return true;
}

bool ClickTool::keyPress(QKeyEvent* e) {
    if (e->key() == Qt::Key_Return || e->key() == Qt::Key_Enter) {
        emit finished();
        return true;
    }
    if (e->key() == Qt::Key_Escape) {
        emit cancelled();
        return true;
    }
    return false;
}

} // namespace glint::ui
