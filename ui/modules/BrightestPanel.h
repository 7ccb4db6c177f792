// The parameters page of the brightest-region analysis: K and mode, the pivot, the backend, the source
// finder's fields (threshold, min SNR, min area, max size, mesh), the pivot sweep list, the region of
// interest and the exclusion list (with the mammogram auto-exclusion), and a status line for the last run.
#pragma once

#include "core/algo/brightest/Brightest.h"
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
    // The source finder's fields into params (threshold, mesh; min SNR, min area, max size and max box in the
    // disjoint mode only: set params.mode first).
    void applySourceFinding(glint::BrightestParams& params) const;
    // Overlap mode's Distinct into params (params.mode set first): F when the mode is overlap and the check is on.
    void applyDistinct(glint::BrightestParams& params) const;
    static constexpr double kDefaultDistinct = 0.2; // the window's F: one region per object, not near-copies

    // Per-image defaults (pivot kind, threshold, min SNR, max box): a field the user changed since the last
    // setImageDefaults() keeps the user's value; the others take the new image's. Programmatic changes
    // (sessions) made inside withoutMarkingUser() do not count as the user's.
    enum class PivotDefault { Mean, Local };
    void setImageDefaults(PivotDefault pivot, double threshold, double minSnr, int maxBox);
    template <class F>
    void withoutMarkingUser(F&& f) {
        const bool was = applyingDefaults_;
        applyingDefaults_ = true;
        f();
        applyingDefaults_ = was;
    }

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
    QDoubleSpinBox* thresholdBox() const { return threshold_; }
    QDoubleSpinBox* minSnrBox() const { return minSnr_; }
    QSpinBox* minAreaBox() const { return minArea_; }
    QSpinBox* maxSizeBox() const { return maxSize_; }
    QSpinBox* maxBoxBox() const { return maxBox_; }
    // Overlap mode's Distinct (--distinct F): the check turns the rule on, the box holds F.
    QCheckBox* distinctCheck() const { return distinctOn_; }
    QDoubleSpinBox* distinctBox() const { return distinct_; }
    QSpinBox* meshBox() const { return mesh_; }
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
    QDoubleSpinBox* threshold_;
    QDoubleSpinBox* minSnr_;
    QSpinBox* minArea_;
    QSpinBox* maxSize_;
    QSpinBox* maxBox_;
    QCheckBox* distinctOn_;
    QDoubleSpinBox* distinct_;
    QSpinBox* mesh_;
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
    bool applyingDefaults_ = false;
    bool userPivot_ = false; // the user changed the field since the last image's defaults
    bool userThreshold_ = false;
    bool userMinSnr_ = false;
    bool userMaxBox_ = false;
};

} // namespace glint::ui
