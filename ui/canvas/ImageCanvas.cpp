#include "ui/canvas/ImageCanvas.h"

#include "ui/canvas/CanvasTool.h"
#include "ui/display/DisplayPipeline.h"
#include "ui/overlay/LayerStack.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace glint::ui {

namespace {
constexpr double kMaxScale = 64.0;
constexpr double kWheelStep = 1.25;    // per notch
constexpr double kHitTolerancePx = 5.0; // screen pixels

CanvasMouseEvent makeEvent(const QMouseEvent* e, const ViewTransform& view, Qt::MouseButton button) {
    return {view.widgetToImage(e->position()), e->position(), button, e->buttons(), e->modifiers()};
}
} // namespace

ImageCanvas::ImageCanvas(QWidget* parent) : QWidget(parent), defaultTool_(new PanTool(this)) {
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setMinimumSize(200, 150);
    defaultTool_->activated(this);
    connect(defaultTool_, &CanvasTool::repaintNeeded, this, qOverload<>(&QWidget::update));
    updateCursor();
}

ImageCanvas::~ImageCanvas() {
    if (tool_) tool_->deactivated();
}

void ImageCanvas::setImageGeometry(QSize imageSize, bool yUp) {
    imageSize_ = imageSize;
    yUp_ = yUp;
    fitToWindow();
}

void ImageCanvas::setFrame(std::shared_ptr<const DisplayFrame> frame) {
    frame_ = std::move(frame);
    update();
}

void ImageCanvas::setLayers(LayerStack* layers) {
    if (layers_) disconnect(layers_, nullptr, this, nullptr);
    layers_ = layers;
    if (layers_) connect(layers_, &LayerStack::repaintNeeded, this, qOverload<>(&QWidget::update));
    update();
}

ViewTransform ImageCanvas::view() const { return {imageSize_, yUp_, scale_, origin_}; }

CanvasTool* ImageCanvas::tool() const { return tool_ ? tool_.data() : defaultTool_; }

void ImageCanvas::setTool(CanvasTool* tool) {
    if (tool == defaultTool_) tool = nullptr;
    if (tool == tool_) return;
    if (tool_) {
        disconnect(tool_, nullptr, this, nullptr);
        tool_->deactivated();
    }
    tool_ = tool;
    if (tool_) {
        tool_->activated(this);
        connect(tool_, &CanvasTool::repaintNeeded, this, qOverload<>(&QWidget::update));
        connect(tool_, &QObject::destroyed, this, [this] { resetTool(); });
    }
    updateCursor();
    update();
    emit toolChanged(this->tool());
}

void ImageCanvas::updateCursor() {
    if (panning_) setCursor(Qt::ClosedHandCursor);
    else if (spaceHeld_) setCursor(Qt::OpenHandCursor);
    else setCursor(tool()->cursor());
}

void ImageCanvas::selectAt(QPointF imagePoint) {
    if (layers_) layers_->selectAt(imagePoint, kHitTolerancePx / scale_);
}

void ImageCanvas::setExtraContent(const QRectF& imageArea) {
    if (imageArea == extraContent_) return;
    extraContent_ = imageArea;
    if (fitMode_) fitToWindow();
}

QRectF ImageCanvas::contentAtUnitScale() const {
    QRectF area = ViewTransform::pixelArea(QRect(QPoint(0, 0), imageSize_));
    if (!extraContent_.isEmpty()) area = area.united(extraContent_);
    return ViewTransform(imageSize_, yUp_, 1.0, {}).imageToWidget(area);
}

double ImageCanvas::fitScale() const {
    if (imageSize_.isEmpty()) return 1.0;
    const QRectF content = contentAtUnitScale();
    return std::min(width() / content.width(), height() / content.height());
}

double ImageCanvas::clampScale(double scale) const {
    const double minScale = std::min(1.0, fitScale()) / 8.0;
    return std::clamp(scale, minScale, kMaxScale);
}

