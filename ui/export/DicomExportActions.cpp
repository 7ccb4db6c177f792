#include "ui/export/DicomExportActions.h"

#include "ui/AppContext.h"
#include "ui/MainWindow.h"
#include "ui/export/ResultExport.h"
#include "core/util/Errors.h"

#if GLINT_HAVE_DCMTK
#include "dicom/export/DicomCadExport.h"
#endif

#include <QAction>
#include <QFileDialog>
#include <QFileInfo>
#include <QStatusBar>

#include <exception>

namespace glint::ui {

DicomExportActions::DicomExportActions(MainWindow& window)
    : QObject(&window), window_(window), sr_(new QAction(tr("Export as DICOM CAD &SR…"), this)),
      gsps_(new QAction(tr("Export as DICOM Presentation &State…"), this)) {
    sr_->setStatusTip(tr("The regions as a Mammography CAD SR referencing this DICOM image"));
    gsps_->setStatusTip(tr("The regions as a Grayscale Softcopy Presentation State (outlines and ranks) on this DICOM image"));
    connect(sr_, &QAction::triggered, this, [this] { choose(false); });
    connect(gsps_, &QAction::triggered, this, [this] { choose(true); });
    connect(&window.context(), &AppContext::imageChanged, this, &DicomExportActions::updateEnabled);
    updateEnabled();
}

void DicomExportActions::updateEnabled() {
    const auto image = window_.context().image();
    const bool dicom = GLINT_HAVE_DCMTK && image && image->meta.format == "DICOM";
    sr_->setEnabled(dicom);
    gsps_->setEnabled(dicom);
}

void DicomExportActions::choose(bool presentationState) {
    const QFileInfo image(window_.context().imagePath());
    const QString suggested = image.absoluteDir().filePath(image.completeBaseName() + (presentationState ? "-gsps.dcm" : "-cad-sr.dcm"));
    const QString path = QFileDialog::getSaveFileName(
        &window_, presentationState ? tr("Export as DICOM Presentation State") : tr("Export as DICOM CAD SR"), suggested,
        tr("DICOM files (*.dcm)"));
    if (!path.isEmpty()) exportTo(path, presentationState);
}

bool DicomExportActions::exportTo(const QString& path, bool presentationState) {
    const QString what = presentationState ? tr("Export as DICOM presentation state") : tr("Export as DICOM CAD SR");
    try {
#if GLINT_HAVE_DCMTK
        const auto image = window_.context().image();
        if (!image || image->meta.format != "DICOM")
            throw glint::UsageError("a DICOM CAD SR or presentation state needs a DICOM image");
        const QVector<ExportableResults> sets = collectResults(window_.modules());
        const ExportableResults* chosen = nullptr;
        for (const ExportableResults& set : sets) // the newest visible set, else the newest
            if (set.isVisible() || !chosen) chosen = &set;
        glint::CadExportInfo info;
        info.sourcePath = window_.context().imagePath().toStdString();
        info.frame = image->meta.frame;
        info.algorithmName = "Glint";
        info.algorithmVersion = GLINT_VERSION;
        const std::vector<glint::CadMark> marks =
            chosen ? glint::cadMarksFromRegions(chosen->regions) : std::vector<glint::CadMark>{};
        if (presentationState) glint::writePresentationState(path.toStdString(), info, marks);
        else glint::writeMammographyCadSr(path.toStdString(), info, marks);
        window_.statusBar()->showMessage(tr("Written: %1 (%n mark(s))", nullptr, static_cast<int>(marks.size()))
                                             .arg(QFileInfo(path).fileName()),
                                         8000);
        return true;
#else
        (void)path;
        throw glint::UsageError("this build of Glint has no DCMTK (Debian: libdcmtk-dev): no DICOM outputs");
#endif
    } catch (const std::exception& e) {
        window_.reportError(tr("%1 failed").arg(what), QString::fromStdString(e.what()));
    }
    return false;
}

} // namespace glint::ui
