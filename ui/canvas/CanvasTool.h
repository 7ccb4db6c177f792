// Canvas tools: what the left mouse button and the keyboard do on the image. A tool receives events in
// IMAGE coordinates (real-valued, DESIGN.md's frame) and may paint a rubber band; the canvas keeps wheel
// zoom, middle-button and space-drag panning for itself, so every tool can be zoomed and panned under.
#pragma once

#include "ui/canvas/ViewTransform.h"

#include <QCursor>
#include <QObject>
#include <QPointF>

class QKeyEvent;
class QPainter;

namespace glint::ui {

class ImageCanvas;

struct CanvasMouseEvent {
    QPointF image;                  // image coordinates
    QPointF widget;                 // canvas widget coordinates
    Qt::MouseButton button = Qt::NoButton; // the button that changed (press/release/double-click)
    Qt::MouseButtons buttons;       // buttons held
    Qt::KeyboardModifiers modifiers;
};

class CanvasTool : public QObject {
    Q_OBJECT
public:
    explicit CanvasTool(QObject* parent = nullptr) : QObject(parent) {}

    virtual QString name() const = 0;
    virtual QCursor cursor() const { return Qt::CrossCursor; }

    // Return true when the event was used. Unused left-button drags are not turned into pans.
    virtual bool mousePress(const CanvasMouseEvent&) { return false; }
    virtual bool mouseMove(const CanvasMouseEvent&) { return false; }
    virtual bool mouseRelease(const CanvasMouseEvent&) { return false; }
    virtual bool mouseDoubleClick(const CanvasMouseEvent&) { return false; }
    virtual bool keyPress(QKeyEvent*) { return false; }
    // Rubber bands and previews, drawn above every overlay layer.
    virtual void paint(QPainter&, const ViewTransform&) const {}

    // Called by the canvas when the tool becomes active / is replaced (drop half-drawn shapes there).
    virtual void activated(ImageCanvas* canvas) { canvas_ = canvas; }
    virtual void deactivated() { canvas_ = nullptr; }
    ImageCanvas* canvas() const { return canvas_; }

signals:
    void repaintNeeded();

protected:
    // Hands the canvas back to the default tool (for one-shot tools, after their shape is done).
    void finish();

private:
    ImageCanvas* canvas_ = nullptr;
};

// The default tool: left-drag pans; a click without a drag selects the overlay item under the cursor.
class PanTool : public CanvasTool {
    Q_OBJECT
public:
    using CanvasTool::CanvasTool;
    QString name() const override { return tr("Pan and select"); }
    QCursor cursor() const override { return dragging_ ? Qt::ClosedHandCursor : Qt::ArrowCursor; }
    bool mousePress(const CanvasMouseEvent& e) override;
    bool mouseMove(const CanvasMouseEvent& e) override;
    bool mouseRelease(const CanvasMouseEvent& e) override;
    bool mouseDoubleClick(const CanvasMouseEvent& e) override;

signals:
    // A double-click on the image (with the item selected under it, if any).
    void doubleClicked(QPointF imagePoint);

private:
    bool pressed_ = false;
    bool dragging_ = false;
    QPointF pressWidget_;
    QPointF lastWidget_;
};

// A click-and-move tool for point-driven work (line tracing): reports clicks and hover positions and
// leaves the rest to whoever listens. Enter or a double-click ends, Esc cancels.
class ClickTool : public CanvasTool {
    Q_OBJECT
public:
    explicit ClickTool(const QString& name, QObject* parent = nullptr) : CanvasTool(parent), name_(name) {}
    QString name() const override { return name_; }
    bool mousePress(const CanvasMouseEvent& e) override;
    bool mouseMove(const CanvasMouseEvent& e) override;
    bool mouseDoubleClick(const CanvasMouseEvent& e) override;
    bool keyPress(QKeyEvent* e) override;

signals:
    void clicked(QPointF imagePoint, Qt::MouseButton button, Qt::KeyboardModifiers modifiers);
    void hovered(QPointF imagePoint);
    void finished();
    void cancelled();

private:
    QString name_;
};

} // namespace glint::ui
