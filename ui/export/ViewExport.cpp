#include "ui/export/ViewExport.h"

#include "ui/AppContext.h"
#include "ui/canvas/ImageCanvas.h"
#include "ui/display/DisplayPipeline.h"
#include "ui/overlay/LayerStack.h"
#include "core/util/AtomicFile.h"
#include "core/util/Errors.h"

#include <QBuffer>
#include <QPainter>
#include <QSvgGenerator>

#include <algorithm>
#include <cmath>

namespace glint::ui {

namespace {
const QColor kBackground(58, 58, 58); // the canvas's, where a second image beside the first leaves gaps
constexpr int kDotsPerMeter = 3780;   // 96 dpi: labels come out the size they have on screen
} // namespace

ViewPicture::ViewPicture(const AppContext& context, ViewExportOptions options) : layers_(context.layers()) {
    const std::shared_ptr<const glint::Image> image = context.image();
    if (!image) throw glint::OutputError("nothing to export: open an image first");
    frame_ = context.frame();
    if (!frame_ || frame_->image != image || context.isRendering())
        frame_ = std::make_shared<const DisplayFrame>(DisplayPipeline::render(image, context.displaySettings()));
    imageSize_ = QSize(image->width(), image->height());
    yUp_ = image->meta.displayYUp;
    const ViewTransform unit(imageSize_, yUp_, 1.0, {});
    QRectF area = ViewTransform::pixelArea(QRect(QPoint(0, 0), imageSize_));
    if (const ImageCanvas* canvas = context.canvas(); canvas && !canvas->extraContent().isEmpty())
        area = area.united(canvas->extraContent());
    const QRectF display = unit.imageToWidget(area);
    // Whole display pixels (the edges of image pixels lie on integers at 1:1).
    content_ = QRectF(QPointF(std::floor(display.left() + 1e-9), std::floor(display.top() + 1e-9)),
                      QPointF(std::ceil(display.right() - 1e-9), std::ceil(display.bottom() - 1e-9)));
    size_ = content_.size().toSize();
    overlayScale_ = options.overlayScale > 0.0 ? options.overlayScale
                                               : std::max(1.0, std::min(size_.width(), size_.height()) / 1000.0);
}

ViewPicture::~ViewPicture() = default;

QPointF ViewPicture::toOutput(QPointF imagePoint) const {
    return ViewTransform(imageSize_, yUp_, 1.0, -content_.topLeft()).imageToWidget(imagePoint);
}

void ViewPicture::paint(QPainter& painter) const {
    painter.save();
    painter.fillRect(QRectF(QPointF(0, 0), QSizeF(size_)), kBackground);
    // The frame is in display orientation already (flipped for y-up): display pixel = output pixel.
    painter.setRenderHint(QPainter::SmoothPixmapTransform, false);
    painter.drawImage(QRectF(-content_.topLeft(), QSizeF(imageSize_)), frame_->pixels);
    // The layers paint in "widget" coordinates through a view at 1/s, scaled back by s: geometry lands on
    // the image's pixels, pens and fonts come out s times their screen size.
    const double s = overlayScale_;
    painter.scale(s, s);
    const ViewTransform view(imageSize_, yUp_, 1.0 / s, -content_.topLeft() / s);
    if (layers_)
        for (const OverlayLayer* layer : layers_->layers())
            if (layer->isVisible()) layer->paint(painter, view);
    painter.restore();
}

QImage ViewPicture::toImage() const {
    QImage out(size_, QImage::Format_ARGB32_Premultiplied);
    if (out.isNull()) throw glint::OutputError("not enough memory for a picture of that size");
    out.setDotsPerMeterX(kDotsPerMeter);
    out.setDotsPerMeterY(kDotsPerMeter);
    QPainter painter(&out);
    paint(painter);
    painter.end();
    return out.convertToFormat(QImage::Format_ARGB32);
}

QByteArray ViewPicture::pngBytes() const {
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (!toImage().save(&buffer, "PNG")) throw glint::OutputError("the picture could not be encoded as PNG");
    return bytes;
}

QByteArray ViewPicture::svgBytes() const {
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator generator;
    generator.setOutputDevice(&buffer);
    generator.setSize(size_);
    generator.setViewBox(QRect(QPoint(0, 0), size_));
    generator.setResolution(96);
    generator.setTitle(QStringLiteral("Glint view"));
    generator.setDescription(
        QStringLiteral("The image (embedded) with the overlays as vector shapes, in image pixels"));
    QPainter painter;
    if (!painter.begin(&generator)) throw glint::OutputError("the SVG could not be started");
    paint(painter);
    painter.end();
    return bytes;
}

void exportViewPng(const AppContext& context, const QString& path, ViewExportOptions options) {
    const QByteArray bytes = ViewPicture(context, options).pngBytes();
    glint::writeFileAtomically(path.toStdString(), bytes.toStdString());
}

void exportViewSvg(const AppContext& context, const QString& path, ViewExportOptions options) {
    const QByteArray bytes = ViewPicture(context, options).svgBytes();
    glint::writeFileAtomically(path.toStdString(), bytes.toStdString());
}

} // namespace glint::ui
