// BrightestModule's shapes and per-image state: the region of interest, the exclusion list (drawn, deleted, or found
// by the mammogram auto-exclusion on a worker), and what a newly opened image resets and starts from (its kind's
// preset in the panel's fields).
#include "ui/modules/BrightestModule.h"

#include "core/algo/brightest/BrightestSpec.h"
#include "core/algo/mammogram/AutoExclude.h"
#include "ui/AppContext.h"
#include "ui/jobs/LatestRequestRunner.h"
#include "ui/modules/BrightestPanel.h"
#include "ui/overlay/LayerStack.h"
#include "ui/overlay/ShapeLayer.h"
#include "ui/params/SpecForm.h"
#include "ui/results/ResultsModel.h"
#include "ui/undo/UndoCommands.h"

#include <QComboBox>
#include <QListWidget>
#include <QPushButton>
#include <QSignalBlocker>
#include <QUndoStack>

#include <algorithm>
#include <utility>

namespace glint::ui {

namespace {

const QColor kExclusionColour(255, 60, 200);
const QColor kRoiColour(80, 200, 255);

QString rectText(const QRect& r) {
    return QStringLiteral("x %1, y %2, %3 × %4").arg(r.x()).arg(r.y()).arg(r.width()).arg(r.height());
}

} // namespace

void BrightestModule::setRoi(const QRect& pixels) {
    if (!context().hasImage()) return;
    const QRect r = pixels.intersected(QRect(0, 0, context().image()->width(), context().image()->height()));
    if (r.isEmpty()) return;
    editRoi(roi_ ? tr("Change region of interest") : tr("Draw region of interest"), r);
}

void BrightestModule::clearRoi() {
    if (roi_) editRoi(tr("Clear region of interest"), std::nullopt);
}

void BrightestModule::editRoi(const QString& text, std::optional<QRect> after) {
    // One undoable step: the ROI before and after (ui/undo/UndoCommands.h).
    const QPointer<BrightestModule> self(this);
    const std::optional<QRect> before = roi_;
    const auto apply = [self](std::optional<QRect> roi) {
        if (!self) return;
        self->roi_ = roi;
        self->refreshRoi();
    };
    context().undoStack()->push(new ImageEditCommand(context(), text, [apply, before] { apply(before); },
                                                     [apply, after] { apply(after); }));
}

void BrightestModule::refreshRoi() {
    if (roi_ && !roiLayer_) {
        roiLayer_ = new ShapeLayer(tr("Brightest: region of interest"), kRoiColour);
        connect(roiLayer_, &QObject::destroyed, this, [this] { // removed in the Layers dock, or with the image
            roi_.reset();
            if (panel_) panel_->setRoiText({});
        });
        // The Layers dock's Remove clears the ROI as one step of Edit ▸ Undo (undo brings it back).
        roiLayer_->setRemoval([self = QPointer<BrightestModule>(this)] {
            if (self) self->clearRoi();
        });
        context().layers()->add(roiLayer_);
    }
    if (roi_ && roiLayer_) context().layers()->reattach(roiLayer_); // drawn again after its removal
    if (roiLayer_) {
        if (roi_) roiLayer_->setShapes({OverlayShape::pixelRectangle(*roi_, tr("ROI"))});
        else roiLayer_->clear();
    }
    if (panel_) panel_->setRoiText(roi_ ? tr("ROI: %1").arg(rectText(*roi_)) : QString());
}

void BrightestModule::addExclusionRectangle(const QRect& pixels) {
    if (!context().hasImage() || pixels.isEmpty()) return;
    QVector<Exclusion> after = exclusions_;
    after.append({false, pixels, {}});
    editExclusions(tr("Add exclusion rectangle"), std::move(after));
}

void BrightestModule::addExclusionPolygon(const QPolygonF& points) {
    if (!context().hasImage() || points.size() < 3) return;
    QVector<Exclusion> after = exclusions_;
    after.append({true, {}, points});
    editExclusions(tr("Add exclusion polygon"), std::move(after));
}

void BrightestModule::removeExclusion(int index) {
    if (index < 0 || index >= exclusions_.size()) return;
    QVector<Exclusion> after = exclusions_;
    after.remove(index);
    editExclusions(tr("Delete exclusion %1").arg(index + 1), std::move(after), index);
}

void BrightestModule::clearExclusions() {
    if (!exclusions_.isEmpty()) editExclusions(tr("Clear all exclusions"), {});
}

void BrightestModule::editExclusions(const QString& text, QVector<Exclusion> after, int select, const QString& undoneStatus,
                                     const QString& doneStatus) {
    // One undoable step: the whole list before and after, so that undo and redo give back exactly what was
    // shown (a deleted shape returns at its place in the list, Clear All returns every shape).
    const QPointer<BrightestModule> self(this);
    const QVector<Exclusion> before = exclusions_;
    const auto apply = [self](const QVector<Exclusion>& list, int row) {
        if (!self) return;
        self->exclusions_ = list;
        self->refreshExclusions();
        if (self->panel_ && row >= 0 && !list.isEmpty())
            self->panel_->exclusionList()->setCurrentRow(std::min(row, static_cast<int>(list.size()) - 1));
    };
    context().undoStack()->push(new ImageEditCommand(
        context(), text,
        [self, apply, before, select, undoneStatus] {
            apply(before, select);
            if (self && self->panel_ && !undoneStatus.isEmpty()) self->panel_->setStatus(undoneStatus);
        },
        [self, apply, after = std::move(after), select, doneStatus] {
            apply(after, select);
            if (self && self->panel_ && !doneStatus.isEmpty()) self->panel_->setStatus(doneStatus);
        }));
}

void BrightestModule::refreshExclusions() {
    if (!exclusions_.isEmpty() && !exclusionLayer_) {
        exclusionLayer_ = new BrightestExclusionLayer(tr("Brightest: exclusions"), kExclusionColour);
        connect(exclusionLayer_, &QObject::destroyed, this, [this] { // removed in the Layers dock, or with the image
            exclusions_.clear();
            if (panel_) panel_->exclusionList()->clear();
        });
        connect(exclusionLayer_, &OverlayLayer::selectionChanged, this, [this](int item) {
            if (panel_) panel_->exclusionList()->setCurrentRow(item);
        });
        // The Layers dock's Remove is the list's Clear All and the layer's removal, one step (undo restores both).
        exclusionLayer_->setRemoval([self = QPointer<BrightestModule>(this)] {
            if (self) self->clearExclusions();
        });
        context().layers()->add(exclusionLayer_);
    }
    if (!exclusions_.isEmpty() && exclusionLayer_) context().layers()->reattach(exclusionLayer_);
    QVector<OverlayShape> shapes;
    QStringList rows;
    for (int i = 0; i < exclusions_.size(); ++i) {
        const Exclusion& e = exclusions_[i];
        const QString label = QString::number(i + 1);
        shapes.append(e.polygon ? OverlayShape::polygon(e.points, label) : OverlayShape::pixelRectangle(e.rect, label));
        rows << (e.polygon ? tr("%1. Polygon, %2 vertices").arg(i + 1).arg(e.points.size())
                           : tr("%1. Rectangle %2").arg(i + 1).arg(rectText(e.rect)));
    }
    if (exclusionLayer_) exclusionLayer_->setShapes(std::move(shapes));
    if (!panel_) return;
    QListWidget* list = panel_->exclusionList();
    const QSignalBlocker block(list);
    list->clear();
    list->addItems(rows);
    panel_->deleteExclusionButton()->setEnabled(!rows.isEmpty());
    panel_->clearExclusionsButton()->setEnabled(!rows.isEmpty());
}

void BrightestModule::onImageChanged() {
    // The old image's layers are gone (and with them its ROI and exclusions): pixel positions belong to one image.
    cancelAutoExclusion();
    roi_.reset();
    exclusions_.clear();
    refreshRoi();
    refreshExclusions();
    runLayers_.clear();
    lastResults_.clear();
    runs_.clear();
    runCount_ = 0;
    // The kind: found anew for this image, or the one chosen for this file earlier in the session.
    detected_.reset();
    detectedFor_ = nullptr;
    autoShapes_.clear();
    chosenKind_.reset();
    if (context().hasImage() && kindByPath_.contains(context().imagePath())) chosenKind_ = kindByPath_.value(context().imagePath());
    refreshKindBox();
    if (!panel_) return;
    panel_->setStatus({});
    if (context().hasImage()) panel_->setImageMean(context().loaded().stats.mean);
    applyImageDefaults();
}

void BrightestModule::applyImageDefaults() {
    // Useful first answers: the brightest spec's preset for the image's kind (core decides the kind, as
    // --preset auto does), with the mammogram's exclusions found on a worker. Fields the user changed keep the
    // user's values.
    if (!panel_ || !context().hasImage()) return;
    const glint::Json preset = glint::brightestSpec().presetValues(kind());
    panel_->form()->setDefaults(preset);
    if (preset["auto_exclude"] == "mammogram") autoExclude();
}

glint::ImageKind BrightestModule::detectedKind() const {
    const std::shared_ptr<const glint::Image> image = context().image();
    if (!image) return glint::ImageKind::Other;
    if (!detected_ || detectedFor_ != image.get()) {
        detected_ = glint::classifyImage(*image);
        detectedFor_ = image.get();
    }
    return detected_->kind;
}

void BrightestModule::refreshKindBox() {
    if (!panel_) return;
    QComboBox* box = panel_->kindBox();
    const QSignalBlocker block(box);
    box->clear();
    const bool hasImage = context().hasImage();
    box->addItem(hasImage ? tr("auto (%1)").arg(QString::fromLatin1(glint::imageKindName(detectedKind()))) : tr("auto"),
                 QStringLiteral("auto"));
    if (hasImage && detected_ && !detected_->reason.empty())
        box->setItemData(0, tr("Found from the image: %1").arg(QString::fromStdString(detected_->reason)), Qt::ToolTipRole);
    for (const glint::ImageKind k : {glint::ImageKind::Sky, glint::ImageKind::Mammogram, glint::ImageKind::Aerial,
                                     glint::ImageKind::Other}) {
        const QString name = QString::fromLatin1(glint::imageKindName(k));
        box->addItem(name, name);
    }
    box->setCurrentIndex(chosenKind_ ? box->findData(QString::fromLatin1(glint::imageKindName(*chosenKind_))) : 0);
    box->setEnabled(hasImage);
}

void BrightestModule::setKindState(std::optional<glint::ImageKind> kind, const glint::Json& values,
                                   const QVector<Exclusion>& exclusions) {
    chosenKind_ = kind;
    if (context().hasImage()) {
        if (kind) kindByPath_.insert(context().imagePath(), *kind);
        else kindByPath_.remove(context().imagePath());
    }
    if (panel_) panel_->form()->setValues(values);
    exclusions_ = exclusions;
    refreshExclusions();
    refreshKindBox();
}

void BrightestModule::chooseKind(std::optional<glint::ImageKind> kind) {
    if (!panel_ || !context().hasImage() || kind == chosenKind_) {
        refreshKindBox();
        return;
    }
    const glint::ParamSpec<glint::BrightestParams>& spec = glint::brightestSpec();
    const glint::ImageKind before = this->kind();
    const glint::ImageKind after = kind ? *kind : detectedKind();
    const bool autoBefore = spec.presetValues(before)["auto_exclude"] == "mammogram";
    const bool autoAfter = spec.presetValues(after)["auto_exclude"] == "mammogram";
    const std::optional<glint::ImageKind> beforeChoice = chosenKind_;
    const glint::Json beforeValues = panel_->form()->allValues();
    const QVector<Exclusion> beforeShapes = exclusions_;
    cancelAutoExclusion();

    // The form as opening an image of that kind sets it (the fields the user changed keep the user's values).
    panel_->form()->setDefaults(spec.presetValues(after));
    const glint::Json afterValues = panel_->form()->allValues();
    auto shapes = std::make_shared<KindShapes>();
    shapes->list = exclusions_;
    if (autoBefore && !autoAfter) { // the mammogram's automatic shapes go with its kind; drawn ones stay
        const auto same = [](const Exclusion& a, const Exclusion& b) {
            return a.polygon == b.polygon && (a.polygon ? a.points == b.points : a.rect == b.rect);
        };
        shapes->list.removeIf([&](const Exclusion& e) {
            return std::any_of(autoShapes_.begin(), autoShapes_.end(), [&](const Exclusion& a) { return same(a, e); });
        });
    }
    shapes->pending = !autoBefore && autoAfter;
    setKindState(kind, afterValues, shapes->list);

    const QPointer<BrightestModule> self(this);
    const QString name = kind ? QString::fromLatin1(glint::imageKindName(*kind))
                              : tr("auto (%1)").arg(QString::fromLatin1(glint::imageKindName(after)));
    context().undoStack()->push(new ImageEditCommand(
        context(), tr("Kind: %1").arg(name),
        [self, beforeChoice, beforeValues, beforeShapes] {
            if (!self) return;
            self->cancelAutoExclusion();
            self->setKindState(beforeChoice, beforeValues, beforeShapes);
        },
        [self, kind, afterValues, shapes] {
            if (!self) return;
            self->cancelAutoExclusion();
            self->setKindState(kind, afterValues, shapes->list);
            if (shapes->pending) { // undone before its shapes came: find them again
                self->kindStepShapes_ = shapes;
                self->autoExclude();
            }
        },
        true));
    if (shapes->pending) {
        kindStepShapes_ = shapes;
        autoExclude();
    }
    panel_->setStatus(tr("Kind %1: its defaults are set (Edit ▸ Undo takes them back).").arg(name));
}

void BrightestModule::cancelAutoExclusion() {
    kindStepShapes_.reset();
    autoRunner_->cancelAll();
    autoExcludePending_ = false;
    pendingRunK_ = -1;
    pendingSweep_ = false;
}

bool BrightestModule::autoExclude() {
    if (!context().hasImage()) {
        fail(tr("Open an image first."));
        return false;
    }
    const std::shared_ptr<const glint::Image> image = context().image();
    auto found = std::make_shared<glint::MammogramExclusions>();
    autoExcludePending_ = true;
    if (panel_) panel_->setStatus(tr("Finding the mammogram's exclusions…"));
    autoRunner_->request(
        [image, found](glint::JobControl&) { *found = glint::mammogramAutoExclusions(*image); },
        [this, image, found] {
            autoExcludePending_ = false;
            if (context().image() != image) return; // another image meanwhile
            QVector<Exclusion> after = exclusions_;
            for (const glint::AutoExclusion& e : found->shapes) {
                if (e.isRect) {
                    after.append({false, QRect(e.rect.x, e.rect.y, e.rect.width, e.rect.height), {}});
                    continue;
                }
                QPolygonF points;
                for (const auto& [x, y] : e.polygon.points) points << QPointF(x, y);
                if (points.size() >= 3) after.append({true, {}, points});
            }
            const QString note = QString::fromStdString(found->note);
            const int added = static_cast<int>(found->shapes.size());
            const QString status = added == 0 ? tr("Auto-exclusion: no shape. %1").arg(note)
                                              : tr("Auto-exclusion: %1 shapes added (edit or delete them in the list). %2")
                                                    .arg(added)
                                                    .arg(note);
            autoShapes_ = after.mid(exclusions_.size());
            if (const std::shared_ptr<KindShapes> step = std::exchange(kindStepShapes_, nullptr)) {
                // Part of the kind's step: undoing the kind takes them away with it.
                step->list = after;
                step->pending = false;
                exclusions_ = std::move(after);
                refreshExclusions();
            } else if (after.size() != exclusions_.size())
                editExclusions(tr("Auto-exclusion (mammogram)"), std::move(after), -1,
                               tr("Auto-exclusion undone: its shapes are removed (Edit ▸ Redo brings them back)."), status);
            if (panel_) panel_->setStatus(status);
            emit autoExclusionsAdded(added);
            if (pendingRunK_ >= 0) {
                const int k = pendingRunK_;
                pendingRunK_ = -1;
                pendingSweep_ = false;
                start({}, k);
            } else if (pendingSweep_) {
                pendingSweep_ = false;
                runSweep();
            }
        });
    return true;
}

} // namespace glint::ui
