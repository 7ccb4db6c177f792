#include "ui/display/DicomWindowChooser.h"

#include "core/display/Display.h"
#include "core/io/DicomVoi.h"
#include "ui/AppContext.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>

#include <algorithm>

namespace glint::ui {

DicomWindowChooser::DicomWindowChooser(AppContext& context, QWidget* parent)
    : QWidget(parent), context_(context), box_(new QComboBox) {
    setObjectName(QStringLiteral("DicomWindowChooser"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(new QLabel(tr("Window")));
    layout->addWidget(box_, 1);
    connect(box_, &QComboBox::activated, this, &DicomWindowChooser::choose);
    connect(&context_, &AppContext::imageChanged, this, &DicomWindowChooser::syncFromContext);
    connect(&context_, &AppContext::displaySettingsChanged, this, &DicomWindowChooser::syncFromContext);
    syncFromContext();
}

void DicomWindowChooser::syncFromContext() {
    syncing_ = true;
    box_->clear();
    const glint::DicomVoi* voi = context_.hasImage() ? context_.image()->meta.voi.get() : nullptr;
    const int n = voi ? voi->choiceCount() : 0;
    for (int i = 0; i < n; ++i) box_->addItem(QString::fromStdString(voi->choiceName(i)));
    QString notes;
    if (voi)
        for (const std::string& note : voi->notes) notes += (notes.isEmpty() ? "" : "\n") + QString::fromStdString(note);
    box_->setToolTip(notes);
    const glint::DisplaySettings& s = context_.displaySettings();
    box_->setCurrentIndex(n > 0 && s.limits == glint::LimitsMode::Window ? std::clamp(s.voiChoice, 0, n - 1) : -1);
    setVisible(n > 0);
    syncing_ = false;
}

void DicomWindowChooser::choose(int index) {
    if (syncing_ || index < 0 || !context_.hasImage()) return;
    context_.setDisplaySettings(glint::dicomVoiSettings(*context_.image(), index, context_.displaySettings()));
}

} // namespace glint::ui
