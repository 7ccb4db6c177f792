// TraceModule's network editing (issue 32): a new trace joins an earlier one at its vertices, nodes of finished
// traces are dragged and deleted with their legs traced again, each edit one undoable step; and the finished
// traces written as a GIS layer (GeoPackage, Shapefile, GeoJSON).
#include "ui/modules/TraceModule.h"
#include "ui/modules/TraceModuleParts.h"

#include "core/algo/trace/TraceSpec.h"
#include "core/export/TraceNetwork.h"
#include "core/io/Georef.h"
#include "core/params/ImageKind.h"
#include "core/util/Errors.h"
#include "ui/AppContext.h"
#include "ui/canvas/ImageCanvas.h"
#include "ui/jobs/LatestRequestRunner.h"
#include "ui/modules/TraceLayer.h"
#include "ui/modules/TraceTool.h"
#include "ui/modules/TraceWorker.h"
#include "ui/undo/UndoCommands.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMainWindow>
#include <QMessageBox>
#include <QUndoStack>

#include <algorithm>
#include <cmath>
#include <limits>

namespace glint::ui {

using namespace trace_parts;

namespace {
bool samePolyline(const glint::TraceResult& a, const glint::TraceResult& b) {
    const auto pa = a.polyline(), pb = b.polyline();
    return std::equal(pa.begin(), pa.end(), pb.begin(), pb.end(), samePoint);
}
} // namespace

std::vector<glint::TracePoint> TraceModule::nodesOf(const glint::TraceResult& result) {
    std::vector<glint::TracePoint> nodes;
    if (result.legs.empty()) return nodes;
    nodes.push_back(result.legs.front().from);
    for (const glint::TraceLeg& leg : result.legs) nodes.push_back(leg.to);
    return nodes;
}

double TraceModule::imagePixelsPerScreenPixel() const {
    const ImageCanvas* canvas = context().canvas();
    const double scale = canvas ? canvas->view().scale() : 1.0;
    return scale > 0.0 ? 1.0 / scale : 1.0;
}

std::optional<TraceModule::NodeRef> TraceModule::nodeAt(QPointF p) const {
    const double radius = kNodeRadiusPx * imagePixelsPerScreenPixel();
    std::optional<NodeRef> best;
    double bestDistance = radius;
    for (const FinishedTrace& t : traces_) {
        const auto nodes = nodesOf(t.result);
        for (std::size_t i = 0; i < nodes.size(); ++i) {
            const double d = std::hypot(nodes[i].x - p.x(), nodes[i].y - p.y());
            if (d <= bestDistance) {
                bestDistance = d;
                best = NodeRef{t.id, static_cast<int>(i)};
            }
        }
    }
    return best;
}

std::optional<QPointF> TraceModule::junctionAt(QPointF p) const {
    const double radius = kNodeRadiusPx * imagePixelsPerScreenPixel();
    std::optional<QPointF> best;
    double bestDistance = radius;
    for (const FinishedTrace& t : traces_)
        for (const glint::TracePoint& v : t.result.polyline()) {
            const double d = std::hypot(v.x - p.x(), v.y - p.y());
            if (d <= bestDistance) {
                bestDistance = d;
                best = qpoint(v);
            }
        }
    return best;
}

bool TraceModule::moveNode(int traceId, int node, QPointF p) {
    const auto it = std::find_if(traces_.begin(), traces_.end(), [traceId](const FinishedTrace& t) { return t.id == traceId; });
    if (it == traces_.end()) return false;
    const auto nodes = nodesOf(it->result);
    if (node < 0 || node >= static_cast<int>(nodes.size())) return false;
    if (!insideImage(p)) {
        showMessage(tr("Trace: a node goes inside the image (%1 × %2 pixels); it stays where it was")
                        .arg(context().image()->width())
                        .arg(context().image()->height()));
        return false;
    }
    const glint::TracePoint to = tracePoint(p);
    const std::size_t n = static_cast<std::size_t>(node);
    if ((n > 0 && samePoint(nodes[n - 1], to)) || (n + 1 < nodes.size() && samePoint(nodes[n + 1], to))) {
        showMessage(tr("Trace: the node would land on its neighbour; it stays where it was"));
        return false;
    }
    if (samePoint(nodes[n], to)) return false;
    // The legs beside the node: n - 1 (ends at it) and n (starts at it).
    const std::size_t first = n == 0 ? 0 : n - 1;
    const std::size_t last = std::min(n, nodes.size() - 2); // the last leg touched
    std::vector<glint::TracePoint> ends;
    for (std::size_t i = first; i <= last + 1; ++i) ends.push_back(i == n ? to : nodes[i]);
    retraceLegs(traceId, first, last - first + 1, std::move(ends), tr("Move node %1 of trace #%2").arg(node + 1).arg(traceId));
    return true;
}

bool TraceModule::deleteNode(int traceId, int node) {
    const auto it = std::find_if(traces_.begin(), traces_.end(), [traceId](const FinishedTrace& t) { return t.id == traceId; });
    if (it == traces_.end()) return false;
    const auto nodes = nodesOf(it->result);
    if (node < 0 || node >= static_cast<int>(nodes.size())) return false;
    if (nodes.size() <= 2) {
        showMessage(tr("Trace #%1 has two nodes only: delete the trace instead (Analyze ▸ Delete Selected Trace)").arg(traceId));
        return false;
    }
    const QString text = tr("Delete node %1 of trace #%2").arg(node + 1).arg(traceId);
    const std::size_t n = static_cast<std::size_t>(node);
    if (n == 0 || n + 1 == nodes.size()) {
        // An end: its leg goes, nothing is traced again.
        FinishedTrace after = *it;
        if (n == 0) after.result.legs.erase(after.result.legs.begin());
        else after.result.legs.pop_back();
        replaceTrace(*it, std::move(after), text);
        return true;
    }
    if (samePoint(nodes[n - 1], nodes[n + 1])) {
        showMessage(tr("Trace: the nodes on either side coincide; the node stays"));
        return false;
    }
    retraceLegs(traceId, n - 1, 2, {nodes[n - 1], nodes[n + 1]}, text);
    return true;
}

void TraceModule::retraceLegs(int traceId, std::size_t first, std::size_t count, std::vector<glint::TracePoint> ends,
                              const QString& text) {
    const auto it = std::find_if(traces_.begin(), traces_.end(), [traceId](const FinishedTrace& t) { return t.id == traceId; });
    if (it == traces_.end() || !ensureWorker()) return;
    if (session_) dropTrace(); // the trace in progress would share the worker
    // The trace's own resolved settings (width measured at its first click, its field), as it was traced.
    TraceSettings settings = settings_;
    try {
        const glint::TraceRequest request = glint::traceSpec().read(it->request);
        static_cast<glint::TraceRequest&>(settings) = request;
        settings.autoWidth = false;
    } catch (const std::exception& e) {
        showMessage(tr("Trace #%1 cannot be traced again: %2").arg(traceId).arg(QString::fromStdString(e.what())));
        return;
    }
    const FinishedTrace before = *it;
    struct Legs {
        std::vector<glint::TraceLeg> legs;
    };
    auto outcome = std::make_shared<Legs>();
    newest_ = Request::Edit;
    editPending_ = true;
    const quint64 generation = ++editGeneration_;
    runner_->request(
        [worker = worker_, settings, ends, outcome](glint::JobControl& job) {
            glint::LineTracer& tracer = worker->tracer(settings.field, settings.backend);
            for (std::size_t i = 0; i + 1 < ends.size(); ++i) outcome->legs.push_back(tracer.trace(ends[i], ends[i + 1], settings.params, job));
        },
        [this, generation, before, first, count, outcome, text, settings] {
            if (generation != editGeneration_) return;
            editPending_ = false;
            const auto now = std::find_if(traces_.begin(), traces_.end(), [&](const FinishedTrace& t) { return t.id == before.id; });
            if (now == traces_.end() || !samePolyline(now->result, before.result)) return; // changed meanwhile (undo)
            FinishedTrace after = before;
            auto& legs = after.result.legs;
            legs.erase(legs.begin() + static_cast<std::ptrdiff_t>(first), legs.begin() + static_cast<std::ptrdiff_t>(first + count));
            legs.insert(legs.begin() + static_cast<std::ptrdiff_t>(first), outcome->legs.begin(), outcome->legs.end());
            replaceTrace(before, std::move(after), text);
        });
}

void TraceModule::replaceTrace(const FinishedTrace& earlier, FinishedTrace after, const QString& text) {
    const FinishedTrace before = earlier; // a copy: `earlier` may be an element of traces_, which is rebuilt below
    after.result.score = 0.0;
    for (const glint::TraceLeg& leg : after.result.legs) after.result.score += leg.score;
    // What glint-cli trace --params replays: the nodes now (an edited node is where it was dropped).
    const auto nodes = nodesOf(after.result);
    try {
        glint::TraceRequest request = glint::traceSpec().read(before.request);
        request.from = nodes.front();
        request.to = nodes.back();
        request.via.assign(nodes.begin() + 1, nodes.end() - 1);
        const std::string preset = before.request.contains("preset") ? before.request["preset"].get<std::string>()
                                                                     : std::string("auto");
        after.request = glint::traceSpec().write(request, preset);
    } catch (const std::exception&) {
        // The request is kept as it was (the clicks in it are the earlier ones).
    }
    const QString clicks = QStringLiteral(" clicks=");
    const qsizetype at = after.parameters.indexOf(clicks);
    after.parameters = (at >= 0 ? after.parameters.left(at) : after.parameters) + clicks + clicksText(nodes);
    after.widthMeasured = false; // a new path: its width is measured once, here, for every later showing
    measureWidth(after);
    const auto replaced = [this](const FinishedTrace& t) {
        std::vector<FinishedTrace> list = traces_;
        for (FinishedTrace& x : list)
            if (x.id == t.id) x = t;
        showTraces(std::move(list));
    };
    replaced(after);
    const QPointer<TraceModule> self(this);
    context().undoStack()->push(new ImageEditCommand(
        context(), text,
        [self, before, replaced] {
            if (self) replaced(before);
        },
        [self, after, replaced] {
            if (self) replaced(after);
        },
        true));
    QString weakNote;
    for (std::size_t i = 0; i < after.result.legs.size(); ++i)
        if (weak(after.result.legs[i])) {
            weakNote = tr(" — leg %1: %2").arg(i + 1).arg(weakLegText(after.result.legs[i]));
            break;
        }
    showMessage(tr("%1: %2 legs, confidence %3%4").arg(text).arg(after.result.legs.size()).arg(confidencesText(after.result.legs)).arg(weakNote));
    emit traceEdited(after.id);
}

void TraceModule::exportNetwork(const QString& path) const {
    if (traces_.empty()) throw glint::UsageError("there are no traces to export: trace a line first");
    std::vector<glint::NetworkTrace> network;
    for (const FinishedTrace& t : traces_) network.push_back(glint::networkTrace(t.result, t.id, t.widthPx));
    const auto image = context().image();
    glint::writeTraceNetwork(path.toStdString(), network, image && image->meta.georef ? image->meta.georef.get() : nullptr);
}

void TraceModule::exportNetworkDialog() {
    if (traces_.empty()) {
        showMessage(tr("There are no traces to export: trace a line first (Analyze ▸ Trace Line)."));
        return;
    }
    const QString gpkg = tr("GeoPackage (*.gpkg)"), shp = tr("Shapefile (*.shp)"), json = tr("GeoJSON (*.geojson)");
    QString filter = gpkg;
    const QString start = QDir::home().filePath(QStringLiteral("traces.gpkg"));
    QString path = QFileDialog::getSaveFileName(context().window(), tr("Export Traces"), start,
                                                QStringList{gpkg, shp, json}.join(QStringLiteral(";;")), &filter);
    if (path.isEmpty()) return;
    try {
        glint::networkFormatForPath(path.toStdString());
    } catch (const glint::UsageError&) {
        path += filter == shp ? QStringLiteral(".shp") : filter == json ? QStringLiteral(".geojson") : QStringLiteral(".gpkg");
    }
    try {
        exportNetwork(path);
        const auto image = context().image();
        const bool map = image && image->meta.georef;
        showMessage(tr("%1 traces written to %2 (%3)")
                        .arg(traces_.size())
                        .arg(path)
                        .arg(map ? tr("map coordinates, the image's CRS") : tr("pixel coordinates: the image is not georeferenced")));
    } catch (const std::exception& e) {
        const QString message = tr("Cannot export the traces: %1").arg(QString::fromStdString(e.what()));
        showMessage(message);
        if (QWidget* window = context().window(); window && window->isVisible())
            QMessageBox::warning(window, tr("Export Traces"), message);
    }
}

} // namespace glint::ui
