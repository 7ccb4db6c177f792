#include "ui/docks/LayerDock.h"

#include "ui/overlay/LayerStack.h"
#include "ui/undo/UndoCommands.h"

#include <QColorDialog>
#include <QComboBox>
#include <QLabel>
#include <QHBoxLayout>
#include <QListWidget>
#include <QPainter>
#include <QPixmap>
#include <QPushButton>
#include <QVBoxLayout>

namespace glint::ui {

namespace {
constexpr int kLayerRole = Qt::UserRole + 1;

QIcon swatch(const QColor& colour) {
    QPixmap pixmap(14, 14);
    pixmap.fill(colour);
    QPainter p(&pixmap);
    p.setPen(Qt::black);
    p.drawRect(0, 0, 13, 13);
    return QIcon(pixmap);
}
} // namespace

LayerDock::LayerDock(LayerStack& stack, QWidget* parent)
    : QDockWidget(tr("Layers"), parent), stack_(stack), list_(new QListWidget), colour_(new QPushButton(tr("Colour…"))),
      up_(new QPushButton(tr("Up"))), down_(new QPushButton(tr("Down"))), remove_(new QPushButton(tr("Remove"))),
      labelMode_(new QComboBox) {
    setObjectName(QStringLiteral("LayerDock"));
    auto* body = new QWidget;
    auto* layout = new QVBoxLayout(body);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(list_);
    auto* buttons = new QHBoxLayout;
    for (QPushButton* b : {colour_, up_, down_, remove_}) buttons->addWidget(b);
    layout->addLayout(buttons);
    auto* show = new QHBoxLayout;
    show->addWidget(new QLabel(tr("Show:")));
    labelMode_->setObjectName(QStringLiteral("LabelModeBox"));
    labelMode_->addItems({tr("Boxes and labels"), tr("Boxes only"), tr("Labels only")});
    labelMode_->setToolTip(tr("What the selected layer draws: its shapes with their labels, the shapes alone or the labels alone"));
    show->addWidget(labelMode_, 1);
    layout->addLayout(show);
    setWidget(body);
    list_->setMinimumHeight(40);
    list_->setToolTip(tr("Tick to show a layer; double-click to recolour it"));

    connect(&stack_, &LayerStack::layersChanged, this, &LayerDock::rebuild);
    connect(list_, &QListWidget::itemChanged, this, [this](QListWidgetItem* item) {
        if (rebuilding_) return;
        if (auto* layer = item->data(kLayerRole).value<OverlayLayer*>()) layer->setVisible(item->checkState() == Qt::Checked);
    });
    connect(list_, &QListWidget::itemDoubleClicked, this,
            [this](QListWidgetItem* item) { chooseColour(item->data(kLayerRole).value<OverlayLayer*>()); });
    connect(list_, &QListWidget::currentItemChanged, this, &LayerDock::showLabelMode);
    connect(labelMode_, &QComboBox::activated, this, [this](int index) {
        if (OverlayLayer* l = selectedLayer(); l && l->hasLabels()) l->setLabelMode(static_cast<OverlayLayer::LabelMode>(index));
    });
    connect(colour_, &QPushButton::clicked, this, [this] { chooseColour(selectedLayer()); });
    // The list shows the top layer first, so "up" moves towards the end of the stack.
    connect(up_, &QPushButton::clicked, this, [this] {
        if (OverlayLayer* l = selectedLayer()) stack_.move(l, stack_.indexOf(l) + 1);
    });
    connect(down_, &QPushButton::clicked, this, [this] {
        if (OverlayLayer* l = selectedLayer()) stack_.move(l, stack_.indexOf(l) - 1);
    });
    connect(remove_, &QPushButton::clicked, this, [this] {
        if (OverlayLayer* l = selectedLayer()) removeLayerUndoably(undo_, stack_, l);
    });
    rebuild();
}

OverlayLayer* LayerDock::selectedLayer() const {
    const QListWidgetItem* item = list_->currentItem();
    return item ? item->data(kLayerRole).value<OverlayLayer*>() : nullptr;
}

void LayerDock::chooseColour(OverlayLayer* layer) {
    if (!layer) return;
    const QColor c = QColorDialog::getColor(layer->colour(), this, tr("Colour of %1").arg(layer->name()));
    if (c.isValid()) layer->setColour(c);
}

void LayerDock::showLabelMode() {
    const OverlayLayer* layer = selectedLayer();
    const bool labelled = layer && layer->hasLabels();
    labelMode_->setEnabled(labelled);
    labelMode_->setCurrentIndex(labelled ? static_cast<int>(layer->labelMode()) : 0);
}

void LayerDock::rebuild() {
    rebuilding_ = true;
    OverlayLayer* keep = selectedLayer();
    list_->clear();
    const QList<OverlayLayer*>& layers = stack_.layers();
    for (auto it = layers.crbegin(); it != layers.crend(); ++it) {
        auto* item = new QListWidgetItem(swatch((*it)->colour()), (*it)->name(), list_);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState((*it)->isVisible() ? Qt::Checked : Qt::Unchecked);
        item->setData(kLayerRole, QVariant::fromValue(*it));
        if (*it == keep) list_->setCurrentItem(item);
    }
    const bool any = !layers.isEmpty();
    for (QPushButton* b : {colour_, up_, down_, remove_}) b->setEnabled(any);
    rebuilding_ = false;
    showLabelMode();
}

} // namespace glint::ui
