#include "ui/params/SpecForm.h"

#include "core/algo/regions/RegionSearch.h"
#include "ui/params/BoundSpinBox.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLineEdit>
#include <QPointer>
#include <QSpinBox>
#include <QStackedWidget>
#include <QUndoCommand>
#include <QUndoStack>
#include <QVBoxLayout>

#include <climits>
#include <cmath>
#include <functional>
#include <type_traits>
#include <utility>

namespace glint::ui {

namespace {

QString text(const std::string& s) { return QString::fromStdString(s); }

int clampedInt(double v) { return static_cast<int>(std::clamp(v, static_cast<double>(INT_MIN + 2), static_cast<double>(INT_MAX))); }

// A double spin box that reads "0" or "2.5", not "0.000000" (its decimals stay available for typing).
class CompactDoubleSpinBox final : public QDoubleSpinBox {
public:
    using QDoubleSpinBox::QDoubleSpinBox;
    QString textFromValue(double value) const override {
        QString t = locale().toString(value, 'f', decimals());
        const QString point = locale().decimalPoint();
        if (t.contains(point)) {
            while (t.endsWith(QLatin1Char('0'))) t.chop(1);
            if (t.endsWith(point)) t.chop(point.size());
        }
        return t;
    }
};

QDoubleSpinBox* numberBox(const glint::FieldInfo& info) {
    auto* box = new CompactDoubleSpinBox;
    box->setDecimals(std::max(info.decimals, 0));
    box->setRange(info.minimum, info.maximum);
    box->setSingleStep(info.step);
    if (!info.suffix.empty()) box->setSuffix(text(info.suffix));
    if (!info.specialText.empty()) box->setSpecialValueText(text(info.specialText));
    return box;
}

QSpinBox* integerBox(const glint::FieldInfo& info) {
    auto* box = new QSpinBox;
    box->setRange(clampedInt(info.minimum), clampedInt(info.maximum));
    if (!info.suffix.empty()) box->setSuffix(text(info.suffix));
    if (!info.specialText.empty()) box->setSpecialValueText(text(info.specialText));
    return box;
}

} // namespace

// One field's widgets and its value as JSON.
struct SpecForm::Editor {
    const glint::ParamField* field = nullptr;
    QWidget* row = nullptr;    // what the form's row holds
    QWidget* editor = nullptr; // the main widget
    QCheckBox* toggle = nullptr;
    QDoubleSpinBox* percentile = nullptr; // pivot
    QLineEdit* number = nullptr;          // pivot
    std::function<glint::Json()> get;
    std::function<void(const glint::Json&)> set;
};

SpecForm::SpecForm(const glint::ParamSpecBase& spec, QWidget* parent) : QWidget(parent), spec_(spec) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    std::map<std::string, QFormLayout*> forms;
    for (const auto& f : spec.fields()) {
        const glint::FieldInfo& info = f->info();
        if (info.widget == glint::FieldWidget::Hidden) continue;
        auto e = std::make_unique<Editor>();
        e->field = f.get();
        Editor& ed = *e;
        const auto notify = [this, key = info.key] { edited(key); };
        // Integer (a QSpinBox) and Number (a QDoubleSpinBox): the box's value is the field's.
        const auto valueBox = [&](auto* box) {
            using Box = std::remove_pointer_t<decltype(box)>;
            ed.row = ed.editor = box;
            ed.get = [box] { return glint::Json(box->value()); };
            ed.set = [box](const glint::Json& v) { box->setValue(v.get<decltype(box->value())>()); };
            connect(box, &Box::valueChanged, this, notify);
            box->installEventFilter(this);
        };
        switch (info.widget) {
        case glint::FieldWidget::Integer: valueBox(integerBox(info)); break;
        case glint::FieldWidget::Number: valueBox(numberBox(info)); break;
        case glint::FieldWidget::Choice: {
            auto* box = new QComboBox;
            for (const auto& [value, label] : info.choices) box->addItem(text(label), text(value));
            ed.row = ed.editor = box;
            ed.get = [box] { return glint::Json(box->currentData().toString().toStdString()); };
            ed.set = [box](const glint::Json& v) {
                const int i = box->findData(text(v.get<std::string>()));
                if (i >= 0) box->setCurrentIndex(i);
            };
            connect(box, &QComboBox::currentIndexChanged, this, [box, notify](int index) {
                if (index < 0 && box->count() > 0) return box->setCurrentIndex(0); // always one of the choices
                notify();
            });
            break;
        }
        case glint::FieldWidget::Flag: {
            auto* box = new QCheckBox;
            ed.row = ed.editor = ed.toggle = box;
            ed.get = [box] { return glint::Json(box->isChecked()); };
            ed.set = [box](const glint::Json& v) { box->setChecked(v.get<bool>()); };
            connect(box, &QCheckBox::toggled, this, notify);
            break;
        }
        case glint::FieldWidget::Bound: {
            auto* box = new BoundSpinBox(text(info.autoWord), info.allowsNone, clampedInt(std::max(info.minimum, 1.0)),
                                         clampedInt(info.maximum), text(info.suffix));
            ed.row = ed.editor = box;
            const std::string autoWord = info.autoWord;
            const bool allowsNone = info.allowsNone;
            ed.get = [box, autoWord, allowsNone] {
                if (box->value() == BoundSpinBox::kAuto || (box->value() == BoundSpinBox::kNone && !allowsNone))
                    return glint::Json(autoWord);
                if (box->value() == BoundSpinBox::kNone) return glint::Json("none");
                return glint::Json(box->value());
            };
            ed.set = [box](const glint::Json& v) {
                if (v.is_string()) box->setValue(v == "none" ? BoundSpinBox::kNone : BoundSpinBox::kAuto);
                else box->setValue(v.get<int>());
            };
            connect(box, &QSpinBox::valueChanged, this, notify);
            box->installEventFilter(this);
            break;
        }
        case glint::FieldWidget::AutoNumber:
        case glint::FieldWidget::OptionalNumber: {
            const bool automatic = info.widget == glint::FieldWidget::AutoNumber;
            auto* holder = new QWidget;
            auto* row = new QHBoxLayout(holder);
            row->setContentsMargins(0, 0, 0, 0);
            auto* check = new QCheckBox(automatic ? text(info.autoWord) : QString());
            check->setObjectName(text(info.key) + (automatic ? QStringLiteral("_auto") : QStringLiteral("_on")));
            // Whole numbers (decimals 0) in a QSpinBox, others in a QDoubleSpinBox.
            const bool integer = info.decimals == 0;
            QAbstractSpinBox* box = nullptr;
            std::function<double()> value;
            std::function<void(double)> setValue;
            if (integer) {
                QSpinBox* b = integerBox(info);
                box = b;
                value = [b] { return static_cast<double>(b->value()); };
                setValue = [b](double v) { b->setValue(static_cast<int>(std::llround(v))); };
                connect(b, &QSpinBox::valueChanged, this, notify);
            } else {
                QDoubleSpinBox* b = numberBox(info);
                box = b;
                value = [b] { return b->value(); };
                setValue = [b](double v) { b->setValue(v); };
                connect(b, &QDoubleSpinBox::valueChanged, this, notify);
            }
            if (automatic) {
                row->addWidget(box, 1);
                row->addWidget(check);
            } else {
                row->addWidget(check);
                row->addWidget(box, 1);
            }
            ed.row = holder;
            ed.editor = box;
            ed.toggle = check;
            const std::string autoWord = info.autoWord;
            // AutoNumber: checked = automatic; OptionalNumber: checked = a value (unchecked = none).
            ed.get = [value, check, automatic, integer, autoWord] {
                if (automatic && check->isChecked()) return glint::Json(autoWord);
                if (!automatic && !check->isChecked()) return glint::Json(nullptr);
                return integer ? glint::Json(static_cast<long long>(std::llround(value()))) : glint::Json(value());
            };
            ed.set = [setValue, check, automatic](const glint::Json& v) {
                const bool word = v.is_string() || v.is_null();
                check->setChecked(automatic ? word : !word);
                if (!word) setValue(v.get<double>());
            };
            connect(check, &QCheckBox::toggled, this, notify);
            box->installEventFilter(this);
            break;
        }
        case glint::FieldWidget::Pivot: {
            auto* holder = new QWidget;
            auto* row = new QHBoxLayout(holder);
            row->setContentsMargins(0, 0, 0, 0);
            auto* kind = new QComboBox;
            kind->addItem(tr("mean"), QStringLiteral("mean"));
            kind->addItem(tr("median"), QStringLiteral("median"));
            kind->addItem(tr("percentile"), QStringLiteral("percentile"));
            kind->addItem(tr("number"), QStringLiteral("number"));
            kind->addItem(tr("local (background map)"), QStringLiteral("local"));
            // As wide as "percentile", not as the longest entry: the panel keeps to the dock's width.
            kind->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
            kind->setMinimumContentsLength(10);
            auto* percentile = new CompactDoubleSpinBox;
            percentile->setRange(0.0, 100.0);
            percentile->setDecimals(2);
            percentile->setSingleStep(0.5);
            percentile->setValue(99.0);
            percentile->setPrefix(QStringLiteral("p"));
            auto* number = new QLineEdit;
            number->setPlaceholderText(tr("value"));
            auto* stack = new QStackedWidget;
            stack->addWidget(new QWidget); // mean, median and local take no value
            stack->addWidget(percentile);
            stack->addWidget(number);
            row->addWidget(kind);
            row->addWidget(stack, 1);
            // A pivot that takes no value gets the whole row, so that "local (background map)" is not cut.
            const auto showValue = [kind, stack, row] {
                const QString k = kind->currentData().toString();
                const int page = k == QLatin1String("percentile") ? 1 : k == QLatin1String("number") ? 2 : 0;
                stack->setCurrentIndex(page);
                stack->setMaximumWidth(page == 0 ? 0 : QWIDGETSIZE_MAX);
                row->setStretch(0, page == 0 ? 1 : 0);
                row->setStretch(1, page == 0 ? 0 : 1);
            };
            showValue();
            connect(kind, &QComboBox::currentIndexChanged, this, [showValue, notify] {
                showValue();
                notify();
            });
            connect(percentile, &QDoubleSpinBox::valueChanged, this, notify);
            connect(number, &QLineEdit::textEdited, this, notify);
            connect(number, &QLineEdit::returnPressed, this, &SpecForm::submitted);
            percentile->installEventFilter(this);
            ed.row = holder;
            ed.editor = kind;
            ed.percentile = percentile;
            ed.number = number;
            ed.get = [kind, percentile, number] {
                const QString k = kind->currentData().toString();
                if (k == QLatin1String("percentile")) {
                    glint::PivotSpec p{glint::PivotSpec::Kind::Percentile, percentile->value()};
                    return glint::Json(p.text());
                }
                if (k == QLatin1String("number")) {
                    const QString t = number->text().trimmed();
                    if (t.isEmpty()) throw glint::UsageError("enter a number for the pivot");
                    const glint::PivotSpec p = glint::PivotSpec::parse(t.toStdString());
                    if (p.kind != glint::PivotSpec::Kind::Number)
                        throw glint::UsageError("the pivot '" + t.toStdString() + "' is not a number");
                    return glint::Json(p.value);
                }
                return glint::Json(k.toStdString());
            };
            ed.set = [kind, percentile, number](const glint::Json& v) {
                glint::PivotSpec p;
                if (v.is_number()) p = {glint::PivotSpec::Kind::Number, v.get<double>()};
                else p = glint::PivotSpec::parse(v.get<std::string>());
                QString k;
                switch (p.kind) {
                case glint::PivotSpec::Kind::Mean: k = QStringLiteral("mean"); break;
                case glint::PivotSpec::Kind::Median: k = QStringLiteral("median"); break;
                case glint::PivotSpec::Kind::Local: k = QStringLiteral("local"); break;
                case glint::PivotSpec::Kind::Percentile:
                    k = QStringLiteral("percentile");
                    percentile->setValue(p.value);
                    break;
                case glint::PivotSpec::Kind::Number:
                    k = QStringLiteral("number");
                    number->setText(QString::fromStdString(p.text()));
                    break;
                }
                kind->setCurrentIndex(kind->findData(k));
            };
            break;
        }
        case glint::FieldWidget::Hidden: break;
        }
        ed.editor->setObjectName(text(info.key));
        const QString tip = text(info.help);
        ed.row->setToolTip(tip);
        ed.editor->setToolTip(tip);
        if (ed.toggle) ed.toggle->setToolTip(tip);
        QFormLayout*& form = forms[info.group];
        if (!form) {
            auto* box = new QGroupBox(text(info.group));
            form = new QFormLayout(box);
            groups_.append(box);
            layout->addWidget(box);
        }
        form->addRow(text(info.label), ed.row);
        ed.set(f->defaultValue());
        editors_[info.key] = std::move(e);
    }
    updateEnabled();
}

