#include "ui/modules/BrightestPanel.h"

#include "core/util/Errors.h"
#include "ui/FormWidgets.h"

#include <QCheckBox>
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

// The search bound's box: "auto (5 × FWHM)" (kMaxBoxAuto, the bound measured on the image), "none" (0), or
// "N px". Typing "auto", "none" or a number works.
class BoundSpinBox final : public QSpinBox {
public:
    BoundSpinBox() { setRange(glint::kMaxBoxAuto, 1000000); }

protected:
    QString textFromValue(int value) const override {
        if (value == glint::kMaxBoxAuto) return tr("auto (5 × FWHM)");
        if (value == 0) return tr("none");
        return tr("%1 px").arg(value);
    }
    int valueFromText(const QString& text) const override {
        const QString t = text.trimmed().toLower();
        if (t.startsWith(QStringLiteral("a"))) return glint::kMaxBoxAuto;
        if (t.startsWith(QStringLiteral("n"))) return 0;
        return QString(t).remove(QStringLiteral("px")).trimmed().toInt();
    }
    QValidator::State validate(QString& text, int&) const override {
        const QString t = text.trimmed().toLower();
        if (t.isEmpty()) return QValidator::Intermediate;
        const QStringList words{textFromValue(glint::kMaxBoxAuto).toLower(), textFromValue(0).toLower(), QStringLiteral("auto")};
        if (words.contains(t)) return QValidator::Acceptable;
        for (const QString& word : words)
            if (word.startsWith(t)) return QValidator::Intermediate;
        static const QRegularExpression number(QStringLiteral("^(\\d+)\\s*(p|px)?$"));
        const QRegularExpressionMatch m = number.match(t);
        if (!m.hasMatch()) return QValidator::Invalid;
        bool ok = false;
        const int v = m.captured(1).toInt(&ok);
        return ok && v <= maximum() ? QValidator::Acceptable : QValidator::Invalid;
    }
};
} // namespace

