#include "ui/modules/SourcesPanel.h"

#include "core/algo/sources/SourcesSpec.h"
#include "core/params/ImageKind.h"
#include "ui/params/SpecForm.h"

#include <QCheckBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace glint::ui {

SourcesPanel::SourcesPanel(QWidget* parent)
    : QWidget(parent), form_(new SpecForm(glint::sourcesSpec())), backend_(new QLabel(tr("CPU"))),
      run_(new QPushButton(tr("Find Sources"))), segmentation_(new QCheckBox(tr("Show segmentation"))),
      background_(new QPushButton(tr("Show Background Map"))), rms_(new QPushButton(tr("Show RMS Map"))),
      image_(new QPushButton(tr("Back to Image"))), save_(new QPushButton(tr("Save Catalogue…"))), shapes_(new QLabel),
      drawRoi_(new QPushButton(tr("Draw ROI"))), clearRoi_(new QPushButton(tr("Clear ROI"))),
      excludeRect_(new QPushButton(tr("Exclude Rectangle"))), excludePolygon_(new QPushButton(tr("Exclude Polygon"))),
      clearExclusions_(new QPushButton(tr("Clear Exclusions"))), status_(new QLabel) {
    auto* layout = new QVBoxLayout(this);
    auto* about = new QLabel(tr("A source catalogue: footprints above the background, deblended, measured as "
                                "SExtractor does (FLUX_AUTO, A/B/THETA, FWHM …); the same run as glint-cli sources."));
    about->setWordWrap(true);
    layout->addWidget(about);

    form_->setValues(glint::sourcesSpec().presetValues(glint::ImageKind::Sky));
    layout->addWidget(form_);
    connect(form_, &SpecForm::submitted, this, &SourcesPanel::runRequested);
    if (QGroupBox* detection = form_->group(tr("Detection"))) {
        auto* form = static_cast<QFormLayout*>(detection->layout());
        backend_->setToolTip(tr("The catalogue runs on the CPU (its device pipeline is not written yet)"));
        form->addRow(tr("Backend"), backend_);
        run_->setToolTip(tr("Find and measure the sources (Analyze ▸ Find Sources)"));
        form->addRow(run_);
    } else {
        layout->addWidget(run_);
    }

    auto* shapes = new QGroupBox(tr("Shapes"));
    shapes->setToolTip(tr("Detect only inside the ROI; excluded pixels belong to no source"));
    auto* shapeGrid = new QGridLayout(shapes);
    shapes_->setWordWrap(true);
    shapeGrid->addWidget(shapes_, 0, 0, 1, 2);
    shapeGrid->addWidget(drawRoi_, 1, 0);
    shapeGrid->addWidget(clearRoi_, 1, 1);
    shapeGrid->addWidget(excludeRect_, 2, 0);
    shapeGrid->addWidget(excludePolygon_, 2, 1);
    shapeGrid->addWidget(clearExclusions_, 3, 1);
    layout->addWidget(shapes);
    setShapesText(tr("Whole image"), false, false);

    auto* results = new QGroupBox(tr("Result"));
    auto* grid = new QGridLayout(results);
    segmentation_->setToolTip(tr("Each source's pixels (its segment) in its own colour"));
    background_->setToolTip(tr("Open the run's background map as the current image (Back to Image returns)"));
    rms_->setToolTip(tr("Open the run's background noise (RMS) map as the current image"));
    image_->setToolTip(tr("Show the analysed image again, with its catalogue"));
    save_->setToolTip(tr("Write the catalogue as FITS, FITS_LDAC, SExtractor ASCII or CSV"));
    grid->addWidget(segmentation_, 0, 0, 1, 2);
    grid->addWidget(background_, 1, 0);
    grid->addWidget(rms_, 1, 1);
    grid->addWidget(image_, 2, 0);
    grid->addWidget(save_, 2, 1);
    layout->addWidget(results);
    setResultState(false, false, false);

    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(status_);
    layout->addStretch(1);
}

glint::Json SourcesPanel::request() const { return form_->values(); }

void SourcesPanel::setStatus(const QString& text, bool error) {
    status_->setStyleSheet(error ? QStringLiteral("color: #d03030;") : QString());
    status_->setText(text);
}

QString SourcesPanel::status() const { return status_->text(); }

void SourcesPanel::setShapesText(const QString& text, bool roi, bool exclusions) {
    shapes_->setText(text);
    clearRoi_->setEnabled(roi);
    clearExclusions_->setEnabled(exclusions);
}

QString SourcesPanel::shapesText() const { return shapes_->text(); }

void SourcesPanel::setRunEnabled(bool enabled) { run_->setEnabled(enabled); }

void SourcesPanel::setResultState(bool catalogue, bool maps, bool showingMap) {
    segmentation_->setEnabled(maps && !showingMap);
    background_->setEnabled(maps);
    rms_->setEnabled(maps);
    image_->setEnabled(showingMap);
    save_->setEnabled(catalogue);
}

} // namespace glint::ui
