#include "ui/display/ImagePartChooser.h"

#include "ui/AppContext.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStringList>

#include <algorithm>

namespace glint::ui {

namespace {
QString sampleKind(int bitpix) {
    switch (bitpix) {
    case 8: return QObject::tr("8-bit");
    case 16: return QObject::tr("16-bit");
    case 32: return QObject::tr("32-bit");
    case 64: return QObject::tr("64-bit");
    case -32: return QObject::tr("float");
    case -64: return QObject::tr("double");
    default: return QString();
    }
}

// "1 SCI: 4096 × 2048 float", "0 PRIMARY: no image", "3 CATALOG: binary table".
QString describe(const glint::HduInfo& h) {
    QString name = QString::number(h.index);
    if (!h.name.empty()) name += QLatin1Char(' ') + QString::fromStdString(h.name);
    else if (h.index == 0) name += QObject::tr(" primary");
    if (h.kind == "bintable") return QObject::tr("%1: binary table").arg(name);
    if (h.kind == "table") return QObject::tr("%1: ASCII table").arg(name);
    if (!h.hasImage()) return QObject::tr("%1: no image").arg(name);
    QStringList axes;
    for (long n : h.axes) axes << QString::number(n);
    return QObject::tr("%1: %2 %3").arg(name, axes.join(QStringLiteral(" × ")), sampleKind(h.bitpix)).trimmed();
}
} // namespace

ImagePartChooser::ImagePartChooser(AppContext& context, QWidget* parent)
    : QWidget(parent), context_(context), hduLabel_(new QLabel(tr("HDU"))), hdu_(new QComboBox),
      planeLabel_(new QLabel(tr("Plane"))), plane_(new QSpinBox) {
    setObjectName(QStringLiteral("ImagePartChooser"));
    auto* row = new QHBoxLayout(this);
    row->setContentsMargins(0, 0, 0, 0);
    row->addWidget(hduLabel_);
    row->addWidget(hdu_, 1);
    row->addWidget(planeLabel_);
    row->addWidget(plane_);
    hdu_->setObjectName(QStringLiteral("hduBox"));
    plane_->setObjectName(QStringLiteral("planeBox"));
    hdu_->setToolTip(tr("The HDU of this FITS file shown (0 is the primary HDU, as the CLI's --hdu counts); "
                        "the window opens this file at the same HDU next time"));
    plane_->setKeyboardTracking(false);
    connect(hdu_, &QComboBox::activated, this, &ImagePartChooser::chooseHdu);
    connect(plane_, &QSpinBox::valueChanged, this, &ImagePartChooser::choosePlane);
    connect(&context_, &AppContext::imageChanged, this, &ImagePartChooser::syncFromContext);
    // A part without an image: the current one stays, and so does the chooser.
    connect(&context_, &AppContext::loadFailed, this, &ImagePartChooser::syncFromContext);
    syncFromContext();
}

void ImagePartChooser::syncFromContext() {
    syncing_ = true;
    const QSignalBlocker blockHdu(hdu_), blockPlane(plane_);
    hdu_->clear();
    choice_ = false;
    if (context_.hasImage()) {
        const glint::ImageMetadata& m = context_.image()->meta;
        for (const glint::HduInfo& h : m.hdus) hdu_->addItem(describe(h), h.index);
        hdu_->setCurrentIndex(hdu_->findData(m.hdu));
        const bool frames = m.frameCount > 1;
        const int count = frames ? m.frameCount : m.planeCount;
        planeLabel_->setText(frames ? tr("Frame") : tr("Plane"));
        plane_->setToolTip(frames ? tr("The frame of this multi-frame DICOM file shown (0-based, as --frame)")
                                  : tr("The plane of this FITS cube shown (0-based, as --plane)"));
        plane_->setRange(0, std::max(0, count - 1));
        plane_->setValue(frames ? m.frame : m.plane);
        plane_->setSuffix(tr(" of %1").arg(count));
        hduLabel_->setVisible(m.hdus.size() > 1);
        hdu_->setVisible(m.hdus.size() > 1);
        planeLabel_->setVisible(count > 1);
        plane_->setVisible(count > 1);
        choice_ = m.hdus.size() > 1 || count > 1;
    }
    setVisible(choice_);
    syncing_ = false;
}

void ImagePartChooser::chooseHdu() {
    if (syncing_ || !context_.hasImage()) return;
    const int hdu = hdu_->currentData().toInt();
    if (hdu == context_.image()->meta.hdu) return;
    glint::LoadOptions o;
    o.hdu = hdu; // a new HDU starts at its first plane
    context_.openPart(o);
}

void ImagePartChooser::choosePlane() {
    if (syncing_ || !context_.hasImage()) return;
    glint::LoadOptions o = context_.currentPart();
    if (context_.image()->meta.frameCount > 1) o.frame = plane_->value();
    else o.plane = plane_->value();
    if (o.plane == context_.image()->meta.plane && o.frame == context_.image()->meta.frame) return;
    context_.openPart(o);
}

} // namespace glint::ui
