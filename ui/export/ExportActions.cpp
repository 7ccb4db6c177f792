#include "ui/export/ExportActions.h"

#include "ui/AppContext.h"
#include "ui/MainWindow.h"
#include "ui/export/ExportResultsDialog.h"
#include "ui/export/TimingExport.h"
#include "ui/results/TimingLog.h"
#include "core/util/Errors.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QStatusBar>

#include <exception>
#include <new>

namespace glint::ui {

ExportActions::ExportActions(MainWindow& window)
    : QObject(&window), window_(window), viewPng_(new QAction(tr("Export View as &PNG…"), this)),
      viewSvg_(new QAction(tr("Export View as S&VG…"), this)), results_(new QAction(tr("Export &Results…"), this)),
      timing_(new QAction(tr("Export &Timing Report…"), this)) {
    viewPng_->setStatusTip(tr("The image at full resolution with the display settings and the visible overlays"));
    viewSvg_->setStatusTip(tr("The image embedded, the visible overlays as vector shapes"));
    results_->setStatusTip(tr("Regions as DS9 .reg, GeoJSON (QuPath) and CSV (every column of the results table, all "
                                 "digits); a common component's mask as PNG"));
    timing_->setStatusTip(tr("Every run's steps as HTML (with charts), JSON and CSV"));
    viewPng_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    connect(viewPng_, &QAction::triggered, this, &ExportActions::chooseViewPng);
    connect(viewSvg_, &QAction::triggered, this, &ExportActions::chooseViewSvg);
    connect(results_, &QAction::triggered, this, &ExportActions::chooseResults);
    connect(timing_, &QAction::triggered, this, &ExportActions::chooseTimingReport);
    connect(&window.context(), &AppContext::imageChanged, this, &ExportActions::updateEnabled);
    connect(window.context().timingLog(), &TimingLog::recordAdded, this, &ExportActions::updateEnabled);
    connect(window.context().timingLog(), &TimingLog::cleared, this, &ExportActions::updateEnabled);
    updateEnabled();
}

void ExportActions::updateEnabled() {
    const bool image = window_.context().hasImage();
    viewPng_->setEnabled(image);
    viewSvg_->setEnabled(image);
    results_->setEnabled(image);
    timing_->setEnabled(!window_.context().timingLog()->records().empty());
}

bool ExportActions::run(const QString& what, const std::function<QStringList()>& write) {
    try {
        lastWritten_ = write();
    } catch (const std::bad_alloc&) {
        lastError_ = tr("not enough memory");
    } catch (const std::exception& e) {
        lastError_ = QString::fromStdString(e.what());
    }
    if (!lastWritten_.isEmpty()) {
        lastError_.clear();
        const QStringList names = [this] {
            QStringList n;
            for (const QString& p : lastWritten_)
                n << QFileInfo(p).fileName();
            return n;
        }();
        window_.statusBar()->showMessage(tr("Written: %1").arg(names.join(QStringLiteral(", "))), 8000);
        emit exported(lastWritten_);
        return true;
    }
    window_.reportError(tr("%1 failed").arg(what), lastError_);
    emit exportFailed(lastError_);
    return false;
}

bool ExportActions::exportViewPng(const QString& path, ViewExportOptions options) {
    lastWritten_.clear();
    return run(tr("Export view as PNG"), [&] {
        glint::ui::exportViewPng(window_.context(), path, options);
        return QStringList{path};
    });
}

bool ExportActions::exportViewSvg(const QString& path, ViewExportOptions options) {
    lastWritten_.clear();
    return run(tr("Export view as SVG"), [&] {
        glint::ui::exportViewSvg(window_.context(), path, options);
        return QStringList{path};
    });
}

bool ExportActions::exportResults(const QVector<ExportableResults>& sets, const ResultFiles& files) {
    lastWritten_.clear();
    return run(tr("Export results"), [&] {
        const auto image = window_.context().image();
        if (!image) throw glint::UsageError("nothing to export: open an image first");
        return writeResultFiles(*image, sets, files);
    });
}

bool ExportActions::exportTimingReport(const QString& base) {
    lastWritten_.clear();
    return run(tr("Export timing report"), [&] { return writeTimingReports(*window_.context().timingLog(), base); });
}

QVector<ExportableResults> ExportActions::results() const {
    return collectResults(window_.modules());
}

QString ExportActions::suggestedBase(const QString& suffix) const {
    const QFileInfo image(window_.context().imagePath());
    const QString dir = !lastDirectory_.isEmpty() ? lastDirectory_ : image.absolutePath();
    return QDir(dir).filePath(image.completeBaseName() + suffix);
}

QString ExportActions::chooseSavePath(const QString& title, const QString& suffix, const QString& filter) {
    const QString path = QFileDialog::getSaveFileName(&window_, title, suggestedBase(suffix), filter);
    if (!path.isEmpty()) lastDirectory_ = QFileInfo(path).absolutePath();
    return path;
}

void ExportActions::chooseViewPng() {
    const QString path = chooseSavePath(tr("Export View as PNG"), QStringLiteral("-view.png"), tr("PNG images (*.png)"));
    if (!path.isEmpty()) exportViewPng(path);
}

void ExportActions::chooseViewSvg() {
    const QString path = chooseSavePath(tr("Export View as SVG"), QStringLiteral("-view.svg"), tr("SVG drawings (*.svg)"));
    if (!path.isEmpty()) exportViewSvg(path);
}

void ExportActions::chooseResults() {
    const auto image = window_.context().image();
    if (!image) return;
    ExportResultsDialog dialog(results(), image->meta.wcs != nullptr, image->meta.georef,
                               suggestedBase(QStringLiteral("-regions")), &window_);
    if (dialog.exec() != QDialog::Accepted) return;
    lastDirectory_ = QFileInfo(dialog.files().csv.isEmpty() ? dialog.files().ds9 : dialog.files().csv).absolutePath();
    exportResults(dialog.chosenSets(), dialog.files());
}

void ExportActions::chooseTimingReport() {
    const QString path = chooseSavePath(tr("Export Timing Report"), QStringLiteral("-timing.html"),
                                        tr("Timing report (*.html); the .json and .csv are written beside it"));
    if (!path.isEmpty()) exportTimingReport(path);
}

} // namespace glint::ui
