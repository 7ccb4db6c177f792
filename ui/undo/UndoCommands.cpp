#include "ui/undo/UndoCommands.h"

#include "ui/AppContext.h"
#include "ui/params/SpecForm.h"

#include <QAction>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QStatusBar>
#include <QUndoStack>

#include <utility>

namespace glint::ui {

ImageEditCommand::ImageEditCommand(AppContext& context, const QString& text, std::function<void()> undo,
                                   std::function<void()> redo, bool done)
    : QUndoCommand(text), context_(context), image_(context.image()), undo_(std::move(undo)), redo_(std::move(redo)),
      skipRedo_(done) {}

bool ImageEditCommand::onItsImage() const {
    const std::shared_ptr<const glint::Image> image = image_.lock();
    return image && image == context_.image();
}

bool ImageEditCommand::check() {
    if (onItsImage()) return true;
    // The image it was made on is gone: nothing of it applies to another one. Obsolete: the stack drops it.
    setObsolete(true);
    if (QMainWindow* window = context_.window())
        window->statusBar()->showMessage(QObject::tr("Cannot undo or redo “%1”: its image is no longer open").arg(text()), 8000);
    return false;
}

void ImageEditCommand::undo() {
    if (check() && undo_) undo_();
}

void ImageEditCommand::redo() {
    if (skipRedo_) {
        skipRedo_ = false;
        return;
    }
    if (check() && redo_) redo_();
}

void installEditMenu(QMainWindow& window, AppContext& context) {
    QUndoStack* stack = context.undoStack();
    auto* edit = new QMenu(QObject::tr("&Edit"), &window);
    edit->setObjectName(QStringLiteral("EditMenu"));
    QAction* undo = stack->createUndoAction(edit, QObject::tr("Undo"));
    undo->setObjectName(QStringLiteral("UndoAction"));
    undo->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Z));
    QAction* redo = stack->createRedoAction(edit, QObject::tr("Redo"));
    redo->setObjectName(QStringLiteral("RedoAction"));
    redo->setShortcuts({QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z), QKeySequence(Qt::CTRL | Qt::Key_Y)});
    edit->addAction(undo);
    edit->addAction(redo);
    // After File, before View (the second menu of the bar), as in other programs.
    // Every parameter form of the window (the modules' panels are made by now): a change is a command.
    for (SpecForm* form : window.findChildren<SpecForm*>()) form->setUndoStack(stack);
    const QList<QAction*> menus = window.menuBar()->actions();
    if (menus.size() > 1) window.menuBar()->insertMenu(menus.at(1), edit);
    else window.menuBar()->addMenu(edit);
}

} // namespace glint::ui
