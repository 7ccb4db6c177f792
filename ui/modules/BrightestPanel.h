// The parameters page of the brightest-region analysis: the brightest spec's form (K, mode, Distinct, pivot; the
// source finder's threshold, min SNR, min area, max size, max box and mesh: ui/params/SpecForm.h), the backend, the
// pivot sweep list, the region of interest and the exclusion list (with the mammogram auto-exclusion), and a status
// line for the last run.
#pragma once

#include "core/algo/regions/RegionSearch.h"
#include "core/export/JsonOutput.h"
#include "core/jobs/Backend.h"

#include <QWidget>

#include <vector>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QSpinBox;

namespace glint::ui {

class SpecForm;

// Widgets only: BrightestModule reads the values and connects the buttons.
class BrightestPanel : public QWidget {
    Q_OBJECT
public:
    explicit BrightestPanel(QWidget* parent = nullptr);

    SpecForm* form() const { return form_; }
    // The form's request (the brightest spec's JSON of the fields that apply). UsageError for an unfinished value.
    glint::Json request() const;
    int k() const;
    glint::Backend backend() const;
    // The sweep's pivots; UsageError for text that is not a pivot (the message says which).
    std::vector<glint::PivotSpec> sweepPivots() const;

    void setRoiText(const QString& text);
    // The status line under the buttons; errors are shown in red.
    void setStatus(const QString& text, bool error = false);
    QString status() const;
    void setRunEnabled(bool enabled);
    // A hint for the number pivot: the image's mean.
    void setImageMean(double mean);

    // The form's widgets by the spec's keys, and the panel's own.
    QSpinBox* kBox() const;
    QComboBox* modeBox() const;
    QComboBox* pivotBox() const;
    QComboBox* rankBox() const; // sum, or contrast (the mammogram ranking; disjoint mode only)
    QDoubleSpinBox* percentileBox() const;
    QLineEdit* numberEdit() const;
    QDoubleSpinBox* thresholdBox() const;
    QDoubleSpinBox* minSnrBox() const;
    QSpinBox* minAreaBox() const;
    QSpinBox* maxSizeBox() const;
    QSpinBox* maxBoxBox() const;
    // Overlap mode's Distinct (--distinct F): the check turns the rule on, the box holds F.
    QCheckBox* distinctCheck() const;
    QDoubleSpinBox* distinctBox() const;
    QSpinBox* meshBox() const;
    QComboBox* backendBox() const { return backend_; }
    // The image's kind (issue 33), at the panel's top: "auto (mammogram)" (the kind found by content, named) or a
    // kind chosen by hand; its data is "auto" or the kind's name. BrightestModule fills and follows it.
    QComboBox* kindBox() const { return kind_; }
    QLineEdit* sweepEdit() const { return sweep_; }
    QPushButton* autoExcludeButton() const { return autoExclude_; }
    QPushButton* runButton() const { return run_; }
    QPushButton* sweepButton() const { return runSweep_; }
    QPushButton* drawRoiButton() const { return drawRoi_; }
    QPushButton* clearRoiButton() const { return clearRoi_; }
    QPushButton* excludeRectangleButton() const { return excludeRect_; }
    QPushButton* excludePolygonButton() const { return excludePolygon_; }
    QListWidget* exclusionList() const { return exclusions_; }
    QPushButton* deleteExclusionButton() const { return deleteExclusion_; }
    QPushButton* clearExclusionsButton() const { return clearExclusions_; }

signals:
    // Enter in a field: run with these values (as the Find button does).
    void runRequested();
    // Enter in the sweep list.
    void sweepRequested();

private:
    SpecForm* form_;
    QComboBox* kind_;
    QComboBox* backend_;
    QPushButton* run_;
    QLineEdit* sweep_;
    QPushButton* runSweep_;
    QLabel* roi_;
    QPushButton* drawRoi_;
    QPushButton* clearRoi_;
    QListWidget* exclusions_;
    QPushButton* excludeRect_;
    QPushButton* excludePolygon_;
    QPushButton* deleteExclusion_;
    QPushButton* clearExclusions_;
    QPushButton* autoExclude_;
    QLabel* status_;
};

} // namespace glint::ui