QPointF ImageCanvas::zoomAnchor() const {
    const QPoint cursorPos = mapFromGlobal(QCursor::pos());
    if (underMouse() && rect().contains(cursorPos)) return cursorPos;
    return QRectF(rect()).center();
}

void ImageCanvas::setView(double scale, QPointF origin) {
    scale_ = scale;
    origin_ = origin;
    update();
    emit viewChanged();
    // The pixel under a resting cursor changes with the view (keyboard zoom, fit, a relayout): the readouts
    // follow it, as DS9's do, instead of keeping the pixel the cursor was over before.
    if (hoverPos_ && !imageSize_.isEmpty()) emit cursorMoved(view().widgetToImage(*hoverPos_));
}

void ImageCanvas::fitToWindow() {
    fitMode_ = true;
    const double s = fitScale();
    setView(s, QRectF(rect()).center() - contentAtUnitScale().center() * s);
}

void ImageCanvas::zoomOneToOne() { setScaleAt(1.0, zoomAnchor()); }
void ImageCanvas::zoomIn() { zoomAt(zoomAnchor(), kWheelStep * kWheelStep); }
void ImageCanvas::zoomOut() { zoomAt(zoomAnchor(), 1.0 / (kWheelStep * kWheelStep)); }

void ImageCanvas::zoomAt(QPointF widgetPos, double factor) { setScaleAt(scale_ * factor, widgetPos); }

void ImageCanvas::setScaleAt(double scale, QPointF widgetPos) {
    fitMode_ = false;
    const double s = clampScale(scale);
    // The display point under widgetPos stays there: origin + d·scale = widgetPos before and after.
    const QPointF display = (widgetPos - origin_) / scale_;
    setView(s, widgetPos - display * s);
}

void ImageCanvas::centerOn(QPointF imagePoint) {
    fitMode_ = false;
    const QPointF display = (view().imageToWidget(imagePoint) - origin_) / scale_;
    setView(scale_, QRectF(rect()).center() - display * scale_);
}

void ImageCanvas::panBy(QPointF widgetDelta) {
    fitMode_ = false;
    setView(scale_, origin_ + widgetDelta);
}

void ImageCanvas::paintEvent(QPaintEvent* event) {
    QPainter painter(this);
    painter.fillRect(event->rect(), QColor(58, 58, 58));
    if (imageSize_.isEmpty()) {
        painter.setPen(QColor(200, 200, 200));
        painter.drawText(rect(), Qt::AlignCenter, tr("Open an image: File ▸ Open, or drop a file here"));
        return;
    }
    paintImage(painter, event->rect());
    const ViewTransform v = view();
    if (layers_)
        for (OverlayLayer* layer : layers_->layers())
            if (layer->isVisible()) layer->paint(painter, v);
    tool()->paint(painter, v);
}

void ImageCanvas::paintImage(QPainter& painter, const QRect& dirty) const {
    if (!frame_ || frame_->pixels.isNull() || frame_->pixels.size() != imageSize_) return;
    // The smallest mipmap that still has a texel per screen pixel.
    const QImage* source = &frame_->pixels;
    for (const QImage& level : frame_->mipmaps)
        if (static_cast<double>(level.width()) / imageSize_.width() >= scale_) source = &level;
    const double fx = static_cast<double>(source->width()) / imageSize_.width();
    const double fy = static_cast<double>(source->height()) / imageSize_.height();
    // Visible source texels, whole ones so that screen and image pixels stay aligned.
    const QRectF display((dirty.left() - origin_.x()) / scale_, (dirty.top() - origin_.y()) / scale_,
                         dirty.width() / scale_, dirty.height() / scale_);
    const int a0 = std::max(0, static_cast<int>(std::floor(display.left() * fx)));
    const int b0 = std::max(0, static_cast<int>(std::floor(display.top() * fy)));
    const int a1 = std::min(source->width(), static_cast<int>(std::ceil(display.right() * fx)) + 1);
    const int b1 = std::min(source->height(), static_cast<int>(std::ceil(display.bottom() * fy)) + 1);
    if (a1 <= a0 || b1 <= b0) return;
    const QRectF target(origin_.x() + a0 / fx * scale_, origin_.y() + b0 / fy * scale_, (a1 - a0) / fx * scale_,
                        (b1 - b0) / fy * scale_);
    painter.setRenderHint(QPainter::SmoothPixmapTransform, scale_ < 1.0);
    painter.drawImage(target, *source, QRect(a0, b0, a1 - a0, b1 - b0));
}

