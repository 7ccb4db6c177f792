// The zoomable image view: paints the rendered display frame (only the visible part, from a mipmap when
// zoomed out, never re-rendering on pan or zoom), then the overlay layers, then the active tool's rubber
// band. Wheel zooms around the cursor; middle button or space + drag pans; F fits, 1 shows 1:1.
#pragma once

#include "ui/canvas/ViewTransform.h"

#include <QPointer>
#include <QWidget>

#include <memory>
#include <optional>

namespace glint::ui {

class CanvasTool;
class LayerStack;
class PanTool;
struct DisplayFrame;

class ImageCanvas : public QWidget {
    Q_OBJECT
public:
    explicit ImageCanvas(QWidget* parent = nullptr);
    ~ImageCanvas() override;

    // The geometry of the image shown (size, y-up); fits it into the window.
    void setImageGeometry(QSize imageSize, bool yUp);
    // The rendered pixels to paint (may arrive after setImageGeometry; the old frame is kept until then).
    void setFrame(std::shared_ptr<const DisplayFrame> frame);
    std::shared_ptr<const DisplayFrame> frame() const { return frame_; }
    void setLayers(LayerStack* layers);
    // More of the scene than the image, in image coordinates (a second image drawn beside it by a layer):
    // fit-to-window keeps it in view too. An empty rectangle: the image alone.
    void setExtraContent(const QRectF& imageArea);
    QRectF extraContent() const { return extraContent_; }

    ViewTransform view() const;
    double scale() const { return scale_; }
    bool isFitMode() const { return fitMode_; }

    // Tools: nullptr returns to the default pan-and-select tool. The canvas does not own tools.
    void setTool(CanvasTool* tool);
    void resetTool() { setTool(nullptr); }
    CanvasTool* tool() const;
    PanTool* defaultTool() const { return defaultTool_; }

    // Selects the overlay item under an image point (a few screen pixels of tolerance).
    void selectAt(QPointF imagePoint);
    void updateCursor();

public slots:
    void fitToWindow();
    // 1:1, keeping the image point under the cursor (or the centre) fixed.
    void zoomOneToOne();
    void zoomIn();
    void zoomOut();
    // Multiplies the scale, keeping the image point under widgetPos fixed.
    void zoomAt(QPointF widgetPos, double factor);
    void setScaleAt(double scale, QPointF widgetPos);
    void centerOn(QPointF imagePoint);
    void panBy(QPointF widgetDelta);

signals:
    void cursorMoved(QPointF imagePoint);
    void cursorLeft();
    void viewChanged(); // zoom or pan
    void toolChanged(CanvasTool* tool);

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void keyReleaseEvent(QKeyEvent* event) override;
    void leaveEvent(QEvent* event) override;

private:
    void paintImage(QPainter& painter, const QRect& dirty) const;
    double fitScale() const;
    QRectF contentAtUnitScale() const; // image plus extra content, display coordinates at scale 1
    double clampScale(double scale) const;
    QPointF zoomAnchor() const; // the cursor when over the canvas, else the centre
    void setView(double scale, QPointF origin);

    std::shared_ptr<const DisplayFrame> frame_;
    QSize imageSize_;
    QRectF extraContent_;
    bool yUp_ = false;
    double scale_ = 1.0;
    QPointF origin_;
    bool fitMode_ = true;
    QPointer<LayerStack> layers_;
    PanTool* defaultTool_;
    QPointer<CanvasTool> tool_;
    bool spaceHeld_ = false;
    bool panning_ = false;
    QPointF lastPan_;
    std::optional<QPointF> hoverPos_; // where the cursor rests over the canvas (widget pixels), if it does
};

} // namespace glint::ui
