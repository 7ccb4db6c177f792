// The overlays of the source catalogue: every source's Kron ellipse (a ShapeLayer of closed polygons, drawn with
// thin cosmetic pens so that thousands of sources stay readable; every ellipse has its "#NUMBER" label, shown for
// the brightest and the selected one) and the segmentation map as a translucent layer, one colour per NUMBER.
#pragma once

#include "ui/overlay/OverlayLayer.h"
#include "ui/overlay/ShapeLayer.h"

#include <QImage>

#include <cstdint>
#include <memory>
#include <vector>

namespace glint::ui {

class SourceEllipseLayer : public ShapeLayer {
    Q_OBJECT
public:
    SourceEllipseLayer(const QString& name, const QColor& colour, QObject* parent = nullptr);
    // Items 0 .. count-1 (the brightest) show their labels; the others only when selected.
    void setLabelledCount(int count);
    int labelledCount() const { return labelledCount_; }
    bool hasLabels() const override { return true; }
    bool undoableRemoval() const override { return true; }
    // Shapes outside the painter's area are skipped; labels (with a dark box) only for labelled shapes and
    // the selected one (which shows its number even when it has no label).
    void paint(QPainter& painter, const ViewTransform& view) const override;
    // The smallest ellipse holding the point (a star inside a galaxy's ellipse is picked, not the galaxy);
    // outside every ellipse, the one whose outline is nearest within the tolerance.
    int hitTest(QPointF imagePoint, double tolerance) const override;

private:
    int labelledCount_ = 0;
};

class SegmentationLayer : public OverlayLayer {
    Q_OBJECT
public:
    SegmentationLayer(const QString& name, QObject* parent = nullptr);

    // labels: width*height, row 0 first; 0 = sky (transparent), n = the source NUMBER n (shared, not copied: the
    // run's own map). Throws std::invalid_argument when the sizes disagree.
    void setSegmentation(int width, int height, std::shared_ptr<const std::vector<std::int32_t>> labels);
    void setOpacity(double opacity); // 0..1, default 0.45
    QSize mapSize() const { return tint_.size(); }
    // The NUMBER at an image pixel (0: sky or outside).
    int numberAt(int x, int y) const;
    // The colour NUMBER n is drawn in (opaque; far apart in hue for neighbouring numbers).
    static QColor colourFor(int number);

    void paint(QPainter& painter, const ViewTransform& view) const override;
    bool undoableRemoval() const override { return true; }

private:
    void rebuild();

    int width_ = 0, height_ = 0;
    std::shared_ptr<const std::vector<std::int32_t>> labels_;
    QImage tint_; // ARGB32 premultiplied
    double opacity_ = 0.45;
};

} // namespace glint::ui
