// Analyze ▸ Brightest region: the brightest region, the K brightest regions and pivot sweeps of the
// current image, with an ROI and exclusion shapes drawn on the canvas; runs core's runBrightest /
// runPivotSweep as a job and shows the regions as overlay layers, result rows and timing records.
#pragma once

#include "core/algo/brightest/Brightest.h"
#include "ui/modules/AnalysisModule.h"
#include "core/params/ImageKind.h"
#include "ui/modules/BrightestLayers.h"

#include <QHash>
#include <QPointer>
#include <QPolygonF>
#include <QRect>
#include <QVector>

#include <memory>
#include <optional>
#include <vector>

namespace glint::ui {

class BrightestPanel;
class LatestRequestRunner;
class PolygonTool;
class RectangleTool;
class ResultsModel;
class ShapeLayer;

class BrightestModule : public AnalysisModule {
    Q_OBJECT
public:
    explicit BrightestModule(AppContext& context, QObject* parent = nullptr);

    // One finished run as the module keeps it, for exports and sessions.
    struct Run {
        int number = 0; // "Brightest #number" in the titles
        bool sweep = false;
        int k = 1;
        std::vector<glint::BrightestResult> results; // one per pivot of a sweep
        QVector<QPointer<OverlayLayer>> layers;      // single: the region layer; sweep: each pivot's, then the legend
        QString title;
        glint::Json parameters; // what the run used, resolved (the brightest spec's JSON; empty for older sessions)
    };

    QString name() const override { return tr("Brightest region"); }
    QList<QAction*> actions() override;
    QWidget* createPanel() override;
    BrightestPanel* panel() const { return panel_; }

    // Every run on the current image, oldest first (a run whose layers were all removed no longer counts).
    const std::vector<Run>& runs() const { return runs_; }
    QVector<ExportableResults> exportableResults() const override;
    QString sessionKey() const override { return QStringLiteral("brightest"); }
    QJsonObject saveSession() const override;
    std::function<void()> prepareSession(const QJsonObject& state, const SessionImages& inputs) override;

    // Starts a run with the panel's parameters; k <= 0 takes the panel's K. False (and a message on the
    // panel) when there is no image, a parameter is wrong, or another job is running.
    bool run(int k = 0);
    // One run per pivot of the panel's sweep list, each drawn in its own colour with a legend.
    bool runSweep();

    // The region of interest and the exclusions (image pixels; polygons through pixel centres, even-odd).
    void setRoi(const QRect& pixels);
    void clearRoi();
    std::optional<QRect> roi() const { return roi_; }
    void addExclusionRectangle(const QRect& pixels);
    void addExclusionPolygon(const QPolygonF& points);
    void removeExclusion(int index);
    void clearExclusions();
    // Each of these edits is one step of Edit ▸ Undo (the auto-exclusion's shapes are one step too).
    int exclusionCount() const { return static_cast<int>(exclusions_.size()); }
    // The mammogram auto-exclusion (core's mammogramAutoExclusions) on the current image, on a worker: its
    // shapes are added as ordinary exclusions. Opening a mammogram (its kind's preset asks for it) starts it; the
    // panel's "Auto-exclude (mammogram)" button runs it on any image. A run asked for meanwhile starts
    // (or sweep) when the shapes are in. False when there is no image.
    bool autoExclude();
    bool autoExclusionPending() const { return autoExcludePending_; }
    // The request a run would make now (the panel's fields, K, the ROI and exclusions, the image's kind as the
    // preset), and the parameters it gives; UsageError for a wrong pivot.
    glint::Json currentRequest(int k) const;
    glint::BrightestParams currentParams(int k) const;

    // The image's kind (issue 33): the one found by content (classifyImage, as --preset auto), or the one the
    // user chose in the panel's Kind box; the latter is remembered per file for the session (opening another
    // file starts at auto). Choosing a kind is one undoable step: the form takes that kind's preset (as opening
    // an image of that kind would: fields the user changed keep their values) and a mammogram's automatic
    // exclusions come or go with it. nullopt: auto.
    glint::ImageKind detectedKind() const;
    std::optional<glint::ImageKind> chosenKind() const { return chosenKind_; }
    glint::ImageKind kind() const { return chosenKind_ ? *chosenKind_ : detectedKind(); }
    void chooseKind(std::optional<glint::ImageKind> kind);

