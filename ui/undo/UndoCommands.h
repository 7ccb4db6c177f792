// Undo/redo for the window's edits (issue 34): one QUndoStack for the current image (AppContext::undoStack(),
// emptied when another image becomes current), the Edit menu's Undo/Redo actions that name what they undo, and the
// command every edit pushes: what to do and what to undo, bound to the image it was made on.
#pragma once

#include <QString>
#include <QUndoCommand>

#include <functional>
#include <memory>

class QCheckBox;
class QComboBox;
class QMainWindow;
class QUndoStack;

namespace glint {
class Image;
}

namespace glint::ui {

class AppContext;

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

// A panel's own combo box or check box (outside its SpecForm: a backend, "Show guides"): each choice the user
// makes in it is one step of `stack` ("Change Backend"); undo and redo set it back (its usual signals follow).
void undoableChoice(QUndoStack* stack, QComboBox* box, const QString& name);
void undoableChoice(QUndoStack* stack, QCheckBox* box, const QString& name);

// Edit ▸ Undo / Redo (Ctrl+Z; Ctrl+Shift+Z and Ctrl+Y), before the window's View menu, on the context's stack;
// the window's parameter forms (SpecForm) push their changes to it.
void installEditMenu(QMainWindow& window, AppContext& context);

} // namespace glint::ui
