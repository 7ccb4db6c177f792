// The Trace tool's parameters (DESIGN.md "Line trace": guides, points per guide, half-width, turning
// angle, score mode with ridge width and polarity, backend) and the panel that edits them.
#pragma once

#include "core/algo/trace/TraceSpec.h"
#include "core/jobs/Backend.h"

#include <QString>
#include <QVector>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QGroupBox;
class QPushButton;
class QSpinBox;

namespace glint::ui {

class ParametersDock;
class SpecForm;

// What a trace is asked with in the window: the trace spec's values (core/algo/trace/TraceSpec.h: the DP's and
// the field's parameters and the snap radius; the clicks come from the canvas), and the window's own settings.
struct TraceSettings : glint::TraceRequest {
    // The spec's preset for any image: adaptive guides, width auto (ridge), snapping within 4 px.
    TraceSettings();
    explicit TraceSettings(const glint::TraceRequest& request) : glint::TraceRequest(request) {}

    int livePoints = 128; // points per guide while the mouse moves (never more than params.points)
    glint::Backend backend = glint::Backend::Auto;
    bool showGuides = false;

    // The trace is "weak" below this confidence (drawn dashed, named in the status bar).
    static constexpr double kWeakConfidence = 0.7;

    // The parameters of a trace under the mouse: the full ones with fewer points per guide (DESIGN allows it),
    // no widening and no refinement of the guides (each repeats the whole solve, more than the live budget of
    // 20 ms allows on two cores: the fixed leg widens and refines on the click).
    glint::TraceParams liveParams() const;
    // The values that apply (not the clicks), "key=value ...".
    QString describe() const;
};

// The panel keeps to the Parameters dock's width (short labels, the long text in tooltips) and comes in three
// foldable groups (ParametersDock folds a panel's top-level group boxes): "Trace" (the score, the guides, the
// points per guide (full and live), the turning angle, the backend, snapping, the guides' display and the
// Trace Line button) stays open; "Ridge line" (width and polarity) and "Advanced" (objective, widenings,
// half-width) start folded the first time the panel is shown; choosing the ridge score unfolds "Ridge line".
// The main group and any one other fit together in the dock at 1280 × 800.
class TracePanel : public QWidget {
    Q_OBJECT
public:
    explicit TracePanel(const TraceSettings& settings, QWidget* parent = nullptr);

    TraceSettings settings() const;
    void setSettings(const TraceSettings& settings); // no changed() signal
    SpecForm* form() const { return form_; }
    QComboBox* backendBox() const { return backend_; }
    QCheckBox* showGuidesCheck() const { return showGuides_; }

    // The foldable groups, top to bottom: the main one, then those folded by default.
    QGroupBox* mainGroup() const { return mainGroup_; }
    QVector<QGroupBox*> foldedByDefault() const { return {ridgeGroup_, advancedGroup_}; }

signals:
    void changed();
    void traceRequested(); // the "Trace Line" button

protected:
    void showEvent(QShowEvent* event) override;

private:
    void foldDefaults();
    ParametersDock* parametersDock() const; // the dock the panel lives in, if any

    SpecForm* form_;
    TraceSettings base_; // the settings last given: what the form has no field for comes from here
    QSpinBox* livePoints_;
    QComboBox* backend_;
    QCheckBox* showGuides_;
    QPushButton* trace_;
    QGroupBox* mainGroup_ = nullptr;
    QGroupBox* ridgeGroup_ = nullptr;
    QGroupBox* advancedGroup_ = nullptr;
    bool updating_ = false;
    bool defaultsFolded_ = false;
};

} // namespace glint::ui