SpecForm::~SpecForm() = default;

// One change of one field: the form's values before and after (whole, so that fields that depend on each other
// come back together). Typing in the same field merges (mergeWith) while the field keeps the focus.
class SpecForm::FieldCommand : public QUndoCommand {
public:
    FieldCommand(SpecForm* form, std::string key, bool typing, glint::Json before, std::set<std::string> beforeUser,
                 glint::Json after, std::set<std::string> afterUser)
        : form_(form), key_(std::move(key)), typing_(typing), serial_(form->mergeSerial_), before_(std::move(before)),
          beforeUser_(std::move(beforeUser)), after_(std::move(after)), afterUser_(std::move(afterUser)) {
        const glint::ParamField* field = form->spec_.field(key_);
        setText(QObject::tr("Change %1").arg(QString::fromStdString(field ? field->info().label : key_)));
    }
    int id() const override { return 0x5370; }
    bool mergeWith(const QUndoCommand* other) override {
        const auto* next = dynamic_cast<const FieldCommand*>(other);
        if (!next || !typing_ || !next->typing_ || next->form_ != form_ || next->key_ != key_ || next->serial_ != serial_)
            return false;
        after_ = next->after_;
        afterUser_ = next->afterUser_;
        if (after_ == before_) setObsolete(true); // typed back to where it was: nothing to undo
        return true;
    }
    void undo() override { apply(before_, beforeUser_); }
    void redo() override {
        if (first_) { // the user's change is already in the fields
            first_ = false;
            return;
        }
        apply(after_, afterUser_);
    }

private:
    void apply(const glint::Json& values, const std::set<std::string>& user) {
        if (form_) form_->restore(values, user);
        else setObsolete(true); // the form is gone (the window closing): nothing to set
    }
    QPointer<SpecForm> form_;
    std::string key_;
    bool typing_;
    int serial_;
    glint::Json before_;
    std::set<std::string> beforeUser_;
    glint::Json after_;
    std::set<std::string> afterUser_;
    bool first_ = true;
};

