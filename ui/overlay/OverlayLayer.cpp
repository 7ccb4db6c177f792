#include "ui/overlay/OverlayLayer.h"

#include <QPainter>
#include <QWidget>

#include <cmath>

namespace glint::ui {

OverlayLayer::OverlayLayer(const QString& name, const QColor& colour, QObject* parent)
    : QObject(parent), name_(name), colour_(colour) {}

void OverlayLayer::setName(const QString& name) {
    if (name == name_) return;
    name_ = name;
    emit propertiesChanged();
}

void OverlayLayer::setVisible(bool visible) {
    if (visible == visible_) return;
    visible_ = visible;
    emit propertiesChanged();
    emit changed();
}

void OverlayLayer::setColour(const QColor& colour) {
    if (colour == colour_) return;
    colour_ = colour;
    emit propertiesChanged();
    emit changed();
}

void OverlayLayer::setLabelMode(LabelMode mode) {
    if (mode == labelMode_) return;
    labelMode_ = mode;
    emit propertiesChanged();
    emit changed();
}

void OverlayLayer::setSelected(int index) {
    if (index < -1 || index >= itemCount()) index = -1;
    if (index == selected_) return;
    selected_ = index;
    emit selectionChanged(index);
    emit changed();
}

QRectF OverlayLayer::paintArea(const QPainter& painter) {
    // On a widget the area is the widget's own rectangle. (Its painter draws into the window's backing
    // store: there the viewport is the whole window and the device transform holds the widget's offset, so
    // the mapping below gave an area reaching under the menu bar and over the docks, where labels and the
    // legend were placed out of sight; offscreen, where each widget has its own buffer, it did not show.)
    if (const auto* widget = dynamic_cast<const QWidget*>(painter.device())) {
        const QTransform world = painter.worldTransform();
        return world.isInvertible() ? world.inverted().mapRect(QRectF(widget->rect())) : QRectF(widget->rect());
    }
    const QTransform t = painter.deviceTransform();
    return t.isInvertible() ? t.inverted().mapRect(QRectF(painter.viewport())) : QRectF(painter.viewport());
}

double OverlayLayer::deviceScale(const QPainter& painter) {
    return std::sqrt(std::abs(painter.deviceTransform().determinant()));
}

void OverlayLayer::itemsChanged() {
    if (selected_ >= itemCount()) {
        selected_ = -1;
        emit selectionChanged(-1);
    }
    emit changed();
}

} // namespace glint::ui
