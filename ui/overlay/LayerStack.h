// The ordered list of overlay layers the canvas draws (first = bottom) and the layer dock lists.
// Layers are owned by the stack once added.
#pragma once

#include "ui/overlay/OverlayLayer.h"

#include <QList>
#include <QObject>
#include <QPointer>

namespace glint::ui {

class LayerStack : public QObject {
    Q_OBJECT
public:
    explicit LayerStack(QObject* parent = nullptr);
    ~LayerStack() override;

    // Takes ownership; the layer is drawn above those already there.
    void add(OverlayLayer* layer);
    // Deletes the layer (aboutToRemove() first; removeImageLayers() and the destructor do not emit it).
    void remove(OverlayLayer* layer);
    void move(OverlayLayer* layer, int newIndex);
    // Takes the layer off the list without deleting it (an undoable removal keeps it for its undo); the stack
    // stays its parent. attach() puts a detached layer back at `index`.
    void detach(OverlayLayer* layer);
    void attach(OverlayLayer* layer, int index);
    // A module's layer that the Layers dock's Remove detached, drawn on again (a new shape, a new trace): put back
    // on top, shown. Nothing for a layer on the list.
    void reattach(OverlayLayer* layer);
    // Deletes every layer marked removedWithImage().
    void removeImageLayers();

    const QList<OverlayLayer*>& layers() const { return layers_; }
    int indexOf(const OverlayLayer* layer) const;

    // The topmost visible layer with an item within `tolerance` image pixels: selects that item and clears
    // every other layer's selection. Returns false (and clears all) when nothing is hit.
    bool selectAt(QPointF imagePoint, double tolerance);
    void clearSelection();

signals:
    void layersChanged();  // added, removed, reordered, renamed, shown, hidden, recoloured
    // remove() is about to delete this layer (the Layers dock's Remove, or a module dropping its own).
    void aboutToRemove(glint::ui::OverlayLayer* layer);
    void repaintNeeded();

private:
    QList<OverlayLayer*> layers_;
};

} // namespace glint::ui
