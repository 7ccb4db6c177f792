// The File ▸ Export Results dialog: which results (all visible ones, or one result set), which files
// (DS9 region file, GeoJSON for QuPath, CSV, the component mask PNG), DS9's coordinate system, the
// GeoJSON's coordinates for a georeferenced image (its CRS, WGS 84 or pixels, as --geojson-crs), and where.
#pragma once

#include "ui/export/ResultExport.h"

#include <QDialog>

#include <memory>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;

namespace glint {
class Georef;
} // namespace glint

namespace glint::ui {

class ExportResultsDialog : public QDialog {
    Q_OBJECT
public:
    // georef: the image's georeferencing (null when none: GeoJSON is then in pixels, with no choice).
    ExportResultsDialog(QVector<ExportableResults> sets, bool imageHasWcs, std::shared_ptr<const glint::Georef> georef,
                        const QString& base, QWidget* parent = nullptr);

    QVector<ExportableResults> chosenSets() const;
    ResultFiles files() const;

    QComboBox* scopeBox() const { return scope_; }
    QLineEdit* baseEdit() const { return base_; }
    // The GeoJSON coordinates (hidden without georeferencing); item data: glint::GeoJsonCrs as int.
    QComboBox* geoJsonCrsBox() const { return geoJsonCrs_; }
    QLabel* summaryLabel() const { return summary_; }
    QCheckBox* geoJsonCheck() const { return geoJson_; }

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
    QComboBox* geoJsonCrs_;
    QLineEdit* base_;
    QLabel* summary_;
};

} // namespace glint::ui
