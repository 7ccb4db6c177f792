// The histogram of the image (log counts) with the display limits marked as two handles. Dragging a
// handle emits new limits (the window turns them into manual limits); the stretch curve is drawn faintly
// between them, as DS9's and KStars' histogram tools do. The horizontal axis is the histogram's own
// (linear, log or asinh: glint::HistogramAxis) over its range, which the display dock may narrow to the
// limits; data beyond the range are marked with an arrow at that end.
#pragma once

#include "core/display/Display.h"
#include "core/display/Histogram.h"

#include <QWidget>

namespace glint::ui {

class HistogramWidget : public QWidget {
    Q_OBJECT
public:
    explicit HistogramWidget(QWidget* parent = nullptr);

    void setHistogram(const glint::Histogram& histogram);
    void clear();
    void setLimits(const glint::DisplayLimits& limits, glint::DisplayScale scale);
    const glint::Histogram& histogram() const { return histogram_; }
    glint::DisplayLimits limits() const { return limits_; }

    // Mapping between values and widget x (exposed for tests and for the handles).
    double valueToX(double value) const;
    double xToValue(double x) const;
    QRectF plotRect() const;
    bool isDragging() const { return dragging_ != Handle::None; }

    QSize sizeHint() const override { return {300, 150}; }
    QSize minimumSizeHint() const override { return {160, 60}; }

signals:
    void limitsDragged(double low, double high);  // continuously while dragging
    void limitsDragFinished(double low, double high);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;

private:
    enum class Handle { None, Low, High };
    Handle handleAt(double x) const;

    glint::Histogram histogram_;
    glint::DisplayLimits limits_;
    glint::DisplayScale scale_ = glint::DisplayScale::Linear;
    Handle dragging_ = Handle::None;
};

} // namespace glint::ui
