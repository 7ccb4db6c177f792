#include "ui/modules/BrightestPanel.h"

#include "core/algo/brightest/BrightestSpec.h"
#include "core/util/Errors.h"
#include "ui/params/SpecForm.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QVBoxLayout>

namespace glint::ui {

namespace {
constexpr int kMaxSweepPivots = 16;
} // namespace

BrightestPanel::BrightestPanel(QWidget* parent)
    : QWidget(parent), form_(new SpecForm(glint::brightestSpec())), kind_(new QComboBox), backend_(new QComboBox),
      run_(new QPushButton(tr("Find Regions"))), sweep_(new QLineEdit(QStringLiteral("mean, p90, p95, p99"))),
      runSweep_(new QPushButton(tr("Run Sweep"))), roi_(new QLabel), drawRoi_(new QPushButton(tr("Draw ROI"))),
      clearRoi_(new QPushButton(tr("Clear ROI"))), exclusions_(new QListWidget),
      excludeRect_(new QPushButton(tr("Rectangle"))), excludePolygon_(new QPushButton(tr("Polygon"))),
      deleteExclusion_(new QPushButton(tr("Delete"))), clearExclusions_(new QPushButton(tr("Clear All"))),
      autoExclude_(new QPushButton(tr("Auto-exclude (mammogram)"))), status_(new QLabel) {
    auto* layout = new QVBoxLayout(this);
    auto* about = new QLabel(tr("The K rectangles with the largest sums of (value − pivot); blank and excluded "
                                "pixels stay out."));
    about->setWordWrap(true);
    layout->addWidget(about);

    // The kind the defaults come from, first: a reader sees at once what the image was taken for and changes it
    // in one click. The items are filled per image (the first one names the kind found by content).
    auto* kindRow = new QHBoxLayout;
    auto* kindLabel = new QLabel(tr("Kind:"));
    kindLabel->setBuddy(kind_);
    kind_->setObjectName(QStringLiteral("kind"));
    kind_->setToolTip(tr("The kind of image the defaults are for (as glint-cli --preset KIND); auto: the kind "
                         "found from the image itself. Choosing one sets its defaults (Edit ▸ Undo takes it back)."));
    kindRow->addWidget(kindLabel);
    kindRow->addWidget(kind_, 1);
    // The backend beside it, in the same row: the panel keeps its height (it fits at 1280×800 with the search open).
    for (const char* name : {"auto", "cuda", "cpu", "reference"}) backend_->addItem(QString::fromLatin1(name));
    backend_->setToolTip(tr("Where the search runs (auto: the GPU where it pays)"));
    auto* backendLabel = new QLabel(tr("Backend:"));
    backendLabel->setBuddy(backend_);
    kindRow->addWidget(backendLabel);
    kindRow->addWidget(backend_);
    layout->addLayout(kindRow);

    // The spec's fields; until an image says otherwise, the values a first answer on any image starts from.
    form_->setValues(glint::brightestSpec().presetValues(glint::ImageKind::Other));
    layout->addWidget(form_);
    connect(form_, &SpecForm::submitted, this, &BrightestPanel::runRequested);
    if (QGroupBox* search = form_->group(tr("Search"))) {
        auto* form = static_cast<QFormLayout*>(search->layout());
        run_->setToolTip(tr("Find the K brightest regions (Analyze ▸ K Brightest Regions)"));
        form->addRow(run_);
    }
    numberEdit()->setPlaceholderText(tr("value"));

    auto* sweepBox = new QGroupBox(tr("Pivot sweep"));
    auto* sweepLayout = new QVBoxLayout(sweepBox);
    sweep_->setToolTip(tr("Pivots separated by commas: mean, median, pNN (a percentile) or numbers. Each one "
                          "gets its own rectangle and colour."));
    sweepLayout->addWidget(sweep_);
    sweepLayout->addWidget(runSweep_);
    layout->addWidget(sweepBox);

    auto* roiBox = new QGroupBox(tr("Region of interest"));
    auto* roiLayout = new QVBoxLayout(roiBox);
    roi_->setWordWrap(true);
    setRoiText({});
    roiLayout->addWidget(roi_);
    auto* roiButtons = new QHBoxLayout;
    roiButtons->addWidget(drawRoi_);
    roiButtons->addWidget(clearRoi_);
    roiLayout->addLayout(roiButtons);
    layout->addWidget(roiBox);

    auto* exclusionBox = new QGroupBox(tr("Exclusions"));
    auto* exclusionLayout = new QVBoxLayout(exclusionBox);
    // The hint as a tooltip: the group keeps to its buttons and list, so that it fits beside the search.
    exclusionBox->setToolTip(tr("Draw what must stay out of every region: the chest wall, film labels, artefacts."));
    auto* drawButtons = new QHBoxLayout;
    drawButtons->addWidget(excludeRect_);
    drawButtons->addWidget(excludePolygon_);
    exclusionLayout->addLayout(drawButtons);
    exclusionLayout->addWidget(autoExclude_);
    exclusions_->setMinimumHeight(60);
    exclusions_->setMaximumHeight(140);
    exclusionLayout->addWidget(exclusions_);
    auto* listButtons = new QHBoxLayout;
    listButtons->addWidget(deleteExclusion_);
    listButtons->addWidget(clearExclusions_);
    exclusionLayout->addLayout(listButtons);
    autoExclude_->setToolTip(QString::fromStdString(glint::brightestSpec().field("auto_exclude")->info().help) +
                             tr(" (editable shapes; mammograms get them when opened)"));
    layout->addWidget(exclusionBox);

    connect(sweep_, &QLineEdit::returnPressed, this, &BrightestPanel::sweepRequested);
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(status_);
    layout->addStretch(1);
}

glint::Json BrightestPanel::request() const { return form_->values(); }

int BrightestPanel::k() const { return kBox()->value(); }

glint::Backend BrightestPanel::backend() const { return glint::parseBackend(backend_->currentText().toStdString()); }

std::vector<glint::PivotSpec> BrightestPanel::sweepPivots() const {
    std::vector<glint::PivotSpec> pivots;
    const QStringList words = sweep_->text().split(QRegularExpression(QStringLiteral("[,;\\s]+")), Qt::SkipEmptyParts);
    for (const QString& word : words) pivots.push_back(glint::PivotSpec::parse(word.toStdString()));
    if (pivots.empty()) throw glint::UsageError("the pivot sweep needs at least one pivot, e.g. \"mean, p90, p99\"");
    if (pivots.size() > kMaxSweepPivots)
        throw glint::UsageError("the pivot sweep takes at most " + std::to_string(kMaxSweepPivots) + " pivots");
    return pivots;
}

QSpinBox* BrightestPanel::kBox() const { return form_->spinBox("k"); }
QComboBox* BrightestPanel::modeBox() const { return form_->comboBox("mode"); }
QComboBox* BrightestPanel::pivotBox() const { return form_->comboBox("pivot"); }
QComboBox* BrightestPanel::rankBox() const { return form_->comboBox("rank"); }
QDoubleSpinBox* BrightestPanel::percentileBox() const { return form_->pivotPercentile("pivot"); }
QLineEdit* BrightestPanel::numberEdit() const { return form_->pivotNumber("pivot"); }
QDoubleSpinBox* BrightestPanel::thresholdBox() const { return form_->doubleSpinBox("threshold"); }
QDoubleSpinBox* BrightestPanel::minSnrBox() const { return form_->doubleSpinBox("min_snr"); }
QSpinBox* BrightestPanel::minAreaBox() const { return form_->spinBox("min_area"); }
QSpinBox* BrightestPanel::maxSizeBox() const { return form_->spinBox("max_size"); }
QSpinBox* BrightestPanel::maxBoxBox() const { return form_->spinBox("max_box"); }
QCheckBox* BrightestPanel::distinctCheck() const { return form_->toggle("distinct"); }
QDoubleSpinBox* BrightestPanel::distinctBox() const { return form_->doubleSpinBox("distinct"); }
QSpinBox* BrightestPanel::meshBox() const { return form_->spinBox("mesh"); }

void BrightestPanel::setRoiText(const QString& text) {
    roi_->setText(text.isEmpty() ? tr("Whole image (no ROI)") : text);
    clearRoi_->setEnabled(!text.isEmpty());
}

void BrightestPanel::setStatus(const QString& text, bool error) {
    status_->setStyleSheet(error ? QStringLiteral("color: #d03030;") : QString());
    status_->setText(text);
}

QString BrightestPanel::status() const { return status_->text(); }

void BrightestPanel::setRunEnabled(bool enabled) {
    run_->setEnabled(enabled);
    runSweep_->setEnabled(enabled);
}

void BrightestPanel::setImageMean(double mean) {
    numberEdit()->setPlaceholderText(tr("value, e.g. the mean %1").arg(QString::number(mean, 'g', 6)));
}

} // namespace glint::ui
