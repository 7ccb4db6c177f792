// The parameters page of the brightest-region analysis: K and mode, the pivot, the backend, the pivot
// sweep list, the region of interest and the exclusion list, and a status line for the last run.
#pragma once

#include "core/algo/brightest/Brightest.h"
#include "core/jobs/Backend.h"

#include <QWidget>

#include <vector>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QSpinBox;
class QStackedWidget;

namespace glint::ui {

// Widgets only: BrightestModule reads the values and connects the buttons.
class BrightestPanel : public QWidget {
    Q_OBJECT
public:
    explicit BrightestPanel(QWidget* parent = nullptr);

    // The values as core takes them. pivot() and sweepPivots() throw UsageError for text that is not a
    // pivot (the message says which).
    int k() const;
    glint::BrightestMode mode() const;
    glint::PivotSpec pivot() const;
    glint::Backend backend() const;
    std::vector<glint::PivotSpec> sweepPivots() const;

    void setRoiText(const QString& text);
    // The status line under the buttons; errors are shown in red.
    void setStatus(const QString& text, bool error = false);
    QString status() const;
    void setRunEnabled(bool enabled);
    // A hint for the number pivot: the image's mean.
    void setImageMean(double mean);

    QSpinBox* kBox() const { return k_; }
    QComboBox* modeBox() const { return mode_; }
    QComboBox* pivotBox() const { return pivotKind_; }
    QDoubleSpinBox* percentileBox() const { return percentile_; }
    QLineEdit* numberEdit() const { return number_; }
    QComboBox* backendBox() const { return backend_; }
    QLineEdit* sweepEdit() const { return sweep_; }
    QPushButton* runButton() const { return run_; }
    QPushButton* sweepButton() const { return runSweep_; }
    QPushButton* drawRoiButton() const { return drawRoi_; }
    QPushButton* clearRoiButton() const { return clearRoi_; }
    QPushButton* excludeRectangleButton() const { return excludeRect_; }
    QPushButton* excludePolygonButton() const { return excludePolygon_; }
    QListWidget* exclusionList() const { return exclusions_; }
    QPushButton* deleteExclusionButton() const { return deleteExclusion_; }
    QPushButton* clearExclusionsButton() const { return clearExclusions_; }

    static constexpr int kDefaultK = 10; // a first answer worth looking at: the ten brightest regions

signals:
    // Enter in K, the percentile or the number pivot: run with these values (as the Find button does).
    void runRequested();
    // Enter in the sweep list.
    void sweepRequested();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    QSpinBox* k_;
    QComboBox* mode_;
    QComboBox* pivotKind_;
    QStackedWidget* pivotValue_;
    QDoubleSpinBox* percentile_;
    QLineEdit* number_;
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
    QLabel* status_;
};

} // namespace glint::ui
