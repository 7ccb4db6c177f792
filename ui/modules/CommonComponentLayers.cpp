#include "ui/modules/CommonComponentLayers.h"

#include "ui/display/DisplayPipeline.h"
#include "ui/overlay/ShapeLayer.h"

#include <QPainter>
#include <QPen>

#include <algorithm>
#include <stdexcept>

namespace glint::ui {

// ---------------------------------------------------------------------------------------------------
// SecondImageLayer

SecondImageLayer::SecondImageLayer(const QString& name, const QColor& colour, QObject* parent)
    : OverlayLayer(name, colour, parent) {
    // B stays while A changes: the module places it again for the new A.
    setRemovedWithImage(false);
}

void SecondImageLayer::setFrame(std::shared_ptr<const DisplayFrame> frame) {
    frame_ = std::move(frame);
    emit changed();
}

void SecondImageLayer::setPlacement(QPoint placement) {
    if (placement == placement_) return;
    placement_ = placement;
    emit changed();
}

void SecondImageLayer::setOpacity(double opacity) {
    opacity = std::clamp(opacity, 0.0, 1.0);
    if (opacity == opacity_) return;
    opacity_ = opacity;
    emit changed();
}

QSize SecondImageLayer::imageSize() const { return frame_ ? frame_->pixels.size() : QSize(); }

QRectF SecondImageLayer::area() const {
    const QSize size = imageSize();
    return size.isEmpty() ? QRectF() : ViewTransform::pixelArea(QRect(placement_, size));
}

void SecondImageLayer::paint(QPainter& painter, const ViewTransform& view) const {
    if (!frame_ || frame_->pixels.isNull()) return;
    const QSize size = frame_->pixels.size();
    const double scale = view.scale() * deviceScale(painter); // device pixels per image pixel
    painter.save();
    // B's pixel edges in canvas image coordinates, then the view; a frame rendered flipped for y-up is
    // flipped back so that its stored row 0 lands on the canvas row the offset refers to.
    QTransform toCanvas = QTransform::fromTranslate(placement_.x() - 0.5, placement_.y() - 0.5) * view.transform();
    if (frame_->image && frame_->image->meta.displayYUp)
        toCanvas = QTransform(1.0, 0.0, 0.0, -1.0, 0.0, size.height()) * toCanvas;
    painter.setTransform(toCanvas, true);
    // The smallest mipmap that still has a texel per device pixel, as the canvas does for A.
    const QImage* source = &frame_->pixels;
    for (const QImage& level : frame_->mipmaps)
        if (static_cast<double>(level.width()) / size.width() >= scale) source = &level;
    painter.setRenderHint(QPainter::SmoothPixmapTransform, scale < 1.0);
    painter.setOpacity(opacity_);
    painter.drawImage(QRectF(0, 0, size.width(), size.height()), *source);
    painter.setOpacity(1.0);
    QPen pen(colour(), 1.0);
    pen.setCosmetic(true);
    painter.setPen(pen);
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(QRectF(0, 0, size.width(), size.height()));
    painter.restore();
}

// ---------------------------------------------------------------------------------------------------
// ComponentLayer

ComponentLayer::ComponentLayer(const QString& name, const QColor& colour, QObject* parent)
    : MaskLayer(name, colour, parent) {}

ComponentShape ComponentShape::fromMask(int width, int height, const std::vector<std::uint8_t>& mask, const QRect& bbox) {
    if (width <= 0 || height <= 0 || mask.size() != static_cast<std::size_t>(width) * static_cast<std::size_t>(height))
        throw std::invalid_argument("component mask size does not match its width and height");
    if (bbox.isEmpty() || !QRect(0, 0, width, height).contains(bbox))
        throw std::invalid_argument("component bounding box outside its mask");
    // Only the bounding box is kept and tinted: a small component of a large image stays cheap to draw.
    ComponentShape shape;
    shape.bbox = bbox;
    shape.mask.resize(static_cast<std::size_t>(bbox.width()) * bbox.height());
    for (int y = 0; y < bbox.height(); ++y) {
        const auto* row = mask.data() + static_cast<std::size_t>(bbox.y() + y) * width + bbox.x();
        std::copy(row, row + bbox.width(), shape.mask.begin() + static_cast<std::ptrdiff_t>(y) * bbox.width());
    }
    shape.edges = maskBoundary(bbox.width(), bbox.height(), shape.mask);
    return shape;
}

void ComponentLayer::setComponent(std::shared_ptr<const ComponentShape> shape, QPoint frameOrigin) {
    shape_ = std::move(shape);
    frameOrigin_ = frameOrigin;
    place();
}

void ComponentLayer::setFrameOrigin(QPoint frameOrigin) {
    if (frameOrigin == frameOrigin_ || !shape_) return;
    frameOrigin_ = frameOrigin;
    place();
}

void ComponentLayer::place() {
    if (!shape_) {
        outline_.clear();
        clear();
        itemsChanged();
        return;
    }
    const QPoint topLeft = shape_->bbox.topLeft() + frameOrigin_;
    outline_.resize(shape_->edges.size());
    for (qsizetype i = 0; i < shape_->edges.size(); ++i) outline_[i] = shape_->edges[i].translated(topLeft);
    setMask(shape_->bbox.width(), shape_->bbox.height(), shape_->mask, topLeft); // emits changed()
    itemsChanged();
}

void ComponentLayer::setTintShown(bool shown) {
    if (shown == tintShown_) return;
    tintShown_ = shown;
    emit changed();
}

QRectF ComponentLayer::itemBounds(int index) const {
    return index == 0 && shape_ ? ViewTransform::pixelArea(canvasBox()) : QRectF();
}

int ComponentLayer::hitTest(QPointF imagePoint, double tolerance) const {
    if (!shape_) return -1;
    const QPoint p = ViewTransform::pixelAt(imagePoint);
    if (isSet(p.x(), p.y())) return 0;
    for (const QLineF& edge : outline_) // a click just outside the boundary still picks it
        if (distanceToSegment(imagePoint, edge.p1(), edge.p2()) <= tolerance) return 0;
    return -1;
}

void ComponentLayer::paint(QPainter& painter, const ViewTransform& view) const {
    if (tintShown_) MaskLayer::paint(painter, view);
    if (outline_.isEmpty()) return;
    painter.save();
    painter.setTransform(view.transform(), true);
    QPen pen(selected() == 0 ? colour().lighter(150) : colour(), selected() == 0 ? 3.0 : 1.5);
    pen.setCosmetic(true);
    pen.setCapStyle(Qt::SquareCap);
    painter.setPen(pen);
    painter.drawLines(outline_);
    painter.restore();
}

// ---------------------------------------------------------------------------------------------------

QVector<QLineF> maskBoundary(int width, int height, const std::vector<std::uint8_t>& mask) {
    QVector<QLineF> lines;
    if (width <= 0 || height <= 0) return lines;
    const auto at = [&](int x, int y) {
        return x >= 0 && y >= 0 && x < width && y < height && mask[static_cast<std::size_t>(y) * width + x] != 0;
    };
    // Horizontal edges on the line between rows y - 1 and y, as runs along the row.
    for (int y = 0; y <= height; ++y) {
        int start = -1;
        for (int x = 0; x <= width; ++x) {
            const bool edge = x < width && at(x, y - 1) != at(x, y);
            if (edge && start < 0) start = x;
            if (!edge && start >= 0) {
                lines.append(QLineF(start - 0.5, y - 0.5, x - 0.5, y - 0.5));
                start = -1;
            }
        }
    }
    // Vertical edges on the line between columns x - 1 and x, as runs down the column (scanned row by
    // row, one open run per column line).
    std::vector<int> open(static_cast<std::size_t>(width) + 1, -1);
    for (int y = 0; y <= height; ++y) {
        for (int x = 0; x <= width; ++x) {
            const bool edge = y < height && at(x - 1, y) != at(x, y);
            int& start = open[static_cast<std::size_t>(x)];
            if (edge && start < 0) start = y;
            if (!edge && start >= 0) {
                lines.append(QLineF(x - 0.5, start - 0.5, x - 0.5, y - 0.5));
                start = -1;
            }
        }
    }
    return lines;
}

} // namespace glint::ui
