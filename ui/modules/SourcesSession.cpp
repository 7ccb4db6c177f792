// SourcesModule's outputs: the catalogue as regions (File ▸ Export Results), as a file (FITS, FITS_LDAC,
// ASCII, CSV through core's writeSourceCatalog) and for SAMP, and its panel and catalogue in sessions (the
// outcome's one JSON form, read back by core's sourcesResultFromJson).
#include "ui/modules/SourcesModule.h"

#include "core/algo/sources/SourcesSpec.h"
#include "core/export/SourceCatalogFile.h"
#include "core/util/Errors.h"
#include "ui/modules/SourcesPanel.h"
#include "ui/params/SpecForm.h"
#include "ui/session/SessionJson.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QJsonArray>
#include <QMainWindow>
#include <QStatusBar>

#include <exception>

namespace glint::ui {

QVector<ExportableResults> SourcesModule::exportableResults() const {
    if (!catalogue_ || !ellipses_) return {};
    ExportableResults set;
    set.title = catalogue_->title;
    set.description = glint::sourcesDescription(*catalogue_->result, catalogue_->parameters);
    set.regions = glint::regionsFromSources(*catalogue_->result);
    set.layers = {QPointer<OverlayLayer>(ellipses_.data())};
    return {set};
}

void SourcesModule::writeCatalogue(const QString& path, const QString& format) const {
    if (!catalogue_) throw glint::UsageError("there is no source catalogue to write: find the sources first");
    const glint::SourceCatalogFormat chosen = glint::sourceCatalogFormat(path.toStdString(), format.toStdString());
    const glint::FitsHeaderContext header =
        glint::sourcesHeaderContext(*catalogue_->image.image, *catalogue_->result, catalogue_->parameters);
    glint::writeSourceCatalog(catalogue_->result->catalog, path.toStdString(), chosen, &header);
}

void SourcesModule::saveCatalogueDialog() {
    if (!catalogue_) return;
    const QFileInfo image(catalogue_->image.path);
    const QString dir = image.exists() ? image.absolutePath() : QDir::homePath();
    const QString fits = tr("FITS table (*.fits)"), ldac = tr("FITS_LDAC for SCAMP and PSFEx (*.ldac)"),
                  ascii = tr("SExtractor ASCII_HEAD (*.cat)"), csv = tr("CSV (*.csv)");
    QString filter = fits;
    QString path = QFileDialog::getSaveFileName(context().window(), tr("Save Source Catalogue"),
                                                QDir(dir).filePath(image.completeBaseName() + QStringLiteral("-sources.fits")),
                                                QStringList{fits, ldac, ascii, csv}.join(QStringLiteral(";;")), &filter);
    if (path.isEmpty()) return;
    // The format is the filter's unless the name's extension says it.
    QString format = filter == ldac ? QStringLiteral("ldac") : filter == ascii ? QStringLiteral("ascii")
                   : filter == csv  ? QStringLiteral("csv")  : QStringLiteral("fits");
    try {
        glint::sourceCatalogFormat(path.toStdString(), "");
        format.clear(); // a known extension: it decides
    } catch (const glint::UsageError&) {
        path += QLatin1Char('.') + (format == QLatin1String("ascii") ? QStringLiteral("cat") : format);
        format.clear();
    }
    try {
        writeCatalogue(path, format);
        const QString done = tr("Catalogue of %1 sources written to %2").arg(catalogue_->result->catalog.sources.size()).arg(path);
        if (panel_) panel_->setStatus(done);
        if (auto* window = context().window()) window->statusBar()->showMessage(done, 8000);
    } catch (const std::exception& e) {
        fail(tr("Cannot write the catalogue: %1").arg(QString::fromStdString(e.what())));
    }
}

std::string SourcesModule::catalogueForSamp() {
    if (!catalogue_) return {};
    if (!sampDir_) sampDir_ = std::make_unique<QTemporaryDir>();
    if (!sampDir_->isValid()) return {};
    // One file per catalogue (the menu asks each time it opens): written once, then reused.
    const QString path = sampDir_->filePath(QStringLiteral("glint-sources-%1.fits").arg(catalogue_->number));
    if (!QFileInfo::exists(path)) {
        try {
            writeCatalogue(path, QStringLiteral("fits"));
        } catch (const std::exception&) {
            return {};
        }
    }
    return QFileInfo(path).absoluteFilePath().toStdString();
}

QJsonObject SourcesModule::saveSession() const {
    QJsonObject state;
    if (panel_) state[QStringLiteral("form")] = sessionjson::fromJson(panel_->form()->allValues());
    state[QStringLiteral("segmentation")] = segmentationAction_->isChecked();
    if (roi_) state[QStringLiteral("roi")] = sessionjson::rect(*roi_);
    QJsonArray exclusions;
    for (const Exclusion& e : exclusions_)
        exclusions.append(e.polygon ? QJsonObject{{QStringLiteral("polygon"), sessionjson::points(e.points)}}
                                    : QJsonObject{{QStringLiteral("rect"), sessionjson::rect(e.rect)}});
    state[QStringLiteral("exclusions")] = exclusions;
    // The catalogue while its ellipses are on the analysed image (not while a map is shown, nor once removed).
    if (catalogue_ && ellipses_ && !showingMap_)
        state[QStringLiteral("catalogue")] = QJsonObject{{QStringLiteral("number"), catalogue_->number},
                                                         {QStringLiteral("result"), sessionjson::fromJson(catalogue_->document)},
                                                         {QStringLiteral("parameters"), sessionjson::fromJson(catalogue_->parameters)}};
    return state;
}

std::function<void()> SourcesModule::prepareSession(const QJsonObject& state, const SessionImages& inputs) {
    using namespace sessionjson;
    const std::shared_ptr<const glint::Image> image = inputs.value(QString());
    // The form: a form the spec refuses is left as it is, with a message; the rest of the session still opens.
    glint::Json form = glint::Json::object();
    QString formProblem;
    if (state.contains(QStringLiteral("form"))) form = toJson(object(state[QStringLiteral("form")], QStringLiteral("sources.form")));
    try {
        glint::sourcesSpec().checkRequest(form, "session");
    } catch (const glint::UsageError& e) {
        formProblem = QString::fromStdString(e.what());
        form = glint::Json::object();
    }
    const bool segmentation = state[QStringLiteral("segmentation")].toBool(false);
    std::optional<QRect> roi;
    if (state.contains(QStringLiteral("roi"))) {
        roi = readRect(state[QStringLiteral("roi")], QStringLiteral("sources.roi"));
        if (!image || !QRect(0, 0, image->width(), image->height()).contains(*roi))
            throw glint::InputError("session file: the sources ROI lies outside the image");
    }
    QVector<Exclusion> exclusions;
    if (state.contains(QStringLiteral("exclusions")))
        for (const QJsonValue& v : array(state[QStringLiteral("exclusions")], QStringLiteral("sources.exclusions"))) {
            const QJsonObject e = object(v, QStringLiteral("sources.exclusions[]"));
            if (e.contains(QStringLiteral("polygon")))
                exclusions.append({true, {}, readPoints(e[QStringLiteral("polygon")], QStringLiteral("sources.exclusions[].polygon"))});
            else
                exclusions.append({false, readRect(e[QStringLiteral("rect")], QStringLiteral("sources.exclusions[].rect")), {}});
        }
    std::optional<Catalogue> restored;
    if (state.contains(QStringLiteral("catalogue"))) {
        const QJsonObject saved = object(state[QStringLiteral("catalogue")], QStringLiteral("sources.catalogue"));
        Catalogue c;
        c.number = integer(saved[QStringLiteral("number")], QStringLiteral("sources.catalogue.number"));
        c.document = toJson(object(saved[QStringLiteral("result")], QStringLiteral("sources.catalogue.result")));
        auto result = std::make_shared<glint::SourcesResult>(glint::sourcesResultFromJson(c.document));
        if (!image || result->width != image->width() || result->height != image->height())
            throw glint::InputError("session file: the source catalogue is for an image of another size");
        c.result = std::move(result);
        if (saved.contains(QStringLiteral("parameters")))
            c.parameters = toJson(object(saved[QStringLiteral("parameters")], QStringLiteral("sources.catalogue.parameters")));
        c.title = tr("Sources #%1: %2 sources").arg(c.number).arg(c.result->catalog.sources.size());
        restored = std::move(c);
    }
    return [this, form, formProblem, segmentation, restored, roi, exclusions] {
        if (panel_ && !form.empty()) panel_->form()->setValues(form);
        roi_ = roi;
        exclusions_ = exclusions;
        refreshShapes();
        setSegmentationShown(segmentation);
        if (restored) {
            Catalogue c = *restored;
            c.image = context().loaded();
            runCount_ = std::max(runCount_, c.number);
            present(c, tr("Catalogue restored from the session (find the sources again for its maps). %1").arg(summary(c)));
        }
        if (!formProblem.isEmpty() && panel_)
            panel_->setStatus(tr("Session: the sources parameters were not restored (%1); the panel keeps its values.").arg(formProblem), true);
    };
}

} // namespace glint::ui
