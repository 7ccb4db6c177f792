// Drawing tools for regions of interest and exclusions: a rectangle snapped to whole pixels and a
// polygon with real-valued vertices. Each emits its shape in image coordinates when done and stays armed
// for the next one (as DS9's and QuPath's tools do): Esc, or choosing another tool, hands the canvas back
// to the pan tool.
#pragma once

#include "ui/canvas/CanvasTool.h"

#include <QPolygonF>
#include <QRect>

#include <optional>

namespace glint::ui {

// What both tools share: they stay armed after each shape, and Esc drops the shape being drawn (dropShape)
// and the tool, as replacing the tool drops it.
class ShapeTool : public CanvasTool {
    Q_OBJECT
public:
    using CanvasTool::CanvasTool;
    bool keyPress(QKeyEvent* e) override;
    void deactivated() override;

signals:
    void cancelled();

protected:
    // Forgets the shape being drawn.
    virtual void dropShape() = 0;
};

// Press, drag, release: the whole pixels under the dragged box (clipped to the image). Esc drops the
// rectangle being drawn and the tool.
class RectangleTool : public ShapeTool {
    Q_OBJECT
public:
    explicit RectangleTool(QObject* parent = nullptr);
    QString name() const override { return tr("Draw rectangle"); }
    bool mousePress(const CanvasMouseEvent& e) override;
    bool mouseMove(const CanvasMouseEvent& e) override;
    bool mouseRelease(const CanvasMouseEvent& e) override;
    void paint(QPainter& painter, const ViewTransform& view) const override;

    // The pixels covered by a drag from a to b (image points), clipped to imageSize; empty when outside.
    static QRect pixelsBetween(QPointF a, QPointF b, QSize imageSize);

signals:
    void rectangleDrawn(const QRect& pixels);

private:
    void dropShape() override { anchor_.reset(); }

    std::optional<QPointF> anchor_;
    QPointF current_;
    QPointF anchorWidget_;
};

// Click to add vertices; double-click or Enter closes (three vertices at least); Backspace removes the
// last vertex; Esc drops the polygon being drawn and the tool.
class PolygonTool : public ShapeTool {
    Q_OBJECT
public:
    explicit PolygonTool(QObject* parent = nullptr);
    QString name() const override { return tr("Draw polygon"); }
    bool mousePress(const CanvasMouseEvent& e) override;
    bool mouseMove(const CanvasMouseEvent& e) override;
    bool mouseDoubleClick(const CanvasMouseEvent& e) override;
    bool keyPress(QKeyEvent* e) override;
    void paint(QPainter& painter, const ViewTransform& view) const override;
    void deactivated() override;
    const QPolygonF& vertices() const { return vertices_; }

signals:
    void polygonDrawn(const QPolygonF& imagePoints);

private:
    void dropShape() override { vertices_.clear(); }
    void close();

    QPolygonF vertices_;
    QPointF hover_;
    bool hovering_ = false;
};

} // namespace glint::ui
