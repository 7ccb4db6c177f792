// SourcesModule's shapes: the region of interest and the exclusions drawn on the canvas (as the Brightest
// module's, with its hatched exclusion layer), in the request as the sources spec's roi, exclude and
// exclude_polygon. They belong to one image; a map shown meanwhile keeps them for the image's return.
#include "ui/modules/SourcesModule.h"

#include "ui/canvas/ImageCanvas.h"
#include "ui/canvas/ShapeTools.h"
#include "ui/modules/BrightestLayers.h"
#include "ui/modules/SourcesPanel.h"
#include "ui/overlay/LayerStack.h"
#include "ui/overlay/ShapeLayer.h"
#include "ui/undo/UndoCommands.h"

#include <QPointer>
#include <QUndoStack>

namespace glint::ui {

namespace {
const QColor kExclusionColour(255, 60, 200);
const QColor kRoiColour(80, 200, 255);
} // namespace

ShapeLayer* SourcesModule::roiLayer() const { return roiLayer_; }
ShapeLayer* SourcesModule::exclusionLayer() const { return exclusionLayer_; }

void SourcesModule::setRoi(const QRect& pixels) {
    if (!context().hasImage() || showingMap_) return;
    const QRect r = pixels.intersected(QRect(0, 0, context().image()->width(), context().image()->height()));
    if (r.isEmpty()) return;
    editShapes(roi_ ? tr("Change region of interest") : tr("Draw region of interest"), r, exclusions_);
}

void SourcesModule::clearRoi() {
    if (roi_) editShapes(tr("Clear region of interest"), std::nullopt, exclusions_);
}

void SourcesModule::addExclusionRectangle(const QRect& pixels) {
    if (!context().hasImage() || showingMap_ || pixels.isEmpty()) return;
    QVector<Exclusion> after = exclusions_;
    after.append({false, pixels, {}});
    editShapes(tr("Add exclusion rectangle"), roi_, std::move(after));
}

void SourcesModule::addExclusionPolygon(const QPolygonF& points) {
    if (!context().hasImage() || showingMap_ || points.size() < 3) return;
    QVector<Exclusion> after = exclusions_;
    after.append({true, {}, points});
    editShapes(tr("Add exclusion polygon"), roi_, std::move(after));
}

void SourcesModule::clearExclusions() {
    if (!exclusions_.isEmpty()) editShapes(tr("Clear all exclusions"), roi_, {});
}

void SourcesModule::editShapes(const QString& text, std::optional<QRect> roi, QVector<Exclusion> exclusions) {
    // One step of Edit ▸ Undo: the ROI and the exclusions before and after.
    const QPointer<SourcesModule> self(this);
    const auto apply = [self](const std::optional<QRect>& r, const QVector<Exclusion>& list) {
        if (!self) return;
        self->roi_ = r;
        self->exclusions_ = list;
        self->refreshShapes();
    };
    context().undoStack()->push(new ImageEditCommand(
        context(), text, [apply, r = roi_, list = exclusions_] { apply(r, list); },
        [apply, roi, list = std::move(exclusions)] { apply(roi, list); }));
}

void SourcesModule::refreshShapes() {
    AppContext& ctx = context();
    const bool onImage = ctx.hasImage() && !showingMap_;
    if (onImage && roi_ && !roiLayer_) {
        roiLayer_ = new ShapeLayer(tr("Sources: region of interest"), kRoiColour);
        connect(roiLayer_, &QObject::destroyed, this, [this] { // removed in the Layers dock, or with the image
            if (switching_) return;
            roi_.reset();
            refreshShapes();
        });
        // The Layers dock's Remove clears the ROI as one step of Edit ▸ Undo (undo brings it back).
        roiLayer_->setRemoval([self = QPointer<SourcesModule>(this)] {
            if (self) self->clearRoi();
        });
        ctx.layers()->add(roiLayer_);
    }
    if (onImage && roi_ && roiLayer_) ctx.layers()->reattach(roiLayer_); // drawn again after its removal
    if (roiLayer_) {
        if (roi_) roiLayer_->setShapes({OverlayShape::pixelRectangle(*roi_, tr("ROI"))});
        else roiLayer_->clear();
    }
    if (onImage && !exclusions_.isEmpty() && !exclusionLayer_) {
        exclusionLayer_ = new BrightestExclusionLayer(tr("Sources: exclusions"), kExclusionColour);
        connect(exclusionLayer_, &QObject::destroyed, this, [this] {
            if (switching_) return;
            exclusions_.clear();
            refreshShapes();
        });
        // The Layers dock's Remove is Clear All and the layer's removal, one step (undo restores both).
        exclusionLayer_->setRemoval([self = QPointer<SourcesModule>(this)] {
            if (self) self->clearExclusions();
        });
        ctx.layers()->add(exclusionLayer_);
    }
    if (onImage && !exclusions_.isEmpty() && exclusionLayer_) ctx.layers()->reattach(exclusionLayer_);
    QVector<OverlayShape> shapes;
    for (int i = 0; i < exclusions_.size(); ++i) {
        const Exclusion& e = exclusions_[i];
        const QString label = QString::number(i + 1);
        shapes.append(e.polygon ? OverlayShape::polygon(e.points, label) : OverlayShape::pixelRectangle(e.rect, label));
    }
    if (exclusionLayer_) exclusionLayer_->setShapes(std::move(shapes));
    if (!panel_) return;
    QString text = roi_ ? tr("ROI x %1, y %2, %3 × %4").arg(roi_->x()).arg(roi_->y()).arg(roi_->width()).arg(roi_->height())
                        : tr("Whole image");
    if (!exclusions_.isEmpty()) text += tr("; %n exclusion(s)", nullptr, static_cast<int>(exclusions_.size()));
    panel_->setShapesText(text, roi_.has_value(), !exclusions_.isEmpty());
}

void SourcesModule::addShapesTo(glint::Json& request) const {
    if (roi_) request["roi"] = glint::Json::array({roi_->x(), roi_->y(), roi_->width(), roi_->height()});
    glint::Json rects = glint::Json::array(), polygons = glint::Json::array();
    for (const Exclusion& e : exclusions_) {
        if (!e.polygon) {
            rects.push_back(glint::Json::array({e.rect.x(), e.rect.y(), e.rect.width(), e.rect.height()}));
            continue;
        }
        glint::Json points = glint::Json::array();
        for (const QPointF& p : e.points) points.push_back(glint::Json::array({p.x(), p.y()}));
        polygons.push_back(std::move(points));
    }
    if (!rects.empty()) request["exclude"] = std::move(rects);
    if (!polygons.empty()) request["exclude_polygon"] = std::move(polygons);
}

} // namespace glint::ui
