#include "ui/overlay/LayerStack.h"

#include <algorithm>
#include <utility>

namespace glint::ui {

LayerStack::LayerStack(QObject* parent) : QObject(parent) {}

LayerStack::~LayerStack() {
    // Delete the layers while the list still exists, without their destroyed() handlers touching it.
    const QList<OverlayLayer*> all = std::exchange(layers_, {});
    for (OverlayLayer* layer : all) {
        disconnect(layer, nullptr, this, nullptr);
        delete layer;
    }
}

void LayerStack::add(OverlayLayer* layer) {
    if (!layer || layers_.contains(layer)) return;
    layer->setParent(this);
    layers_.append(layer);
    connect(layer, &OverlayLayer::changed, this, &LayerStack::repaintNeeded);
    connect(layer, &OverlayLayer::propertiesChanged, this, &LayerStack::layersChanged);
    connect(layer, &QObject::destroyed, this, [this, layer] {
        if (layers_.removeOne(layer)) {
            emit layersChanged();
            emit repaintNeeded();
        }
    });
    emit layersChanged();
    emit repaintNeeded();
}

void LayerStack::remove(OverlayLayer* layer) {
    if (!layer) return;
    if (!layers_.contains(layer)) {
        if (layer->parent() == this) delete layer; // detached (an undoable removal): its owner drops it for good
        return;
    }
    emit aboutToRemove(layer);
    if (!layers_.contains(layer)) return; // a receiver removed it already
    delete layer; // the destroyed() handler takes it off the list
}

void LayerStack::detach(OverlayLayer* layer) {
    if (!layers_.removeOne(layer)) return;
    emit layersChanged();
    emit repaintNeeded();
}

void LayerStack::attach(OverlayLayer* layer, int index) {
    if (!layer || layers_.contains(layer) || layer->parent() != this) return;
    layers_.insert(std::clamp(index, 0, static_cast<int>(layers_.size())), layer);
    emit layersChanged();
    emit repaintNeeded();
}

void LayerStack::reattach(OverlayLayer* layer) {
    if (!layer || layers_.contains(layer) || layer->parent() != this) return;
    layer->setVisible(true);
    attach(layer, static_cast<int>(layers_.size()));
}

void LayerStack::move(OverlayLayer* layer, int newIndex) {
    const int from = layers_.indexOf(layer);
    if (from < 0) return;
    newIndex = std::clamp(newIndex, 0, static_cast<int>(layers_.size()) - 1);
    if (newIndex == from) return;
    layers_.move(from, newIndex);
    emit layersChanged();
    emit repaintNeeded();
}

void LayerStack::removeImageLayers() {
    const QList<OverlayLayer*> all = layers_;
    for (OverlayLayer* layer : all)
        if (layer->removedWithImage()) delete layer;
}

int LayerStack::indexOf(const OverlayLayer* layer) const {
    return layers_.indexOf(const_cast<OverlayLayer*>(layer));
}

bool LayerStack::selectAt(QPointF imagePoint, double tolerance) {
    OverlayLayer* hitLayer = nullptr;
    int hitItem = -1;
    for (auto it = layers_.crbegin(); it != layers_.crend() && !hitLayer; ++it) {
        if (!(*it)->isVisible()) continue;
        const int item = (*it)->hitTest(imagePoint, tolerance);
        if (item >= 0) {
            hitLayer = *it;
            hitItem = item;
        }
    }
    for (OverlayLayer* layer : layers_)
        if (layer != hitLayer) layer->setSelected(-1);
    if (hitLayer) hitLayer->setSelected(hitItem);
    return hitLayer != nullptr;
}

void LayerStack::clearSelection() {
    for (OverlayLayer* layer : layers_) layer->setSelected(-1);
}

} // namespace glint::ui
