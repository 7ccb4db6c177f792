// The overlay layer list: show or hide each layer, recolour it, move it up or down, remove it. The top of
// the list is drawn on top.
#pragma once

#include <QDockWidget>

class QComboBox;
class QListWidget;
class QListWidgetItem;
class QPushButton;
class QUndoStack;

namespace glint::ui {

class LayerStack;
class OverlayLayer;

class LayerDock : public QDockWidget {
    Q_OBJECT
public:
    explicit LayerDock(LayerStack& stack, QWidget* parent = nullptr);
    QListWidget* list() const { return list_; }
    // Show: boxes and labels / boxes only / labels only, for the selected layer when it has labels (regions,
    // sources); disabled for other layers. Items in the order of OverlayLayer::LabelMode.
    QComboBox* labelModeBox() const { return labelMode_; }
    // Where Remove pushes its step (removeLayerUndoably); without one, Remove deletes the layer.
    void setUndoStack(QUndoStack* stack) { undo_ = stack; }

private:
    void rebuild();
    OverlayLayer* selectedLayer() const;
    void chooseColour(OverlayLayer* layer);
    void showLabelMode();

    LayerStack& stack_;
    QListWidget* list_;
    QPushButton* colour_;
    QPushButton* up_;
    QPushButton* down_;
    QPushButton* remove_;
    QComboBox* labelMode_;
    QUndoStack* undo_ = nullptr;
    bool rebuilding_ = false;
};

} // namespace glint::ui
