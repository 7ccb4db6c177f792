// The overlay layers of the common-component view: the second image (B) drawn in the canvas beside A
// or over it at the found offset, and the component itself (tint plus outline) placed on either image.
#pragma once

#include "ui/overlay/MaskLayer.h"
#include "ui/overlay/OverlayLayer.h"

#include <QLineF>
#include <QRect>
#include <QVector>

#include <cstdint>
#include <memory>
#include <vector>

namespace glint::ui {

struct DisplayFrame;

// Image B's rendered frame painted in the canvas (A's image coordinates) with B's pixel (0, 0) at
// `placement`, at an opacity, framed by a thin line of the layer colour. B keeps A's orientation: its
// row 0 lies where A's row 0 is, because the offset relates stored rows, whatever either file's y-up flag.
class SecondImageLayer : public OverlayLayer {
    Q_OBJECT
public:
    SecondImageLayer(const QString& name, const QColor& colour, QObject* parent = nullptr);
    // The Layers dock's Remove hides it while the step is on the stack (Edit ▸ Undo brings it back).
    bool undoableRemoval() const override { return true; }

    void setFrame(std::shared_ptr<const DisplayFrame> frame);
    std::shared_ptr<const DisplayFrame> frame() const { return frame_; }
    void setPlacement(QPoint placement);
    QPoint placement() const { return placement_; }
    void setOpacity(double opacity); // 0..1
    double opacity() const { return opacity_; }
    // B's size (from its frame), and the area it covers in the canvas, in image coordinates.
    QSize imageSize() const;
    QRectF area() const;

    void paint(QPainter& painter, const ViewTransform& view) const override;

private:
    std::shared_ptr<const DisplayFrame> frame_;
    QPoint placement_;
    double opacity_ = 1.0;
};

// What both component layers draw, prepared once (on the worker thread, for large components): the
// bounding-box part of the mask and its boundary.
struct ComponentShape {
    QRect bbox;                      // in the mask's frame
    std::vector<std::uint8_t> mask;  // the bbox part, bbox.width() bytes per row, non-zero = in it
    QVector<QLineF> edges;           // the boundary, with the bbox's top-left pixel at (0, 0)

    // mask: width*height bytes (row 0 first); bbox: the component's bounding box there. Throws
    // std::invalid_argument when they disagree.
    static ComponentShape fromMask(int width, int height, const std::vector<std::uint8_t>& mask, const QRect& bbox);
};

// The component on one of the images: the mask's pixels tinted and its boundary (outer edge and holes)
// drawn as pixel-edge lines, thicker when selected. One item (the component), for the results dock.
class ComponentLayer : public MaskLayer {
    Q_OBJECT
public:
    ComponentLayer(const QString& name, const QColor& colour, QObject* parent = nullptr);
    // The Layers dock's Remove hides it while the step is on the stack (Edit ▸ Undo brings it back).
    bool undoableRemoval() const override { return true; }

    // frameOrigin: the canvas pixel where the mask frame's (0, 0) lies.
    void setComponent(std::shared_ptr<const ComponentShape> shape, QPoint frameOrigin);
    // Moves the component (the mask frame's (0, 0) to this canvas pixel).
    void setFrameOrigin(QPoint frameOrigin);
    QPoint frameOrigin() const { return frameOrigin_; }
    // The bounding box in canvas pixels.
    QRect canvasBox() const { return shape_ ? shape_->bbox.translated(frameOrigin_) : QRect(); }
    // Off: only the outline is drawn (the tint of another layer lies on the same pixels).
    void setTintShown(bool shown);
    bool isTintShown() const { return tintShown_; }
    // Boundary segments in canvas image coordinates (pixel edges), collinear edges merged.
    const QVector<QLineF>& outline() const { return outline_; }

    int itemCount() const override { return shape_ ? 1 : 0; }
    QRectF itemBounds(int index) const override;
    int hitTest(QPointF imagePoint, double tolerance) const override;
    void paint(QPainter& painter, const ViewTransform& view) const override;

private:
    void place(); // tint and outline at frameOrigin_

    std::shared_ptr<const ComponentShape> shape_;
    QPoint frameOrigin_;
    bool tintShown_ = true;
    QVector<QLineF> outline_; // the shape's edges placed in the canvas
};

// The boundary of a pixel set as pixel-edge segments (between a set pixel and an unset or outside one),
// horizontal and vertical runs merged; coordinates are pixel centres, so an edge lies at k ± 0.5.
QVector<QLineF> maskBoundary(int width, int height, const std::vector<std::uint8_t>& mask);

} // namespace glint::ui
