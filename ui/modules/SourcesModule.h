// Analyze ▸ Find Sources: the source catalogue of the current image (core's runSourcesRequest, the run of
// `glint-cli sources`, on a worker through the JobRunner). Shows every source's Kron ellipse, the segmentation
// as a toggleable coloured layer, the catalogue as a sortable table linked to the ellipses, the background and
// RMS maps as images, and writes the catalogue (FITS, FITS_LDAC, ASCII, CSV) for files and SAMP.
#pragma once

#include "core/algo/sources/Sources.h"
#include "ui/AppContext.h"
#include "ui/modules/AnalysisModule.h"
#include "ui/modules/SourcesLayers.h"
#include "ui/results/ResultsModel.h"

#include <QPointer>
#include <QPolygonF>
#include <QRect>
#include <QTemporaryDir>

#include <memory>
#include <optional>
#include <string>

namespace glint::ui {

class BrightestExclusionLayer;
class PolygonTool;
class RectangleTool;
class ShapeLayer;
class SourcesPanel;

class SourcesModule : public AnalysisModule {
    Q_OBJECT
public:
    explicit SourcesModule(AppContext& context, QObject* parent = nullptr);
    ~SourcesModule() override;

    // The catalogue on screen: a run of this window, or one read from a session (which has no maps).
    struct Catalogue {
        std::shared_ptr<const glint::SourcesResult> result;
        glint::Json parameters; // resolved, as the CLI's "parameters"
        glint::Json document;   // the outcome's one JSON form (sourcesResultJson + image), as sessions store it
        LoadedImage image;      // the image it was made on (a map shown meanwhile returns to it)
        bool hasMaps = false;   // segmentation, background and RMS maps (not kept in sessions)
        QString title;
        int number = 0;
    };
    enum class Map { Background, Rms };

    QString name() const override { return tr("Sources"); }
    QList<QAction*> actions() override;
    QList<QAction*> fileActions() override; // File ▸ Save Source Catalogue…
    QWidget* createPanel() override;
    SourcesPanel* panel() const { return panel_; }

    // Starts a run with the panel's parameters. False (and a message on the panel) when there is no image, a
    // parameter is wrong, or another job is running.
    bool run();
    // The request a run would make now: the form's values and the image's kind as the preset.
    glint::Json currentRequest() const;

    // The region of interest and the exclusions, drawn on the canvas (image pixels; polygons through pixel
    // centres), as the spec's roi, exclude and exclude_polygon.
    void setRoi(const QRect& pixels);
    void clearRoi();
    std::optional<QRect> roi() const { return roi_; }
    void addExclusionRectangle(const QRect& pixels);
    void addExclusionPolygon(const QPolygonF& points);
    void clearExclusions();
    int exclusionCount() const { return static_cast<int>(exclusions_.size()); }
    ShapeLayer* roiLayer() const;
    ShapeLayer* exclusionLayer() const;

    const std::optional<Catalogue>& catalogue() const { return catalogue_; }
    SourceEllipseLayer* ellipseLayer() const { return ellipses_; }
    SegmentationLayer* segmentationLayer() const { return segmentation_; }
    ResultsModel* model() const { return model_; }
    // The results row of each ellipse item and the other way round are the model's (overlayItem).

    // The segmentation layer on or off (it starts off).
    void setSegmentationShown(bool shown);
    // Opens the run's map as the current image (its title names it); showImage() returns to the analysed
    // image with its catalogue. False (with a message) without a run that has maps.
    bool showMap(Map map);
    bool showImage();
    bool showingMap() const { return showingMap_.has_value(); }

    // Writes the catalogue through core's writeSourceCatalog (format by the path's extension, or `format`:
    // fits, ldac, ascii, csv). Throws the core's error.
    void writeCatalogue(const QString& path, const QString& format = {}) const;
    // Asks for a file and writes it (File ▸ Save Catalogue…).
    void saveCatalogueDialog();
    // SAMP's catalogue hook: a FITS table of the current catalogue in a temporary folder the module owns, or
    // empty without a catalogue (or when it cannot be written).
    std::string catalogueForSamp();

    QVector<ExportableResults> exportableResults() const override;
    QString sessionKey() const override { return QStringLiteral("sources"); }
    QJsonObject saveSession() const override;
    std::function<void()> prepareSession(const QJsonObject& state, const SessionImages& inputs) override;

signals:
    void runFinished();
    void runFailed(const QString& message);
    void runCancelled();

private:
    // The layers, rows and status of a catalogue (a finished run, a session's, or on return from a map).
    void present(const Catalogue& catalogue, const QString& status);
    void onImageChanged();
    void updateButtons();
    void refreshShapes(); // the ROI and exclusion layers and the panel's line from roi_ and exclusions_
    void addShapesTo(glint::Json& request) const;
    void fail(const QString& message);
    QString summary(const Catalogue& catalogue) const;

    SourcesPanel* panel_ = nullptr;
    QAction* findAction_;
    QAction* segmentationAction_;
    QAction* backgroundAction_;
    QAction* rmsAction_;
    QAction* imageAction_;
    QAction* saveAction_;
    QAction* drawRoiAction_;
    QAction* excludeRectAction_;
    QAction* excludePolygonAction_;
    QAction* clearShapesAction_;
    RectangleTool* roiTool_;
    RectangleTool* excludeRectTool_;
    PolygonTool* excludePolygonTool_;
    struct Exclusion {
        bool polygon = false;
        QRect rect;
        QPolygonF points;
    };
    // One step of Edit ▸ Undo: the ROI and the exclusions become these.
    void editShapes(const QString& text, std::optional<QRect> roi, QVector<Exclusion> exclusions);
    std::optional<QRect> roi_;
    QVector<Exclusion> exclusions_;
    QPointer<ShapeLayer> roiLayer_;
    QPointer<BrightestExclusionLayer> exclusionLayer_;
    std::optional<Catalogue> catalogue_;
    std::optional<Map> showingMap_;  // a map is the current image; catalogue_ waits for showImage()
    bool switching_ = false;         // the module itself changes the image (map, back to the image)
    QPointer<SourceEllipseLayer> ellipses_;
    QPointer<SegmentationLayer> segmentation_;
    QPointer<ResultsModel> model_;
    int runCount_ = 0;
    std::unique_ptr<QTemporaryDir> sampDir_;
};

} // namespace glint::ui
