// TraceModule's finished traces and what the canvas shows of the trace in progress: a finished trace's overlay,
// results row, timing record and status line, and the preview (clicks, fixed, pending and live legs, guides).
#include "ui/modules/TraceModule.h"

#include "core/algo/trace/TraceWidth.h"
#include "core/util/Errors.h"
#include "ui/modules/TraceModuleParts.h"

#include "core/algo/trace/TraceSpec.h"
#include "core/params/ImageKind.h"
#include "ui/AppContext.h"
#include "ui/docks/ResultsDock.h"
#include "ui/jobs/LatestRequestRunner.h"
#include "ui/modules/TraceLayer.h"
#include "ui/modules/TraceTool.h"
#include "ui/overlay/LayerStack.h"
#include "ui/results/ResultsModel.h"
#include "ui/results/TimingLog.h"
#include "ui/undo/UndoCommands.h"
#include "core/export/RegionCsv.h"
#include "core/io/Georef.h"

#include <QUndoStack>

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>
#include <vector>

namespace glint::ui {

using namespace trace_parts;

static_assert(TraceLayer::kWeakConfidence == TraceSettings::kWeakConfidence);

namespace {
// "length (m)": the unit of mapLength() (metres over a geographic CRS, the CRS's unit else).
// "length (m)" etc.: `what` is the column's quantity ("length", "width").
QString mapHeader(const glint::Georef& georef, const QString& what) {
    if (georef.isGeographic() || georef.unitName() == "metre") return TraceModule::tr("%1 (m)").arg(what);
    if (georef.unitName().empty()) return TraceModule::tr("%1 (map units)").arg(what);
    return TraceModule::tr("%1 (%2)").arg(what, QString::fromStdString(georef.unitSymbol()));
}
} // namespace

void TraceModule::completeTrace() {
    const std::unique_ptr<Session> s = std::move(session_);
    runner_->cancelAll(); // a live trace of the finished one is of no use
    fixing_ = false;
    ++generation_;
    tool_->setTracing(false);
    updatePreview();
    if (context().image() != s->image) return; // cannot happen (a new image drops the trace), but be sure

    glint::TraceResult result;
    result.legs = s->legs;
    for (const glint::TraceLeg& leg : s->legs) result.score += leg.score;
    const double length = polylineLength(polygon(result.polyline()));
    const int id = ++count_;
    // What glint-cli trace --params replays: the resolved settings with the clicks as the user placed them.
    glint::TraceRequest request = s->settings;
    request.from = s->given.front();
    request.to = s->given.back();
    request.via.assign(s->given.begin() + 1, s->given.end() - 1);
    FinishedTrace finished{id, result, QLatin1String(glint::traceScoreName(s->settings.field.score)),
                           QLatin1String(glint::backendName(s->backend)),
                           s->settings.describe() + QStringLiteral(" clicks=") + clicksText(s->clicks),
                           glint::traceSpec().write(request, glint::imageKindName(glint::classifyImage(*s->image).kind))};
    measureWidth(finished); // before the undo step keeps its copy
    presentTrace(finished);
    const double widthPx = finished.widthPx.value_or(NAN); // NaN when no sample found the feature
    // Edit ▸ Undo takes the trace away (its overlay and row); Redo brings it back as it was.
    const QPointer<TraceModule> self(this);
    context().undoStack()->push(new ImageEditCommand(
        context(), tr("Trace #%1").arg(id),
        [self, id] {
            if (self) self->withoutTrace(id);
        },
        [self, finished] {
            if (!self) return;
            std::vector<FinishedTrace> list = self->traces_;
            list.push_back(finished);
            self->showTraces(std::move(list));
        },
        true));

    glint::JobControl merged; // the fixed legs' steps and times; live traces are previews, not runs
    for (const glint::Timing& t : s->legTimings) merged.timing().merge(t);
    merged.setDevice(s->device);
    context().timingLog()->add(RunRecord::fromJob(QStringLiteral("trace"), s->backend, merged, *s->image,
                                                  s->settings.describe() + QStringLiteral(" clicks=") + clicksText(s->clicks)));
    QString weakNote;
    for (std::size_t i = 0; i < s->legs.size(); ++i)
        if (weak(s->legs[i])) {
            weakNote = tr(" — leg %1: %2").arg(i + 1).arg(weakLegText(s->legs[i]));
            break;
        }
    showMessage(tr("Trace #%1: %2, %3 px, width %4, score %5, confidence %6 (%7, %8 ms)%9")
                    .arg(id)
                    .arg(s->legs.size() == 1 ? tr("1 leg") : tr("%1 legs").arg(s->legs.size()))
                    .arg(length, 0, 'f', 1)
                    .arg(std::isfinite(widthPx) ? tr("%1 px").arg(widthPx, 0, 'f', 1) : tr("not found"))
                    .arg(result.score, 0, 'g', 6)
                    .arg(confidencesText(s->legs))
                    .arg(QLatin1String(glint::backendName(s->backend)))
                    .arg(merged.timing().total(), 0, 'f', 1)
                    .arg(weakNote));
    emit traceFinished(id);
}

void TraceModule::measureWidth(FinishedTrace& trace) const {
    // The feature's width along the path, with the polarity the trace was resolved with (as glint-cli trace's
    // width_px); ~1 ms a trace, taken once per result (a new trace, an edited one, one read from a session), not
    // each time the traces are shown again.
    if (trace.widthMeasured) return;
    const auto image = context().image();
    if (!image || image->empty()) return;
    glint::TracePolarity polarity = glint::TracePolarity::Both;
    if (const auto it = trace.request.find("polarity"); it != trace.request.end() && it->is_string()) try {
            polarity = glint::parseTracePolarity(it->get<std::string>());
        } catch (const glint::UsageError&) {
            // a session's request is checked when read; measured at the clicks then, as glint-cli does for "both"
        }
    trace.widthPx = glint::measureTraceWidth(*image, trace.result, polarity).medianPx;
    trace.widthMeasured = true;
}

void TraceModule::presentTrace(FinishedTrace trace) {
    ensureOutputs();
    measureWidth(trace);
    const QPolygonF line = polygon(trace.result.polyline());
    const int item = layer_->add(OverlayShape::polyline(line, QStringLiteral("#%1").arg(trace.id)));
    QList<QPolygonF> weakLegs;
    double lowest = 1.0;
    for (const glint::TraceLeg& leg : trace.result.legs) {
        lowest = std::min(lowest, leg.confidence);
        if (weak(leg)) weakLegs.append(polygon(leg.points));
    }
    layer_->setWeakLegs(item, weakLegs);
    // Its nodes (dragged and deleted by the Trace tool) and each leg's confidence at the leg's middle.
    QList<QPointF> nodes;
    for (const glint::TracePoint& n : nodesOf(trace.result)) nodes.append(qpoint(n));
    QList<TraceLayer::LegMark> marks;
    for (const glint::TraceLeg& leg : trace.result.legs)
        if (leg.points.size() >= 2) {
            const std::size_t mid = leg.points.size() / 2;
            marks.append({qpoint(leg.points[mid]), leg.confidence, qpoint(leg.points[mid]) - qpoint(leg.points[mid - 1])});
        }
    layer_->setNodes(item, nodes, marks);
    if (model_) {
        QVariantList row{trace.id, static_cast<int>(trace.result.legs.size()), polylineLength(line), trace.result.score,
                         trace.mode, trace.backend, lowest, confidencesText(trace.result.legs),
                         trace.widthPx ? QVariant(*trace.widthPx) : QVariant()};
        // On a georeferenced image, the length on the map as the region CSV's map_length gives it.
        if (model_->columnCount() > row.size()) {
            std::vector<std::pair<double, double>> points;
            for (const glint::TracePoint& p : trace.result.polyline()) points.emplace_back(p.x, p.y);
            const auto image = context().image();
            const std::optional<glint::MapLength> length =
                image && image->meta.georef ? glint::mapLength(points, *image->meta.georef) : std::nullopt;
            row << (length ? QVariant(length->value) : QVariant());
            // The width on the map: the pixel width scaled by the line's own map/pixel length ratio, as the
            // network layer's width and glint-cli trace's map_width are (square pixels).
            const double px = polylineLength(line);
            row << (length && trace.widthPx && px > 0.0 ? QVariant(*trace.widthPx * length->value / px) : QVariant());
        }
        model_->addRow(row, item);
    }
    traces_.push_back(std::move(trace));
    emit resultsChanged();
}

bool TraceModule::deleteTrace(int id) {
    const auto it = std::find_if(traces_.begin(), traces_.end(), [id](const FinishedTrace& t) { return t.id == id; });
    if (it == traces_.end()) return false;
    const std::vector<FinishedTrace> before = traces_;
    const QPointer<TraceModule> self(this);
    context().undoStack()->push(new ImageEditCommand(
        context(), tr("Delete trace #%1").arg(id),
        [self, before] {
            if (self) self->showTraces(before);
        },
        [self, id] {
            if (self) self->withoutTrace(id);
        }));
    return true;
}

bool TraceModule::clearTraces() {
    if (traces_.empty()) return false;
    const std::vector<FinishedTrace> before = traces_;
    const QPointer<TraceModule> self(this);
    context().undoStack()->push(new ImageEditCommand(
        context(), tr("Delete all traces"),
        [self, before] {
            if (self) self->showTraces(before);
        },
        [self] {
            if (self) self->showTraces({});
        }));
    return true;
}

bool TraceModule::deleteSelectedTrace() {
    const int item = layer_ ? layer_->selected() : -1;
    if (item < 0 || item >= static_cast<int>(traces_.size())) {
        showMessage(tr("Select a trace first (click it on the image or its row in the results)."));
        return false;
    }
    return deleteTrace(traces_[static_cast<std::size_t>(item)].id);
}

void TraceModule::withoutTrace(int id) {
    std::vector<FinishedTrace> list;
    for (const FinishedTrace& t : traces_)
        if (t.id != id) list.push_back(t);
    showTraces(std::move(list));
}

void TraceModule::showTraces(std::vector<FinishedTrace> list) {
    // The layer's items and the model's rows are the list's, in order: rebuilt from it.
    if (layer_) {
        layer_->clearMarks();
        layer_->setSelected(-1);
        layer_->clear();
    }
    if (model_) model_->clear();
    traces_.clear();
    for (FinishedTrace& t : list) presentTrace(std::move(t));
    emit resultsChanged();
}

void TraceModule::ensureOutputs() {
    AppContext& ctx = context();
    if (!layer_) {
        layer_ = new TraceLayer(name(), TraceTool::traceColour());
        traces_.clear(); // the layer's items are the traces: a new layer starts a new list
        // The Layers dock's Remove deletes every trace (one step: undo brings them back as they were) with the
        // half-made one, and hides the layer while the step is on the stack.
        layer_->setRemoval([self = QPointer<TraceModule>(this)] {
            if (!self) return;
            self->dropTrace();
            self->clearTraces();
        });
        ctx.layers()->add(layer_);
    } else {
        ctx.layers()->reattach(layer_); // a new trace after the layer's removal
    }
    if (!model_ && ctx.results()) {
        QStringList columns{tr("#"), tr("legs"), tr("length (px)"), tr("score"), tr("mode"), tr("backend"),
                            tr("lowest confidence"), tr("confidence per leg"), tr("width (px)")};
        // A georeferenced image adds the length on the map, in the CRS's unit (metres over a geographic CRS).
        if (const auto image = ctx.image(); image && image->meta.georef)
            columns << mapHeader(*image->meta.georef, tr("length")) << mapHeader(*image->meta.georef, tr("width"));
        model_ = new ResultsModel(columns);
        ctx.results()->addResultSet(name(), model_, layer_);
    }
}

void TraceModule::updatePreview() {
    TracePreview p;
    if (session_) {
        const Session& s = *session_;
        for (const glint::TracePoint& c : s.clicks) p.clicks.append(qpoint(c));
        p.fixed = legsPolyline(s.legs);
        for (const glint::TraceLeg& leg : s.legs)
            if (weak(leg)) p.weak.append(polygon(leg.points));
        const glint::TraceLeg* current = nullptr;
        for (std::size_t i = s.legs.size(); i + 1 < s.clicks.size(); ++i) {
            // A leg being fixed shows its live trace while that ended at the click, else a straight dash.
            if (s.live && samePoint(s.live->from, s.clicks[i]) && samePoint(s.live->to, s.clicks[i + 1])) {
                p.pending.append(polygon(s.live->points));
                current = &*s.live;
            } else {
                p.pending.append(QPolygonF{qpoint(s.clicks[i]), qpoint(s.clicks[i + 1])});
            }
        }
        if (s.live && !fixing_ && samePoint(s.live->from, s.clicks.back())) {
            p.live = polygon(s.live->points);
            p.liveWeak = weak(*s.live);
            current = &*s.live;
        }
        if (current && s.settings.showGuides) p.guides = guideLines(*current);
    }
    if (snapShown_ && hover_) p.snap = *hover_;
    // A node being dragged: dashed lines from its neighbours to where it would go.
    if (dragged_ && hoverIdle_ && !session_) {
        const auto t = std::find_if(traces_.begin(), traces_.end(), [this](const FinishedTrace& x) { return x.id == dragged_->traceId; });
        if (t != traces_.end()) {
            const auto nodes = nodesOf(t->result);
            const std::size_t n = static_cast<std::size_t>(dragged_->node);
            if (n > 0 && n < nodes.size()) p.pending.append(QPolygonF{qpoint(nodes[n - 1]), *hoverIdle_});
            if (n + 1 < nodes.size()) p.pending.append(QPolygonF{*hoverIdle_, qpoint(nodes[n + 1])});
            p.clicks.append(*hoverIdle_);
        }
    }
    tool_->setPreview(std::move(p));
}

} // namespace glint::ui
