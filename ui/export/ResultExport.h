// File ▸ Export Results without the dialog: the result sets the modules offer, the region document of all
// visible sets (or of one), and the files written from it through core's exporters — DS9 .reg, GeoJSON
// for QuPath, CSV, and a common component's mask as PNG — each atomically.
#pragma once

#include "core/export/ExportRegions.h"
#include "ui/export/ExportableResults.h"

#include <QList>
#include <QString>
#include <QStringList>
#include <QVector>

namespace glint {
class Image;
} // namespace glint

namespace glint::ui {

class AnalysisModule;

// Every module's result sets, in module order.
QVector<ExportableResults> collectResults(const QList<AnalysisModule*>& modules);
// The sets whose layers are shown.
QVector<ExportableResults> visibleResults(const QVector<ExportableResults>& sets);

// The image's document (path, size, WCS) with the sets' regions; one set's description, or the sets'
// descriptions joined.
glint::RegionDocument resultDocument(const glint::Image& image, const QVector<ExportableResults>& sets);

// What to write: a file per format asked for (an empty path: not that one).
struct ResultFiles {
    QString ds9;     // .reg
    QString geoJson; // .geojson
    QString csv;     // .csv
    QString maskPng; // .png: the first set with a common component
    glint::Ds9System ds9System = glint::Ds9System::Auto;
    // GeoJSON coordinates (as --geojson-crs): Auto = the image's CRS when it is georeferenced, else pixels.
    glint::GeoJsonCrs geoJsonCrs = glint::GeoJsonCrs::Auto;
};

// base "/data/run" -> /data/run.reg, run.geojson, run.csv, run-mask.png (the mask only when a set has one).
ResultFiles resultFilesFor(const QString& base, const QVector<ExportableResults>& sets);

// Writes the files; returns their paths. Every text is made before the first file is written, so that a
// wrong choice (fk5 without a WCS, no mask) writes nothing. Throws glint::UsageError / OutputError.
QStringList writeResultFiles(const glint::Image& image, const QVector<ExportableResults>& sets,
                             const ResultFiles& files);

} // namespace glint::ui
