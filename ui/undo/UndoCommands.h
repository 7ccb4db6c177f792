// Undo/redo for the window's edits (issue 34): one QUndoStack for the current image (AppContext::undoStack(),
// emptied when another image becomes current), the Edit menu's Undo/Redo actions that name what they undo, and the
// command every edit pushes: what to do and what to undo, bound to the image it was made on.
#pragma once

#include "core/display/Display.h"

#include <QElapsedTimer>
#include <QString>
#include <QUndoCommand>

#include <functional>
#include <memory>

class QAbstractSlider;
class QCheckBox;
class QComboBox;
class QLineEdit;
class QMainWindow;
class QUndoStack;

namespace glint {
class Image;
}

namespace glint::ui {

class AppContext;
class LayerStack;
class OverlayLayer;

// An edit of the current image's state (its shapes, traces, a module's fields): `redo` makes it, `undo` takes it
// back. The command belongs to the image that was current when it was made: on any other image (or none) it
// refuses (a status-bar message, nothing applied) and drops out of the stack. `done` says the edit is already made
// (push() then does not run `redo` a second time).
class ImageEditCommand : public QUndoCommand {
public:
    ImageEditCommand(AppContext& context, const QString& text, std::function<void()> undo, std::function<void()> redo,
                     bool done = false);
    void undo() override;
    void redo() override;
    // Whether the command's image is still the current one.
    bool onItsImage() const;

private:
    bool check();
    AppContext& context_;
    std::weak_ptr<const glint::Image> image_;
    std::function<void()> undo_;
    std::function<void()> redo_;
    bool skipRedo_;
};

// A user's change of the current image's display settings (scale, limits, colour map): undo sets `before` back,
// redo `after` (ImageEditCommand's image binding: on another image it refuses). Changes with the same non-empty
// `gesture` merge into one step: a histogram drag (its changes share one gesture), or a spin box edited again
// within kMergeMs of its previous change (typing "120" is one step, not three).
class DisplaySettingsCommand : public ImageEditCommand {
public:
    static constexpr int kId = 0x3401;
    static constexpr qint64 kMergeMs = 1000;
    DisplaySettingsCommand(AppContext& context, const QString& text, const glint::DisplaySettings& before,
                           const glint::DisplaySettings& after, const QString& gesture, bool timeLimited);
    int id() const override { return gesture_.isEmpty() ? -1 : kId; }
    bool mergeWith(const QUndoCommand* other) override;

private:
    struct State {
        glint::DisplaySettings before, after;
    };
    DisplaySettingsCommand(AppContext& context, const QString& text, std::shared_ptr<State> state, const QString& gesture,
                           bool timeLimited);
    std::shared_ptr<State> state_;
    QString gesture_;
    bool timeLimited_;
    QElapsedTimer last_; // since the last change merged in
};

// Whether two display settings are the same (every field).
bool sameDisplay(const glint::DisplaySettings& a, const glint::DisplaySettings& b);

// The Layers dock's Remove of a layer that only shows results (OverlayLayer::undoableRemoval): the layer is hidden
// and detached, kept while this step is on the stack; undo puts it back where it was, visible as it was. When the
// step leaves the stack (another image, a new edit after undo) the detached layer is deleted. A layer with a
// removal (OverlayLayer::setRemoval: a module's input) runs it and is detached in the same step (a macro).
void removeLayerUndoably(QUndoStack* stack, LayerStack& layers, OverlayLayer* layer);

// A panel's own combo box or check box (outside its SpecForm: a backend, "Show guides"): each choice the user
// makes in it is one step of `stack` ("Change Backend"); undo and redo set it back (its usual signals follow).
void undoableChoice(QUndoStack* stack, QComboBox* box, const QString& name);
void undoableChoice(QUndoStack* stack, QCheckBox* box, const QString& name);
// A slider (the blend's B opacity): a drag is one step, from where it was pressed to where it was let go; the
// keyboard's, wheel's and groove's steps are one step while they follow each other within a second.
void undoableSlider(QUndoStack* stack, QAbstractSlider* slider, const QString& name);
// A line of text (the pivot sweep): each edit the user finishes (Return, or leaving the field) with a new text is
// one step; undo and redo set the text back (textChanged follows, textEdited does not).
void undoableText(QUndoStack* stack, QLineEdit* edit, const QString& name);

// Edit ▸ Undo / Redo (Ctrl+Z; Ctrl+Shift+Z and Ctrl+Y), before the window's View menu, on the context's stack;
// the window's parameter forms (SpecForm) push their changes to it.
void installEditMenu(QMainWindow& window, AppContext& context);

} // namespace glint::ui
