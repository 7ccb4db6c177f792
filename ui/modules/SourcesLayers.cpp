#include "ui/modules/SourcesLayers.h"

#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace glint::ui {

namespace {
constexpr int kCrowded = 1000; // ellipses
} // namespace

SourceEllipseLayer::SourceEllipseLayer(const QString& name, const QColor& colour, QObject* parent)
    : ShapeLayer(name, colour, parent) {}

void SourceEllipseLayer::setLabelledCount(int count) {
    labelledCount_ = std::max(0, count);
    emit changed();
}

void SourceEllipseLayer::paint(QPainter& painter, const ViewTransform& view) const {
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, true);
    const QRectF area = paintArea(painter).adjusted(-4, -4, 4, 4);
    const QColor colour = this->colour();
    // A crowded field (thousands of ellipses) is drawn fainter, so that the stars and the labels stay readable.
    QColor line = colour;
    if (shapes().size() > kCrowded) line.setAlphaF(line.alphaF() * 0.6f);
    QPen pen(line, 1.0);
    pen.setCosmetic(true);
    painter.setBrush(Qt::NoBrush);
    const QVector<OverlayShape>& all = shapes();
    const QRectF visible = view.widgetToImage(area); // tested in image coordinates first: thousands stay cheap
    QVector<int> labelled;
    for (int i = 0; i < all.size(); ++i) {
        const OverlayShape& s = all[i];
        if (s.points.isEmpty() || !s.bounds().intersects(visible)) continue;
        const QPolygonF w = view.imageToWidget(s.points);
        if (i == selected()) continue; // drawn last, on top
        if (showsShapes()) {
            painter.setPen(pen);
            painter.drawPolygon(w);
        }
        if (i < labelledCount_ && !s.label.isEmpty()) labelled.append(i);
    }
    const int sel = selected();
    if (sel >= 0 && sel < all.size() && !all[sel].points.isEmpty()) {
        const QPolygonF w = view.imageToWidget(all[sel].points);
        if (showsShapes()) {
            QPen halo(QColor(0, 0, 0, 170), 4.0);
            halo.setCosmetic(true);
            painter.setPen(halo);
            painter.drawPolygon(w);
            QPen bright(colour.lighter(160), 2.0);
            bright.setCosmetic(true);
            painter.setPen(bright);
            painter.drawPolygon(w);
        }
        labelled.append(sel);
    }
    // Labels on a dark box, legible on bright and dark pixels: above a small ellipse; beside the centre of a large
    // one (a galaxy's ellipse reaches far from its nucleus). The brightest first; a label that would cover one
    // already drawn is left out (zooming in makes room), except the selected source's.
    const QFontMetricsF metrics(painter.font());
    painter.setRenderHint(QPainter::Antialiasing, false);
    QVector<QRectF> drawn;
    if (!showsLabels()) labelled.clear(); // the Layers dock's Show: ellipses only
    if (sel >= 0 && labelled.size() > 1) labelled.prepend(labelled.takeLast()); // the selected one claims its room first
    for (const int i : labelled) {
        const OverlayShape& s = all[i];
        const QString& text = s.label;
        if (text.isEmpty()) continue;
        const QRectF b = view.imageToWidget(s.points).boundingRect();
        const double width = metrics.horizontalAdvance(text);
        const QPointF at = b.height() <= 80.0 ? QPointF(b.center().x() - width / 2.0, b.top() - 3.0)
                                              : QPointF(b.center().x() + 6.0, b.center().y() - 6.0);
        const QRectF box(at - QPointF(2.0, metrics.ascent()), QSizeF(width + 4.0, metrics.height()));
        const bool covers = std::any_of(drawn.cbegin(), drawn.cend(), [&](const QRectF& r) { return r.intersects(box); });
        if (covers && i != sel) continue;
        drawn.append(box);
        painter.setPen(Qt::NoPen);
        painter.setBrush(QColor(0, 0, 0, 150));
        painter.drawRect(box);
        painter.setPen(i == sel ? colour.lighter(160) : colour);
        painter.drawText(at, text);
    }
    painter.restore();
}