BrightestPanel::BrightestPanel(QWidget* parent)
    : QWidget(parent), k_(new QSpinBox), mode_(new QComboBox), pivotKind_(new QComboBox), pivotValue_(new QStackedWidget),
      percentile_(new QDoubleSpinBox), number_(new QLineEdit), backend_(new QComboBox),
      run_(new QPushButton(tr("Find Regions"))), threshold_(new QDoubleSpinBox), minSnr_(new QDoubleSpinBox),
      minArea_(new QSpinBox), maxSize_(new QSpinBox), maxBox_(new BoundSpinBox), distinctOn_(new QCheckBox(tr("Distinct"))),
      distinct_(new QDoubleSpinBox), mesh_(new QSpinBox), sweep_(new QLineEdit(QStringLiteral("mean, p90, p95, p99"))),
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
    // Overlap mode lists near-copies of the brightest object (boxes a pixel apart); Distinct lists a
    // rectangle only if it overlaps each higher-ranked one by at most F of the smaller area (--distinct F).
    setUpSpinBox(distinct_, 0.0, 0.99, 2);
    distinct_->setSingleStep(0.05);
    distinct_->setValue(kDefaultDistinct);
    distinctOn_->setChecked(true);
    const QString distinctTip = tr("Overlap mode: list a rectangle only if it overlaps every higher-ranked one by at "
                                   "most this fraction of the smaller area (0: no shared pixel). Off: the K largest "
                                   "sums, near-copies included");
    distinctOn_->setToolTip(distinctTip);
    distinct_->setToolTip(distinctTip);
    auto* distinctRow = new QHBoxLayout;
    distinctRow->addWidget(distinctOn_);
    distinctRow->addWidget(distinct_, 1);
    form->addRow(tr("Overlap"), distinctRow);
    const auto updateDistinct = [this] {
        const bool overlap = mode_->currentData().toString() == QLatin1String("overlap");
        distinctOn_->setEnabled(overlap);
        distinct_->setEnabled(overlap && distinctOn_->isChecked());
        // The filters are the disjoint search's; the search bound (Max box) applies to both modes.
        for (QWidget* w : std::initializer_list<QWidget*>{minSnr_, minArea_, maxSize_}) w->setEnabled(!overlap);
    };
    connect(mode_, &QComboBox::currentIndexChanged, this, updateDistinct);
    connect(distinctOn_, &QCheckBox::toggled, this, updateDistinct);
    updateDistinct();
    pivotKind_->addItem(tr("mean"), QStringLiteral("mean"));
    pivotKind_->addItem(tr("median"), QStringLiteral("median"));
    pivotKind_->addItem(tr("percentile"), QStringLiteral("percentile"));
    pivotKind_->addItem(tr("number"), QStringLiteral("number"));
    pivotKind_->addItem(tr("local (background map)"), QStringLiteral("local"));
    // As wide as "percentile", not as the longest entry: the panel keeps to the dock's width.
    pivotKind_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    pivotKind_->setMinimumContentsLength(10);
    pivotKind_->setToolTip(tr("local: a background map (one value per pixel, cells of the mesh size) is subtracted, "
                              "and the threshold is in units of the local RMS"));
    setUpSpinBox(percentile_, 0.0, 100.0, 2);
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
    // A pivot that takes no value gets the whole row, so that "local (background map)" is not cut.
    const auto showPivotValue = [this, pivotRow](int page) {
        pivotValue_->setCurrentIndex(page);
        pivotValue_->setMaximumWidth(page == 0 ? 0 : QWIDGETSIZE_MAX);
        pivotRow->setStretch(0, page == 0 ? 1 : 0);
        pivotRow->setStretch(1, page == 0 ? 0 : 1);
    };
    connect(pivotKind_, &QComboBox::currentIndexChanged, this,
            [this, showPivotValue](int) {
                const QString kind = pivotKind_->currentData().toString();
                showPivotValue(kind == QLatin1String("percentile") ? 1 : kind == QLatin1String("number") ? 2 : 0);
                if (!applyingDefaults_) userPivot_ = true;
            });
    showPivotValue(0);
    for (const char* name : {"auto", "cuda", "cpu", "reference"}) backend_->addItem(QString::fromLatin1(name));
    form->addRow(tr("Backend"), backend_);
    run_->setToolTip(tr("Find the K brightest regions (Analyze ▸ K Brightest Regions)"));
    form->addRow(run_);
    layout->addWidget(search);

    auto* sourceBox = new QGroupBox(tr("Source finding"));
    auto* sourceForm = new QFormLayout(sourceBox);
    setUpSpinBox(threshold_, 0.0, 1000.0, 2, tr(" × RMS"));
    threshold_->setSingleStep(0.5);
    threshold_->setToolTip(tr("Subtract this many RMS from every pixel before the search (the local RMS with the "
                              "local pivot, the global one otherwise): only pixels above it add to a region"));
    sourceForm->addRow(tr("Threshold"), threshold_);
    setUpSpinBox(minSnr_, 0.0, 1e6, 2);
    minSnr_->setSpecialValueText(tr("none"));
    minSnr_->setToolTip(tr("Regions with a lower signal-to-noise ratio are skipped and the search goes on (0: none)"));
    sourceForm->addRow(tr("Min SNR"), minSnr_);
    // Pixel counts and sides, 0 meaning none.
    const auto addPixelsRow = [&](const QString& label, QSpinBox* box, int max, const QString& tip) {
        box->setRange(0, max);
        box->setSuffix(tr(" px"));
        box->setSpecialValueText(tr("none"));
        box->setToolTip(tip);
        sourceForm->addRow(label, box);
    };
    addPixelsRow(tr("Min area"), minArea_, 1000000000, tr("Regions with fewer pixels are skipped (0: none)"));
    addPixelsRow(tr("Max size"), maxSize_, 1000000, tr("Regions whose longer side is larger are skipped (0: none)"));
    maxBox_->setToolTip(
        tr("Search only boxes whose sides are at most this: each region is then the brightest box of that size, so "
           "bright sources are not joined across the sky between them and a crowded field (a cluster, a galaxy's "
           "halo) gives one box per star instead of one box over the whole frame. auto: 5 times the PSF's FWHM, "
           "measured on the image's own stars (the mesh when it has too few clean ones); the status bar says "
           "which. The source finder starts at auto on FITS images. Both modes: overlap mode lists the best boxes "
           "of at most this size (none: any size)"));
    sourceForm->addRow(tr("Max box"), maxBox_);
    mesh_->setRange(2, 4096);
    mesh_->setValue(glint::BrightestParams{}.mesh);
    mesh_->setSuffix(tr(" px"));
    mesh_->setToolTip(tr("The background map's cell side (local pivot and the RMS)"));
    sourceForm->addRow(tr("Mesh"), mesh_);
    connect(threshold_, &QDoubleSpinBox::valueChanged, this, [this] {
        if (!applyingDefaults_) userThreshold_ = true;
    });
    connect(minSnr_, &QDoubleSpinBox::valueChanged, this, [this] {
        if (!applyingDefaults_) userMinSnr_ = true;
    });
    connect(maxBox_, &QSpinBox::valueChanged, this, [this] {
        if (!applyingDefaults_) userMaxBox_ = true;
    });
    layout->addWidget(sourceBox);

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
    autoExclude_->setToolTip(tr("Add the outside of the breast, burned-in labels and markers and the pectoral muscle "
                                "as exclusion shapes (editable; mammograms get them when opened)"));
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

void BrightestPanel::applySourceFinding(glint::BrightestParams& params) const {
    params.threshold = threshold_->value();
    params.mesh = mesh_->value();
    // The filters are the disjoint search's (disabled in overlap mode, where Distinct keeps the rectangles
    // apart); the search bound applies to both modes.
    const bool disjoint = params.mode == glint::BrightestMode::Disjoint;
    params.minSnr = disjoint ? minSnr_->value() : 0.0;
    params.minArea = disjoint ? minArea_->value() : 0;
    params.maxSize = disjoint ? maxSize_->value() : 0;
    params.maxBox = maxBox_->value();
}

void BrightestPanel::applyDistinct(glint::BrightestParams& params) const {
    if (params.mode == glint::BrightestMode::Overlap && distinctOn_->isChecked()) params.distinct = distinct_->value();
    else params.distinct.reset();
}

void BrightestPanel::setImageDefaults(PivotDefault pivot, double threshold, double minSnr, int maxBox) {
    withoutMarkingUser([&] {
        if (!userPivot_) pivotKind_->setCurrentIndex(pivotKind_->findData(pivot == PivotDefault::Local ? QStringLiteral("local") : QStringLiteral("mean")));
        if (!userThreshold_) threshold_->setValue(threshold);
        if (!userMinSnr_) minSnr_->setValue(minSnr);
        if (!userMaxBox_) maxBox_->setValue(maxBox);
    });
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
