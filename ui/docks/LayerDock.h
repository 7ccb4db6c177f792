// The overlay layer list: show or hide each layer, recolour it, move it up or down, remove it. The top of
// the list is drawn on top.
#pragma once

#include <QDockWidget>

class QListWidget;
class QListWidgetItem;
class QPushButton;

namespace glint::ui {

class LayerStack;
class OverlayLayer;

class LayerDock : public QDockWidget {
    Q_OBJECT
public:
    explicit LayerDock(LayerStack& stack, QWidget* parent = nullptr);
    QListWidget* list() const { return list_; }

private:
    void rebuild();
    OverlayLayer* selectedLayer() const;
    void chooseColour(OverlayLayer* layer);

    LayerStack& stack_;
    QListWidget* list_;
    QPushButton* colour_;
    QPushButton* up_;
    QPushButton* down_;
    QPushButton* remove_;
    bool rebuilding_ = false;
};

} // namespace glint::ui
