#include "ui/modules/CommonComponentPanel.h"

#include "ui/FormWidgets.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLocale>
#include <QLabel>
#include <QMimeData>
#include <QSlider>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

#include <limits>

namespace glint::ui {

namespace {
QToolButton* buttonFor(QAction* action) {
    auto* button = new QToolButton;
    button->setDefaultAction(action);
    button->setToolButtonStyle(Qt::ToolButtonTextOnly);
    button->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    return button;
}

// A tolerance box that reads "0" or "2.5", not "0.000000" (its six decimals stay available for typing).
class CompactDoubleSpinBox : public QDoubleSpinBox {
public:
    using QDoubleSpinBox::QDoubleSpinBox;
    QString textFromValue(double value) const override {
        QString text = locale().toString(value, 'f', decimals());
        const QString point = locale().decimalPoint();
        if (text.contains(point)) {
            while (text.endsWith(QLatin1Char('0'))) text.chop(1);
            if (text.endsWith(point)) text.chop(point.size());
        }
        return text;
    }
};

QString droppedFile(const QMimeData* data) {
    if (!data || !data->hasUrls() || data->urls().isEmpty() || !data->urls().first().isLocalFile()) return {};
    return data->urls().first().toLocalFile();
}
} // namespace

CommonComponentPanel::CommonComponentPanel(const CommonComponentActions& actions, QWidget* parent)
    : QWidget(parent), secondImage_(new QLabel), tolerance_(new CompactDoubleSpinBox), limitShift_(new QCheckBox),
      maxShift_(new QSpinBox), normalize_(new QComboBox), backend_(new QComboBox), opacity_(new QSlider(Qt::Horizontal)), summary_(new QLabel),
      cursor_(new QLabel) {
    setAcceptDrops(true);
    auto* layout = new QVBoxLayout(this);

    auto* about = new QLabel(tr("The largest 4-connected set of pixels that the current image (A) and a second "
                                "image (B) share at one offset: overlapping tiles, two exposures of a field, a "
                                "current and a prior mammogram."));
    about->setWordWrap(true);
    layout->addWidget(about);

    auto* inputs = new QGroupBox(tr("Image B"));
    auto* inputsLayout = new QVBoxLayout(inputs);
    secondImage_->setWordWrap(true);
    secondImage_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    inputsLayout->addWidget(secondImage_);
    inputsLayout->addWidget(buttonFor(actions.openSecond));
    layout->addWidget(inputs);
    setSecondImageText({});

    auto* params = new QGroupBox(tr("Parameters"));
    auto* form = new QFormLayout(params);
    setUpSpinBox(tolerance_, 0.0, 1e12, 6);
    tolerance_->setValue(0.0);
    tolerance_->setToolTip(tr("Pixels match when |A − B| ≤ tolerance; 0 = equal values, as in the paper."));
    form->addRow(tr("Tolerance"), tolerance_);
    auto* shiftRow = new QHBoxLayout;
    limitShift_->setText(tr("at most"));
    maxShift_->setRange(0, std::numeric_limits<int>::max());
    maxShift_->setValue(64);
    maxShift_->setSuffix(tr(" px"));
    maxShift_->setEnabled(false);
    maxShift_->setToolTip(tr("Only offsets with |dx| and |dy| up to this are searched."));
    shiftRow->addWidget(limitShift_);
    shiftRow->addWidget(maxShift_, 1);
    form->addRow(tr("Shift"), shiftRow);
    connect(limitShift_, &QCheckBox::toggled, maxShift_, &QWidget::setEnabled);
    normalize_->setObjectName(QStringLiteral("normalize"));
    addEnumItems(normalize_, {glint::CommonNormalize::None, glint::CommonNormalize::Linear, glint::CommonNormalize::Rank},
                 &glint::commonNormalizeName);
    normalize_->setCurrentIndex(normalize_->findData(static_cast<int>(glint::CommonNormalize::Linear)));
    normalize_->setToolTip(tr("How B's values are mapped onto A's before matching: none (the paper's definition), "
                              "linear (gain and offset, a robust fit on the overlap), rank (histogram matching)."));
    form->addRow(tr("Normalise B"), normalize_);
    for (const char* name : {"auto", "cuda", "cpu", "reference"}) backend_->addItem(QString::fromLatin1(name));
    const CudaDeviceInfo& device = glint::cudaDevice();
    if (!device.usable)
        backend_->setItemData(1, tr("No usable CUDA device: %1").arg(QString::fromStdString(device.reason)),
                              Qt::ToolTipRole);
    form->addRow(tr("Backend"), backend_);
    layout->addWidget(params);
    layout->addWidget(buttonFor(actions.find));

    auto* view = new QGroupBox(tr("View"));
    auto* viewLayout = new QVBoxLayout(view);
    auto* modes = new QHBoxLayout;
    modes->addWidget(buttonFor(actions.sideBySide));
    modes->addWidget(buttonFor(actions.blend));
    viewLayout->addLayout(modes);
    auto* opacityRow = new QHBoxLayout;
    opacityRow->addWidget(new QLabel(tr("B opacity")));
    opacity_->setRange(0, 100);
    opacity_->setValue(50);
    opacity_->setToolTip(tr("How strongly B covers A when blended"));
    opacityRow->addWidget(opacity_, 1);
    viewLayout->addLayout(opacityRow);
    layout->addWidget(view);
    connect(opacity_, &QSlider::valueChanged, this, [this](int v) { emit opacityChanged(v / 100.0); });
    opacity_->setEnabled(actions.blend->isChecked());
    connect(actions.blend, &QAction::toggled, opacity_, &QWidget::setEnabled);

    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(summary_);
    cursor_->setWordWrap(true);
    layout->addWidget(cursor_);
    layout->addStretch(1);
}

double CommonComponentPanel::tolerance() const { return tolerance_->value(); }

long long CommonComponentPanel::maxShift() const { return limitShift_->isChecked() ? maxShift_->value() : -1; }

glint::CommonNormalize CommonComponentPanel::normalize() const {
    return static_cast<glint::CommonNormalize>(normalize_->currentData().toInt());
}

glint::Backend CommonComponentPanel::backend() const { return glint::parseBackend(backend_->currentText().toStdString()); }

double CommonComponentPanel::opacity() const { return opacity_->value() / 100.0; }

void CommonComponentPanel::setSecondImageText(const QString& text) {
    secondImage_->setText(text.isEmpty() ? tr("None yet: open one, or drop a file on this panel.") : text);
}

void CommonComponentPanel::setSummary(const QString& text, bool error) {
    summary_->setText(text);
    summary_->setStyleSheet(error ? QStringLiteral("color: #d04040;") : QString());
}

void CommonComponentPanel::setCursorText(const QString& text) { cursor_->setText(text); }

void CommonComponentPanel::dragEnterEvent(QDragEnterEvent* event) {
    if (!droppedFile(event->mimeData()).isEmpty()) event->acceptProposedAction();
}

void CommonComponentPanel::dropEvent(QDropEvent* event) {
    const QString path = droppedFile(event->mimeData());
    if (path.isEmpty()) return;
    event->acceptProposedAction();
    emit fileDropped(path);
}

} // namespace glint::ui
