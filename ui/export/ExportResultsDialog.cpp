#include "ui/export/ExportResultsDialog.h"

#include "core/algo/commoncomponent/CommonComponent.h"
#include "core/io/Georef.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QStandardItemModel>
#include <QVBoxLayout>

namespace glint::ui {

namespace {
std::size_t regionCount(const QVector<ExportableResults>& sets) {
    std::size_t n = 0;
    for (const ExportableResults& s : sets)
        n += s.regions.size();
    return n;
}
// "1 set", "2 sets": English plural forms without a translation file.
QString counted(qsizetype n, const QString& one, const QString& many) {
    return (n == 1 ? one : many).arg(n);
}
QString setsText(qsizetype n) {
    return counted(n, ExportResultsDialog::tr("%1 set"), ExportResultsDialog::tr("%1 sets"));
}
QString regionsText(std::size_t n) {
    return counted(static_cast<qsizetype>(n), ExportResultsDialog::tr("%1 region"), ExportResultsDialog::tr("%1 regions"));
}
bool hasComponent(const QVector<ExportableResults>& sets) {
    for (const ExportableResults& s : sets)
        if (s.component && s.component->found) return true;
    return false;
}
} // namespace

ExportResultsDialog::ExportResultsDialog(QVector<ExportableResults> sets, bool imageHasWcs,
                                         std::shared_ptr<const glint::Georef> georef, const QString& base, QWidget* parent)
    : QDialog(parent), sets_(std::move(sets)), scope_(new QComboBox), ds9_(new QCheckBox(tr("DS9 region file (.reg)"))),
      geoJson_(new QCheckBox(georef ? tr("GeoJSON for QGIS or QuPath (.geojson)") : tr("GeoJSON for QuPath (.geojson)"))),
      csv_(new QCheckBox(tr("CSV table (.csv)"))), mask_(new QCheckBox(tr("Component mask (-mask.png)"))),
      system_(new QComboBox), geoJsonCrs_(new QComboBox), base_(new QLineEdit(base)), summary_(new QLabel) {
    setWindowTitle(tr("Export Results"));
    auto* form = new QFormLayout;
    const QVector<ExportableResults> visible = visibleResults(sets_);
    scope_->addItem(tr("All visible results (%1, %2)").arg(setsText(visible.size()), regionsText(regionCount(visible))));
    for (const ExportableResults& s : sets_)
        scope_->addItem(s.isVisible() ? s.title : tr("%1 (hidden)").arg(s.title));
    form->addRow(tr("Results"), scope_);
    auto* kinds = new QVBoxLayout;
    for (QCheckBox* box : {ds9_, geoJson_, csv_, mask_}) {
        box->setChecked(true);
        kinds->addWidget(box);
    }
    form->addRow(tr("Write"), kinds);
    system_->addItem(imageHasWcs ? tr("fk5 J2000 (the image has a WCS)") : tr("image pixels (the image has no WCS)"),
                     static_cast<int>(glint::Ds9System::Auto));
    system_->addItem(tr("image pixels"), static_cast<int>(glint::Ds9System::Image));
    system_->addItem(tr("fk5 J2000"), static_cast<int>(glint::Ds9System::Fk5));
    if (!imageHasWcs) qobject_cast<QStandardItemModel*>(system_->model())->item(2)->setEnabled(false);
    form->addRow(tr("DS9 coordinates"), system_);
    // GeoJSON coordinates: a georeferenced image's map CRS (what lines up in QGIS), WGS 84 longitude/latitude
    // (RFC 7946), or pixels (QuPath's frame). Without georeferencing there is no choice: pixels.
    if (georef) {
        const std::string id = georef->crsId();
        const QString crs = georef->crsName().empty() ? QString::fromStdString(id.size() > 40 ? id.substr(0, 40) + "…" : id)
                                                      : QString::fromStdString(georef->crsName());
        geoJsonCrs_->addItem(georef->hasCrs() ? tr("the image's CRS (%1)").arg(crs) : tr("the image's map coordinates (no CRS)"),
                             static_cast<int>(glint::GeoJsonCrs::Image));
        geoJsonCrs_->addItem(tr("WGS 84 longitude/latitude"), static_cast<int>(glint::GeoJsonCrs::Wgs84));
        geoJsonCrs_->addItem(tr("image pixels (QuPath)"), static_cast<int>(glint::GeoJsonCrs::Pixel));
        if (!georef->hasLonLat()) {
            auto* item = qobject_cast<QStandardItemModel*>(geoJsonCrs_->model())->item(1);
            item->setEnabled(false);
            item->setToolTip(georef->hasCrs() ? tr("The image's CRS does not convert to WGS 84")
                                              : tr("The image has no CRS (a world file needs a .prj beside it)"));
        }
        geoJsonCrs_->setToolTip(tr("The coordinates of the GeoJSON file (as glint-cli's --geojson-crs); the pixel "
                                   "geometry is kept in each feature's properties too"));
        form->addRow(tr("GeoJSON coordinates"), geoJsonCrs_);
    } else {
        geoJsonCrs_->addItem(tr("image pixels"), static_cast<int>(glint::GeoJsonCrs::Pixel));
        geoJsonCrs_->hide();
    }
    auto* where = new QHBoxLayout;
    auto* browse = new QPushButton(tr("Browse…"));
    where->addWidget(base_, 1);
    where->addWidget(browse);
    base_->setToolTip(tr("The files are this name with .reg, .geojson, .csv and -mask.png added"));
    form->addRow(tr("File name"), where);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Export"));
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    summary_->setWordWrap(true);
    layout->addWidget(summary_);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(browse, &QPushButton::clicked, this, &ExportResultsDialog::browse);
    connect(scope_, &QComboBox::currentIndexChanged, this, &ExportResultsDialog::update);
    for (QCheckBox* box : {ds9_, geoJson_, csv_, mask_})
        connect(box, &QCheckBox::toggled, this, &ExportResultsDialog::update);
    connect(base_, &QLineEdit::textChanged, this, &ExportResultsDialog::update);
    update();
}

QVector<ExportableResults> ExportResultsDialog::chosenSets() const {
    const int index = scope_->currentIndex();
    if (index <= 0) return visibleResults(sets_);
    return {sets_.at(index - 1)};
}

ResultFiles ExportResultsDialog::files() const {
    const QVector<ExportableResults> sets = chosenSets();
    ResultFiles all = resultFilesFor(base_->text().trimmed(), sets);
    ResultFiles out;
    if (ds9_->isChecked()) out.ds9 = all.ds9;
    if (geoJson_->isChecked()) out.geoJson = all.geoJson;
    if (csv_->isChecked()) out.csv = all.csv;
    if (mask_->isChecked() && mask_->isEnabled()) out.maskPng = all.maskPng;
    out.ds9System = static_cast<glint::Ds9System>(system_->currentData().toInt());
    out.geoJsonCrs = static_cast<glint::GeoJsonCrs>(geoJsonCrs_->currentData().toInt());
    return out;
}

void ExportResultsDialog::update() {
    const QVector<ExportableResults> sets = chosenSets();
    mask_->setEnabled(hasComponent(sets));
    geoJsonCrs_->setEnabled(geoJson_->isChecked());
    const bool any =
        ds9_->isChecked() || geoJson_->isChecked() || csv_->isChecked() || (mask_->isChecked() && mask_->isEnabled());
    const bool ok = any && !sets.isEmpty() && !base_->text().trimmed().isEmpty();
    if (auto* box = findChild<QDialogButtonBox*>()) box->button(QDialogButtonBox::Ok)->setEnabled(ok);
    summary_->setText(sets.isEmpty()
                          ? tr("No result is shown: tick a result layer in the Layers dock, or choose one set.")
                          : tr("%1 from %2.").arg(regionsText(regionCount(sets)),
                                                  counted(sets.size(), tr("%1 result set"), tr("%1 result sets"))));
}

void ExportResultsDialog::browse() {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export Results As"), base_->text(),
                                                      tr("Region files (*.reg *.geojson *.csv);;All files (*)"));
    if (path.isEmpty()) return;
    QString base = path;
    for (const QString& ext :
         {QStringLiteral(".reg"), QStringLiteral(".geojson"), QStringLiteral(".csv"), QStringLiteral(".png")})
        if (base.endsWith(ext, Qt::CaseInsensitive)) base.chop(ext.size());
    base_->setText(base);
}

} // namespace glint::ui