void SpecForm::setUndoStack(QUndoStack* stack) {
    undo_ = stack;
    committed_ = allValues();
    committedUser_ = userChanged_;
    // A field that loses or gets the focus ends the typing that merges into one command.
    for (const auto& [key, e] : editors_)
        for (QWidget* w : {e->editor, static_cast<QWidget*>(e->percentile), static_cast<QWidget*>(e->number)})
            if (w) w->installEventFilter(this);
}

void SpecForm::restore(const glint::Json& values, const std::set<std::string>& userChanged) {
    ++mergeSerial_;
    try {
        setValues(values);
    } catch (const glint::UsageError&) {
        return; // values the form once held: cannot happen, but never half-apply
    }
    userChanged_ = userChanged;
    committedUser_ = userChanged;
}

glint::Json SpecForm::allValues() const {
    glint::Json out = glint::Json::object();
    for (const auto& [key, e] : editors_) {
        try {
            out[key] = e->get();
        } catch (const glint::UsageError&) {
            // An unfinished value (an empty number pivot) stays out; values() reports it.
        }
    }
    return out;
}

glint::Json SpecForm::values() const {
    glint::Json all = allValues();
    glint::Json out = glint::Json::object();
    for (const auto& f : spec_.fields()) {
        const auto it = editors_.find(f->info().key);
        if (it == editors_.end() || !f->info().appliesWith(all)) continue;
        out[f->info().key] = it->second->get(); // throws for an unfinished value
    }
    return out;
}