int SourceEllipseLayer::hitTest(QPointF p, double tolerance) const {
    const QVector<OverlayShape>& all = shapes();
    int inside = -1, near = -1;
    double smallest = std::numeric_limits<double>::infinity(), nearest = tolerance;
    for (int i = 0; i < all.size(); ++i) {
        const QPolygonF& pts = all[i].points;
        const QRectF b = pts.boundingRect();
        if (pts.size() < 3 || !b.adjusted(-tolerance, -tolerance, tolerance, tolerance).contains(p)) continue;
        if (pts.containsPoint(p, Qt::OddEvenFill)) {
            if (b.width() * b.height() < smallest) {
                smallest = b.width() * b.height();
                inside = i;
            }
            continue;
        }
        for (int k = 0; k < pts.size(); ++k) {
            const double d = distanceToSegment(p, pts[k], pts[(k + 1) % pts.size()]);
            if (d <= nearest) {
                nearest = d;
                near = i;
            }
        }
    }
    return inside >= 0 ? inside : near;
}

SegmentationLayer::SegmentationLayer(const QString& name, QObject* parent)
    : OverlayLayer(name, QColor(255, 255, 255), parent) {}

QColor SegmentationLayer::colourFor(int number) {
    // Golden-ratio steps of hue: neighbouring numbers (often neighbouring sources) far apart.
    const double hue = std::fmod(static_cast<double>(number) * 0.618033988749895, 1.0);
    return QColor::fromHsvF(static_cast<float>(hue), 0.85f, 1.0f);
}

void SegmentationLayer::setSegmentation(int width, int height, std::shared_ptr<const std::vector<std::int32_t>> labels) {
    if (width <= 0 || height <= 0 || !labels || labels->size() != static_cast<std::size_t>(width) * static_cast<std::size_t>(height))
        throw std::invalid_argument("segmentation size does not match its width and height");
    width_ = width;
    height_ = height;
    labels_ = std::move(labels);
    rebuild();
}

void SegmentationLayer::setOpacity(double opacity) {
    opacity_ = std::clamp(opacity, 0.0, 1.0);
    rebuild();
}

int SegmentationLayer::numberAt(int x, int y) const {
    if (x < 0 || y < 0 || x >= width_ || y >= height_) return 0;
    return (*labels_)[static_cast<std::size_t>(y) * width_ + x];
}

void SegmentationLayer::rebuild() {
    if (width_ <= 0) return;
    tint_ = QImage(width_, height_, QImage::Format_ARGB32_Premultiplied);
    QRgb last = 0;
    int lastNumber = 0;
    for (int y = 0; y < height_; ++y) {
        auto* out = reinterpret_cast<QRgb*>(tint_.scanLine(y));
        const std::int32_t* in = labels_->data() + static_cast<std::size_t>(y) * width_;
        for (int x = 0; x < width_; ++x) {
            const int n = in[x];
            if (n <= 0) {
                out[x] = 0u;
                continue;
            }
            if (n != lastNumber) {
                QColor c = colourFor(n);
                c.setAlphaF(static_cast<float>(opacity_));
                last = qPremultiply(c.rgba());
                lastNumber = n;
            }
            out[x] = last;
        }
    }
    emit changed();
}

void SegmentationLayer::paint(QPainter& painter, const ViewTransform& view) const {
    if (tint_.isNull()) return;
    painter.save();
    // Map pixel (i, j) covers image [i-0.5, i+0.5]: shift by half a pixel, then the view.
    painter.setTransform(QTransform::fromTranslate(-0.5, -0.5) * view.transform(), true);
    painter.setRenderHint(QPainter::SmoothPixmapTransform, false);
    painter.drawImage(QPointF(0, 0), tint_);
    painter.restore();
}

} // namespace glint::ui
