// The Trace tool's parameters (DESIGN.md "Line trace": guides, points per guide, half-width, turning
// angle, score mode with ridge width and polarity, backend) and the panel that edits them.
#pragma once

#include "core/algo/trace/LineTrace.h"
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

struct TraceSettings {
    // What a fixed leg (a click) is traced with: the library's defaults, with --guides auto (a leg whose fit
    // is poor is solved again on finer guides when it is fixed).
    glint::TraceParams params = [] {
        glint::TraceParams p;
        p.autoGuides = true;
        return p;
    }();
    int livePoints = 128;            // points per guide while the mouse moves (never more than params.points)
    glint::TraceFieldOptions field;
    glint::Backend backend = glint::Backend::Auto;
    bool showGuides = false;
    bool snap = true;                // clicks and the cursor snap to the strongest line/edge within kSnapRadius
    bool autoWidth = true;           // ridge: the line width is estimated at the first two clicks
    static constexpr double kSnapRadius = 4.0; // image pixels

    // The trace is "weak" below this confidence (drawn dashed, named in the status bar).
    static constexpr double kWeakConfidence = 0.7;

    // The parameters of a trace under the mouse: the full ones with fewer points per guide (DESIGN allows it),
    // no widening and no refinement of the guides (each repeats the whole solve, more than the live budget of
    // 20 ms allows on two cores: the fixed leg widens and refines on the click).
    glint::TraceParams liveParams() const;
    // "guides=6 points=256 half-width=auto max-angle=45 score=ridge width=5 polarity=both"
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

    // The foldable groups, top to bottom: the main one, then those folded by default.
    QGroupBox* mainGroup() const { return mainGroup_; }
    QVector<QGroupBox*> foldedByDefault() const { return {ridgeGroup_, advancedGroup_}; }

signals:
    void changed();
    void traceRequested(); // the "Trace Line" button

protected:
    void showEvent(QShowEvent* event) override;

private:
    void updateEnabled();
    void foldDefaults();
    ParametersDock* parametersDock() const; // the dock the panel lives in, if any

    QSpinBox* guides_;
    QSpinBox* points_;
    QSpinBox* livePoints_;
    QDoubleSpinBox* halfWidth_;
    QDoubleSpinBox* maxAngle_;
    QComboBox* score_;
    QDoubleSpinBox* lineWidth_;
    QComboBox* polarity_;
    QComboBox* backend_;
    QComboBox* objective_;
    QCheckBox* autoWidth_;
    QCheckBox* autoGuides_;
    QCheckBox* snap_;
    QCheckBox* showGuides_;
    QSpinBox* widenings_;
    QPushButton* trace_;
    QGroupBox* mainGroup_ = nullptr;
    QGroupBox* ridgeGroup_ = nullptr;
    QGroupBox* advancedGroup_ = nullptr;
    double sineThreshold_ = glint::TraceFieldOptions{}.sineThresholdFraction; // no widget: kept from the settings given
    bool updating_ = false;
    bool defaultsFolded_ = false;
};

} // namespace glint::ui
