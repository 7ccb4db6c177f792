#include "ui/undo/UndoCommands.h"

#include "ui/AppContext.h"
#include "ui/overlay/LayerStack.h"
#include "ui/params/SpecForm.h"

#include <QAbstractSlider>
#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QLineEdit>
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

bool sameDisplay(const glint::DisplaySettings& a, const glint::DisplaySettings& b) {
    return a.scale == b.scale && a.limits == b.limits && a.percentile == b.percentile && a.low == b.low &&
           a.high == b.high && a.colormap == b.colormap;
}

DisplaySettingsCommand::DisplaySettingsCommand(AppContext& context, const QString& text,
                                               const glint::DisplaySettings& before, const glint::DisplaySettings& after,
                                               const QString& gesture, bool timeLimited)
    : DisplaySettingsCommand(context, text, std::make_shared<State>(State{before, after}), gesture, timeLimited) {}

DisplaySettingsCommand::DisplaySettingsCommand(AppContext& context, const QString& text, std::shared_ptr<State> state,
                                               const QString& gesture, bool timeLimited)
    : ImageEditCommand(
          context, text, [&context, state] { context.setDisplaySettings(state->before); },
          [&context, state] { context.setDisplaySettings(state->after); }, true),
      state_(std::move(state)), gesture_(gesture), timeLimited_(timeLimited) {
    last_.start();
}

bool DisplaySettingsCommand::mergeWith(const QUndoCommand* other) {
    const auto* next = dynamic_cast<const DisplaySettingsCommand*>(other);
    if (!next || next->gesture_ != gesture_ || gesture_.isEmpty() || !onItsImage() || !next->onItsImage()) return false;
    if (timeLimited_ && last_.elapsed() > kMergeMs) return false;
    state_->after = next->state_->after;
    last_.restart();
    if (sameDisplay(state_->before, state_->after)) setObsolete(true); // dragged back to where it started: no step
    return true;
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

namespace {

// A slider's change from one value to another; the keyboard's steps merge within a second.
class SliderCommand : public QUndoCommand {
public:
    SliderCommand(const QString& text, QPointer<QAbstractSlider> slider, int before, int after, bool merges)
        : QUndoCommand(text), slider_(std::move(slider)), before_(before), after_(after), merges_(merges) {
        last_.start();
    }
    int id() const override { return merges_ ? 0x3402 : -1; }
    bool mergeWith(const QUndoCommand* other) override {
        const auto* next = dynamic_cast<const SliderCommand*>(other);
        if (!next || !next->merges_ || next->slider_ != slider_ || last_.elapsed() > DisplaySettingsCommand::kMergeMs) return false;
        after_ = next->after_;
        last_.restart();
        if (after_ == before_) setObsolete(true);
        return true;
    }
    void undo() override { set(before_); }
    void redo() override {
        if (first_) {
            first_ = false;
            return;
        }
        set(after_);
    }

private:
    void set(int value) {
        if (!slider_) {
            setObsolete(true);
            return;
        }
        slider_->setValue(value);
    }
    QPointer<QAbstractSlider> slider_;
    int before_, after_;
    bool merges_;
    bool first_ = true;
    QElapsedTimer last_;
};

} // namespace

void undoableSlider(QUndoStack* stack, QAbstractSlider* slider, const QString& name) {
    if (!stack || !slider) return;
    const QPointer<QAbstractSlider> widget(slider);
    auto pressedAt = std::make_shared<int>(slider->value());
    QObject::connect(slider, &QAbstractSlider::sliderPressed, stack, [widget, pressedAt] {
        if (widget) *pressedAt = widget->value();
    });
    QObject::connect(slider, &QAbstractSlider::sliderReleased, stack, [stack, widget, pressedAt, name] {
        if (!widget || widget->value() == *pressedAt) return;
        stack->push(new SliderCommand(QObject::tr("Change %1").arg(name), widget, *pressedAt, widget->value(), false));
    });
    // Keyboard, wheel, a click on the groove: the position is moved, the value follows just after this signal.
    QObject::connect(slider, &QAbstractSlider::actionTriggered, stack, [stack, widget, name](int action) {
        if (!widget || action == QAbstractSlider::SliderMove || widget->isSliderDown()) return;
        const int before = widget->value(), after = widget->sliderPosition();
        if (before != after) stack->push(new SliderCommand(QObject::tr("Change %1").arg(name), widget, before, after, true));
    });
}

namespace {

class RemoveLayerCommand : public QUndoCommand {
public:
    RemoveLayerCommand(LayerStack& layers, OverlayLayer* layer)
        : QUndoCommand(QObject::tr("Remove Layer “%1”").arg(layer->name())), layers_(&layers), layer_(layer),
          index_(layers.indexOf(layer)), visible_(layer->isVisible()) {}
    ~RemoveLayerCommand() override {
        if (layers_ && layer_ && layers_->indexOf(layer_) < 0) delete layer_.data(); // still removed: for good
    }
    void redo() override {
        if (!layers_ || !layer_) return setObsolete(true);
        layer_->setSelected(-1);
        layer_->setVisible(false); // a legend that refers to it shows it hidden
        layers_->detach(layer_);
    }
    void undo() override {
        if (!layers_ || !layer_) return setObsolete(true); // its module dropped it meanwhile
        layers_->attach(layer_, index_);
        layer_->setVisible(visible_);
    }

private:
    QPointer<LayerStack> layers_;
    QPointer<OverlayLayer> layer_;
    int index_;
    bool visible_;
};

} // namespace

void removeLayerUndoably(QUndoStack* stack, LayerStack& layers, OverlayLayer* layer) {
    if (!layer || layers.indexOf(layer) < 0) return;
    if (!stack || !layer->undoableRemoval()) {
        layers.remove(layer);
        return;
    }
    if (!layer->removal()) {
        stack->push(new RemoveLayerCommand(layers, layer));
        return;
    }
    // The module's own clear of the input the layer shows (its shapes, its traces), then the layer's removal: one
    // step. Undo puts the layer back first, then the module's input (exactly the shapes or traces it had).
    stack->beginMacro(QObject::tr("Remove Layer “%1”").arg(layer->name()));
    const QPointer<OverlayLayer> kept(layer);
    layer->removal()();
    if (kept && layers.indexOf(kept) >= 0) stack->push(new RemoveLayerCommand(layers, kept));
    stack->endMacro();
}

void undoableText(QUndoStack* stack, QLineEdit* edit, const QString& name) {
    if (!stack || !edit) return;
    struct State {
        QString committed;
        bool edited = false;
    };
    auto state = std::make_shared<State>();
    state->committed = edit->text();
    const QPointer<QLineEdit> widget(edit);
    QObject::connect(edit, &QLineEdit::textEdited, stack, [state] { state->edited = true; });
    QObject::connect(edit, &QLineEdit::textChanged, stack, [state](const QString& text) {
        if (!state->edited) state->committed = text; // set by the program (a session, undo): no step
    });
    QObject::connect(edit, &QLineEdit::editingFinished, stack, [stack, widget, state, name] {
        if (!widget || !state->edited) return;
        state->edited = false;
        const QString before = state->committed, after = widget->text();
        state->committed = after;
        if (before == after) return;
        stack->push(new ChoiceCommand(QObject::tr("Edit %1").arg(name), [widget, before, after](bool redo) {
            if (!widget) return false;
            widget->setText(redo ? after : before);
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
