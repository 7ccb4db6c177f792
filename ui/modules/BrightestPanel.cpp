#include "ui/modules/BrightestPanel.h"

#include "core/util/Errors.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QStackedWidget>
#include <QVBoxLayout>

namespace glint::ui {

namespace {
constexpr int kMaxK = 1000;
constexpr int kMaxSweepPivots = 16;
} // namespace

BrightestPanel::BrightestPanel(QWidget* parent)
    : QWidget(parent), k_(new QSpinBox), mode_(new QComboBox), pivotKind_(new QComboBox), pivotValue_(new QStackedWidget),
      percentile_(new QDoubleSpinBox), number_(new QLineEdit), backend_(new QComboBox),
      run_(new QPushButton(tr("Find Regions"))), sweep_(new QLineEdit(QStringLiteral("mean, p90, p95, p99"))),
      runSweep_(new QPushButton(tr("Run Sweep"))), roi_(new QLabel), drawRoi_(new QPushButton(tr("Draw ROI"))),
      clearRoi_(new QPushButton(tr("Clear ROI"))), exclusions_(new QListWidget),
      excludeRect_(new QPushButton(tr("Rectangle"))), excludePolygon_(new QPushButton(tr("Polygon"))),
      deleteExclusion_(new QPushButton(tr("Delete"))), clearExclusions_(new QPushButton(tr("Clear All"))),
      status_(new QLabel) {
    auto* layout = new QVBoxLayout(this);
    auto* about = new QLabel(tr("The rectangle with the largest sum of (value − pivot), or the K best. Blank and "
                                "excluded pixels are never inside a region."));
    about->setWordWrap(true);
    layout->addWidget(about);

    auto* search = new QGroupBox(tr("Search"));
    auto* form = new QFormLayout(search);
    k_->setRange(1, kMaxK);
    k_->setValue(kDefaultK);
    k_->setToolTip(tr("How many regions (1–%1); Enter runs the search").arg(kMaxK));
    form->addRow(tr("Regions (K)"), k_);
    mode_->addItem(tr("disjoint"), QStringLiteral("disjoint"));
    mode_->addItem(tr("overlap (K-MSP)"), QStringLiteral("overlap"));
    mode_->setToolTip(tr("disjoint: the K best rectangles sharing no pixel, found in turn.\n"
                         "overlap: the K largest sums over all rectangles, which may nest or overlap."));
    form->addRow(tr("Mode"), mode_);
    pivotKind_->addItem(tr("mean"), QStringLiteral("mean"));
    pivotKind_->addItem(tr("median"), QStringLiteral("median"));
    pivotKind_->addItem(tr("percentile"), QStringLiteral("percentile"));
    pivotKind_->addItem(tr("number"), QStringLiteral("number"));
    percentile_->setRange(0.0, 100.0);
    percentile_->setDecimals(2);
    percentile_->setSingleStep(0.5);
    percentile_->setValue(99.0);
    percentile_->setPrefix(QStringLiteral("p"));
    number_->setPlaceholderText(tr("value"));
    pivotValue_->addWidget(new QWidget); // mean and median take no value
    pivotValue_->addWidget(percentile_);
    pivotValue_->addWidget(number_);
    auto* pivotRow = new QHBoxLayout;
    pivotRow->addWidget(pivotKind_);
    pivotRow->addWidget(pivotValue_, 1);
    form->addRow(tr("Pivot"), pivotRow);
    connect(pivotKind_, &QComboBox::currentIndexChanged, this,
            [this](int index) { pivotValue_->setCurrentIndex(index <= 1 ? 0 : index - 1); });
    pivotValue_->setCurrentIndex(0);
    for (const char* name : {"auto", "cuda", "cpu", "reference"}) backend_->addItem(QString::fromLatin1(name));
    form->addRow(tr("Backend"), backend_);
    run_->setToolTip(tr("Find the K brightest regions (Analyze ▸ K Brightest Regions)"));
    form->addRow(run_);
    layout->addWidget(search);

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
    auto* hint = new QLabel(tr("Draw what must stay out of every region: the chest wall, film labels, artefacts."));
    hint->setWordWrap(true);
    exclusionLayout->addWidget(hint);
    auto* drawButtons = new QHBoxLayout;
    drawButtons->addWidget(excludeRect_);
    drawButtons->addWidget(excludePolygon_);
    exclusionLayout->addLayout(drawButtons);
    exclusions_->setMinimumHeight(60);
    exclusions_->setMaximumHeight(140);
    exclusionLayout->addWidget(exclusions_);
    auto* listButtons = new QHBoxLayout;
    listButtons->addWidget(deleteExclusion_);
    listButtons->addWidget(clearExclusions_);
    exclusionLayout->addLayout(listButtons);
    layout->addWidget(exclusionBox);

    // Enter in a value runs the search with it (the spin boxes would otherwise swallow it).
    k_->installEventFilter(this);
    percentile_->installEventFilter(this);
    connect(number_, &QLineEdit::returnPressed, this, &BrightestPanel::runRequested);
    connect(sweep_, &QLineEdit::returnPressed, this, &BrightestPanel::sweepRequested);

    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(status_);
    layout->addStretch(1);
}

bool BrightestPanel::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() == QEvent::KeyPress) {
        const int key = static_cast<QKeyEvent*>(event)->key();
        if ((key == Qt::Key_Return || key == Qt::Key_Enter) && (watched == k_ || watched == percentile_)) {
            static_cast<QAbstractSpinBox*>(watched)->interpretText(); // the typed value, not the last one kept
            emit runRequested();
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

int BrightestPanel::k() const { return k_->value(); }

glint::BrightestMode BrightestPanel::mode() const {
    return glint::parseBrightestMode(mode_->currentData().toString().toStdString());
}

glint::PivotSpec BrightestPanel::pivot() const {
    const QString kind = pivotKind_->currentData().toString();
    if (kind == QLatin1String("percentile")) {
        glint::PivotSpec spec;
        spec.kind = glint::PivotSpec::Kind::Percentile;
        spec.value = percentile_->value();
        return spec;
    }
    if (kind == QLatin1String("number")) {
        const QString text = number_->text().trimmed();
        if (text.isEmpty()) throw glint::UsageError("enter a number for the pivot");
        const glint::PivotSpec spec = glint::PivotSpec::parse(text.toStdString());
        if (spec.kind != glint::PivotSpec::Kind::Number)
            throw glint::UsageError("the pivot '" + text.toStdString() + "' is not a number");
        return spec;
    }
    return glint::PivotSpec::parse(kind.toStdString());
}

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
    number_->setPlaceholderText(tr("value, e.g. the mean %1").arg(QString::number(mean, 'g', 6)));
}

} // namespace glint::ui
