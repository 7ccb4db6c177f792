#include "ui/docks/DisplayDock.h"

#include "ui/AppContext.h"
#include "ui/display/HistogramWidget.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QStandardItemModel>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>

namespace glint::ui {

namespace {
template <class E>
void fill(QComboBox* box, std::initializer_list<E> values, const char* (*name)(E)) {
    for (E v : values) box->addItem(QString::fromLatin1(name(v)), static_cast<int>(v));
}

void selectData(QComboBox* box, int value) { box->setCurrentIndex(box->findData(value)); }

// Enough decimals for the image's values: none for integers, more for small ranges.
int decimalsFor(const LoadedImage& loaded) {
    const double range = loaded.stats.max - loaded.stats.min;
    if (!loaded.image || (loaded.image->meta.integerValued && range >= 50.0)) return 0;
    if (!(range > 0.0)) return 4;
    return std::clamp(4 - static_cast<int>(std::floor(std::log10(range))), 1, 10);
}
} // namespace

DisplayDock::DisplayDock(AppContext& context, QWidget* parent)
    : QDockWidget(tr("Display"), parent), context_(context), histogram_(new HistogramWidget), scale_(new QComboBox),
      limits_(new QComboBox), percentile_(new QDoubleSpinBox), low_(new QDoubleSpinBox), high_(new QDoubleSpinBox),
      colormap_(new QComboBox) {
    setObjectName(QStringLiteral("DisplayDock"));
    using glint::Colormap;
    using glint::DisplayScale;
    using glint::LimitsMode;
    fill(scale_, {DisplayScale::Linear, DisplayScale::Log, DisplayScale::Sqrt, DisplayScale::Asinh}, &glint::displayScaleName);
    fill(limits_, {LimitsMode::MinMax, LimitsMode::ZScale, LimitsMode::Percentile, LimitsMode::Window, LimitsMode::Manual},
         &glint::limitsModeName);
    limits_->setItemText(limits_->findData(static_cast<int>(LimitsMode::Window)), tr("DICOM window"));
    fill(colormap_, {Colormap::Grey, Colormap::InvertedGrey, Colormap::Heat, Colormap::Viridis, Colormap::Cool, Colormap::Rainbow},
         &glint::colormapName);
    percentile_->setRange(50.0, 100.0);
    percentile_->setDecimals(2);
    percentile_->setSingleStep(0.1);
    percentile_->setSuffix(QStringLiteral(" %"));
    for (QDoubleSpinBox* box : {low_, high_}) {
        box->setRange(-std::numeric_limits<double>::max(), std::numeric_limits<double>::max());
        box->setKeyboardTracking(false);
        box->setMinimumWidth(90);
    }
    percentile_->setKeyboardTracking(false);

    auto* body = new QWidget;
    auto* layout = new QVBoxLayout(body);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(histogram_, 1);
    auto* form = new QFormLayout;
    form->addRow(tr("Scale"), scale_);
    form->addRow(tr("Limits"), limits_);
    form->addRow(tr("Percentile"), percentile_);
    auto* lowHigh = new QHBoxLayout;
    lowHigh->addWidget(low_);
    lowHigh->addWidget(high_);
    form->addRow(tr("Low, high"), lowHigh);
    form->addRow(tr("Colormap"), colormap_);
    layout->addLayout(form);
    setWidget(body);

    for (QComboBox* box : {scale_, limits_, colormap_})
        connect(box, &QComboBox::currentIndexChanged, this, &DisplayDock::applyToContext);
    connect(percentile_, &QDoubleSpinBox::valueChanged, this, &DisplayDock::applyToContext);
    const auto manualFromBoxes = [this] {
        if (!syncing_ && high_->value() > low_->value()) context_.setManualLimits(low_->value(), high_->value());
    };
    connect(low_, &QDoubleSpinBox::valueChanged, this, manualFromBoxes);
    connect(high_, &QDoubleSpinBox::valueChanged, this, manualFromBoxes);
    connect(histogram_, &HistogramWidget::limitsDragged, this,
            [this](double low, double high) { context_.setManualLimits(low, high); });

    connect(&context_, &AppContext::imageChanged, this, [this] {
        const LoadedImage& loaded = context_.loaded();
        histogram_->setHistogram(loaded.histogram);
        // New decimals round the boxes' values, which fires valueChanged: without the guard that carried the
        // last image's limits over as manual limits of this one (a float FITS, then an 8-bit image: black).
        syncing_ = true;
        for (QDoubleSpinBox* box : {low_, high_}) {
            box->setDecimals(decimalsFor(loaded));
            box->setSingleStep(std::max((loaded.stats.max - loaded.stats.min) / 200.0, std::pow(10.0, -box->decimals())));
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
    const bool hasWindow = context_.hasImage() && context_.image()->meta.windowCenter && context_.image()->meta.windowWidth;
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
}

void DisplayDock::applyToContext() {
    if (syncing_) return;
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
}

} // namespace glint::ui
