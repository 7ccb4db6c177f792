// What the canvas draws over the image: a stack of layers, each with a name, visibility, colour, an
// optional selected item and hit-testing, painted in image coordinates through one ViewTransform.
#pragma once

#include "ui/canvas/ViewTransform.h"

#include <QColor>
#include <QObject>
#include <QRectF>
#include <QString>

#include <functional>

class QPainter;

namespace glint::ui {

class OverlayLayer : public QObject {
    Q_OBJECT
public:
    OverlayLayer(const QString& name, const QColor& colour, QObject* parent = nullptr);

    QString name() const { return name_; }
    void setName(const QString& name);
    bool isVisible() const { return visible_; }
    void setVisible(bool visible);
    QColor colour() const { return colour_; }
    void setColour(const QColor& colour);
    // What a layer with labelled items (regions, sources) draws: both, the shapes alone or the labels alone
    // (the Layers dock's Show box). Layers without labels ignore it.
    enum class LabelMode { BoxesAndLabels, BoxesOnly, LabelsOnly };
    virtual bool hasLabels() const { return false; }
    LabelMode labelMode() const { return labelMode_; }
    void setLabelMode(LabelMode mode);
    bool showsShapes() const { return labelMode_ != LabelMode::LabelsOnly; }
    bool showsLabels() const { return labelMode_ != LabelMode::BoxesOnly; }
    // Layers that belong to one image (results, drawn shapes) are removed when another image is opened.
    bool removedWithImage() const { return removedWithImage_; }
    // Whether the Layers dock's Remove can be undone: a layer that only shows results (regions, sources, a sweep's
    // legend, the common components) is kept while the step is on the undo stack. A layer a module reads its input
    // from (exclusions, an ROI, traces) gives the module's own undoable clear (setRemoval), so that the removal
    // empties that input as one step with the layer's. Other layers are deleted at once.
    virtual bool undoableRemoval() const { return static_cast<bool>(removal_); }
    // The module's undoable clear of the input this layer shows (BrightestModule::clearExclusions, ...): the Layers
    // dock's Remove runs it and detaches the layer in one step of Edit ▸ Undo.
    void setRemoval(std::function<void()> clearInput) { removal_ = std::move(clearInput); }
    const std::function<void()>& removal() const { return removal_; }
    void setRemovedWithImage(bool removed) { removedWithImage_ = removed; }

    // Items: what selection, hit-testing and "centre on" refer to. A layer without items has count 0.
    virtual int itemCount() const { return 0; }
    virtual QRectF itemBounds(int /*index*/) const { return {}; } // image coordinates
    // The topmost item within `tolerance` image pixels of the point, or -1.
    virtual int hitTest(QPointF /*imagePoint*/, double /*tolerance*/) const { return -1; }
    int selected() const { return selected_; }
    void setSelected(int index); // -1 clears

    virtual void paint(QPainter& painter, const ViewTransform& view) const = 0;

    // The painter's whole device in the coordinates layers draw in: the widget's rectangle on the canvas;
    // in an exported picture, whose painter scales overlays up, the picture scaled down by that factor.
    static QRectF paintArea(const QPainter& painter);
    // Device pixels per drawing unit (1 on the canvas).
    static double deviceScale(const QPainter& painter);

signals:
    void changed();                      // the canvas repaints
    void selectionChanged(int index);    // -1: nothing selected
    void propertiesChanged();            // name, visibility or colour (the layer list updates)

protected:
    // Subclasses call this after changing their items.
    void itemsChanged();

private:
    QString name_;
    QColor colour_;
    bool visible_ = true;
    LabelMode labelMode_ = LabelMode::BoxesAndLabels;
    bool removedWithImage_ = true;
    std::function<void()> removal_;
    int selected_ = -1;
};

} // namespace glint::ui