    // The latest run's outputs (null before the first run, or once removed).
    BrightestRegionLayer* regionLayer() const { return regionLayer_; }
    BrightestSweepLayer* sweepLayer() const { return sweepLayer_; }
    ResultsModel* model() const { return model_; }
    const std::vector<glint::BrightestResult>& lastResults() const { return lastResults_; }
    BrightestExclusionLayer* exclusionLayer() const { return exclusionLayer_; }
    ShapeLayer* roiLayer() const { return roiLayer_; }

signals:
    void runFinished();
    void runFailed(const QString& message); // also for a refused start and wrong parameters
    void runCancelled();
    void autoExclusionsAdded(int shapes); // the auto-exclusion finished (shapes: how many it added)

private:
    struct Exclusion {
        bool polygon = false;
        QRect rect;
        QPolygonF points;
    };
    bool start(std::vector<glint::PivotSpec> sweep, int k);
    // note: how the window chose the pivot, or why the answer is empty (results dock, status bar, panel).
    void showSingle(const glint::BrightestResult& result, int k, const glint::JobControl& job, const glint::Image& image,
                    const QString& parameters, const QString& note);
    void showSweep(const std::vector<glint::BrightestResult>& results, int k, const glint::JobControl& job,
                   const glint::Image& image, const QString& parameters, const QString& note);
    // The layers, result rows and run record of a run (a finished one, or one read from a session); an
    // empty answer without a note gets a plain one.
    void presentSingle(const glint::BrightestResult& result, int k, const QString& note = {});
    void presentSweep(const std::vector<glint::BrightestResult>& results, int k, const QString& note = {});
    void showNote(const QString& note); // in the status bar
    void showK(int k);                  // in the K Brightest Regions action
    QString parametersText(const glint::Json& parameters, const std::vector<glint::PivotSpec>& sweep) const;
    void retirePreviousRun();
    void refreshExclusions();
    void refreshRoi();
    // The undoable edits: the list (or ROI) becomes `after` through a command on the context's undo stack;
    // select: the list row to select after it is applied (-1: leave the selection); undoneStatus, doneStatus: the
    // panel's status line once the step is undone, redone (empty: left as it is).
    void editExclusions(const QString& text, QVector<Exclusion> after, int select = -1, const QString& undoneStatus = {},
                        const QString& doneStatus = {});
    void editRoi(const QString& text, std::optional<QRect> after);
    void fail(const QString& message);
    void onImageChanged();
    void applyImageDefaults();
    void cancelAutoExclusion();
    void refreshKindBox();
    // Sets the kind, the form's values and the exclusions without a command (chooseKind's step applies these).
    void setKindState(std::optional<glint::ImageKind> kind, const glint::Json& values, const QVector<Exclusion>& exclusions);

    BrightestPanel* panel_ = nullptr;
    RectangleTool* roiTool_;
    RectangleTool* excludeRectTool_;
    PolygonTool* excludePolygonTool_;
    QAction* brightestAction_;
    QAction* kBrightestAction_;
    QAction* sweepAction_;
    QAction* drawRoiAction_;
    QAction* excludeRectAction_;
    QAction* excludePolygonAction_;

    std::optional<QRect> roi_;
    QVector<Exclusion> exclusions_;
    QPointer<ShapeLayer> roiLayer_;
    QPointer<BrightestExclusionLayer> exclusionLayer_;
    QPointer<BrightestRegionLayer> regionLayer_;
    QPointer<BrightestSweepLayer> sweepLayer_;
    QVector<QPointer<OverlayLayer>> runLayers_; // the latest run's layers, hidden when the next run shows
    QPointer<ResultsModel> model_;
    std::vector<glint::BrightestResult> lastResults_;
    std::vector<Run> runs_;
    int runCount_ = 0;
    LatestRequestRunner* autoRunner_;
    bool autoExcludePending_ = false;
    int pendingRunK_ = -1; // a run (its k) asked for while the auto-exclusion was running; -1: none
    bool pendingSweep_ = false; // a sweep asked for meanwhile
    std::optional<glint::ImageKind> chosenKind_;
    mutable std::optional<glint::ImageKindGuess> detected_; // for detectedFor_
    mutable const glint::Image* detectedFor_ = nullptr;
    QHash<QString, glint::ImageKind> kindByPath_; // the session's choices, by file
    QVector<Exclusion> autoShapes_;               // what the latest auto-exclusion added
    // The kind step whose auto-exclusion is running: its shapes join that step (not one of their own).
    struct KindShapes {
        QVector<Exclusion> list; // the step's exclusions once made
        bool pending = false;    // its auto-exclusion has not finished
    };
    std::shared_ptr<KindShapes> kindStepShapes_;
};

} // namespace glint::ui
