#include "ui/undo/UndoCommands.h"

#include "ui/AppContext.h"
#include "ui/params/SpecForm.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QPointer>
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

namespace {

// A choice of a plain widget: `set` gives it a value; the first redo is the user's choice, already made.
class ChoiceCommand : public QUndoCommand {
public:
    ChoiceCommand(const QString& text, std::function<bool(bool)> set) : QUndoCommand(text), set_(std::move(set)) {}
    void undo() override {
        if (!set_(false)) setObsolete(true); // the widget is gone
    }
    void redo() override {
        if (first_) {
            first_ = false;
            return;
        }
        if (!set_(true)) setObsolete(true);
    }

private:
    std::function<bool(bool)> set_;
    bool first_ = true;
};

} // namespace

void undoableChoice(QUndoStack* stack, QComboBox* box, const QString& name) {
    if (!stack || !box) return;
    // activated() is the user's choice only, and comes after currentIndexChanged(): the index before it is kept
    // as `previous` by the change that precedes it.
    struct State {
        int current = -1;
        int previous = -1;
        bool restoring = false;
    };
    auto state = std::make_shared<State>();
    state->current = box->currentIndex();
    QObject::connect(box, &QComboBox::currentIndexChanged, stack, [state](int index) {
        state->previous = state->current;
        state->current = index;
    });
    const QPointer<QComboBox> widget(box);
    QObject::connect(box, &QComboBox::activated, stack, [stack, widget, state, name](int index) {
        if (state->restoring || state->previous == index || state->previous < 0) return;
        const int before = state->previous;
        state->previous = index;
        stack->push(new ChoiceCommand(QObject::tr("Change %1").arg(name), [widget, state, before, index](bool redo) {
            if (!widget) return false;
            state->restoring = true;
            widget->setCurrentIndex(redo ? index : before);
            state->restoring = false;
            return true;
        }));
    });
}

void undoableChoice(QUndoStack* stack, QCheckBox* box, const QString& name) {
    if (!stack || !box) return;
    const QPointer<QCheckBox> widget(box);
    QObject::connect(box, &QCheckBox::clicked, stack, [stack, widget, name](bool checked) { // the user's click only
        stack->push(new ChoiceCommand(QObject::tr("Change %1").arg(name), [widget, checked](bool redo) {
            if (!widget) return false;
            widget->setChecked(redo ? checked : !checked);
            return true;
        }));
    });
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
