// Line tracing in the window (DESIGN.md "Line trace", issue 6): the Trace tool's clicks become legs traced
// with the full parameters, the leg to the cursor is traced live off the UI thread (the newest mouse
// position wins), and each finished trace becomes an overlay polyline, a results row and a timing record.
#pragma once

#include "core/algo/trace/LineTrace.h"
#include "core/jobs/Timing.h"
#include "ui/modules/AnalysisModule.h"
#include "ui/modules/TraceLayer.h"
#include "ui/modules/TracePanel.h"
#include "ui/results/ResultsModel.h"

#include <QPointF>
#include <QPointer>
#include <QPolygonF>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace glint::ui {

class LatestRequestRunner;
class TraceTool;
class TraceWorker;

class TraceModule : public AnalysisModule {
    Q_OBJECT
public:
    explicit TraceModule(AppContext& context, QObject* parent = nullptr);
    ~TraceModule() override;

    // A finished trace as the module keeps it (item i of layer() is traces()[i]).
    struct FinishedTrace {
        int id = 0;
        glint::TraceResult result;
        QString mode;       // the score mode
        QString backend;    // the backend that traced it
        QString parameters; // TraceSettings::describe() and the clicks
        glint::Json request; // the trace spec's values with the clicks as given: glint-cli trace --params replays it
        std::optional<double> widthPx; // the feature's width along the path (median, TraceWidth.h): measureWidth()
        bool widthMeasured = false;    // widthPx is the width of this result (none may have been found)
    };

    QString name() const override { return tr("Line trace"); }
    QList<QAction*> actions() override { return {traceAction_, deleteAction_}; }
    QList<QAction*> fileActions() override { return {exportAction_}; } // File ▸ Export Traces as GeoPackage/Shapefile…
    QWidget* createPanel() override;

    const std::vector<FinishedTrace>& traces() const { return traces_; }
    QVector<ExportableResults> exportableResults() const override;
    QString sessionKey() const override { return QStringLiteral("trace"); }
    QJsonObject saveSession() const override;
    std::function<void()> prepareSession(const QJsonObject& state, const SessionImages& inputs) override;

    // Deletes a finished trace (its overlay and results row) as one step of Edit ▸ Undo; false when no trace
    // has that id. deleteSelectedTrace() deletes the one selected on the canvas or in the results (a message
    // when none is).
    bool deleteTrace(int id);
    bool deleteSelectedTrace();
    // Deletes every finished trace as one step (the Layers dock's Remove of the trace layer); false when none.
    bool clearTraces();
    QAction* deleteTraceAction() const { return deleteAction_; }

    // --- The network: editing finished traces (TraceEditing.cpp). A trace's nodes are its clicks (the ends and
    // via points: legs[0].from, legs[i].to). Each edit is one step of Edit ▸ Undo that restores the exact
    // earlier polyline; the legs it changes are traced again on the worker thread with the trace's own resolved
    // settings (traceEdited(id) when they are in; a message and nothing changed when they cannot be).
    static constexpr double kNodeRadiusPx = 6.0; // screen pixels: grabbing a node, joining a trace at a vertex
    struct NodeRef {
        int traceId = 0;
        int node = -1;
    };
    // The node of a finished trace within kNodeRadiusPx screen pixels of p (the nearest), if any.
    std::optional<NodeRef> nodeAt(QPointF imagePoint) const;
    // A vertex of a finished trace (any point of its polyline: nodes, path vertices, junctions) within
    // kNodeRadiusPx screen pixels of p (the nearest): a new trace's click there joins that trace exactly.
    std::optional<QPointF> junctionAt(QPointF imagePoint) const;
    static std::vector<glint::TracePoint> nodesOf(const glint::TraceResult& result);
    // Moves node `node` of trace `traceId` to p (as dropped: not snapped) and traces the legs beside it again.
    bool moveNode(int traceId, int node, QPointF p);
    // Deletes a node: a via point's two legs become one leg traced again; an end's leg goes (the trace gets
    // shorter). A trace of one leg keeps its two nodes (delete the trace instead).
    bool deleteNode(int traceId, int node);
    bool isEditing() const { return editPending_; }
    // Writes the finished traces as a GIS layer (core/export/TraceNetwork.h: .gpkg, .shp, .geojson) in the
    // image's CRS; throws UsageError/OutputError/InputError.
    void exportNetwork(const QString& path) const;
    QAction* exportNetworkAction() const { return exportAction_; }

    TraceSettings settings() const { return settings_; }
    // Shows the settings in the panel too. Changes reach a trace in progress only while it has no fixed
    // leg (a finished trace is traced with one set of parameters); guides and live points apply at once.
    void setSettings(const TraceSettings& settings);

