// The File ▸ Export Results dialog: which results (all visible ones, or one result set), which files
// (DS9 region file, GeoJSON for QuPath, CSV, the component mask PNG), DS9's coordinate system, and where.
#pragma once

#include "ui/export/ResultExport.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;

namespace glint::ui {

class ExportResultsDialog : public QDialog {
    Q_OBJECT
public:
    ExportResultsDialog(QVector<ExportableResults> sets, bool imageHasWcs, const QString& base,
                        QWidget* parent = nullptr);

    QVector<ExportableResults> chosenSets() const;
    ResultFiles files() const;

    QComboBox* scopeBox() const { return scope_; }
    QLineEdit* baseEdit() const { return base_; }

private:
    void update();
    void browse();

    QVector<ExportableResults> sets_;
    QComboBox* scope_;
    QCheckBox* ds9_;
    QCheckBox* geoJson_;
    QCheckBox* csv_;
    QCheckBox* mask_;
    QComboBox* system_;
    QLineEdit* base_;
    QLabel* summary_;
};

} // namespace glint::ui