void SpecForm::setValues(const glint::Json& values) {
    glint::Json known = glint::Json::object();
    for (const auto& [key, value] : values.items())
        if (editors_.count(key)) known[key] = value;
    spec_.checkRequest(known, "parameters");
    const bool was = applying_;
    applying_ = true;
    for (const auto& [key, value] : known.items()) editors_.at(key)->set(value);
    applying_ = was;
    updateEnabled();
    committed_ = allValues(); // not the user's change: no command, but the next one starts from here
    emit changed();
}

void SpecForm::setDefaults(const glint::Json& values) {
    glint::Json mine = glint::Json::object();
    for (const auto& [key, value] : values.items())
        if (!changedByUser(key)) mine[key] = value;
    setValues(mine);
}

QGroupBox* SpecForm::group(const QString& title) const {
    for (QGroupBox* g : groups_)
        if (g->title() == title) return g;
    return nullptr;
}

namespace {

// The widget `part` of the editor of `key`; null when the form has no such field.
template <class Editors, class Editor, class Widget>
Widget* editorPart(const Editors& editors, const std::string& key, Widget* Editor::*part) {
    const auto it = editors.find(key);
    return it == editors.end() ? nullptr : (*it->second).*part;
}

} // namespace

QWidget* SpecForm::editor(const std::string& key) const { return editorPart(editors_, key, &Editor::editor); }
QCheckBox* SpecForm::toggle(const std::string& key) const { return editorPart(editors_, key, &Editor::toggle); }

