#include "ui/export/ResultExport.h"

#include "core/algo/commoncomponent/CommonComponent.h"
#include "core/export/MaskPng.h"
#include "core/io/Image.h"
#include "ui/export/FileOutputs.h"
#include "ui/modules/AnalysisModule.h"
#include "core/util/Errors.h"

#include <string>
#include <utility>
#include <vector>

namespace glint::ui {

namespace {
const ExportableResults* firstWithComponent(const QVector<ExportableResults>& sets) {
    for (const ExportableResults& set : sets)
        if (set.component && set.component->found) return &set;
    return nullptr;
}
} // namespace

QVector<ExportableResults> collectResults(const QList<AnalysisModule*>& modules) {
    QVector<ExportableResults> out;
    for (const AnalysisModule* module : modules)
        out += module->exportableResults();
    return out;
}

QVector<ExportableResults> visibleResults(const QVector<ExportableResults>& sets) {
    QVector<ExportableResults> out;
    for (const ExportableResults& set : sets)
        if (set.isVisible()) out.append(set);
    return out;
}

glint::RegionDocument resultDocument(const glint::Image& image, const QVector<ExportableResults>& sets) {
    glint::RegionDocument doc = glint::regionDocumentFor(image);
    for (const ExportableResults& set : sets) {
        if (!doc.description.empty()) doc.description += "; ";
        doc.description += set.description;
        doc.regions.insert(doc.regions.end(), set.regions.begin(), set.regions.end());
    }
    return doc;
}

ResultFiles resultFilesFor(const QString& base, const QVector<ExportableResults>& sets) {
    ResultFiles files;
    files.ds9 = base + QStringLiteral(".reg");
    files.geoJson = base + QStringLiteral(".geojson");
    files.csv = base + QStringLiteral(".csv");
    if (firstWithComponent(sets)) files.maskPng = base + QStringLiteral("-mask.png");
    return files;
}

QStringList writeResultFiles(const glint::Image& image, const QVector<ExportableResults>& sets,
                             const ResultFiles& files) {
    const glint::RegionDocument doc = resultDocument(image, sets);
    FileOutputs outputs;
    glint::RegionWriteOptions options;
    options.ds9System = files.ds9System;
    options.geoJsonCrs = files.geoJsonCrs;
    if (!files.ds9.isEmpty())
        outputs.emplace_back(files.ds9, glint::regionFileText(doc, glint::RegionFormat::Ds9, options));
    if (!files.geoJson.isEmpty())
        outputs.emplace_back(files.geoJson, glint::regionFileText(doc, glint::RegionFormat::GeoJson, options));
    if (!files.csv.isEmpty()) outputs.emplace_back(files.csv, glint::regionFileText(doc, glint::RegionFormat::Csv));
    if (!files.maskPng.isEmpty()) {
        const ExportableResults* set = firstWithComponent(sets);
        if (!set) throw glint::UsageError("no common component among the results: there is no mask to write");
        const glint::CommonComponentResult& r = *set->component;
        outputs.emplace_back(files.maskPng, glint::maskPngBytes(r.mask, r.maskWidth, r.maskHeight));
    }
    if (outputs.empty()) throw glint::UsageError("choose at least one kind of file to write");
    return writeOutputs(outputs);
}

} // namespace glint::ui
