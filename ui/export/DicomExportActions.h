// File ▸ Export as DICOM CAD SR… and Export as DICOM Presentation State…: the regions of the newest result
// set (visible sets first) on the current DICOM image, written by dicom/export (DCMTK) as glint-cli's
// --cad-sr and --gsps write them. Enabled only for a DICOM image in a build with DCMTK; a result with no
// region gives an SR "without findings" and a presentation state with an empty layer.
#pragma once

#include <QList>
#include <QObject>

class QAction;

namespace glint::ui {

class MainWindow;

class DicomExportActions : public QObject {
    Q_OBJECT
public:
    explicit DicomExportActions(MainWindow& window);
    QList<QAction*> actions() const { return {sr_, gsps_}; }
    // Writes the file without a dialog (tests); false with the window's message on failure.
    bool exportTo(const QString& path, bool presentationState);

private:
    void updateEnabled();
    void choose(bool presentationState);

    MainWindow& window_;
    QAction* sr_;
    QAction* gsps_;
};

} // namespace glint::ui
