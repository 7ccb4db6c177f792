// The parameters page of the source catalogue: the sources spec's form (groups Detection and Photometry:
// ui/params/SpecForm.h), where it runs (the CPU: the device pipeline is issue 31's), the Run button, the
// segmentation toggle, the background and RMS maps, the catalogue file, and a status line for the last run.
#pragma once

#include "core/export/JsonOutput.h"

#include <QWidget>

class QCheckBox;
class QLabel;
class QPushButton;

namespace glint::ui {

class SpecForm;

// Widgets only: SourcesModule reads the values and connects the buttons.
class SourcesPanel : public QWidget {
    Q_OBJECT
public:
    explicit SourcesPanel(QWidget* parent = nullptr);

    SpecForm* form() const { return form_; }
    // The form's request (the sources spec's JSON of the fields that apply). UsageError for an unfinished value.
    glint::Json request() const;

    void setStatus(const QString& text, bool error = false);
    QString status() const;
    void setRunEnabled(bool enabled);
    // What the result buttons can do: a catalogue to save, maps to show (a run of this session, not a restored
    // one), and whether a map is what the window shows now.
    void setResultState(bool catalogue, bool maps, bool showingMap);

    // The shapes' line ("ROI x 10, y 20, 100 × 80; 2 exclusions") and which Clear buttons apply.
    void setShapesText(const QString& text, bool roi, bool exclusions);
    QString shapesText() const;

    QLabel* backendNote() const { return backend_; }
    QPushButton* runButton() const { return run_; }
    QCheckBox* segmentationCheck() const { return segmentation_; }
    QPushButton* backgroundButton() const { return background_; }
    QPushButton* rmsButton() const { return rms_; }
    QPushButton* imageButton() const { return image_; }
    QPushButton* saveCatalogueButton() const { return save_; }
    QPushButton* drawRoiButton() const { return drawRoi_; }
    QPushButton* clearRoiButton() const { return clearRoi_; }
    QPushButton* excludeRectangleButton() const { return excludeRect_; }
    QPushButton* excludePolygonButton() const { return excludePolygon_; }
    QPushButton* clearExclusionsButton() const { return clearExclusions_; }

signals:
    void runRequested(); // Enter in a field

private:
    SpecForm* form_;
    QLabel* backend_;
    QPushButton* run_;
    QCheckBox* segmentation_;
    QPushButton* background_;
    QPushButton* rms_;
    QPushButton* image_;
    QPushButton* save_;
    QLabel* shapes_;
    QPushButton* drawRoi_;
    QPushButton* clearRoi_;
    QPushButton* excludeRect_;
    QPushButton* excludePolygon_;
    QPushButton* clearExclusions_;
    QLabel* status_;
};

} // namespace glint::ui
