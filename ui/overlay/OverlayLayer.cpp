#include "ui/overlay/OverlayLayer.h"

#include <QPainter>

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

void OverlayLayer::setSelected(int index) {
    if (index < -1 || index >= itemCount()) index = -1;
    if (index == selected_) return;
    selected_ = index;
    emit selectionChanged(index);
    emit changed();
}

QRectF OverlayLayer::paintArea(const QPainter& painter) {
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
