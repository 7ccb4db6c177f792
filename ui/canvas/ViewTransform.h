// The one mapping between image coordinates and canvas (widget) coordinates. Every painter, tool and
// readout goes through it, so that zoom, pan and the FITS y-up flip are handled in exactly one place.
#pragma once

#include <QPointF>
#include <QPolygonF>
#include <QRect>
#include <QRectF>
#include <QSize>
#include <QTransform>

namespace glint::ui {

// Image coordinates follow DESIGN.md: x = column, y = row, row 0 = the first row stored, pixel centres at
// integers, pixel (x, y) covering [x-0.5, x+0.5] × [y-0.5, y+0.5]. The display shows the image at `scale`
// widget pixels per image pixel with its top-left corner at `origin`; with yUp (FITS, as DS9 shows it)
// row 0 is at the bottom.
class ViewTransform {
public:
    ViewTransform() = default;
    ViewTransform(QSize imageSize, bool yUp, double scale, QPointF origin);

    QSize imageSize() const { return imageSize_; }
    bool yUp() const { return yUp_; }
    double scale() const { return scale_; }
    QPointF origin() const { return origin_; }
    bool isValid() const { return !imageSize_.isEmpty() && scale_ > 0.0; }

    QPointF imageToWidget(QPointF p) const;
    QPointF widgetToImage(QPointF w) const;
    QRectF imageToWidget(const QRectF& r) const; // normalised (a flip swaps top and bottom)
    QPolygonF imageToWidget(const QPolygonF& polygon) const;
    QRectF widgetToImage(const QRectF& r) const;
    // Image → widget as a QTransform, for painters that draw in image coordinates (use cosmetic pens).
    QTransform transform() const;

    // The pixel whose square contains an image point (may lie outside the image).
    static QPoint pixelAt(QPointF imagePoint);
    // The area covered by whole pixels x..x+w-1, y..y+h-1: [x-0.5, x+w-0.5] × [y-0.5, y+h-0.5].
    static QRectF pixelArea(const QRect& pixels);
    bool containsPixel(QPoint pixel) const;
    // Where the display's edges are, in widget coordinates.
    QRectF imageRectInWidget() const;

private:
    QSize imageSize_;
    bool yUp_ = false;
    double scale_ = 1.0;
    QPointF origin_;
};

} // namespace glint::ui