    // What is going on, for the status of the window and for tests.
    TraceTool* tool() const { return tool_; }
    TraceLayer* layer() const { return layer_; }
    ResultsModel* model() const { return model_; }
    LatestRequestRunner* runner() const { return runner_.get(); }
    std::shared_ptr<const TraceWorker> worker() const { return worker_; }
    bool isTracing() const { return session_ != nullptr; }
    bool isFixing() const { return fixing_; }
    int clickCount() const;
    int fixedLegCount() const;
    QPolygonF livePolyline() const;  // the live leg on screen (image coordinates); empty when none
    QPolygonF fixedPolyline() const; // the fixed legs of the trace in progress
    int liveTracesShown() const { return liveShown_; }
    double lastLiveMs() const { return lastLiveMs_; } // the trace() time of the newest live trace shown
    QString lastMessage() const { return lastMessage_; }
    // Snapping (TraceSettings::snap): whether the field to snap on is ready, and where p snaps to (p itself
    // when snapping is off or the field is not ready yet).
    bool canSnap() const;
    QPointF snapped(QPointF imagePoint) const;

public slots:
    void startTool(); // Analyze ▸ Trace Line: the canvas gets the Trace tool
    void click(QPointF imagePoint);
    void hover(QPointF imagePoint);
    void removeLastPoint(); // Backspace
    void cancelTrace();     // Esc
    void finishTrace();     // Enter, double-click

signals:
    void liveTraceShown();
    void legFixed(int legs);
    void traceFinished(int id);
    void messageShown(const QString& message);
    void traceEdited(int id);

private:
    enum class Request { None, Prepare, Resolve, Live, Fixed, Edit };
    struct LegOutcome;
    struct FirstClick;
    struct Session;

    bool ensureWorker();
    void requestPrepare();
    void startSession(glint::TracePoint first, bool joined = false);
    void onFirstClickResolved(quint64 generation, const FirstClick& outcome);
    glint::TracePoint snapClick(glint::TracePoint p) const;
    void requestFixed();
    void requestLive(QPointF imagePoint);
    void onLegFixed(quint64 generation, const LegOutcome& outcome);
    void onLive(quint64 generation, const LegOutcome& outcome);
    void onFailed(const QString& message);
    void completeTrace();
    void dropTrace();
    void updatePreview();
    void ensureOutputs();
    // The finished traces become `list` (layer items and rows rebuilt in its order); withoutTrace: all but `id`.
    void showTraces(std::vector<FinishedTrace> list);
    void withoutTrace(int id);
    // The overlay polyline and the results row of a finished trace (traced now, or read from a session).
    void presentTrace(FinishedTrace trace);
    // Measures trace.widthPx on the current image for the trace's result (once: a result's width does not change).
    void measureWidth(FinishedTrace& trace) const;
    void showMessage(const QString& message);
    bool insideImage(QPointF p) const;
    double imagePixelsPerScreenPixel() const;
    // Traces legs between consecutive points of `ends` (the legs of `trace` that change) and then replaces
    // legs [first, first + count) of the trace by them, as one undoable step named `text`.
    void retraceLegs(int traceId, std::size_t first, std::size_t count, std::vector<glint::TracePoint> ends,
                     const QString& text);
    void replaceTrace(const FinishedTrace& earlier, FinishedTrace after, const QString& text);
    void startDrag(QPointF p);
    void exportNetworkDialog();
    // TraceTool's node handling while no trace is in progress.
    std::optional<NodeRef> dragged_;
    std::optional<QPointF> hoverIdle_;
    bool editPending_ = false;
    quint64 editGeneration_ = 0;

    TraceSettings settings_;
    TraceTool* tool_;
    QAction* traceAction_;
    QAction* deleteAction_;
    QAction* exportAction_;
    QPointer<TracePanel> panel_;
    QPointer<TraceLayer> layer_;
    QPointer<ResultsModel> model_;
    std::shared_ptr<TraceWorker> worker_; // for the current image
    std::shared_ptr<const glint::TraceField> snapField_; // the newest field of the current image (immutable)
    std::unique_ptr<Session> session_;    // the trace in progress, if any
    std::optional<QPointF> hover_;
    quint64 generation_ = 0;              // bumped whenever results in flight stop being wanted
    Request newest_ = Request::None;
    bool snapShown_ = false;              // the snap marker is drawn at hover_
    bool fixing_ = false;                 // a fixed leg is being traced; live requests wait for it
    std::vector<FinishedTrace> traces_;
    int count_ = 0;
    int liveShown_ = 0;
    double lastLiveMs_ = 0.0;
    QString lastMessage_;
    // Declared last so that it is destroyed first: its destructor waits for the running work, which may
    // still post field reports to this module.
    std::unique_ptr<LatestRequestRunner> runner_;
};

} // namespace glint::ui
