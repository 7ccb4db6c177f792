// A per-pixel mask drawn as a translucent tint of the layer colour (a common component, blanks, an
// exclusion raster), optionally placed at an offset in the image frame.
#pragma once

#include "ui/overlay/OverlayLayer.h"

#include <QImage>

#include <cstdint>
#include <vector>

namespace glint::ui {

class MaskLayer : public OverlayLayer {
    Q_OBJECT
public:
    MaskLayer(const QString& name, const QColor& colour, QObject* parent = nullptr);

    // mask: width*height bytes, row 0 first, non-zero = tinted. topLeft: the image pixel where the mask's
    // pixel (0, 0) lies. Throws std::invalid_argument when the sizes disagree.
    void setMask(int width, int height, const std::vector<std::uint8_t>& mask, QPoint topLeft = {0, 0});
    void clear();
    void setOpacity(double opacity); // 0..1, default 0.45
    QPoint topLeft() const { return topLeft_; }
    QSize maskSize() const { return mask_.size(); }
    bool isSet(int x, int y) const; // image pixel coordinates

    void paint(QPainter& painter, const ViewTransform& view) const override;

private:
    void rebuildTint();

    QImage mask_; // Format_Grayscale8, 0 or 255
    QImage tint_; // ARGB32 premultiplied
    QPoint topLeft_;
    double opacity_ = 0.45;
};

} // namespace glint::ui
