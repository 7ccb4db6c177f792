// A parameter spec's fields as a form (core/params/ParamSpec.h): one group box per group, in the order the spec
// declares them, and one row per field that has a widget, its label, tooltip (the help line), range, choices and
// suffix all from the spec. Values come and go as the spec's JSON, so the panel, the session and the run read one
// representation, and a field that does not apply (its onlyWhen fails) is disabled and left out of the request.
#pragma once

#include "core/params/ParamSpec.h"

#include <QString>
#include <QVector>
#include <QWidget>

#include <map>
#include <memory>
#include <set>
#include <string>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QGroupBox;
class QLineEdit;
class QSpinBox;
class QUndoStack;

namespace glint::ui {

class SpecForm : public QWidget {
    Q_OBJECT
public:
    explicit SpecForm(const glint::ParamSpecBase& spec, QWidget* parent = nullptr);
    ~SpecForm() override;

    const glint::ParamSpecBase& spec() const { return spec_; }

    // The request the form holds: every field that applies, as the spec's JSON. UsageError for a value that is not
    // one (an empty number pivot).
    glint::Json values() const;
    // Every field's value, whether it applies or not (sessions keep them all).
    glint::Json allValues() const;
    // Sets the fields `values` holds (the spec checks them first: UsageError naming the key, nothing set). These
    // are not the user's changes.
    void setValues(const glint::Json& values);
    // Per-image defaults: a field the user changed since the form was made keeps the user's value, the others
    // take these.
    void setDefaults(const glint::Json& values);
    bool changedByUser(const std::string& key) const { return userChanged_.count(key) != 0; }

    QVector<QGroupBox*> groups() const { return groups_; }
    QGroupBox* group(const QString& title) const;
    // A field's widgets: its editor (spin box, combo box, check box, ...) and, for an optional or automatic value,
    // its check box. Null when the spec has no such field (or it has no widget).
    QWidget* editor(const std::string& key) const;
    QCheckBox* toggle(const std::string& key) const;
    QSpinBox* spinBox(const std::string& key) const;
    QDoubleSpinBox* doubleSpinBox(const std::string& key) const;
    QComboBox* comboBox(const std::string& key) const;
    // The pivot field's parts: its value for a percentile, its text for a number.
    QDoubleSpinBox* pivotPercentile(const std::string& key) const;
    QLineEdit* pivotNumber(const std::string& key) const;

    // Edit ▸ Undo for the user's changes: each change of a field becomes one command on `stack` ("Change K");
    // typing in a spin box or line edit merges into that field's one command until the field loses focus.
    // Undo and redo set the fields as they were (not as the user's changes: no new command).
    void setUndoStack(QUndoStack* stack);
    QUndoStack* undoStack() const { return undo_; }

signals:
    void changed();
    void submitted(); // Enter in a field: run with these values

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    struct Editor;
    class FieldCommand;
    void updateEnabled();
    void edited(const std::string& key);
    // Undo/redo: the fields' values and which of them the user changed.
    void restore(const glint::Json& values, const std::set<std::string>& userChanged);

    const glint::ParamSpecBase& spec_;
    std::map<std::string, std::unique_ptr<Editor>> editors_;
    QVector<QGroupBox*> groups_;
    std::set<std::string> userChanged_;
    bool applying_ = false;
    QUndoStack* undo_ = nullptr;
    glint::Json committed_;                 // the values as the last command (or setValues) left them
    std::set<std::string> committedUser_;
    int mergeSerial_ = 0;                   // typing merges while this stays the same (bumped by focus changes)
};

} // namespace glint::ui
