// Display controls: the histogram with draggable limits (its axis linear, log or asinh, over the data or
// zoomed to the limits), and scale, limits mode (minmax, zscale, percentile, DICOM window, manual),
// percentile, low/high and colormap. Edits go to AppContext, for the image on screen only; "Apply to All
// Images" makes them every image's default. Above them, the HDU/plane/frame chooser of files holding
// several images.
#pragma once

#include "core/display/Display.h"
#include "core/display/Histogram.h"
#include "ui/jobs/LatestOnly.h"

#include <QDockWidget>

#include <optional>

class QComboBox;
class QDoubleSpinBox;
class QCheckBox;
class QPushButton;

namespace glint::ui {

class AppContext;
class HistogramWidget;
class ImagePartChooser;

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
    QComboBox* histogramAxisBox() const { return axis_; }
    QCheckBox* zoomToLimitsBox() const { return zoom_; }
    QPushButton* applyToAllButton() const { return applyAll_; }
    ImagePartChooser* partChooser() const { return parts_; }

    glint::HistogramAxis histogramAxis() const;
    void setHistogramAxis(glint::HistogramAxis axis);
    bool zoomedToLimits() const;
    void setZoomedToLimits(bool zoom);
    // True while the histogram for the current image, axis and zoom is being computed.
    bool histogramPending() const { return pending_; }

signals:
    void histogramViewChanged(); // the axis or the zoom (the window keeps them in its settings)

private:
    void syncFromContext();  // settings → widgets, without feeding back
    // widgets → settings: one undoable step (Edit ▸ Undo) named `what`; see pushDisplayChange for `gesture`.
    void applyToContext(const QString& what, const QString& gesture = {});
    // Pushes the change from `before` to the context's settings now as a step; changes of one histogram drag
    // (gesture "drag N") merge, and so do a spin box's changes within a second ("low", "high", "percentile").
    void pushDisplayChange(const glint::DisplaySettings& before, const QString& what, const QString& gesture);
    void showLimits();
    // Computes the histogram for the current axis and zoom off the UI thread (the newest request wins).
    void requestHistogram();

    AppContext& context_;
    HistogramWidget* histogram_;
    QComboBox* scale_;
    QComboBox* limits_;
    QDoubleSpinBox* percentile_;
    QDoubleSpinBox* low_;
    QDoubleSpinBox* high_;
    QComboBox* colormap_;
    QComboBox* axis_;
    QCheckBox* zoom_;
    QPushButton* applyAll_;
    ImagePartChooser* parts_;
    bool syncing_ = false;
    bool pending_ = false;
    int drag_ = 1; // the histogram drag under way (or next)
    LatestOnly histogramJob_;
    std::optional<glint::LevelGrid> levels_; // of the current image, found with its first histogram
    bool levelsKnown_ = false;
    std::pair<double, double> zoomedRange_{0.0, 0.0}; // the range last zoomed to
};

} // namespace glint::ui
