#include "ui/docks/DisplayDock.h"

#include "ui/undo/UndoCommands.h"

#include "ui/AppContext.h"
#include "core/io/DicomVoi.h"
#include "ui/FormWidgets.h"
#include "ui/display/HistogramWidget.h"
#include "ui/display/DicomWindowChooser.h"
#include "ui/display/ImagePartChooser.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QUndoStack>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QStandardItemModel>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>

namespace glint::ui {

namespace {
void selectData(QComboBox* box, int value) { box->setCurrentIndex(box->findData(value)); }

// Enough decimals for the image's values: none for integers, more for small ranges.
int decimalsFor(const LoadedImage& loaded) {
    const double range = loaded.stats.max - loaded.stats.min;
    if (!std::isfinite(range)) return 0; // data near ±1.7e308
    if (!loaded.image || (loaded.image->meta.integerValued && range >= 50.0)) return 0;
    if (!(range > 0.0)) return 4;
    return std::clamp(4 - static_cast<int>(std::floor(std::log10(range))), 1, 10);
}
} // namespace

DisplayDock::DisplayDock(AppContext& context, QWidget* parent)
    : QDockWidget(tr("Display"), parent), context_(context), histogram_(new HistogramWidget), scale_(new QComboBox),
      limits_(new QComboBox), percentile_(new QDoubleSpinBox), low_(new QDoubleSpinBox), high_(new QDoubleSpinBox),
      colormap_(new QComboBox), axis_(new QComboBox), zoom_(new QCheckBox(tr("Zoom to limits"))),
      applyAll_(new QPushButton(tr("Apply to All"))), parts_(new ImagePartChooser(context)) {
    setObjectName(QStringLiteral("DisplayDock"));
    using glint::Colormap;
    using glint::DisplayScale;
    using glint::LimitsMode;
    addEnumItems(scale_, {DisplayScale::Linear, DisplayScale::Log, DisplayScale::Sqrt, DisplayScale::Asinh}, &glint::displayScaleName);
    addEnumItems(limits_, {LimitsMode::MinMax, LimitsMode::ZScale, LimitsMode::Percentile, LimitsMode::Window, LimitsMode::Manual},
         &glint::limitsModeName);
    limits_->setItemText(limits_->findData(static_cast<int>(LimitsMode::Window)), tr("DICOM window"));
    addEnumItems(colormap_, {Colormap::Grey, Colormap::InvertedGrey, Colormap::Heat, Colormap::Viridis, Colormap::Cool, Colormap::Rainbow},
         &glint::colormapName);
    setUpSpinBox(percentile_, 50.0, 100.0, 2, QStringLiteral(" %"));
    percentile_->setSingleStep(0.1);
    for (QDoubleSpinBox* box : {low_, high_}) {
        box->setRange(-std::numeric_limits<double>::max(), std::numeric_limits<double>::max());
        box->setKeyboardTracking(false);
        box->setMinimumWidth(90);
    }
    percentile_->setKeyboardTracking(false);

    auto* body = new QWidget;
    auto* layout = new QVBoxLayout(body);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(parts_);
    layout->addWidget(new DicomWindowChooser(context_)); // VOI windows, LUTs and CT presets of a DICOM image
    layout->addWidget(histogram_, 1);
    // The histogram's own axis and range, under it.
    auto* view = new QHBoxLayout;
    view->setContentsMargins(0, 0, 0, 0);
    for (auto a : {glint::HistogramAxis::Linear, glint::HistogramAxis::Log, glint::HistogramAxis::Asinh})
        axis_->addItem(tr("%1 axis").arg(QString::fromLatin1(glint::histogramAxisName(a))), static_cast<int>(a));
    axis_->setToolTip(tr("How values are spread along the histogram: log and asinh widen the faint end, where the "
                         "sky of an astronomical frame lies"));
    zoom_->setChecked(true); // the limits' handles where they can be seen and moved, on any image
    zoom_->setToolTip(tr("Show the histogram around the display limits only (arrows mark data beyond either end)"));
    view->addWidget(axis_, 1);
    view->addWidget(zoom_);
    layout->addLayout(view);
    // Three compact rows, so that the parameters below get the height.
    histogram_->setMinimumHeight(90);
    percentile_->setToolTip(tr("Percentile limits: the central share of the values kept"));
    auto* form = new QFormLayout;
    auto* limitsRow = new QHBoxLayout;
    limitsRow->addWidget(limits_, 3);
    limitsRow->addWidget(percentile_, 2);
    form->addRow(tr("Limits"), limitsRow);
    auto* lowHigh = new QHBoxLayout;
    lowHigh->addWidget(low_);
    lowHigh->addWidget(high_);
    form->addRow(tr("Low, high"), lowHigh);
    auto* lookRow = new QHBoxLayout;
    lookRow->addWidget(scale_, 1);
    lookRow->addWidget(colormap_, 1);
    lookRow->addWidget(applyAll_);
    scale_->setToolTip(tr("The stretch between the limits"));
    colormap_->setToolTip(tr("The colours (colormap)"));
    form->addRow(tr("Scale"), lookRow);
    layout->addLayout(form);
    // Settings stay with their image; this makes them the default of every image, now and next time (on
    // the scale row: a row of its own would take the parameters' room at 1280 × 800).
    applyAll_->setObjectName(QStringLiteral("applyDisplayToAll"));
    applyAll_->setToolTip(tr("Apply to All Images: use this scale, limits mode and colours for every image, those "
                             "opened before and after, and as the default next time (otherwise each image keeps "
                             "its own)"));
    applyAll_->setEnabled(false);
    connect(applyAll_, &QPushButton::clicked, &context_, &AppContext::applyDisplayToAll);
    setWidget(body);

    // Each change the user makes is one step of Edit ▸ Undo; a drag or a spin box's run of changes is one.
    connect(scale_, &QComboBox::currentIndexChanged, this, [this] { applyToContext(tr("Change Scale")); });
    connect(limits_, &QComboBox::currentIndexChanged, this, [this] { applyToContext(tr("Change Limits")); });
    connect(colormap_, &QComboBox::currentIndexChanged, this, [this] { applyToContext(tr("Change Colour Map")); });
    connect(percentile_, &QDoubleSpinBox::valueChanged, this,
            [this] { applyToContext(tr("Change Percentile"), QStringLiteral("percentile")); });
    const auto manualFromBoxes = [this](const QString& gesture) {
        if (syncing_ || high_->value() <= low_->value()) return;
        const glint::DisplaySettings before = context_.displaySettings();
        context_.setManualLimits(low_->value(), high_->value());
        pushDisplayChange(before, tr("Change Limits"), gesture);
    };
    connect(low_, &QDoubleSpinBox::valueChanged, this, [manualFromBoxes] { manualFromBoxes(QStringLiteral("low")); });
    connect(high_, &QDoubleSpinBox::valueChanged, this, [manualFromBoxes] { manualFromBoxes(QStringLiteral("high")); });
    connect(histogram_, &HistogramWidget::limitsDragged, this, [this](double low, double high) {
        const glint::DisplaySettings before = context_.displaySettings();
        context_.setManualLimits(low, high);
        pushDisplayChange(before, tr("Drag Limits"), QStringLiteral("drag %1").arg(drag_));
    });

    connect(axis_, &QComboBox::currentIndexChanged, this, [this] {
        requestHistogram();
        emit histogramViewChanged();
    });
    connect(zoom_, &QCheckBox::toggled, this, [this] {
        requestHistogram();
        emit histogramViewChanged();
    });
    connect(histogram_, &HistogramWidget::limitsDragFinished, this, [this] {
        ++drag_; // the next drag is a step of its own
        if (zoomedToLimits()) requestHistogram();
    });

    connect(&context_, &AppContext::imageChanged, this, [this] {
        const LoadedImage& loaded = context_.loaded();
        applyAll_->setEnabled(true);
        histogram_->setHistogram(loaded.histogram); // until the one for the axis and zoom is ready
        levels_.reset();
        levelsKnown_ = false;
        zoomedRange_ = {0.0, 0.0};
        requestHistogram();
        // New decimals round the boxes' values, which fires valueChanged: without the guard that carried the
        // last image's limits over as manual limits of this one (a float FITS, then an 8-bit image: black).
        syncing_ = true;
        for (QDoubleSpinBox* box : {low_, high_}) {
            box->setDecimals(decimalsFor(loaded));
            const double step = loaded.stats.max / 200.0 - loaded.stats.min / 200.0; // no overflow near ±1.7e308
            box->setSingleStep(std::max(step, std::pow(10.0, -box->decimals())));
        }
        syncing_ = false;
    });
    connect(&context_, &AppContext::displaySettingsChanged, this, &DisplayDock::syncFromContext);
    connect(&context_, &AppContext::frameReady, this, &DisplayDock::showLimits);
    syncFromContext();
}

void DisplayDock::syncFromContext() {
    syncing_ = true;
    const glint::DisplaySettings& s = context_.displaySettings();
    selectData(scale_, static_cast<int>(s.scale));
    selectData(limits_, static_cast<int>(s.limits));
    selectData(colormap_, static_cast<int>(s.colormap));
    percentile_->setValue(s.percentile);
    percentile_->setEnabled(s.limits == glint::LimitsMode::Percentile);
    // The window entry only makes sense for images that carry one.
    const bool hasWindow = context_.hasImage() && ((context_.image()->meta.windowCenter && context_.image()->meta.windowWidth) ||
                                                   (context_.image()->meta.voi && context_.image()->meta.voi->choiceCount() > 0));
    if (auto* model = qobject_cast<QStandardItemModel*>(limits_->model()))
        model->item(limits_->findData(static_cast<int>(glint::LimitsMode::Window)))->setEnabled(hasWindow);
    syncing_ = false;
    showLimits();
}

void DisplayDock::showLimits() {
    syncing_ = true;
    const glint::DisplayLimits l = context_.displayLimits();
    low_->setValue(l.low);
    high_->setValue(l.high);
    histogram_->setLimits(l, context_.displaySettings().scale);
    syncing_ = false;
    // Zoomed: follow limits set elsewhere (not while a handle is dragged: the axis would slide under it).
    if (zoomedToLimits() && !histogram_->isDragging()) requestHistogram();
}

glint::HistogramAxis DisplayDock::histogramAxis() const { return static_cast<glint::HistogramAxis>(axis_->currentData().toInt()); }

void DisplayDock::setHistogramAxis(glint::HistogramAxis axis) { selectData(axis_, static_cast<int>(axis)); }

bool DisplayDock::zoomedToLimits() const { return zoom_->isChecked(); }

void DisplayDock::setZoomedToLimits(bool zoom) { zoom_->setChecked(zoom); }

void DisplayDock::requestHistogram() {
    const LoadedImage& loaded = context_.loaded();
    if (!loaded.image || loaded.stats.count == 0 || loaded.histogram.counts.empty()) return;
    // The range: the loaded histogram's (the data, outliers trimmed), or the limits with a quarter of
    // their width on either side (within the data).
    double low = loaded.histogram.low, high = loaded.histogram.high;
    if (zoomedToLimits()) {
        const glint::DisplayLimits l = context_.displayLimits();
        if (l.high > l.low) {
            const double margin = 0.25 * l.high - 0.25 * l.low; // no overflow near ±1.7e308
            constexpr double most = std::numeric_limits<double>::max();
            // The handles always at the same places: 1/6 and 5/6 on a linear axis (within what double holds).
            low = std::max(l.low - margin, -most);
            high = std::min(l.high + margin, most);
            // A log or asinh axis widens its low end: start it at the data, not in an empty margin below.
            if (histogramAxis() != glint::HistogramAxis::Linear) low = std::min(l.low, std::max(low, loaded.stats.min));
        }
        if (!pending_ && std::pair(low, high) == zoomedRange_ && histogram_->histogram().axis == histogramAxis()) return;
        zoomedRange_ = {low, high};
    } else {
        zoomedRange_ = {0.0, 0.0};
    }
    if (!(high > low)) return;
    const glint::HistogramAxis axis = histogramAxis();
    pending_ = true;
    struct Outcome {
        glint::Histogram histogram;
        std::optional<glint::LevelGrid> levels;
    };
    const std::shared_ptr<const glint::Image> image = loaded.image;
    const bool levelsKnown = levelsKnown_;
    const std::optional<glint::LevelGrid> levels = levels_;
    histogramJob_.start(
        this,
        [image, low, high, axis, levelsKnown, levels]() -> Outcome {
            Outcome out;
            out.levels = levelsKnown ? levels : glint::integerLevelGrid(*image);
            try {
                out.histogram = glint::computeAxisHistogram(*image, low, high, 512, axis, out.levels);
            } catch (const std::exception&) {
                // A degenerate range: keep the histogram shown.
            }
            return out;
        },
        [this, image](const Outcome& outcome) {
            if (image != context_.image()) return; // computed for an image no longer shown
            pending_ = false;
            levels_ = outcome.levels;
            levelsKnown_ = true;
            if (!outcome.histogram.counts.empty()) histogram_->setHistogram(outcome.histogram);
        });
}

void DisplayDock::pushDisplayChange(const glint::DisplaySettings& before, const QString& what, const QString& gesture) {
    QUndoStack* stack = context_.undoStack();
    if (!stack || !context_.hasImage() || sameDisplay(before, context_.displaySettings())) return;
    const bool timeLimited = !gesture.startsWith(QStringLiteral("drag"));
    stack->push(new DisplaySettingsCommand(context_, what, before, context_.displaySettings(), gesture, timeLimited));
}

void DisplayDock::applyToContext(const QString& what, const QString& gesture) {
    if (syncing_) return;
    const glint::DisplaySettings before = context_.displaySettings();
    glint::DisplaySettings s = context_.displaySettings();
    s.scale = static_cast<glint::DisplayScale>(scale_->currentData().toInt());
    s.colormap = static_cast<glint::Colormap>(colormap_->currentData().toInt());
    s.percentile = percentile_->value();
    const auto mode = static_cast<glint::LimitsMode>(limits_->currentData().toInt());
    if (mode == glint::LimitsMode::Manual && s.limits != glint::LimitsMode::Manual) {
        const glint::DisplayLimits now = context_.displayLimits(); // start from what is on screen
        s.low = now.low;
        s.high = now.high;
    }
    s.limits = mode;
    context_.setDisplaySettings(s);
    pushDisplayChange(before, what, gesture);
}

} // namespace glint::ui
