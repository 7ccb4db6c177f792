#include "ui/modules/CommonComponentPanel.h"

#include "core/algo/commoncomponent/CommonSpec.h"
#include "ui/params/SpecForm.h"

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

QString droppedFile(const QMimeData* data) {
    if (!data || !data->hasUrls() || data->urls().isEmpty() || !data->urls().first().isLocalFile()) return {};
    return data->urls().first().toLocalFile();
}
} // namespace

CommonComponentPanel::CommonComponentPanel(const CommonComponentActions& actions, QWidget* parent)
    : QWidget(parent), secondImage_(new QLabel), form_(new SpecForm(glint::commonSpec())), backend_(new QComboBox),
      opacity_(new QSlider(Qt::Horizontal)), summary_(new QLabel),
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

    // The spec's fields ("Parameters"), then the backend under them.
    form_->setValues(glint::commonSpec().presetValues(glint::ImageKind::Other));
    layout->addWidget(form_);
    auto* form = static_cast<QFormLayout*>(form_->group(QStringLiteral("Parameters"))->layout());
    maxShiftCheck()->setText(tr("at most"));
    maxShiftBox()->setValue(64); // what a check of "at most" starts from
    for (const char* name : {"auto", "cuda", "cpu", "reference"}) backend_->addItem(QString::fromLatin1(name));
    const CudaDeviceInfo& device = glint::cudaDevice();
    if (!device.usable)
        backend_->setItemData(1, tr("No usable CUDA device: %1").arg(QString::fromStdString(device.reason)),
                              Qt::ToolTipRole);
    form->addRow(tr("Backend"), backend_);
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

glint::CommonComponentParams CommonComponentPanel::parameters() const { return glint::commonSpec().read(form_->values()); }

void CommonComponentPanel::setParameters(const glint::CommonComponentParams& params) {
    glint::Json values = glint::commonSpec().write(params);
    values.erase("preset");
    form_->setValues(values);
}

QDoubleSpinBox* CommonComponentPanel::toleranceBox() const { return form_->doubleSpinBox("tolerance"); }
QCheckBox* CommonComponentPanel::maxShiftCheck() const { return form_->toggle("max_shift"); }
QSpinBox* CommonComponentPanel::maxShiftBox() const { return form_->spinBox("max_shift"); }
QComboBox* CommonComponentPanel::normalizeBox() const { return form_->comboBox("normalize"); }

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