void ImageCanvas::resizeEvent(QResizeEvent*) {
    if (fitMode_) fitToWindow();
}

void ImageCanvas::wheelEvent(QWheelEvent* event) {
    if (imageSize_.isEmpty()) return;
    const double notches = event->angleDelta().y() / 120.0;
    if (notches != 0.0) zoomAt(event->position(), std::pow(kWheelStep, notches));
    event->accept();
}

void ImageCanvas::mousePressEvent(QMouseEvent* event) {
    setFocus(Qt::MouseFocusReason);
    if (event->button() == Qt::MiddleButton || (event->button() == Qt::LeftButton && spaceHeld_)) {
        panning_ = true;
        lastPan_ = event->position();
        updateCursor();
        return;
    }
    if (!imageSize_.isEmpty()) tool()->mousePress(makeEvent(event, view(), event->button()));
}

void ImageCanvas::mouseMoveEvent(QMouseEvent* event) {
    hoverPos_ = event->position();
    if (panning_) {
        // setView reports the pixel under the cursor in the panned view: one readout a move, not a stale one first.
        panBy(event->position() - lastPan_);
        lastPan_ = event->position();
        return;
    }
    if (!imageSize_.isEmpty()) emit cursorMoved(view().widgetToImage(event->position()));
    if (!imageSize_.isEmpty()) tool()->mouseMove(makeEvent(event, view(), Qt::NoButton));
}

void ImageCanvas::mouseReleaseEvent(QMouseEvent* event) {
    if (panning_ && (event->button() == Qt::MiddleButton || event->button() == Qt::LeftButton)) {
        panning_ = false;
        updateCursor();
        return;
    }
    if (!imageSize_.isEmpty()) tool()->mouseRelease(makeEvent(event, view(), event->button()));
}

void ImageCanvas::mouseDoubleClickEvent(QMouseEvent* event) {
    if (!imageSize_.isEmpty()) tool()->mouseDoubleClick(makeEvent(event, view(), event->button()));
}

void ImageCanvas::keyPressEvent(QKeyEvent* event) {
    if (tool()->keyPress(event)) return;
    const double step = 64.0;
    switch (event->key()) {
    case Qt::Key_Space:
        if (!event->isAutoRepeat()) {
            spaceHeld_ = true;
            updateCursor();
        }
        return;
    case Qt::Key_F: fitToWindow(); return;
    case Qt::Key_1: zoomOneToOne(); return;
    case Qt::Key_Plus:
    case Qt::Key_Equal: zoomIn(); return;
    case Qt::Key_Minus: zoomOut(); return;
    case Qt::Key_Left: panBy({step, 0}); return;
    case Qt::Key_Right: panBy({-step, 0}); return;
    case Qt::Key_Up: panBy({0, step}); return;
    case Qt::Key_Down: panBy({0, -step}); return;
    case Qt::Key_Escape: resetTool(); return;
    default: QWidget::keyPressEvent(event);
    }
}

void ImageCanvas::keyReleaseEvent(QKeyEvent* event) {
    if (event->key() == Qt::Key_Space && !event->isAutoRepeat()) {
        spaceHeld_ = false;
        updateCursor();
        return;
    }
    QWidget::keyReleaseEvent(event);
}

void ImageCanvas::leaveEvent(QEvent*) {
    hoverPos_.reset();
    emit cursorLeft();
}

} // namespace glint::ui
