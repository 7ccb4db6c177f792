#include "ui/canvas/ViewTransform.h"

#include <cmath>

namespace glint::ui {

ViewTransform::ViewTransform(QSize imageSize, bool yUp, double scale, QPointF origin)
    : imageSize_(imageSize), yUp_(yUp), scale_(scale), origin_(origin) {}

QPointF ViewTransform::imageToWidget(QPointF p) const {
    // Display coordinates (u, v) run over [0, width] × [0, height] from the displayed top-left corner.
    const double u = p.x() + 0.5;
    const double v = yUp_ ? imageSize_.height() - (p.y() + 0.5) : p.y() + 0.5;
    return {origin_.x() + u * scale_, origin_.y() + v * scale_};
}

QPointF ViewTransform::widgetToImage(QPointF w) const {
    const double u = (w.x() - origin_.x()) / scale_;
    const double v = (w.y() - origin_.y()) / scale_;
    return {u - 0.5, yUp_ ? imageSize_.height() - v - 0.5 : v - 0.5};
}

QRectF ViewTransform::imageToWidget(const QRectF& r) const {
    return QRectF(imageToWidget(r.topLeft()), imageToWidget(r.bottomRight())).normalized();
}

QRectF ViewTransform::widgetToImage(const QRectF& r) const {
    return QRectF(widgetToImage(r.topLeft()), widgetToImage(r.bottomRight())).normalized();
}

QPolygonF ViewTransform::imageToWidget(const QPolygonF& polygon) const {
    QPolygonF out;
    out.reserve(polygon.size());
    for (const QPointF& p : polygon) out << imageToWidget(p);
    return out;
}

QTransform ViewTransform::transform() const {
    if (yUp_)
        return {scale_, 0.0, 0.0, -scale_, origin_.x() + 0.5 * scale_,
                origin_.y() + (imageSize_.height() - 0.5) * scale_};
    return {scale_, 0.0, 0.0, scale_, origin_.x() + 0.5 * scale_, origin_.y() + 0.5 * scale_};
}

QPoint ViewTransform::pixelAt(QPointF imagePoint) {
    return {static_cast<int>(std::floor(imagePoint.x() + 0.5)), static_cast<int>(std::floor(imagePoint.y() + 0.5))};
}

QRectF ViewTransform::pixelArea(const QRect& pixels) {
    return {pixels.x() - 0.5, pixels.y() - 0.5, static_cast<double>(pixels.width()), static_cast<double>(pixels.height())};
}

bool ViewTransform::containsPixel(QPoint pixel) const {
    return pixel.x() >= 0 && pixel.y() >= 0 && pixel.x() < imageSize_.width() && pixel.y() < imageSize_.height();
}

QRectF ViewTransform::imageRectInWidget() const {
    return {origin_, QSizeF(imageSize_.width() * scale_, imageSize_.height() * scale_)};
}

} // namespace glint::ui
