// Display controls: the histogram with draggable limits, and scale, limits mode (minmax, zscale,
// percentile, DICOM window, manual), percentile, low/high and colormap. Edits go to AppContext.
#pragma once

#include <QDockWidget>

class QComboBox;
class QDoubleSpinBox;

namespace glint::ui {

class AppContext;
class HistogramWidget;

class DisplayDock : public QDockWidget {
    Q_OBJECT
public:
    explicit DisplayDock(AppContext& context, QWidget* parent = nullptr);

    HistogramWidget* histogram() const { return histogram_; }
    QComboBox* scaleBox() const { return scale_; }
    QComboBox* limitsBox() const { return limits_; }
    QComboBox* colormapBox() const { return colormap_; }
    QDoubleSpinBox* lowBox() const { return low_; }
    QDoubleSpinBox* highBox() const { return high_; }

private:
    void syncFromContext();  // settings → widgets, without feeding back
    void applyToContext();   // widgets → settings
    void showLimits();

    AppContext& context_;
    HistogramWidget* histogram_;
    QComboBox* scale_;
    QComboBox* limits_;
    QDoubleSpinBox* percentile_;
    QDoubleSpinBox* low_;
    QDoubleSpinBox* high_;
    QComboBox* colormap_;
    bool syncing_ = false;
};

} // namespace glint::ui
