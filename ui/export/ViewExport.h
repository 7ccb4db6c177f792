// File ▸ Export View: what the canvas shows (the image with the current limits, stretch, colormap and
// FITS y-up flip, and the visible overlays) at the image's full resolution, as a PNG, or as an SVG with
// the image embedded and the overlays as vector shapes. Files are written atomically.
#pragma once

#include "ui/canvas/ViewTransform.h"

#include <QByteArray>
#include <QImage>
#include <QPointF>
#include <QRectF>
#include <QSize>
#include <QString>

#include <memory>

class QPainter;

namespace glint::ui {

class AppContext;
class LayerStack;
struct DisplayFrame;

struct ViewExportOptions {
    // How much larger than on screen lines and labels are drawn (the geometry stays in image pixels):
    // 1 = as at 1:1 on screen; 0 = grows with the image, 1 up to 1000 pixels on the short side.
    double overlayScale = 0.0;
};

// One picture of the view. Output pixel (i, j) is the display's pixel at 1:1: with the image alone (no
// second image beside it) that is image pixel (i, j), or (i, H-1-j) for a y-up FITS image.
class ViewPicture {
public:
    // Throws glint::OutputError when no image is open. Renders the frame on this thread when the one on
    // screen is not yet the current image's or settings'.
    explicit ViewPicture(const AppContext& context, ViewExportOptions options = {});
    ~ViewPicture();

    QSize size() const { return size_; }
    double overlayScale() const { return overlayScale_; }
    // Where an image point lands in output pixel coordinates (a pixel's centre at +0.5).
    QPointF toOutput(QPointF imagePoint) const;

    void paint(QPainter& painter) const;
    QImage toImage() const;      // ARGB32, 96 dpi
    QByteArray pngBytes() const; // throws glint::OutputError when encoding fails
    QByteArray svgBytes() const;

private:
    std::shared_ptr<const DisplayFrame> frame_;
    const LayerStack* layers_;
    QSize imageSize_;
    bool yUp_ = false;
    QRectF content_; // display coordinates at 1:1 of what the picture covers
    QSize size_;
    double overlayScale_ = 1.0;
};

// Both throw glint::OutputError (no image, cannot write) and leave no file behind on failure.
void exportViewPng(const AppContext& context, const QString& path, ViewExportOptions options = {});
void exportViewSvg(const AppContext& context, const QString& path, ViewExportOptions options = {});

} // namespace glint::ui
