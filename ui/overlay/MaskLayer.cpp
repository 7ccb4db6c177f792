#include "ui/overlay/MaskLayer.h"

#include <QPainter>

#include <algorithm>
#include <stdexcept>

namespace glint::ui {

MaskLayer::MaskLayer(const QString& name, const QColor& colour, QObject* parent) : OverlayLayer(name, colour, parent) {
    connect(this, &OverlayLayer::propertiesChanged, this, &MaskLayer::rebuildTint);
}

void MaskLayer::setMask(int width, int height, const std::vector<std::uint8_t>& mask, QPoint topLeft) {
    if (width <= 0 || height <= 0 || mask.size() != static_cast<std::size_t>(width) * static_cast<std::size_t>(height))
        throw std::invalid_argument("mask size does not match its width and height");
    mask_ = QImage(width, height, QImage::Format_Grayscale8);
    for (int y = 0; y < height; ++y) {
        uchar* row = mask_.scanLine(y);
        const std::uint8_t* in = mask.data() + static_cast<std::size_t>(y) * width;
        for (int x = 0; x < width; ++x) row[x] = in[x] ? 255 : 0;
    }
    topLeft_ = topLeft;
    rebuildTint();
}

void MaskLayer::clear() {
    mask_ = QImage();
    tint_ = QImage();
    emit changed();
}

void MaskLayer::setOpacity(double opacity) {
    opacity_ = std::clamp(opacity, 0.0, 1.0);
    rebuildTint();
}

bool MaskLayer::isSet(int x, int y) const {
    const int mx = x - topLeft_.x(), my = y - topLeft_.y();
    return mx >= 0 && my >= 0 && mx < mask_.width() && my < mask_.height() && mask_.constScanLine(my)[mx] != 0;
}

void MaskLayer::rebuildTint() {
    if (mask_.isNull()) return;
    QColor c = colour();
    c.setAlphaF(static_cast<float>(opacity_));
    const QRgb on = qPremultiply(c.rgba());
    tint_ = QImage(mask_.size(), QImage::Format_ARGB32_Premultiplied);
    for (int y = 0; y < mask_.height(); ++y) {
        const uchar* in = mask_.constScanLine(y);
        auto* out = reinterpret_cast<QRgb*>(tint_.scanLine(y));
        for (int x = 0; x < mask_.width(); ++x) out[x] = in[x] ? on : 0u;
    }
    emit changed();
}

void MaskLayer::paint(QPainter& painter, const ViewTransform& view) const {
    if (tint_.isNull()) return;
    painter.save();
    // Mask pixel (i, j) covers image [x-0.5, x+0.5] with x = topLeft + i: shift by half a pixel, then the view.
    painter.setTransform(QTransform::fromTranslate(topLeft_.x() - 0.5, topLeft_.y() - 0.5) * view.transform(), true);
    painter.setRenderHint(QPainter::SmoothPixmapTransform, false);
    painter.drawImage(QPointF(0, 0), tint_);
    painter.restore();
}

} // namespace glint::ui