QSpinBox* SpecForm::spinBox(const std::string& key) const { return qobject_cast<QSpinBox*>(editor(key)); }
QDoubleSpinBox* SpecForm::doubleSpinBox(const std::string& key) const { return qobject_cast<QDoubleSpinBox*>(editor(key)); }
QComboBox* SpecForm::comboBox(const std::string& key) const { return qobject_cast<QComboBox*>(editor(key)); }

QDoubleSpinBox* SpecForm::pivotPercentile(const std::string& key) const {
    return editorPart(editors_, key, &Editor::percentile);
}
QLineEdit* SpecForm::pivotNumber(const std::string& key) const { return editorPart(editors_, key, &Editor::number); }

void SpecForm::edited(const std::string& key) {
    if (!applying_) userChanged_.insert(key);
    updateEnabled();
    if (applying_) return;
    if (undo_) {
        glint::Json after = allValues();
        if (after != committed_) {
            const auto it = editors_.find(key);
            const bool typing = it != editors_.end() &&
                                (qobject_cast<QAbstractSpinBox*>(it->second->editor) || it->second->percentile || it->second->number);
            glint::Json before = std::exchange(committed_, after);
            undo_->push(new FieldCommand(this, key, typing, std::move(before), committedUser_, std::move(after), userChanged_));
            committedUser_ = userChanged_;
        }
    }
    emit changed();
}

void SpecForm::updateEnabled() {
    const glint::Json all = allValues();
    for (const auto& [key, e] : editors_) {
        const bool on = e->field->info().appliesWith(all);
        e->row->setEnabled(on);
        if (e->toggle && e->toggle != e->editor) {
            // The value's box follows its check box (an automatic or absent value has none to edit).
            const bool automatic = e->field->info().widget == glint::FieldWidget::AutoNumber;
            e->editor->setEnabled(on && automatic != e->toggle->isChecked());
        }
    }
}

bool SpecForm::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() == QEvent::FocusOut || event->type() == QEvent::FocusIn) ++mergeSerial_;
    if (event->type() == QEvent::KeyPress) {
        const int key = static_cast<QKeyEvent*>(event)->key();
        if (key == Qt::Key_Return || key == Qt::Key_Enter) {
            if (auto* box = qobject_cast<QAbstractSpinBox*>(watched)) box->interpretText(); // the typed value
            emit submitted();
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace glint::ui
