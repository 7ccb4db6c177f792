// The general-purpose overlay: rectangles, polygons, polylines and point markers in image coordinates,
// each with an optional label, drawn in the layer's colour (the selected one highlighted). Results
// (regions, traces), ROIs and exclusion shapes are all ShapeLayers.
#pragma once

#include "ui/overlay/OverlayLayer.h"

#include <QPolygonF>
#include <QRect>
#include <QVector>

namespace glint::ui {

struct OverlayShape {
    enum class Kind { Rectangle, Polygon, Polyline, Point };
    Kind kind = Kind::Point;
    QPolygonF points; // image coordinates; a Rectangle keeps its four corners (pixel edges)
    QString label;

    // Whole pixels x..x+w-1, y..y+h-1 (a rectangle of DESIGN.md), drawn along the pixels' outer edges.
    static OverlayShape pixelRectangle(const QRect& pixels, const QString& label = {});
    static OverlayShape polygon(const QPolygonF& points, const QString& label = {});
    static OverlayShape polyline(const QPolygonF& points, const QString& label = {});
    static OverlayShape point(QPointF at, const QString& label = {});
    QRectF bounds() const;
    // The whole pixels of a Rectangle made by pixelRectangle().
    QRect pixelRect() const;
};

class ShapeLayer : public OverlayLayer {
    Q_OBJECT
public:
    ShapeLayer(const QString& name, const QColor& colour, QObject* parent = nullptr);

    int add(const OverlayShape& shape); // returns the new item's index
    void setShapes(QVector<OverlayShape> shapes);
    void clear();
    const QVector<OverlayShape>& shapes() const { return shapes_; }
    const OverlayShape& shape(int index) const { return shapes_.at(index); }

    // Filled shapes (exclusions) get a translucent fill of the layer colour.
    void setFilled(bool filled);
    bool isFilled() const { return filled_; }
    void setShowLabels(bool show);

    int itemCount() const override { return static_cast<int>(shapes_.size()); }
    QRectF itemBounds(int index) const override;
    int hitTest(QPointF imagePoint, double tolerance) const override;
    void paint(QPainter& painter, const ViewTransform& view) const override;

private:
    QVector<OverlayShape> shapes_;
    bool filled_ = false;
    bool showLabels_ = true;
};

// Distance from a point to a segment, in the points' units.
double distanceToSegment(QPointF p, QPointF a, QPointF b);

} // namespace glint::ui
