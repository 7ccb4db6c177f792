// The Trace tool on the canvas: clicks, hover positions and keys (Backspace, Esc, Enter) for the Trace
// module, and the drawing of the trace in progress (fixed legs, the live leg, clicks, guides).
#pragma once

#include "ui/canvas/CanvasTool.h"

#include <QLineF>
#include <QList>
#include <QPointF>
#include <QPolygonF>

#include <functional>
#include <optional>

namespace glint::ui {

// What the tool draws, in image coordinates. The module rebuilds it whenever a trace arrives.
struct TracePreview {
    QPolygonF fixed;           // the fixed legs, one polyline through every click so far
    QList<QPolygonF> pending;  // legs clicked but not traced yet (drawn dashed)
    QPolygonF live;            // the best trace from the last click to the cursor
    QList<QPointF> clicks;
    QList<QLineF> guides;      // the guides of the current leg, when asked for
    QList<QPolygonF> weak;     // fixed legs whose confidence is low: drawn dashed over the fixed line
    bool liveWeak = false;     // the live leg's confidence is low: drawn dashed
    std::optional<QPointF> snap; // where the cursor snapped to (a small marker)
    bool isEmpty() const { return clicks.isEmpty() && !snap; }
};

class TraceTool : public ClickTool {
    Q_OBJECT
public:
    explicit TraceTool(QObject* parent = nullptr);

    void setPreview(TracePreview preview);
    const TracePreview& preview() const { return preview_; }
    // While a trace is in progress Esc, Enter and Backspace belong to it; otherwise Esc leaves the tool.
    void setTracing(bool tracing) { tracing_ = tracing; }

    bool keyPress(QKeyEvent* e) override;
    bool mousePress(const CanvasMouseEvent& e) override;
    bool mouseMove(const CanvasMouseEvent& e) override;
    bool mouseRelease(const CanvasMouseEvent& e) override;

    // While no trace is in progress (the network's editing, TraceModule): a left press where grabNode says there
    // is a node starts a drag (nodeDragged as it moves, nodeDropped where it is released; a release within
    // kDragStartPx of the press is a click there instead: nodeDragCancelled, then clicked); Delete or Backspace
    // calls deleteNode (true: it deleted one).
    std::function<bool(QPointF)> grabNode;
    std::function<bool()> deleteNode;
    static constexpr double kDragStartPx = 3.0;
    void paint(QPainter& painter, const ViewTransform& view) const override;
    void deactivated() override;

    // Colours, shared with the finished traces' layer.
    static QColor traceColour() { return {255, 235, 59}; }
    static QColor liveColour() { return {0, 229, 255}; }
    // The pen style of a leg of this confidence: dashed when weak (TraceSettings::kWeakConfidence).
    static Qt::PenStyle legStyle(double confidence);

signals:
    void undoRequested();    // Backspace
    void toolDeactivated();  // another tool took the canvas: the trace in progress is dropped
    void nodeDragged(QPointF imagePoint);
    void nodeDropped(QPointF imagePoint);
    void nodeDragCancelled();

private:
    TracePreview preview_;
    bool tracing_ = false;
    bool dragging_ = false;  // a node is held
    bool dragMoved_ = false; // ... and has moved beyond kDragStartPx
    QPointF pressWidget_;
    QPointF pressImage_;
};

// A polyline drawn twice, a wide dark halo under the colour, so that it reads on bright and dark images.
void paintHaloPolyline(QPainter& painter, const QPolygonF& widgetPoints, const QColor& colour, double width,
                       Qt::PenStyle style = Qt::SolidLine);

} // namespace glint::ui
